// RUN: neuron-opt %s -split-input-file -verify-diagnostics

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a matmul whose moving operand exceeds the target's moving free size.
func.func @moving_too_wide(%s: memref<128x128xbf16, #sbuf>, %m: memref<128x1024xbf16, #sbuf>, %acc: memref<128x1024xf32, #psum>)
    attributes {nisa.limits = #limits} {
  // expected-error@+1 {{'nisa.matmul' op expected a moving free size of at most 512, found 1024}}
  nisa.matmul %s, %m, %acc : memref<128x128xbf16, #sbuf>, memref<128x1024xbf16, #sbuf>, memref<128x1024xf32, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a tile spanning more partitions than the target has.
func.func @too_many_partitions(%a: memref<256x4xf32, #sbuf>) attributes {nisa.limits = #limits} {
  // expected-error@+1 {{'nisa.memset' op expected the result to span at most 128 partitions, found 256}}
  nisa.memset %a value 0.0 : memref<256x4xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 1024, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a tile larger than a partition of SBUF.
func.func @too_many_bytes(%a: memref<128x512xf32, #sbuf>) attributes {nisa.limits = #limits} {
  // expected-error@+1 {{'nisa.memset' op expected the result to hold at most 1024 bytes per partition in sbuf, found 2048}}
  nisa.memset %a value 0.0 : memref<128x512xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a matmul writing SBUF instead of PSUM.
func.func @result_in_sbuf(%s: memref<128x128xbf16, #sbuf>, %m: memref<128x512xbf16, #sbuf>, %acc: memref<128x512xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.matmul' op expected the result in psum, found sbuf}}
  nisa.matmul %s, %m, %acc : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a matmul whose operands disagree on the contracted dimension.
func.func @contracted_mismatch(%s: memref<64x128xbf16, #sbuf>, %m: memref<128x512xbf16, #sbuf>, %acc: memref<128x512xf32, #psum>) {
  // expected-error@+1 {{'nisa.matmul' op expected the operands to share the contracted partition dimension, found 64 and 128}}
  nisa.matmul %s, %m, %acc : memref<64x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a matmul whose moving rows and columns are fewer than its result's.
func.func @moving_window_mismatch(%s: memref<128x128xbf16, #sbuf>, %m: memref<128x16x16xbf16, strided<[1156, 68, 2]>, #sbuf>, %acc: memref<128x512xf32, #psum>) {
  // expected-error@+1 {{'nisa.matmul' op expected a 128x256 result, found 128x512}}
  nisa.matmul %s, %m, %acc : memref<128x128xbf16, #sbuf>, memref<128x16x16xbf16, strided<[1156, 68, 2]>, #sbuf>, memref<128x512xf32, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a matmul whose moving operand has more than rows and columns.
func.func @moving_rank4(%s: memref<128x128xbf16, #sbuf>, %m: memref<128x2x16x16xbf16, #sbuf>, %acc: memref<128x512xf32, #psum>) {
  // expected-error@+1 {{'nisa.matmul' op expected a moving operand [K, N] or [K, rows, columns], found rank 4}}
  nisa.matmul %s, %m, %acc : memref<128x128xbf16, #sbuf>, memref<128x2x16x16xbf16, #sbuf>, memref<128x512xf32, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a matmul result that is not fp32.
func.func @bf16_result(%s: memref<128x128xbf16, #sbuf>, %m: memref<128x512xbf16, #sbuf>, %acc: memref<128x512xbf16, #psum>) {
  // expected-error@+1 {{'nisa.matmul' op expected an f32 result (PSUM accumulates in fp32), found 'bf16'}}
  nisa.matmul %s, %m, %acc : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xbf16, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a matmul result that steps over columns: the sums fill whole rows.
func.func @strided_result(%s: memref<128x128xbf16, #sbuf>, %m: memref<128x256xbf16, #sbuf>, %acc: memref<128x512xf32, #psum>) {
  %every2 = memref.subview %acc[0, 0] [128, 256] [1, 2] : memref<128x512xf32, #psum> to memref<128x256xf32, strided<[512, 2]>, #psum>
  // expected-error@+1 {{'nisa.matmul' op expected a result whose rows are contiguous (the sums fill whole rows of a PSUM bank), found 'memref<128x256xf32, strided<[512, 2]>, #nisa.memory<psum>>'}}
  nisa.matmul %s, %m, %every2 : memref<128x128xbf16, #sbuf>, memref<128x256xbf16, #sbuf>, memref<128x256xf32, strided<[512, 2]>, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 1024, stationary_free = 128, moving_free = 512>

// Tests a matmul result wider than one PSUM bank.
func.func @bank_overflow(%s: memref<128x128xbf16, #sbuf>, %m: memref<128x512xbf16, #sbuf>, %acc: memref<128x512xf32, #psum>)
    attributes {nisa.limits = #limits} {
  // expected-error@+1 {{'nisa.matmul' op expected the result to fit one PSUM bank (1024 bytes per partition), found 2048}}
  nisa.matmul %s, %m, %acc : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  return
}

// -----

// Tests a tile outside the nisa memory spaces.
func.func @no_space(%a: memref<128x4xf32>) {
  // expected-error@+1 {{'nisa.memset' op expected the result in a nisa memory space (#nisa.memory<...>), found 'memref<128x4xf32>'}}
  nisa.memset %a value 0.0 : memref<128x4xf32>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a tensor_scalar with neither an immediate nor per-partition scalars.
func.func @no_scalar(%a: memref<128x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.tensor_scalar' op expected either an immediate 'scalar' or a per-partition 'scalars' tile, found neither}}
  nisa.tensor_scalar <add> %a, %a : memref<128x8xf32, #sbuf>, memref<128x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a tensor_scalar with both an immediate and per-partition scalars.
func.func @both_scalars(%a: memref<128x8xf32, #sbuf>, %s: memref<128x1xf32, #sbuf>) {
  // expected-error@+1 {{found both}}
  nisa.tensor_scalar <add> %a, %a scalar 1.0 scalars %s : memref<128x8xf32, #sbuf>, memref<128x8xf32, #sbuf>, memref<128x1xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a scalar_tensor_tensor with neither an immediate nor per-partition
// scalars.
func.func @stt_no_scalar(%a: memref<128x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.scalar_tensor_tensor' op expected either an immediate 'scalar' or a per-partition 'scalars' tile, found neither}}
  nisa.scalar_tensor_tensor <multiply> <add> %a, %a, %a : memref<128x8xf32, #sbuf>, memref<128x8xf32, #sbuf>, memref<128x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a scalar_tensor_tensor whose tensor operand is not of the source's
// shape.
func.func @stt_shape(%a: memref<128x8xf32, #sbuf>, %b: memref<128x4xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.scalar_tensor_tensor' op expected tiles of one shape, found 'memref<128x8xf32, #nisa.memory<sbuf>>' and 'memref<128x4xf32, #nisa.memory<sbuf>>'}}
  nisa.scalar_tensor_tensor <multiply> <add> %a, %b, %a scalar 2.0 : memref<128x8xf32, #sbuf>, memref<128x4xf32, #sbuf>, memref<128x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests per-partition scalars of a scalar_tensor_tensor spanning other
// partitions than the source.
func.func @stt_scalars_shape(%a: memref<128x8xf32, #sbuf>, %s: memref<64x1xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.scalar_tensor_tensor' op expected the scalars of shape 128x1 (one value per partition), found 'memref<64x1xf32, #nisa.memory<sbuf>>'}}
  nisa.scalar_tensor_tensor <multiply> <add> %a, %a, %a scalars %s : memref<128x8xf32, #sbuf>, memref<128x8xf32, #sbuf>, memref<128x8xf32, #sbuf>, memref<64x1xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests per-partition scalars spanning other partitions than the source.
func.func @scalars_shape(%a: memref<128x8xf32, #sbuf>, %s: memref<64x1xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.tensor_scalar' op expected the scalars of shape 128x1 (one value per partition), found 'memref<64x1xf32, #nisa.memory<sbuf>>'}}
  nisa.tensor_scalar <multiply> %a, %a scalars %s : memref<128x8xf32, #sbuf>, memref<128x8xf32, #sbuf>, memref<64x1xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests an activation whose bias is not one value per partition.
func.func @bias_shape(%a: memref<128x8xf32, #psum>, %o: memref<128x8xf32, #sbuf>, %b: memref<128x2xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.activation' op expected the bias of shape 128x1 (one value per partition), found 'memref<128x2xf32, #nisa.memory<sbuf>>'}}
  nisa.activation <exp> %a, %o bias %b : memref<128x8xf32, #psum>, memref<128x8xf32, #sbuf>, memref<128x2xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests an activation whose scales are not one value per partition.
func.func @scales_shape(%a: memref<128x8xf32, #psum>, %o: memref<128x8xf32, #sbuf>, %s: memref<64x1xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.activation' op expected the scales of shape 128x1 (one value per partition), found 'memref<64x1xf32, #nisa.memory<sbuf>>'}}
  nisa.activation <identity> %a, %o scales(%s : memref<64x1xf32, #sbuf>) : memref<128x8xf32, #psum>, memref<128x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests elementwise tiles of different shapes.
func.func @shape_mismatch(%a: memref<128x8xf32, #sbuf>, %b: memref<128x4xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.tensor_tensor' op expected tiles of one shape, found 'memref<128x8xf32, #nisa.memory<sbuf>>' and 'memref<128x4xf32, #nisa.memory<sbuf>>'}}
  nisa.tensor_tensor <add> %a, %b, %a : memref<128x8xf32, #sbuf>, memref<128x4xf32, #sbuf>, memref<128x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a reduction whose result is not one value per partition.
func.func @reduce_shape(%a: memref<128x8xf32, #sbuf>, %b: memref<128x2xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op expected a 128x1 result (one value per partition), found 'memref<128x2xf32, #nisa.memory<sbuf>>'}}
  nisa.tensor_reduce <add> %a, %b : memref<128x8xf32, #sbuf>, memref<128x2xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a reduction into a result of other partitions, of rank 3.
func.func @reduce_partitions(%a: memref<128x8xf32, #sbuf>, %b: memref<64x1x1xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.tensor_reduce' op expected a 128x1 result (one value per partition), found 'memref<64x1x1xf32, #nisa.memory<sbuf>>'}}
  nisa.tensor_reduce <add> %a, %b : memref<128x8xf32, #sbuf>, memref<64x1x1xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a DMA between tiles of different sizes.
func.func @dma_size(%a: memref<128x8xf32, #hbm>, %b: memref<128x4xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected the same number of elements, found 1024 and 512}}
  nisa.dma_copy %a, %b queue 0 : memref<128x8xf32, #hbm>, memref<128x4xf32, #sbuf>
  return
}

// -----

// Tests the limits attribute's own verifier.
// expected-error@+1 {{expected psum_bank_bytes (4096) to fit in psum_bytes (2048)}}
func.func @bad_limits() attributes {nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 1, psum_bytes = 2048, psum_bank_bytes = 4096, stationary_free = 128, moving_free = 512>} {
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a gather whose indices are not i32.
func.func @gather_i64_indices(%t: memref<50x8xf32, #hbm>, %i: memref<16x1xi64, #sbuf>, %d: memref<16x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.gather' op expected [P, 1] i32 indices (one row index per partition), found 'memref<16x1xi64, #nisa.memory<sbuf>>'}}
  nisa.gather %t[%i], %d : memref<50x8xf32, #hbm>, memref<16x1xi64, #sbuf>, memref<16x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a gather with more than one index per partition.
func.func @gather_index_columns(%t: memref<50x8xf32, #hbm>, %i: memref<16x2xi32, #sbuf>, %d: memref<16x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.gather' op expected [P, 1] i32 indices (one row index per partition), found 'memref<16x2xi32, #nisa.memory<sbuf>>'}}
  nisa.gather %t[%i], %d : memref<50x8xf32, #hbm>, memref<16x2xi32, #sbuf>, memref<16x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a gather whose result is wider than the table's rows.
func.func @gather_result_shape(%t: memref<50x8xf32, #hbm>, %i: memref<16x1xi32, #sbuf>, %d: memref<16x9xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.gather' op expected a 16x8 result (a row of the table per index), found 'memref<16x9xf32, #nisa.memory<sbuf>>'}}
  nisa.gather %t[%i], %d : memref<50x8xf32, #hbm>, memref<16x1xi32, #sbuf>, memref<16x9xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a gather that would convert the table's element type.
func.func @gather_dtype(%t: memref<50x8xf32, #hbm>, %i: memref<16x1xi32, #sbuf>, %d: memref<16x8xbf16, #sbuf>) {
  // expected-error@+1 {{'nisa.gather' op expected the result in the table's element type 'f32', found 'bf16'}}
  nisa.gather %t[%i], %d : memref<50x8xf32, #hbm>, memref<16x1xi32, #sbuf>, memref<16x8xbf16, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a gather from an on-chip table.
func.func @gather_table_on_chip(%t: memref<50x8xf32, #sbuf>, %i: memref<16x1xi32, #sbuf>, %d: memref<16x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.gather' op expected the table in hbm, found sbuf}}
  nisa.gather %t[%i], %d : memref<50x8xf32, #sbuf>, memref<16x1xi32, #sbuf>, memref<16x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a gather of more rows than the target has partitions.
func.func @gather_too_many_partitions(%t: memref<50x8xf32, #hbm>, %i: memref<256x1xi32, #sbuf>, %d: memref<256x8xf32, #sbuf>)
    attributes {nisa.limits = #limits} {
  // expected-error@+1 {{'nisa.gather' op expected the indices to span at most 128 partitions, found 256}}
  nisa.gather %t[%i], %d : memref<50x8xf32, #hbm>, memref<256x1xi32, #sbuf>, memref<256x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a gather from a table of unknown extent (a bound check needs R).
func.func @gather_dynamic_table(%t: memref<?x8xf32, #hbm>, %i: memref<16x1xi32, #sbuf>, %d: memref<16x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.gather' op expected a static [rows, columns] table, found 'memref<?x8xf32, #nisa.memory<hbm>>'}}
  nisa.gather %t[%i], %d : memref<?x8xf32, #hbm>, memref<16x1xi32, #sbuf>, memref<16x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a select that would convert between element types.
func.func @select_dtypes(%m: memref<16x8xi1, #sbuf>, %a: memref<16x8xf32, #sbuf>, %b: memref<16x8xbf16, #sbuf>, %c: memref<16x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.select' op expected the operands and the result in one element type, found 'f32', 'bf16' and 'f32'}}
  nisa.select %m, %a, %b, %c : memref<16x8xi1, #sbuf>, memref<16x8xf32, #sbuf>, memref<16x8xbf16, #sbuf>, memref<16x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a select whose mask has another shape than its operands.
func.func @select_shapes(%m: memref<16x4xi1, #sbuf>, %a: memref<16x8xf32, #sbuf>, %b: memref<16x8xf32, #sbuf>, %c: memref<16x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.select' op expected tiles of one shape, found 'memref<16x4xi1, #nisa.memory<sbuf>>' and 'memref<16x8xf32, #nisa.memory<sbuf>>'}}
  nisa.select %m, %a, %b, %c : memref<16x4xi1, #sbuf>, memref<16x8xf32, #sbuf>, memref<16x8xf32, #sbuf>, memref<16x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a select reading HBM, which the vector engine cannot.
func.func @select_in_hbm(%m: memref<16x8xi1, #sbuf>, %a: memref<16x8xf32, #hbm>, %b: memref<16x8xf32, #sbuf>, %c: memref<16x8xf32, #sbuf>) {
  // expected-error@+1 {{'nisa.select' op expected the true operand in sbuf or psum, found hbm}}
  nisa.select %m, %a, %b, %c : memref<16x8xi1, #sbuf>, memref<16x8xf32, #hbm>, memref<16x8xf32, #sbuf>, memref<16x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 1024, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that an i1 mask takes a byte per element against the SBUF limit.
func.func @mask_bytes(%m: memref<128x2048xi1, #sbuf>) attributes {nisa.limits = #limits} {
  // expected-error@+1 {{'nisa.memset' op expected the result to hold at most 1024 bytes per partition in sbuf, found 2048}}
  nisa.memset %m value 0.0 : memref<128x2048xi1, #sbuf>
  return
}

// -----

// The attributes passes hand on are verified by the dialect.
// expected-error@+1 {{unknown nisa attribute 'nisa.bogus'}}
func.func @unknown_attribute() attributes {nisa.bogus = 1 : i64} {
  return
}

// -----

func.func @address_not_on_alloc() {
  // expected-error@+1 {{expected 'nisa.address' to be a non-negative i64 byte offset on a memref.alloc, found -4 : i64}}
  %a = memref.alloc() {nisa.address = -4 : i64} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}

// -----

func.func @slots_wrong_type() {
  // expected-error@+1 {{expected 'nisa.slots' to be a #nisa.slots on a memref.alloc, found 2 : i64}}
  %a = memref.alloc() {nisa.slots = 2 : i64} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}

// -----

func.func @time_backwards(%a: memref<4x4xf32, #nisa.memory<sbuf>>) {
  // expected-error@+1 {{expected 'nisa.time_ns' to be [start, end] predicted times on an instruction, found array<f64: 5.000000e+00, 1.000000e+00>}}
  nisa.memset %a value 0.0 {nisa.time_ns = array<f64: 5.0, 1.0>} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}

// -----

func.func @wait_not_waits(%a: memref<4x4xf32, #nisa.memory<sbuf>>) {
  // expected-error@+1 {{expected 'nisa.wait' to be an array of #nisa.wait on an instruction, found [1]}}
  nisa.memset %a value 0.0 {nisa.wait = [1 : i64]} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}

// -----

// A pipeline belongs on a loop.
// expected-error@+1 {{expected 'nisa.pipeline' to be a #nisa.pipeline on an affine.for}}
func.func @pipeline_on_function() attributes {nisa.pipeline = #nisa.pipeline<interval_ns = 1.0 : f64, latency_ns = 1.0 : f64, predicted_ns = 1.0 : f64>} {
  return
}

// -----

// A loop nest is transfer-bound, not a function.
// expected-error@+1 {{expected 'nisa.transfer_bound' to be a unit attribute on an affine.for}}
func.func @transfer_bound_on_function() attributes {nisa.transfer_bound} {
  return
}

// -----

func.func @transfer_bound_not_unit() {
  // expected-error@+1 {{expected 'nisa.transfer_bound' to be a unit attribute on an affine.for, found true}}
  affine.for %i = 0 to 2 {
  } {nisa.transfer_bound = true}
  return
}

// -----

// expected-error@+1 {{expected 'nisa.schedule' to be a #nisa.schedule on a kernel, found {predicted_ns = 1.000000e+00 : f64}}}
func.func @schedule_as_dictionary() attributes {nisa.schedule = {predicted_ns = 1.0 : f64}} {
  return
}

// -----

// expected-error@+1 {{expected busy_ns to hold 5 non-negative times (tensor, vector, scalar, gpsimd, dma)}}
func.func @schedule_busy_times() attributes {nisa.schedule = #nisa.schedule<predicted_ns = 1.0 : f64, bound_ns = 1.0 : f64, critical_path_ns = 1.0 : f64, serial_ns = 1.0 : f64, busy_ns = [1.0, 2.0], dma_engines = 16, critical_path = [0]>} {
  return
}

// -----

// expected-error@+1 {{expected dma_engines to be at least 1, found 0}}
func.func @schedule_no_engines() attributes {nisa.schedule = #nisa.schedule<predicted_ns = 1.0 : f64, bound_ns = 1.0 : f64, critical_path_ns = 1.0 : f64, serial_ns = 1.0 : f64, busy_ns = [0.0, 0.0, 0.0, 0.0, 1.0], dma_engines = 0, critical_path = [0]>} {
  return
}

// -----

// expected-error@+1 {{expected predicted_ns to be a non-negative time}}
func.func @schedule_negative_time() attributes {nisa.schedule = #nisa.schedule<predicted_ns = -1.0 : f64, bound_ns = 1.0 : f64, critical_path_ns = 1.0 : f64, serial_ns = 1.0 : f64, busy_ns = [0.0, 0.0, 0.0, 0.0, 1.0], dma_engines = 1, critical_path = []>} {
  return
}

// -----

// expected-error@+1 {{expected 'nisa.semaphores' to be a dictionary of positive counts by unit (tensor, vector, scalar, gpsimd, dmaN, each @C on physical core C > 0) on a kernel, found {dma = 1 : i64}}}
func.func @semaphore_of_no_unit() attributes {nisa.semaphores = {dma = 1 : i64}} {
  return
}

// -----

// expected-error@+1 {{expected 'nisa.semaphores' to be a dictionary of positive counts by unit}}
func.func @semaphore_of_core_zero() attributes {nisa.semaphores = {"tensor@0" = 1 : i64}} {
  return
}

// -----

// expected-error@+1 {{expected 'nisa.cores' to be a positive i64 count of physical cores on a kernel, found 0 : i64}}
func.func @no_cores() attributes {nisa.cores = 0 : i64} {
  return
}

// -----

func.func @core_on_alloc() {
  // expected-error@+1 {{expected 'nisa.core' to be a non-negative i64 physical core on an instruction, an affine.for or a memref.alloc, found -1 : i64}}
  %a = memref.alloc() {nisa.core = -1 : i64} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}

// -----

// expected-error@+1 {{expected 'nisa.semaphores' to be a dictionary of positive counts by unit}}
func.func @semaphore_count_zero() attributes {nisa.semaphores = {tensor = 0 : i64}} {
  return
}

// -----

func.func @tiling_without_tile() {
  // expected-error@+1 {{expected 'nisa.tiling' to be a dictionary with op, partition and tile on a memref.alloc}}
  %a = memref.alloc() {nisa.tiling = {op = "neuron.exp", partition = "rows"}} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a start offset that is not one i32.
func.func @dynamic_start_type(%a: memref<1x8xf32, #sbuf>, %b: memref<1x8xf32, #hbm>, %pos: memref<1x2xi32, #sbuf>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected a one-element i32 offset tile, found 'memref<1x2xi32, #nisa.memory<sbuf>>'}}
  nisa.dma_copy %a, %b queue 0 offset %pos limit 3 dst_dim 0 : memref<1x8xf32, #sbuf>, memref<1x8xf32, #hbm>, memref<1x2xi32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a start offset held in HBM.
func.func @dynamic_start_in_hbm(%a: memref<1x8xf32, #sbuf>, %b: memref<1x8xf32, #hbm>, %pos: memref<1x1xi32, #hbm>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected the offset in sbuf, found hbm}}
  nisa.dma_copy %a, %b queue 0 offset %pos limit 3 dst_dim 0 : memref<1x8xf32, #sbuf>, memref<1x8xf32, #hbm>, memref<1x1xi32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a start offset moving a side on chip.
func.func @dynamic_start_on_chip(%a: memref<1x8xf32, #sbuf>, %b: memref<1x8xf32, #sbuf>, %pos: memref<1x1xi32, #sbuf>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected the destination the offset moves in HBM}}
  nisa.dma_copy %a, %b queue 0 offset %pos limit 3 dst_dim 0 : memref<1x8xf32, #sbuf>, memref<1x8xf32, #sbuf>, memref<1x1xi32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a start offset moving a dimension the HBM side lacks.
func.func @dynamic_start_dim(%a: memref<1x8xf32, #sbuf>, %b: memref<1x8xf32, #hbm>, %pos: memref<1x1xi32, #sbuf>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected the moved dimension below the destination's rank 2, found 2}}
  nisa.dma_copy %a, %b queue 0 offset %pos limit 3 dst_dim 2 : memref<1x8xf32, #sbuf>, memref<1x8xf32, #hbm>, memref<1x1xi32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a limit without a start offset.
func.func @limit_without_offset(%a: memref<1x8xf32, #sbuf>, %b: memref<1x8xf32, #hbm>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected 'limit', 'src_dim' and 'dst_dim' only with an 'offset' tile}}
  nisa.dma_copy %a, %b queue 0 {limit = 3 : i64} : memref<1x8xf32, #sbuf>, memref<1x8xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a start offset naming both sides.
func.func @dynamic_start_both_sides(%a: memref<1x8xf32, #hbm>, %b: memref<1x8xf32, #hbm>, %pos: memref<1x1xi32, #sbuf>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected a 'limit' and one of 'src_dim' and 'dst_dim' with an 'offset' tile}}
  nisa.dma_copy %a, %b queue 0 offset %pos limit 3 src_dim 0 dst_dim 0 : memref<1x8xf32, #hbm>, memref<1x8xf32, #hbm>, memref<1x1xi32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>

// Tests a limit no executable can hold.
func.func @dynamic_start_limit(%a: memref<1x8xf32, #sbuf>, %b: memref<1x8xf32, #hbm>, %pos: memref<1x1xi32, #sbuf>) {
  // expected-error@+1 {{'nisa.dma_copy' op expected a limit of at most 2^40, found 1099511627777}}
  nisa.dma_copy %a, %b queue 0 offset %pos limit 1099511627777 dst_dim 0 : memref<1x8xf32, #sbuf>, memref<1x8xf32, #hbm>, memref<1x1xi32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a double-row matmul of bf16 operands (the mode packs fp8 pairs).
func.func @double_row_bf16(%s: memref<128x2x128xbf16, #sbuf>, %m: memref<128x2x512xbf16, #sbuf>, %acc: memref<128x512xf32, #psum>) {
  // expected-error@+1 {{'nisa.matmul' op expected fp8 operands in the double-row mode, found 'bf16'}}
  nisa.matmul %s, %m, %acc double_row : memref<128x2x128xbf16, #sbuf>, memref<128x2x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>

// Tests a double-row matmul whose stationary holds one row per partition.
func.func @double_row_one_row(%s: memref<128x128xf8E4M3FN, #sbuf>, %m: memref<128x2x512xf8E4M3FN, #sbuf>, %acc: memref<128x512xf32, #psum>) {
  // expected-error@+1 {{'nisa.matmul' op expected a stationary [K, 2, M] and a moving [K, 2, N] in the double-row mode}}
  nisa.matmul %s, %m, %acc double_row : memref<128x128xf8E4M3FN, #sbuf>, memref<128x2x512xf8E4M3FN, #sbuf>, memref<128x512xf32, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a double-row matmul on a target without the mode (trn1's limits).
func.func @double_row_unsupported(%s: memref<128x2x128xf8E5M2, #sbuf>, %m: memref<128x2x512xf8E5M2, #sbuf>, %acc: memref<128x512xf32, #psum>)
    attributes {nisa.limits = #limits} {
  // expected-error@+1 {{'nisa.matmul' op expected a target with the double-row mode (fp8_rows = 2), found fp8_rows = 1}}
  nisa.matmul %s, %m, %acc double_row : memref<128x2x128xf8E5M2, #sbuf>, memref<128x2x512xf8E5M2, #sbuf>, memref<128x512xf32, #psum>
  return
}

// -----

// Tests limits whose fp8 rows are not positive.
// expected-error@+1 {{expected a positive fp8_rows, found 0}}
func.func @fp8_rows_zero() attributes {nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512, fp8_rows = 0>} {
  return
}

// -----

func.func @fewer_first_not_three(%a: memref<4x4xf32, #nisa.memory<sbuf>>) {
  // expected-error@+1 {{expected fewer_first to be [loop, iterations, fewer]: a loop index of 0 or more, at least one iteration and one signal}}
  nisa.memset %a value 0.0 {nisa.wait = [#nisa.wait<unit = "dma0", count = 1, fewer_first = [0, 1]>]} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}

// -----

func.func @wait_unknown_list(%a: memref<4x4xf32, #nisa.memory<sbuf>>) {
  // expected-error@+1 {{expected 'per_iteration' or 'fewer_first', found 'fewer'}}
  nisa.memset %a value 0.0 {nisa.wait = [#nisa.wait<unit = "dma0", count = 1, fewer = [1]>]} : memref<4x4xf32, #nisa.memory<sbuf>>
  return
}
