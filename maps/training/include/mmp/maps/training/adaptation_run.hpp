// One whole teaching run, as `mmp adapt MODEL CONFIG` and `mmp.adapt(model, config)` make it: a saved
// model taught on the demonstrations of its `teach` images (the settings' `train` list: demonstration
// files, or demonstrations generated on labels as training generates them), each demonstration
// scored held out (the model taught on all the others plans between its ends), and, when holdout
// images are given, the adapted and the parent model scored on them as `mmp train` scores a holdout.
//
//   AdaptationRunSettings s;   s.train = {teach images};  s.holdout = {labelled images, optional}
//   const AdaptationRun r = adaptAndReport(CostModel::load("models/follow_road.mmp"), s);
//   r.model.save("site.mmp");
//   r.held_out.model.loss;                    // held-out demonstrations, no labels needed
//   r.report.summary(Method::Learned);        // the holdout, when given
//
// Paths alone: images with demonstration files need no labels, classes or behaviour; those are read
// only for generated demonstrations and holdout scoring.  The adaptation settings are the parent's
// defaults (AdaptationSettings, chosen on the training areas): a handful of demonstrations is too
// little to choose settings on.
#pragma once

#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/held_out.hpp>
#include <mmp/maps/training/holdout_report.hpp>
#include <mmp/maps/training/pipeline.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

/// PipelineSettings whose `train` images are the images to teach on; their features are the parent
/// model's (the settings' `features` are ignored), classes and behaviour serve generated
/// demonstrations and holdout scoring only; `adapt` (PipelineSettings::adapt) says how the parent
/// adapts, whether each demonstration is scored held out (adapt.held_out) and, for linear models, the
/// candidates of adapt.lambda (adapt.lambdas, more than one: chosen by the held-out loss of the
/// demonstrations, with at least kSelectionDemonstrations of them; with fewer, adapt.lambda stays).
struct AdaptationRunSettings : PipelineSettings {
  static constexpr int kSelectionDemonstrations = 3;
};

/// One candidate of the lambda selection: its held-out mean prediction loss.
struct LambdaCandidate {
  double lambda = 0.0;
  double held_out_loss = 0.0;  ///< +inf when a held-out demonstration could not be planned
};

/// A demonstration as taught: its image (the index of `teach_regions`), name and cells.
struct TeachingRecord {
  int image = 0;
  std::string name;
  std::vector<int> cells;
  TeachingStep step;       ///< what teaching it did (loss of the taught paths before and after, seconds)
};

struct AdaptationRun {
  explicit AdaptationRun(CostModel parent) : model(std::move(parent)) {}
  CostModel model;                          ///< the adapted model (its info records what it was taught)
  std::vector<Region> teach_regions;        ///< without raw feature values; demonstrations as taught
  std::vector<TeachingRecord> taught;
  /// The teach images' marks (RegionSpec::avoid and prefer: every cell their strokes cross, one mark of
  /// each kind an image), taught before the first demonstration and kept in every held-out model; and
  /// where each came from.
  std::vector<TeachingMark> marks;
  std::vector<std::string> mark_files;
  /// Each demonstration held out: baseline = the parent, model = the model taught on the others.  With a
  /// lambda selection, the chosen lambda's figures are the ones the selection saw, so they flatter it a little.
  HeldOutPathReport held_out;
  std::vector<LambdaCandidate> lambda_selection;  ///< empty when no selection ran
  double lambda = 0.0;                            ///< the lambda taught with (linear models)
  std::string selection_note;                     ///< why no selection ran, when lambdas were given
  std::vector<HoldoutResult> holdouts;      ///< the adapted model as `learned`, with uniform costs
  std::vector<HoldoutResult> parent_holdouts;  ///< the parent on the same pairs
  HoldoutReport report, parent_report;      ///< pooled (empty without holdout images)
  /// The adapted model against the parent on the holdout's pairs (how much lower its mean cost
  /// ratio is); meaningful when report.pairs > 0.
  PairedComparison versus_parent;
};

/// Called after each demonstration is taught: (k, of n, the record).
using TeachingProgress = std::function<void(int k, int n, const TeachingRecord& record)>;

/*!
    ensures: loads the teach images (`train`) under the parent's features, gives each its
             demonstrations (addDemonstrations: its files, or generated on its labels with the
             settings' demonstrations section) and avoid marks (RegionSpec::avoid), teaches the marks
             and then the demonstrations one at a time in order (progress after each), scores the
             demonstrations held out (every model with the marks), and scores the holdout images (if any) with the adapted
             model, uniform costs and the parent.  The parent is never modified.
             Throws mmp::ConfigError / mmp::DataError naming the image or demonstration, as training
             does: no teach image, a demonstration off its image's grid, an image of another size than
             its path file says (its points then fall off the grid), a model whose costs a taught image
             cannot price; mmp::InvalidArgument for a network model.
!*/
AdaptationRun adaptAndReport(const CostModel& parent, const AdaptationRunSettings& settings,
                             const TeachingProgress& teaching = {}, const StageCallback& progress = {});

}  // namespace mmp
