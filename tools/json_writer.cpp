#include "json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace mmp::tools {

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

JsonObject& JsonObject::add(const std::string& key, double value) {
  char buffer[32] = "null";
  if (std::isfinite(value)) std::snprintf(buffer, sizeof buffer, "%.6g", value);
  entries_.push_back({key, buffer, nullptr});
  return *this;
}

JsonObject& JsonObject::add(const std::string& key, const std::string& value) {
  entries_.push_back({key, jsonString(value), nullptr});
  return *this;
}

JsonObject& JsonObject::add(const std::string& key, const JsonObject& value) {
  entries_.push_back({key, "", std::make_shared<const JsonObject>(value)});
  return *this;
}

std::string JsonObject::dump(int indent) const {
  if (entries_.empty()) return "{}";
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  std::string out = "{\n";
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    out += pad + jsonString(e.key) + ": " + (e.object ? e.object->dump(indent + 2) : e.scalar);
    out += i + 1 < entries_.size() ? ",\n" : "\n";
  }
  return out + std::string(static_cast<std::size_t>(indent), ' ') + "}";
}

}  // namespace mmp::tools
