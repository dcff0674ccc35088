// Recognising implementations by their startup frames (field notes in ../shared/spec/
// README.md: Linux siw, Chelsio cxgb4, Intel irdma, Alibaba erdma, Rev 0 peers). Hints for
// interop debugging, never conformance verdicts.
#pragma once

#include <optional>
#include <string>

#include "mpa/startup_frame.h"

namespace mpa {

struct StackGuess {
  std::string name;  // "Linux siw"
  std::string why;   // the evidence, in a sentence
  bool siw = false;
};

// `request` is the Request a Reply answers (nullptr for a Request).
std::optional<StackGuess> recognise_stack(const StartupFrame& frame, const StartupFrame* request);

}  // namespace mpa
