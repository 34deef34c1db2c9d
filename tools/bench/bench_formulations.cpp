// bench_formulations: seed 004's comparison (Sarawagi and Gupta, ICML 2008) -- margin scaling, slack
// scaling (approximate, and exact where the task affords it) and PosLearn -- on OCR (both protocols,
// letter error) and on Yeast and Scene (Hamming loss), each formulation with its best learner, the
// learner and lambda chosen on validation splits of the training data only; dlib's structural SVM in
// the same run on OCR as the margin-scaling peer.  Then the cutting-plane learner against a long batch
// subgradient run on each formulation's objective, and dlib's time on the same words.  A benchmark.
//
// Prints tables and, last, one JSON line
//   {"ocr_small":{"margin":{"err":..,"s":..,"learner":..},...,"dlib":{...}},"ocr_large":{...},
//    "yeast":{"margin":{"hamming":..,"subset":..},...},"scene":{...},"cutting_plane":{...}}
//
//   build/bin/bench_formulations [--folds N] [--protocols small,large] [--sets yeast,scene]
//                                [--formulations margin,slack,slack_exact,poslearn] [--extend-at-edge N] [--no-dlib]
#include <mmp/frontend/config.hpp>
#include <mmp/frontend/default_config.hpp>
#include "dlib_chain.hpp"
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/datasets/multilabel_data.hpp>
#include <mmp/frontend/multilabel_experiment.hpp>
#include <mmp/frontend/ocr_experiment.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/formulation.hpp>
#include <mmp/core/objective.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <limits>
#include <map>

namespace {

using namespace mmp;
using namespace mmp::tools;

struct BenchOptions {
  std::string config_dir;
  std::string data_root;
  int folds = 10;
  std::vector<std::string> protocols = {"small", "large"};
  std::vector<std::string> sets = {"yeast", "scene"};
  std::vector<std::string> formulations = {"margin", "slack", "slack_exact", "poslearn"};
  std::vector<std::string> ocr_learners = {"online"};
  std::vector<std::string> multilabel_learners = {"online", "cutting_plane"};
  int extend_at_edge = 2;  ///< more lambdas while a choice is at the grid's edge (HeldOutParams)
  bool no_dlib = false;
  bool no_cutting_plane_check = false;
  double dlib_c = 100.0;
};


// One (formulation, learner) over the folds of a protocol.
struct OcrRun {
  std::string learner;
  double held_out = 0.0, test_error = 0.0, train_seconds = 0.0, validation_seconds = 0.0, test_seconds = 0.0;
  std::vector<double> lambdas;
};

OcrRun runOcr(const datasets::OcrWords& words, datasets::OcrProtocol protocol, int folds, OcrLearnerSettings settings) {
  OcrRun run;
  run.learner = describe(settings.learner.kind);
  for (int k = 0; k < folds; ++k) {
    const OcrFoldResult r = runOcrFold(words, protocol, k, settings);
    double held = std::numeric_limits<double>::infinity();
    for (const LambdaValidation& v : r.validation) held = std::min(held, v.error);
    run.held_out += held / folds;
    run.test_error += r.test_error / folds;
    run.validation_seconds += r.validation_seconds;
    run.train_seconds += r.train_seconds - r.validation_seconds;
    run.test_seconds += r.test_seconds;
    run.lambdas.push_back(r.lambda);
    std::printf("  fold %d: %s, %s: lambda %g, held-out %.4f, test %.4f, %.2f s training\n", k,
                describe(settings.formulation).c_str(), run.learner.c_str(), r.lambda, held, r.test_error,
                r.train_seconds - r.validation_seconds);
    std::fflush(stdout);
  }
  return run;
}

std::string lambdasText(const std::vector<double>& lambdas) {
  std::map<double, int> count;
  for (double l : lambdas) ++count[l];
  std::string text;
  for (const auto& [l, n] : count) {
    char entry[48];
    std::snprintf(entry, sizeof entry, "%s%.4gx%d", text.empty() ? "" : " ", l, n);
    text += entry;
  }
  return text;
}

Json benchOcr(const BenchOptions& options, const std::string& name) {
  const ConfigNode config = ConfigNode::load(benchConfigPath(options.config_dir, "ocr_" + name + ".yaml"));
  config.expectKeys(ocrConfigKeys());
  const datasets::OcrProtocol protocol = datasets::parseOcrProtocol(name);
  const datasets::OcrDataset data = datasets::readOcrDataset(datasets::locateOcrData(resolveDataRoot(options.data_root, config), config.file()));
  const OcrLearnerSettings base = ocrLearnerSettings(config);
  const double lambda = base.learner.lambda();
  // The config's lambda (chosen for margin scaling) and a wider grid above it: slack and PosLearn
  // losses are larger (PosLearn sums a term per letter), so their best lambda tends to be larger; the
  // grid grows by up to two steps of 3 where a fold's choice sits at its edge.
  const std::vector<double> lambdas = {9 * lambda, 3 * lambda, lambda, lambda / 3};
  std::printf("\nOCR, %s protocol, %d fold(s): lambda among %g, %g, %g, %g per fold on 0.2 of its training words "
              "(up to %d more, a step of 3 at a time, while the choice is at the grid's edge)\n",
              name.c_str(), options.folds, lambdas[0], lambdas[1], lambdas[2], lambdas[3], options.extend_at_edge);
  std::printf("%-12s %-14s %10s %10s %10s %10s  %s\n", "formulation", "learner", "held-out", "test err", "train s",
              "valid. s", "lambdas");
  Json json = Json::object();
  for (const std::string& f : options.formulations) {
    OcrRun best;
    best.held_out = std::numeric_limits<double>::infinity();
    for (const std::string& learner : options.ocr_learners) {
      OcrLearnerSettings s = base;
      s.formulation = parseFormulation(f);
      s.learner.kind = parseLearnerKind(learner);
      s.learner.setLambda(lambda);
      s.validation_lambdas = lambdas;
      s.validation_extend_at_edge = options.extend_at_edge;
      const OcrRun run = runOcr(data.words, protocol, options.folds, s);
      if (run.held_out < best.held_out) best = run;
    }
    std::printf("%-12s %-14s %10.4f %10.4f %10.2f %10.2f  %s\n", f.c_str(), best.learner.c_str(), best.held_out,
                best.test_error, best.train_seconds, best.validation_seconds, lambdasText(best.lambdas).c_str());
    json[f] = {{"learner", best.learner}, {"held_out", best.held_out}, {"err", best.test_error},
               {"s", best.train_seconds + best.test_seconds}, {"validation_s", best.validation_seconds}};
  }
  if (!options.no_dlib) {
    double error = 0.0, seconds = 0.0;
    for (int k = 0; k < options.folds; ++k) {
      const MethodFold d = runDlibFold(data.words, datasets::foldSplit(data.words.folds, protocol, k), base.start_end, options.dlib_c, 2);
      error += d.error / options.folds;
      seconds += d.train_seconds + d.test_seconds;
    }
    std::printf("%-12s %-14s %10s %10.4f %10.2f %10s  C %g, 2 threads\n", "margin", "dlib", "", error, seconds, "",
                options.dlib_c);
    json["dlib"] = {{"err", error}, {"s", seconds}, {"c", options.dlib_c}};
  }
  return json;
}

Json benchMultilabel(const BenchOptions& options, const std::string& set) {
  const ConfigNode config = ConfigNode::load(benchConfigPath(options.config_dir, "multilabel_" + set + ".yaml"));
  const std::string root = resolveDataRoot(options.data_root, config);
  const auto [train, test] = datasets::readStandardSplit(root, set);
  MultilabelSettings base;
  base.inference = MultilabelInference::Exact;  // slack and PosLearn need a labelling's loss
  base.lambdas = {1, 0.3, 0.1, 0.03, 0.01};
  base.extend_at_edge = options.extend_at_edge;
  base.learner.online.stop.max_iterations = 20;  // shuffled, late-weighted averaging: as the OCR configs
  base.learner.online.shuffle = true;
  base.learner.online.averaging = Averaging::LateWeighted;
  base.learner.cutting_plane.stop.max_iterations = 200;
  std::printf("\n%s: %zu training, %zu test rows, %d labels; exact inference; learner and lambda (1 .. 0.01, up to %d "
              "more steps while the choice is at the grid's edge) by 5-fold cross-validation on the training rows\n",
              set.c_str(), train.size(), test.size(), train.labels, options.extend_at_edge);
  std::printf("%-12s %-14s %8s %10s %10s %10s %10s\n", "formulation", "learner", "lambda", "valid. Ham", "test Ham",
              "subset", "train s");
  Json json = Json::object();
  for (const std::string& f : options.formulations) {
    const Formulation formulation = parseFormulation(f);
    if (formulation == Formulation::SlackExact && std::pow(2.0, train.labels) > 1024) {
      std::printf("%-12s (2^%d labellings per call: left out)\n", f.c_str(), train.labels);
      continue;
    }
    MultilabelResult best;
    double best_valid = std::numeric_limits<double>::infinity();
    std::string best_learner;
    for (const std::string& learner : options.multilabel_learners) {
      MultilabelSettings s = base;
      s.formulation = formulation;
      s.learner.kind = parseLearnerKind(learner);
      const MultilabelResult r = runMultilabel(train, test, s);
      double valid = std::numeric_limits<double>::infinity();
      for (const MultilabelValidation& v : r.validation) valid = std::min(valid, v.held_out.hamming);
      std::printf("  %s, %s: lambda %g, validation %.4f, test %.4f, %.2f s\n", f.c_str(), learner.c_str(), r.lambda,
                  valid, r.test.hamming, r.train_seconds);
      std::fflush(stdout);
      if (valid < best_valid) best_valid = valid, best = r, best_learner = learner;
    }
    std::printf("%-12s %-14s %8g %10.4f %10.4f %10.4f %10.2f\n", f.c_str(), best_learner.c_str(), best.lambda, best_valid,
                best.test.hamming, best.test.subset, best.train_seconds);
    json[f] = {{"learner", best_learner}, {"lambda", best.lambda}, {"validation_hamming", best_valid},
               {"hamming", best.test.hamming}, {"subset", best.test.subset}, {"s", best.train_seconds}};
  }
  return json;
}

// The cutting-plane learner against long batch subgradient runs on each formulation's objective
// (OCR small protocol, fold 0's training words, lambda = 1/C), and dlib's time and objective there.
Json cuttingPlaneCheck(const BenchOptions& options) {
  const ConfigNode config = ConfigNode::load(benchConfigPath(options.config_dir, "ocr_small.yaml"));
  const datasets::OcrDataset data = datasets::readOcrDataset(datasets::locateOcrData(resolveDataRoot(options.data_root, config), config.file()));
  const datasets::FoldSplit split = datasets::foldSplit(data.words.folds, datasets::OcrProtocol::Small, 0);
  const double lambda = 1.0 / options.dlib_c;
  std::vector<ChainExample> examples;
  for (std::size_t i : split.train) examples.emplace_back(data.words.data, i);
  ExampleList list;
  for (const ChainExample& e : examples) list.push_back(&e);
  std::printf("\ncutting plane against batch subgradient, OCR fold 0's %zu training words, lambda %g (dlib C %g)\n",
              examples.size(), lambda, options.dlib_c);
  std::printf("%-12s %-22s %12s %10s %8s\n", "formulation", "learner", "objective", "seconds", "passes");
  Json json = Json::object();
  for (const std::string& f : options.formulations) {
    std::vector<FormulatedExample> adapters;
    const ExampleList formulated = formulate(list, parseFormulation(f), adapters);
    const Objective objective(formulated, {lambda, 1});
    LearnerSettings cp;
    cp.kind = LearnerKind::CuttingPlane;
    cp.cutting_plane.lambda = lambda;
    cp.cutting_plane.stop.max_iterations = 1000;
    LearnerSettings batch;
    batch.kind = LearnerKind::Batch;
    batch.batch.lambda = lambda;
    batch.batch.steps = StepSchedule::constant(0.2);
    batch.batch.averaging = Averaging::LateWeighted;
    batch.batch.stop.max_iterations = 2000;
    Json row = Json::object();
    for (const auto& [name, settings] : {std::pair<std::string, LearnerSettings>{"cutting_plane", cp}, {"batch", batch}}) {
      const std::unique_ptr<Learner> learner = makeLearner(settings);
      const Eigen::VectorXd w = learner->train(formulated);
      const double value = objective.evaluate(w).value;
      std::printf("%-12s %-22s %12.6f %10.2f %8ld\n", f.c_str(), name.c_str(), value, learner->seconds(), learner->passes());
      row[name] = {{"objective", value}, {"s", learner->seconds()}, {"passes", learner->passes()}};
    }
    const double cp_value = row["cutting_plane"]["objective"].get<double>();
    const double batch_value = row["batch"]["objective"].get<double>();
    row["relative_to_batch"] = (cp_value - batch_value) / batch_value;
    if (f == "margin" && !options.no_dlib) {
      Eigen::VectorXd w;
      const MethodFold d = runDlibFold(data.words, split, true, options.dlib_c, 1, &w);
      const double value = objective.evaluate(w).value;
      std::printf("%-12s %-22s %12.6f %10.2f\n", f.c_str(), "dlib (1 thread)", value, d.train_seconds);
      row["dlib"] = {{"objective", value}, {"s", d.train_seconds}};
    }
    json[f] = std::move(row);
  }
  return json;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_formulations: margin, slack and PosLearn on OCR, Yeast and Scene; the cutting-plane learner"};
  BenchOptions options;
  app.add_option("--folds", options.folds, "OCR folds per protocol, 1..10")->check(CLI::Range(1, 10))->capture_default_str();
  app.add_option("--protocols", options.protocols, "OCR protocols: small, large (none: --protocols '')")->delimiter(',');
  app.add_option("--sets", options.sets, "multilabel sets: yeast, scene")->delimiter(',');
  app.add_option("--formulations", options.formulations, "margin, slack, slack_exact, poslearn")->delimiter(',');
  app.add_option("--ocr-learners", options.ocr_learners, "learners tried on OCR: online, batch, cutting_plane")->delimiter(',');
  app.add_option("--multilabel-learners", options.multilabel_learners, "learners tried on Yeast and Scene")->delimiter(',');
  app.add_option("--extend-at-edge", options.extend_at_edge, "more lambdas, a grid step at a time, while a choice is at the grid's edge")
      ->check(CLI::Range(0, 10))
      ->capture_default_str();
  app.add_option("--config-dir", options.config_dir, "folder with the ocr_*.yaml and multilabel_*.yaml configs");
  app.add_option("--data-root", options.data_root, "folder holding ocr/ and multilabel/ (default: the configs' data_root)");
  app.add_option("--dlib-c", options.dlib_c, "dlib's C; the cutting-plane check uses lambda = 1/C")->capture_default_str();
  app.add_flag("--no-dlib", options.no_dlib, "leave dlib out");
  app.add_flag("--no-cutting-plane-check", options.no_cutting_plane_check, "leave the cutting-plane check out");
  try {
    app.parse(argc, argv);
    Json json = Json::object();
    for (const std::string& p : options.protocols) {
      if (!p.empty()) json["ocr_" + p] = benchOcr(options, p);
    }
    for (const std::string& set : options.sets) {
      if (!set.empty()) json[set] = benchMultilabel(options, set);
    }
    if (!options.no_cutting_plane_check) json["cutting_plane"] = cuttingPlaneCheck(options);
    std::printf("\n%s\n", jsonText(json, -1).c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const mmp::Error& e) {
    std::cerr << "bench_formulations: error: " << e.what() << "\n";
    return 1;
  }
}
