// RUN: neuron-opt %s | neuron-opt | FileCheck %s

// Tests the round trip of every nisa instruction under a function's limits.

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>

// CHECK-LABEL: func.func @instructions
// CHECK-SAME: nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
func.func @instructions(%h: memref<128x512xbf16, #hbm>, %s: memref<128x128xbf16, #sbuf>,
                        %m: memref<128x512xbf16, #sbuf>, %acc: memref<128x512xf32, #psum>,
                        %o: memref<128x512xf32, #sbuf>, %b: memref<128x1xf32, #sbuf>,
                        %t: memref<64x128xf32, #sbuf>, %tp: memref<128x64xf32, #psum>,
                        %i: memref<128x16xi32, #sbuf>,
                        %taps: memref<128x16x32xbf16, strided<[2176, 68, 2], offset: 35>, #sbuf>)
    attributes {nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608,
      psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>} {
  // CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 3 : memref<128x512xbf16, #nisa.memory<hbm>>, memref<128x512xbf16, #nisa.memory<sbuf>>
  nisa.dma_copy %h, %m queue 3 : memref<128x512xbf16, #hbm>, memref<128x512xbf16, #sbuf>
  // CHECK: nisa.matmul %{{.*}}, %{{.*}}, %{{.*}} :
  nisa.matmul %s, %m, %acc : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  // CHECK: nisa.matmul %{{.*}}, %{{.*}}, %{{.*}} accumulate :
  nisa.matmul %s, %m, %acc accumulate : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  // A moving operand read as rows and columns with strides (a convolution's
  // tap reading its window of an input tile): 16 x 32 columns.
  // CHECK: nisa.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<128x128xbf16, #nisa.memory<sbuf>>, memref<128x16x32xbf16, strided<[2176, 68, 2], offset: 35>, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<psum>>
  nisa.matmul %s, %taps, %acc : memref<128x128xbf16, #sbuf>, memref<128x16x32xbf16, strided<[2176, 68, 2], offset: 35>, #sbuf>, memref<128x512xf32, #psum>
  // CHECK: nisa.activation <gelu_tanh> %{{.*}}, %{{.*}} scale 5.000000e-01 bias %{{.*}} :
  nisa.activation <gelu_tanh> %acc, %o scale 0.5 bias %b : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>, memref<128x1xf32, #sbuf>
  // CHECK: nisa.activation <exp> %{{.*}}, %{{.*}} :
  nisa.activation <exp> %acc, %o : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  // CHECK: nisa.activation <identity> %{{.*}}, %{{.*}} scales(%{{.*}} : memref<128x1xf32, #nisa.memory<sbuf>>) :
  nisa.activation <identity> %acc, %o scales(%b : memref<128x1xf32, #sbuf>) : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  // CHECK: nisa.activation <exp> %{{.*}}, %{{.*}} bias %{{.*}} scales(%{{.*}} : memref<128x1xf32, #nisa.memory<sbuf>>) : {{.*}}, memref<128x1xf32, #nisa.memory<sbuf>>
  nisa.activation <exp> %acc, %o bias %b scales(%b : memref<128x1xf32, #sbuf>) : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>, memref<128x1xf32, #sbuf>
  // CHECK: nisa.tensor_tensor <add> %{{.*}}, %{{.*}}, %{{.*}} :
  nisa.tensor_tensor <add> %o, %acc, %o : memref<128x512xf32, #sbuf>, memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  // CHECK: nisa.tensor_scalar <multiply> %{{.*}}, %{{.*}} scalar 1.250000e-01 :
  nisa.tensor_scalar <multiply> %o, %o scalar 0.125 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  // CHECK: nisa.tensor_scalar <divide> %{{.*}}, %{{.*}} scalars %{{.*}} : memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x1xf32, #nisa.memory<sbuf>>
  nisa.tensor_scalar <divide> %o, %o scalars %b : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x1xf32, #sbuf>
  // CHECK: nisa.scalar_tensor_tensor <multiply> <add> %{{.*}}, %{{.*}}, %{{.*}} scalars %{{.*}} : memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x1xf32, #nisa.memory<sbuf>>
  nisa.scalar_tensor_tensor <multiply> <add> %o, %o, %o scalars %b : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x1xf32, #sbuf>
  // CHECK: nisa.scalar_tensor_tensor <subtract> <multiply> %{{.*}}, %{{.*}}, %{{.*}} scalar 5.000000e-01 :
  nisa.scalar_tensor_tensor <subtract> <multiply> %o, %acc, %o scalar 0.5 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  // CHECK: nisa.tensor_reduce <max> %{{.*}}, %{{.*}} :
  nisa.tensor_reduce <max> %o, %b : memref<128x512xf32, #sbuf>, memref<128x1xf32, #sbuf>
  // A window of a 3-D tile reduced into one element per partition of another.
  %win = memref.subview %o[0, 0] [128, 8] [1, 2] : memref<128x512xf32, #sbuf> to memref<128x8xf32, strided<[512, 2]>, #sbuf>
  %w3 = memref.expand_shape %win [[0], [1, 2]] output_shape [128, 2, 4] : memref<128x8xf32, strided<[512, 2]>, #sbuf> into memref<128x2x4xf32, strided<[512, 8, 2]>, #sbuf>
  %d3 = memref.expand_shape %b [[0], [1, 2]] output_shape [128, 1, 1] : memref<128x1xf32, #sbuf> into memref<128x1x1xf32, #sbuf>
  // CHECK: nisa.tensor_reduce <add> %{{.*}}, %{{.*}} : memref<128x2x4xf32, strided<[512, 8, 2]>, #nisa.memory<sbuf>>, memref<128x1x1xf32, #nisa.memory<sbuf>>
  nisa.tensor_reduce <add> %w3, %d3 : memref<128x2x4xf32, strided<[512, 8, 2]>, #sbuf>, memref<128x1x1xf32, #sbuf>
  // CHECK: nisa.transpose %{{.*}}, %{{.*}} : memref<64x128xf32, #nisa.memory<sbuf>>, memref<128x64xf32, #nisa.memory<psum>>
  nisa.transpose %t, %tp : memref<64x128xf32, #sbuf>, memref<128x64xf32, #psum>
  // CHECK: nisa.memset %{{.*}} value 0.000000e+00 :
  nisa.memset %o value 0.0 : memref<128x512xf32, #sbuf>
  // CHECK: nisa.iota %{{.*}} partition_step 16 :
  nisa.iota %i partition_step 16 : memref<128x16xi32, #sbuf>
  return
}

// Tests the round trip of a gather from a column window of a wider table.
// CHECK-LABEL: func.func @gather_column_window
// CHECK: nisa.gather %{{.*}}[%{{.*}}], %{{.*}} : memref<1000x64xf32, strided<[256, 1], offset: 128>, #nisa.memory<hbm>>, memref<128x1xi32, #nisa.memory<sbuf>>, memref<128x64xf32, #nisa.memory<sbuf>>
func.func @gather_column_window(%table: memref<1000x64xf32, strided<[256, 1], offset: 128>, #hbm>,
                                %ids: memref<128x1xi32, #sbuf>, %rows: memref<128x64xf32, #sbuf>) {
  nisa.gather %table[%ids], %rows : memref<1000x64xf32, strided<[256, 1], offset: 128>, #hbm>, memref<128x1xi32, #sbuf>, memref<128x64xf32, #sbuf>
  return
}

// Tests the round trip of a select by an i1 mask.
// CHECK-LABEL: func.func @select_by_mask
// CHECK: nisa.select %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<128x64xi1, #nisa.memory<sbuf>>, memref<128x64xbf16, #nisa.memory<sbuf>>, memref<128x64xbf16, #nisa.memory<psum>>, memref<128x64xbf16, #nisa.memory<sbuf>>
func.func @select_by_mask(%m: memref<128x64xi1, #sbuf>, %a: memref<128x64xbf16, #sbuf>,
                          %b: memref<128x64xbf16, #psum>, %c: memref<128x64xbf16, #sbuf>) {
  nisa.select %m, %a, %b, %c : memref<128x64xi1, #sbuf>, memref<128x64xbf16, #sbuf>, memref<128x64xbf16, #psum>, memref<128x64xbf16, #sbuf>
  return
}

// -----

// CHECK-LABEL: func.func @dynamic_start
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 1 offset %{{.*}} limit 15 dst_dim 0 : memref<1x64xf32, #nisa.memory<sbuf>>, memref<1x64xf32, strided<[64, 1]>, #nisa.memory<hbm>>, memref<1x1xi32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 2 offset %{{.*}} limit 3 src_dim 1 : memref<2x4x8xf32, strided<[64, 8, 1]>, #nisa.memory<hbm>>, memref<2x32xf32, #nisa.memory<sbuf>>, memref<1x1xi32, #nisa.memory<sbuf>>
func.func @dynamic_start(%row: memref<1x64xf32, #nisa.memory<sbuf>>,
                         %cache: memref<1x64xf32, strided<[64, 1]>, #nisa.memory<hbm>>,
                         %pos: memref<1x1xi32, #nisa.memory<sbuf>>,
                         %window: memref<2x4x8xf32, strided<[64, 8, 1]>, #nisa.memory<hbm>>,
                         %tile: memref<2x32xf32, #nisa.memory<sbuf>>) {
  nisa.dma_copy %row, %cache queue 1 offset %pos limit 15 dst_dim 0 : memref<1x64xf32, #nisa.memory<sbuf>>, memref<1x64xf32, strided<[64, 1]>, #nisa.memory<hbm>>, memref<1x1xi32, #nisa.memory<sbuf>>
  nisa.dma_copy %window, %tile queue 2 offset %pos limit 3 src_dim 1 : memref<2x4x8xf32, strided<[64, 8, 1]>, #nisa.memory<hbm>>, memref<2x32xf32, #nisa.memory<sbuf>>, memref<1x1xi32, #nisa.memory<sbuf>>
  return
}

// -----

// Tests the round trip of a double-row fp8 matmul (two K rows per
// partition: two K tiles of a resident block side by side) under limits
// that allow it.
// CHECK-LABEL: func.func @double_row
// CHECK-SAME: fp8_rows = 2
// CHECK: nisa.matmul %{{.*}}, %{{.*}}, %{{.*}} double_row accumulate : memref<128x2x128xf8E4M3FN, strided<[1024, 128, 1], offset: 256>, #nisa.memory<sbuf>>, memref<128x2x512xf8E4M3FN, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<psum>>
func.func @double_row(%s: memref<128x2x128xf8E4M3FN, strided<[1024, 128, 1], offset: 256>, #nisa.memory<sbuf>>,
                      %m: memref<128x2x512xf8E4M3FN, #nisa.memory<sbuf>>,
                      %acc: memref<128x512xf32, #nisa.memory<psum>>)
    attributes {nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376,
      psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512, fp8_rows = 2>} {
  nisa.matmul %s, %m, %acc double_row accumulate : memref<128x2x128xf8E4M3FN, strided<[1024, 128, 1], offset: 256>, #nisa.memory<sbuf>>, memref<128x2x512xf8E4M3FN, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<psum>>
  return
}
