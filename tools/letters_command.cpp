// `mmp letters`: single-letter recognition on Taskar's OCR letters (each letter on its own, 128
// pixels + bias, Crammer-Singer multiclass SVM), trained by both learners through the oracle
// contract.  Trains on the configured folds (fold 0 by default), tests on the others.
#include "commands.hpp"
#include "config.hpp"
#include "json_output.hpp"
#include "learner_config.hpp"
#include "letters.hpp"
#include "ocr_experiment.hpp"
#include "progress.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/tasks/multiclass.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <algorithm>

#ifndef MMP_SOURCE_DIR
#define MMP_SOURCE_DIR "."
#endif

namespace mmp::tools {
namespace {

struct LettersOptions {
  std::string config = std::string(MMP_SOURCE_DIR) + "/configs/letters.yaml";
  std::string data_root;
  int threads = -1;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double errorRate(const std::vector<std::unique_ptr<MulticlassExample>>& examples, const Eigen::VectorXd& w) {
  std::size_t wrong = 0;
  for (const auto& e : examples) wrong += e->predict(w) != e->label();
  return static_cast<double>(wrong) / static_cast<double>(examples.size());
}

void runLetters(const LettersOptions& options) {
  const ConfigNode config = ConfigNode::load(options.config);
  config.expectKeys({"data_root", "train_folds", "online", "batch"});
  const std::string root = resolveDataRoot(options.data_root, config);
  const std::string path = locateOcrData(root, options.config);
  const std::vector<long> train_folds = config.integers("train_folds", {0}, 0, 9);

  auto t0 = std::chrono::steady_clock::now();
  const LetterData data = readLetters(path);
  const double read_seconds = secondsSince(t0);

  std::vector<std::unique_ptr<MulticlassExample>> train, test;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const bool is_train = std::find(train_folds.begin(), train_folds.end(), data.folds[i]) != train_folds.end();
    (is_train ? train : test)
        .push_back(std::make_unique<MulticlassExample>(data.featuresWithBias(i), data.labels[i], kLetterClasses));
  }
  if (train.empty() || test.empty()) throw ConfigError(options.config + ": train_folds leaves no training or no test letters");
  ExampleList train_list;
  for (const auto& e : train) train_list.push_back(e.get());

  std::printf("OCR letters: %zu letters read from %s in %.2f s\n", data.size(), path.c_str(), read_seconds);
  std::printf("single-letter recognition, Crammer-Singer multiclass SVM (26 classes x 129 features)\n");
  std::printf("train: %zu letters (folds", train.size());
  for (long f : train_folds) std::printf(" %ld", f);
  std::printf("), test: %zu letters (the other folds)\n\n", test.size());

  OnlineGreedyProjection::Params online_defaults;
  online_defaults.lambda = 1e-3;
  online_defaults.stop.max_iterations = 10;
  online_defaults.averaging = Averaging::Uniform;
  BatchSubgradient::Params batch_defaults;
  batch_defaults.lambda = 1e-3;
  batch_defaults.stop.max_iterations = 200;
  batch_defaults.averaging = Averaging::Uniform;
  batch_defaults.threads = 0;
  OnlineGreedyProjection online(onlineParams(config.child("online"), online_defaults));
  BatchSubgradient::Params batch_params = batchParams(config.child("batch"), batch_defaults);
  if (options.threads >= 0) batch_params.threads = options.threads;
  BatchSubgradient batch(batch_params);

  struct Row {
    std::string name, detail;
    double train_s, test_s, train_error, test_error;
    std::string info;
  };
  std::vector<Row> rows;
  // Trains one learner with a progress bar (total = rounds or iterations), then tests it.
  auto run = [&](const std::string& name, Learner& learner, long total, const char* figure, auto train_fn,
                 auto detail_fn) {
    Progress progress(name);
    learner.setCallback([&](const TraceRecord& r) {
      progress.update(r.iteration, total, std::string(figure) + " " + std::to_string(r.value));
      return true;
    });
    auto start = std::chrono::steady_clock::now();
    const Eigen::VectorXd w = train_fn();
    const double train_s = secondsSince(start);
    progress.finish();
    start = std::chrono::steady_clock::now();
    const double test_error = errorRate(test, w);
    rows.push_back({name, detail_fn(), train_s, secondsSince(start), errorRate(train, w), test_error,
                    describe(learner.info())});
  };
  run("online Greedy Projection", online, online.params().stop.max_iterations * static_cast<long>(train.size()),
      "mean loss", [&] { return online.train(train_list); },
      [&] {
        return std::to_string(online.params().stop.max_iterations) + " epochs, online mistake rate " +
               std::to_string(online.meanLoss());
      });
  run("batch subgradient", batch, batch.params().stop.max_iterations, "objective", [&] { return batch.train(train_list); },
      [&] { return std::to_string(batch.iterations()) + " iterations, objective " + std::to_string(batch.objective()); });

  std::printf("%-26s %10s %9s %11s %10s  %-14s %s\n", "learner", "train (s)", "test (s)", "train error",
              "test error", "info", "detail");
  for (const Row& r : rows) {
    std::printf("%-26s %10.2f %9.2f %11.4f %10.4f  %-14s %s\n", r.name.c_str(), r.train_s, r.test_s, r.train_error,
                r.test_error, r.info.c_str(), r.detail.c_str());
  }
  const Json line = {{"task", "letters"},
                     {"train_letters", train.size()},
                     {"test_letters", test.size()},
                     {"online_test_error", rows[0].test_error},
                     {"online_train_s", rows[0].train_s},
                     {"batch_test_error", rows[1].test_error},
                     {"batch_train_s", rows[1].train_s},
                     {"threads", ThreadPool(batch.params().threads).threads()}};
  std::printf("%s\n", jsonText(line, -1).c_str());
}

}  // namespace

void addLettersCommand(CLI::App& app) {
  auto options = std::make_shared<LettersOptions>();
  CLI::App* cmd = app.add_subcommand("letters", "Single-letter OCR recognition with both learners (real data)");
  cmd->add_option("--config", options->config, "YAML settings")->capture_default_str();
  cmd->add_option("--data-root", options->data_root, "folder holding ocr/letter.data.gz (default: $MMP_DATA_ROOT or the config's data_root)");
  cmd->add_option("--threads", options->threads, "threads for the batch learner's oracle calls (0 = all cores)")
      ->check(CLI::Range(0, 256));
  cmd->callback([options] { runLetters(*options); });
}

}  // namespace mmp::tools
