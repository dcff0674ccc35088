// How every JSON report writes text: invalid UTF-8 (a capture named in Latin-1, a pcapng
// comment) becomes U+FFFD, where nlohmann's default throws type_error 316 and ends the run.
#pragma once

#include <nlohmann/json.hpp>

namespace mpa::report {

inline constexpr auto kInvalidUtf8 = nlohmann::json::error_handler_t::replace;

}  // namespace mpa::report
