// One shape for the three cost hypotheses (settings.learner.hypothesis: linear, LEARCH, network):
// train() (pipeline.cpp) makes the examples once and hands them to the hypothesis' CostModelTrainer,
// which learns the CostModel and fills the algorithm's part of the report; what every kind reports
// (hypothesis, learner, examples, training time, the largest image's oracle pass, the model's common
// info) is filled in one place, trainHypothesis.  Private to maps/training.
#pragma once

#include <mmp/maps/training/pipeline.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
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
  /// One pass of loss-augmented oracle calls over `largest` (the examples of the largest training
  /// image) under the trained model, as the kind's training makes them; false if the kind has none
  /// to time (the network, whose passes are its epochs).  trainHypothesis times it.
  virtual bool oraclePass(const TrainerInput& /*in*/, const CostModel& /*model*/,
                          const std::vector<const PathExample*>& /*largest*/) const {
    return false;
  }
};

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
