// The shapes of a row of the settings table (setting_keys.hpp): a number, a whole number, a boolean, a
// choice, a list of numbers, each acting on one field of PipelineSettings.  Private to maps/training:
// setting_keys.cpp builds the training rows with them, command_settings.cpp the other commands'.
#pragma once

#include <mmp/maps/training/setting_keys.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace mmp::setting_rows {

constexpr double kPositive = 1e-9;  // "> 0" for the settings whose smallest useful value is far above it
constexpr long kMaxSeed = std::numeric_limits<long>::max();

inline std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return exactNumberText(v);
}

template <class T>
std::string list(const std::vector<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::ostringstream item;
    if constexpr (std::is_same_v<T, double>) item << number(values[i]);
    else item << values[i];
    out += (i == 0 ? "" : ", ") + item.str();
  }
  return out + "]";
}

inline std::string boolean(bool b) { return b ? "true" : "false"; }

// Key builders: the common shapes of a setting.
inline SettingKey numberKey(std::string key, double low, double high, std::string meaning,
                            std::function<double&(PipelineSettings&)> field) {
  SettingKey k;
  k.key = std::move(key);
  k.type = SettingType::Number;
  k.low = low;
  k.high = high;
  k.meaning = std::move(meaning);
  k.get = [field](const PipelineSettings& s) { return number(field(const_cast<PipelineSettings&>(s))); };
  k.set = [field](PipelineSettings& s, const SettingValue& v) { field(s) = v.number; };
  return k;
}

template <class Int>
SettingKey integerKey(std::string key, long low, long high, std::string meaning, std::function<Int&(PipelineSettings&)> field) {
  SettingKey k;
  k.key = std::move(key);
  k.type = SettingType::Integer;
  k.low = static_cast<double>(low);
  k.high = static_cast<double>(high);
  k.meaning = std::move(meaning);
  k.get = [field](const PipelineSettings& s) { return std::to_string(field(const_cast<PipelineSettings&>(s))); };
  k.set = [field](PipelineSettings& s, const SettingValue& v) { field(s) = static_cast<Int>(v.integer); };
  return k;
}

inline SettingKey booleanKey(std::string key, std::string meaning, std::function<bool&(PipelineSettings&)> field) {
  SettingKey k;
  k.key = std::move(key);
  k.type = SettingType::Boolean;
  k.meaning = std::move(meaning);
  k.get = [field](const PipelineSettings& s) { return boolean(field(const_cast<PipelineSettings&>(s))); };
  k.set = [field](PipelineSettings& s, const SettingValue& v) { field(s) = v.boolean; };
  return k;
}

inline SettingKey choiceKey(std::string key, std::vector<std::string> valid, std::string meaning,
                            std::function<std::string(const PipelineSettings&)> get,
                            std::function<void(PipelineSettings&, const std::string&)> set) {
  SettingKey k;
  k.key = std::move(key);
  k.type = SettingType::Choice;
  k.valid = std::move(valid);
  k.meaning = std::move(meaning);
  k.get = std::move(get);
  k.set = [set](PipelineSettings& s, const SettingValue& v) { set(s, v.choice); };
  return k;
}

// A list of numbers, each in [low, high]; `empty` is the reason a list may not be empty ("" allows it).
inline SettingKey numbersKey(std::string key, double low, double high, std::string meaning, std::string empty,
                             std::function<std::vector<double>&(PipelineSettings&)> field) {
  SettingKey k;
  k.key = std::move(key);
  k.type = SettingType::Numbers;
  k.low = low;
  k.high = high;
  k.meaning = std::move(meaning);
  k.get = [field](const PipelineSettings& s) { return list(field(const_cast<PipelineSettings&>(s))); };
  k.set = [field, empty](PipelineSettings& s, const SettingValue& v) {
    if (v.numbers.empty() && !empty.empty()) throw InvalidArgument(empty);
    field(s) = v.numbers;
  };
  return k;
}

inline SettingKey selectOnly(SettingKey k) {
  k.in_config = false;
  k.selectable = true;
  return k;
}

inline SettingKey selectable(SettingKey k) {
  k.selectable = true;
  return k;
}

/// The rows of the commands beside `mmp train` (adapt.*, suggest.*, serve.*; command_settings.cpp),
/// appended to `keys`.
void commandKeys(std::vector<SettingKey>& keys);

}  // namespace mmp::setting_rows
