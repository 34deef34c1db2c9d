#include <mmp/maps/nav2_map.hpp>
#include <mmp/core/numbers.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/maps/georeference.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace mmp {
namespace {

constexpr int kGradedLevels = kNav2LastGraded - kNav2FirstGraded + 1;  // 98

// The shortest decimal that reads back as the same double (0.05, not 0.050000000000000003).
std::string exact(double v) {
  char text[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

std::string shortNumber(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

void checkName(const std::string& name) {
  const bool valid_chars = std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
           ch == '-';
  });
  if (name.empty() || name[0] == '.' || !valid_chars) {
    throw InvalidArgument("Nav2 map: name '" + name +
                          "' must be a file stem of letters, digits, '.', '_' and '-', not starting with '.'");
  }
}

void checkRangeEnd(const char* key, double v) {
  if (!std::isnan(v) && !(v > 0.0 && std::isfinite(v))) {
    throw InvalidArgument(std::string("Nav2 map: ") + key + " = " + shortNumber(v) +
                          " must be a finite cost > 0 (or NaN: the map's own)");
  }
}

// t in [0, 1] of a cost in [lo, hi] on the chosen scale; the level 1..98 of t (98 equal bins).
struct Scale {
  Nav2CostScale form;
  double lo, hi;

  double place(double c) const {
    if (!(hi > lo)) return 0.0;
    c = std::clamp(c, lo, hi);
    const double t = form == Nav2CostScale::Logarithmic ? std::log(c / lo) / std::log(hi / lo) : (c - lo) / (hi - lo);
    return std::clamp(t, 0.0, 1.0);
  }
  int value(double c) const {
    const int bin = static_cast<int>(std::floor(place(c) * kGradedLevels));
    return kNav2FirstGraded + std::min(kGradedLevels - 1, bin);
  }
  // The cost where t = k / 98 (k = 0..98): the lower edge of level 1 + k.  requires: hi > lo.
  double edge(int k) const {
    if (k == kGradedLevels) return hi;
    const double t = static_cast<double>(k) / kGradedLevels;
    return form == Nav2CostScale::Logarithmic ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t;
  }
  std::string formula() const {
    if (form == Nav2CostScale::Logarithmic) {
      return "t = (ln c - ln " + exact(lo) + ") / (ln " + exact(hi) + " - ln " + exact(lo) + ")";
    }
    return "t = (c - " + exact(lo) + ") / (" + exact(hi) + " - " + exact(lo) + ")";
  }
};

std::string cellName(const CostGrid& grid, std::size_t s) {
  return "cell (row " + std::to_string(s / static_cast<std::size_t>(grid.cols)) + ", col " +
         std::to_string(s % static_cast<std::size_t>(grid.cols)) + ")";
}

void checkGrid(const CostGrid& grid, const Nav2MapSettings& settings) {
  if (grid.rows < 1 || grid.cols < 1) {
    throw InvalidArgument("Nav2 map: the grid has " + std::to_string(grid.rows) + " x " + std::to_string(grid.cols) +
                          " cells; a map needs at least one");
  }
  const std::size_t cells = static_cast<std::size_t>(grid.rows) * static_cast<std::size_t>(grid.cols);
  if (grid.costs.size() != cells) {
    throw InvalidArgument("Nav2 map: the grid is " + std::to_string(grid.rows) + " x " + std::to_string(grid.cols) +
                          " cells but holds " + std::to_string(grid.costs.size()) + " costs");
  }
  if (!grid.frame.hasWorld()) {
    throw InvalidArgument("Nav2 map: the cost grid has no world frame, and a Nav2 map needs a resolution and an "
                          "origin; give a georeferenced image (GeoTIFF) or a resolution and an origin for it");
  }
  if (grid.frame.rows != grid.rows || grid.frame.cols != grid.cols) {
    throw InvalidArgument("Nav2 map: the grid is " + std::to_string(grid.rows) + " x " + std::to_string(grid.cols) +
                          " cells but its world frame " + std::to_string(grid.frame.rows) + " x " +
                          std::to_string(grid.frame.cols) + "; give the frame of these cells");
  }
  if (!settings.unknown.empty() && settings.unknown.size() != cells) {
    throw InvalidArgument("Nav2 map: the unknown mask has " + std::to_string(settings.unknown.size()) +
                          " entries; give one per cell (" + std::to_string(grid.rows) + " x " +
                          std::to_string(grid.cols) + " = " + std::to_string(cells) + ") or none");
  }
  if (const std::string fault = geographicFault(grid.frame, "IMAGE.tif"); !fault.empty()) {
    throw InvalidArgument("Nav2 map: the cost grid's " + fault);
  }
  if (!settings.lethal.empty() && settings.lethal.size() != cells) {
    throw InvalidArgument("Nav2 map: the lethal mask has " + std::to_string(settings.lethal.size()) +
                          " entries; give one per cell (" + std::to_string(cells) + ") or none");
  }
  if (!(settings.lethal_above > 0.0)) {
    throw InvalidArgument("Nav2 map: lethal_above = " + shortNumber(settings.lethal_above) +
                          " must be a cost > 0 (+inf: no cell is lethal by its cost)");
  }
  checkName(settings.name);
  checkRangeEnd("lowest", settings.lowest);
  checkRangeEnd("highest", settings.highest);
  if (settings.lowest >= settings.highest) {  // false if either is NaN
    throw InvalidArgument("Nav2 map: lowest = " + shortNumber(settings.lowest) + " must be below highest = " +
                          shortNumber(settings.highest));
  }
}

// One line of the levels file per value.
struct Level {
  long long cells = 0;
  double seen_lo = kInf, seen_hi = -kInf;
};

std::string levelsCsv(const Scale& scale, bool have_range, double lethal_above, const std::array<Level, 256>& levels) {
  std::string csv = "value,cost_from,cost_to,cells,lowest_cost,highest_cost\n";
  const auto seen = [](const Level& l) {
    return l.cells == 0 ? std::string(",") : exact(l.seen_lo) + "," + exact(l.seen_hi);
  };
  for (int v = kNav2FirstGraded; v <= kNav2LastGraded; ++v) {
    const int k = v - kNav2FirstGraded;
    std::string from, to;
    if (have_range && !(scale.hi > scale.lo)) {
      if (k == 0) from = "0", to = "inf";  // one cost: every passable cell is at 1
    } else if (have_range) {
      // The first and last levels also hold the costs clamped into them.
      from = k == 0 ? "0" : exact(scale.edge(k));
      to = v == kNav2LastGraded ? "inf" : exact(scale.edge(k + 1));
    }
    csv += std::to_string(v) + "," + from + "," + to + "," + std::to_string(levels[v].cells) + "," + seen(levels[v]) + "\n";
  }
  csv += std::to_string(kNav2Lethal) + "," + exact(lethal_above) + ",inf," + std::to_string(levels[kNav2Lethal].cells) +
         "," + seen(levels[kNav2Lethal]) + "\n";
  csv += std::to_string(kNav2Unknown) + ",,," + std::to_string(levels[kNav2Unknown].cells) + ",,\n";
  return csv;
}

std::string yamlText(const CostGrid& grid, const Nav2MapSettings& settings, const std::string& image_name,
                     const Scale& scale, const Nav2MapInfo& info) {
  const bool log_scale = settings.scale == Nav2CostScale::Logarithmic;
  std::string y;
  y += "# Nav2 map_server map of a learned cost map, written by mmp (maps/nav2_map.hpp).\n";
  y += "# mode raw: a pixel's grey level v is the occupancy value handed to the costmap's static layer.\n";
  y += "#   v in 1..98: passable, non-decreasing in the learned cost c (" +
       std::string(log_scale ? "logarithmic" : "linear") + " scale):\n";
  if (std::isnan(info.lowest)) {
    y += "#     (no passable cell)\n";
  } else {
    y += "#     v = 1 + min(97, floor(98 t)), " + scale.formula() + ",\n";
    y += "#     c clamped to the cost range [" + exact(info.lowest) + ", " + exact(info.highest) + "]" +
         (info.highest > info.lowest ? "" : " (one cost: every passable cell has v = 1)") + "\n";
  }
  y += "#     values used: " + std::to_string(info.levels_used) + " of 98; cells: " + std::to_string(info.passable) +
       "; " + settings.name + ".levels.csv gives each value's cost interval and cells\n";
  y += "#   v = 100: lethal: impassable (cost inf)";
  if (std::isfinite(settings.lethal_above)) y += ", or a cost above " + exact(settings.lethal_above) + " (lethal_above)";
  if (!settings.lethal.empty()) y += ", or marked by the lethal mask";
  y += "; cells: " + std::to_string(info.lethal) + " (" + std::to_string(info.lethal_by_cost) + " by their cost, " +
       std::to_string(info.lethal_by_mask) + " by the mask)\n";
  if (info.lethal == 0) y += "#     (learned costs are finite: a learned map has no lethal cell unless lethal_above or a mask makes some)\n";
  y += "#   v = 255: unknown (no data); cells: " + std::to_string(info.unknown) + "\n";
  y += "# Costmap settings: trinary_costmap: false (the default, true, makes every v < 100 free space);\n";
  y += "# lethal_cost_threshold: 100 (default); track_unknown_space: true keeps the unknown cells unknown.\n";
  y += "# The static layer then gives v * 254 / 100 truncated (2..248); 99 is not used: it reads 99 as inscribed.\n";
  y += "# negate, occupied_thresh and free_thresh play no part in mode raw; map_server requires them.\n";
  if (!grid.frame.crs.empty()) {
    std::string crs = grid.frame.crs;
    std::replace_if(crs.begin(), crs.end(), [](char ch) { return ch == '\n' || ch == '\r'; }, ' ');
    y += "# CRS of origin (WKT): " + crs + "\n";
  }
  y += "image: " + image_name + "\n";
  y += "mode: raw\n";
  y += "resolution: " + exact(grid.frame.resolution) + "\n";
  if (settings.local_origin) {
    y += "# Local origin: the map frame is the CRS's shifted by (" + exact(info.offset.x) + ", " + exact(info.offset.y) +
         "): world = map + that offset (the lower-left corner of the map is at world " + exact(info.offset.x) + ", " +
         exact(info.offset.y) + ")\n";
  }
  y += "origin: [" + exact(info.origin.x) + ", " + exact(info.origin.y) + ", 0]\n";
  y += "negate: 0\n";
  y += "occupied_thresh: 0.65\n";
  y += "free_thresh: 0.25\n";
  return y;
}

}  // namespace

Nav2MapInfo writeNav2Map(const CostGrid& grid, const std::string& dir, const Nav2MapSettings& settings) {
  checkGrid(grid, settings);
  const std::size_t cells = grid.costs.size();
  const auto masked = [&](std::size_t s) { return !settings.unknown.empty() && settings.unknown[s] != 0; };

  const auto marked = [&](std::size_t s) { return !settings.lethal.empty() && settings.lethal[s] != 0; };
  const auto graded = [&](std::size_t s) {
    return !masked(s) && !marked(s) && grid.costs[s] != kInf && grid.costs[s] <= settings.lethal_above;
  };

  // 1) Check every cost that will be written and find the graded range.
  double seen_lo = kInf, seen_hi = -kInf;
  for (std::size_t s = 0; s < cells; ++s) {
    if (masked(s)) continue;
    const double c = grid.costs[s];
    if (!(c > 0.0)) {  // NaN too
      throw DataError("Nav2 map: " + cellName(grid, s) + " has cost " + shortNumber(c) +
                      "; costs must be > 0 or +inf (impassable), or the cell marked unknown in the mask");
    }
    if (graded(s)) seen_lo = std::min(seen_lo, c), seen_hi = std::max(seen_hi, c);
  }
  Nav2MapInfo info;
  if (settings.local_origin) info.offset = grid.frame.origin;
  else info.origin = grid.frame.origin;
  info.lowest = std::isnan(settings.lowest) ? (seen_lo != kInf ? seen_lo : info.lowest) : settings.lowest;
  info.highest = std::isnan(settings.highest) ? (seen_hi != -kInf ? seen_hi : info.highest) : settings.highest;
  if (info.lowest > info.highest) {  // one end given, the map's other end beyond it
    throw InvalidArgument("Nav2 map: the cost range [" + shortNumber(info.lowest) + ", " + shortNumber(info.highest) +
                          "] (settings and the map's own costs) is empty; give both lowest and highest");
  }
  const bool have_range = !std::isnan(info.lowest) && !std::isnan(info.highest);
  if (!have_range) info.lowest = info.highest = std::numeric_limits<double>::quiet_NaN();
  const Scale scale{settings.scale, info.lowest, info.highest};

  // 2) The values, image row r = grid row r (row 0 at the top, as map_server reads images).
  std::vector<std::uint8_t> values(cells);
  std::array<Level, 256> levels;
  for (std::size_t s = 0; s < cells; ++s) {
    const double c = grid.costs[s];
    const int v = masked(s) ? kNav2Unknown : graded(s) ? scale.value(c) : kNav2Lethal;
    if (v == kNav2Lethal && c != kInf) ++(marked(s) ? info.lethal_by_mask : info.lethal_by_cost);
    values[s] = static_cast<std::uint8_t>(v);
    Level& level = levels[static_cast<std::size_t>(v)];
    ++level.cells;
    if (v != kNav2Unknown) level.seen_lo = std::min(level.seen_lo, c), level.seen_hi = std::max(level.seen_hi, c);
  }
  for (int v = kNav2FirstGraded; v <= kNav2LastGraded; ++v) {
    info.passable += levels[v].cells;
    info.levels_used += levels[v].cells > 0;
  }
  info.lethal = levels[kNav2Lethal].cells;
  info.unknown = levels[kNav2Unknown].cells;

  // 3) Encode everything before writing anything.
  const bool png = settings.format == Nav2ImageFormat::Png;
  const std::string image_name = settings.name + (png ? ".png" : ".pgm");
  const cv::Mat image(grid.rows, grid.cols, CV_8UC1, values.data());
  std::vector<std::uint8_t> encoded;
  const std::vector<int> params = png ? std::vector<int>{} : std::vector<int>{cv::IMWRITE_PXM_BINARY, 1};
  if (!cv::imencode(png ? ".png" : ".pgm", image, encoded, params)) {
    throw Error("Nav2 map: OpenCV cannot encode the " + std::to_string(grid.cols) + " x " + std::to_string(grid.rows) +
                " image as " + (png ? "PNG" : "PGM"));
  }
  const std::string csv = levelsCsv(scale, have_range, settings.lethal_above, levels);
  const std::string yaml = yamlText(grid, settings, image_name, scale, info);

  // 4) Write: the YAML, which map_server opens, last.
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw Error("Nav2 map: cannot create the folder '" + dir + "': " +
                (error ? error.message() : std::string("a file of that name exists")));
  }
  const std::filesystem::path folder(dir);
  info.image = (folder / image_name).string();
  info.levels = (folder / (settings.name + ".levels.csv")).string();
  info.yaml = (folder / (settings.name + ".yaml")).string();
  writeFileAtomically(info.image, std::string(encoded.begin(), encoded.end()));
  writeFileAtomically(info.levels, csv);
  writeFileAtomically(info.yaml, yaml);
  return info;
}

}  // namespace mmp
