// A minimal JSON writer for the tools' machine-readable outputs (metrics.json): nested objects of
// numbers and strings, keys in insertion order, non-finite numbers written as null.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace mmp::tools {

class JsonObject {
 public:
  JsonObject& add(const std::string& key, double value);
  JsonObject& add(const std::string& key, const std::string& value);
  JsonObject& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
  JsonObject& add(const std::string& key, const JsonObject& value);
  /// Pretty-printed with two-space indents.
  std::string dump(int indent = 0) const;

 private:
  struct Entry {
    std::string key;
    std::string scalar;                   // rendered number or string, when object is null
    std::shared_ptr<const JsonObject> object;
  };
  std::vector<Entry> entries_;
};

std::string jsonString(const std::string& text);

}  // namespace mmp::tools
