#!/usr/bin/env python3
"""Prints a graph whose host region holds a 32x40 i64 constant: 1280
distinct elements, more than an executable's host reference inlines, so the
compiler stores it as a program constant that the reference names.

  out[i, j] = x[i, j] * c[i, j] + c[i, j] / 3 - (5 j + i)
"""

ROWS, COLS = 32, 40
VALUES = [[((i * COLS + j) * 7919) % 1000003 - 500000 for j in range(COLS)]
          for i in range(ROWS)]
TYPE = f"tensor<{ROWS}x{COLS}xi64>"
DENSE = "[" + ", ".join("[" + ", ".join(map(str, row)) + "]"
                        for row in VALUES) + "]"

print(f"""#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @host_constant(%x: {TYPE}) -> {TYPE} {{
  %c = arith.constant dense<{DENSE}> : {TYPE}
  %three = arith.constant 3 : i64
  %five = arith.constant 5 : i64
  %e = tensor.empty() : {TYPE}
  %r = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %c : {TYPE}, {TYPE}) outs(%e : {TYPE}) {{
  ^bb0(%a: i64, %b: i64, %o: i64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %m = arith.muli %a, %b : i64
    %q = arith.divsi %b, %three : i64
    %s = arith.addi %m, %q : i64
    %j5 = arith.muli %jj, %five : i64
    %k = arith.addi %j5, %ii : i64
    %d = arith.subi %s, %k : i64
    linalg.yield %d : i64
  }} -> {TYPE}
  return %r : {TYPE}
}}""")
