#include <mmp/frontend/config.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

namespace mmp::tools {

std::size_t editDistance(const std::string& a, const std::string& b) {
  // Three rows of the table: i - 2, i - 1 and i.
  std::vector<std::size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}

std::string nearestName(const std::string& key, const std::vector<std::string>& names) {
  std::string nearest;
  std::size_t best = std::string::npos;
  for (const std::string& name : names) {
    const std::size_t d = editDistance(key, name);
    if (d < best) best = d, nearest = name;
  }
  return nearest;
}

namespace {

// Why a config file cannot be read, if it is missing: "; no such file", with the nearest YAML file
// beside it by name when there is one.
std::string missingFileHint(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(path, error)) return "";
  const fs::path file(path);
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::vector<std::string> yaml;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const fs::path name = it->path().filename();
    if (name.extension() == ".yaml" || name.extension() == ".yml") yaml.push_back(name.string());
  }
  const std::string nearest = nearestName(file.filename().string(), yaml);
  if (nearest.empty() || editDistance(file.filename().string(), nearest) > 3) return "; no such file";
  return "; no such file: did you mean '" + (folder / nearest).string() + "'?";
}

// Where each key path of a merged config was set: "learner.batch.lambda" -> the file that set it.
using Origins = std::map<std::string, std::string>;

std::string joined(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// Every key path of `node` (maps walked down, anything else a leaf) recorded as set by `file`.
void recordOrigins(const YAML::Node& node, const std::string& path, const std::string& file, Origins& origins) {
  if (!node.IsMap()) return;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) continue;  // keyName() refuses it later
    const std::string key = joined(path, entry.first.Scalar());
    origins[key] = file;
    recordOrigins(entry.second, key, file, origins);
  }
}

// `over` laid on `base`: maps merge key by key (recursively), anything else in `over` replaces.
YAML::Node merged(const YAML::Node& base, const YAML::Node& over) {
  if (!base.IsMap() || !over.IsMap()) return YAML::Clone(over);
  YAML::Node out = YAML::Clone(base);
  for (const auto& entry : over) {
    const std::string key = entry.first.Scalar();
    out[key] = out[key] ? merged(out[key], entry.second) : YAML::Clone(entry.second);
  }
  return out;
}

// The file's top-level map with its `base:` chain merged in; `chain` lists the files already open.
YAML::Node loadWithBase(const std::string& path, std::vector<std::string> chain, Origins& origins) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw ConfigError("config '" + path + "' is a folder; give a YAML file (see configs/)");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError("cannot read config file '" + path + "'" +
                      (chain.empty() ? std::string() : " (the base of '" + chain.back() + "')") + missingFileHint(path));
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": YAML syntax error: " + e.what());
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw ConfigError(path + ": the top level must be a map of keys");
  refuseDuplicateKeys(root, "", path);
  if (!root["base"]) {
    recordOrigins(root, "", path, origins);
    return root;
  }
  if (!root["base"].IsScalar()) throw ConfigError(path + ": base: expected the file name of a config to start from");
  chain.push_back(path);
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  const std::string base_path = (folder / root["base"].Scalar()).string();
  for (const std::string& open : chain) {
    if (std::filesystem::equivalent(open, base_path, ignored)) {
      throw ConfigError(path + ": base: '" + base_path + "' is already in this chain of bases");
    }
  }
  root.remove("base");
  YAML::Node base = loadWithBase(base_path, chain, origins);  // records the base's keys first ...
  recordOrigins(root, "", path, origins);                     // ... so this file's keys override them
  return merged(base, root);
}

}  // namespace

void refuseDuplicateKeys(const YAML::Node& node, const std::string& path, const std::string& file) {
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) refuseDuplicateKeys(node[i], path + "[" + std::to_string(i) + "]", file);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, int> first_line;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) continue;
    const std::string& key = entry.first.Scalar();
    const int line = entry.first.Mark().line + 1;
    const auto [it, fresh] = first_line.emplace(key, line);
    if (!fresh) {
      throw ConfigError(file + ": " + joined(path, key) + ": the key appears twice, on line " + std::to_string(it->second) +
                        " and on line " + std::to_string(line) + "; give it once");
    }
    refuseDuplicateKeys(entry.second, joined(path, key), file);
  }
}


ConfigNode ConfigNode::load(const std::string& path, const std::vector<std::string>& overrides) {
  auto origins = std::make_shared<Origins>();
  YAML::Node root = loadWithBase(path, {}, *origins);
  for (const std::string& assignment : overrides) {
    const std::size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw ConfigError("--set '" + assignment + "': expected KEY=VALUE, e.g. learner.online.epochs=50");
    }
    YAML::Node value;
    try {
      value = YAML::Load(assignment.substr(equals + 1));
    } catch (const YAML::Exception& e) {
      throw ConfigError("--set '" + assignment + "': the value is not YAML: " + e.what());
    }
    // Walk the dotted key down the maps (copies of YAML::Node share the node they refer to).
    std::vector<YAML::Node> chain = {root};
    std::stringstream parts(assignment.substr(0, equals));
    std::vector<std::string> keys;
    for (std::string key; std::getline(parts, key, '.');) keys.push_back(key);
    // select.space's keys are dotted setting names: `select.space.learner.kind=[learch]` sets one of them.
    if (keys.size() > 3 && keys[0] == "select" && keys[1] == "space") {
      for (std::size_t k = 3; k < keys.size(); ++k) keys[2] += "." + keys[k];
      keys.resize(3);
    }
    for (std::size_t k = 0; k + 1 < keys.size(); ++k) {
      YAML::Node next = chain.back()[keys[k]];
      if (next.IsDefined() && !next.IsNull() && !next.IsMap()) {
        throw ConfigError("--set '" + assignment + "': '" + keys[k] + "' is not a map in " + path);
      }
      if (!next.IsMap()) chain.back()[keys[k]] = YAML::Node(YAML::NodeType::Map);
      chain.push_back(chain.back()[keys[k]]);
    }
    chain.back()[keys.back()] = value;
    (*origins)[assignment.substr(0, equals)] = "--set '" + assignment + "'";
  }
  return ConfigNode(root, path, "", origins);
}

ConfigNode::ConfigNode(YAML::Node node, std::string file, std::string path,
                       std::shared_ptr<const std::map<std::string, std::string>> origins)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), origins_(std::move(origins)) {}

std::string ConfigNode::originOf(const std::string& key_path) const {
  if (!origins_) return file_;
  // The longest recorded prefix: "train[0].image" was set with "train", "learner.batch.x" maybe
  // with "learner.batch" (a whole map given by --set).
  std::string path = key_path;
  for (;;) {
    if (const auto it = origins_->find(path); it != origins_->end()) return it->second;
    const std::size_t cut = path.find_last_of(".[");
    if (cut == std::string::npos) return file_;
    path.resize(cut);
  }
}

std::string ConfigNode::folder() const {
  const std::size_t slash = file_.find_last_of('/');
  return slash == std::string::npos ? "." : file_.substr(0, slash);
}

std::string ConfigNode::folderOf(const std::string& key) const {
  const std::string file = origin(key);
  if (file.rfind("--set", 0) == 0) return folder();
  const std::size_t slash = file.find_last_of('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

std::string ConfigNode::keyPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void ConfigNode::fail(const std::string& key, const std::string& what) const {
  const std::string where = key.empty() ? path_ : keyPath(key);
  throw ConfigError(originOf(where) + ": " + (where.empty() ? "top level" : where) + ": " + what);
}

bool ConfigNode::has(const std::string& key) const { return node_.IsMap() && node_[key] && !node_[key].IsNull(); }

bool ConfigNode::isList(const std::string& key) const { return has(key) && node_[key].IsSequence(); }

std::string ConfigNode::keyName(const YAML::Node& key) const {
  if (!key.IsScalar()) {
    fail("", std::string("a key must be a plain name, got ") + (key.IsSequence() ? "a list" : key.IsMap() ? "a map" : "nothing") +
                 " (is a '?' or a bracket misplaced?)");
  }
  return key.Scalar();
}

namespace {
ConfigNode::KeysObserver& keysObserver() {
  static ConfigNode::KeysObserver observer;
  return observer;
}
}  // namespace

void ConfigNode::observeExpectedKeys(KeysObserver observer) { keysObserver() = std::move(observer); }

std::string ConfigNode::dump() const {
  YAML::Emitter out;
  out << node_;
  return out.c_str();
}

void ConfigNode::expectKeys(const std::vector<std::string>& allowed) const {
  if (keysObserver()) keysObserver()(path_, allowed);
  if (!node_.IsMap()) return;
  for (const auto& entry : node_) {
    const std::string key = keyName(entry.first);
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const std::string nearest = nearestName(key, allowed);
    std::ostringstream valid;
    for (std::size_t i = 0; i < allowed.size(); ++i) valid << (i ? ", " : "") << allowed[i];
    fail(key, "unknown key" + (nearest.empty() ? std::string() : "; did you mean '" + keyPath(nearest) + "'?") +
                  " (valid here: " + valid.str() + ")");
  }
}

ConfigNode ConfigNode::child(const std::string& key) const {
  if (!has(key)) return ConfigNode(YAML::Node(YAML::NodeType::Map), file_, keyPath(key), origins_);
  const YAML::Node value = node_[key];
  if (!value.IsMap()) fail(key, "expected a map of keys");
  return ConfigNode(value, file_, keyPath(key), origins_);
}

static std::string shown(const YAML::Node& value) {
  if (value.IsScalar()) return "'" + value.Scalar() + "'";
  return value.IsSequence() ? "a list" : "a map";
}

// "a finite number in [min, max]", or ">= min" / "<= max" where a bound is infinite.
static std::string finiteNumberIn(double min, double max) {
  std::ostringstream out;
  out << "a finite number";
  if (std::isfinite(min) && std::isfinite(max)) out << " in [" << min << ", " << max << "]";
  else if (std::isfinite(min)) out << " >= " << min;
  else if (std::isfinite(max)) out << " <= " << max;
  return out.str();
}

// A scalar that is a finite number within [min, max]; NaN and +-inf are refused with the rest.
static bool finiteNumber(const YAML::Node& value, double min, double max, double& x) {
  return value.IsScalar() && YAML::convert<double>::decode(value, x) && std::isfinite(x) && x >= min && x <= max;
}

double ConfigNode::number(const std::string& key, double fallback, double min, double max) const {
  if (!has(key)) return fallback;
  const YAML::Node value = node_[key];
  double x = 0.0;
  if (!finiteNumber(value, min, max, x)) fail(key, "expected " + finiteNumberIn(min, max) + ", got " + shown(value));
  return x;
}

long ConfigNode::integer(const std::string& key, long fallback, long min, long max) const {
  if (!has(key)) return fallback;
  const YAML::Node value = node_[key];
  long x = 0;
  if (!value.IsScalar() || !YAML::convert<long>::decode(value, x)) fail(key, "expected an integer, got " + shown(value));
  if (x < min || x > max) {
    fail(key, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                  std::to_string(x));
  }
  return x;
}

bool ConfigNode::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  bool x = false;
  if (!node_[key].IsScalar() || !YAML::convert<bool>::decode(node_[key], x)) {
    fail(key, "expected true or false, got " + shown(node_[key]));
  }
  return x;
}

std::string ConfigNode::text(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  if (!node_[key].IsScalar()) fail(key, "expected a string, got " + shown(node_[key]));
  return node_[key].Scalar();
}

std::string ConfigNode::choice(const std::string& key, const std::string& fallback,
                               const std::vector<std::string>& choices) const {
  const std::string value = text(key, fallback);
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
  std::string valid;
  for (const auto& c : choices) valid += (valid.empty() ? "" : ", ") + c;
  fail(key, "'" + value + "' is not one of: " + valid);
}

std::vector<long> ConfigNode::integers(const std::string& key, const std::vector<long>& fallback, long min,
                                       long max) const {
  if (!has(key)) return fallback;
  const YAML::Node value = node_[key];
  if (!value.IsSequence()) fail(key, "expected a list of integers, got " + shown(value));
  std::vector<long> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    long x = 0;
    if (!value[i].IsScalar() || !YAML::convert<long>::decode(value[i], x) || x < min || x > max) {
      fail(key + "[" + std::to_string(i) + "]", "expected an integer in [" + std::to_string(min) + ", " +
                                                    std::to_string(max) + "], got " + shown(value[i]));
    }
    out.push_back(x);
  }
  return out;
}

std::vector<double> ConfigNode::numbers(const std::string& key, const std::vector<double>& fallback, double min,
                                        double max) const {
  if (!has(key)) return fallback;
  const YAML::Node value = node_[key];
  if (!value.IsSequence()) fail(key, "expected a list of numbers, got " + shown(value));
  std::vector<double> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    double x = 0.0;
    if (!finiteNumber(value[i], min, max, x)) {
      fail(key + "[" + std::to_string(i) + "]", "expected " + finiteNumberIn(min, max) + ", got " + shown(value[i]));
    }
    out.push_back(x);
  }
  return out;
}

std::vector<ConfigNode> ConfigNode::items(const std::string& key) const {
  std::vector<ConfigNode> out;
  if (!has(key)) return out;
  const YAML::Node value = node_[key];
  if (!value.IsSequence()) fail(key, "expected a list (- item per line), got " + shown(value));
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item = key + "[" + std::to_string(i) + "]";
    if (!value[i].IsMap()) fail(item, "expected a map of keys, got " + shown(value[i]));
    out.emplace_back(value[i], file_, keyPath(item), origins_);
  }
  return out;
}

std::vector<std::string> ConfigNode::valueTexts(const std::string& key) const {
  if (!has(key)) return {};
  const YAML::Node value = node_[key];
  if (!value.IsSequence()) fail(key, "expected a list of values to try, got " + shown(value));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const YAML::Node& v = value[i];
    const std::string item = key + "[" + std::to_string(i) + "]";
    if (v.IsScalar()) {
      out.push_back(v.Scalar());
      continue;
    }
    if (!v.IsSequence()) fail(item, "expected a value or a list of values, got " + shown(v));
    std::string list;
    for (std::size_t j = 0; j < v.size(); ++j) {
      if (!v[j].IsScalar()) fail(item + "[" + std::to_string(j) + "]", "expected a value, got " + shown(v[j]));
      list += (j == 0 ? "" : ", ") + v[j].Scalar();
    }
    out.push_back("[" + list + "]");
  }
  return out;
}

std::vector<std::string> ConfigNode::keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (const auto& entry : node_) out.push_back(keyName(entry.first));
  return out;
}

std::vector<std::string> ConfigNode::texts(const std::string& key, const std::vector<std::string>& fallback,
                                          const std::vector<std::string>& choices) const {
  if (!has(key)) return fallback;
  const YAML::Node value = node_[key];
  if (!value.IsSequence()) fail(key, "expected a list of strings, got " + shown(value));
  std::string valid;
  for (const auto& c : choices) valid += (valid.empty() ? "" : ", ") + c;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item = key + "[" + std::to_string(i) + "]";
    if (!value[i].IsScalar()) fail(item, "expected a string, got " + shown(value[i]));
    const std::string text = value[i].Scalar();
    if (!choices.empty() && std::find(choices.begin(), choices.end(), text) == choices.end()) {
      fail(item, "'" + text + "' is not one of: " + valid);
    }
    out.push_back(text);
  }
  return out;
}

}  // namespace mmp::tools
