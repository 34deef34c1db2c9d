// Random: mmp's own seeded generator and the few draws the library and tools make with it, so that a
// seed gives the same scenes, demonstrations, evaluation pairs, shuffles and bootstrap resamples with
// every compiler and standard library.
//
// Why not <random>: std::mt19937_64 itself is specified to the bit, but std::uniform_int_distribution,
// std::uniform_real_distribution, std::normal_distribution and std::shuffle are not -- the standard
// fixes what they sample, not how -- so libstdc++, libc++ and MSVC turn the same seed into different
// draws. Here every draw is written out below and pinned by tests/core/test_random.cpp.
//
//   Random rng(seed);
//   const std::size_t k = rng.below(n);          // uniform in [0, n)
//   rng.shuffle(order.begin(), order.end());     // Fisher-Yates
//
// Not for cryptography; not thread-safe (one generator per thread or per task, each seeded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

namespace mmp {

/*!
    WHAT THIS OBJECT REPRESENTS
        SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
        2014; the reference code is Vigna's splitmix64.c): a 64-bit state advanced by the golden-ratio
        constant and hashed by a fixed mixer, period 2^64. Small, fast, and every seed (0 included)
        is good, which is why it also seeds other generators.

        Every draw is a function of the seed and the earlier draws only, defined by integer arithmetic
        and correctly rounded IEEE double operations (src/random.cpp is compiled without fused
        multiply-add), so next(), below(), uniform() and shuffle() give identical results on every
        platform and standard library. normal() adds std::log and std::cos, which C++ does not
        require to be correctly rounded: another math library may differ in the last bits.
!*/
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  /// The next 64 random bits (SplitMix64's output function).
  std::uint64_t next();

  /*!
      requires
          - n >= 1 (throws InvalidArgument otherwise)
      ensures
          - returns an integer uniformly distributed in [0, n), without modulo bias: a draw of next()
            below 2^64 mod n is rejected and redrawn (fewer than one in two draws on average, and
            practically never when n is far below 2^64), the rest are reduced mod n.
  !*/
  std::uint64_t below(std::uint64_t n);

  /// A double uniformly distributed in [0, 1): the top 53 bits of next() times 2^-53.
  double uniform();

  /// lo + (hi - lo) * uniform(): in [lo, hi) when lo < hi (rounding may reach hi for some spans).
  double uniform(double lo, double hi);

  /// A standard normal draw by Box-Muller: sqrt(-2 log u) cos(2 pi v), u = 1 - uniform() in (0, 1]
  /// and v = uniform(); two uniforms per call, the sine half of the pair is not kept.
  double normal();

  /*!
      requires
          - [first, last) is a range of random-access iterators
      ensures
          - permutes the range uniformly at random (Fisher-Yates: for i from the last position
            down to 1, swap element i with element below(i + 1)); an empty or one-element range
            draws nothing.
  !*/
  template <class RandomIt>
  void shuffle(RandomIt first, RandomIt last) {
    const auto n = static_cast<std::uint64_t>(std::distance(first, last));
    for (std::uint64_t i = n; i > 1; --i) {
      const std::uint64_t j = below(i);
      using std::swap;
      swap(first[static_cast<std::ptrdiff_t>(i - 1)], first[static_cast<std::ptrdiff_t>(j)]);
    }
  }

 private:
  std::uint64_t state_;
};

}  // namespace mmp
