// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2,lnc=1 summary=1" -o /dev/null

// Tests the DMA engines' time in a plan's estimate (one physical core:
// 16 engines of 23 B/ns against 362.5 B/ns of HBM). Holding lhs in blocks
// of 7 M tiles reads 18 MiB, its fp8 rhs streamed in rows of 512 B (each
// run costing an engine 224 bytes more) and its 32 MiB of f32 results
// written; holding rhs in blocks of 2 N tiles reads 9 MiB, each lhs tile
// read once (through the DMA's transpose of FP8 pairs), and is estimated
// shortest. All of rhs (1 MiB, 2.9 us at HBM rate) loads longer than one
// lhs tile's matmuls take (1.8 us): the first two stream together.
func.func @dma_runs(%a: tensor<8192x1024xf8E4M3FN>, %b: tensor<1024x1024xf8E4M3FN>) -> tensor<8192x1024xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 8192x1024x1024: rhs resident in blocks of 2 N tiles, reading 9.0 MiB from HBM (26.0 us at the core's HBM bandwidth), estimated 158.0 us; lhs transposed by the DMA in FP8 pairs; the first 2 lhs row tiles stream together while rhs loads; runner-up: rhs resident in blocks of 1 N tiles, 17.0 MiB, 187.3 us}}
  %0 = neuron.matmul %a, %b : (tensor<8192x1024xf8E4M3FN>, tensor<1024x1024xf8E4M3FN>) -> tensor<8192x1024xf32>
  return %0 : tensor<8192x1024xf32>
}

// -----

// Tests plans whose transfers bound their estimates and lie within 10% of
// each other: the 6 MiB of f32 results dominate both, and holding rhs
// (rows of 6 KiB) is estimated 5% shorter than holding lhs (rhs streamed
// in rows of 1 KiB), closer than the estimate tells apart; both read
// 1.8 MiB, and the smaller block (4 M tiles, loaded sooner) goes first.
func.func @fewer_bytes(%a: tensor<512x256xbf16>, %b: tensor<256x3072xbf16>) -> tensor<512x3072xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 512x256x3072: lhs resident in blocks of 4 M tiles, reading 1.8 MiB from HBM (5.1 us at the core's HBM bandwidth), estimated 30.8 us; fewer bytes or a smaller block than plans estimated up to 10% shorter by their transfers; runner-up: rhs resident in blocks of 6 N tiles, 1.8 MiB, 29.2 us}}
  %0 = neuron.matmul %a, %b : (tensor<512x256xbf16>, tensor<256x3072xbf16>) -> tensor<512x3072xf32>
  return %0 : tensor<512x3072xf32>
}

// -----

// Tests a plan reading fewer bytes within 10% whose estimate is its
// tensor-engine work (counted, not estimated from transfers): holding rhs
// reads 61 MiB rather than 183 MiB, but streams lhs through the tensor
// engine's transposes (K is odd: no FP8 pairs), estimated 6% longer than
// holding lhs, whose transfers bound it; it stays second.
func.func @tensor_bound(%a: tensor<4000x3999xf8E4M3FN>, %b: tensor<3999x4000xf8E4M3FN>) -> tensor<4000x4000xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 4000x3999x4000: lhs resident in blocks of 3 M tiles, reading 183.1 MiB from HBM (529.5 us at the core's HBM bandwidth), estimated 1153.5 us; lhs transposed on the tensor engine; runner-up: rhs resident in blocks of 3 N tiles, 61.0 MiB, 1224.7 us}}
  %0 = neuron.matmul %a, %b : (tensor<4000x3999xf8E4M3FN>, tensor<3999x4000xf8E4M3FN>) -> tensor<4000x4000xf32>
  return %0 : tensor<4000x4000xf32>
}
