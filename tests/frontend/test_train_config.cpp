#include "maps/maps_support.hpp"
#include "support.hpp"
#include "test_paths.hpp"

#include <mmp/frontend/adapt_config.hpp>
#include <mmp/frontend/train_config.hpp>

#include <mmp/maps/training/network_training.hpp>
#include <mmp/maps/training/setting_keys.hpp>

#include <mmp/core/error.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <fstream>
#include <filesystem>
#include <iterator>
#include <regex>
#include <set>
#include <yaml-cpp/yaml.h>

using namespace mmp;
using namespace mmp::tools;

namespace {

// A minimal valid config on synthetic scenes; `extra` is appended, `replace` swaps a line.
std::string minimalConfig(const std::string& behaviour = "{name: follow_road, preferred: Road, costs: {Road: 1, "
                                                         "Land: 5, Vegetation: 5, Water: inf, Building: 10}}") {
  return "behaviour: " + behaviour +
         "\n"
         "train:\n  - synthetic: {seed: 1, rows: 128, cols: 128}\n"
         "holdout:\n  - synthetic: {seed: 2, rows: 128, cols: 128}\n";
}

std::string write(const test::TempDir& dir, const std::string& text, const std::string& name = "config.yaml") {
  const std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

std::string errorOf(const std::string& path) {
  try {
    loadTrainConfig(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a minimal train config loads with documented defaults") {
  test::TempDir dir;
  const TrainConfig c = loadTrainConfig(write(dir, minimalConfig()));
  CHECK(c.behaviour.name == "follow_road");
  CHECK(c.behaviour.preferred == 2);
  CHECK(c.behaviour.preferred_name == "Road");
  CHECK(c.classCost(2) == 1.0);
  CHECK(std::isinf(c.classCost(4)));
  CHECK(std::isnan(c.classCost(7)));
  CHECK(c.classes.size() == 5);  // the synthetic scene's classes by default
  REQUIRE(c.train.size() == 1);
  CHECK(c.train[0].name == "synthetic-1");
  CHECK(c.train[0].synthetic->rows == 128);
  CHECK(c.output_dir == "out/config");
  CHECK(c.learner.kind == LearnerKind::Batch);
  CHECK(c.features.cell_size == 4);
  CHECK(loadTrainConfig(write(dir, minimalConfig()), "", "elsewhere").output_dir == "elsewhere");
}

TEST_CASE("train config errors name the key path and what is valid") {
  test::TempDir dir;
  SUBCASE("an unknown key names the nearest valid one") {
    const std::string m = errorOf(write(dir, minimalConfig() + "featurs: {}\n"));
    CHECK(m.find("featurs: unknown key") != std::string::npos);
    CHECK(m.find("did you mean 'features'") != std::string::npos);
  }
  SUBCASE("an unknown nested key names its path") {
    const std::string m = errorOf(write(dir, minimalConfig() + "learner:\n  batch:\n    step_sise: 1\n"));
    CHECK(m.find("learner.batch.step_sise: unknown key") != std::string::npos);
    CHECK(m.find("learner.batch.step_size") != std::string::npos);
  }
  SUBCASE("a wrong type names the key and the value") {
    const std::string m = errorOf(write(dir, minimalConfig() + "features: {cell_size: four}\n"));
    CHECK(m.find("features.cell_size: expected an integer, got 'four'") != std::string::npos);
  }
  SUBCASE("a value out of range names the range") {
    const std::string m = errorOf(write(dir, minimalConfig() + "evaluation: {pairs: 0}\n"));
    CHECK(m.find("evaluation.pairs: expected an integer in [1, 100000], got 0") != std::string::npos);
  }
  SUBCASE("list items are named by index") {
    const std::string m = errorOf(write(dir, minimalConfig() + "features: {blur_sigmas: [0, -2]}\n"));
    CHECK(m.find("features.blur_sigmas[1]") != std::string::npos);
  }
  SUBCASE("an unknown class in the costs suggests the nearest class") {
    const std::string m = errorOf(write(dir, minimalConfig("{name: b, preferred: Road, costs: {Road: 1, Lnad: 5}}")));
    CHECK(m.find("behaviour.costs.Lnad: unknown class; did you mean 'Land'?") != std::string::npos);
  }
  SUBCASE("a misspelt preferred class suggests the nearest, a swap of two letters being one edit") {
    const std::string m = errorOf(write(dir, minimalConfig("{name: b, preferred: Raod, costs: {Road: 1}}")));
    CHECK(m.find("behaviour.preferred: unknown class 'Raod'; did you mean 'Road'? (declared: ") != std::string::npos);
    CHECK(editDistance("Raod", "Road") == 1);
    CHECK(editDistance("Raod", "Land") == 2);
    CHECK(editDistance("lamda", "lambda") == 1);
    CHECK(editDistance("", "abc") == 3);
    CHECK(editDistance("abc", "abc") == 0);
  }
  SUBCASE("the select:-only keys name the keys a config sets instead") {
    CHECK(errorOf(write(dir, minimalConfig() + "learner: {lambda: 0.1}\n"))
              .find("learner.lambda: a select: key only; here set learner.online.lambda or learner.batch.lambda") !=
          std::string::npos);
    CHECK(errorOf(write(dir, minimalConfig() + "learner: {passes: 3}\n")).find("learner.online.epochs") != std::string::npos);
  }
  SUBCASE("every class needs a cost") {
    const std::string m = errorOf(write(dir, minimalConfig("{name: b, preferred: Road, costs: {Road: 1}}")));
    CHECK(m.find("class 'Building' has no cost") != std::string::npos);
  }
  SUBCASE("costs are > 0 or inf, by name or index") {
    const std::string bad = errorOf(write(dir, minimalConfig("{name: b, preferred: 2, costs: {0: 1, 1: 2, 2: 3, 3: 4, 4: -1}}")));
    CHECK(bad.find("behaviour.costs.4: expected a cost > 0 or inf (impassable), got '-1'") != std::string::npos);
    const TrainConfig c = loadTrainConfig(write(dir, minimalConfig("{name: b, preferred: 2, costs: {0: 1, 1: 2, 2: 3, 3: 4, 4: .inf}}")));
    CHECK(c.behaviour.preferred_name == "Road");
    CHECK(std::isinf(c.classCost(4)));
  }
  SUBCASE("the preferred class must be passable") {
    const std::string m = errorOf(write(dir, minimalConfig("{name: b, preferred: Water, costs: {Road: 1, Land: 5, "
                                                           "Vegetation: 5, Water: inf, Building: 10}}")));
    CHECK(m.find("behaviour.preferred: the preferred class 'Water' is impassable") != std::string::npos);
  }
  SUBCASE("a holdout image may not be a training image") {
    const std::string text = "behaviour: {name: b, preferred: Road, costs: {Road: 1, Land: 5, Vegetation: 5, Water: 9, "
                             "Building: 10}}\ntrain:\n  - synthetic: {seed: 3}\nholdout:\n  - synthetic: {seed: 3}\n";
    CHECK(errorOf(write(dir, text)).find("never train on a holdout image") != std::string::npos);
  }
  SUBCASE("missing files are named with where relative paths start") {
    const std::string m = errorOf(write(dir, "behaviour: {name: b, preferred: Road, costs: {Road: 1}}\nclasses:\n  - {name: Road, index: 2}\n"
                                       "train:\n  - {image: nowhere.png, labels: nowhere_labels.png}\nholdout:\n  - synthetic: {seed: 1}\n"));
    CHECK(m.find("train[0].image: file '") != std::string::npos);
    CHECK(m.find("nowhere.png': not found") != std::string::npos);
  }
  SUBCASE("a holdout image needs labels; a training image labels or demonstrations") {
    cv::imwrite(dir.file("a.png"), test::randomImage(1, 64, 64));
    const std::string head = "behaviour: {name: b, preferred: Road, costs: {Road: 1}}\nclasses:\n  - {name: Road, index: 2}\n";
    CHECK(errorOf(write(dir, head + "train:\n  - {image: a.png}\nholdout:\n  - synthetic: {seed: 1}\n"))
              .find("train[0]: a training image needs 'labels'") != std::string::npos);
    CHECK(errorOf(write(dir, head + "train:\n  - synthetic: {seed: 1}\nholdout:\n  - {image: a.png}\n"))
              .find("holdout[0].labels: required") != std::string::npos);
  }
  SUBCASE("bins and complements exclude each other") {
    const std::string m = errorOf(write(dir, minimalConfig() + "features: {bins: 5, complements: true}\n"));
    CHECK(m.find("features.complements: complements are redundant with bins") != std::string::npos);
  }
  SUBCASE("class context radii need the class scores and at least one cell") {
    std::string m = errorOf(write(dir, minimalConfig() + "features: {class_context_px: [16]}\n"));
    CHECK(m.find("features.class_context_px: context radii need the class-score layer") != std::string::npos);
    m = errorOf(write(dir, minimalConfig() + "features: {cell_size: 4, class_scores: true, class_context_px: [2]}\n"));
    CHECK(m.find("features.class_context_px[0]: a radius must be >= features.cell_size (4), got 2") != std::string::npos);
    CHECK(errorOf(write(dir, minimalConfig() + "features: {class_scores: true, class_context_px: [16]}\n")).empty());
  }
  SUBCASE("the impassable loss factor needs the class-weighted loss and is at least 1") {
    CHECK(errorOf(write(dir, minimalConfig() + "loss: {impassable_factor: 3}\n"))
              .find("loss.impassable_factor: applies to the class-weighted loss only") != std::string::npos);
    CHECK(errorOf(write(dir, minimalConfig() + "loss: {by_class: true, impassable_factor: 0.5}\n"))
              .find("loss.impassable_factor") != std::string::npos);
    CHECK(errorOf(write(dir, minimalConfig() + "loss: {by_class: true, impassable_factor: 3}\n")).empty());
  }
  SUBCASE("the class-weighted loss and the class scores need labels on every training image") {
    cv::imwrite(dir.file("a.png"), test::randomImage(1, 64, 64));
    std::ofstream(dir.file("a.csv")) << "path,x,y\n0,1,1\n0,40,40\n";
    for (const std::string key : {"loss.by_class", "features.class_scores"}) {
      CAPTURE(key);
      const std::string block = key.substr(0, key.find('.')), name = key.substr(key.find('.') + 1);
      const std::string head = "behaviour: {name: b, preferred: Road, costs: {Road: 1, Land: 5, Vegetation: 5, "
                               "Water: inf, Building: 10}}\nholdout:\n  - synthetic: {seed: 2}\n" +
                               block + ": {" + name + ": true}\n";
      CHECK(errorOf(write(dir, head + "train:\n  - {image: a.png, demonstrations: a.csv}\n"))
                .find(key + ": needs labels on every training image; train[0] has only demonstrations") !=
            std::string::npos);
      CHECK(errorOf(write(dir, head + "train:\n  - synthetic: {seed: 1}\n")).empty());
    }
  }
  SUBCASE("class declarations are checked") {
    const std::string m = errorOf(write(dir, minimalConfig() + "classes:\n  - {name: Road, index: 2, colour: blue}\n"));
    CHECK(m.find("classes[0].colour") != std::string::npos);
  }
}

TEST_CASE("learner kind learch: its settings, its start, and errors that name the key") {
  test::TempDir dir;
  const TrainConfig plain = loadTrainConfig(write(dir, minimalConfig()));
  CHECK(plain.learner.hypothesis == CostHypothesis::Linear);
  const TrainConfig c = loadTrainConfig(write(dir, minimalConfig() + "learner:\n  kind: learch\n  learch: {rounds: 12, step: 0.25, "
                                                                       "depth: 4, min_leaf_samples: 5, samples: 999, "
                                                                       "max_cost_ratio: 1e4, seed: 9}\n"));
  const LearchSettings& l = c.learner.learch;
  CHECK(c.learner.hypothesis == CostHypothesis::Learch);
  CHECK(l.rounds == 12);
  CHECK(l.step == 0.25);
  CHECK(l.depth == 4);
  CHECK(l.min_leaf_samples == 5);
  CHECK(l.samples == 999);
  CHECK(l.max_cost_ratio == 1e4);
  CHECK(l.seed == 9);
  CHECK_FALSE(l.from_linear);
  const TrainConfig online = loadTrainConfig(write(dir, minimalConfig() + "learner: {kind: learch, learch: {start: online}, "
                                                                            "online: {epochs: 3}}\n"));
  CHECK(online.learner.learch.from_linear);
  CHECK(online.learner.kind == LearnerKind::Online);
  CHECK(online.learner.online.stop.max_iterations == 3);
  CHECK(loadTrainConfig(write(dir, minimalConfig() + "learner: {kind: learch}\n")).learner.learch.rounds == LearchSettings{}.rounds);

  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: boosted}\n"))
            .find("learner.kind: 'boosted' is not one of: online, batch, learch") != std::string::npos);
  // the cutting plane is unconstrained and cannot keep path costs positive: mmp train does not offer it
  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: cutting_plane}\n"))
            .find("learner.kind: 'cutting_plane' is not one of: online, batch, learch") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: learch, learch: {depht: 2}}\n"))
            .find("learner.learch.depht: unknown key; did you mean 'learner.learch.depth'") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: learch, learch: {depth: 40}}\n"))
            .find("learner.learch.depth: expected an integer in [1, 16], got 40") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: learch, learch: {start: linear}}\n"))
            .find("learner.learch.start: 'linear' is not one of: uniform, batch, online") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: learch, learch: {max_cost_ratio: 1}}\n"))
            .find("learner.learch.max_cost_ratio: expected a number > 1") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: learch, learch: {step: 0}}\n")).find("learner.learch.step") !=
        std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "learner: {kind: batch, learch: {rounds: 3}}\n"))
            .find("learner.learch: applies with kind: learch only") != std::string::npos);
}

TEST_CASE("every shipped train config loads, and the behaviours share every setting but the behaviour") {
  for (const char* name : {"demo", "demo_hide_in_vegetation"}) {
    CAPTURE(name);
    CHECK_NOTHROW(loadTrainConfig(std::string(mmp::test::sourceDir()) + "/configs/" + name + ".yaml"));
  }
  // The real-tile configs name images under ../shared/data beside the checkout (or $MMP_DATA_ROOT).
  const std::string aerial = test::sharedDataPath("aerial");
  if (!std::filesystem::is_directory(aerial)) {
    MESSAGE("skipped loading the real-tile configs: no aerial data at " << aerial
            << " (put the shared data sets at ../shared/data beside the checkout, or set MMP_DATA_ROOT)");
  } else {
    for (const char* name : {"follow_road", "hide_in_vegetation", "cross_country", "amphibious"}) {
      CAPTURE(name);
      CHECK_NOTHROW(loadTrainConfig(std::string(mmp::test::sourceDir()) + "/configs/" + name + ".yaml"));
      // The network configs: the behaviour's config with the network learner and no selection.
      const TrainConfig network = loadTrainConfig(std::string(mmp::test::sourceDir()) + "/configs/network/" + name + ".yaml");
      CHECK(network.learner.hypothesis == CostHypothesis::Network);
      CHECK_FALSE(network.select.has_value());
      CHECK(network.behaviour.name == loadTrainConfig(std::string(mmp::test::sourceDir()) + "/configs/" + name + ".yaml").behaviour.name);
    }
  }
  for (const char* name : {"follow_road", "hide_in_vegetation", "cross_country", "amphibious"}) {
    CAPTURE(name);
    const YAML::Node own = YAML::LoadFile(std::string(mmp::test::sourceDir()) + "/configs/" + name + ".yaml");
    std::set<std::string> keys;
    for (const auto& entry : own) keys.insert(entry.first.Scalar());
    CHECK(keys == std::set<std::string>{"base", "output_dir", "behaviour"});
    CHECK(own["base"].Scalar() == "dubai_whole_area.yaml");
  }
}

TEST_CASE("base: a config starts from another, maps merged key by key") {
  test::TempDir dir;
  write(dir, minimalConfig() + "loss: {scale: 3, radius_px: 50}\nlearner: {kind: online}\n", "base.yaml");
  const TrainConfig c = loadTrainConfig(write(dir, "base: base.yaml\nloss: {scale: 2}\n"));
  CHECK(c.loss.scale == 2.0);         // replaced
  CHECK(c.loss.radius_px == 50.0);    // kept from the base
  CHECK(c.learner.kind == LearnerKind::Online);
  CHECK(c.output_dir == "out/config");  // named after the file run, not the base
  // --set, after the bases: a dotted key into the maps (made if missing), null removes a setting.
  const TrainConfig set = loadTrainConfig(dir.file("config.yaml"), "", "", {"loss.scale=5", "learner=null", "demonstrations.seed=4"});
  CHECK(set.loss.scale == 5.0);
  CHECK(set.loss.radius_px == 50.0);
  CHECK(set.learner.kind == LearnerKind::Batch);
  CHECK(set.demonstrations.seed == 4);
  const auto setError = [&](const std::string& assignment) {
    try {
      loadTrainConfig(dir.file("config.yaml"), "", "", {assignment});
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(setError("loss.scale").find("--set 'loss.scale': expected KEY=VALUE") != std::string::npos);
  CHECK(setError("loss.scale.x=1").find("'scale' is not a map") != std::string::npos);
  CHECK(setError("loss.scale=abc").find("loss.scale: expected a finite number") != std::string::npos);
  CHECK(errorOf(write(dir, "base: missing.yaml\n")).find("cannot read config file '" + dir.file("missing.yaml") + "' (the base of") !=
        std::string::npos);
  // A missing file says so, with the nearest YAML file beside it.
  write(dir, minimalConfig(), "follow_road.yaml");
  CHECK(errorOf(dir.file("folow_road.yaml")).find("; no such file: did you mean '" + dir.file("follow_road.yaml") + "'?") !=
        std::string::npos);
  write(dir, "base: loop_b.yaml\n", "loop_a.yaml");
  write(dir, "base: loop_a.yaml\n", "loop_b.yaml");
  CHECK(errorOf(dir.file("loop_a.yaml")).find("is already in this chain of bases") != std::string::npos);
}

TEST_CASE("a key given twice is refused naming both lines, and an error in a base file names that file") {
  test::TempDir dir;
  // yaml-cpp keeps the first of two equal keys: without the check, scale 3 would win silently.
  CHECK(errorOf(write(dir, minimalConfig() + "loss: {scale: 3}\nloss: {scale: 4}\n")) ==
        dir.file("config.yaml") + ": loss: the key appears twice, on line 6 and on line 7; give it once");
  CHECK(errorOf(write(dir, minimalConfig() + "loss:\n  scale: 3\n  radius_px: 9\n  scale: 4\n")) ==
        dir.file("config.yaml") + ": loss.scale: the key appears twice, on line 7 and on line 9; give it once");
  CHECK(errorOf(write(dir, minimalConfig() + "holdout:\n  - {synthetic: {seed: 2}, synthetic: {seed: 3}}\n"))
            .find("holdout: the key appears twice, on line 4 and on line 6") != std::string::npos);
  // In a base file: the base is named, with its own line numbers.
  write(dir, minimalConfig() + "loss: {scale: 3}\nloss: {scale: 4}\n", "twice.yaml");
  CHECK(errorOf(write(dir, "base: twice.yaml\n", "top.yaml")) ==
        dir.file("twice.yaml") + ": loss: the key appears twice, on line 6 and on line 7; give it once");
  // A bad value from the base is reported against the base; one the top file sets, against the top.
  write(dir, minimalConfig() + "loss: {scale: -1, radius_px: 50}\n", "bad_base.yaml");
  const std::string from_base = errorOf(write(dir, "base: bad_base.yaml\nlearner: {kind: online}\n", "top2.yaml"));
  CHECK(from_base.rfind(dir.file("bad_base.yaml") + ": loss.scale: ", 0) == 0);
  const std::string from_top = errorOf(write(dir, "base: bad_base.yaml\nloss: {scale: 2, radius_px: -5}\n", "top3.yaml"));
  CHECK(from_top.rfind(dir.file("top3.yaml") + ": loss.radius_px: ", 0) == 0);
}

TEST_CASE("images: a pattern brings every matching image, labels found through {stem}, in one area") {
  test::TempDir dir;
  const cv::Mat image(64, 64, CV_8UC3, cv::Scalar(40, 80, 120)), labels(64, 64, CV_8UC1, cv::Scalar(1));
  for (const char* stem : {"north_2", "north_1", "south_1"}) {
    REQUIRE(cv::imwrite(dir.file(std::string(stem) + ".png"), image));
    std::filesystem::create_directories(dir.file("masks"));
    REQUIRE(cv::imwrite(dir.file("masks/" + std::string(stem) + ".png"), labels));
  }
  const std::string behaviour = "behaviour: {name: b, preferred: Road, costs: {Road: 1, Land: 5, Vegetation: 5, Water: inf, Building: 10}}\n";
  const TrainConfig c = loadTrainConfig(write(dir, behaviour +
      "train:\n  - {area: north, images: \"north_*.png\", labels: \"masks/{stem}.png\"}\n"
      "holdout:\n  - {area: south, image: south_1.png, labels: masks/south_1.png}\n"));
  REQUIRE(c.train.size() == 2);
  CHECK(c.train[0].name == "north_1");  // in file-name order
  CHECK(c.train[1].name == "north_2");
  CHECK(c.train[1].labels == dir.file("masks/north_2.png"));
  CHECK(c.train[1].area == "north");
  CHECK(c.train[1].where == "train[0] (north_2)");
  CHECK(c.holdout[0].area == "south");
  const auto error = [&](const std::string& train) {
    return errorOf(write(dir, behaviour + "train:\n  - " + train + "\nholdout:\n  - {image: south_1.png, labels: masks/south_1.png}\n"));
  };
  CHECK(error("{images: \"west_*.png\", labels: \"masks/{stem}.png\"}").find("train[0].images: no file matches") != std::string::npos);
  CHECK(error("{images: \"north_*.png\", labels: masks/north_1.png}").find("train[0].labels: with 'images', name each image's file through {stem}") !=
        std::string::npos);
  CHECK(error("{images: \"north_*.png\", labels: \"{stem}.jpg\"}").find("train[0].labels: file '" + dir.file("north_1.jpg") + "': not found") !=
        std::string::npos);
  CHECK(error("{image: north_1.png, images: \"north_*.png\"}").find("give one of 'image'") != std::string::npos);
  CHECK(errorOf(write(dir, behaviour + "train:\n  - {area: south, images: \"north_*.png\", labels: \"masks/{stem}.png\"}\n"
                      "holdout:\n  - {area: south, image: south_1.png, labels: masks/south_1.png}\n"))
            .find("holdout[0]: area 'south' is in training too") != std::string::npos);
}

TEST_CASE("select: the search space is checked key by key when the config loads") {
  test::TempDir dir;
  const TrainConfig c = loadTrainConfig(write(dir, minimalConfig() + "select: {space: {learner.costs: [linear, exponential], loss.scale: [1, 3]}}\n"));
  REQUIRE(c.select);
  REQUIRE(c.select->keys.size() == 2);
  CHECK(c.select->keys[0].name == "learner.costs");
  CHECK(c.select->keys[1].values == std::vector<std::string>{"1", "3"});
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {loss.scael: [1]}}\n")).find("select.space.loss.scael: unknown key; did you mean 'select.space.loss.scale'") !=
        std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {loss.scale: [1, -2]}}\n"))
            .find("select.space.loss.scale[1]: expected a number > 0, got '-2'") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {}}\n")).find("select.space: name at least one setting") !=
        std::string::npos);
  // A list-valued setting takes lists, each checked as --set would check it.
  const TrainConfig scales = loadTrainConfig(write(dir, minimalConfig() + "select: {space: {features.blur_sigmas: [[0, 4], [0, 4, 48]], features.texture_windows: [[7], [7, 31]]}}\n"));
  CHECK(scales.select->keys[0].values == std::vector<std::string>{"[0, 4]", "[0, 4, 48]"});
  CHECK(scales.select->keys[1].values == std::vector<std::string>{"[7]", "[7, 31]"});
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {features.texture_windows: [[7], [8]]}}\n"))
            .find("select.space.features.texture_windows[1]") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {features.blur_sigmas: [[0, [4]]]}}\n"))
            .find("select.space.features.blur_sigmas[0][1]: expected a value, got a list") != std::string::npos);
  // --set reaches one setting of the space: the rest of its dotted key is the setting's name.
  const TrainConfig narrowed = loadTrainConfig(write(dir, minimalConfig() + "select: {space: {learner.costs: [linear, exponential], loss.scale: [1, 3]}}\n"),
                                               "", "", {"select.space.loss.scale=[3]", "select.space.learner.kind=[learch]"});
  REQUIRE(narrowed.select->keys.size() == 3);
  for (const auto& key : narrowed.select->keys) {
    if (key.name == "loss.scale") CHECK(key.values == std::vector<std::string>{"3"});
    if (key.name == "learner.kind") CHECK(key.values == std::vector<std::string>{"learch"});
    CHECK((key.name == "loss.scale" || key.name == "learner.kind" || key.name == "learner.costs"));
  }
  // The procedure: successive halving with the paired rule by default; each key named with its valid values.
  CHECK(c.select->rule == SelectionRule::Paired);
  CHECK(c.select->score == SelectionScore::Pooled);
  CHECK(c.select->rungs == 3);
  CHECK_FALSE(c.select->pairs_seed);
  CHECK_FALSE(c.select->pairs);
  const TrainConfig exhaustive = loadTrainConfig(write(
      dir, minimalConfig() + "select: {space: {loss.scale: [1, 3]}, rule: lowest, score: area_median, rungs: 1, eta: 2, threads: 1, pairs_seed: 8, pairs: 40}\n"));
  CHECK(exhaustive.select->rule == SelectionRule::Lowest);
  CHECK(exhaustive.select->score == SelectionScore::AreaMedian);
  CHECK(exhaustive.select->rungs == 1);
  CHECK(exhaustive.select->eta == 2);
  CHECK(exhaustive.select->threads == 1);
  CHECK(exhaustive.select->pairs_seed == 8u);
  CHECK(exhaustive.select->pairs == 40);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {loss.scale: [1]}, pairs: 0}\n")).find("select.pairs") !=
        std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {loss.scale: [1]}, rule: best}\n")).find("select.rule") !=
        std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {loss.scale: [1]}, rule: best}\n")).find("paired, lowest") !=
        std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {loss.scale: [1]}, score: mean}\n"))
            .find("select.score") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "select: {space: {loss.scale: [1]}, rungs: 0}\n")).find("select.rungs") !=
        std::string::npos);
}

TEST_CASE("docs/config.md names every key a train config can hold, and its settings table is the library's") {
  const std::string doc = [] {
    std::ifstream in(std::string(mmp::test::sourceDir()) + "/docs/config.md");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  REQUIRE_FALSE(doc.empty());
  const auto block = [&](const std::string& name) {
    const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
    const std::size_t from = doc.find(begin), to = doc.find(end);
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    return doc.substr(from + begin.size(), to - from - begin.size());
  };
  // regenerate with: build/bin/mmp train --keys (mmp train's table, then from "### `mmp adapt`" the other
  // commands', settings:other)
  CHECK(block("settings") == settingsReference(SettingCommand::Train));
  CHECK(block("settings") + block("settings:other") == settingsReference());

  // Every key the reader allows in every section it reads, on configs that visit every section.
  std::set<std::string> keys;
  ConfigNode::observeExpectedKeys([&](const std::string& path, const std::vector<std::string>& allowed) {
    const std::string section = std::regex_replace(path, std::regex("\\[[0-9]+\\]"), "[]");
    if (section == "select.space") return;  // the settings table's keys, marked there
    for (const std::string& key : allowed) keys.insert(section.empty() ? key : section + "." + key);
  });
  test::TempDir dir;
  cv::imwrite(dir.file("a.png"), test::randomImage(1, 64, 64));
  cv::imwrite(dir.file("a_labels.png"), cv::Mat(64, 64, CV_8UC1, cv::Scalar(2)));
  cv::imwrite(dir.file("h1.png"), test::randomImage(2, 64, 64));
  std::filesystem::create_directories(dir.file("labels"));
  cv::imwrite(dir.file("labels/h1.png"), cv::Mat(64, 64, CV_8UC1, cv::Scalar(2)));
  std::ofstream(dir.file("a.csv")) << "path,x,y\n0,1,1\n0,40,40\n";
  const std::string files =
      "classes:\n  - {name: Road, index: 2, colour: '#6EC1E4'}\n  - {name: Land, index: 1}\n"
      "behaviour: {name: b, preferred: Road, costs: {Road: 1, Land: 5}}\n"
      "train:\n  - {image: a.png, labels: a_labels.png, demonstrations: a.csv, resolution: 1, origin: [0, 0]}\n"
      "holdout:\n  - {images: 'h*.png', labels: 'labels/{stem}.png', area: x}\n"
      "learner: {kind: learch, learch: {start: batch}}\nselect: {space: {loss.scale: [1, 2]}}\n";
  const std::string where = dir.file("files.yaml");
  std::ofstream(where) << files;
  CHECK(loadTrainConfig(where).select);
  loadTrainConfig(std::string(mmp::test::sourceDir()) + "/configs/demo.yaml");
  ConfigNode::observeExpectedKeys({});
  CHECK(keys.count("train[].synthetic.seed") == 1);
  CHECK(keys.count("learner.learch.depth") == 1);
  CHECK(keys.count("holdout[].crs") == 1);
  for (const std::string& key : keys) {
    CAPTURE(key);
    CHECK(doc.find("`" + key + "`") != std::string::npos);
  }
}

TEST_CASE("an adapt config reads adapt.* by the settings table's rows, and another command's section is refused naming it") {
  test::TempDir dir;
  cv::imwrite(dir.file("a.png"), test::randomImage(1, 64, 64));
  std::ofstream(dir.file("a.csv")) << "path,x,y\n0,1,1\n0,40,40\n";
  const std::string teach = "teach: [{image: a.png, demonstrations: a.csv}]\n";
  const auto adaptError = [&](const std::string& yaml, const std::vector<std::string>& overrides = {}) -> std::string {
    try {
      loadAdaptConfig(write(dir, teach + yaml, "adapt.yaml"), "", "", overrides);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  const AdaptConfig c = loadAdaptConfig(
      write(dir, teach + "adapt: {lambda: [3, 30], epochs: 5, threads: 2, held_out: false, loss: {radius_px: 12}}\n", "adapt.yaml"));
  CHECK(c.adapt.lambdas == std::vector<double>{3, 30});
  CHECK(c.adapt.lambda == 3);
  CHECK(c.adapt.epochs == 5);
  CHECK(c.adapt.threads == 2);
  CHECK_FALSE(c.adapt.held_out);
  CHECK(c.adapt.loss.radius_px == 12);
  CHECK(c.adapt.learch_rounds == AdaptationSettings{}.learch_rounds);  // the defaults stay
  CHECK(adaptError("adapt: {epochs: 2000000000}\n").find("adapt.epochs: expected an integer in [1, 100000], got 2000000000") !=
        std::string::npos);
  CHECK(adaptError("adapt: {threads: 100000}\n").find("adapt.threads: expected an integer in [0, 256]") != std::string::npos);
  CHECK(adaptError("adapt: {lambda: [3, 0]}\n").find("adapt.lambda[1]") != std::string::npos);  // each candidate in range
  CHECK(adaptError("adapt: {lambda: []}\n").find("adapt.lambda: give a number in (0, ") != std::string::npos);
  CHECK(adaptError("adapt: {epoch: 5}\n").find("adapt.epoch: unknown key; did you mean 'adapt.epochs'?") != std::string::npos);
  CHECK(adaptError("adapt: {loss: {shape: step}}\n").find("adapt.loss.shape: unknown key") != std::string::npos);
  CHECK(adaptError("suggest: {rule: committee}\n").find("suggest: the settings of mmp suggest") != std::string::npos);
  CHECK(adaptError("", {"adapt.epochs=0"}).find("adapt.epochs") != std::string::npos);  // --set: the same rows
  CHECK(loadAdaptConfig(write(dir, teach, "adapt.yaml"), "", "", {"adapt.epochs=7"}).adapt.epochs == 7);
  // and a train config refuses them, naming the command they belong to
  const std::string m = errorOf(write(dir, minimalConfig() + "adapt: {lambda: 3}\n"));
  CHECK(m.find("adapt: the settings of mmp adapt (adapt.*: an adapt config's adapt: section, mmp adapt --set or its flags); "
               "mmp train does not read them") != std::string::npos);
  CHECK(errorOf(write(dir, minimalConfig() + "serve: {max_points: 3}\n")).find("serve: the settings of mmp serve") != std::string::npos);
}

TEST_CASE("an adapt config's teach entry may name avoid and prefer strokes, a train config's entry may not, and adapt.prior is a row") {
  test::TempDir dir;
  cv::imwrite(dir.file("a.png"), test::randomImage(1, 64, 64));
  std::ofstream(dir.file("a.csv")) << "path,x,y\n0,1,1\n0,40,40\n";
  std::ofstream(dir.file("lake.csv")) << "path,x,y\nlake,50,5\nlake,60,20\n";
  std::ofstream(dir.file("track.csv")) << "path,x,y\ntrack,5,50\ntrack,20,60\ntrack 2,30,30\ntrack 2,31,31\n";
  const AdaptConfig c = loadAdaptConfig(write(
      dir, "teach: [{image: a.png, demonstrations: a.csv, avoid: lake.csv, prefer: track.csv}]\nadapt: {prior: costs}\n", "adapt.yaml"));
  REQUIRE(c.train.size() == 1);
  CHECK(c.train[0].avoid.size() == 1);
  CHECK(c.train[0].avoid[0].name == "lake");
  CHECK(c.train[0].prefer.size() == 2);
  CHECK(c.train[0].prefer_file == dir.file("track.csv"));
  CHECK_THROWS_WITH_AS(loadAdaptConfig(write(dir, "teach: [{image: a.png, demonstrations: a.csv, prefer: none.csv}]\n", "adapt.yaml")),
                       doctest::Contains("teach[0].prefer: file '"), ConfigError);
  CHECK(c.adapt.prior == AdaptationPrior::Costs);
  CHECK_THROWS_WITH_AS(loadAdaptConfig(write(dir, "teach: [{image: a.png, demonstrations: a.csv, avoid: none.csv}]\n", "adapt.yaml")),
                       doctest::Contains("teach[0].avoid: file '"), ConfigError);
  CHECK_THROWS_WITH_AS(loadAdaptConfig(write(dir, "teach: [{image: a.png, demonstrations: a.csv}]\nadapt: {prior: both}\n", "adapt.yaml")),
                       doctest::Contains("adapt.prior: 'both' is not one of: weights, costs"), ConfigError);
  const std::string train = "behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 5, Vegetation: 5, Water: inf, "
                            "Building: 10}}\ntrain: [{image: a.png, demonstrations: a.csv, avoid: lake.csv}]\n";
  CHECK(errorOf(write(dir, train)).find("train[0].avoid: unknown key") != std::string::npos);
}

TEST_CASE("every row of the settings table checks a program's values as it checks a config's") {
  PipelineSettings s;
  for (const SettingCommand command : {SettingCommand::Train, SettingCommand::Adapt, SettingCommand::Suggest, SettingCommand::Serve}) {
    CHECK_NOTHROW(checkSettings(s, command));  // the defaults are in range
  }
  s.page.max_points = 1;
  CHECK_THROWS_WITH_AS(s.page.validate(), doctest::Contains("serve.max_points: expected a whole number 2..1000000, got '1'"), InvalidArgument);
  s.suggestion_search.n = 0;
  CHECK_THROWS_WITH_AS(checkSettings(s, SettingCommand::Suggest), doctest::Contains("suggest.n: expected a whole number 1..1000, got '0'"),
                       InvalidArgument);
  const std::string reference = settingsReference();
  for (const SettingKey& k : settingKeys()) CHECK(reference.find("| `" + k.key + "`") != std::string::npos);
  CHECK(reference.find("### `mmp adapt`") != std::string::npos);
  CHECK(findSettingKey("adapt.lambda")->command == SettingCommand::Adapt);
}

TEST_CASE("--print-config: the effective config loads as the same settings, and prints itself") {
  test::TempDir dir;
  const std::string given = write(dir, minimalConfig() + "loss: {scale: 3}\nlearner: {kind: online, online: {lambda: 0.1}}\n");
  const std::string effective = effectiveTrainConfig(given, "", {"features.bins=5", "features.complements=false"});
  CHECK(effective.find("bins: 5") != std::string::npos);
  CHECK(std::regex_search(effective, std::regex("lambda: 0\\.1[,}\\n]")));  // the shortest exact text
  CHECK(effective.find("texture_windows: [7]") != std::string::npos);  // a default, written out
  const std::string again = write(dir, effective, "effective.yaml");
  const TrainConfig a = loadTrainConfig(given, "", "", {"features.bins=5", "features.complements=false"});
  const TrainConfig b = loadTrainConfig(again);
  for (const SettingKey& k : settingKeys()) {
    CAPTURE(k.key);
    CHECK(k.get(a) == k.get(b));
  }
  CHECK(b.learner.online.lambda == 0.1);
  const std::string printed = effectiveTrainConfig(again);
  CHECK(printed.substr(printed.find('\n')) == effective.substr(effective.find('\n')));  // but the first line (the file's name)
}

// This suite registers no network backend (tests/network_backend.cpp registers one for test_maps_training
// only), as a C++ program that links mmp and trains a network without registering would.
TEST_CASE("network training without a registered backend says how to register one, and passes on a loader's reason") {
  if (!networkTrainingAvailable()) return;
  CHECK_THROWS_WITH_AS(torchLogCosts(CostNetwork{}, {}, 1, 1),
                       doctest::Contains("registered no libtorch backend (the mmp command and Python's mmp register "
                                         "theirs at start; a C++ program links <libdir>/mmp/libmmp_torch.so and calls "
                                         "mmp::setNetworkBackend(mmp_network_torch_module())"),
                       Error);
  setNetworkBackend([](std::string& why) -> const NetworkTorchModule* {
    why = "no module here";
    return nullptr;
  });
  CHECK_THROWS_WITH_AS(torchLogCosts(CostNetwork{}, {}, 1, 1), "network training: no module here", Error);
}

TEST_CASE("class_mean without a holdout to score is named as not scored, not ignored silently") {
  test::TempDir dir;
  const std::string yaml = "behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 5, Vegetation: 5, Water: inf, "
                           "Building: 10}}\ntrain:\n  - synthetic: {seed: 1, rows: 128, cols: 128}\nevaluation: {class_mean: true}\n";
  const TrainConfig c = loadTrainConfig(write(dir, yaml));
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].find("evaluation.class_mean scores the holdout images' labels; this config has no holdout, so it is not scored") !=
        std::string::npos);
  CHECK(loadTrainConfig(write(dir, minimalConfig() + "evaluation: {class_mean: true}\n")).warnings.empty());
}
