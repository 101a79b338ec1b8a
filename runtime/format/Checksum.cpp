//===- Checksum.cpp - CRC-32C of byte ranges ------------------------------===//
//
// CRC-32C by SSE4.2's crc32 instruction where the processor has it, else
// byte at a time from a table built at compile time.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Checksum.h"

#include <array>
#include <cstring>

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

/// One byte at a time from the table: any machine (crc not inverted).
static uint32_t crc32cTable(const uint8_t *data, size_t size, uint32_t crc) {
  for (size_t i = 0; i < size; ++i)
    crc = kTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// SSE4.2's crc32 instruction, which computes CRC-32C: eight bytes a step,
/// about twenty times the table's rate.
__attribute__((target("sse4.2"))) static uint32_t
crc32cSse42(const uint8_t *data, size_t size, uint32_t crc) {
  uint64_t c = crc;
  for (; size >= 8; data += 8, size -= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    c = __builtin_ia32_crc32di(c, word);
  }
  crc = uint32_t(c);
  for (; size > 0; ++data, --size)
    crc = __builtin_ia32_crc32qi(crc, *data);
  return crc;
}
#endif

uint32_t crc32c(const uint8_t *data, size_t size, uint32_t crc) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool hardware = __builtin_cpu_supports("sse4.2");
  if (hardware)
    return ~crc32cSse42(data, size, ~crc);
#endif
  return crc32cPortable(data, size, crc);
}

uint32_t crc32cPortable(const uint8_t *data, size_t size, uint32_t crc) {
  return ~crc32cTable(data, size, ~crc);
}

} // namespace neuron::rt
