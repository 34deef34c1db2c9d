// Validated YAML configuration for the command line tools.
//
// ConfigNode wraps a yaml-cpp node with its key path and file name, so that every error says where
// it is: "configs/ocr.yaml: batch.lambda: expected a number > 0, got 'abc'".  expectKeys() rejects
// an unknown key and names the nearest valid one.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mmp::tools {

class ConfigNode {
 public:
  /// Loads a YAML file; throws mmp::ConfigError naming the file on a parse error.  A top-level
  /// `base: FILE` (relative to this file) starts from that config: this file's keys are laid over
  /// it, maps merged key by key, anything else replaced; bases may have bases, not in a cycle.
  /// A key given twice in one map is refused, naming both lines.  Errors name the file that set the
  /// key (a base file by its own name, or the --set), and keys keep their paths.  Each override "a.b=VALUE" (the command
  /// line's --set) then sets key b of map a to the YAML VALUE; `null` removes a setting.
  static ConfigNode load(const std::string& path, const std::vector<std::string>& overrides = {});
  ConfigNode(YAML::Node node, std::string file, std::string path,
             std::shared_ptr<const std::map<std::string, std::string>> origins = nullptr);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  /// The folder of the config file, for resolving relative paths in it.
  std::string folder() const;

  bool has(const std::string& key) const;
  /// Whether `key` holds a list (a setting that takes one value or a list of them).
  bool isList(const std::string& key) const;
  /// Throws if this map has a key outside `allowed`, naming the nearest allowed key.
  void expectKeys(const std::vector<std::string>& allowed) const;
  /// Called by every expectKeys with the section's key path ("features", "train[0].synthetic") and
  /// the keys allowed there; empty: none.  For the test that docs/config.md names every key a config
  /// can hold.  Not thread-safe: set it while no config is read.
  using KeysObserver = std::function<void(const std::string& path, const std::vector<std::string>& allowed)>;
  static void observeExpectedKeys(KeysObserver observer);
  /// This node as YAML text (a config merged with its bases and --set: what was read).
  std::string dump() const;
  /// A child map (empty if missing and optional).
  ConfigNode child(const std::string& key) const;

  /// A finite number in [min, max] (NaN and infinities are refused: no setting means them).
  double number(const std::string& key, double fallback, double min = -std::numeric_limits<double>::infinity(),
                double max = std::numeric_limits<double>::infinity()) const;
  long integer(const std::string& key, long fallback, long min = std::numeric_limits<long>::min(),
               long max = std::numeric_limits<long>::max()) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string text(const std::string& key, const std::string& fallback) const;
  /// A string that must be one of `choices`.
  std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& choices) const;
  std::vector<long> integers(const std::string& key, const std::vector<long>& fallback, long min, long max) const;
  std::vector<double> numbers(const std::string& key, const std::vector<double>& fallback, double min, double max) const;
  /// A list of strings, each one of `choices` (any string if choices is empty).
  std::vector<std::string> texts(const std::string& key, const std::vector<std::string>& fallback,
                                 const std::vector<std::string>& choices = {}) const;
  /// A list whose items are values of one setting each: a scalar's text, or a list of scalars as
  /// "[a, b]" (the text a list-valued setting parses).  For select:'s search space.
  std::vector<std::string> valueTexts(const std::string& key) const;
  /// A list of maps (each item a ConfigNode with key path "key[i]"); empty if the key is missing.
  std::vector<ConfigNode> items(const std::string& key) const;
  /// The keys of this map, in file order (empty if it is not a map).
  std::vector<std::string> keys() const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  /// The file (or "--set") that gave this map's `key` its value: a base file by its own name.
  std::string origin(const std::string& key) const { return originOf(keyPath(key)); }
  /// The folder a relative path given at `key` starts from: that of the file that set it (a base's own
  /// folder for a key the base set), this file's for a --set.
  std::string folderOf(const std::string& key) const;

 private:
  std::string keyPath(const std::string& key) const;
  /// The file (or --set) that gave the key path its value: a base file by its own name.
  std::string originOf(const std::string& key_path) const;
  /// The text of a map key; fails unless it is a plain scalar (YAML allows lists and maps as keys).
  std::string keyName(const YAML::Node& key) const;

  YAML::Node node_;
  std::string file_;
  std::string path_;
  std::shared_ptr<const std::map<std::string, std::string>> origins_;  ///< key path -> file; null: all file_
};

/// Edit distance (insertions, deletions, substitutions and swaps of two neighbouring characters, one
/// each), for "did you mean" suggestions.
std::size_t editDistance(const std::string& a, const std::string& b);
/// Of `names`, the one nearest `key` by editDistance (the first on a tie); "" if names is empty.
std::string nearestName(const std::string& key, const std::vector<std::string>& names);

/// YAML allows a key twice in a map and yaml-cpp keeps the first silently: throws mmp::ConfigError
/// "<file>: <path.key>: the key appears twice, on line A and on line B; give it once" for the first
/// such key in `node` or below it (`path` names node, "" at the top).
void refuseDuplicateKeys(const YAML::Node& node, const std::string& path, const std::string& file);

}  // namespace mmp::tools
