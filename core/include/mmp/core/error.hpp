// Errors thrown by mmp for misuse and bad input.
//
// Expected outcomes (no path, no convergence) are values; everything thrown derives from mmp::Error,
// and its message names the file, key, row or cell at fault and what would be valid.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace mmp {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A function was called with arguments outside its documented contract.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A data file or an in-memory data set is malformed.
class DataError : public Error {
 public:
  using Error::Error;
};

/// A configuration value is missing, unknown, of the wrong type or out of range.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A computation left the range of doubles although its inputs were valid (exponential costs that
/// overflow to inf or underflow to 0 at a large w).  Learners treat it as Info::NumericalIssue: they
/// stop, keep their last good weights and say so.
class NumericalError : public Error {
 public:
  using Error::Error;
};

/// A model file cannot be read or written.
class ModelFileError : public Error {
 public:
  using Error::Error;
};

/// A number as messages show it: up to 10 significant digits, no trailing zeros ("0.3", "2800000").
inline std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

/// The number that the whole of `text` spells (std::stod's syntax: "0.1", "1e-3", "inf"), or none
/// (empty, not a number, a number followed by more, out of a double's range).
inline std::optional<double> numberFromText(const std::string& text) {
  std::size_t used = 0;
  double v = 0.0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size()) return std::nullopt;
  return v;
}

/// A number in the fewest significant digits that read back as the same double ("0.1", not
/// "0.10000000000000001"), without an exponent between 1e-4 and 1e15 ("10", not "1e+01"); inf as "inf".
inline std::string exactNumberText(double v) {
  char text[32];
  const bool plain = std::fabs(v) >= 1e-4 && std::fabs(v) < 1e15;
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v && !(plain && std::strchr(text, 'e') != nullptr)) break;
  }
  return text;
}

}  // namespace mmp
