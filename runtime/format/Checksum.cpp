//===- Checksum.cpp - CRC-32C of byte ranges ------------------------------===//
//
// A byte-at-a-time table-driven CRC-32C; the table is built at compile time.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Checksum.h"

#include <array>

namespace neuron::rt {

/// The CRC of each byte value under the reflected Castagnoli polynomial.
static constexpr std::array<uint32_t, 256> makeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit)
      c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}

static constexpr std::array<uint32_t, 256> kTable = makeTable();

uint32_t crc32c(const uint8_t *data, size_t size, uint32_t crc) {
  crc = ~crc;
  for (size_t i = 0; i < size; ++i)
    crc = kTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

} // namespace neuron::rt
