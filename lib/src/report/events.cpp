// Names of the event vocabulary (see events.h).
#include "mpa/events.h"

namespace mpa {

std::string_view to_string(Direction direction) {
  return direction == Direction::Initiator ? "initiator" : "responder";
}

}  // namespace mpa
