// `mmp adapt MODEL --image A --demonstrations A.csv [--image B --demonstrations B.csv ...] --out M.mmp`:
// teaches a saved model on a new site (maps/training/adaptation.hpp): every demonstration in file
// order, one at a time, each a progress line; the adapted model is written atomically, the parent
// never; --png draws the parent's and the adapted model's cost maps of the first image with the
// demonstrations and each model's plans between their ends.
#include "commands.hpp"
#include "provenance.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/render.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace mmp::tools {
namespace {

struct AdaptOptions {
  std::string model, out, png;
  std::vector<std::string> images, demonstrations;
  AdaptationSettings settings;
};

// The cost map of `grid` with the demonstrations (cyan) and the model's A* plans between their ends (red).
cv::Mat taughtPicture(const CostGrid& grid, const std::vector<std::vector<int>>& demos, double low, double high) {
  CostMapStyle style;
  style.pixels_per_cell = grid.cell_size;
  style.low = low;
  style.high = high;
  cv::Mat picture = renderCostMap(grid.costs, grid.rows, grid.cols, style);
  GridPlanner planner(grid.rows, grid.cols);
  const double scale = drawingScale(picture.size());
  for (const std::vector<int>& demo : demos) {
    drawPath(picture, demo, grid.cols, grid.cell_size, cv::Scalar(255, 255, 0), std::max(2, static_cast<int>(2 * scale)));
    const PlanResult plan = planner.plan(grid.costs, demo.front(), demo.back());
    if (plan.status == PlanStatus::Success) {
      drawPath(picture, plan.path, grid.cols, grid.cell_size, cv::Scalar(40, 40, 255), std::max(2, static_cast<int>(2 * scale)));
    }
  }
  return picture;
}

void writePicture(const AdaptOptions& o, const CostModelTeacher& teacher, const GeoImage& image) {
  std::vector<std::vector<int>> demos;
  for (const TaughtDemonstration& d : teacher.demonstrations()) {
    if (d.image == 0) demos.push_back(d.cells);
  }
  const CostGrid before = teacher.parent().costs(image), after = teacher.model().costs(image);
  double low = INFINITY, high = 0.0;
  for (const CostGrid* g : {&before, &after}) {
    for (double c : g->costs) {
      if (std::isfinite(c)) low = std::min(low, c), high = std::max(high, c);
    }
  }
  const cv::Mat panel = makePanel({{"parent model", taughtPicture(before, demos, low, high)},
                                   {"adapted on " + std::to_string(teacher.demonstrations().size()) + " demonstration(s)",
                                    taughtPicture(after, demos, low, high)}},
                                  std::min(720, std::max(before.rows, 240) * before.cell_size));
  const cv::Mat picture = withLegend(panel,
                                     {{LegendMark::Line, cv::Scalar(255, 255, 0), "demonstration"},
                                      {LegendMark::Line, cv::Scalar(40, 40, 255), "the model's A* plan between its ends"},
                                      {LegendMark::Note, cv::Scalar(), "one colour scale for both maps (log cost)"}},
                                     drawingScale(panel.size()));
  writeImage(o.png, picture);
  std::printf("wrote %s\n", o.png.c_str());
}

void runAdapt(const AdaptOptions& o) {
  if (o.images.size() != o.demonstrations.size()) {
    throw InvalidArgument("mmp adapt: " + std::to_string(o.images.size()) + " --image and " +
                          std::to_string(o.demonstrations.size()) + " --demonstrations; give one file of paths per image");
  }
  std::error_code ignored;
  if (std::filesystem::equivalent(o.model, o.out, ignored)) {
    throw InvalidArgument("mmp adapt: --out '" + o.out + "' is the parent model; write the adapted model to another file");
  }
  CostModelTeacher teacher(CostModel::load(o.model), o.settings);
  struct Taught {
    int image;
    std::string name;
    std::vector<int> cells;
  };
  std::vector<Taught> queue;
  GeoImage first;
  for (std::size_t i = 0; i < o.images.size(); ++i) {
    GeoImage image = loadGeoImage(o.images[i]);
    const int index = teacher.addImage(image, o.images[i], fileChecksum(o.images[i]));
    for (const PixelPath& path : readDemonstrationFile(o.demonstrations[i])) {
      const std::string where = o.demonstrations[i] + " path '" + path.name + "'";
      queue.push_back({index, where, pathCells(path, teacher.cellSize(), teacher.rows(index), teacher.cols(index), where, image.frame)});
    }
    if (i == 0) first = std::move(image);
  }
  std::printf("adapting %s (%s) on %zu demonstration(s) on %zu image(s)\n", o.model.c_str(),
              teacher.parent().trees().empty() ? "linear costs: online learner toward the parent" : "LEARCH: new trees",
              queue.size(), o.images.size());
  for (std::size_t k = 0; k < queue.size(); ++k) {
    const TeachingStep step = teacher.teach(queue[k].image, queue[k].cells);
    std::printf("[%zu/%zu] %s: prediction loss per cell of the taught paths %.4g under the parent, %.4g adapted (%.2f s)%s\n",
                k + 1, queue.size(), queue[k].name.c_str(), step.loss_before, step.loss_after, step.seconds,
                step.info == Info::Success ? "" : ("; " + step.message).c_str());
  }
  CostModel adapted = teacher.model();
  adapted.setInfo("mmp_version", provenance());
  adapted.save(o.out);  // atomically
  std::printf("wrote %s (mmp info shows what it was taught)\n", o.out.c_str());
  if (!o.png.empty()) writePicture(o, teacher, first);
}

}  // namespace

void addAdaptCommand(CLI::App& app) {
  auto o = std::make_shared<AdaptOptions>();
  CLI::App* cmd = app.add_subcommand("adapt", "Teach a saved model on a new site: adapt it to demonstrations on new images");
  cmd->add_option("model,--model", o->model, "the parent model (linear or LEARCH), never modified")->required()->check(CLI::ExistingFile);
  cmd->add_option("--image", o->images, "an image of the site (PNG, JPEG, GeoTIFF); repeat with --demonstrations")
      ->required()->check(CLI::ExistingFile);
  cmd->add_option("--demonstrations", o->demonstrations,
                  "paths on the --image of the same place: CSV path,x,y (pixels) or path,world_x,world_y, or YAML")
      ->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "where to write the adapted model (atomically)")->required();
  cmd->add_option("--png", o->png, "a picture: both models' cost maps of the first image, demonstrations and plans");
  cmd->add_option("--lambda", o->settings.lambda, "linear models: the pull toward the parent (larger: closer)")->capture_default_str();
  cmd->add_option("--epochs", o->settings.epochs, "linear models: passes over the demonstrations")->capture_default_str();
  cmd->add_option("--learch-rounds", o->settings.learch_rounds, "LEARCH models: trees added")->capture_default_str();
  cmd->add_option("--loss-radius", o->settings.loss.radius_px, "the demonstrations' loss radius in pixels")->capture_default_str();
  cmd->add_option("--threads", o->settings.threads, "oracle calls at once (0: every core); the result does not depend on it")
      ->capture_default_str();
  cmd->footer("Examples:\n  mmp adapt models/follow_road.mmp --image site.tif --demonstrations paths.csv --out site.mmp\n"
              "  mmp adapt models/follow_road.mmp --image a.jpg --demonstrations a.csv --image b.jpg --demonstrations b.csv "
              "--out site.mmp --png adapt.png");
  cmd->callback([o] { runAdapt(*o); });
}

}  // namespace mmp::tools
