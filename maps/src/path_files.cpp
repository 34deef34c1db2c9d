#include <mmp/maps/path_files.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/planning/cost_field.hpp>

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
  const std::optional<double> v = numberFromText(text);
  if (!v || !std::isfinite(*v)) return false;
  x = *v;
  return true;
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
  // Where the fields are: from the header, or, without one, x,y or path,x,y by the field count.
  int columns = 0, path_at = -1, x_at = -1, y_at = -1;
  bool world = false, first = true;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const std::vector<std::string> fields = splitFields(text);
    const std::string where = file + ":" + std::to_string(number) + ": ";
    if (first) {
      first = false;
      double ignored = 0.0;
      if (!fields.empty() && !parseNumber(fields.back(), ignored)) {
        std::map<std::string, int> at;
        for (std::size_t i = 0; i < fields.size(); ++i) at[lower(fields[i])] = static_cast<int>(i);
        const bool pixels = at.count("x") && at.count("y"), worlds = at.count("world_x") && at.count("world_y");
        const bool known = std::all_of(at.begin(), at.end(), [](const auto& f) {
          return f.first == "path" || f.first == "x" || f.first == "y" || f.first == "world_x" || f.first == "world_y" ||
                 f.first == "heading_deg";
        });
        if (!known || at.size() != fields.size() || (!pixels && !worlds)) {
          throw DataError(where + "the header '" + text +
                          "' must be 'x,y', 'path,x,y' (pixels), 'world_x,world_y', 'path,world_x,world_y' (world "
                          "coordinates of the image's frame) or 'path,x,y,world_x,world_y' (pixels are used), "
                          "optionally with a last column 'heading_deg' (ignored)");
        }
        world = !pixels;
        columns = static_cast<int>(fields.size());
        path_at = at.count("path") ? at["path"] : -1;
        x_at = at[world ? "world_x" : "x"];
        y_at = at[world ? "world_y" : "y"];
        continue;
      }
    }
    if (columns == 0) {
      columns = static_cast<int>(fields.size());
      path_at = columns == 3 ? 0 : -1;
      x_at = columns - 2;
      y_at = columns - 1;
    }
    if (static_cast<int>(fields.size()) != columns || columns < 2) {
      throw DataError(where + "expected " + std::to_string(std::max(columns, 2)) +
                      " comma-separated fields (x,y or path,x,y), got '" + text + "'");
    }
    PixelPoint p;
    const std::string& xs = fields[static_cast<std::size_t>(x_at)];
    const std::string& ys = fields[static_cast<std::size_t>(y_at)];
    if (!parseNumber(xs, p.x)) throw DataError(where + (world ? "world_x '" : "x '") + xs + "' is not a number");
    if (!parseNumber(ys, p.y)) throw DataError(where + (world ? "world_y '" : "y '") + ys + "' is not a number");
    const std::string name = path_at >= 0 ? fields[static_cast<std::size_t>(path_at)] : "1";
    if (name.empty()) throw DataError(where + "the path column is empty");
    auto it = index.find(name);
    if (it == index.end()) {
      it = index.emplace(name, paths.size()).first;
      paths.push_back({name, {}, world});
    } else if (it->second + 1 != paths.size()) {  // merged, its points would jump between the two runs
      throw DataError(where + "path '" + name + "' continues after path '" + paths.back().name +
                      "' began; give each path's points in one run of lines (or another id to each path)");
    }
    paths[it->second].points.push_back(p);
  }
  if (paths.empty()) throw DataError("demonstration file '" + file + "' holds no points");
  return paths;
}

void writePathCsv(const std::string& file, const std::vector<std::vector<CellPoint>>& paths, int cell_size,
                  const WorldFrame& frame, const std::vector<std::vector<double>>& headings, const std::vector<std::string>& names) {
  const bool with_headings = !headings.empty();
  for (std::size_t i = 0; with_headings && i < std::max(paths.size(), headings.size()); ++i) {
    if (i >= paths.size() || i >= headings.size() || headings[i].size() != paths[i].size()) {
      throw InvalidArgument("writePathCsv('" + file + "'): path " + std::to_string(i + 1) + " has " +
                            std::to_string(i < paths.size() ? paths[i].size() : 0) + " points but " +
                            std::to_string(i < headings.size() ? headings[i].size() : 0) + " headings");
    }
  }
  constexpr double kDegreesPerRadian = 57.295779513082320877;
  std::ostringstream out;
  out.precision(12);
  out << (frame.hasWorld() ? "path,x,y,world_x,world_y" : "path,x,y") << (with_headings ? ",heading_deg\n" : "\n");
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (std::size_t k = 0; k < paths[i].size(); ++k) {
      const CellPoint& p = paths[i][k];
      if (i < names.size() && !names[i].empty()) out << names[i];
      else out << i + 1;
      out << "," << p.u * cell_size << "," << p.v * cell_size;
      if (frame.hasWorld()) {
        const WorldPoint w = frame.toWorld(p);
        out << "," << w.x << "," << w.y;
      }
      if (with_headings) {
        const double degrees = std::remainder(headings[i][k] * kDegreesPerRadian, 360.0);
        out << "," << (degrees <= -180.0 ? degrees + 360.0 : degrees);
      }
      out << "\n";
    }
  }
  writeFileAtomically(file, out.str());
}

void writePathCsv(const std::string& file, const std::vector<std::vector<int>>& paths, int cols, int cell_size,
                  const WorldFrame& frame, const std::vector<std::string>& names) {
  std::vector<std::vector<CellPoint>> centres;
  for (const std::vector<int>& path : paths) centres.push_back(cellCentres(path, cols));
  writePathCsv(file, centres, cell_size, frame, {}, names);
}

}  // namespace mmp
