// The Nav2 export (maps/nav2_map.hpp), read back as Nav2 reads it: the YAML with yaml-cpp, the image
// bytes by hand (PGM) or OpenCV's decoder (PNG), and the values through Nav2's documented rules,
// written out here again rather than taken from the writer:
//   - map_server (nav2_map_server/src/map_io.cpp, loadMapYaml / loadMapFromFile, mode raw): `image`
//     relative to the YAML's folder; grey level g is occupancy g if 0 <= g <= 100, else -1 (unknown);
//     image row y is map row height - 1 - y; origin is the world point of map cell (0, 0)'s corner.
//   - Costmap2D::worldToMap: cell (floor((x - origin_x) / res), floor((y - origin_y) / res)).
//   - the static layer (nav2_costmap_2d/plugins/static_layer.cpp, interpretValue) with
//     trinary_costmap false, track_unknown_space true and the defaults lethal_cost_threshold 100,
//     inscribed_obstacle_cost_value 99, unknown_cost_value 255.
#include "support.hpp"
#include <mmp/core/numbers.hpp>
#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/nav2_map.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

using namespace mmp;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot open " << path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Binary PGM (P5, maxval 255) by the Netpbm specification: magic, then width, height and maxval
// separated by whitespace with '#' comments to the end of a line, one whitespace, the raster.
cv::Mat readPgm(const std::string& path) {
  const std::string bytes = readBytes(path);
  REQUIRE(bytes.compare(0, 2, "P5") == 0);
  std::size_t at = 2;
  auto number = [&] {
    while (at < bytes.size() && (std::isspace(static_cast<unsigned char>(bytes[at])) || bytes[at] == '#')) {
      if (bytes[at] == '#') {
        while (at < bytes.size() && bytes[at] != '\n') ++at;
      } else {
        ++at;
      }
    }
    long value = 0;
    REQUIRE(at < bytes.size());
    REQUIRE(std::isdigit(static_cast<unsigned char>(bytes[at])));
    while (at < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[at]))) value = value * 10 + (bytes[at++] - '0');
    return value;
  };
  const long width = number(), height = number(), maxval = number();
  REQUIRE(maxval == 255);
  REQUIRE(std::isspace(static_cast<unsigned char>(bytes[at])));
  ++at;
  REQUIRE(bytes.size() - at == static_cast<std::size_t>(width * height));
  cv::Mat image(static_cast<int>(height), static_cast<int>(width), CV_8UC1);
  std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end(), image.data);
  return image;
}

// What map_server hands to the costmap (nav_msgs/OccupancyGrid), and where it lies.
struct OccupancyGrid {
  int width = 0, height = 0;
  double resolution = 0.0, origin_x = 0.0, origin_y = 0.0, origin_yaw = 0.0;
  std::vector<int> data;  // row-major from map cell (0, 0) at the origin; -1 unknown
  std::string image_path, mode;
};

OccupancyGrid loadNav2Map(const std::string& yaml_path) {
  const YAML::Node doc = YAML::LoadFile(yaml_path);
  OccupancyGrid map;
  std::string image = doc["image"].as<std::string>();
  REQUIRE(!image.empty());
  if (image[0] != '/') image = (std::filesystem::path(yaml_path).parent_path() / image).string();
  map.image_path = image;
  map.resolution = doc["resolution"].as<double>();
  const std::vector<double> origin = doc["origin"].as<std::vector<double>>();
  REQUIRE(origin.size() == 3);
  map.origin_x = origin[0], map.origin_y = origin[1], map.origin_yaw = origin[2];
  // map_server requires these even in mode raw, where they play no part.
  CHECK(doc["free_thresh"].as<double>() < doc["occupied_thresh"].as<double>());
  CHECK(doc["negate"].as<int>() == 0);
  map.mode = doc["mode"].as<std::string>();

  const std::string extension = std::filesystem::path(image).extension().string();
  cv::Mat pixels;
  if (extension == ".pgm") {
    pixels = readPgm(image);
  } else {
    pixels = cv::imread(image, cv::IMREAD_UNCHANGED);
    REQUIRE(pixels.type() == CV_8UC1);  // grey: the mean of R, G, B is the byte itself
  }
  map.width = pixels.cols, map.height = pixels.rows;
  map.data.assign(static_cast<std::size_t>(map.width) * map.height, 0);
  for (int y = 0; y < map.height; ++y) {
    for (int x = 0; x < map.width; ++x) {
      const int g = pixels.at<std::uint8_t>(y, x);
      map.data[static_cast<std::size_t>(map.height - y - 1) * map.width + x] = g <= 100 ? g : -1;
    }
  }
  return map;
}

// The occupancy value at world point (x, y).
int occupancyAt(const OccupancyGrid& map, double x, double y) {
  const int mx = static_cast<int>(std::floor((x - map.origin_x) / map.resolution));
  const int my = static_cast<int>(std::floor((y - map.origin_y) / map.resolution));
  REQUIRE(mx >= 0);
  REQUIRE(my >= 0);
  REQUIRE(mx < map.width);
  REQUIRE(my < map.height);
  return map.data[static_cast<std::size_t>(my) * map.width + mx];
}

// StaticLayer::interpretValue; the OccupancyGrid's int8 arrives as its byte (-1 as 255).
int staticLayerCost(int occupancy) {
  const int value = static_cast<unsigned char>(static_cast<signed char>(occupancy));
  const int lethal_threshold = 100, inscribed = 99, unknown = 255;
  if (value == unknown) return 255;     // NO_INFORMATION (track_unknown_space)
  if (value == inscribed) return 253;   // INSCRIBED_INFLATED_OBSTACLE
  if (value >= lethal_threshold) return 254;  // LETHAL_OBSTACLE
  const double scale = static_cast<double>(value) / lethal_threshold;
  return static_cast<unsigned char>(scale * 254);
}

struct ReadBack {
  std::vector<int> occupancy, costmap;  // per grid cell (r * cols + c), found through the world frame
};

// Reads the export of `grid` back and checks what holds for every map: the frame, the lethal and
// unknown cells, and the order of the costs.
ReadBack checkReadBack(const CostGrid& grid, const std::vector<std::uint8_t>& unknown, const Nav2MapInfo& info) {
  const OccupancyGrid map = loadNav2Map(info.yaml);
  CHECK(map.image_path == info.image);
  CHECK(map.mode == "raw");
  CHECK(map.width == grid.cols);
  CHECK(map.height == grid.rows);
  CHECK(map.resolution == grid.frame.resolution);
  CHECK(map.origin_x == grid.frame.origin.x);
  CHECK(map.origin_y == grid.frame.origin.y);
  CHECK(map.origin_yaw == 0.0);

  ReadBack back;
  long long lethal = 0, unknowns = 0;
  for (int r = 0; r < grid.rows; ++r) {
    for (int c = 0; c < grid.cols; ++c) {
      const std::size_t s = static_cast<std::size_t>(r) * grid.cols + c;
      const WorldPoint p = grid.frame.cellCentre(r, c);
      const int occupancy = occupancyAt(map, p.x, p.y);
      const int cost = staticLayerCost(occupancy);
      back.occupancy.push_back(occupancy);
      back.costmap.push_back(cost);
      const bool masked = !unknown.empty() && unknown[s] != 0;
      CAPTURE(r);
      CAPTURE(c);
      CHECK((cost == 255) == masked);                                   // unknown exactly where masked
      CHECK((cost == 254) == (!masked && grid.costs[s] == kInf));       // lethal exactly where impassable
      if (cost < 254) CHECK((cost >= 1 && cost <= 252));                // graded, never free, never inscribed
      lethal += cost == 254;
      unknowns += cost == 255;
    }
  }
  CHECK(lethal == info.lethal);
  CHECK(unknowns == info.unknown);

  // Order: cost_a < cost_b implies v_a <= v_b, and equal costs equal values.  Sorted by cost, the
  // values never fall.
  std::vector<std::size_t> passable;
  for (std::size_t s = 0; s < grid.costs.size(); ++s) {
    if (back.costmap[s] < 253) passable.push_back(s);
  }
  CHECK(static_cast<long long>(passable.size()) == info.passable);
  std::sort(passable.begin(), passable.end(), [&](std::size_t a, std::size_t b) { return grid.costs[a] < grid.costs[b]; });
  for (std::size_t i = 1; i < passable.size(); ++i) {
    const std::size_t a = passable[i - 1], b = passable[i];
    CHECK(back.occupancy[a] <= back.occupancy[b]);
    CHECK(back.costmap[a] <= back.costmap[b]);
    if (grid.costs[a] == grid.costs[b]) CHECK(back.occupancy[a] == back.occupancy[b]);
  }
  std::set<int> levels, costmap_levels;
  for (std::size_t s : passable) levels.insert(back.occupancy[s]), costmap_levels.insert(back.costmap[s]);
  CHECK(static_cast<int>(levels.size()) == info.levels_used);
  CHECK(costmap_levels.size() == levels.size());  // the static layer keeps every level apart
  return back;
}

// The levels file: value -> (cells, lowest cost, highest cost).
struct LevelLine {
  long long cells = 0;
  double lowest = kNaN, highest = kNaN;
};

std::map<int, LevelLine> readLevels(const std::string& path) {
  std::istringstream in(readBytes(path));
  std::string line;
  std::getline(in, line);
  CHECK(line == "value,cost_from,cost_to,cells,lowest_cost,highest_cost");
  std::map<int, LevelLine> out;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream cells(line);
    for (std::string f; std::getline(cells, f, ',');) fields.push_back(f);
    while (fields.size() < 6) fields.emplace_back();  // trailing empty fields
    LevelLine l;
    l.cells = std::stoll(fields[3]);
    if (!fields[4].empty()) l.lowest = std::stod(fields[4]), l.highest = std::stod(fields[5]);
    out[std::stoi(fields[0])] = l;
  }
  return out;
}

CostGrid located(int rows, int cols, std::vector<double> costs, double resolution = 0.25, WorldPoint origin = {-12.5, 40.75}) {
  CostGrid grid;
  grid.rows = rows;
  grid.cols = cols;
  grid.costs = std::move(costs);
  grid.frame = WorldFrame::located(rows, cols, resolution, origin);
  return grid;
}

}  // namespace

TEST_CASE("Nav2 map of a learned cost map: frame, lethal and unknown cells and the order of costs survive map_server and the static layer") {
  const cv::Mat image = test::syntheticImage(240, 320, 11);
  const CostModel model = test::randomCostModel(image, 3);
  CostGrid grid = model.costs(image);
  REQUIRE(grid.rows == 60);
  REQUIRE(grid.cols == 80);
  // A UTM-like frame: large coordinates, a resolution that is not a power of two.
  grid.frame = WorldFrame::located(grid.rows, grid.cols, 0.3, {354017.25, 2786540.5}, "PROJCS[\"WGS 84 / UTM zone 40N\"]");
  // Water (impassable) in a block, no imagery over the top rows and a diagonal; a masked cell's cost
  // may be anything, even NaN.
  std::vector<std::uint8_t> unknown(grid.costs.size(), 0);
  for (int r = 30; r < 38; ++r) {
    for (int c = 50; c < 70; ++c) grid.costs[static_cast<std::size_t>(r) * grid.cols + c] = kInf;
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < grid.cols; ++c) unknown[static_cast<std::size_t>(r) * grid.cols + c] = 1;
  }
  for (int r = 0; r < grid.rows; ++r) unknown[static_cast<std::size_t>(r) * grid.cols + r] = 7;
  grid.costs[5 * grid.cols + 5] = kNaN;  // on the diagonal

  test::TempDir dir;
  Nav2MapSettings settings;
  settings.name = "learned";
  settings.unknown = unknown;
  const Nav2MapInfo info = writeNav2Map(grid, dir.file("nav2/site"), settings);
  CHECK(info.yaml == dir.file("nav2/site/learned.yaml"));
  CHECK(info.image == dir.file("nav2/site/learned.pgm"));
  CHECK(info.levels == dir.file("nav2/site/learned.levels.csv"));
  CHECK(info.lethal == 8 * 20);
  CHECK(info.unknown == 3 * 80 + 57);
  CHECK(info.passable + info.lethal + info.unknown == grid.cells());
  const ReadBack back = checkReadBack(grid, unknown, info);

  // The cost range is the passable cells' own, and its ends get the first and last level.
  double lo = kInf, hi = 0.0;
  std::size_t lo_cell = 0, hi_cell = 0;
  for (std::size_t s = 0; s < grid.costs.size(); ++s) {
    if (unknown[s] || grid.costs[s] == kInf) continue;
    if (grid.costs[s] < lo) lo = grid.costs[s], lo_cell = s;
    if (grid.costs[s] > hi) hi = grid.costs[s], hi_cell = s;
  }
  CHECK(info.lowest == lo);
  CHECK(info.highest == hi);
  CHECK(back.occupancy[lo_cell] == 1);
  CHECK(back.occupancy[hi_cell] == 98);
  CHECK(back.costmap[lo_cell] == 2);    // 1 / 100 * 254
  CHECK(back.costmap[hi_cell] == 248);  // 98 / 100 * 254
  MESSAGE("learned map: costs " << lo << " .. " << hi << " (x" << hi / lo << "), " << info.levels_used
                                << " of 98 levels used by " << info.passable << " passable cells");
  // Log-spaced bins over a smooth cost map of thousands of cells: most levels occur.  (Linear
  // bins of the same map: see below.)
  CHECK(info.levels_used >= 60);

  // The levels file accounts for every cell, and each cell's cost lies within its value's range.
  const std::map<int, LevelLine> levels = readLevels(info.levels);
  CHECK(levels.size() == 98 + 2);
  long long total = 0;
  for (const auto& [value, line] : levels) total += line.cells;
  CHECK(total == grid.cells());
  CHECK(levels.at(100).cells == info.lethal);
  CHECK(levels.at(255).cells == info.unknown);
  for (std::size_t s = 0; s < grid.costs.size(); ++s) {
    if (back.costmap[s] >= 253) continue;
    const LevelLine& line = levels.at(back.occupancy[s]);
    CHECK(grid.costs[s] >= line.lowest);
    CHECK(grid.costs[s] <= line.highest);
  }

  // The YAML says how to read it, in comments map_server skips.
  const std::string yaml = readBytes(info.yaml);
  CHECK(yaml.find("trinary_costmap: false") != std::string::npos);
  CHECK(yaml.find("logarithmic") != std::string::npos);
  CHECK(yaml.find("v = 1 + min(97, floor(98 t))") != std::string::npos);
  CHECK(yaml.find("UTM zone 40N") != std::string::npos);

  // Linear bins keep the order too, with fewer levels where costs span orders of magnitude.
  settings.scale = Nav2CostScale::Linear;
  settings.format = Nav2ImageFormat::Png;
  const Nav2MapInfo linear = writeNav2Map(grid, dir.file("nav2/site"), settings);
  CHECK(linear.image == dir.file("nav2/site/learned.png"));
  checkReadBack(grid, unknown, linear);
  MESSAGE("learned map, linear scale: " << linear.levels_used << " of 98 levels");
  CHECK(linear.levels_used < info.levels_used);
}

TEST_CASE("Nav2 map: costs one bin apart get one level each -- geometric on the log scale, arithmetic on the linear one") {
  // 98 passable costs in a 10 x 10 grid with 2 impassable cells, in scrambled places.
  std::vector<int> order(100);
  std::iota(order.begin(), order.end(), 0);
  Random rng(4);
  for (int i = 99; i > 0; --i) std::swap(order[i], order[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i) + 1))]);
  for (const Nav2CostScale scale : {Nav2CostScale::Logarithmic, Nav2CostScale::Linear}) {
    const bool log_scale = scale == Nav2CostScale::Logarithmic;
    CAPTURE(log_scale);
    std::vector<double> costs(100, kInf);
    for (int k = 0; k < 98; ++k) costs[order[k]] = log_scale ? 0.01 * std::pow(1e6, k / 97.0) : 3.0 + 0.5 * k;
    const CostGrid grid = located(10, 10, costs);
    test::TempDir dir;
    Nav2MapSettings settings;
    settings.scale = scale;
    const Nav2MapInfo info = writeNav2Map(grid, dir.file("out"), settings);
    CHECK(info.levels_used == 98);
    CHECK(info.lethal == 2);
    const ReadBack back = checkReadBack(grid, {}, info);
    for (int k = 0; k < 98; ++k) CHECK(back.occupancy[order[k]] == 1 + k);
  }
}

TEST_CASE("Nav2 map: a fixed cost range gives two tiles one scale, and costs beyond it the end levels") {
  Nav2MapSettings settings;
  settings.lowest = 1.0;
  settings.highest = 1e4;  // four decades: 24.5 levels a decade
  const CostGrid a = located(1, 5, {0.5, 1.0, 10.0, 100.0, 2e4});
  const CostGrid b = located(1, 3, {100.0, 1e4, 1e5}, 0.25, {-12.5 + 5 * 0.25, 40.75});
  test::TempDir dir;
  settings.name = "a";
  const Nav2MapInfo ia = writeNav2Map(a, dir.file("tiles"), settings);
  settings.name = "b";
  const Nav2MapInfo ib = writeNav2Map(b, dir.file("tiles"), settings);
  CHECK(ia.lowest == 1.0);
  CHECK(ia.highest == 1e4);
  const ReadBack ra = checkReadBack(a, {}, ia), rb = checkReadBack(b, {}, ib);
  CHECK(ra.occupancy == std::vector<int>{1, 1, 1 + 24, 1 + 49, 98});  // floor(98 / 4) = 24, floor(98 / 2) = 49
  CHECK(rb.occupancy == std::vector<int>{1 + 49, 98, 98});
}

TEST_CASE("Nav2 map: one passable cost gives level 1, and a map without passable cells has no cost range") {
  test::TempDir dir;
  const CostGrid flat = located(2, 3, {2.0, 2.0, kInf, 2.0, 2.0, 2.0});
  const Nav2MapInfo info = writeNav2Map(flat, dir.file("flat"));
  CHECK(info.levels_used == 1);
  CHECK(checkReadBack(flat, {}, info).occupancy == std::vector<int>{1, 1, 100, 1, 1, 1});

  const CostGrid blocked = located(2, 2, {kInf, kNaN, kInf, kInf});
  Nav2MapSettings settings;
  settings.unknown = {0, 1, 0, 0};
  const Nav2MapInfo none = writeNav2Map(blocked, dir.file("blocked"), settings);
  CHECK(none.levels_used == 0);
  CHECK(none.passable == 0);
  CHECK(std::isnan(none.lowest));
  CHECK(std::isnan(none.highest));
  CHECK(checkReadBack(blocked, settings.unknown, none).occupancy == std::vector<int>{100, -1, 100, 100});
  CHECK(readBytes(none.yaml).find("(no passable cell)") != std::string::npos);
}

TEST_CASE("Nav2 map: bad grids, masks, settings and folders are refused by name, and a failed write leaves the old map") {
  test::TempDir dir;
  const CostGrid good = located(2, 2, {1.0, 2.0, kInf, 4.0});

  CostGrid pixels = good;
  pixels.frame = WorldFrame::unlocated(2, 2);
  CHECK_THROWS_WITH_AS(writeNav2Map(pixels, dir.file("x")),
                       doctest::Contains("give a georeferenced image (GeoTIFF) or a resolution and an origin"), InvalidArgument);
  CostGrid empty;
  empty.frame = WorldFrame::located(0, 0, 1.0, {0.0, 0.0});
  CHECK_THROWS_WITH_AS(writeNav2Map(empty, dir.file("x")), doctest::Contains("a map needs at least one"), InvalidArgument);
  CostGrid short_costs = good;
  short_costs.costs.pop_back();
  CHECK_THROWS_WITH_AS(writeNav2Map(short_costs, dir.file("x")), doctest::Contains("holds 3 costs"), InvalidArgument);
  CostGrid other_frame = good;
  other_frame.frame = WorldFrame::located(4, 1, 1.0, {0.0, 0.0});
  CHECK_THROWS_WITH_AS(writeNav2Map(other_frame, dir.file("x")), doctest::Contains("its world frame 4 x 1"), InvalidArgument);

  Nav2MapSettings settings;
  settings.unknown = {0, 0, 1};
  CHECK_THROWS_WITH_AS(writeNav2Map(good, dir.file("x"), settings),
                       doctest::Contains("the unknown mask has 3 entries; give one per cell (2 x 2 = 4) or none"), InvalidArgument);
  for (const char* name : {"", "../map", "a/b", ".hidden", "my map"}) {
    settings = {};
    settings.name = name;
    CHECK_THROWS_WITH_AS(writeNav2Map(good, dir.file("x"), settings), doctest::Contains("letters, digits"), InvalidArgument);
  }
  settings = {};
  settings.lowest = 0.0;
  CHECK_THROWS_WITH_AS(writeNav2Map(good, dir.file("x"), settings), doctest::Contains("lowest = 0 must be a finite cost > 0"),
                       InvalidArgument);
  settings.lowest = 5.0;
  settings.highest = 5.0;
  CHECK_THROWS_WITH_AS(writeNav2Map(good, dir.file("x"), settings), doctest::Contains("must be below highest = 5"),
                       InvalidArgument);
  settings.highest = kNaN;  // the map's own highest, 4, is below it
  CHECK_THROWS_WITH_AS(writeNav2Map(good, dir.file("x"), settings), doctest::Contains("is empty; give both"), InvalidArgument);

  for (const double bad : {kNaN, 0.0, -1.0, -kInf}) {
    CostGrid grid = good;
    grid.costs[3] = bad;
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(writeNav2Map(grid, dir.file("x")), doctest::Contains("cell (row 1, col 1) has cost"), DataError);
    settings = {};
    settings.unknown = {0, 0, 0, 1};  // masked: its cost is not used
    CHECK_NOTHROW(writeNav2Map(grid, dir.file("masked"), settings));
  }
  CHECK(!std::filesystem::exists(dir.file("x")));  // refused before anything was written

  // A folder that cannot be made: its parent is a file.
  { std::ofstream(dir.file("file")) << "not a folder"; }
  CHECK_THROWS_WITH_AS(writeNav2Map(good, dir.file("file/maps")), doctest::Contains("cannot create the folder"), Error);

  // A write that fails leaves the map as it was: here the image's name is taken by a folder.
  const Nav2MapInfo old = writeNav2Map(good, dir.file("kept"));
  const std::string old_yaml = readBytes(old.yaml), old_levels = readBytes(old.levels);
  settings = {};
  settings.format = Nav2ImageFormat::Png;
  std::filesystem::create_directories(dir.file("kept/map.png/inside"));
  CostGrid changed = good;
  changed.frame = WorldFrame::located(2, 2, 2.0, {1.0, 1.0});
  CHECK_THROWS_AS(writeNav2Map(changed, dir.file("kept"), settings), Error);
  CHECK(readBytes(old.yaml) == old_yaml);
  CHECK(readBytes(old.levels) == old_levels);
}

TEST_CASE("Nav2 map: lethal_above and a lethal mask make obstacles of dear and marked cells, and the YAML states the rule") {
  test::TempDir dir;
  const CostGrid grid = located(2, 3, {1.0, 2.0, 4.0, 8.0, kInf, 16.0});
  Nav2MapSettings settings;
  settings.lethal_above = 6.0;
  settings.lethal = {1, 0, 0, 0, 0, 0};
  const Nav2MapInfo info = writeNav2Map(grid, dir.file("lethal"), settings);
  const OccupancyGrid map = loadNav2Map(info.yaml);
  std::vector<int> occupancy;
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      const WorldPoint p = grid.frame.cellCentre(r, c);
      occupancy.push_back(occupancyAt(map, p.x, p.y));
    }
  }
  // Cell 0 (cost 1, masked), 3 (8) and 5 (16, above 6) lethal; 4 impassable; 1 and 2 graded 1 and 98.
  CHECK(occupancy == std::vector<int>{100, 1, 98, 100, 100, 100});
  CHECK(info.lethal == 4);
  CHECK(info.lethal_by_cost == 2);
  CHECK(info.lethal_by_mask == 1);
  CHECK(info.lowest == 2.0);   // the graded range: the costs at or below lethal_above, unmasked
  CHECK(info.highest == 4.0);
  const std::string yaml = readBytes(info.yaml);
  CHECK(yaml.find("or a cost above 6 (lethal_above), or marked by the lethal mask; cells: 4 (2 by their cost, 1 by the mask)") !=
        std::string::npos);

  const Nav2MapInfo plain = writeNav2Map(located(1, 2, {1.0, 2.0}), dir.file("plain"));
  CHECK(plain.lethal == 0);
  CHECK(readBytes(plain.yaml).find("learned costs are finite") != std::string::npos);

  Nav2MapSettings bad;
  bad.lethal = {1, 0};
  CHECK_THROWS_WITH_AS(writeNav2Map(grid, dir.file("bad"), bad), doctest::Contains("the lethal mask has 2 entries"),
                       InvalidArgument);
  bad.lethal.clear();
  bad.lethal_above = 0.0;
  CHECK_THROWS_WITH_AS(writeNav2Map(grid, dir.file("bad"), bad), doctest::Contains("lethal_above = 0 must be a cost > 0"),
                       InvalidArgument);
}

TEST_CASE("Nav2 map: a local origin writes [0, 0, 0] and records the offset, and a geographic frame is refused with gdalwarp") {
  test::TempDir dir;
  CostGrid grid = located(2, 2, {1.0, 2.0, 3.0, 4.0}, 0.5, {320000.0, 2777262.5});
  Nav2MapSettings settings;
  settings.local_origin = true;
  const Nav2MapInfo info = writeNav2Map(grid, dir.file("local"), settings);
  const OccupancyGrid map = loadNav2Map(info.yaml);
  CHECK(map.origin_x == 0.0);
  CHECK(map.origin_y == 0.0);
  CHECK(info.offset.x == 320000.0);
  CHECK(info.offset.y == 2777262.5);
  CHECK(readBytes(info.yaml).find("shifted by (320000, 2777262.5)") != std::string::npos);
  // Cell (0, 0), the top-left, lies at map point (0.25, 0.75) = world point minus the offset.
  const WorldPoint top_left = grid.frame.cellCentre(0, 0);
  CHECK(occupancyAt(map, top_left.x - info.offset.x, top_left.y - info.offset.y) == 1);

  grid.frame = WorldFrame::located(2, 2, 4e-5, {55.2, 25.1}, "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\","
                                                                "6378137,298.257223563]],PRIMEM[\"Greenwich\",0],"
                                                                "UNIT[\"degree\",0.0174532925199433]]");
  CHECK_THROWS_WITH_AS(writeNav2Map(grid, dir.file("degrees")),
                       doctest::Contains("geographic (longitude and latitude in degrees)"), InvalidArgument);
  CHECK_THROWS_WITH_AS(writeNav2Map(grid, dir.file("degrees")), doctest::Contains("gdalwarp -t_srs EPSG:32640"),
                       InvalidArgument);
  CHECK_FALSE(std::filesystem::exists(dir.file("degrees")));
}
