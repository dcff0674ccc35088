// Connection numbers as both faces show them (see connection_numbering.h).
#include "mpa/connection_numbering.h"

namespace mpa {

std::uint32_t ConnectionNumbering::on_start(std::uint32_t id) {
  const auto [it, inserted] = numbers_.try_emplace(id, next_);
  if (inserted) ++next_;
  return it->second;
}

std::uint32_t ConnectionNumbering::number(std::uint32_t id) const {
  return id == kCapture ? kCapture : numbers_.at(id);
}

}  // namespace mpa
