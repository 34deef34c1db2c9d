// `mmp plan` and `mmp costmap`: use a saved model on any image (CostModel: the model carries its
// feature settings and scaling, so the image gets exactly the training transform).
//   mmp plan --model M --image I --start X,Y --goal X,Y [--world] [--planner P [--budget S]] [--out path.csv]
//            [--png plan.png [--png-underlay image|costs]] [--vehicle dubins|reeds-shepp --turning-radius R
//            [--start-heading D] [--goal-heading D]]
//   mmp costmap --model M --image I [--png costmap.png] [--raw costmap.tif or DIR/] [--nav2 DIR] [--tile-cells N] [--threads N]
// Both take [--resolution R --origin X,Y [--crs C]] for an image without georeference.
#include "commands.hpp"
#include <mmp/frontend/demonstration_file.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/float_tiff.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/ground_scale.hpp>
#include <mmp/maps/lethal_rules.hpp>
#include <mmp/maps/nav2_map.hpp>
#include "output_folder.hpp"
#include "processes.hpp"
#include <mmp/maps/render.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/ompl_planning.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

namespace mmp::tools {
namespace {

// Where a plain image lies (--resolution, --origin, --crs); files with a georeference bring their own.
struct FrameOptions {
  double resolution = 0.0;
  std::string origin, crs;

  FrameSettings settings() const {
    FrameSettings frame;
    if ((resolution != 0.0) != !origin.empty()) throw InvalidArgument("give --resolution and --origin together");
    if (!crs.empty() && origin.empty()) throw InvalidArgument("--crs needs --resolution and --origin");
    frame.resolution = resolution;
    if (!origin.empty()) {
      const auto [x, y] = parsePair(origin, "--origin", "X,Y: the world coordinates of the image's lower-left corner");
      frame.origin = {x, y};
    }
    frame.crs = crs;
    return frame;
  }

  // Runs f (which reads the image with settings()); a frame the library refuses ("world frame: ...")
  // is reported against the flags that gave it.
  template <class F>
  auto named(F f) const -> decltype(f()) {
    try {
      return f();
    } catch (const InvalidArgument& e) {
      if (std::string(e.what()).rfind("world frame: ", 0) != 0) throw;
      throw InvalidArgument("--resolution " + numberText(resolution) + " --origin " + origin + ": " + e.what());
    }
  }

  void add(CLI::App* cmd) {
    cmd->add_option("--resolution", resolution, "world units (m) per pixel, for an image without georeference");
    cmd->add_option("--origin", origin, "X,Y: world coordinates of such an image's lower-left corner");
    cmd->add_option("--crs", crs, "its coordinate reference system (e.g. EPSG:32640), optional");
  }

  // "X,Y" -> two finite numbers.
  static std::pair<double, double> parsePair(const std::string& text, const std::string& flag, const std::string& what) {
    const std::size_t comma = text.find(',');
    double x = 0.0, y = 0.0;
    bool ok = comma != std::string::npos;
    if (ok) {
      try {
        std::size_t used_x = 0, used_y = 0;
        x = std::stod(text.substr(0, comma), &used_x);
        y = std::stod(text.substr(comma + 1), &used_y);
        ok = used_x == comma && used_y == text.size() - comma - 1 && std::isfinite(x) && std::isfinite(y);
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) throw InvalidArgument(flag + " '" + text + "': expected " + what);
    return {x, y};
  }
};

void printUnknown(long long cells) {
  if (cells == 0) return;
  std::printf("%lld cells hold pixels without data in the image (nodata, mask or alpha 0): unknown -- +inf (nodata) "
              "in --raw, 255 in --nav2, impassable to plans\n", cells);
}

// How much of the image the model's training statistics cover; a warning on stderr when little.
void printFamiliarity(const Familiarity& f) {
  if (f.warns()) std::fprintf(stderr, "warning: %s\n", f.describe().c_str());
  else std::printf("%s\n", f.describe().c_str());
}

// Pixels right of and below the last whole cell have no cell: say so (the grid's lower-left corner,
// the Nav2 origin, then lies that many pixels above the image's).
void printDropped(int width, int height, int k) {
  const int right = width % k, bottom = height % k;
  if (right == 0 && bottom == 0) return;
  std::printf("note: the last %d px column(s) and %d px row(s) fill no whole cell of %d px and have no cost; the "
              "grid covers the image's top-left %d x %d px, its origin %d px above the image's lower-left corner\n",
              right, bottom, k, width - right, height - bottom, bottom);
}

// A saved model on an image: the image and its cost grid, in the image's frame.
struct ModelOnImage {
  cv::Mat image;
  CostGrid grid;
  std::string source;  ///< the model, as its messages name it
};

// Says how the image meets a model whose features are in metres (features.ground_resolution); returns
// the factor the image is resampled by (CostModel::groundFactorOf).
double printGroundScale(const CostModel& model, double mpp, const std::string& image_path) {
  const double model_mpp = model.features().settings().ground_resolution, factor = model.groundFactorOf(mpp);
  if (factor != 1.0) {
    std::printf("note: '%s' is at %s m per pixel and the model's imagery at %s m: resampled to it for the features "
                "(the cost map stays on the image's grid)\n",
                image_path.c_str(), numberText(mpp).c_str(), numberText(model_mpp).c_str());
  } else if (model_mpp > 0.0 && mpp == 0.0) {
    std::printf("note: the model's imagery is at %s m per pixel and '%s' has no resolution in metres: taken as the "
                "same (give --resolution to have it resampled)\n",
                numberText(model_mpp).c_str(), image_path.c_str());
  }
  return factor;
}

ModelOnImage applyModel(const std::string& model_path, const std::string& image_path, const FrameSettings& frame,
                        const TileSettings& tiles = {}) {
  const CostModel model = CostModel::load(model_path);
  GeoImage image = loadGeoImage(image_path, frame);
  ModelOnImage m;
  try {
    m.grid = model.costs(image, tiles);
  } catch (const DataError& e) {
    throw DataError(std::string(e.what()) + " (on '" + image_path + "')");
  }
  if (!image.note.empty()) std::printf("note: '%s': %s\n", image_path.c_str(), image.note.c_str());
  m.image = image.pixels;
  m.source = model.source();
  const double factor = printGroundScale(model, metresPerPixel(image.frame), image_path);
  printFamiliarity(factor == 1.0 ? model.familiarity(image.pixels, image.valid)
                                 : model.familiarity(resampleToGround(image.pixels, factor, model.features().settings().upsample),
                                                     image.valid.empty() ? image.valid : resampleToGround(image.valid, factor, "none")));
  printDropped(m.image.cols, m.image.rows, m.grid.cell_size);
  return m;
}

// "X,Y" in pixels, or in world coordinates of the image's frame -> cell index.
int parsePoint(const std::string& text, const std::string& flag, bool world, const std::string& image,
               const CostGrid& grid) {
  const auto [x, y] = FrameOptions::parsePair(
      text, flag, world ? "X,Y in world coordinates of the image's frame" : "X,Y in pixels, e.g. 120,340");
  if (!world) {
    const int cell = grid.cellAt(x, y);
    if (cell < 0) {
      throw InvalidArgument(flag + " " + text + " lies outside the image's whole cells (0 <= x < " +
                            std::to_string(grid.cols * grid.cell_size) + ", 0 <= y < " +
                            std::to_string(grid.rows * grid.cell_size) + ")");
    }
    return cell;
  }
  if (!grid.frame.hasWorld()) {
    throw InvalidArgument(flag + " " + text + " is in world coordinates, but '" + image +
                          "' has no world frame (no georeference): give --resolution and --origin, or the point in "
                          "pixels without --world");
  }
  if (const std::string fault = geographicFault(grid.frame, image); !fault.empty()) {
    throw InvalidArgument(flag + " " + text + " (--world): '" + image + "': " + fault);
  }
  const int cell = grid.cellAt(WorldPoint{x, y});
  if (cell < 0) {
    throw InvalidArgument(flag + " " + text + " lies outside the image's whole cells (" + grid.frame.extentText() + ")");
  }
  return cell;
}

struct PlanOptions {
  std::string model, image, start, goal, out, png, png_underlay = "image", planner = "astar";
  double budget = 1.0;
  bool world = false;
  FrameOptions frame;
  std::string vehicle = "point";
  double turning_radius = 0.0;  ///< world units of the image's frame, pixels without one
  std::optional<double> start_heading, goal_heading;  ///< degrees
};

// --png: the path over the image or its cost map, with a legend (renderPlan).
void writePlanPicture(const PlanOptions& o, const ModelOnImage& m, const std::vector<CellPoint>& path,
                      const std::string& label) {
  PlanPictureStyle style;
  style.underlay = o.png_underlay == "costs" ? PlanUnderlay::Costs : PlanUnderlay::Image;
  style.label = label;
  writeImage(o.png, renderPlan(m.image, m.grid, path, style));
  std::printf("wrote %s\n", o.png.c_str());
}

// An OMPL planner between the centres of the start and goal cells; its waypoints go to --out.
void runOmplPlan(const PlanOptions& o, const ModelOnImage& m, int start, int goal) {
  OmplSettings settings;
  settings.vehicle = parseVehicleName(o.vehicle);
  const bool car = settings.vehicle != Vehicle::Point;
  constexpr double kDegree = 3.14159265358979323846 / 180.0;  // radians
  if (car) {  // the options parser has checked that the radius (> 0) and any heading come with a car
    settings.turning_radius = m.grid.cellsOfLength(o.turning_radius);
    if (!(settings.turning_radius >= OmplSettings::kMinTurningRadius && settings.turning_radius <= OmplSettings::kMaxTurningRadius)) {
      const double per_cell = 1.0 / m.grid.cellsOfLength(1.0);  // world units or pixels a cell
      const std::string unit = m.grid.frame.hasWorld() ? " world units" : " px";
      throw InvalidArgument("--turning-radius " + numberText(o.turning_radius) + " is " + numberText(settings.turning_radius) +
                            " cells of this grid: give " + numberText(OmplSettings::kMinTurningRadius * per_cell) + " to " +
                            numberText(OmplSettings::kMaxTurningRadius * per_cell) + unit + " (" +
                            numberText(OmplSettings::kMinTurningRadius) + " to " + numberText(OmplSettings::kMaxTurningRadius) +
                            " cells: a tighter turn lies within one step of the motion check; a vehicle that turns on "
                            "the spot is --vehicle point)");
    }
    if (o.start_heading) settings.start_heading = *o.start_heading * kDegree;
    if (o.goal_heading) settings.goal_heading = *o.goal_heading * kDegree;
  }
  try {
    settings.planner = parsePlannerName(car && o.planner == "astar" ? "rrtstar" : o.planner);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("--planner: ") + e.what() + "; or astar, the exact grid A*");
  }
  if (!(o.budget > 0.0 && o.budget <= OmplSettings::kMaxBudgetSeconds)) {  // before the clock could overflow
    throw InvalidArgument("--budget " + numberText(o.budget) + " is out of range: give seconds > 0 and at most " +
                          numberText(OmplSettings::kMaxBudgetSeconds) + " (a week)");
  }
  settings.budget_seconds = o.budget;
  const int cols = m.grid.cols;
  const std::vector<CellPoint> ends = cellCentres({start, goal}, cols);
  const OmplResult plan = planOmpl(m.grid, ends[0], ends[1], settings);
  if (plan.status != OmplStatus::Success) {
    throw DataError("no plan from " + o.start + " to " + o.goal + " by " + plannerName(settings.planner) + " in " +
                    numberText(o.budget) + " s (--budget): " + describe(plan.status) + (plan.message.empty() ? "" : ", " + plan.message));
  }
  GridPlanner astar(m.grid.rows, cols);
  const PlanResult exact = astar.plan(m.grid.costs, start, goal);
  std::printf("plan (%s, %.3g s): %zu waypoints, cost %.4g under the model = %.4f x the grid A* optimum (%.4g)\n",
              plannerName(settings.planner), plan.seconds, plan.path.size(), plan.cost, plan.cost / exact.cost, exact.cost);
  if (car) {
    std::printf("vehicle %s, turning radius %.4g cells, heading %.1f deg at the start and %.1f at the goal\n", o.vehicle.c_str(),
                settings.turning_radius, plan.headings.front() / kDegree, plan.headings.back() / kDegree);
  }
  if (!o.out.empty()) {
    writePathCsv(o.out, {plan.path}, m.grid.cell_size, m.grid.frame,
                 car ? std::vector<std::vector<double>>{plan.headings} : std::vector<std::vector<double>>{});
    std::printf("wrote %s\n", o.out.c_str());
  }
  if (!o.png.empty()) writePlanPicture(o, m, plan.path, std::string(plannerName(settings.planner)) + " plan");
}

void runPlan(const PlanOptions& o) {
  const ModelOnImage m = o.frame.named([&] { return applyModel(o.model, o.image, o.frame.settings()); });
  printUnknown(static_cast<long long>(std::count_if(m.grid.unknown.begin(), m.grid.unknown.end(), [](auto u) { return u != 0; })));
  const int start = parsePoint(o.start, "--start", o.world, o.image, m.grid);
  const int goal = parsePoint(o.goal, "--goal", o.world, o.image, m.grid);
  if (o.planner != "astar" || o.vehicle != "point") return runOmplPlan(o, m, start, goal);
  GridPlanner planner(m.grid.rows, m.grid.cols);
  const PlanResult plan = planner.plan(m.grid.costs, start, goal);
  if (plan.status != PlanStatus::Success) throw DataError("no plan from " + o.start + " to " + o.goal + ": " + plan.message);
  const int k = m.grid.cell_size;
  std::printf("plan: %zu cells, cost %.4g under the model, %ld expansions\n", plan.path.size(), plan.cost, plan.expansions);
  if (m.grid.frame.hasWorld()) {
    const int cols = m.grid.cols;
    const WorldPoint a = m.grid.frame.cellCentre(plan.path.front() / cols, plan.path.front() % cols);
    const WorldPoint b = m.grid.frame.cellCentre(plan.path.back() / cols, plan.path.back() % cols);
    std::printf("from world (%.3f, %.3f) to (%.3f, %.3f), cells of %.4g world units\n", a.x, a.y, b.x, b.y,
                m.grid.frame.resolution);
  }
  if (!o.out.empty()) {
    writePathCsv(o.out, {plan.path}, m.grid.cols, k, m.grid.frame);
    std::printf("wrote %s\n", o.out.c_str());
  }
  if (!o.png.empty()) writePlanPicture(o, m, cellCentres(plan.path, m.grid.cols), "A* plan");
}

struct CostmapOptions {
  std::string model, image, png, raw, nav2, nav2_scale = "log", nav2_origin = "world", lethal_mask;
  double lethal_above = INFINITY, lethal_quantile = NAN;
  std::vector<int> lethal_values;
  TileSettings tiles;
  FrameOptions frame;
  RegionOptions region;  // --raw DIR/: processes.hpp
};

void runNav2(const CostmapOptions& o, const ModelOnImage& m) {
  if (!m.grid.frame.hasWorld()) {
    throw InvalidArgument("--nav2: '" + o.image + "' has no world frame (no georeference), and a Nav2 map needs one: "
                          "give a GeoTIFF, or --resolution (world units per pixel) and --origin X,Y (its lower-left corner)");
  }
  if (const std::string fault = geographicFault(m.grid.frame, o.image); !fault.empty()) {
    throw InvalidArgument("--nav2: '" + o.image + "': " + fault);
  }
  Nav2MapSettings nav2;
  nav2.scale = o.nav2_scale == "linear" ? Nav2CostScale::Linear : Nav2CostScale::Logarithmic;
  nav2.unknown = m.grid.unknown;  // no data in the image: 255
  nav2.lethal_above = std::isnan(o.lethal_quantile) ? o.lethal_above : passableCostQuantile(m.grid.costs, o.lethal_quantile);
  if (!o.lethal_mask.empty()) {
    nav2.lethal = lethalCellsFromMask(o.lethal_mask, m.grid, m.image.cols, m.image.rows, o.lethal_values);
  }
  nav2.local_origin = o.nav2_origin == "local";
  OutputFolder folder(o.nav2);  // all old or all new; a folder mmp did not write is refused
  const Nav2MapInfo info = writeNav2Map(m.grid, folder.file(""), nav2);
  folder.commit();
  const std::string dir = folder.path() + "/";
  std::printf("wrote %smap.yaml, map.pgm and map.levels.csv (Nav2 map_server, mode raw: %d of 98 graded levels used "
              "on the %s scale; set trinary_costmap: false in Nav2)\n",
              dir.c_str(), info.levels_used, o.nav2_scale.c_str());
  const std::string by_cost = std::isfinite(nav2.lethal_above)
                                  ? std::to_string(info.lethal_by_cost) + " costing more than " + numberText(nav2.lethal_above)
                                  : "none by cost (no --lethal-above or --lethal-quantile)";
  std::printf("lethal cells (100): %lld -- %lld impassable, %s, %lld marked by --lethal-mask\n", info.lethal,
              info.lethal - info.lethal_by_cost - info.lethal_by_mask, by_cost.c_str(), info.lethal_by_mask);
  if (info.lethal == 0) {
    std::printf("note: learned costs are finite, so the map has no obstacle; mark some with --lethal-above COST, "
                "--lethal-quantile Q or --lethal-mask FILE\n");
  }
  if (nav2.local_origin) {
    std::printf("origin [0, 0]: the map frame is the image's CRS shifted by (%s, %s) (recorded in map.yaml)\n",
                numberText(info.offset.x).c_str(), numberText(info.offset.y).c_str());
  } else if (std::max(std::abs(info.origin.x), std::abs(info.origin.y)) > 1e5) {
    std::printf("note: origin (%s, %s) is far from 0; float32 consumers (RViz) hold it only to decimetres: "
                "--nav2-origin local writes [0, 0] and records the offset\n",
                numberText(info.origin.x).c_str(), numberText(info.origin.y).c_str());
  }
}

void printRaw(const std::string& raw, const WorldFrame& frame) {
  std::printf("wrote %s (32-bit float %s, one value per cell)\n", raw.c_str(),
              frame.hasWorld() ? "GeoTIFF" : "TIFF without world frame");
}

void runCostmap(const CostmapOptions& o) {
  if (isRegionOutput(o.raw)) {  // a region, window by window on the job's processes: processes.hpp
    return o.frame.named([&] {
      runRegionCostmap({o.model, o.image, o.raw, o.frame.settings(), o.tiles, o.region, !o.png.empty(), !o.nav2.empty()});
    });
  }
  const CostModel model = CostModel::load(o.model);
  const double mpp = metresPerPixel(o.frame.named([&] { return ImageRows(o.image, o.frame.settings()); }).frame());
  if (o.png.empty() && o.nav2.empty() && model.groundFactorOf(mpp) == 1.0) {  // the raw costs alone: streamed band by
    printGroundScale(model, mpp, o.image);                                       // band, for images larger than memory
    std::optional<ColourStatistics> colours;  // a network that standardises colours: a first pass for them
    if (model.needsColourStatistics()) {
      ImageRows first = o.frame.named([&] { return ImageRows(o.image, o.frame.settings()); });
      colours = colourStatistics(first);
    }
    std::optional<ImageFeatureStatistics> statistics;  // features standardised per image: a first pass for them
    if (model.needsFeatureStatistics()) {
      ImageRows first = o.frame.named([&] { return ImageRows(o.image, o.frame.settings()); });
      statistics = featureStatistics(model, first, o.tiles);
    }
    if (!model.domain().empty()) {  // a pass for the share of cells unlike the training cells
      ImageRows first = o.frame.named([&] { return ImageRows(o.image, o.frame.settings()); });
      printFamiliarity(familiarity(model, first));
    }
    ImageRows image = o.frame.named([&] { return ImageRows(o.image, o.frame.settings()); });
    if (!image.note().empty()) std::printf("note: '%s': %s\n", o.image.c_str(), image.note().c_str());
    printDropped(image.cols(), image.rows(), model.features().settings().cell_size);
    CostRasterInfo info;
    try {
      info = writeCostRaster(model, image, o.raw, o.tiles, {}, colours ? &*colours : nullptr,
                             statistics ? &*statistics : nullptr);
    } catch (const DataError& e) {
      throw DataError(std::string(e.what()) + " (on '" + o.image + "')");
    }
    std::printf("cost map: %d x %d cells of %d px, costs in [%.4g, %.4g]\n", info.frame.rows, info.frame.cols,
                model.features().settings().cell_size, info.lowest, info.highest);
    printUnknown(info.unknown);
    printRaw(o.raw, info.frame);
    return;
  }
  const ModelOnImage m = o.frame.named([&] { return applyModel(o.model, o.image, o.frame.settings(), o.tiles); });
  std::vector<float> raw_values;  // checked before anything is written
  if (!o.raw.empty()) raw_values = rasterCosts(m.grid.costs.data(), m.grid.costs.size(), m.grid.cols, 0, m.source);
  double lo = INFINITY, hi = 0.0;
  for (double c : m.grid.costs) {
    if (std::isfinite(c)) lo = std::min(lo, c), hi = std::max(hi, c);
  }
  std::printf("cost map: %d x %d cells of %d px, costs in [%.4g, %.4g]\n", m.grid.rows, m.grid.cols, m.grid.cell_size,
              lo, hi);
  printUnknown(static_cast<long long>(std::count_if(m.grid.unknown.begin(), m.grid.unknown.end(), [](auto u) { return u != 0; })));
  if (!o.png.empty()) {
    CostMapStyle style;
    style.pixels_per_cell = m.grid.cell_size;
    writeImage(o.png, renderCostMap(m.grid.costs, m.grid.rows, m.grid.cols, style));
    std::printf("wrote %s\n", o.png.c_str());
  }
  if (!o.nav2.empty()) runNav2(o, m);
  if (!o.raw.empty()) {
    FloatTiffWriter raw(o.raw, m.grid.rows, m.grid.cols);
    raw.write(raw_values.data(), m.grid.rows);
    raw.georeference(m.grid.frame);
    raw.finish();
    printRaw(o.raw, m.grid.frame);
  }
}

}  // namespace

void addPlanCommand(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand("plan", "Plan a path on an image with a saved model (A* on the learned cost map)");
  cmd->add_option("--model", o->model, "model file written by mmp train")->required();
  cmd->add_option("--image", o->image, "image (GeoTIFF, PNG, JPEG, TIFF or any raster GDAL reads)")->required();
  cmd->add_option("--start", o->start, "start X,Y in pixels (world coordinates with --world)")->required();
  cmd->add_option("--goal", o->goal, "goal X,Y in pixels (world coordinates with --world)")->required();
  cmd->add_flag("--world", o->world, "--start and --goal are world coordinates of the image's frame (its CRS)");
  cmd->add_option("--planner", o->planner, "astar (exact, 8 neighbours) or an OMPL planner: rrtstar, informedrrtstar, "
                                           "prmstar, lazyprmstar, bitstar, abitstar, fmtstar")
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "seconds an OMPL planner may take")->capture_default_str();
  CLI::Option* vehicle = cmd->add_option("--vehicle", o->vehicle, "plan for a car over (x, y, heading): dubins (forward "
                                                                   "only) or reeds-shepp (forward and reverse), with "
                                                                   "--planner (rrtstar for astar); without it, a point")
                              ->check(CLI::IsMember({"dubins", "reeds-shepp"}));
  vehicle->needs(cmd->add_option("--turning-radius", o->turning_radius, "the car's smallest turning radius (> 0): world "
                                                                        "units of the image's frame, pixels without one")
                     ->check(CLI::PositiveNumber)
                     ->needs(vehicle));
  cmd->add_option("--start-heading", o->start_heading, "the car's heading at the start, degrees counterclockwise from east "
                                                       "(+x) towards north (up); default: towards the goal")
      ->needs(vehicle);
  cmd->add_option("--goal-heading", o->goal_heading, "the car's heading at the goal, as --start-heading; default: the "
                                                     "direction from the start to the goal")
      ->needs(vehicle);
  o->frame.add(cmd);
  cmd->add_option("--out", o->out, "path file to write (CSV path,x,y at cell centres, plus world_x,world_y when the "
                                   "image has a world frame, and heading_deg for a car; readable as demonstrations)");
  cmd->add_option("--png", o->png, "picture of the path with its start, goal and a legend");
  cmd->add_option("--png-underlay", o->png_underlay, "what --png draws the path over: the image or the learned costs")
      ->check(CLI::IsMember({"image", "costs"}))
      ->capture_default_str();
  cmd->footer("Examples:\n  mmp plan --model out/demo/model.mmp --image scene.png --start 10,10 --goal 500,480 --png plan.png\n"
              "  mmp plan --model model.mmp --image tile.tif --world --start 320010,2777262 --goal 320400,2777000 --planner bitstar "
              "--out path.csv\n"
              "  mmp plan --model model.mmp --image tile.tif --world --start 320010,2777262 --goal 320400,2777000 --vehicle dubins "
              "--turning-radius 6 --start-heading 90 --out path.csv");
  cmd->callback([o] {
    if (o->out.empty() && o->png.empty()) throw InvalidArgument("mmp plan: give --out and/or --png (else the plan is written nowhere)");
    runPlan(*o);
  });
}

void addCostmapCommand(CLI::App& app) {
  auto o = std::make_shared<CostmapOptions>();
  CLI::App* cmd = app.add_subcommand("costmap", "Compute the learned cost map of an image with a saved model");
  cmd->add_option("--model", o->model, "model file written by mmp train")->required();
  cmd->add_option("--image", o->image, "image (GeoTIFF, PNG, JPEG, TIFF or any raster GDAL reads)")->required();
  o->frame.add(cmd);
  cmd->add_option("--png", o->png, "colour-mapped cost map with a legend");
  cmd->add_option("--raw", o->raw, "raw cost per cell as a 32-bit float GeoTIFF in the image's frame (impassable "
                                   "cells nodata); alone (without --png) it is streamed band by band, so the image "
                                   "may be larger than memory (JPEG)");
  cmd->add_option("--nav2", o->nav2, "folder for a Nav2 map_server map (map.yaml, map.pgm, map.levels.csv; mode raw, "
                                     "graded costs); needs a world frame");
  cmd->add_option("--nav2-scale", o->nav2_scale, "how learned costs spread over Nav2's 98 graded values")
      ->check(CLI::IsMember({"log", "linear"}))
      ->capture_default_str();
  cmd->add_option("--nav2-origin", o->nav2_origin, "world: the map's origin is the image's (CRS coordinates); local: "
                                                   "[0, 0], the offset recorded in map.yaml (for UTM-sized coordinates)")
      ->check(CLI::IsMember({"world", "local"}))
      ->capture_default_str();
  auto* above = cmd->add_option("--lethal-above", o->lethal_above,
                                "--nav2: cells costing more than COST are lethal (100); learned maps have none otherwise")
                    ->check(CLI::PositiveNumber);
  auto* quantile = cmd->add_option("--lethal-quantile", o->lethal_quantile,
                                   "--nav2: cells dearer than this quantile of the passable costs are lethal, e.g. 0.95")
                       ->check(CLI::Range(0.0, 1.0))
                       ->excludes(above);
  cmd->add_option("--lethal-mask", o->lethal_mask,
                  "--nav2: a one-channel 8-bit mask of the image's size; cells with a marked pixel are lethal");
  cmd->add_option("--lethal-values", o->lethal_values,
                  "the --lethal-mask values that mark (e.g. 4 for water in a class-index mask); default: any non-zero")
      ->check(CLI::Range(0, 255))
      ->delimiter(',');
  cmd->add_option("--tile-cells", o->tiles.tile_cells, "cells per tile side: memory grows with the tile, not the image")
      ->check(CLI::Range(1, TileSettings::kMaxTileCells))
      ->capture_default_str();
  cmd->add_option("--threads", o->tiles.threads, "tiles computed at once (0 = all cores)")
      ->check(CLI::Range(0, TileSettings::kMaxThreads))
      ->capture_default_str();
  addRegionOptions(cmd, o->region);
  cmd->footer("Examples:\n  mmp costmap --model out/demo/model.mmp --image scene.png --png costs.png\n"
              "  mmp costmap --model model.mmp --image tile.tif --raw costs.tif --nav2 nav2_map\n"
              "  mmp costmap --model models/follow_road.mmp --image part.tif --nav2 nav2_map --nav2-origin local "
              "--lethal-quantile 0.97");
  cmd->callback([o, above, quantile] {
    if (o->png.empty() && o->raw.empty() && o->nav2.empty()) {
      throw InvalidArgument("mmp costmap: give --png, --raw and/or --nav2");
    }
    // A NaN passes CLI11's range checks: refuse it by name rather than take it as "not given".
    if (quantile->count() > 0 && !(o->lethal_quantile >= 0.0 && o->lethal_quantile <= 1.0)) {
      throw InvalidArgument("--lethal-quantile " + numberText(o->lethal_quantile) +
                            ": give the share of the passable cells below the lethal cost, from 0 to 1 (e.g. 0.95)");
    }
    if (above->count() > 0 && !(o->lethal_above > 0.0)) {
      throw InvalidArgument("--lethal-above " + numberText(o->lethal_above) + ": give a cost > 0");
    }
    const bool lethal = above->count() > 0 || quantile->count() > 0 || !o->lethal_mask.empty();
    if (o->nav2.empty() && (lethal || o->nav2_origin != "world")) {
      throw InvalidArgument("mmp costmap: --lethal-above, --lethal-quantile, --lethal-mask and --nav2-origin shape the "
                            "Nav2 map; give --nav2 DIR too");
    }
    if (!o->lethal_values.empty() && o->lethal_mask.empty()) throw InvalidArgument("--lethal-values needs --lethal-mask");
    runCostmap(*o);
  });
}

}  // namespace mmp::tools
