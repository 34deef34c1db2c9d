// One class per cost model kind (CostHypothesis: linear, LEARCH, network), which owns how that kind is
// fitted, adapted and described: train() (pipeline.cpp) makes the examples once and hands them to the
// hypothesis' CostModelTrainer, which learns the CostModel and fills the algorithm's part of the report
// (what every kind reports -- hypothesis, learner, examples, training time, the largest image's oracle
// pass, the model's common info -- is filled in one place, trainHypothesis); a CostModelTeacher
// (adaptation.hpp) hands the parent's trainer the demonstrations taught so far.  makeTrainer is the one
// place that chooses a class by kind.  Private to maps/training.
#pragma once

#include <mmp/maps/training/adaptation.hpp>
#include <mmp/learners/n_slack_cutting_plane.hpp>
#include <mmp/maps/training/pipeline.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mmp {

/// The smallest cell cost MaxEnt training starts from and keeps to: at kMaxEntSafeCost itself every
/// row of the step matrix may sum to 1, where the soft planner's sweeps barely converge (a uniform
/// start there did not in 50 sweeps on a Dubai part); at twice it the rows sum to < 0.15.
constexpr double kMaxEntTrainingFloor = 2.0 * kMaxEntSafeCost;

/// What a trainer learns from: the training data, the settings, one PathExample per demonstration
/// with the training region (index in training.regions) that owns it, and the progress callback.
struct TrainerInput {
  const TrainingData& training;
  const PipelineSettings& settings;
  const std::vector<std::unique_ptr<PathExample>>& examples;
  const std::vector<std::size_t>& owner;
  const StageCallback& progress;
};

/// What an adaptation learns from: the parent, the settings, one PathExample per demonstration taught
/// so far (in the order taught) with the index of its image in `images` (every image the teacher holds:
/// those with demonstrations are stepped on, every one is checked against CostLimits).
/// The linear learner's working set of each demonstration (by image and cells) when last taught.
using WorkingSets = std::map<std::pair<int, std::vector<int>>, std::vector<WorkingOutput>>;

/// What a kind computes once and a teacher keeps between steps; none of it changes an answer beyond
/// rounding, and undo puts the working sets back so that it does not change a bit.
struct TeachingCache {
  /// The linear cost prior's second moments per image of the parent (adapt.prior costs; one entry per
  /// image, empty until the kind fills it).
  std::vector<Eigen::MatrixXd> image_moments;
  /// The next step's warm start (NSlackCuttingPlane::Params::warm_start).
  WorkingSets working_sets;
  /// working_sets as they were before each item taught (one entry an item, in teaching order).
  std::vector<std::shared_ptr<const WorkingSets>> before;

  void remember(std::size_t items) { before.insert(before.end(), items, std::make_shared<const WorkingSets>(working_sets)); }
  /// A step that failed (`items` entries) or an undo (one): the working sets as they were before it.
  void restore(std::size_t items) {
    working_sets = *before[before.size() - items];
    before.resize(before.size() - items);
  }
};

struct AdaptationInput {
  const CostModel& parent;
  const AdaptationSettings& settings;
  const std::vector<const PathExample*>& examples;
  const std::vector<int>& example_images;
  const std::vector<TeachingImage>& images;
  /// The marks (CostModelTeacher::avoid, prefer): each one's mean features, and the mean features of
  /// the ground its cost is held against.
  const std::vector<MarkMeans>& marks;
  /// What the teacher keeps from step to step for the kind (TeachingCache).
  TeachingCache& cache;
};

class CostModelTrainer {
 public:
  virtual ~CostModelTrainer() = default;
  /*!
      ensures: learns a cost model from in.examples and returns it with `info` (the entries every kind
               records: behaviour, training images, config) and the kind's own entries in its info;
               fills report's algorithm part: trace, trace_value, pass_name, info, passes, objective,
               bias_floor, bias, training_loss, cost_range, epoch_seconds (and validation for the network)
  !*/
  virtual CostModel fit(const TrainerInput& in, std::map<std::string, std::string> info, TrainingReport& report) = 0;
  /*!
      requires: in.parent of this kind, in.examples not empty, cannotAdapt(in.parent) == ""
      ensures: the parent adapted to the demonstrations (adaptation.hpp says how each kind adapts), with
               `info` as its info, the parent's cost exponent kept (or folded in); step.info and
               step.message say how the learner stopped (the last good weights kept, ...)
  !*/
  virtual CostModel adapt(const AdaptationInput& in, std::map<std::string, std::string> info, TeachingStep& step) const = 0;
  /// How a parent of this kind adapts with `settings`, in words (adapted_by, before the loss).
  virtual std::string describeAdaptation(const AdaptationSettings& settings) const = 0;
  /// The adapt.* key of the prior's strength for this kind ("adapt.lambda", ...).
  virtual const char* adaptationStrength() const = 0;
  /// Why `parent` cannot adapt ("" if it can): a segmenter network, trained on labels.
  virtual std::string cannotAdapt(const CostModel& /*parent*/) const { return ""; }
  /// One pass of loss-augmented oracle calls over `largest` (the examples of the largest training
  /// image) under the trained model, as the kind's training makes them; false if the kind has none
  /// to time (the network, whose passes are its epochs).  trainHypothesis times it.
  virtual bool oraclePass(const TrainerInput& /*in*/, const CostModel& /*model*/,
                          const std::vector<const PathExample*>& /*largest*/) const {
    return false;
  }
};

/// The trainer of a kind: the one place that chooses a class by CostHypothesis (pipeline.cpp).
std::unique_ptr<CostModelTrainer> makeTrainer(CostHypothesis hypothesis);
/// Each kind's class (its own file); makeTrainer chooses among them.
std::unique_ptr<CostModelTrainer> makeLinearTrainer();
std::unique_ptr<CostModelTrainer> makeLearchTrainer();
std::unique_ptr<CostModelTrainer> makeNetworkTrainer();

/// The start of LEARCH's and the network's log-cost (their `start: online | batch`): train() with the
/// linear hypothesis and exponential costs, so that its weights w0 give the log-cost w0 . f.
TrainedCostModel linearStart(const TrainingData& training, const PipelineSettings& settings, const StageCallback& progress);

/// The mean cost ratio of plans between the training demonstrations' ends on costs(region), against
/// the demonstrations under the behaviour's costs: how a baseline's cost scale is chosen (training data only).
double demonstrationCostRatio(const TrainingData& training, const PipelineSettings& settings,
                              const std::function<std::vector<double>(const Region&)>& costs);

}  // namespace mmp
