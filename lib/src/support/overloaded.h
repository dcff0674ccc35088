// Overloaded: one visitor of a std::variant made of lambdas, one per alternative
// (std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, v)).
#pragma once

namespace mpa {

template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace mpa
