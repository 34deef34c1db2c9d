// Choosing the learner's settings inside the training data: leave-one-area-out validation over a
// documented search space, one procedure for every behaviour.  `mmp train` runs it when the config
// has a `select:` section; a program calls it directly:
//
//   SelectionSpace space;
//   space.keys = {{"learner.costs", {"linear", "exponential"}}, {"loss.scale", {"1", "3"}}};  // setting_keys.hpp
//   const SelectionResult chosen = selectSettings(settings, space);
//   RunResult run = trainAndEvaluate(chosen.settings);           // pipeline.hpp
//
// The procedure (coordinate search): start from each key's first value; take the keys in order and,
// for each, score every value with the other keys at their current choice; keep the value of lowest
// score, the current one on a tie; `sweeps` times over the keys.  A candidate's score is the learned
// planner's mean cost ratio pooled over every image of every training area, each scored by the model
// trained on the other areas (validateByArea, holdout_report.hpp); assignments already scored are not run again, nor is a
// key that does not apply at the current choice (settingApplies: learner.learch.* keys without
// learner.kind learch, learner.costs with it), since its values would all train the same model.  Only
// the training images are read: the holdout images are never opened.
#pragma once

#include <mmp/maps/training/holdout_report.hpp>
#include <mmp/maps/training/setting_keys.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mmp {

/// One key of the search space and the values to try, as text ("0.1", "exponential").
struct SelectionKey {
  std::string name;
  std::vector<std::string> values;
};

struct SelectionSpace {
  std::vector<SelectionKey> keys;
  int sweeps = 1;  ///< passes over the keys
};

/*!
    ensures: returns false when `key` changes nothing that training does under settings s: the
             learner.learch.* keys unless the cost learner is LEARCH; learner.costs and learner.calibrate_bias when it
             is (LEARCH's costs are exp(log-cost)); learner.lambda and learner.passes when LEARCH
             starts from uniform costs.  True for every other key.
!*/
bool settingApplies(const PipelineSettings& settings, const std::string& key);

/// One scored assignment of the search space.
struct SelectionCandidate {
  std::map<std::string, std::string> values;  ///< key -> value, every key of the space
  double cost_ratio_mean = 0.0;               ///< the score: pooled over the left-out areas (inf if failed)
  double feasible_share = 0.0;
  double mhd_mean_px = 0.0;
  std::map<std::string, double> area_cost_ratio;  ///< per left-out area
  double seconds = 0.0;
  /// Why training failed ("without AREA: message"), empty if it did not: a failed candidate scores
  /// inf and the search goes on without it.
  std::string failure;
};

struct SelectionResult {
  std::vector<SelectionCandidate> candidates;  ///< in the order scored
  std::size_t chosen = 0;                      ///< index into candidates
  PipelineSettings settings;                   ///< the given settings with the chosen values
};

/// Called before each fold: candidate number (from 1), the candidate's values, the fold's area, and
/// the fold's own pipeline progress.
using SelectionProgress = std::function<void(int candidate, const std::map<std::string, std::string>& values,
                                             const std::string& area, const std::string& stage, long done, long total)>;

/*!
    requires: settings whose training images show at least two areas, all with labels
    ensures: runs the procedure of the header and returns every candidate scored, the chosen one and
             the settings to train with.  A candidate whose training throws mmp::Error is kept with
             its failure and never chosen.  Throws mmp::InvalidArgument for an empty space, a key
             given twice, a key or value applySetting refuses (before any training), or when no
             candidate could be trained.
!*/
SelectionResult selectSettings(const PipelineSettings& settings, const SelectionSpace& space,
                               const SelectionProgress& progress = {});

}  // namespace mmp
