// The per-pixel classifier baseline: a linear classifier of the behaviour's preferred class,
// trained on the same image features and the same training images as the planner, its score turned
// into a cost map.  It shows what learning from demonstrations adds over "find the road, then plan".
// It never sees the class-score features (features.class_scores): those are themselves a classifier
// of the same labels, so the baseline stays the same whether the planner uses them or not.
//
// Training: cells drawn (seeded) from the training images' labels, half of the preferred class and
// half of the others; a two-class Crammer-Singer SVM (core's MulticlassExample) trained by the
// batch subgradient learner.  score(f) = (w_preferred - w_other) . f.
// Cost: 1 + a (1 - sigmoid(score)): cheap where the classifier is sure of the preferred class, at
// most 1 + a elsewhere.  The scale a is chosen among the configured values by the lowest mean cost
// ratio on the training images' own demonstrations (never on holdout images).
#pragma once

#include <mmp/maps/training/regions.hpp>

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace mmp {

struct LinearClassifier {
  Eigen::VectorXd direction;        ///< score(f) = direction . f, over the first direction.size() features
  int samples = 0;
  double training_accuracy = 0.0;   ///< on the drawn cells
  double cost_scale = 1.0;          ///< a, once chosen
};

/// requires: regions with labels and feature maps of at least `features` features; the classifier sees
/// the first `features` of each cell (FeatureStack::baseFeatures: never the class-score layer, itself a
/// classifier of the same labels).  Throws mmp::DataError if they hold no cell of the preferred class
/// or none of the others.
LinearClassifier trainPreferredClassifier(const std::vector<const Region*>& regions, int preferred, int features,
                                          const ClassifierSettings& settings, int threads);

/// The multiclass layer behind the class-score features (FeatureStack::withClassScores).
struct ClassScorer {
  std::vector<std::string> classes;  ///< the declared classes that occur in the training labels
  Eigen::MatrixXd weights;           ///< one row per class over the stacked features
  double training_accuracy = 0.0;    ///< on the drawn cells
};

/// requires: regions with labels and feature maps.  A Crammer-Singer SVM of all declared classes that
/// occur in the labels, on the same number of cells of each (settings.samples in all, seeded); throws
/// mmp::DataError if fewer than two classes occur.
ClassScorer trainClassScorer(const std::vector<const Region*>& regions, const std::vector<LabelClass>& classes,
                             const ClassifierSettings& settings, int threads);

/// The cost map 1 + a (1 - sigmoid(score)) of every cell.
std::vector<double> classifierCosts(const FeatureMap& map, const LinearClassifier& classifier, double cost_scale);

}  // namespace mmp
