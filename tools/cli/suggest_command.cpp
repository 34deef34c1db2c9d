// `mmp suggest MODEL --image X [--n K] --out pairs.csv [--png picture]`: which demonstrations to ask
// for next on an image (maps/training/suggestion.hpp, demonstrationValues): seeded candidate start/goal
// pairs, each valued by --rule (how far perturbed copies of the model plan from the model's own plan, or
// the change of the image's costs such a demonstration would make), the K most valuable kept (their
// ends apart), written as CSV and drawn on the cost map.
#include "commands.hpp"
#include "setting_flags.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/render.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/maps/training/regions.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <memory>

namespace mmp::tools {
namespace {

struct SuggestOptions {
  std::string model, image, out, png;
  std::string region, skip_taught;     ///< --region x0,y0,x1,y1 (pixels), --skip-taught PATHS
  std::vector<std::string> exclude;    ///< --exclude x0,y0,x1,y1, repeatable
  PipelineSettings settings;  ///< the setting flags' (suggest.*): settings.suggest and settings.suggestion_search
};

// "x0,y0,x1,y1" in pixels of the image: the cells it covers (SuggestionArea::fromPixels), or an error naming the flag.
SuggestionArea::Box pixelBox(const std::string& text, const std::string& flag, const CostGrid& grid, const GeoImage& image) {
  std::array<double, 4> box{NAN, NAN, NAN, NAN};  // anything but four numbers: refused as not finite
  std::stringstream in(text);
  std::size_t i = 0;
  for (std::string part; std::getline(in, part, ','); ++i) {
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    if (i < 4 && !part.empty() && end == part.c_str() + part.size()) box[i] = v;
  }
  if (i != 4) box[0] = NAN;
  return SuggestionArea::fromPixels(box, grid.cell_size, grid.rows, grid.cols, image.pixels.cols, image.pixels.rows, flag + " " + text);
}

// Where the flags let suggestions go, in the grid's cells.
SuggestionArea suggestionArea(const SuggestOptions& o, const CostGrid& grid, const GeoImage& image) {
  const int k = grid.cell_size;
  SuggestionArea area;
  if (!o.region.empty()) area.region = pixelBox(o.region, "--region", grid, image);
  for (const std::string& box : o.exclude) area.excluded.push_back(pixelBox(box, "--exclude", grid, image));
  if (o.skip_taught.empty()) return area;
  for (const PixelPath& path : readDemonstrationFile(o.skip_taught)) {
    const std::vector<int> cells = pathCells(path, k, grid.rows, grid.cols, o.skip_taught + " path '" + path.name + "'", image.frame);
    area.taught.insert(area.taught.end(), cells.begin(), cells.end());
  }
  return area;
}

void runSuggest(const SuggestOptions& o) {
  const SuggestionSettings& settings = o.settings.suggest;
  const SuggestionSearch& search = o.settings.suggestion_search;
  const CostModel model = CostModel::load(o.model);
  const GeoImage image = loadGeoImage(o.image);
  const std::shared_ptr<const FeatureMap> map = teachingMap(model, image);
  const CostGrid grid = model.costs(*map);  // the image's costs from the features just made
  const int k = grid.cell_size;
  std::fprintf(stderr, "valuing up to %d candidate pairs with %d perturbed copies of the model (rule %s)\n", search.candidates,
               settings.members, describe(settings.rule).c_str());
  int drawn = 0;
  const SuggestionArea area = suggestionArea(o, grid, image);
  const std::vector<SuggestedPair> chosen = suggestDemonstrations(model, *map, search, settings, &drawn, {}, area);
  if (drawn == 0) {
    throw DataError("mmp suggest: '" + o.image + "' has no two passable cells " + numberText(search.min_separation_px) +
                    " px apart" + (o.region.empty() && o.exclude.empty() ? "" : " inside --region and outside every --exclude") +
                    "; lower --min-separation-px");
  }
  std::ostringstream csv;
  const bool committee = settings.rule == SuggestionRule::Committee;
  csv << "pair,start_x,start_y,goal_x,goal_y," << (committee ? "value_cells" : "value") << "\n";
  std::printf("pair  start (x, y px)  goal (x, y px)  value (%s)\n",
              committee ? "cells a perturbed plan strays" : "the image's cost change per cell of the plan");
  for (std::size_t r = 0; r < chosen.size(); ++r) {
    const int a = chosen[r].start, b = chosen[r].goal;
    const double ax = (a % grid.cols + 0.5) * k, ay = (a / grid.cols + 0.5) * k, bx = (b % grid.cols + 0.5) * k,
                 by = (b / grid.cols + 0.5) * k;
    csv << r + 1 << "," << ax << "," << ay << "," << bx << "," << by << "," << chosen[r].value << "\n";
    std::printf("%4zu  (%6.0f, %6.0f)  (%6.0f, %6.0f)  %.2f\n", r + 1, ax, ay, bx, by, chosen[r].value);
  }
  writeFileAtomically(o.out, csv.str());  // all old or all new
  std::printf("wrote %s\n", o.out.c_str());
  if (o.png.empty()) return;
  CostMapStyle style;
  style.pixels_per_cell = k;
  cv::Mat picture = renderCostMap(grid.costs, grid.rows, grid.cols, style);
  GridPlanner planner(grid.rows, grid.cols);
  const double scale = drawingScale(picture.size());
  for (const SuggestedPair& c : chosen) {
    const PlanResult plan = planner.plan(grid.costs, c.start, c.goal);
    if (plan.status == PlanStatus::Success) {
      drawPath(picture, plan.path, grid.cols, k, cv::Scalar(255, 255, 0), std::max(2, static_cast<int>(2 * scale)));
    }
  }
  picture = withLegend(picture,
                       {{LegendMark::Line, cv::Scalar(255, 255, 0), "suggested pair: the model's plan between its ends"},
                        {LegendMark::Start, cv::Scalar(255, 255, 0), "start"},
                        {LegendMark::Goal, cv::Scalar(255, 255, 0), "goal"}},
                       scale);
  writeImage(o.png, picture);
  std::printf("wrote %s\n", o.png.c_str());
}

}  // namespace

void addSuggestCommand(CLI::App& app) {
  auto o = std::make_shared<SuggestOptions>();
  CLI::App* cmd = app.add_subcommand("suggest", "Suggest where to demonstrate next on an image: the start/goal pairs "
                                                "whose plans the model is least sure of");
  cmd->add_option("model,--model", o->model, "a linear or LEARCH model")->required()->check(CLI::ExistingFile);
  cmd->add_option("--image", o->image, "the image to demonstrate on")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "CSV of the suggested pairs (pixel coordinates)")->required();
  cmd->add_option("--png", o->png, "the cost map with the suggested pairs and the model's plans");
  cmd->add_option("--region", o->region, "x0,y0,x1,y1 (pixels): suggest pairs with both ends inside it (the part you look at)");
  cmd->add_option("--exclude", o->exclude, "x0,y0,x1,y1 (pixels), repeatable: ground kept for checking -- no end, and no "
                                          "cell of the model's plan between them, inside it")->allow_extra_args(false);
  cmd->add_option("--skip-taught", o->skip_taught, "paths already taught (the --demonstrations format): skip pairs whose plan "
                                                   "runs mostly along them")->check(CLI::ExistingFile);
  declareOtherFlags(*cmd, {"model", "--image", "--out", "--png", "--region", "--exclude", "--skip-taught"});
  // The settings, each a row of the settings table (its range and message).
  PipelineSettings& s = o->settings;
  addSettingOption(*cmd, "--n", "suggest.n", s, "pairs to suggest");
  addSettingOption(*cmd, "--candidates", "suggest.candidates", s, "seeded candidate pairs valued");
  addSettingOption(*cmd, "--min-separation-px", "suggest.min_separation_px", s, "least distance between a pair's ends");
  addSettingOption(*cmd, "--rule", "suggest.rule", s, "how pairs are valued: change (the expected change of the image's costs a "
                                                     "demonstration would make) or committee (how far perturbed plans stray); docs/teaching.md");
  addSettingOption(*cmd, "--members", "suggest.members", s, "perturbed copies of the model");
  addSettingOption(*cmd, "--spread", "suggest.spread", s, "each weight times exp(spread N(0, 1))");
  addSettingOption(*cmd, "--seed", "suggest.seed", s, "of the candidates and the perturbations");
  addSettingOption(*cmd, "--threads", "suggest.threads", s, "plans at once (0: every core)");
  cmd->footer("Examples:\n  mmp suggest models/follow_road.mmp --image site.tif --n 5 --out next.csv --png next.png\n"
              "  mmp suggest models/follow_road.mmp --image site.tif --region 0,0,1000,1000 --exclude 1000,0,2000,2000 "
              "--skip-taught paths.csv --out next.csv");
  cmd->callback([o] { runSuggest(*o); });
}

}  // namespace mmp::tools
