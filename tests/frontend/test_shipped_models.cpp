// The models shipped in models/ (one per whole-area behaviour): each loads, says what it is and where
// it came from (provenance recorded by `mmp train`), and -- with the shared Dubai data beside the
// checkout -- reproduces its recorded holdout figures on one part of each holdout area, from its own
// effective config.  Without the data that last check is skipped, saying where to put it.
#include "test_paths.hpp"
#include <mmp/frontend/train_config.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/training/pipeline.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

using namespace mmp;
using namespace mmp::tools;

namespace {

const char* const kBehaviours[] = {"follow_road", "hide_in_vegetation", "cross_country", "amphibious"};

// holdout_per_image: "name pairs mean\n" per image.
std::map<std::string, double> recordedPerImage(const CostModel& model) {
  std::map<std::string, double> out;
  std::istringstream in(model.info().at("holdout_per_image"));
  std::string name;
  int pairs = 0;
  double mean = 0.0;
  while (in >> name >> pairs >> mean) out[name] = mean;
  return out;
}

}  // namespace

TEST_CASE("shipped models load and carry their provenance: behaviour, version, config, data, holdout figures") {
  for (const char* behaviour : kBehaviours) {
    CAPTURE(behaviour);
    const std::string path = std::string(test::sourceDir()) + "/models/" + behaviour + ".mmp";
    REQUIRE(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) < 128 * 1024);  // small enough for the repository
    const CostModel model = CostModel::load(path);
    const auto& info = model.info();
    CHECK(info.at("behaviour") == behaviour);
    for (const char* key : {"mmp_version", "config_effective", "data", "holdout", "holdout_learned_cost_ratio",
                            "holdout_uniform_cost_ratio", "holdout_per_image", "trained_on"}) {
      CAPTURE(key);
      CHECK(info.count(key) == 1);
    }
    CHECK(info.at("mmp_version").find("dirty") == std::string::npos);  // made from a committed tree
    CHECK_FALSE(model.domain().empty());
    // The recorded per-image figures pool to the recorded mean.
    const std::map<std::string, double> per_image = recordedPerImage(model);
    CHECK(per_image.size() == 18);
  }
}

TEST_CASE("shipped models reproduce their recorded holdout figures on a part of each holdout area" * doctest::test_suite("long")) {
  const std::string data_root = test::sharedDataPath("");
  if (!std::filesystem::is_directory(test::sharedDataPath("aerial/dubai_hitl"))) {
    MESSAGE("skipped: no Dubai data at " << test::sharedDataPath("aerial/dubai_hitl")
            << " (put the shared data sets at ../shared/data beside the checkout, or set MMP_DATA_ROOT)");
    return;
  }
  for (const char* behaviour : kBehaviours) {
    CAPTURE(behaviour);
    const CostModel model = CostModel::load(std::string(test::sourceDir()) + "/models/" + behaviour + ".mmp");
    const std::string config = (std::filesystem::temp_directory_path() / (std::string("mmp_shipped_") + behaviour + ".yaml")).string();
    std::ofstream(config) << model.info().at("config_effective");
    const TrainConfig settings = loadTrainConfig(config, data_root);
    std::filesystem::remove(config);
    const std::map<std::string, double> recorded = recordedPerImage(model);
    std::map<std::string, int> checked_areas;
    for (int index = 0; index < static_cast<int>(settings.holdout.size()); ++index) {
      const RegionSpec& spec = settings.holdout[static_cast<std::size_t>(index)];
      if (checked_areas[spec.areaName()]++ > 0) continue;  // the first part of each area
      CAPTURE(spec.name);
      const HoldoutResult result = evaluateHoldout(settings, index, model, nullptr);
      const std::vector<PlanScore>& scores = result.scores.at(Method::Learned);
      REQUIRE_FALSE(scores.empty());
      const double mean = std::accumulate(scores.begin(), scores.end(), 0.0,
                                          [](double sum, const PlanScore& s) { return sum + s.cost_ratio; }) /
                          static_cast<double>(scores.size());
      REQUIRE(recorded.count(spec.name) == 1);
      CHECK(mean == doctest::Approx(recorded.at(spec.name)).epsilon(1e-9));
    }
    CHECK(checked_areas.size() == 2);
  }
}
