// Tests convert-neuron-to-nisa's plan search and its tuning records. The
// first compile schedules the best few plans of the matmul alone and
// records the fastest; the second reads the record and skips the search;
// a corrupt record, one written for another op or compiler, and one whose
// plan is no longer the plan of its rank are each a warning, never trusted.

// RUN: rm -rf %t && mkdir -p %t
// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2,lnc=1 tuning-cache=%t/cache" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SEARCH
// SEARCH: remark: convert-neuron-to-nisa: scheduled 3 plan(s) alone: {{.*}} us; {{.*}} us; {{.*}} us; recorded in {{.*}}cache/{{[0-9a-f]+}}.json
// SEARCH-NOT: warning

// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2,lnc=1 tuning-cache=%t/cache" -o %t/tuned.mlir 2>&1 | FileCheck %s --check-prefix=READ
// READ: remark: convert-neuron-to-nisa: tuning record {{.*}}.json: {{.*}} resident in blocks of {{[0-9]+}} {{.}} tiles, search skipped
// READ-NOT: warning

// The record changes nothing but the plan: without the cache the tiling
// may differ, with it the output is the same compile after compile.
// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2,lnc=1 tuning-cache=%t/cache" -o %t/again.mlir 2>/dev/null
// RUN: diff %t/tuned.mlir %t/again.mlir

// RUN: cp -r %t/cache %t/corrupt && for f in %t/corrupt/*.json; do echo '{"key": ' > $f; done
// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2,lnc=1 tuning-cache=%t/corrupt" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: warning: convert-neuron-to-nisa: ignoring tuning record {{.*}}.json: not JSON ({{.*}}); searching again
// CORRUPT: remark: convert-neuron-to-nisa: scheduled 3 plan(s) alone

// RUN: cp -r %t/cache %t/other && sed -i 's/neuron-tuning/neuron-tuning-0/' %t/other/*.json
// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2,lnc=1 tuning-cache=%t/other" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: warning: convert-neuron-to-nisa: ignoring tuning record {{.*}}.json: written for another op signature, target or compiler; searching again

// RUN: cp -r %t/cache %t/fields && sed -i 's/"rank":[0-9]*/"rank":7/' %t/fields/*.json
// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2,lnc=1 tuning-cache=%t/fields" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIELDS
// FIELDS: warning: convert-neuron-to-nisa: ignoring tuning record {{.*}}.json: expected {key, rank (0..2), plan}; searching again

// RUN: cp -r %t/cache %t/stale && sed -i 's/"plan":"[^"]*"/"plan":"both operands streamed"/' %t/stale/*.json
// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2,lnc=1 tuning-cache=%t/stale" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: warning: convert-neuron-to-nisa: ignoring a stale tuning record: it chose 'both operands streamed', plan {{[0-9]}} is now '{{.*}}'; the estimate's first plan is used

func.func @gemm(%a: tensor<2048x2048xbf16>, %b: tensor<2048x2048xbf16>) -> tensor<2048x2048xf32> {
  %0 = neuron.matmul %a, %b : (tensor<2048x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
