#include "pipeline_hypotheses.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/training/learch.hpp>

#include <chrono>
#include <limits>

namespace mmp {

TrainedCostModel linearStart(const TrainingData& training, const PipelineSettings& config, const StageCallback& progress) {
  PipelineSettings linear = config;
  linear.learner.hypothesis = CostHypothesis::Linear;
  linear.learner.costs = CostForm::Exponential;  // the start of a log-cost: w0 . f
  return train(training, linear, progress);
}

TrainedCostModel trainLearch(const TrainingData& training, const PipelineSettings& config,
                             const std::vector<std::unique_ptr<PathExample>>& examples,
                             const std::vector<std::size_t>& owner, const StageCallback& progress) {
  const auto start = std::chrono::steady_clock::now();
  TrainingReport report;
  report.hypothesis = CostHypothesis::Learch;
  report.learner = config.learner.kind;
  report.examples = static_cast<int>(examples.size());
  Eigen::VectorXd initial = Eigen::VectorXd::Zero(training.stack.features());  // uniform costs
  // MaxEnt: uniform costs e x kMaxEntTrainingFloor, with room for the trees to lower them before a
  // round is undone at kMaxEntSafeCost (learch.hpp)
  const bool maxent = config.learner.objective == TrainingObjective::Likelihood;
  if (maxent) initial[kBiasIndex] = std::log(kMaxEntTrainingFloor) + 1.0;
  if (config.learner.learch.from_linear) initial = linearStart(training, config, progress).model.weights();
  LearchSettings settings = config.learner.learch;
  settings.objective = config.learner.objective;
  if (config.threads >= 0) settings.threads = config.threads;
  std::vector<const PathExample*> list;
  for (const auto& e : examples) list.push_back(e.get());

  const auto learch_start = std::chrono::steady_clock::now();
  LearchResult result = learch(list, initial, settings, [&](const LearchRound& r) {
    if (progress) {
      progress("training (learch)", r.trees, settings.rounds,
               "objective " + numberText(r.objective) + ", prediction loss " + numberText(r.prediction_loss) + ", costs " +
                   numberText(r.lowest) + " to " + numberText(r.highest));
    }
    return true;
  });
  const double learch_seconds = secondsSince(learch_start);
  for (const LearchRound& r : result.rounds) report.trace.push_back({r.trees, r.objective, initial.norm(), r.seconds});
  report.trace_value = maxent ? "LEARCH MaxEnt objective sum_i beta_i [C(y_i) + log Z_i]"
                              : "LEARCH objective sum_i beta_i [C(y_i) - min_y C_aug(y)]";
  report.pass_name = "round";
  report.info = describe(result.info) + ": " + result.message;
  report.passes = static_cast<long>(result.trees.size());
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const bool evaluated = !result.rounds.empty();  // empty only if the start could not be planned on
  report.objective = evaluated ? result.rounds.back().objective : kNaN;
  report.training_loss = evaluated ? result.rounds.back().prediction_loss : kNaN;
  report.cost_range = {evaluated ? result.rounds.back().lowest : kNaN, evaluated ? result.rounds.back().highest : kNaN};
  report.bias_floor = report.bias = initial[kBiasIndex];
  report.epoch_seconds = learch_seconds / static_cast<double>(std::max(1L, report.passes));

  // One pass of loss-augmented oracle calls over the examples of the largest training image.
  std::size_t largest = 0;
  for (std::size_t i = 1; i < training.regions.size(); ++i) {
    if (training.regions[i].cells() > training.regions[largest].cells()) largest = i;
  }
  std::vector<const PathExample*> largest_list;
  for (std::size_t k = 0; k < examples.size(); ++k) {
    if (owner[k] == largest) largest_list.push_back(examples[k].get());
  }
  report.largest_region = training.regions[largest].spec.name;
  report.largest_cells = training.regions[largest].cells();
  report.largest_examples = static_cast<int>(largest_list.size());
  std::vector<double> log_costs;
  logCosts(*training.regions[largest].map, initial, result.trees, log_costs);
  ThreadPool pool(settings.threads);
  const auto t0 = std::chrono::steady_clock::now();
  pool.parallelFor(largest_list.size(), [&](std::size_t k) { largest_list[k]->planLogCosts(log_costs, 1.0); });
  report.largest_epoch_seconds = secondsSince(t0);
  report.train_seconds = secondsSince(start);

  std::string trained_on;
  for (const Region& r : training.regions) trained_on += (trained_on.empty() ? "" : ",") + r.spec.name;
  std::map<std::string, std::string> info = {{"behaviour", config.behaviour.name},
                                             {"learner", "learch"},
                                             {"learch", settings.describe()},
                                             {"learch_stop", report.info},
                                             {"trained_on", trained_on}};
  if (!config.source.empty()) info["config"] = config.source;
  return {CostModel(training.stack, std::move(result.weights), std::move(result.trees), std::move(info)),
          std::move(report)};
}

}  // namespace mmp
