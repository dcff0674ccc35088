// Fault recipes: one per diagnostic of the catalogue that can be seen on the wire. Each
// turns a valid scenario into one carrying exactly that fault (forcing what it needs, e.g.
// markers for marker faults) and records the expected verdict.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "scenario.h"

namespace mpa::synth {

struct FaultRecipe {
  std::string_view id;       // catalogue id, e.g. "fpdu.crc-mismatch"
  std::string_view summary;  // how the fault is produced
  void (*apply)(Scenario& s);
  // Another way to the same id (a misjudgement once made on it): the recipe's name, and
  // its capture's, is "<id>--<variant>". Empty: the recipe named by the id alone.
  std::string_view variant = {};
  // False when its capture is too large for captures/: the corpus leaves it out (mpa-synth
  // --fault still writes it; tests/hostile checks it).
  bool bundled = true;
};

// "<id>" or "<id>--<variant>".
std::string recipe_name(const FaultRecipe& recipe);

std::span<const FaultRecipe> fault_recipes();
// By recipe name ("startup.insufficient-ird", "startup.insufficient-ird--ord-3fff").
const FaultRecipe* find_fault(std::string_view name);

// Applies the recipe and sets s.expected (error/warning ids as findings, notes as notes).
void apply_fault(Scenario& s, const FaultRecipe& recipe);

}  // namespace mpa::synth
