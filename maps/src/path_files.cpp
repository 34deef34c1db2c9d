#include <mmp/maps/path_files.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace mmp {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> splitFields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(trim(field));
  if (!line.empty() && line.back() == ',') fields.push_back("");
  return fields;
}

bool parseNumber(const std::string& text, double& x) {
  if (text.empty()) return false;
  std::size_t used = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && std::isfinite(x);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::vector<PixelPath> readPathCsv(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw DataError("cannot read demonstration file '" + file + "'");
  std::vector<PixelPath> paths;
  std::map<std::string, std::size_t> index;
  std::string line;
  int number = 0;
  int columns = 0;  // 2 (x,y) or 3 (path,x,y) once known
  bool first = true;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const std::vector<std::string> fields = splitFields(text);
    const std::string where = file + ":" + std::to_string(number) + ": ";
    if (first) {
      first = false;
      std::vector<std::string> names;
      for (const auto& f : fields) names.push_back(lower(f));
      if (names == std::vector<std::string>{"x", "y"} || names == std::vector<std::string>{"path", "x", "y"}) {
        columns = static_cast<int>(names.size());
        continue;
      }
      double ignored = 0.0;
      if (!fields.empty() && !parseNumber(fields.back(), ignored)) {
        throw DataError(where + "the header '" + text + "' must be 'x,y' or 'path,x,y'");
      }
    }
    if (columns == 0) columns = static_cast<int>(fields.size());
    if (static_cast<int>(fields.size()) != columns || (columns != 2 && columns != 3)) {
      throw DataError(where + "expected " + (columns == 3 ? std::string("3") : std::string("2")) +
                      " comma-separated fields (x,y or path,x,y), got '" + text + "'");
    }
    PixelPoint p;
    const std::string& xs = fields[static_cast<std::size_t>(columns - 2)];
    const std::string& ys = fields[static_cast<std::size_t>(columns - 1)];
    if (!parseNumber(xs, p.x)) throw DataError(where + "x '" + xs + "' is not a number");
    if (!parseNumber(ys, p.y)) throw DataError(where + "y '" + ys + "' is not a number");
    const std::string name = columns == 3 ? fields[0] : "1";
    if (name.empty()) throw DataError(where + "the path column is empty");
    auto it = index.find(name);
    if (it == index.end()) {
      it = index.emplace(name, paths.size()).first;
      paths.push_back({name, {}});
    }
    paths[it->second].points.push_back(p);
  }
  if (paths.empty()) throw DataError("demonstration file '" + file + "' holds no points");
  return paths;
}

void writePathCsv(const std::string& file, const std::vector<std::vector<int>>& paths, int cols, int cell_size) {
  std::ostringstream out;
  out << "path,x,y\n";
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (int s : paths[i]) {
      out << i + 1 << "," << (s % cols + 0.5) * cell_size << "," << (s / cols + 0.5) * cell_size << "\n";
    }
  }
  writeFileAtomically(file, out.str());
}

}  // namespace mmp
