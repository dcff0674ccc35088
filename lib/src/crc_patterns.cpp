// CRCs computed or written a recognisable wrong way (see crc_patterns.h).
#include "mpa/crc_patterns.h"

namespace mpa {

std::string_view describe(CrcPattern pattern) {
  switch (pattern) {
    case CrcPattern::Zero:
      return "a CRC field of zero (no CRC computed)";
    case CrcPattern::ByteSwapped:
      return "the CRC32c byte-swapped (most-significant octet first on the wire)";
    case CrcPattern::NotInverted:
      return "the CRC32c without its final inversion";
    case CrcPattern::ByteSwappedNotInverted:
      return "the CRC32c without its final inversion, byte-swapped";
  }
  return "?";
}

}  // namespace mpa
