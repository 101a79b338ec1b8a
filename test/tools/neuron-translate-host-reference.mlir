// Tests the reference form nisa-to-executable writes for a host call
// (docs/executable.md): values numbered from the region's arguments, scalar
// constants, a linalg.generic with its loops, iterators, affine maps as
// coefficient rows (a broadcast, a reversed read 3 - d1, a reduction) and
// its body, and a neuron.matmul written as the generic linalg would use,
// accumulating into a zero constant.

// RUN: neuron-translate --nisa-to-executable %s -o %t.nxe
// RUN: %python %S/Inputs/manifest.py %t.nxe | FileCheck %s

// CHECK-LABEL: step 0: host_call host0 inputs [0, 1] outputs [2, 3]
// CHECK-NEXT:    value 0: {"dtype": "i32", "shape": [2, 4]}
// CHECK-NEXT:    value 1: {"dtype": "i8", "shape": [4]}
// CHECK-NEXT:    value 2: {"dtype": "i64"}
// CHECK-NEXT:    value 3: {"dtype": "i64", "shape": [2]}
// CHECK:         arith.constant {"result": 2, "value": 2039655736}
// CHECK-NEXT:    constant {"result": 3, "values": [100]}
// CHECK-NEXT:    arith.constant {"result": [[ZERO:[0-9]+]], "value": 0}
// CHECK-NEXT:    generic {"inputs": [0, 1], "iterators": ["parallel", "reduction"], "loops": [2, 4], "maps": {{\[}}{{\[}}[1, 0, 0], [0, 1, 0]], {{\[}}[0, -1, 3]], {{\[}}[1, 0, 0]]], "outputs": [3], "results": [[[R0:[0-9]+]]]}
// CHECK-NEXT:      arguments [[[A:[0-9]+]], [[B:[0-9]+]], [[ACC:[0-9]+]]]
// CHECK-NEXT:      linalg.index {"dim": 1, "result": [[J:[0-9]+]]}
// CHECK-NEXT:      arith.extsi {"operands": [[[A]]], "result": [[WA:[0-9]+]]}
// CHECK-NEXT:      arith.extsi {"operands": [[[B]]], "result": [[WB:[0-9]+]]}
// CHECK-NEXT:      arith.muli {"operands": [[[WA]], 2], "result": [[P:[0-9]+]]}
// CHECK-NEXT:      arith.muli {"operands": [[[P]], [[WB]]], "result": [[Q:[0-9]+]]}
// CHECK-NEXT:      arith.index_cast {"operands": [[[J]]], "result": [[JJ:[0-9]+]]}
// CHECK-NEXT:      arith.addi {"operands": [[[Q]], [[JJ]]], "result": [[T:[0-9]+]]}
// CHECK-NEXT:      arith.cmpi {"operands": [[[T]], [[ZERO]]], "predicate": "sge", "result": [[NONNEG:[0-9]+]]}
// CHECK-NEXT:      arith.select {"operands": [[[NONNEG]], [[T]], [[ZERO]]], "result": [[C:[0-9]+]]}
// CHECK-NEXT:      arith.addi {"operands": [[[ACC]], [[C]]], "result": [[SUM:[0-9]+]]}
// CHECK-NEXT:      yield [[[SUM]]]
// CHECK-NEXT:    constant {"result": [[L:[0-9]+]], "values": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}
// CHECK-NEXT:    constant {"result": [[RR:[0-9]+]], "values": [0.5]}
// CHECK-NEXT:    constant {"result": [[INIT:[0-9]+]], "values": [0.0]}
// CHECK-NEXT:    generic {"inputs": [[[L]], [[RR]]], "iterators": ["parallel", "parallel", "reduction"], "loops": [2, 2, 3], "maps": {{\[}}{{\[}}[1, 0, 0, 0], [0, 0, 1, 0]], {{\[}}[0, 0, 1, 0], [0, 1, 0, 0]], {{\[}}[1, 0, 0, 0], [0, 1, 0, 0]]], "outputs": [[[INIT]]], "results": [[[MM:[0-9]+]]]}
// CHECK-NEXT:      arguments [[[X:[0-9]+]], [[Y:[0-9]+]], [[O:[0-9]+]]]
// CHECK-NEXT:      arith.mulf {"operands": [[[X]], [[Y]]], "result": [[XY:[0-9]+]]}
// CHECK-NEXT:      arith.addf {"operands": [[[O]], [[XY]]], "result": [[S:[0-9]+]]}
// CHECK-NEXT:      yield [[[S]]]
// CHECK-NEXT:    results [[[R0]], [[MM]]]

#id = affine_map<(d0, d1) -> (d0, d1)>
#rev = affine_map<(d0, d1) -> (3 - d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<2x4xi32>, %w: tensor<4xi8>) -> (tensor<2xi64>, tensor<2x2xf32>)
    attributes {neuron.program} {
  %r:2 = neuron.host_call(%x, %w) reason "test" : (tensor<2x4xi32>, tensor<4xi8>) -> (tensor<2xi64>, tensor<2x2xf32>) {
  ^bb0(%a: tensor<2x4xi32>, %b: tensor<4xi8>):
    %mul = arith.constant 2039655736 : i64
    %init = neuron.constant dense<100> : tensor<2xi64>
    %zero = arith.constant 0 : i64
    %s = linalg.generic {indexing_maps = [#id, #rev, #red], iterator_types = ["parallel", "reduction"]}
        ins(%a, %b : tensor<2x4xi32>, tensor<4xi8>) outs(%init : tensor<2xi64>) {
    ^bb0(%u: i32, %v: i8, %acc: i64):
      %j = linalg.index 1 : index
      %uu = arith.extsi %u : i32 to i64
      %vv = arith.extsi %v : i8 to i64
      %p = arith.muli %uu, %mul : i64
      %q = arith.muli %p, %vv : i64
      %jj = arith.index_cast %j : index to i64
      %t = arith.addi %q, %jj : i64
      %nonneg = arith.cmpi sge, %t, %zero : i64
      %c = arith.select %nonneg, %t, %zero : i64
      %sum = arith.addi %acc, %c : i64
      linalg.yield %sum : i64
    } -> tensor<2xi64>
    %l = neuron.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %rr = neuron.constant dense<0.5> : tensor<3x2xf32>
    %m = neuron.matmul %l, %rr : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    neuron.yield %s, %m : tensor<2xi64>, tensor<2x2xf32>
  }
  return %r#0, %r#1 : tensor<2xi64>, tensor<2x2xf32>
}
