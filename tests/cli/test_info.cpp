// `mmp info` on a model `mmp train` made: the holdout's contrast composed from the per-class costs it
// records (and the same figures as metrics.json), the texture statistics of the familiarity check; and
// on a model saved before either was kept, which says what is not recorded.
#include "maps/maps_support.hpp"

#include "commands.hpp"
#include <mmp/frontend/json_output.hpp>

#include <mmp/core/model_file.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/synthetic_scene.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mmp;
using namespace mmp::tools;

namespace {

std::string infoFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// What `run` writes to standard output, through a file.
std::string standardOutput(const test::TempDir& dir, const std::function<void()>& run) {
  const std::string path = dir.file("stdout.txt");
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(saved >= 0);
  REQUIRE(file >= 0);
  ::dup2(file, 1);
  ::close(file);
  try {
    run();
  } catch (...) {
    std::fflush(stdout);
    ::dup2(saved, 1);
    ::close(saved);
    throw;
  }
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  return infoFileText(path);
}

std::string info(const test::TempDir& dir, const std::string& model, bool json = false) {
  return standardOutput(dir, [&] {
    CLI::App app;
    addInfoCommand(app);
    std::vector<std::string> args{model, "info"};  // CLI11 reads the vector back to front
    if (json) args.insert(args.begin(), "--json");
    app.parse(args);
  });
}

// The line of `text` that starts (after its indent) with `key`, "" if none.
std::string line(const std::string& text, const std::string& key) {
  std::size_t at = 0;
  while ((at = text.find("  " + key + " ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return text.substr(at, text.find('\n', at) - at);
    ++at;
  }
  return "";
}

std::string ratioText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace

TEST_CASE("mmp info: the holdout's contrast as mmp train recorded it, and what an older model did not record") {
  test::TempDir dir;
  SyntheticSceneParams p;
  p.seed = 5;
  p.rows = p.cols = 160;
  REQUIRE(cv::imwrite(dir.file("train.png"), makeSyntheticScene(p).image));
  std::ofstream(dir.file("paths.csv")) << "path,x,y\n1,10,10\n1,150,12\n1,150,150\n2,5,140\n2,80,80\n";
  std::ofstream(dir.file("files.yaml")) << R"(
behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 6, Vegetation: 8, Water: 30, Building: 40}}
train:
  - {image: train.png, demonstrations: paths.csv}
holdout:
  - synthetic: {seed: 6, rows: 160, cols: 160}
features: {cell_size: 4, blur_sigmas: [0], bins: 3}
learner: {batch: {iterations: 5, threads: 1}}
evaluation: {pairs: 3, min_separation_px: 40}
)";
  CLI::App train;
  addTrainCommand(train);
  train.parse(std::vector<std::string>{dir.file("out"), "--output-dir", dir.file("files.yaml"), "train"});
  const Json metrics = Json::parse(infoFileText(dir.file("out/metrics.json")));
  const Json& class_costs = metrics["learned_class_costs"];
  REQUIRE(class_costs.size() >= 2);

  // The model records each class's cost on the holdout, as metrics.json has it, bit for bit.
  const std::string model = dir.file("out/model.mmp");
  const CostModel saved = CostModel::load(model);
  CHECK(saved.info().at(kHoldoutClassCostPreferred) == "Road");
  double rival = 1e300, highest = 0.0, lowest = 1e300;
  std::string rival_name;
  for (const auto& [name, cost] : class_costs.items()) {
    CHECK(std::stod(saved.info().at(kHoldoutClassCostPrefix + name)) == cost.get<double>());
    highest = std::max(highest, cost.get<double>());
    lowest = std::min(lowest, cost.get<double>());
    if (name != "Road" && cost.get<double>() < rival) rival = cost.get<double>(), rival_name = name;
  }
  CHECK(class_costs["Road"].get<double>() == 1.0);

  const std::string text = info(dir, model);
  const std::string contrast = line(text, "holdout_contrast");
  INFO(text);
  CHECK(contrast.find(rival_name + ", the cheapest class but the preferred Road, costs " + ratioText(rival) + " x Road") !=
        std::string::npos);
  CHECK(contrast.find(" x the cheapest") != std::string::npos);
  CHECK(contrast.find(ratioText(highest / lowest) + " x the cheapest") != std::string::npos);
  CHECK(contrast.find("on the holdout images") != std::string::npos);
  CHECK((rival <= 1.0) == (contrast.find("does not keep the preferred class the cheapest") != std::string::npos));
  const std::string list = line(text, "holdout_class_costs");
  CHECK(list.find("Road 1,") != std::string::npos);
  CHECK(list.find("over the preferred class Road's") != std::string::npos);
  CHECK(text.find("holdout_class_cost.") == std::string::npos);  // composed, not listed raw
  CHECK_FALSE(line(text, "holdout_learned_cost_ratio").empty());  // the holdout figures stay
  CHECK(line(text, "training_statistics").find("colour and contrast (in 16 px blocks)") != std::string::npos);
  const Json json = Json::parse(info(dir, model, true));
  CHECK(json["holdout_contrast"].get<std::string>() ==
        contrast.substr(contrast.find_first_not_of(' ', 2 + std::string("holdout_contrast").size())));

  // As mmp wrote models before: no per-class costs, no texture statistics.
  Model older = loadModel(model);
  for (auto it = older.settings.begin(); it != older.settings.end();) {
    const bool recent = it->first.rfind("holdout_class_cost", 0) == 0 || it->first.rfind("domain.texture_", 0) == 0;
    it = recent ? older.settings.erase(it) : std::next(it);
  }
  for (const char* key : {"domain.texture_edges", "domain.texture_bins", "domain.texture_counts"}) older.arrays.erase(key);
  saveModel(dir.file("older.mmp"), older);
  const std::string old_text = info(dir, dir.file("older.mmp"));
  INFO(old_text);
  CHECK(line(old_text, "holdout_contrast").find("not recorded (the model was made before mmp train recorded each class's cost") !=
        std::string::npos);
  CHECK(line(old_text, "holdout_class_costs").empty());
  CHECK(line(old_text, "training_statistics").find("no texture statistics") != std::string::npos);
  CHECK_FALSE(line(old_text, "holdout_learned_cost_ratio").empty());

  // A model without a holdout says nothing of contrast.
  older.settings.erase("holdout");
  saveModel(dir.file("no_holdout.mmp"), older);
  CHECK(line(info(dir, dir.file("no_holdout.mmp")), "holdout_contrast").empty());
}
