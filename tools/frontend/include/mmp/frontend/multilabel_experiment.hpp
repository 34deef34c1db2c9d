// The multilabel experiment of `mmp multilabel` and bench_multilabel: data-set tables (multilabel_data.hpp)
// -> the pairwise model (mmp/core/tasks/multilabel.hpp) -> a learner with lambda chosen by k-fold
// cross-validation inside the training rows (never the test rows) -> test Hamming loss and subset error.
#pragma once

#include <mmp/frontend/config.hpp>
#include <mmp/datasets/multilabel_data.hpp>

#include <mmp/core/tasks/multilabel.hpp>
#include <mmp/learners/learner_settings.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mmp::tools {

/// "complete" (every pair of labels), "chain" (a tree: labels i, i + 1) or "empty" (independent labels).
PairwiseGraph labelGraph(const std::string& name, int labels, int states = 2);

/// The rows of a table as a pairwise model on `graph` (its y entries are the states).
std::shared_ptr<const MultilabelData> multilabelModel(const datasets::MultilabelTable& table, const PairwiseGraph& graph,
                                                      MultilabelOptions options = {});

/// One example per row of a model, with the lists the learners and multilabelErrors take.
struct MultilabelExamples {
  std::vector<std::unique_ptr<MultilabelExample>> owned;
  ExampleList list;
  std::vector<const MultilabelExample*> typed;
};
MultilabelExamples multilabelExamples(const std::shared_ptr<const MultilabelData>& data, MultilabelInference inference,
                                      const std::vector<std::size_t>& rows = {});

struct MultilabelSettings {
  std::string graph = "complete";
  int states = 2;                    ///< per label (the synthetic model: 4)
  MultilabelOptions model;           ///< what the unary factors see
  MultilabelInference inference = MultilabelInference::Lp;
  LearnerSettings learner;           ///< kind online, batch, dlpw or cutting_plane; its lambda is replaced by the chosen one
  Formulation formulation = Formulation::Margin;  ///< slack and poslearn need exact inference
  std::vector<double> lambdas;       ///< candidates; one value: no validation
  int extend_at_edge = 0;            ///< up to this many more lambdas while the choice is at the grid's edge (beyondGridEdge)
  int validation_folds = 5;          ///< >= 2: the training rows, shuffled (seeded), cut into this many folds
  std::uint64_t validation_seed = 1;
};

/// The settings of a multilabel config's keys graph, inference, learner (kind, online, batch, dlpw,
/// cutting_plane), formulation and validation (lambdas, folds, seed, extend_at_edge); the other keys
/// are the caller's.  Throws mmp::ConfigError naming the key path.
MultilabelSettings multilabelSettings(const ConfigNode& config);

/// What trainMultilabel leaves behind: the weights and the learner's report.
struct MultilabelTrained {
  Eigen::VectorXd w;
  double seconds = 0.0;
  long passes = 0;
  Formulation formulation = Formulation::Margin;
  std::string info;                ///< "<info>: <why it stopped>"
  std::vector<TraceRecord> trace;
  std::string trace_value;         ///< what the trace's values are
};

/// Trains the learner of `settings` with its lambda replaced by `lambda` under settings.formulation on
/// `examples`; `callback`, if given, sees every trace record (returning false stops training).  The one
/// training step of runMultilabel (its folds and its final model).
MultilabelTrained trainMultilabel(const MultilabelSettings& settings, double lambda, const ExampleList& examples,
                                  const TraceCallback& callback = {});

struct MultilabelValidation {
  double lambda = 0.0;
  MultilabelErrors held_out;  ///< pooled over the folds: every training row scored once
  double seconds = 0.0;       ///< training, summed over the folds
};

/// The validation folds of `rows` training rows: fold k holds the rows at positions k, k + folds, ...
/// of a seeded shuffle (mmp::Random), so every caller with the same seed gets the same folds.
std::vector<std::vector<std::size_t>> validationFolds(std::size_t rows, int folds, std::uint64_t seed);

struct MultilabelResult {
  double lambda = 0.0;
  std::vector<MultilabelValidation> validation;  ///< empty when one lambda was given
  MultilabelErrors train, test;
  double train_seconds = 0.0, test_seconds = 0.0;
  long passes = 0;
  Formulation formulation = Formulation::Margin;  ///< as the final training's learner reports it
  std::string info;
  Eigen::VectorXd weights;
};

/*!
    requires: tables with the same label count and feature count
    ensures: chooses lambda by the lowest Hamming loss over the validation folds of the training
             rows (each fold scored by the model trained on the others; the first lambda on a tie;
             settings.extend_at_edge more lambdas at most while the choice is at the grid's edge),
             trains on every training row with it and scores the test rows; `progress` (optional) is
             told each stage.
!*/
MultilabelResult runMultilabel(const datasets::MultilabelTable& train, const datasets::MultilabelTable& test, const MultilabelSettings& settings,
                               const std::function<void(const std::string&)>& progress = {});

}  // namespace mmp::tools
