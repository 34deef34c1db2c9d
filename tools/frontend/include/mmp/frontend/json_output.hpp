// JSON for the tools' machine-readable outputs (metrics.json, validation.json, results.json and the
// benchmarks' last line), through nlohmann-json (Debian nlohmann-json3-dev). Used by tools/ only,
// never by a library header.
//
//   Json metrics;                       // keys keep their insertion order
//   metrics["cost_ratio_mean"] = 1.25;
//   out << jsonText(metrics) << "\n";
//
// Doubles are written in the shortest form that reads back to the same double (bit for bit), and
// NaN and the infinities as null: no `nan` or `inf` token, which JSON does not have, ever appears.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace mmp::tools {

using Json = nlohmann::ordered_json;

/// `value` as JSON text, indented by `indent` spaces per level (-1: one line). A string that is not
/// valid UTF-8 (a file name in another encoding) is written with U+FFFD in place of the bad bytes
/// instead of throwing.
inline std::string jsonText(const Json& value, int indent = 2) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace mmp::tools
