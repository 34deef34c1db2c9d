#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/frontend/config.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/path_files.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace mmp::tools {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

PixelPoint yamlPoint(const YAML::Node& node, const std::string& where) {
  PixelPoint p;
  bool ok = false;
  if (node.IsSequence() && node.size() == 2 && node[0].IsScalar() && node[1].IsScalar()) {
    ok = YAML::convert<double>::decode(node[0], p.x) && YAML::convert<double>::decode(node[1], p.y);
  } else if (node.IsMap() && node.size() == 2 && node["x"] && node["y"] && node["x"].IsScalar() && node["y"].IsScalar()) {
    ok = YAML::convert<double>::decode(node["x"], p.x) && YAML::convert<double>::decode(node["y"], p.y);
  }
  if (!ok || !std::isfinite(p.x) || !std::isfinite(p.y)) {
    throw DataError(where + ": expected a point [x, y] or {x: .., y: ..} of two numbers");
  }
  return p;
}

std::string kindOf(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "empty";
    default: return "'" + node.Scalar() + "'";
  }
}

// The list of paths; prefix names it in messages ("<file>: paths" or "<file>: top level").
std::vector<PixelPath> readPathList(const YAML::Node& list, const std::string& prefix) {
  if (!list.IsSequence()) throw DataError(prefix + ": expected a list of paths, got " + kindOf(list));
  std::vector<PixelPath> paths;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = prefix + "[" + std::to_string(i) + "]";
    if (!list[i].IsSequence()) throw DataError(where + ": expected a list of points, got " + kindOf(list[i]));
    PixelPath path{std::to_string(i + 1), {}};
    for (std::size_t j = 0; j < list[i].size(); ++j) {
      path.points.push_back(yamlPoint(list[i][j], where + "[" + std::to_string(j) + "]"));
    }
    paths.push_back(std::move(path));
  }
  if (paths.empty()) throw DataError(prefix + ": the list of paths is empty");
  return paths;
}

std::vector<PixelPath> readYamlPaths(const YAML::Node& root, const std::string& file) {
  try {  // `paths:` twice, or `x:` twice in a point: yaml-cpp would keep one silently
    refuseDuplicateKeys(root, "", file);
  } catch (const ConfigError& e) {
    throw DataError(e.what());
  }
  if (!root.IsMap()) return readPathList(root, file + ": top level");
  for (const auto& entry : root) {
    // A key may be a map or a list in YAML (`? [a, b]`, `{}: x`); ours are names.
    if (!entry.first.IsScalar()) throw DataError(file + ": a key is " + kindOf(entry.first) + "; the only key is 'paths'");
    if (entry.first.Scalar() != "paths") {
      throw DataError(file + ": unknown key '" + entry.first.Scalar() + "' (the only key is 'paths')");
    }
  }
  if (root.size() == 0) throw DataError(file + ": an empty map; expected the key 'paths' (a list of paths)");
  return readPathList(root["paths"], file + ": paths");
}

std::vector<PixelPath> readYaml(const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw DataError("cannot read demonstration file '" + file + "'");
  } catch (const YAML::ParserException& e) {
    throw DataError(file + ": YAML syntax error: " + e.what());
  }
  try {
    return readYamlPaths(root, file);
  } catch (const YAML::Exception& e) {
    // The checks above should leave yaml-cpp nothing to refuse; if it still does, the file is at fault.
    throw DataError(file + ": not a list of paths (" + std::string(e.what()) + ")");
  }
}

}  // namespace

std::vector<PixelPath> readDemonstrationFile(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const std::string extension = dot == std::string::npos ? "" : lower(path.substr(dot + 1));
  std::vector<PixelPath> paths;
  if (extension == "csv") paths = readPathCsv(path);
  else if (extension == "yaml" || extension == "yml") paths = readYaml(path);
  else throw DataError("demonstration file '" + path + "': unknown format; use a .csv or a .yaml/.yml file");
  for (const PixelPath& p : paths) {
    if (p.points.size() < 2) {
      throw DataError("demonstration file '" + path + "': path " + p.name + " has " + std::to_string(p.points.size()) +
                      " point; a path needs at least 2");
    }
  }
  return paths;
}

}  // namespace mmp::tools
