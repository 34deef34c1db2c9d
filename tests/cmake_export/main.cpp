// An outside project against an installed mmp, through its public headers only: trains a small
// "follow the road" cost model on generated aerial scenes with the pipeline, saves it, loads it as a
// CostModel, computes the cost map of another scene and plans on it with A*.  Exits non-zero unless
// the plan is found and runs on road more than a straight line would.  The part between the README
// markers is the README's library example, word for word (check_readme.sh compares them).
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/pipeline.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <cstdio>
#include <limits>

namespace {

// The share of a path's cells that lie on the preferred class.
double roadShare(const std::vector<int>& path, const cv::Mat& labels, int cols, int cell_size, int road) {
  int on_road = 0;
  for (int cell : path) {
    on_road += labels.at<std::uint8_t>(cell / cols * cell_size + cell_size / 2, cell % cols * cell_size + cell_size / 2) == road;
  }
  return static_cast<double>(on_road) / static_cast<double>(path.size());
}

}  // namespace

int main() {
  // README:begin
  // Learn "follow the road" from demonstrations planned on two generated scenes.
  mmp::PipelineSettings settings;  // documented defaults; the generated scene's classes
  const double impassable = std::numeric_limits<double>::infinity();
  settings.behaviour = mmp::Behaviour::make(
      "follow_road", settings.classes,
      {{"Road", 1}, {"Land", 6}, {"Vegetation", 8}, {"Building", impassable}, {"Water", impassable}}, "Road");
  settings.train = {mmp::RegionSpec::scene(1), mmp::RegionSpec::scene(2)};
  settings.learner.batch.stop.max_iterations = 30;
  const mmp::TrainingData data = mmp::loadTrainingData(settings);
  const mmp::TrainedCostModel trained = mmp::train(data, settings);
  trained.model.save("follow_road.mmp");  // atomically; trained.report has the trace and timings

  // A navigation stack: load the model, read an image, get its cost map, plan on it.
  const mmp::CostModel model = mmp::CostModel::load("follow_road.mmp");
  mmp::SyntheticSceneParams other;
  other.seed = 9;
  const cv::Mat image = mmp::makeSyntheticScene(other).image;  // or mmp::loadImage("area.png")
  const mmp::CostGrid grid = model.costs(image);
  mmp::GridPlanner planner(grid.rows, grid.cols);
  const mmp::PlanResult plan = planner.plan(grid.costs, grid.cellAt(20, 20), grid.cellAt(490, 490));
  // README:end
  std::remove("follow_road.mmp");

  if (plan.status != mmp::PlanStatus::Success) {
    std::printf("mmp consumer: no plan: %s\n", plan.message.c_str());
    return 1;
  }
  const cv::Mat labels = mmp::makeSyntheticScene(other).labels;
  const std::vector<int> straight = mmp::rasterizePolyline({{5, 5}, {122, 122}}, grid.cols, mmp::Connectivity::Eight);
  const double learned = roadShare(plan.path, labels, grid.cols, grid.cell_size, settings.behaviour.preferred);
  const double line = roadShare(straight, labels, grid.cols, grid.cell_size, settings.behaviour.preferred);
  std::printf("mmp consumer: %d x %d cost map, %s trained in %.1f s; the plan runs %.0f %% on road, a straight line %.0f %%\n",
              grid.rows, grid.cols, trained.report.info.c_str(), trained.report.train_seconds, 100 * learned, 100 * line);
  return learned > line ? 0 : 1;
}
