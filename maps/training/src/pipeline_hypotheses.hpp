// train()'s LEARCH and network branches (pipeline.hpp, settings.learner.hypothesis), kept apart from pipeline.cpp.
#pragma once

#include <mmp/maps/training/pipeline.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace mmp {

/// The smallest cell cost MaxEnt training starts from and keeps to: at kMaxEntSafeCost itself every
/// row of the step matrix may sum to 1, where the soft planner's sweeps barely converge (a uniform
/// start there did not in 50 sweeps on a Dubai part); at twice it the rows sum to < 0.15.
constexpr double kMaxEntTrainingFloor = 2.0 * kMaxEntSafeCost;

/// The start of LEARCH's and the network's log-cost (their `start: online | batch`): train() with the
/// linear hypothesis and exponential costs, so that its weights w0 give the log-cost w0 . f.
TrainedCostModel linearStart(const TrainingData& training, const PipelineSettings& settings, const StageCallback& progress);

/// LEARCH on train()'s examples (owner[k]: the training region of example k), with the report and
/// model info train() gives.
TrainedCostModel trainLearch(const TrainingData& training, const PipelineSettings& settings,
                             const std::vector<std::unique_ptr<PathExample>>& examples,
                             const std::vector<std::size_t>& owner, const StageCallback& progress);

/// The mean cost ratio of plans between the training demonstrations' ends on costs(region), against
/// the demonstrations under the behaviour's costs: how a baseline's cost scale is chosen (training data only).
double demonstrationCostRatio(const TrainingData& training, const PipelineSettings& settings,
                              const std::function<std::vector<double>(const Region&)>& costs);

/// The convolutional cost network (network_training.hpp) on train()'s examples, likewise: the images
/// of the last training area score early stopping.
TrainedCostModel trainNetworkModel(const TrainingData& training, const PipelineSettings& settings,
                                   const std::vector<std::unique_ptr<PathExample>>& examples,
                                   const std::vector<std::size_t>& owner, const StageCallback& progress);

}  // namespace mmp
