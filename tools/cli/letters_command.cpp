// `mmp letters`: single-letter recognition on Taskar's OCR letters (each letter on its own, 128
// pixels + bias, Crammer-Singer multiclass SVM), trained by both learners through the oracle
// contract.  Trains on the configured folds (fold 0 by default), tests on the others.
#include "commands.hpp"
#include <mmp/frontend/config.hpp>
#include <mmp/frontend/default_config.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/datasets/letters.hpp>
#include <mmp/datasets/ocr_data.hpp>
#include "progress.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/tasks/multiclass.hpp>
#include <mmp/core/thread_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

namespace mmp::tools {
namespace {

struct LettersOptions {
  std::string config;  ///< empty: defaultConfigPath("letters.yaml")
  std::string data_root;
  int threads = -1;
};

/// The learners where configs/letters.yaml leaves a key out.
LearnerSettings lettersLearnerDefaults() {
  LearnerSettings s;
  s.online.lambda = 1e-3;
  s.online.stop.max_iterations = 10;
  s.online.averaging = Averaging::Uniform;
  s.batch.lambda = 1e-3;
  s.batch.stop.max_iterations = 200;
  s.batch.averaging = Averaging::Uniform;
  s.batch.threads = 0;
  return s;
}

double errorRate(const std::vector<std::unique_ptr<MulticlassExample>>& examples, const Eigen::VectorXd& w) {
  std::size_t wrong = 0;
  for (const auto& e : examples) wrong += e->predict(w) != e->label();
  return static_cast<double>(wrong) / static_cast<double>(examples.size());
}

/// "10 epochs, online mistake rate 0.312021" or "500 iterations, objective 0.516663".
std::string detail(const Learner& learner) {
  const std::string passes = std::to_string(learner.passes()) + " " + learner.passName() + "s, ";
  if (learner.kind() == LearnerKind::Batch) return passes + "objective " + std::to_string(learner.objective());
  const double mistakes = learner.trace().empty() ? 0.0 : learner.trace().back().value;  // mean 0/1 loss
  return passes + "online mistake rate " + std::to_string(mistakes);
}

void runLetters(const LettersOptions& options) {
  const ConfigNode config = ConfigNode::load(options.config);
  config.expectKeys({"data_root", "train_folds", "online", "batch"});
  const std::string path = datasets::locateOcrData(resolveDataRoot(options.data_root, config), options.config);
  const std::vector<long> train_folds = config.integers("train_folds", {0}, 0, 9);

  const auto read_start = std::chrono::steady_clock::now();
  const datasets::LetterData data = datasets::readLetters(path);
  const double read_seconds = secondsSince(read_start);
  std::vector<std::unique_ptr<MulticlassExample>> train, test;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const bool is_train = std::find(train_folds.begin(), train_folds.end(), data.folds[i]) != train_folds.end();
    (is_train ? train : test)
        .push_back(std::make_unique<MulticlassExample>(data.featuresWithBias(i), data.labels[i], datasets::kLetterClasses));
  }
  if (train.empty() || test.empty()) throw ConfigError(options.config + ": train_folds leaves no training or no test letters");
  ExampleList train_list;
  for (const auto& e : train) train_list.push_back(e.get());

  std::printf("OCR letters: %zu letters read from %s in %.2f s\n", data.size(), path.c_str(), read_seconds);
  std::printf("single-letter recognition, Crammer-Singer multiclass SVM (26 classes x 129 features)\n");
  std::printf("train: %zu letters (folds", train.size());
  for (long f : train_folds) std::printf(" %ld", f);
  std::printf("), test: %zu letters (the other folds)\n\n", test.size());

  LearnerSettings settings = learnerSettings(config, "learner", lettersLearnerDefaults());
  if (options.threads >= 0) settings.batch.threads = options.threads;
  std::vector<std::unique_ptr<Learner>> learners;  // both made first: bad parameters fail before any training
  for (LearnerKind kind : {LearnerKind::Online, LearnerKind::Batch}) {
    settings.kind = kind;
    learners.push_back(makeLearner(settings));
  }
  std::printf("%-26s %10s %9s %11s %10s  %-14s %s\n", "learner", "train (s)", "test (s)", "train error",
              "test error", "info", "detail");
  Json line = {{"task", "letters"}, {"train_letters", train.size()}, {"test_letters", test.size()}};
  for (const auto& learner : learners) {
    settings.kind = learner->kind();
    const bool online = learner->kind() == LearnerKind::Online;
    const std::string name = online ? "online Greedy Projection" : "batch subgradient";
    Progress progress(name);
    const long total = settings.callbacks(static_cast<long>(train.size()));
    learner->setCallback([&](const TraceRecord& r) {
      progress.update(r.iteration, total, std::string(learner->traceValueName()) + " " + std::to_string(r.value));
      return true;
    });
    auto start = std::chrono::steady_clock::now();
    const Eigen::VectorXd w = learner->train(train_list);
    const double train_s = secondsSince(start);
    progress.finish();
    start = std::chrono::steady_clock::now();
    const double test_error = errorRate(test, w);
    const double test_s = secondsSince(start);
    std::printf("%-26s %10.2f %9.2f %11.4f %10.4f  %-14s %s\n", name.c_str(), train_s, test_s, errorRate(train, w),
                test_error, describe(learner->info()).c_str(), detail(*learner).c_str());
    line[describe(learner->kind()) + "_test_error"] = test_error;
    line[describe(learner->kind()) + "_train_s"] = train_s;
  }
  line["threads"] = ThreadPool(settings.batch.threads).threads();
  std::printf("%s\n", jsonText(line, -1).c_str());
}

}  // namespace

void addLettersCommand(CLI::App& app) {
  auto options = std::make_shared<LettersOptions>();
  CLI::App* cmd = app.add_subcommand("letters", "Single-letter OCR recognition with both learners (real data)");
  cmd->add_option("config,--config", options->config,
                  "YAML settings (default: configs/letters.yaml, else <mmp's folder>/../share/mmp/configs/letters.yaml)");
  cmd->add_option("--data-root", options->data_root, "folder holding ocr/letter.data.gz (default: $MMP_DATA_ROOT or the config's data_root)");
  cmd->add_option("--threads", options->threads, "threads for the batch learner's oracle calls (0 = all cores)")
      ->check(CLI::Range(0, 256));
  cmd->footer("Examples:\n  mmp letters\n  mmp letters configs/letters.yaml --data-root ../shared/data");
  cmd->callback([options] {
    if (options->config.empty()) options->config = defaultConfigPath("letters.yaml", "--config", programFolder());
    runLetters(*options);
  });
}

}  // namespace mmp::tools
