// Teaching a trained cost model on a new site: a saved CostModel adapts online to demonstrations on
// new images, one at a time, through the same oracle as training (loss-augmented A*).
//
//   mmp::CostModelTeacher teacher(mmp::CostModel::load("models/follow_road.mmp"));
//   const int image = teacher.addImage(mmp::loadGeoImage("site.tif"), "site.tif");
//   teacher.teach(image, cells);            // a demonstrated path: cells of the image's grid
//   teacher.model().save("site.mmp");       // the parent, adapted; its info records what it learned
//
// How each kind of model adapts:
//   - linear costs (w . f or exp(w . f)): the online learner (Greedy Projection, steps 1/(lambda t))
//     minimises lambda/2 |w - w0|^2 + sum_i beta_i h_i(w) over the demonstrations taught so far,
//     regularised toward the parent's weights w0 rather than toward zero: with few demonstrations
//     the prior dominates, and lambda is its strength.  Linear costs train with the parent's bias
//     raised to the floor that keeps loss-augmented costs positive (as training does); the parent's
//     bias calibration (its bias below that floor) is carried over to the adapted weights.
//   - LEARCH (w0 . f + trees): new trees fitted to the functional gradient of the new demonstrations
//     only, appended to the parent's (learch.hpp, start_trees); the old trees stay.  A cost exponent e
//     is folded into the log-cost (weights and tree steps times e), so the new trees fit the costs the
//     parent plans on; a linear model's exponent is kept, and adaptation fits its costs before it.
//   - a convolutional network (w0 . f + net(image)): the network fine-tuned from the parent's parameters
//     theta0 by the same oracle (fineTuneNetwork, network_training.hpp, in the libtorch module): Adam
//     steps of size network_step on the mean hinge term, each followed by the proximal step toward the
//     parent, minimising (network_lambda/2) |theta - theta0|^2 + the mean hinge term, network_epochs steps;
//     with network_head_only only the last 1 x 1 layer moves.  The linear part w0, the cost floor and
//     exponent are the parent's (the network adapts its costs before the exponent, as a linear model
//     does).  The image's pixels are needed (the network reads them): addImage(GeoImage), or a map with
//     teachingInputs.  A segmenter is refused (mmp::InvalidArgument).
// Each teach() re-runs the adaptation from the parent over every demonstration taught so far, handed
// to the learner in one canonical order (by image name and fingerprint, then by the path's cells), so
// the model is a function of the parent, the SET of demonstrations and the settings: bit for bit the
// same whatever order they were taught in (at a fixed thread count), and undo() is exact.  Every guarantee of training holds: the costs
// stay inside CostLimits on the taught images (else the learner keeps the last good weights and the
// step's message says so), and the parent is never modified.
#pragma once

#include <mmp/core/oracle.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/training/held_out.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/maps/training/settings.hpp>
#include <mmp/planning/path_example.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

class CostModelTrainer;  // the kinds' fit and adapt (private to maps/training)
struct TeachingCache;   // what a kind keeps between teaching steps (likewise)

// AdaptationSettings, the adapt.* keys: settings.hpp (PipelineSettings::adapt).


/// The PathExample parameters a teacher gives the demonstrations of `parent` (the loss on its cell grid,
/// q = 1, its cost form; exponential for LEARCH), and the LEARCH settings it adapts with: also what the
/// same learner from scratch uses (bench_adapt).
PathExample::Params adaptationExampleParams(const AdaptationSettings& settings, const CostModel& parent);
LearchSettings adaptationLearch(const AdaptationSettings& settings);

/// The image's feature map under the model's feature stack, its cells without data blocked (an image
/// without a frame stays in pixels): what the teacher and `mmp suggest` plan on.  Throws as
/// CostModel::costs does if the image does not suit the model.
std::shared_ptr<const FeatureMap> teachingMap(const CostModel& model, const GeoImage& image);

/// A network model's input planes on the image (networkInputs of its pixels, standardised by the
/// statistics of its pixels with data if the network normalises, then `map`'s feature planes if it
/// reads them; `map` made by teachingMap): what CostModel::costs feeds the network.  Null for a model
/// without a network.
std::shared_ptr<const std::vector<float>> teachingInputs(const CostModel& model, const GeoImage& image, const FeatureMap& map);

/// An image a teacher holds: its feature map under the parent's features (teachingMap), a network
/// model's inputs on it (teachingInputs; null for other models), its name in messages and provenance
/// and the fingerprint recorded beside it.
struct TeachingImage {
  std::string name, fingerprint;
  std::shared_ptr<const FeatureMap> map;
  std::shared_ptr<const std::vector<float>> inputs;
};

/// A model's log-costs on a teaching image (CostModel::logCosts with the image's network inputs).
inline void teachingLogCosts(const CostModel& model, const TeachingImage& image, std::vector<double>& out) {
  model.logCosts(*image.map, out, image.inputs.get());
}

/// How `parent` adapts with `settings`, in words (its kind's: "online greedy projection toward the
/// parent, lambda 10, 10 epochs; loss radius ..."): what a teacher records as adapted_by.
std::string describeAdaptation(const CostModel& parent, const AdaptationSettings& settings);
/// The adapt.* key of the prior's strength for `parent`'s kind: adapt.lambda (linear),
/// adapt.learch_rounds (LEARCH), adapt.network_lambda (network).
std::string adaptationStrength(const CostModel& parent);

/// Ground a teaching step moved without being shown it: cells of one image in percentiles of the
/// parent's costs there, beyond the range of most taught cells, whose cost moved against the taught cells'.
struct UnshownMove {
  bool dear = true;                               ///< dearer than the taught ground, made cheaper; else cheaper, made dearer
  int first_percentile = 0, last_percentile = 0;  ///< 1..100, 1 the parent's cheapest hundredth of the image
  double share = 0.0;                             ///< the ground's fraction of the image's passable cells
  double factor = 1.0;  ///< the strongest move: cost relative to the taught cells', adapted / parent
};

/// How far ground must move relative to the taught cells before a teacher warns (both ways).
inline constexpr double kUnshownMoveFactor = 1.5;
/// The share of the taught cells whose parent costs bound the taught ground (the rest: a path's odd cells).
inline constexpr double kUnshownTaughtShare = 0.9;

/*!
    requires: parent and adapted: the log-costs of one image under the parent and the adapted model
              (same size, +inf on blocked cells); taught: the cells there that demonstrations and marks cover
    ensures: splits the cells passable under both into a hundred percentiles of the parent's log-cost
             and, per percentile whose untaught cells all lie above the taught cells' 90th percentile of
             the parent's log-cost (below their 10th), factor = exp(mean change of log-cost on those
             cells - mean change on the taught cells); returns at most two moves: the dear percentiles
             with factor <= 1 / threshold (dear ground now cheaper relative to the paths) and the cheap
             ones with factor >= threshold (cheap ground now dearer), each with the percentiles' range,
             their share of the image and the strongest factor.  Empty if nothing moved so far.
!*/
std::vector<UnshownMove> unshownMoves(const std::vector<double>& parent, const std::vector<double>& adapted, const std::vector<int>& taught,
                                      double threshold = kUnshownMoveFactor);
/// A user's warning for a move on `image`: what moved, how far and which mark would keep it.
std::string describeUnshownMove(const UnshownMove& move, const std::string& image);

/// A demonstration taught on one of the teacher's images.
struct TaughtDemonstration {
  int image = 0;           ///< the image's index (CostModelTeacher::addImage)
  std::vector<int> cells;  ///< the path, start to goal, as cells of the image's grid (row * cols + col)
  /// What the user calls it (a CSV's path id, the page's name); "" for none.  Recorded in the model
  /// (adapted_demonstration_names) and written back as the path column of a CSV; it changes no cost.
  std::string name;
};

/// Throws mmp::InvalidArgument unless `name` is a demonstration's name a CSV can hold: 1 to 100
/// characters, none of them a comma, quote or control character.
void checkDemonstrationName(const std::string& name);

/// What a mark says of its ground.
enum class MarkKind {
  Avoid,   ///< it must stay dear (a lake, roofs)
  Prefer,  ///< it may be cheap (a track the paths did not follow)
};
const char* markKindName(MarkKind kind);  ///< "avoid", "prefer"

/// Ground a user marked on one of the teacher's images: its passable cells (blocked ones are left out).
struct TeachingMark {
  int image = 0;           ///< the image's index (CostModelTeacher::addImage)
  std::vector<int> cells;  ///< cells of the image's grid (row * cols + col), in any order
  MarkKind kind = MarkKind::Avoid;
};

/// How much dearer than the taught ground an avoid mark must stay at least (and at least as dear,
/// relative to it, as the parent had it).
inline constexpr double kAvoidMargin = 1.5;
/// How much dearer than the taught ground a prefer mark may be at most (and at most as dear, relative
/// to it, as the parent had it): no dearer than the paths' own ground.
inline constexpr double kPreferMargin = 1.0;

/// A mark as the learners see it: the marked cells' mean features and the mean features of the ground
/// it is held against (the taught cells', or the image's passable cells' before any path), for the
/// linear learner; its image and cells, for LEARCH (LearchMark).
struct MarkMeans {
  Eigen::VectorXd mark, reference;
  MarkKind kind = MarkKind::Avoid;
  int image = -1;
  std::vector<int> cells;
};

/// What one teach(), avoid() or undo() did.
struct TeachingStep {
  int demonstrations = 0;  ///< taught so far
  Info info = Info::Success;
  std::string message;     ///< how the learner stopped (the last good weights kept, ...)
  double seconds = 0.0;
  /// The mean prediction loss per cell of demonstration of the taught demonstrations (plain A*
  /// between each one's ends, against it) under the parent and under the adapted model.
  double loss_before = 0.0, loss_after = 0.0;
  /// Ground the step moved without being shown it (unshownMoves on each taught image, described):
  /// "mark it avoid if it should stay dear".  Empty when nothing moved past kUnshownMoveFactor.
  std::vector<std::string> warnings;
};

class CostModelTeacher {
 public:
  /// Throws mmp::InvalidArgument for bad settings or a segmenter network (trained on labels).
  explicit CostModelTeacher(CostModel parent, AdaptationSettings settings = {});
  CostModelTeacher(const CostModelTeacher&) = delete;
  CostModelTeacher& operator=(const CostModelTeacher&) = delete;
  ~CostModelTeacher();

  /*!
      ensures: the image's features under the parent's feature stack, kept for the demonstrations on
               it; returns its index.  `name` names it in messages and in the model's provenance,
               `fingerprint` (e.g. fileChecksum of its file) is recorded beside it.  Throws as
               CostModel::costs does if the image does not suit the model.
  !*/
  int addImage(const GeoImage& image, const std::string& name, const std::string& fingerprint = "");
  /// The same with the image's feature map already made by parent().features() (its unknown cells
  /// blocked): many teachers of one parent share it.  Throws mmp::InvalidArgument for a map of another
  /// feature count, and for a network model, which needs the image's inputs too (the next overload).
  int addImage(std::shared_ptr<const FeatureMap> map, const std::string& name, const std::string& fingerprint = "");
  /// The same with a network model's inputs (teachingInputs of the image and map; null for other
  /// models).  Throws mmp::InvalidArgument if they are missing or of the wrong size.
  int addImage(std::shared_ptr<const FeatureMap> map, std::shared_ptr<const std::vector<float>> inputs, const std::string& name,
               const std::string& fingerprint = "");
  int images() const;
  const TeachingImage& image(int i) const { return images_.at(static_cast<std::size_t>(i)); }
  /// The grid of image i: rows x cols cells of cellSize() pixels.
  int rows(int image) const;
  int cols(int image) const;
  int cellSize() const { return parent_.features().settings().cell_size; }

  /*!
      requires: image is an index addImage gave
      ensures: checks the path (at least 2 cells, each on the image's grid and passable under the
               parent, consecutive cells 8-neighbours: else mmp::DataError naming the image, the
               position in the path and the cell, and nothing changes), adds it and adapts the
               model from the parent over every demonstration taught so far
  !*/
  TeachingStep teach(int image, std::vector<int> cells);
  /// Several demonstrations (and marks) at once, checked as teach(image, cells) and avoid() check
  /// one (all or none added), then one adaptation: the model teach(), avoid() and prefer() would give
  /// after the same demonstrations and marks one by one, in any order.
  TeachingStep teach(const std::vector<TaughtDemonstration>& demonstrations, const std::vector<TeachingMark>& marks = {});
  /// Throws what teach(image, cells) would throw for the path, and does nothing else.
  void checkDemonstration(int image, const std::vector<int>& cells) const;
  /*!
      requires: image is an index addImage gave
      ensures: checks the cells (on the image's grid: else mmp::DataError naming the image and the
               cell), adds the mark (its blocked cells left out) and adapts the model from the parent
               over every demonstration and mark so far: the marked ground's mean cost is held at
               least max(kAvoidMargin, the parent's ratio there) times the taught cells' mean cost.
               Linear: a hard linear constraint on the weights (a half-space the learner projects
               onto): while the paths keep it, the mark changes nothing.  LEARCH: on the geometric
               means, by the new trees (LearchMark), held against the paths (with marks alone the
               model stays the parent), and a mark the rounds did not bring to it is a warning.
               Network: a hinge on the mean log-costs beside the paths' (NetworkMark), likewise held
               against the paths and warned of when the epochs leave it broken.
  !*/
  TeachingStep avoid(int image, std::vector<int> cells);
  /// As avoid(), for ground that may be cheap: its mean cost is held at most min(kPreferMargin, the
  /// parent's ratio there) times the taught cells' mean cost (the image's mean ground before any path).
  TeachingStep prefer(int image, std::vector<int> cells);
  /// Drops the last demonstration or mark taught (mmp::InvalidArgument if there is none) and re-adapts.
  TeachingStep undo();
  /// Names demonstration k (of demonstrations()), as checkDemonstrationName allows; the model stays,
  /// its record takes the name.
  void rename(std::size_t k, const std::string& name);

  /// The adapted model (the parent itself before any demonstration); its info records the parent's
  /// fingerprint, the images taught on and every demonstration (adapted_*: `mmp info` shows them).
  const CostModel& model() const { return model_; }
  const CostModel& parent() const { return parent_; }
  const std::vector<TaughtDemonstration>& demonstrations() const { return demonstrations_; }
  const std::vector<TeachingMark>& marks() const { return marks_; }
  const AdaptationSettings& settings() const { return settings_; }

 private:
  TeachingStep adapt();
  TeachingMark checkedMark(const TeachingMark& mark) const;
  std::map<std::string, std::string> parentInfo() const;
  void recordProvenance(CostModel& model) const;
  /// The demonstrations' indices in the order the learners see them (canonicalOrder: by image, then
  /// by cells), which makes the adapted model independent of the order they were taught in.
  std::vector<std::size_t> canonicalOrder() const;
  /// The marks as the linear learner's constraints: each one's mean features against the taught cells'.
  std::vector<MarkMeans> markConstraints() const;
  const std::vector<double>& parentLogCosts(int image) const;
  void warnOfUnshownMoves(const std::map<int, std::vector<double>>& adapted_costs, TeachingStep& step) const;

  CostModel parent_;
  AdaptationSettings settings_;
  /// The parent's kind's trainer (trainer.hpp), which owns how it adapts.
  std::unique_ptr<const CostModelTrainer> trainer_;
  std::string parent_fingerprint_;
  std::vector<TeachingImage> images_;
  /// The parent's log-costs per image, once a step has needed them (a network's forward pass is not free).
  mutable std::vector<std::vector<double>> parent_log_costs_;
  /// What the parent's kind keeps between steps (trainer.hpp): results do not depend on it.
  std::unique_ptr<TeachingCache> cache_;
  /// Each taught path's example (its loss map) and its prediction loss under the parent, by image and
  /// cells: made once rather than every step (results do not depend on it).
  struct TaughtExample {
    std::shared_ptr<const PathExample> example;
    std::optional<double> parent_loss;
  };
  std::map<std::pair<int, std::vector<int>>, TaughtExample> taught_examples_;
  std::vector<TaughtDemonstration> demonstrations_;
  std::vector<TeachingMark> marks_;
  std::vector<bool> taught_marks_;  ///< what was taught, in order (true: a mark): what undo() drops
  CostModel model_;
};

/*!
    ensures: each of the teacher's demonstrations held out: a teacher of the same parent, settings and
             images, taught the others and every mark, plans between its ends; its loss against it
             beside the parent's (held_out.hpp) -- the one figure a user without labels has.  Empty
             (demonstrations 0) with fewer than 2 demonstrations.  The teacher is not changed.
!*/
HeldOutPathReport heldOutDemonstrations(const CostModelTeacher& teacher, const StageCallback& progress = {});

}  // namespace mmp

// Which demonstration to ask for next (demonstrationValues, suggestDemonstrations): kept in its own
// header, included here so that users of the teacher keep seeing it.
#include <mmp/maps/training/suggestion.hpp>
