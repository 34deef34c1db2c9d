// The LEARCH hypothesis: regression trees on the log-cost (learch.hpp), from uniform costs or from the
// linear start.
#include "trainer.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/learch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace mmp {

namespace {

class LearchTrainer final : public CostModelTrainer {
 public:
  CostModel fit(const TrainerInput& in, std::map<std::string, std::string> info, TrainingReport& report) override {
    const PipelineSettings& config = in.settings;
    Eigen::VectorXd initial = Eigen::VectorXd::Zero(in.training.stack.features());  // uniform costs
    // MaxEnt: uniform costs e x kMaxEntTrainingFloor, with room for the trees to lower them before a
    // round is undone at kMaxEntSafeCost (learch.hpp)
    const bool maxent = config.learner.objective == TrainingObjective::Likelihood;
    if (maxent) initial[kBiasIndex] = std::log(kMaxEntTrainingFloor) + 1.0;
    if (config.learner.learch.from_linear) initial = linearStart(in.training, config, in.progress).model.weights();
    LearchSettings settings = config.learner.learch;
    settings.objective = config.learner.objective;
    if (config.threads >= 0) settings.threads = config.threads;
    threads_ = settings.threads;
    std::vector<const PathExample*> list;
    for (const auto& e : in.examples) list.push_back(e.get());

    const auto learch_start = std::chrono::steady_clock::now();
    LearchResult result = learch(list, initial, settings, [&](const LearchRound& r) {
      if (in.progress) {
        in.progress("training (learch)", r.trees, settings.rounds,
                    "objective " + numberText(r.objective) + ", prediction loss " + numberText(r.prediction_loss) +
                        ", costs " + numberText(r.lowest) + " to " + numberText(r.highest));
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

    info["learner"] = "learch";
    info["learch"] = settings.describe();
    info["learch_stop"] = report.info;
    return CostModel(in.training.stack, std::move(result.weights), std::move(result.trees), std::move(info));
  }

  // One pass of loss-augmented plans on the model's log-costs of the largest image.
  bool oraclePass(const TrainerInput& /*in*/, const CostModel& model, const std::vector<const PathExample*>& largest) const override {
    std::vector<double> log_costs;
    logCosts(largest.front()->map(), model.weights(), model.trees(), log_costs);
    ThreadPool pool(threads_);
    pool.parallelFor(largest.size(), [&](std::size_t k) { largest[k]->planLogCosts(log_costs, 1.0); });
    return true;
  }

 private:
  int threads_ = 1;

  // New trees fitted to the functional gradient of the demonstrations, appended to the parent's.
  CostModel adapt(const AdaptationInput& in, std::map<std::string, std::string> info, TeachingStep& step) const override {
    // A cost exponent e is a factor on the log-cost: e (w . f + sum_t s_t h_t) is the parent's log-cost
    // with the weights and the tree steps times e, so the new trees fit the costs the parent plans on.
    const CostModel& parent = in.parent;
    const double e = parent.costExponent();
    const Eigen::VectorXd weights = e * parent.weights();
    TreeEnsemble trees;
    for (std::size_t t = 0; t < parent.trees().size(); ++t) trees.add(parent.trees().trees()[t], e * parent.trees().steps()[t]);
    if (in.examples.empty()) {  // marks alone: LEARCH holds them against the paths
      step.message = "marks alone: a LEARCH model holds them against the taught paths, so the model stays the parent until a path is taught";
      return CostModel(parent.features(), weights, std::move(trees), std::move(info));  // the parent's costs, the exponent folded in
    }
    std::vector<LearchMark> marks;
    for (const MarkMeans& m : in.marks) {
      const bool avoid = m.kind == MarkKind::Avoid;
      marks.push_back({in.images[static_cast<std::size_t>(m.image)].map.get(), m.cells, avoid, avoid ? kAvoidMargin : kPreferMargin});
    }
    // Marks the paths' own trees keep change nothing; else the rounds push the broken ones.
    LearchResult result = learch(in.examples, weights, adaptationLearch(in.settings), {}, trees, marks, false);
    if (!result.unmet_marks.empty()) result = learch(in.examples, weights, adaptationLearch(in.settings), {}, trees, marks, true);
    step.info = result.info;
    step.message = result.message;
    for (const std::size_t j : result.unmet_marks) {
      step.warnings.push_back(std::string("the ") + markKindName(in.marks[j].kind) + " mark of " + std::to_string(in.marks[j].cells.size()) +
                              " cells on image " + std::to_string(in.marks[j].image) + " ('" +
                              in.images[static_cast<std::size_t>(in.marks[j].image)].name + "') is not kept after " +
                              std::to_string(in.settings.learch_rounds) + " new trees: raise adapt.learch_rounds (--learch-rounds)");
    }
    return CostModel(parent.features(), std::move(result.weights), std::move(result.trees), std::move(info));
  }

  std::string describeAdaptation(const AdaptationSettings& s) const override {
    return "LEARCH, " + std::to_string(s.learch_rounds) + " new trees, step " + numberText(s.learch_step) + " / sqrt(t), depth " +
           std::to_string(s.learch_depth);
  }
  const char* adaptationStrength() const override { return "adapt.learch_rounds"; }
};

}  // namespace

std::unique_ptr<CostModelTrainer> makeLearchTrainer() { return std::make_unique<LearchTrainer>(); }

}  // namespace mmp
