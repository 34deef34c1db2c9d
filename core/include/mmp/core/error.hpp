// Errors thrown by mmp for misuse and bad input.
//
// Expected outcomes (no path, no convergence) are values; everything thrown derives from mmp::Error,
// and its message names the file, key, row or cell at fault and what would be valid.
#pragma once

#include <cstdio>
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

}  // namespace mmp
