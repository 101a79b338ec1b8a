// The oracle's .npy library (libNeuronOracleIO.so) on its own: a result
// stored from a strided view reads back as input in row-major order, and a
// harness whose memref disagrees with the file, or that has no folder, stops
// with a message and status 1.

// DEFINE: %{run} = %preload_sanitizer mlir-runner %t/io.ll.mlir --entry-point-result=void \
// DEFINE:   --shared-libs=%oracle_io,%llvm_bin/../lib/libmlir_c_runner_utils.so
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt %s --convert-scf-to-cf --expand-strided-metadata \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts -o %t/io.ll.mlir
// RUN: env NEURON_ORACLE_DIR=%t %{run} -e store
// RUN: mv %t/oracle0.npy %t/input0.npy
// RUN: env NEURON_ORACLE_DIR=%t %{run} -e load | FileCheck %s --check-prefix=LOAD
// RUN: env NEURON_ORACLE_DIR=%t not %{run} -e wrong_shape 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE
// RUN: env NEURON_ORACLE_DIR=%t not %{run} -e wrong_dtype 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DTYPE
// RUN: env -u NEURON_ORACLE_DIR not %{run} -e load 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODIR

func.func private @neuron_oracle_load_f32(i64, memref<*xf32>)
    attributes {llvm.emit_c_interface}
func.func private @neuron_oracle_store_f32(i64, memref<*xf32>)
    attributes {llvm.emit_c_interface}
func.func private @neuron_oracle_load_i64(i64, memref<*xi64>)
    attributes {llvm.emit_c_interface}
func.func private @printF32(f32)
func.func private @printNewline()

// Stores the 2x3 window at [1, 1] of a 4x5 buffer holding 10 * row + column:
// strides [5, 1], offset 6.
func.func @store() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %ten = arith.constant 10 : index
  %buffer = memref.alloc() : memref<4x5xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      %row = arith.muli %i, %ten : index
      %sum = arith.addi %row, %j : index
      %int = arith.index_cast %sum : index to i64
      %value = arith.sitofp %int : i64 to f32
      memref.store %value, %buffer[%i, %j] : memref<4x5xf32>
    }
  }
  %window = memref.subview %buffer[1, 1] [2, 3] [1, 1]
      : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  %unranked = memref.cast %window
      : memref<2x3xf32, strided<[5, 1], offset: 6>> to memref<*xf32>
  %index = arith.constant 0 : i64
  call @neuron_oracle_store_f32(%index, %unranked) : (i64, memref<*xf32>) -> ()
  memref.dealloc %buffer : memref<4x5xf32>
  return
}

// LOAD: 11
// LOAD-NEXT: 12
// LOAD-NEXT: 13
// LOAD-NEXT: 21
// LOAD-NEXT: 22
// LOAD-NEXT: 23
func.func @load() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %buffer = memref.alloc() : memref<2x3xf32>
  %unranked = memref.cast %buffer : memref<2x3xf32> to memref<*xf32>
  %index = arith.constant 0 : i64
  call @neuron_oracle_load_f32(%index, %unranked) : (i64, memref<*xf32>) -> ()
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %value = memref.load %buffer[%i, %j] : memref<2x3xf32>
      func.call @printF32(%value) : (f32) -> ()
      func.call @printNewline() : () -> ()
    }
  }
  memref.dealloc %buffer : memref<2x3xf32>
  return
}

// SHAPE: neuron-oracle-io: error: {{.*}}input0.npy: the harness expects f32[3x2], the file holds f32[2x3]
func.func @wrong_shape() {
  %buffer = memref.alloc() : memref<3x2xf32>
  %unranked = memref.cast %buffer : memref<3x2xf32> to memref<*xf32>
  %index = arith.constant 0 : i64
  call @neuron_oracle_load_f32(%index, %unranked) : (i64, memref<*xf32>) -> ()
  return
}

// DTYPE: neuron-oracle-io: error: {{.*}}input0.npy: the harness expects i64[2x3], the file holds f32[2x3]
func.func @wrong_dtype() {
  %buffer = memref.alloc() : memref<2x3xi64>
  %unranked = memref.cast %buffer : memref<2x3xi64> to memref<*xi64>
  %index = arith.constant 0 : i64
  call @neuron_oracle_load_i64(%index, %unranked) : (i64, memref<*xi64>) -> ()
  return
}

// NODIR: neuron-oracle-io: error: NEURON_ORACLE_DIR is not set
