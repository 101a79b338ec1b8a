// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn1 summary=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRN1
// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2,lnc=1 summary=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LNC1
// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2 summary=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LNC2

// A held lhs block the tensor engine transposes sums all its streamed
// transfers in one set of accumulators (matmul-fuse-transposes.mlir), so
// on one physical core it may hold as many M tiles as PSUM has banks for
// one set, where separate sets (a partial last N tile has its own) fit
// half as many: 3 of the 7 banks the transposes leave. Such a block is a
// plan only where it pays: the plan it would replace spends at least half
// its tensor-engine time on transfers, and K spans at least two panels of
// lhs loads.

// Tests a long K of bf16 on trn1 (16 K tiles, two panels of 8): the
// transfers of blocks of 3 take more than half the matmuls' time; blocks
// of 6 read rhs half as often.
// TRN1: 3000x2000x1500: lhs resident in blocks of 6 M tiles, reading 34.3 MiB
func.func @long_k(%a: tensor<3000x2000xbf16>, %b: tensor<2000x1500xbf16>) -> tensor<3000x1500xbf16> {
  %0 = neuron.matmul %a, %b : (tensor<3000x2000xbf16>, tensor<2000x1500xbf16>) -> tensor<3000x1500xbf16>
  return %0 : tensor<3000x1500xbf16>
}

// -----

// Tests a K of one panel (8 bf16 K tiles): no larger block.
// TRN1: 2500x1024x1300: lhs resident in blocks of 3 M tiles
func.func @one_panel(%a: tensor<2500x1024xbf16>, %b: tensor<1024x1300xbf16>) -> tensor<2500x1300xbf16> {
  %0 = neuron.matmul %a, %b : (tensor<2500x1024xbf16>, tensor<1024x1300xbf16>) -> tensor<2500x1300xbf16>
  return %0 : tensor<2500x1300xbf16>
}

// -----

// Tests f32, whose matmuls take four times as long: on trn1 the transfers
// of blocks of 3 take less than half the tensor engine's time, so the
// blocks stay at 3 M tiles; on trn2, whose FP32 transposes take half as
// long (the transpose mode), more than half, and blocks of 6 share sums.
// TRN1: 3000x2000x1500: lhs resident in blocks of 3 M tiles
// LNC1: 3000x2000x1500: lhs resident in blocks of 6 M tiles
func.func @compute_bound(%a: tensor<3000x2000xf32>, %b: tensor<2000x1500xf32>) -> tensor<3000x1500xf32> {
  %0 = neuron.matmul %a, %b : (tensor<3000x2000xf32>, tensor<2000x1500xf32>) -> tensor<3000x1500xf32>
  return %0 : tensor<3000x1500xf32>
}

// -----

// Tests the logical core: on trn2 at lnc=1 the transfers of blocks of 3
// take more than half the f32 matmuls' time here, and 1000 rows hold
// blocks of 4; at lnc=2 the plans keep a set of sums per transfer shape.
// LNC1: 1000x2000x1500: lhs resident in blocks of 4 M tiles
// LNC2: 1000x2000x1500: lhs resident in blocks of 3 M tiles
func.func @logical_core(%a: tensor<1000x2000xf32>, %b: tensor<2000x1500xf32>) -> tensor<1000x1500xf32> {
  %0 = neuron.matmul %a, %b : (tensor<1000x2000xf32>, tensor<2000x1500xf32>) -> tensor<1000x1500xf32>
  return %0 : tensor<1000x1500xf32>
}
