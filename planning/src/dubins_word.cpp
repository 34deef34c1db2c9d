// The Dubins words of OMPL 1.5.2 (src/ompl/base/spaces/src/DubinsStateSpace.cpp, Mark Moll, BSD
// licence, Copyright (c) 2010 Rice University), without the assertions that abort on rounding.
#include "dubins_word.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace mmp::detail {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr double kDubinsEps = 1e-6;   // OMPL's DUBINS_EPS
constexpr double kDubinsZero = -1e-7;  // OMPL's DUBINS_ZERO: a square root of a rounding error's negative is 0

// An angle in [0, 2 pi); tiny negatives and values a hair below 2 pi are 0 (as OMPL's mod2pi).
double dubinsMod2Pi(double x) {
  if (x < 0.0 && x > kDubinsZero) return 0.0;
  double m = x - kTwoPi * std::floor(x / kTwoPi);
  if (kTwoPi - m < 0.5 * kDubinsEps) m = 0.0;
  return m;
}

using Piece = DubinsWord::Piece;
using Word = std::optional<DubinsWord>;

DubinsWord word(Piece a, Piece b, Piece c, double t, double p, double q) {
  DubinsWord w;
  w.pieces = {a, b, c};
  w.lengths = {t, p, q};
  return w;
}

// Each word from the normalised problem: distance d (in radii) along +x, start yaw alpha, goal yaw beta.
struct Normalised {
  double d, alpha, beta, ca, sa, cb, sb;
};

Word lsl(const Normalised& n) {
  const double tmp = 2.0 + n.d * n.d - 2.0 * (n.ca * n.cb + n.sa * n.sb - n.d * (n.sa - n.sb));
  if (!(tmp >= kDubinsZero)) return std::nullopt;
  const double theta = std::atan2(n.cb - n.ca, n.d + n.sa - n.sb);
  return word(Piece::Left, Piece::Straight, Piece::Left, dubinsMod2Pi(-n.alpha + theta), std::sqrt(std::max(tmp, 0.0)),
              dubinsMod2Pi(n.beta - theta));
}

Word rsr(const Normalised& n) {
  const double tmp = 2.0 + n.d * n.d - 2.0 * (n.ca * n.cb + n.sa * n.sb - n.d * (n.sb - n.sa));
  if (!(tmp >= kDubinsZero)) return std::nullopt;
  const double theta = std::atan2(n.ca - n.cb, n.d - n.sa + n.sb);
  return word(Piece::Right, Piece::Straight, Piece::Right, dubinsMod2Pi(n.alpha - theta), std::sqrt(std::max(tmp, 0.0)),
              dubinsMod2Pi(-n.beta + theta));
}

Word rsl(const Normalised& n) {
  const double tmp = n.d * n.d - 2.0 + 2.0 * (n.ca * n.cb + n.sa * n.sb - n.d * (n.sa + n.sb));
  if (!(tmp >= kDubinsZero)) return std::nullopt;
  const double p = std::sqrt(std::max(tmp, 0.0));
  const double theta = std::atan2(n.ca + n.cb, n.d - n.sa - n.sb) - std::atan2(2.0, p);
  return word(Piece::Right, Piece::Straight, Piece::Left, dubinsMod2Pi(n.alpha - theta), p, dubinsMod2Pi(n.beta - theta));
}

Word lsr(const Normalised& n) {
  const double tmp = -2.0 + n.d * n.d + 2.0 * (n.ca * n.cb + n.sa * n.sb + n.d * (n.sa + n.sb));
  if (!(tmp >= kDubinsZero)) return std::nullopt;
  const double p = std::sqrt(std::max(tmp, 0.0));
  const double theta = std::atan2(-n.ca - n.cb, n.d + n.sa + n.sb) - std::atan2(-2.0, p);
  return word(Piece::Left, Piece::Straight, Piece::Right, dubinsMod2Pi(-n.alpha + theta), p, dubinsMod2Pi(-n.beta + theta));
}

Word rlr(const Normalised& n) {
  const double tmp = 0.125 * (6.0 - n.d * n.d + 2.0 * (n.ca * n.cb + n.sa * n.sb + n.d * (n.sa - n.sb)));
  if (!(std::abs(tmp) < 1.0)) return std::nullopt;
  const double p = kTwoPi - std::acos(tmp);
  const double theta = std::atan2(n.ca - n.cb, n.d - n.sa + n.sb);
  const double t = dubinsMod2Pi(n.alpha - theta + 0.5 * p);
  return word(Piece::Right, Piece::Left, Piece::Right, t, p, dubinsMod2Pi(n.alpha - n.beta - t + p));
}

Word lrl(const Normalised& n) {
  const double tmp = 0.125 * (6.0 - n.d * n.d + 2.0 * (n.ca * n.cb + n.sa * n.sb - n.d * (n.sa - n.sb)));
  if (!(std::abs(tmp) < 1.0)) return std::nullopt;
  const double p = kTwoPi - std::acos(tmp);
  const double theta = std::atan2(-n.ca + n.cb, n.d + n.sa - n.sb);
  const double t = dubinsMod2Pi(-n.alpha + theta + 0.5 * p);
  return word(Piece::Left, Piece::Right, Piece::Left, t, p, dubinsMod2Pi(n.beta - n.alpha - t + p));
}

}  // namespace

DubinsWord shortestDubinsWord(double x1, double y1, double yaw1, double x2, double y2, double yaw2, double rho) {
  const double dx = x2 - x1, dy = y2 - y1;
  const double d = std::sqrt(dx * dx + dy * dy) / rho, th = std::atan2(dy, dx);
  const double alpha = dubinsMod2Pi(yaw1 - th), beta = dubinsMod2Pi(yaw2 - th);
  if (d < kDubinsEps && std::abs(alpha - beta) < kDubinsEps) return word(Piece::Left, Piece::Straight, Piece::Left, 0.0, d, 0.0);
  const Normalised n{d, alpha, beta, std::cos(alpha), std::sin(alpha), std::cos(beta), std::sin(beta)};
  // Without any candidate (only for non-finite input) the word is "infinitely long", as OMPL's default.
  DubinsWord best = word(Piece::Left, Piece::Straight, Piece::Left, 0.0, std::numeric_limits<double>::infinity(), 0.0);
  bool any = false;
  for (Word (*candidate)(const Normalised&) : {lsl, rsr, rsl, lsr, rlr, lrl}) {
    const Word w = candidate(n);
    if (w && (!any || w->length() < best.length())) {
      best = *w;
      any = true;
    }
  }
  return best;
}

}  // namespace mmp::detail
