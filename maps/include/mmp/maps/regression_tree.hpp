// Regression trees over a cell's feature vector, and the weighted sums of them that LEARCH adds to a
// log-cost (learch.hpp; Ratliff, Silver and Bagnell 2009).
//
// A RegressionTree is a small CART regressor stored as flat node arrays, so that a model file holds
// it as named f64 arrays (TreeEnsemble::store).  A node either splits -- feature k, threshold t:
// f[k] <= t goes left, else right -- or is a leaf holding a value.  fit() grows a tree greedily by
// weighted squared error:
//   - candidate thresholds per feature: midpoints between neighbouring distinct sample values, all
//     of them if there are at most `thresholds`, else those after `thresholds` evenly spaced
//     quantiles of the samples (the features of a coded map take at most 256 values anyway);
//   - each node takes the split that lowers sum_i w_i (y_i - value)^2 the most, provided both
//     children keep at least min_leaf_samples samples; ties go to the lowest feature, then the
//     lowest threshold, so a fit is a function of its input alone;
//   - a leaf's value is the weighted mean of its targets, so it lies within the targets' range.
//
//   RegressionTree tree = RegressionTree::fit(samples, targets, weights, {3, 20, 32});
//   double h = tree.predict([&](int k) { return map.value(s, k); });
//
// Own code rather than cv::ml::DTrees: sample weights and the split rule are ours to state, the
// result is deterministic, and a tree is five arrays that a corrupted file can be checked against
// (validate) instead of an OpenCV FileStorage text.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/core/model_file.hpp>

#include <Eigen/Dense>
#include <array>
#include <string>
#include <vector>

namespace mmp {

class RegressionTree {
 public:
  struct Node {
    int feature = -1;        ///< the split's feature, -1 for a leaf
    double threshold = 0.0;  ///< f[feature] <= threshold goes to left
    int left = -1, right = -1;  ///< children (indices after this node's), -1 for a leaf
    double value = 0.0;      ///< a leaf's prediction (inner nodes: the weighted mean of their samples)
  };

  struct Params {
    int depth = 3;              ///< the most splits from the root to a leaf, in [0, 16]
    int min_leaf_samples = 20;  ///< >= 1
    int thresholds = 32;        ///< candidate thresholds per feature, in [1, 255]
  };

  /*!
      requires: samples.rows() == targets.size() == weights.size() >= 1, every value finite, every
                weight > 0; params in range (throws mmp::InvalidArgument naming the parameter)
      ensures: the tree described in the file comment, fitted to rows of `samples` (one sample a
               row, one feature a column); every leaf value lies in [min targets, max targets]
  !*/
  static RegressionTree fit(const Eigen::MatrixXf& samples, const Eigen::VectorXd& targets,
                            const Eigen::VectorXd& weights, const Params& params);

  /// A tree of the given nodes; throws mmp::InvalidArgument as validate() does.
  RegressionTree(std::vector<Node> nodes, int features);

  /// The leaf that feature(k) (feature k of the input) reaches, its value.
  template <class FeatureOf>
  double predict(const FeatureOf& feature) const {
    const Node* node = nodes_.data();
    while (node->feature >= 0) node = &nodes_[static_cast<std::size_t>(
        static_cast<double>(feature(node->feature)) <= node->threshold ? node->left : node->right)];
    return node->value;
  }

  const std::vector<Node>& nodes() const { return nodes_; }
  /// The smallest and largest leaf value: every prediction lies between them.
  std::array<double, 2> range() const;

 private:
  RegressionTree() = default;
  /// Throws mmp::InvalidArgument naming the node unless: at least one node; an inner node's feature
  /// in [0, features), its children inside the tree and after it (so every walk ends at a leaf);
  /// a leaf's children -1; thresholds and values finite.
  void validate(int features) const;

  std::vector<Node> nodes_;
};

/*!
    WHAT THIS OBJECT REPRESENTS
        A step-weighted sum of regression trees, sum_t step_t h_t(f), over the features of a
        FeatureMap: the boosted part of a LEARCH log-cost.  Empty, it is 0 everywhere.
    STORAGE
        store() writes the model arrays "trees.steps" and "trees.nodes" (one entry per tree: its
        step and node count) and "trees.feature", "trees.threshold", "trees.left", "trees.right",
        "trees.value" (one entry per node, the trees one after another, children indexed within
        their tree); fromModel() reads them back, checking every entry.
!*/
class TreeEnsemble {
 public:
  /// requires: step finite > 0 (throws mmp::InvalidArgument).
  void add(RegressionTree tree, double step);
  /// Keeps the first `count` trees.
  void truncate(std::size_t count);

  std::size_t size() const { return trees_.size(); }
  bool empty() const { return trees_.empty(); }
  const std::vector<RegressionTree>& trees() const { return trees_; }
  const std::vector<double>& steps() const { return steps_; }

  /// sum_t step_t h_t(f(s)) of cell s of the map.  requires: the trees' features < map.features().
  double operator()(const FeatureMap& map, int s) const {
    double sum = 0.0;
    for (std::size_t t = 0; t < trees_.size(); ++t) {
      sum += steps_[t] * trees_[t].predict([&](int k) { return map.value(s, k); });
    }
    return sum;
  }
  /// lower <= the sum <= upper for every input: the steps times each tree's smallest and largest leaf.
  std::array<double, 2> range() const;
  /// The largest feature index a split uses, -1 if none.
  int largestFeature() const;

  /// Writes the arrays of the class comment into model.arrays (none when empty).
  void store(Model& model) const;
  /*!
      ensures: the ensemble stored in the model (empty if it has no "trees.*" arrays).  Throws
               mmp::DataError naming the array, the entry (and its tree and node) and what is wrong
               if the arrays are partly missing, of mismatched lengths, or describe a tree that
               validate() refuses for `features` features; nothing is indexed before it is checked.
  !*/
  static TreeEnsemble fromModel(const Model& model, int features);

 private:
  std::vector<RegressionTree> trees_;
  std::vector<double> steps_;
};

}  // namespace mmp
