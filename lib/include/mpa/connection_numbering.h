// How mpa-check and the Wireshark plugin number connections (`connection N`,
// `mpa.connection`): the MPA connections of one capture from 0, in the order they became
// MPA (EventSink::on_connection_start), so that both faces show the same numbers, batch or
// live. The library's own ids (Finding::connection, FpduEvent::connection,
// ConnectionSummary::id) count every TCP connection the analyzer followed, MPA or not, and
// are not shown.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace mpa {

class ConnectionNumbering {
 public:
  // The id of findings about the capture rather than a connection (IP fragments).
  static constexpr std::uint32_t kCapture = UINT32_MAX;

  // At EventSink::on_connection_start: the next number goes to connection `id`.
  std::uint32_t on_start(std::uint32_t id);
  // The number of connection `id` (started before; kCapture stays kCapture). Throws
  // std::out_of_range for a connection that never started.
  std::uint32_t number(std::uint32_t id) const;
  // Connection `id` ended and nothing will ask for its number again.
  void forget(std::uint32_t id) { numbers_.erase(id); }
  // Connections started so far.
  std::uint32_t started() const { return next_; }

 private:
  std::unordered_map<std::uint32_t, std::uint32_t> numbers_;
  std::uint32_t next_ = 0;
};

}  // namespace mpa
