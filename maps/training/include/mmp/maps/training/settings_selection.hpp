// Choosing the learner's settings inside the training data: leave-one-area-out validation over a
// documented search space, one procedure for every behaviour.  `mmp train` runs it when the config
// has a `select:` section; a program calls it directly:
//
//   SelectionSpace space;
//   space.keys = {{"learner.costs", {"linear", "exponential"}}, {"loss.scale", {"1", "3"}}};  // setting_keys.hpp
//   const SelectionResult chosen = selectSettings(settings, space);
//   RunResult run = trainAndEvaluate(chosen.settings);           // pipeline.hpp
//
// A candidate is an assignment of the space's keys trained for a number of passes (online epochs,
// batch iterations, LEARCH rounds or network epochs: its budget).  It is judged by the learned
// planner's cost ratios on every validation pair of every training area, each area scored by the
// model trained on the other areas (validateFold, holdout_report.hpp); every candidate is scored on
// the same pairs, so two candidates are compared pair by pair.  Only the training images are read:
// the holdout images are never opened.
//
// The procedure, in three parts:
//  1. Coordinate search at the first rung's budget: start from each key's first value; take the keys
//     in order and, for each, score every value with the other keys at their current choice and
//     keep the one the rule (below) picks; `sweeps` times over the keys.  A key that does not apply
//     at the current choice (settingApplies: learner.learch.* keys without learner.kind learch,
//     learner.costs with it) is skipped, since its values would all train the same model.
//  2. Successive halving: every assignment the search scored goes on to the next rung, whose budget
//     is eta times larger (the last rung: the configured passes); after each rung the rule's pick
//     and the next lowest scores, 1 / eta of them (rounded up), go on.  With one rung there is no
//     halving: the search runs at the configured passes (the exhaustive search of earlier versions).
//  3. Early stopping: the choice is made by the rule over the last candidates at every budget they
//     were trained with, fewer passes being cheaper; the chosen settings train that many passes.
// A key that acts after training (SettingKey::after_training: learner.cost_exponent) is not searched:
// every assignment is trained once a fold (trainLearned) and scored with each combination of those
// keys' values (applyAfterTraining, validateFoldVariants); every pick is among all those variants,
// and what goes on to the next rung is 1 / eta of the trained assignments, each with every value.
//
// The score (SelectionScore) a candidate is judged by: Pooled (the default) is the mean over every pair
// of every area; AreaMedian is the median over the left-out areas of each area's mean cost ratio, so
// that one area's few very long detours do not decide alone (docs/results-network.md, "A score not
// ruled by one area", measures both).
//
// The rule (SelectionRule): Lowest picks the lowest score (the current choice on a
// tie).  Paired takes as default the simplest candidate (simplerThan: linear costs < exponential
// costs < LEARCH < network, then fewer passes, then LEARCH from uniform costs, shallower trees,
// fewer network members and channels, then a cost exponent nearer 1; among equals the current
// choice, then the first scored) and
// replaces it with the candidate of lowest score only if that one is better beyond noise: the 95 %
// paired-bootstrap interval of its gain in score over the default's on the same pairs lies wholly
// above 0 (comparePaired, evaluation.hpp, for Pooled; for AreaMedian the same with the pairs
// resampled within each area, compareScores).
//
// Each fold's data (loadFoldData: the other areas' training data, the left-out images with their
// reference paths) is loaded once for every candidate that shares it (the keys outside learner.*
// and loss.* equal).  Folds and candidates are trained at once on `threads` threads (each fold on
// one thread); each
// job's result lands in its own slot and every decision is taken when a batch is complete, so the
// result does not depend on the thread count.
#pragma once

#include <mmp/maps/training/holdout_report.hpp>
#include <mmp/maps/training/setting_keys.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

/// One key of the search space and the values to try, as text ("0.1", "exponential").
struct SelectionKey {
  std::string name;
  std::vector<std::string> values;
};

/// How candidates are compared (see the file comment).
enum class SelectionRule { Lowest, Paired };
/// "lowest" or "paired"; throws mmp::InvalidArgument naming the valid names otherwise.
SelectionRule parseSelectionRule(const std::string& name);
std::string describe(SelectionRule rule);

/// What a candidate is judged by (see the file comment).
enum class SelectionScore { Pooled, AreaMedian };
/// "pooled" or "area_median"; throws mmp::InvalidArgument naming the valid names otherwise.
SelectionScore parseSelectionScore(const std::string& name);
std::string describe(SelectionScore score);

struct SelectionSpace {
  std::vector<SelectionKey> keys;
  int sweeps = 1;  ///< passes of the coordinate search over the keys, >= 1
  SelectionRule rule = SelectionRule::Paired;
  SelectionScore score = SelectionScore::Pooled;
  /// Budgets: rung r of `rungs` trains ceil(passes / eta^(rungs - 1 - r)) passes; >= 1 (1: every
  /// candidate at the configured passes, no halving).
  int rungs = 3;
  int eta = 3;  ///< budget factor between rungs and 1 / share of candidates going on, >= 1
  int threads = 0;  ///< folds trained at once (0: all cores); the result does not depend on it
  /// The seed of the validation pairs (EvaluationSettings::seed of each fold); none: evaluation.seed.
  std::optional<std::uint64_t> pairs_seed;
  /// Validation pairs drawn on each left-out image (EvaluationSettings::pairs of each fold), >= 1;
  /// none: evaluation.pairs.  More pairs, less noise in the scores, more scoring time.
  std::optional<int> pairs;
};

/*!
    ensures: returns false when `key` changes nothing that training does under settings s: the
             learner.learch.* keys unless the cost learner is LEARCH; learner.costs and learner.calibrate_bias when it
             is (LEARCH's costs are exp(log-cost)); learner.lambda and learner.passes when LEARCH
             starts from uniform costs.  True for every other key.
!*/
bool settingApplies(const PipelineSettings& settings, const std::string& key);

/// The passes that are a candidate's budget: the cost learner's own (online epochs or batch
/// iterations, LEARCH rounds, network epochs).
long budgetPasses(const PipelineSettings& settings);
/// Sets the cost learner's passes to `passes`, and those of a linear start (LEARCH or network from
/// the linear learner) in proportion, at least 1.
void setBudgetPasses(PipelineSettings& settings, long passes);

/// The paired rule's order (file comment) as a key: a is simpler or cheaper than b when its key is
/// lexicographically lower.
std::vector<long> simplicityKey(const PipelineSettings& settings);

/// One scored assignment of the search space at one budget.
struct SelectionCandidate {
  std::map<std::string, std::string> values;  ///< key -> value, every key of the space
  long passes = 0;                            ///< the budget trained (budgetPasses)
  int rung = 0;                               ///< the rung it was first scored at (from 0)
  std::vector<long> simplicity;               ///< simplicityKey of its settings
  double score = 0.0;                         ///< what the rule compares (SelectionScore; inf if failed)
  double cost_ratio_mean = 0.0;               ///< pooled over the left-out areas (inf if failed)
  double feasible_share = 0.0;
  double mhd_mean_px = 0.0;
  std::map<std::string, double> area_cost_ratio;  ///< per left-out area
  std::vector<PlanScore> pairs;               ///< the learned plans' scores, every fold's pairs in fold order
  std::vector<std::size_t> area_pairs;        ///< how many of `pairs` each fold has, in fold order
  /// The folds' training and scoring, summed; candidates that differ only in after-training keys
  /// share one training, counted on the first of them.
  double seconds = 0.0;
  /// Why training failed ("without AREA: message"), empty if it did not: a failed candidate scores
  /// inf and the search goes on without it.
  std::string failure;
};

struct SelectionResult {
  std::vector<SelectionCandidate> candidates;  ///< in the order scored
  std::size_t chosen = 0;                      ///< index into candidates
  PipelineSettings settings;                   ///< the given settings with the chosen values and passes
  double seconds = 0.0;                        ///< wall time of the selection
};

constexpr std::size_t kNoCandidate = static_cast<std::size_t>(-1);

/*!
    requires: every index in `among` and `current` (unless kNoCandidate) < candidates.size(); current in among
    ensures: the rule's pick among candidates[among] (file comment), kNoCandidate if every one failed.
             Lowest: the lowest score, `current` on a tie, else the first in `among`.
             Paired: the default is the simplest (lowest simplicity), `current` among equals, else
             the first in `among`; the lowest score replaces it only if compareScores(its pairs, the
             default's, score) has an interval wholly above 0.
!*/
std::size_t pickCandidate(const std::vector<SelectionCandidate>& candidates, const std::vector<std::size_t>& among,
                          std::size_t current, SelectionRule rule, SelectionScore score);

/// The score of `pairs` grouped into areas of area_pairs[k] pairs each, in order: their mean (Pooled) or
/// the median of the areas' means (AreaMedian; the mean of the middle two for an even number of areas).
double selectionScore(const std::vector<PlanScore>& pairs, const std::vector<std::size_t>& area_pairs,
                      SelectionScore score);

/*!
    requires: a and b scored on the same pairs, grouped alike (area_pairs equal and summing to pairs.size())
    ensures: the gain in score of a over b (b's score - a's) and its 95 % paired-bootstrap interval,
             pairs resampled within each area (Pooled: comparePaired of evaluation.hpp, as before);
             throws mmp::InvalidArgument when the pairs do not match.
!*/
PairedComparison compareScores(const SelectionCandidate& a, const SelectionCandidate& b, SelectionScore score,
                               int resamples = 10000, std::uint64_t seed = 1);

/// Called before each fold and with its progress: candidate number (from 1), the candidate's
/// values, the fold's area, and the fold's own pipeline progress.  Calls come from the selection's
/// threads one at a time.
using SelectionProgress = std::function<void(int candidate, const std::map<std::string, std::string>& values,
                                             const std::string& area, const std::string& stage, long done, long total)>;

/*!
    requires: settings whose training images show at least two areas, all with labels
    ensures: runs the procedure of the header and returns every candidate scored, the chosen one and
             the settings to train with.  A candidate whose training throws mmp::Error is kept with
             its failure and never chosen.  Throws mmp::InvalidArgument for an empty space, a key
             given twice, a key or value applySetting refuses, sweeps, rungs or eta < 1 (before any
             training), or when no candidate could be trained.
!*/
SelectionResult selectSettings(const PipelineSettings& settings, const SelectionSpace& space,
                               const SelectionProgress& progress = {});

}  // namespace mmp
