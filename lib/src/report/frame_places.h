// Where the last frames fed to the Analyzer lie in their capture file (FramePlace), kept in
// a ring of Analyzer::kFramePlaces so that a finding can say where its frame is: a finding
// is about a frame at or shortly before the one being analysed (the first octet of an FPDU,
// a startup frame, an event), so a ring holds the frame of nearly every finding at a cost
// that does not grow with the capture. Allocated at the first frame noted.
#pragma once

#include <cstdint>
#include <vector>

#include "mpa/events.h"

namespace mpa {

class FramePlaces {
 public:
  explicit FramePlaces(std::size_t size) : size_(size) {}

  void note(std::uint64_t number, const FramePlace& place) {
    if (ring_.empty()) ring_.resize(size_);
    ring_[number % size_] = {number, place};
  }
  // Stamps `f.frame_place` where its frame is still in the ring (else leaves it as it is).
  void stamp(Finding& f) const {
    if (ring_.empty() || f.frame == 0) return;
    const Entry& e = ring_[f.frame % size_];
    if (e.number == f.frame) f.frame_place = e.place;
  }

 private:
  struct Entry {
    std::uint64_t number = 0;
    FramePlace place;
  };
  std::size_t size_;
  std::vector<Entry> ring_;
};

}  // namespace mpa
