// The OCR experiment's error curve (ocr_experiment.hpp): each curve point must be the model that
// training for that many passes returns, for every learner (the online learner calls back once per
// word, the batch learner once per iteration and one iteration early, the cutting plane once per
// iteration with its best weights so far).
#include <mmp/frontend/ocr_experiment.hpp>

#include <mmp/core/error.hpp>

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

using namespace mmp;
using namespace mmp::tools;

namespace {

// 60 words of 2-4 letters a..c over the ten folds; each letter lights a few pixels of its own and a
// few shared ones, so that the learners make mistakes and the error falls over the passes.
datasets::OcrWords syntheticWords() {
  std::ostringstream text;
  unsigned state = 7;
  const auto next = [&state] { return state = state * 1103515245u + 12345u, (state >> 16) % 100; };
  int id = 1;
  for (int word = 0; word < 60; ++word) {
    const int length = 2 + word % 3;
    for (int position = 1; position <= length; ++position, ++id) {
      const int label = static_cast<int>(next() % 3);
      text << id << '\t' << char('a' + label) << '\t' << (position == length ? -1 : id + 1) << '\t' << word << '\t'
           << position << '\t' << word % 10;
      for (int p = 0; p < datasets::kLetterPixels; ++p) {
        const bool own = p / 8 == label && next() < 70, shared = p >= 100 && next() < 30;
        text << '\t' << (own || shared ? 1 : 0);
      }
      text << "\t\n";
    }
  }
  std::istringstream in(text.str());
  const datasets::LetterData letters = datasets::parseLetters(in, "synthetic");
  return datasets::ocrWords(letters, datasets::groupWords(letters));
}

}  // namespace

TEST_CASE("OCR error curve: the point after p passes is the model trained for p passes, for every learner") {
  const datasets::OcrWords words = syntheticWords();
  for (LearnerKind kind : {LearnerKind::Online, LearnerKind::Batch, LearnerKind::CuttingPlane}) {
    CAPTURE(describe(kind));
    OcrLearnerSettings settings;
    settings.learner.kind = kind;
    settings.learner.setPasses(6);
    settings.learner.batch.steps = StepSchedule::constant(0.5);
    settings.learner.cutting_plane.stop.tolerance = 0.0;  // all six iterations, whatever the gap
    const OcrFoldResult with_curve = runOcrFold(words, datasets::OcrProtocol::Large, 0, settings, 6);
    REQUIRE(with_curve.curve.passes == std::vector<long>{1, 2, 3, 4, 5, 6});
    for (long p = 1; p <= 6; ++p) {
      CAPTURE(p);
      settings.learner.setPasses(p);
      const OcrFoldResult trained = runOcrFold(words, datasets::OcrProtocol::Large, 0, settings);
      CHECK(trained.curve.passes.empty());
      CHECK(with_curve.curve.test_error[p - 1] == trained.test_error);
      CHECK(with_curve.curve.train_error[p - 1] == trained.train_error);
    }
    CHECK(with_curve.curve.test_error.back() == with_curve.test_error);
  }
}

TEST_CASE("OCR learner settings: beta by length follows the chosen learner's q") {
  OcrLearnerSettings settings;
  CHECK(settings.chainOptions().length_power == 0.0);
  settings.beta_by_length = true;
  settings.learner.online.q = 2;
  settings.learner.batch.q = 1;
  settings.learner.kind = LearnerKind::Online;
  CHECK(settings.chainOptions().length_power == 2.0);
  settings.learner.kind = LearnerKind::Batch;
  CHECK(settings.chainOptions().length_power == 1.0);
  CHECK(settings.describe().find("batch subgradient") == 0);
  CHECK(settings.describe().find("beta 1/length") != std::string::npos);
  CHECK(settings.describe().find("formulation") == std::string::npos);
  settings.formulation = Formulation::PosLearn;
  CHECK(settings.describe().find("poslearn formulation") != std::string::npos);
}

TEST_CASE("OCR learner settings: learner: cutting_plane and its section are read from the config") {
  const auto settingsOf = [](const std::string& yaml) {
    const ConfigNode config(YAML::Load(yaml), "ocr.yaml", "");
    config.expectKeys(ocrConfigKeys());
    return ocrLearnerSettings(config);
  };
  const OcrLearnerSettings s = settingsOf(
      "learner: cutting_plane\nbeta: by_length\ncutting_plane: {lambda: 0.05, iterations: 300, tolerance: 1e-4, "
      "absolute_tolerance: 1e-9, plane_age_limit: 20, threads: 2, time_budget_seconds: 60}\n");
  CHECK(s.learner.kind == LearnerKind::CuttingPlane);
  CHECK(s.learner.lambda() == 0.05);
  CHECK(s.learner.passes() == 300);
  CHECK(s.learner.cutting_plane.stop.tolerance == 1e-4);
  CHECK(s.learner.cutting_plane.absolute_tolerance == 1e-9);
  CHECK(s.learner.cutting_plane.plane_age_limit == 20);
  CHECK(s.learner.cutting_plane.threads == 2);
  CHECK(s.learner.cutting_plane.stop.time_budget_seconds == 60.0);
  CHECK(s.chainOptions().length_power == 1.0);  // q = 1
  CHECK(s.describe().find("cutting plane, lambda 0.05") == 0);
  CHECK_THROWS_WITH_AS(settingsOf("learner: cutting_plane\ncutting_plane: {q: 2}\n"),
                       doctest::Contains("cutting_plane.q: unknown key"), ConfigError);
  CHECK_THROWS_WITH_AS(settingsOf("cutting_plane: {lambda: 0}\n"), doctest::Contains("cutting_plane.lambda"), ConfigError);
  CHECK_THROWS_WITH_AS(settingsOf("learner: cutting-plane\n"),
                       doctest::Contains("'cutting-plane' is not one of: online, batch, cutting_plane"), ConfigError);
}

TEST_CASE("OCR learner settings: the validation section, extend_at_edge included, and its bounds") {
  const auto settingsOf = [](const std::string& yaml) {
    const ConfigNode config(YAML::Load(yaml), "ocr.yaml", "");
    config.expectKeys(ocrConfigKeys());
    return ocrLearnerSettings(config);
  };
  const OcrLearnerSettings s =
      settingsOf("validation: {lambdas: [0.03, 0.01], fraction: 0.25, choose_passes: true, extend_at_edge: 2}\n");
  CHECK(s.validation_lambdas == std::vector<double>{0.03, 0.01});
  CHECK(s.validation_fraction == 0.25);
  CHECK(s.validation_passes);
  CHECK(s.validation_extend_at_edge == 2);
  CHECK(settingsOf("learner: online\n").validation_extend_at_edge == 0);
  CHECK_THROWS_WITH_AS(settingsOf("validation: {lambdas: [0.01], extend_at_edge: -1}\n"),
                       doctest::Contains("validation.extend_at_edge"), ConfigError);
}
