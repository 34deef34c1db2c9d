#include <mmp/core/random.hpp>

#include <mmp/core/error.hpp>

#include <cmath>

// This file is compiled with -ffp-contract=off (core/CMakeLists.txt): a fused multiply-add in
// uniform(lo, hi) would round once instead of twice and change the draws on machines that have it.

namespace mmp {

std::uint64_t Random::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t Random::below(std::uint64_t n) {
  if (n == 0) throw InvalidArgument("Random::below: n must be >= 1 (a draw from [0, n))");
  // 2^64 mod n, computed in 64 bits as (2^64 - n) mod n. The draws at or above it are 2^64 - threshold
  // values, a multiple of n, so each residue is equally likely among them.
  const std::uint64_t threshold = (0 - n) % n;
  std::uint64_t r = next();
  while (r < threshold) r = next();
  return r % n;
}

double Random::uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

double Random::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

double Random::normal() {
  constexpr double kPi = 3.14159265358979323846;
  const double u = 1.0 - uniform(), v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * kPi * v);
}

}  // namespace mmp
