// Nav2 export: a learned cost map written as a map_server map (a YAML file and an 8-bit grey image
// in mode raw), so that Nav2's static costmap layer plans on the learned costs.
//
//   mmp::CostGrid grid = model.costs(image);                      // with a world frame (GeoTIFF, or
//   grid.frame = mmp::WorldFrame::located(grid.rows, grid.cols, 0.5, {x0, y0});   // one given)
//   const mmp::Nav2MapInfo info = mmp::writeNav2Map(grid, "maps/site");   // maps/site/map.yaml, .pgm
//
// What Nav2 does with the files (sources read for this, navigation2 on GitHub, 2025):
//   - nav2_map_server/src/map_io.cpp, loadMapYaml: `image` relative to the YAML file's folder;
//     resolution, origin [x, y, yaw] (3 values), free_thresh, occupied_thresh and negate are all
//     required, mode optional (trinary).  loadMapFromFile, MapMode::Raw: a pixel's grey level g
//     (0..255; the mean of R, G, B) is the occupancy value itself if 0 <= g <= 100, and unknown (-1)
//     otherwise; negate and the thresholds play no part.  Image row y becomes map row height - 1 - y:
//     image row 0 is the top (largest y), and origin is the lower-left corner of the lower-left
//     pixel -- WorldFrame's convention, so no flip and no shift.  map_saver writes unknown as 255 in
//     raw mode (tryWriteMapToFile), as done here.
//   - nav2_costmap_2d/plugins/static_layer.cpp, interpretValue (the byte of the occupancy value, so
//     -1 arrives as 255): unknown_cost_value (default 255) -> NO_INFORMATION (255) if
//     track_unknown_space, else FREE_SPACE; inscribed_obstacle_cost_value (default 99) ->
//     INSCRIBED_INFLATED_OBSTACLE (253, navigation2 PR #5781; before it 99 was graded like the
//     rest); >= lethal_cost_threshold (default 100) -> LETHAL_OBSTACLE (254); otherwise FREE_SPACE
//     if trinary_costmap (the DEFAULT, true), else value / lethal_cost_threshold * 254, truncated.
//     Defaults from nav2_costmap_2d/src/costmap_2d_ros.cpp and docs.nav2.org "Costmap 2D".
//   - cost_values.hpp: costmap values 0 free, 1..252 graded, 253 inscribed, 254 lethal, 255 unknown.
//
// The mapping (pixel value v of a cell of cost c):
//   - passable (0 < c < +inf): v in 1..98, non-decreasing in c.  With t the cost's place in the
//     range [lo, hi] -- t = (ln c - ln lo) / (ln hi - ln lo) (Logarithmic, the default) or
//     (c - lo) / (hi - lo) (Linear), c clamped to [lo, hi] -- v = 1 + min(97, floor(98 t)): 98 equal
//     bins of t, the cheapest cost at 1, the dearest at 98.  Costs whose t differ by 1/98 or more get
//     different values.  lo, hi are the smallest and largest passable cost of the map unless the
//     settings fix them (do, to give the tiles of one area the same scale).  lo == hi: every
//     passable cell gets 1.  With trinary_costmap: false the static layer gives v * 2.54 truncated:
//     2..248, all distinct, below inscribed (253).
//     Why not 0: a learned cost is > 0 everywhere, and costmap_2d's 0 (FREE_SPACE) means "nothing
//     keeps the robot from going there"; the cheapest learned terrain stays graded (costmap 2) like
//     the rest.  Why not 99: Nav2 reads it as inscribed (above).  So 98 levels, not 100.
//     Why logarithmic: learned costs (exp(w . f)) span several orders of magnitude, and equal bins of
//     cost would put almost every cell into the lowest few values; equal bins of log cost keep the
//     same relative resolution (a factor (hi / lo)^(1/98) a level) across the range.  Neither scale
//     makes Nav2's penalty proportional to the learned cost: 8 bits cannot, over such a range.
//     Measured: a map spanning x3700 (test_nav2_map's random model) uses 93 of the 98 values on the
//     log scale, 42 on the linear one; the demo model's maps (configs/demo.yaml, 128 x 128 cells,
//     costs spanning x37..x46) use 96..98 on either, with 40..53 effective levels (exp of the
//     entropy of cells over values) -- there the scales are about even.
//   - impassable (c = +inf): 100, lethal (254) under the default lethal_cost_threshold; so are the
//     cells above settings.lethal_above and those of settings.lethal (a mask).  Learned costs are
//     finite: without either, a learned map's only lethal cells are those a model makes impassable
//     (none, for the linear, exponential, LEARCH and network models) -- dear terrain is graded, not
//     an obstacle.
//   - unknown (the mask's non-zero cells, whatever their cost): 255, unknown to map_server; the
//     costmap keeps it unknown only with track_unknown_space: true (default false: free).
//   Nav2 must be configured with trinary_costmap: false for the grades to survive: with the default
//   every value below 100 becomes free space.  The YAML says so in its comments.
//
// Files, in `dir` (created if missing): <name>.yaml; <name>.pgm (binary P5) or <name>.png, 8-bit
// grey, cols x rows; <name>.levels.csv, one line per value (1..98, 100, 255): the cost interval
// that maps to it, the cells that have it and the smallest and largest of their costs -- to map a
// value back to costs.  The YAML's comments repeat the range, the form and the formula.  Each file
// is replaced atomically (AtomicFile); the image and the levels first, the YAML last, so a failure
// leaves the YAML (what map_server opens) old -- though the image beside it may be new already.
//
// Nav2 map YAML has no CRS: the frame's WKT, if any, goes into a comment.
#pragma once

#include <mmp/planning/cost_grid.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mmp {

enum class Nav2ImageFormat { Pgm, Png };
enum class Nav2CostScale { Logarithmic, Linear };

/// The occupancy values the export writes (see the file comment).
constexpr int kNav2FirstGraded = 1;     ///< the cheapest passable cost
constexpr int kNav2LastGraded = 98;     ///< the dearest passable cost (99 is Nav2's inscribed value)
constexpr int kNav2Lethal = 100;        ///< impassable (+inf)
constexpr int kNav2Unknown = 255;       ///< no data (the unknown mask)

struct Nav2MapSettings {
  /// The files' stem: <name>.yaml, <name>.pgm / .png, <name>.levels.csv.  Letters, digits, '.',
  /// '_', '-'; not starting with '.'.
  std::string name = "map";
  Nav2ImageFormat format = Nav2ImageFormat::Pgm;
  Nav2CostScale scale = Nav2CostScale::Logarithmic;
  /// The cost range [lowest, highest] spread over 1..98 (costs outside are clamped); NaN: the map's
  /// own smallest / largest passable cost.  Finite and > 0 when given, lowest < highest if both.
  double lowest = std::numeric_limits<double>::quiet_NaN();
  double highest = std::numeric_limits<double>::quiet_NaN();
  /// Empty, or one byte a cell (rows * cols, row-major): non-zero marks a cell with no data, written
  /// unknown whatever its cost (NaN allowed there).
  std::vector<std::uint8_t> unknown;
  /// Learned costs are finite, so without these a learned map has no lethal cell but the impassable
  /// (+inf) ones: passable cells whose cost is above lethal_above are written lethal (100), and so are
  /// the cells the lethal mask marks (empty, or one byte a cell: non-zero = lethal, e.g. from a label
  /// mask of water).  lethal_above > 0 (+inf: none); the grading 1..98 spans the costs at or below it.
  double lethal_above = std::numeric_limits<double>::infinity();
  std::vector<std::uint8_t> lethal;
  /// Write origin [0, 0, 0] and record the frame's origin in the YAML's comments (and
  /// Nav2MapInfo::offset): for projected coordinates such as UTM (320000, 2777262), which float32
  /// consumers (RViz) hold only to a few decimetres.  The robot's map frame is then the offset one.
  bool local_origin = false;
};

/// What writeNav2Map wrote.
struct Nav2MapInfo {
  std::string yaml, image, levels;  ///< the paths written
  int levels_used = 0;              ///< distinct graded values (1..98) that occur
  /// The cost range mapped onto 1..98 (the settings' or the map's); NaN if neither gives one (no
  /// passable cell).
  double lowest = std::numeric_limits<double>::quiet_NaN();
  double highest = std::numeric_limits<double>::quiet_NaN();
  long long passable = 0, lethal = 0, unknown = 0;  ///< cells written graded, 100 and 255
  long long lethal_by_cost = 0, lethal_by_mask = 0;   ///< of the lethal cells: above lethal_above, marked by the mask
  WorldPoint origin;  ///< the origin written: the frame's, or (0, 0) with local_origin
  WorldPoint offset;  ///< the frame's origin minus the origin written: (0, 0) unless local_origin
};

/*!
    requires
        - grid.rows, grid.cols >= 1, grid.costs.size() == rows * cols
        - grid.frame.hasWorld() (resolution > 0), with grid.rows x grid.cols cells, in a projected
          CRS or none (not geographic: Nav2 takes the resolution and origin as metres)
        - every cell not masked unknown has a cost > 0 (+inf: impassable)
        - settings as documented on Nav2MapSettings
    ensures
        - writes the map_server map of the file comment into dir (made if missing) and says what it
          wrote
        - throws mmp::InvalidArgument for a grid without a world frame, in a geographic CRS (naming
          the gdalwarp command that reprojects the image) or of no cells, a mask of the wrong size or
          bad settings; mmp::DataError naming the first cell (row, col) whose cost is
          NaN or <= 0; mmp::Error naming the path if the folder cannot be made or a file written
          (files not yet replaced are then untouched)
!*/
Nav2MapInfo writeNav2Map(const CostGrid& grid, const std::string& dir, const Nav2MapSettings& settings = {});

}  // namespace mmp
