// Round-trip of the collectives and their asynchronous form.
// RUN: neuron-opt %s | neuron-opt | FileCheck %s

// CHECK-LABEL: func.func @sync
// CHECK: neuron.all_reduce %{{.*}} grid [2, 4] axes [1] reduction <sum> : tensor<128x512xf32> -> tensor<128x512xf32>
// CHECK: neuron.all_gather %{{.*}} grid [4] axes [0] axis 1 : tensor<128x128xf32> -> tensor<128x512xf32>
// CHECK: neuron.reduce_scatter %{{.*}} grid [2, 4] axes [0, 1] reduction <max> axis 0 : tensor<512x64xf32> -> tensor<64x64xf32>
// CHECK: neuron.all_to_all %{{.*}} grid [4] axes [0] split 0 concat 1 : tensor<512x64xf32> -> tensor<128x256xf32>
// CHECK: neuron.all_slice %{{.*}} grid [2, 4] axes [1] axis 1 : tensor<128x512xf32> -> tensor<128x128xf32>
func.func @sync(%x: tensor<128x512xf32>, %y: tensor<128x128xf32>, %z: tensor<512x64xf32>)
    -> (tensor<128x512xf32>, tensor<128x512xf32>, tensor<64x64xf32>, tensor<128x256xf32>, tensor<128x128xf32>) {
  %0 = neuron.all_reduce %x grid [2, 4] axes [1] reduction <sum> : tensor<128x512xf32> -> tensor<128x512xf32>
  %1 = neuron.all_gather %y grid [4] axes [0] axis 1 : tensor<128x128xf32> -> tensor<128x512xf32>
  %2 = neuron.reduce_scatter %z grid [2, 4] axes [0, 1] reduction <max> axis 0 : tensor<512x64xf32> -> tensor<64x64xf32>
  %3 = neuron.all_to_all %z grid [4] axes [0] split 0 concat 1 : tensor<512x64xf32> -> tensor<128x256xf32>
  %4 = neuron.all_slice %x grid [2, 4] axes [1] axis 1 : tensor<128x512xf32> -> tensor<128x128xf32>
  return %0, %1, %2, %3, %4 : tensor<128x512xf32>, tensor<128x512xf32>, tensor<64x64xf32>, tensor<128x256xf32>, tensor<128x128xf32>
}

// CHECK-LABEL: func.func @async
// CHECK: %[[H:.*]] = neuron.collective_start all_reduce %{{.*}} grid [4] axes [0] reduction <sum> : tensor<128x512xf32> -> !neuron.pending<tensor<128x512xf32>>
// CHECK: neuron.collective_start all_gather %{{.*}} grid [4] axes [0] axis 0 : tensor<32x8xbf16> -> !neuron.pending<tensor<128x8xbf16>>
// CHECK: neuron.collective_start all_to_all %{{.*}} grid [4] axes [0] split 0 concat 1
// CHECK: neuron.collective_done %[[H]] : !neuron.pending<tensor<128x512xf32>> -> tensor<128x512xf32>
func.func @async(%x: tensor<128x512xf32>, %y: tensor<32x8xbf16>, %z: tensor<512x64xf32>)
    -> (tensor<128x512xf32>, tensor<128x8xbf16>, tensor<128x256xf32>) {
  %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum> : tensor<128x512xf32> -> !neuron.pending<tensor<128x512xf32>>
  %g = neuron.collective_start all_gather %y grid [4] axes [0] axis 0 : tensor<32x8xbf16> -> !neuron.pending<tensor<128x8xbf16>>
  %a = neuron.collective_start all_to_all %z grid [4] axes [0] split 0 concat 1 : tensor<512x64xf32> -> !neuron.pending<tensor<128x256xf32>>
  %0 = neuron.collective_done %h : !neuron.pending<tensor<128x512xf32>> -> tensor<128x512xf32>
  %1 = neuron.collective_done %g : !neuron.pending<tensor<128x8xbf16>> -> tensor<128x8xbf16>
  %2 = neuron.collective_done %a : !neuron.pending<tensor<128x256xf32>> -> tensor<128x256xf32>
  return %0, %1, %2 : tensor<128x512xf32>, tensor<128x8xbf16>, tensor<128x256xf32>
}
