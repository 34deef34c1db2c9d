// bench_bcfw: block-coordinate Frank-Wolfe (learners/bcfw.hpp) against the cutting plane and the batch
// subgradient on OCR: the seconds each needs to reach the cutting plane's final objective (eq. 4, q = 1)
// within a relative 1e-3, on fold 0's training words of each protocol.  A benchmark, not a test; it
// needs no peer library, so it is built with the tools.
//
// Prints a table per protocol and, last, one JSON line
//   {"small":{"target":..,"cutting_plane":{"objective":..,"s":..,"s_to_target":..,...},"bcfw":{...},
//             "bcfw_averaged":{...},"batch":{...},...},"large":{...}}
//
//   build/bin/bench_bcfw [--protocols small,large] [--c C] [--config-dir DIR] [--data-root DIR]
#include <mmp/frontend/config.hpp>
#include <mmp/frontend/default_config.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/ocr_experiment.hpp>

#include <mmp/core/error.hpp>
#include <mmp/learners/learner_settings.hpp>

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

namespace {

using namespace mmp;
using namespace mmp::tools;

struct BenchOptions {
  std::string config_dir;
  std::string data_root;
  std::vector<std::string> protocols = {"small"};
  double dlib_c = 100.0;  ///< lambda = 1/C, as bench_formulations' cutting-plane check
  long bcfw_passes = 2000;  ///< BCFW's budget of passes (it stops sooner at a certified relative gap of 1e-3)
};


// The first trace record whose value is within a relative `tolerance` of `target` (value <= target
// (1 + tolerance)), or null; NaN values (passes BCFW did not certify) never qualify.
const TraceRecord* firstWithin(const std::vector<TraceRecord>& trace, double target, double tolerance) {
  for (const TraceRecord& r : trace) {
    if (r.value <= target * (1.0 + tolerance)) return &r;
  }
  return nullptr;
}

// Block-coordinate Frank-Wolfe against the cutting plane and the batch subgradient on the margin
// objective (eq. 4, q = 1, lambda = 1/C) of fold 0's training words: the cutting plane is run to its
// default relative gap of 1e-3 and its final c is the target; each learner's time to c <= target (1 + 1e-3) is
// read off its trace (its elapsed seconds: BCFW's include its certificate passes, the batch learner's
// value is c of its current iterate).  One thread each.
Json compareOnFold0(const BenchOptions& options, const std::string& name) {
  const datasets::OcrProtocol protocol = datasets::parseOcrProtocol(name);
  const ConfigNode config = ConfigNode::load(benchConfigPath(options.config_dir, "ocr_" + name + ".yaml"));
  const datasets::OcrDataset data = datasets::readOcrDataset(datasets::locateOcrData(resolveDataRoot(options.data_root, config), config.file()));
  const datasets::FoldSplit split = datasets::foldSplit(data.words.folds, protocol, 0);
  const double lambda = 1.0 / options.dlib_c;
  constexpr double kWithin = 1e-3;
  std::vector<ChainExample> examples;
  for (std::size_t i : split.train) examples.emplace_back(data.words.data, i);
  ExampleList list;
  for (const ChainExample& e : examples) list.push_back(&e);

  LearnerSettings cp;
  cp.kind = LearnerKind::CuttingPlane;
  cp.cutting_plane.lambda = lambda;
  cp.cutting_plane.stop = StopCriteria{1000, 1e-3};  // its defaults: a relative gap of 1e-3
  LearnerSettings bcfw;
  bcfw.kind = LearnerKind::Bcfw;
  bcfw.bcfw.lambda = lambda;
  bcfw.bcfw.stop = StopCriteria{options.bcfw_passes, 1e-3};
  LearnerSettings bcfw_avg = bcfw;
  bcfw_avg.bcfw.averaging = true;
  LearnerSettings batch;
  batch.kind = LearnerKind::Batch;
  batch.batch.lambda = lambda;
  batch.batch.steps = StepSchedule::constant(0.2);  // the OCR configs' batch step (bench's cutting-plane check too)
  batch.batch.stop.max_iterations = name == "small" ? 1000 : 300;
  std::printf("\nBCFW against the cutting plane and the batch subgradient, OCR %s protocol, fold 0's %zu training "
              "words, lambda %g: seconds to the cutting plane's final c (relative gap 1e-3) within a relative %g\n",
              name.c_str(), examples.size(), lambda, kWithin);
  std::printf("%-26s %12s %10s %8s %12s %10s %12s\n", "learner", "objective", "seconds", "passes", "s to target",
              "passes to", "final gap");
  Json json = Json::object();
  double target = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [label, settings] :
       {std::pair<std::string, LearnerSettings>{"cutting_plane", cp}, {"bcfw", bcfw}, {"bcfw_averaged", bcfw_avg},
        {"batch", batch}}) {
    const std::unique_ptr<Learner> learner = makeLearner(settings);
    learner->train(list);
    if (label == "cutting_plane") target = learner->objective();
    const TraceRecord* reached = firstWithin(learner->trace(), target, kWithin);
    const double gap = learner->trace().empty() ? std::numeric_limits<double>::quiet_NaN() : learner->trace().back().gap;
    char seconds_to[32] = "not reached", passes_to[32] = "-";
    if (reached) {
      std::snprintf(seconds_to, sizeof seconds_to, "%.2f", reached->elapsed_seconds);
      std::snprintf(passes_to, sizeof passes_to, "%ld", reached->iteration);
    }
    std::printf("%-26s %12.6f %10.2f %8ld %12s %10s %12.3g\n", label.c_str(), learner->objective(), learner->seconds(),
                learner->passes(), seconds_to, passes_to, gap);
    std::fflush(stdout);
    Json row = {{"objective", learner->objective()}, {"s", learner->seconds()}, {"passes", learner->passes()},
                {"info", describe(learner->info()) + ": " + learner->message()}};
    if (reached) row["s_to_target"] = reached->elapsed_seconds, row["passes_to_target"] = reached->iteration;
    if (std::isfinite(gap)) row["final_gap"] = gap;
    json[label] = std::move(row);
  }
  json["target"] = target;
  json["within"] = kWithin;
  json["lambda"] = lambda;
  json["train_words"] = examples.size();
  return json;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_bcfw: block-coordinate Frank-Wolfe against the cutting plane and the batch subgradient on OCR"};
  BenchOptions options;
  app.add_option("--protocols", options.protocols, "OCR protocols, fold 0 of each: small, large")->delimiter(',');
  app.add_option("--c", options.dlib_c, "C of the objective: lambda = 1/C")->capture_default_str();
  app.add_option("--bcfw-passes", options.bcfw_passes, "BCFW's budget of passes (it stops at a relative gap of 1e-3)")
      ->capture_default_str()->check(CLI::Range(1L, 1000000L));
  app.add_option("--config-dir", options.config_dir, "folder with ocr_small.yaml and ocr_large.yaml (for data_root)");
  app.add_option("--data-root", options.data_root, "folder holding ocr/letter.data.gz (default: the configs' data_root)");
  try {
    app.parse(argc, argv);
    Json json = Json::object();
    for (const std::string& p : options.protocols) json[p] = compareOnFold0(options, p);
    std::printf("\n%s\n", jsonText(json, -1).c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const mmp::Error& e) {
    std::cerr << "bench_bcfw: error: " << e.what() << "\n";
    return 1;
  }
}
