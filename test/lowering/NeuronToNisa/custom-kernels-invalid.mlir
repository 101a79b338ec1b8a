// RUN: neuron-opt %s -split-input-file --neuron-import --neuron-kernels="target=trn2.48xlarge,lnc=1" -verify-diagnostics

// User kernels that do not fit the target, each a located error: at the
// instruction or tile that does not fit, then at the kernel. The kernels
// are bound to the graph's neuron.relu by their nisa.implements.

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>

// Tests a tile over the target's 128 partitions.
// expected-remark@+1 {{neuron-outline-kernels: 1 launches of 1 kernels (1 written by the user)}}
func.func @graph(%x: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %y = neuron.relu %x : tensor<256x64xf32>
  return %y : tensor<256x64xf32>
}
// expected-error@+1 {{convert-neuron-to-nisa: user kernel @k}}
func.func @k(%x: memref<256x64xf32, #hbm>, %y: memref<256x64xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  %t = memref.alloc() : memref<256x64xf32, #sbuf>
  // expected-error@+1 {{'nisa.dma_copy' op expected the destination to span at most 128 partitions, found 256}}
  nisa.dma_copy %x, %t queue 0 : memref<256x64xf32, #hbm>, memref<256x64xf32, #sbuf>
  nisa.dma_copy %t, %y queue 1 : memref<256x64xf32, #sbuf>, memref<256x64xf32, #hbm>
  return
}

// -----

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>

// Tests a tile larger than a partition of SBUF (224 KiB on trn2).
// expected-remark@+1 {{neuron-outline-kernels: 1 launches of 1 kernels (1 written by the user)}}
func.func @graph(%x: tensor<128x65536xf32>) -> tensor<128x65536xf32> {
  %y = neuron.relu %x : tensor<128x65536xf32>
  return %y : tensor<128x65536xf32>
}
// expected-error@+1 {{convert-neuron-to-nisa: user kernel @k}}
func.func @k(%x: memref<128x65536xf32, #hbm>, %y: memref<128x65536xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  %t = memref.alloc() : memref<128x65536xf32, #sbuf>
  // expected-error@+1 {{'nisa.dma_copy' op expected the destination to hold at most 229376 bytes per partition in sbuf, found 262144}}
  nisa.dma_copy %x, %t queue 0 : memref<128x65536xf32, #hbm>, memref<128x65536xf32, #sbuf>
  nisa.dma_copy %t, %y queue 1 : memref<128x65536xf32, #sbuf>, memref<128x65536xf32, #hbm>
  return
}

// -----

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>

// Tests tiles that each fit but not together: SBUF is full.
// expected-remark@+1 {{neuron-outline-kernels: 1 launches of 1 kernels (1 written by the user)}}
func.func @graph(%x: tensor<128x32768xf32>) -> tensor<128x32768xf32> {
  %y = neuron.relu %x : tensor<128x32768xf32>
  return %y : tensor<128x32768xf32>
}
func.func @k(%x: memref<128x32768xf32, #hbm>, %y: memref<128x32768xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  // expected-note@+1 {{live: 'memref<128x32768xf32, #nisa.memory<sbuf>>', 131072 bytes per partition}}
  %a = memref.alloc() : memref<128x32768xf32, #sbuf>
  // expected-error@+1 {{nisa-allocate: SBUF is full: this 'memref<128x32768xf32, #nisa.memory<sbuf>>' tile needs 131072 bytes per partition of 229376; a tile of at most 98304 bytes per partition would fit}}
  %b = memref.alloc() : memref<128x32768xf32, #sbuf>
  nisa.dma_copy %x, %a queue 0 : memref<128x32768xf32, #hbm>, memref<128x32768xf32, #sbuf>
  nisa.activation <relu> %a, %b : memref<128x32768xf32, #sbuf>, memref<128x32768xf32, #sbuf>
  nisa.dma_copy %b, %y queue 1 : memref<128x32768xf32, #sbuf>, memref<128x32768xf32, #hbm>
  return
}

// -----

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a matmul whose moving operand is wider than the tensor engine takes.
// expected-remark@+1 {{neuron-outline-kernels: 1 launches of 1 kernels (1 written by the user)}}
func.func @graph(%x: tensor<128x1024xf32>) -> tensor<128x1024xf32> {
  %y = neuron.relu %x : tensor<128x1024xf32>
  return %y : tensor<128x1024xf32>
}
// expected-error@+1 {{convert-neuron-to-nisa: user kernel @k}}
func.func @k(%x: memref<128x1024xf32, #hbm>, %y: memref<128x1024xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  %s = memref.alloc() : memref<128x128xf32, #sbuf>
  %m = memref.alloc() : memref<128x1024xf32, #sbuf>
  %p = memref.alloc() : memref<128x1024xf32, #psum>
  // expected-error@+1 {{'nisa.matmul' op expected a moving free size of at most 512, found 1024}}
  nisa.matmul %s, %m, %p : memref<128x128xf32, #sbuf>, memref<128x1024xf32, #sbuf>, memref<128x1024xf32, #psum>
  return
}

// -----

#hbm = #nisa.memory<hbm>

// Tests a kernel named for an op whose types its signature does not match.
func.func @graph(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  // expected-error@+1 {{neuron-bind-kernels: kernel @k does not fit this op: expected argument #0 to be a buffer of tensor<128x64xf32> (input 0), found memref<128x64xbf16, #nisa.memory<hbm>>}}
  %y = neuron.relu %x {neuron.custom_kernel = @k} : tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
// expected-note@+1 {{the kernel}}
func.func @k(%x: memref<128x64xbf16, #hbm>, %y: memref<128x64xf32, #hbm>) {
  return
}

// -----

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>

// Tests a loop the kernel passes cannot read (scf.for, not affine.for).
// expected-remark@+1 {{neuron-outline-kernels: 1 launches of 1 kernels (1 written by the user)}}
func.func @graph(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %y = neuron.relu %x : tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
// expected-error@+1 {{convert-neuron-to-nisa: user kernel @k}}
func.func @k(%x: memref<128x64xf32, #hbm>, %y: memref<128x64xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{expected only affine.for loops in a kernel, found 'scf.for'}}
  scf.for %i = %c0 to %c2 step %c1 {
    %t = memref.alloc() : memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %t queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %t, %y queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, #hbm>
  }
  return
}

// -----

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>

// Tests a kernel that never writes its result.
// expected-remark@+1 {{neuron-outline-kernels: 1 launches of 1 kernels (1 written by the user)}}
func.func @graph(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %y = neuron.relu %x : tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
// expected-error@+1 {{convert-neuron-to-nisa: user kernel @k never writes its result #0 (argument #1), which would be left undefined}}
func.func @k(%x: memref<128x64xf32, #hbm>, %y: memref<128x64xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  %t = memref.alloc() : memref<128x64xf32, #sbuf>
  nisa.dma_copy %x, %t queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  return
}
