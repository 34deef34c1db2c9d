// The linear hypothesis (w . f, or exp(w . f)) trained by the learner settings.learner.kind names
// (learners/: online, batch, cutting plane, BCFW, L-BFGS), then the bias calibration (pipeline.hpp).
#include "trainer.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/core/projection.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/learners/learner_settings.hpp>
#include <mmp/learners/n_slack_cutting_plane.hpp>
#include <mmp/planning/path.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

namespace mmp {

TrainedCostModel linearStart(const TrainingData& training, const PipelineSettings& config, const StageCallback& progress) {
  PipelineSettings linear = config;
  linear.learner.hypothesis = CostHypothesis::Linear;
  linear.learner.costs = CostForm::Exponential;  // the start of a log-cost: w0 . f
  return train(training, linear, progress);
}

namespace {

// adapt.prior costs (costMetric): the cells an image contributes at most, and the identity's share.
constexpr int kCostMetricCells = 20000;
constexpr double kCostMetricRidge = 1e-3;

// Mean prediction loss per cell of demonstration at w (plain A*, no loss augmentation).
double predictionLoss(const std::vector<std::unique_ptr<PathExample>>& examples, const Eigen::VectorXd& w,
                      ThreadPool& pool) {
  std::vector<double> losses(examples.size());
  pool.parallelFor(examples.size(), [&](std::size_t k) {
    const PathExample& e = *examples[k];
    const PlanResult plan = e.plan(w);
    if (plan.status != PlanStatus::Success) throw Error("bias calibration: planning failed: " + plan.message);
    losses[k] = e.predictionLoss(plan.path);
  });
  double sum = 0.0;
  for (double l : losses) sum += l;  // in example order: the same sum with every thread count
  return sum / static_cast<double>(losses.size());
}

// The bias calibration of train() (see pipeline.hpp): records the floor, and, if `calibrate`, sets
// weights[kBiasIndex] to the floor * 2^-k (k = 0..7) of lowest training prediction loss.
void calibrateBias(const std::vector<std::unique_ptr<PathExample>>& examples, bool calibrate, ThreadPool& pool,
                   Eigen::VectorXd& weights, TrainingReport& report) {
  report.bias_floor = weights[kBiasIndex];
  report.bias = report.bias_floor;
  report.training_loss = predictionLoss(examples, weights, pool);
  if (!calibrate) return;
  Eigen::VectorXd w = weights;
  for (int k = 1; k <= 7; ++k) {
    w[kBiasIndex] = report.bias_floor * std::pow(0.5, k);
    const double loss = predictionLoss(examples, w, pool);
    if (loss < report.training_loss) {
      report.training_loss = loss;
      report.bias = w[kBiasIndex];
    }
  }
  weights[kBiasIndex] = report.bias;
}

// The range of the finite cell costs of the training images under the learned weights.
void recordCostRange(const TrainingData& training, const Eigen::VectorXd& weights, CostForm form, TrainingReport& report) {
  report.cost_range = {std::numeric_limits<double>::infinity(), 0.0};
  std::vector<double> costs;
  for (const Region& r : training.regions) {
    r.map->costs(weights, costs, form);
    for (double c : costs) {
      if (std::isfinite(c)) report.cost_range = {std::min(report.cost_range[0], c), std::max(report.cost_range[1], c)};
    }
  }
}

// w >= 0 and w_bias >= loss_max + min_cost: every loss-augmented cell cost stays >= min_cost
// (features in [0, 1], bias 1), so A* stays exact without clamping (planning/loss.hpp).
// Exponential costs exp(w . f) are positive for every w: no projection.
// MaxEnt (no loss augmentation): every cost above kMaxEntSafeCost keeps the model normalisable
// (maxent_planner.hpp), so w >= 0 with w_bias >= kMaxEntTrainingFloor, or >= its log with
// exponential costs.
ProjectionPtr trainingProjection(const PipelineSettings& config, Eigen::Index d) {
  const bool linear = config.learner.costs == CostForm::Linear;
  if (config.learner.objective == TrainingObjective::Likelihood) {
    return positiveCostProjection(d, kBiasIndex, 0.0,
                                  linear ? std::max(config.learner.min_cost, kMaxEntTrainingFloor) : std::log(kMaxEntTrainingFloor));
  }
  return linear ? positiveCostProjection(d, kBiasIndex, config.loss.scale, config.learner.min_cost) : noProjection();
}

class LinearTrainer final : public CostModelTrainer {
 public:
  CostModel fit(const TrainerInput& in, std::map<std::string, std::string> info, TrainingReport& report) override {
    const PipelineSettings& config = in.settings;
    ExampleList list;
    for (const auto& e : in.examples) list.push_back(e.get());
    const ProjectionPtr positive = trainingProjection(config, in.training.stack.features());
    Eigen::VectorXd initial = Eigen::VectorXd::Zero(in.training.stack.features());
    positive->project(initial);  // uniform costs: straight lines

    LearnerSettings learner_settings = config.learner;
    learner_settings.setProjection(positive);
    if (config.threads >= 0) learner_settings.batch.threads = learner_settings.online.threads = config.threads;
    pool_threads_ = config.learner.kind == LearnerKind::Batch ? learner_settings.batch.threads : 1;
    const std::unique_ptr<Learner> learner = makeLearner(learner_settings);
    std::vector<const FeatureMap*> maps;  // the learner stops at the last model inside CostLimits on them
    for (const Region& r : in.training.regions) maps.push_back(r.map.get());
    learner->setWeightCheck([&maps, &config](const Eigen::VectorXd& w) { return trainingCostFault(maps, w, config.learner.costs); });
    const std::string stage = "training (" + describe(config.learner.kind) + ")";
    const long callbacks = learner_settings.callbacks(static_cast<long>(in.examples.size()));
    if (in.progress) {
      learner->setCallback([&](const TraceRecord& r) {
        in.progress(stage, std::min(r.iteration, callbacks), callbacks,
                    learner->traceValueName() + std::string(" ") + std::to_string(r.value));
        return true;
      });
    }

    const auto start = std::chrono::steady_clock::now();
    Eigen::VectorXd weights = learner->train(list, initial);
    report.trace = learner->trace();
    report.trace_value = learner->traceValueName();
    report.pass_name = learner->passName();
    report.info = describe(learner->info()) + ": " + learner->message();
    report.passes = learner->passes();
    report.objective = learner->objective();
    report.epoch_seconds = report.passes > 0 ? secondsSince(start) / static_cast<double>(report.passes) : 0.0;

    learned_ = weights;  // the bias still floored: loss-augmented costs stay positive (oraclePass)
    ThreadPool pool(pool_threads_);
    const auto calibration_start = std::chrono::steady_clock::now();
    calibrateBias(in.examples, config.learner.calibrate_bias && config.learner.costs == CostForm::Linear, pool, weights, report);
    report.calibration_seconds = secondsSince(calibration_start);
    recordCostRange(in.training, weights, config.learner.costs, report);
    info["learner"] = describe(config.learner.kind);
    info["bias_floor"] = std::to_string(report.bias_floor);
    return CostModel(in.training.stack, std::move(weights), config.learner.costs, std::move(info));
  }

  // The minimiser of lambda/2 |w - w0|^2 + sum_i h_i(w) (or the cost-space prior's metric) over the
  // weights that keep loss-augmented costs positive and inside the avoid marks' half-spaces
  // (markConstraints), found exactly by the n-slack cutting plane: it depends on the set of
  // demonstrations and marks alone, so any order of teaching gives the same model.
  CostModel adapt(const AdaptationInput& in, std::map<std::string, std::string> info, TeachingStep& step) const override {
    const CostModel& parent = in.parent;
    const Eigen::VectorXd& w0 = parent.weights();
    const bool linear = parent.form() == CostForm::Linear;
    // The learner keeps loss-augmented costs positive with the bias floor training used; the parent's
    // calibration (its bias below the floor) is the offset carried back afterwards.
    const ProjectionPtr positive =
        linear ? positiveCostProjection(w0.size(), kBiasIndex, in.settings.loss.scale, in.settings.min_cost) : noProjection();
    Eigen::VectorXd prior = w0;
    positive->project(prior);
    const Eigen::VectorXd offset = w0 - prior;

    // lambda/2 |w - w0|^2 + sum_i h_i(w) is lambda/(2n) |w - w0|^2 + the mean of the h_i, the
    // learner's form: the prior gives way as demonstrations arrive.
    NSlackCuttingPlane::Params p;
    p.lambda = in.settings.lambda / static_cast<double>(std::max<std::size_t>(1, in.examples.size()));
    p.prior = prior;
    if (in.settings.prior == AdaptationPrior::Costs) p.prior_metric = costMetric(in);
    if (linear) {
      for (Eigen::Index j = 0; j < w0.size(); ++j) {
        p.constraints.push_back({Eigen::VectorXd::Unit(w0.size(), j), j == kBiasIndex ? in.settings.loss.scale + in.settings.min_cost : 0.0});
      }
    }
    for (LinearConstraint& mark : markConstraints(in, offset)) p.constraints.push_back(std::move(mark));
    p.stop.max_iterations = in.settings.epochs;
    p.threads = in.settings.threads;
    const auto key = [&in](std::size_t k) { return std::make_pair(in.example_images[k], in.examples[k]->demonstration()); };
    for (std::size_t k = 0; k < in.examples.size(); ++k) {
      const auto held = in.cache.working_sets.find(key(k));
      p.warm_start.push_back(held == in.cache.working_sets.end() ? std::vector<WorkingOutput>{} : held->second);
    }
    NSlackCuttingPlane learner(p);
    std::vector<const FeatureMap*> maps;
    for (const TeachingImage& image : in.images) maps.push_back(image.map.get());
    const CostForm form = parent.form();
    learner.setWeightCheck([&maps, &offset, form](const Eigen::VectorXd& w) { return trainingCostFault(maps, w + offset, form); });
    const ExampleList list(in.examples.begin(), in.examples.end());
    Eigen::VectorXd w = prior;
    if (!list.empty()) {
      w = learner.train(list);
      for (std::size_t k = 0; k < in.examples.size(); ++k) in.cache.working_sets[key(k)] = learner.workingSets()[k];
      step.info = learner.info();
      step.message = learner.message();
      if (learner.info() == Info::NoConvergence) {
        step.warnings.push_back("the adaptation stopped short of its optimum (" + learner.message() +
                                "): the model may depend on the order taught; raise adapt.epochs (--epochs)");
      }
    } else if (!p.constraints.empty()) {  // marks alone: the prior's nearest point inside them
      w = NSlackCuttingPlane(p).priorMinimiser();
    }
    positive->project(w);  // the QP meets the box to its tolerance (-1e-17)
    CostModel adapted(parent.features(), w + offset, form, std::move(info));
    if (parent.costExponent() != 1.0) adapted.setCostExponent(parent.costExponent());
    return adapted;
  }

  // The marks as half-spaces of the learner's weights w (the model's are w + offset): each mark's mean
  // features f_m held against the reference ground's f_t so that the constraint holds with equality at
  // the parent when the parent's ratio R0 is already on the mark's side of its margin (a mark takes back
  // only what the paths would take away, and changes nothing while it holds), and moves the marked
  // ground to the margin otherwise.  An avoid mark keeps its ground dear, a prefer mark cheap:
  //   costs w . f:        avoid  w . f_m >= R w . f_t,   R = max(kAvoidMargin, R0)
  //                       prefer w . f_m <= R w . f_t,   R = min(kPreferMargin, R0)
  //   log-costs e w . f:  avoid  w . (f_m - f_t) >= max(log(kAvoidMargin) / e, the parent's gap)
  //                       prefer w . (f_m - f_t) <= min(log(kPreferMargin) / e, the parent's gap)
  // (a prefer row is its inequality times -1: the learner's rows are a . w >= b).
  static std::vector<LinearConstraint> markConstraints(const AdaptationInput& in, const Eigen::VectorXd& offset) {
    const Eigen::VectorXd& w0 = in.parent.weights();
    std::vector<LinearConstraint> constraints;
    for (const MarkMeans& m : in.marks) {
      const bool avoid = m.kind == MarkKind::Avoid;
      const double margin = avoid ? kAvoidMargin : kPreferMargin;
      const auto held = [avoid](double margin_value, double parent_value) {
        return avoid ? std::max(margin_value, parent_value) : std::min(margin_value, parent_value);
      };
      Eigen::VectorXd a;
      double b = 0.0;
      if (in.parent.form() == CostForm::Linear) {
        const double R = held(margin, w0.dot(m.mark) / std::max(w0.dot(m.reference), 1e-12));
        a = m.mark - R * m.reference;  // cost_m against R cost_t: a ratio, whatever the costs' scale
      } else {
        a = m.mark - m.reference;
        b = held(std::log(margin) / in.parent.costExponent(), w0.dot(a));
      }
      if (!avoid) a = -a, b = -b;
      if (a.squaredNorm() > 0.0) constraints.push_back({a, b - a.dot(offset)});
    }
    return constraints;
  }

  // adapt.prior costs: M, the mean over the held images of each one's mean over its passable cells of
  // g g^T, g the gradient in w of the cell's log-cost at the parent (f / (w0 . f) for costs w . f; f
  // for log-costs, whose exponent only scales M): (w - w0)^T M (w - w0) is, to first order, the mean
  // squared change of log-cost over the site.  Scaled to largest eigenvalue 1 (so the online steps stay
  // stable), with kCostMetricRidge of the identity for the directions no cell moves.  Each image's mean
  // is computed once (the teacher's cache) from at most kCostMetricCells cells (every stride-th); the
  // images are summed by name so that the order they were added in does not matter.
  static Eigen::MatrixXd costMetric(const AdaptationInput& in) {
    const Eigen::VectorXd& w0 = in.parent.weights();
    std::vector<std::size_t> order(in.images.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&in](std::size_t a, std::size_t b) {
      return std::tie(in.images[a].fingerprint, in.images[a].name) < std::tie(in.images[b].fingerprint, in.images[b].name);
    });
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(w0.size(), w0.size());
    for (const std::size_t i : order) {
      Eigen::MatrixXd& moment = in.cache.image_moments[i];
      if (moment.size() == 0) moment = imageMoment(*in.images[i].map, w0, in.parent.form() == CostForm::Linear);
      m += moment;
    }
    const double largest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
    if (largest > 0.0) m /= largest;
    return (m + kCostMetricRidge * Eigen::MatrixXd::Identity(m.rows(), m.cols())) / (1.0 + kCostMetricRidge);
  }

  static Eigen::MatrixXd imageMoment(const FeatureMap& map, const Eigen::VectorXd& w0, bool linear) {
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(w0.size(), w0.size());
    long cells = 0;
    const int stride = std::max(1, map.cells() / kCostMetricCells);
    for (int s = 0; s < map.cells(); s += stride) {
      if (map.isBlocked(s)) continue;
      const Eigen::VectorXd g = map.cellVector(s).cast<double>();
      const double cost = linear ? w0.dot(g) : 1.0;
      if (!(cost > 0.0) || !std::isfinite(cost)) continue;
      m.selfadjointView<Eigen::Lower>().rankUpdate(g / cost);
      ++cells;
    }
    return Eigen::MatrixXd(m.selfadjointView<Eigen::Lower>()) / static_cast<double>(std::max(1L, cells));
  }

  std::string describeAdaptation(const AdaptationSettings& s) const override {
    return "the optimum (n-slack cutting plane, at most " + std::to_string(s.epochs) + " passes) toward the parent" +
           std::string(s.prior == AdaptationPrior::Costs ? "'s costs" : "") + ", lambda " + numberText(s.lambda);
  }
  const char* adaptationStrength() const override { return "adapt.lambda"; }

  // A batch epoch on the given examples alone: the objective and its subgradient at the learner's
  // weights (the calibrated bias may be below the floor that keeps loss-augmented costs positive), with
  // the learner's thread count.
  bool oraclePass(const TrainerInput& in, const CostModel& /*model*/, const std::vector<const PathExample*>& largest) const override {
    ExampleList list(largest.begin(), largest.end());
    Objective objective(list, {in.settings.learner.lambda(), in.settings.learner.q()});
    ThreadPool pool(pool_threads_);
    Eigen::VectorXd g;
    objective.evaluate(learned_, &g, &pool);
    return true;
  }

 private:
  int pool_threads_ = 1;
  Eigen::VectorXd learned_;
};

}  // namespace

std::unique_ptr<CostModelTrainer> makeLinearTrainer() { return std::make_unique<LinearTrainer>(); }

}  // namespace mmp
