// plan_and_nav2: what a navigation stack does with a learned cost model -- the cost map of
// georeferenced imagery, a path between two world points with exact grid A* (and, if asked, with one
// of OMPL's optimizing planners under the same cost integral), the paths as CSV and the costs as a
// Nav2 map_server map for Nav2's static layer.
//
//   plan_and_nav2 MODEL.mmp IMAGE START_X,START_Y GOAL_X,GOAL_Y OUT_DIR [OMPL_PLANNER]
//
// IMAGE: a GeoTIFF or an image with a world file (.pgw, .jgw); points are in its CRS (e.g. UTM metres).
// A plain image is placed at 1 unit per pixel, lower-left corner at (0, 0).  OMPL_PLANNER: bitstar,
// rrtstar, informedrrtstar, prmstar, lazyprmstar, abitstar or fmtstar (1 s each).  Writes into
// OUT_DIR: astar_path.csv (and <planner>_path.csv): columns path,x,y,world_x,world_y; nav2/map.yaml,
// map.pgm, map.levels.csv.  Links mmp::maps and mmp::planning_ompl.
#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/nav2_map.hpp>
#include <mmp/maps/path_files.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/ompl_planning.hpp>
#include <mmp/planning/path.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

namespace {

// "X,Y" -> a world point; throws mmp::InvalidArgument naming the text otherwise.
mmp::WorldPoint parsePoint(const std::string& text) {
  mmp::WorldPoint p;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%lf,%lf%c", &p.x, &p.y, &rest) != 2) {
    throw mmp::InvalidArgument("expected a point X,Y (e.g. 500010.5,2799990), got '" + text + "'");
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6 || argc > 7) {
    std::fprintf(stderr, "usage: %s MODEL.mmp IMAGE START_X,START_Y GOAL_X,GOAL_Y OUT_DIR [OMPL_PLANNER]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[5];
  try {
    const mmp::WorldPoint from = parsePoint(argv[3]), to = parsePoint(argv[4]);
    mmp::OmplSettings ompl;  // BIT* for 1 s by default
    if (argc == 7) ompl.planner = mmp::parsePlannerName(argv[6]);  // throws, listing the valid names
    const mmp::CostModel model = mmp::CostModel::load(argv[1]);
    mmp::GeoImage image = mmp::loadGeoImage(argv[2]);  // pixels, resolution, origin and CRS
    if (!image.frame.hasWorld()) {
      image.frame = mmp::frameOf(mmp::FrameSettings{1.0, {0.0, 0.0}, ""}, image.pixels.rows, image.pixels.cols);
      std::printf("%s has no georeference: 1 unit per pixel, lower-left corner at (0, 0)\n", argv[2]);
    }
    const mmp::CostGrid grid = model.costs(image);  // grid.frame: the cells in the image's world frame
    const int start = grid.cellAt(from), goal = grid.cellAt(to);
    if (start < 0 || goal < 0) {
      throw mmp::InvalidArgument(std::string(start < 0 ? "start " : "goal ") + (start < 0 ? argv[3] : argv[4]) +
                                 " lies outside the map: " + grid.frame.extentText());
    }
    std::printf("cost map: %d x %d cells of %.3g units, %s\n", grid.rows, grid.cols, grid.frame.resolution,
                grid.frame.extentText().c_str());
    std::filesystem::create_directories(out);

    // The exact optimum on the 8-connected grid: A*.  No path, or an impassable end, comes back as a
    // status with a message (not an exception); this program makes it an error.
    mmp::GridPlanner astar(grid.rows, grid.cols);
    const mmp::PlanResult exact = astar.plan(grid.costs, start, goal);
    if (exact.status != mmp::PlanStatus::Success) throw mmp::DataError("A*: " + exact.message);
    mmp::writePathCsv(out + "/astar_path.csv", {exact.path}, grid.cols, grid.cell_size, grid.frame);
    std::printf("A*: cost %.4g, %zu cells, %.1f units long, %ld expansions -> %s/astar_path.csv\n", exact.cost,
                exact.path.size(), mmp::pathLength(exact.path, grid.cols) * grid.frame.resolution, exact.expansions,
                out.c_str());

    // Any-angle paths under the same cost integral: an OMPL planner, compared with the A* optimum.
    if (argc == 7) {
      const mmp::OmplResult sampled = mmp::planOmpl(grid, grid.frame.toCell(from), grid.frame.toCell(to), ompl);
      const std::string file = out + "/" + mmp::plannerName(ompl.planner) + "_path.csv";
      if (sampled.status == mmp::OmplStatus::Success) {
        mmp::writePathCsv(file, {sampled.path}, grid.cell_size, grid.frame);
        std::printf("%s: cost %.4g = %.3f x A*, %zu waypoints -> %s\n", mmp::plannerName(ompl.planner), sampled.cost,
                    sampled.cost / exact.cost, sampled.path.size(), file.c_str());
      } else {  // the budget ran out: an expected outcome, a status rather than an exception
        std::printf("%s: %s (%s); A* stands\n", mmp::plannerName(ompl.planner), mmp::describe(sampled.status),
                    sampled.message.c_str());
      }
    }

    // The learned costs for Nav2's static layer (which keeps the grades only with trinary_costmap: false).
    const mmp::Nav2MapInfo nav2 = mmp::writeNav2Map(grid, out + "/nav2");
    std::printf("Nav2: %s, %d graded levels for costs %.4g .. %.4g, %lld lethal cells\n", nav2.yaml.c_str(),
                nav2.levels_used, nav2.lowest, nav2.highest, nav2.lethal);
  } catch (const mmp::Error& e) {  // the message names the file, point or setting at fault
    std::fprintf(stderr, "plan_and_nav2: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {  // anything else (out of memory, a folder that cannot be made)
    std::fprintf(stderr, "plan_and_nav2: unexpected error: %s\n", e.what());
    return 1;
  }
  return 0;
}
