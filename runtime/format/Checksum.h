//===- Checksum.h - CRC-32C of byte ranges ----------------------*- C++ -*-===//
//
// The checksum of the executable format (runtime/format/FORMAT.md): CRC-32C
// (Castagnoli), the variant of iSCSI, ext4 and SSE4.2's crc32 instruction.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_FORMAT_CHECKSUM_H
#define NEURON_RUNTIME_FORMAT_CHECKSUM_H

#include <cstddef>
#include <cstdint>

namespace neuron::rt {

/// CRC-32C of `size` bytes at `data` (reflected polynomial 0x82F63B78, initial
/// value and final xor 0xFFFFFFFF; "123456789" gives 0xE3069283). Pass a
/// previous result as `crc` to continue it over more bytes.
/// SSE4.2's crc32 instruction where the processor has it, else a table.
uint32_t crc32c(const uint8_t *data, size_t size, uint32_t crc = 0);

/// crc32c from the table alone, whatever the processor (what crc32c
/// computes without SSE4.2; tests compare the two).
uint32_t crc32cPortable(const uint8_t *data, size_t size, uint32_t crc = 0);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_CHECKSUM_H
