#include <mmp/maps/regression_tree.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace mmp {
namespace {

// The samples of one fit, their features cut into bins: bins[k][i] = the number of feature k's
// candidate thresholds below sample i's value, so that "value <= cuts[k][c]" is "bin <= c".
struct Binned {
  std::vector<std::vector<double>> cuts;
  std::vector<std::vector<std::uint8_t>> bins;
};

Binned binSamples(const Eigen::MatrixXf& samples, int thresholds) {
  const Eigen::Index n = samples.rows();
  Binned b;
  b.cuts.resize(static_cast<std::size_t>(samples.cols()));
  b.bins.resize(static_cast<std::size_t>(samples.cols()));
  std::vector<float> sorted(static_cast<std::size_t>(n));
  for (Eigen::Index k = 0; k < samples.cols(); ++k) {
    for (Eigen::Index i = 0; i < n; ++i) sorted[static_cast<std::size_t>(i)] = samples(i, k);
    std::sort(sorted.begin(), sorted.end());
    std::vector<float> distinct = sorted;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<double>& cuts = b.cuts[static_cast<std::size_t>(k)];
    auto cutAfter = [&](std::size_t j) { cuts.push_back(0.5 * (static_cast<double>(distinct[j]) + distinct[j + 1])); };
    if (distinct.size() <= static_cast<std::size_t>(thresholds) + 1) {
      for (std::size_t j = 0; j + 1 < distinct.size(); ++j) cutAfter(j);
    } else {
      for (int q = 1; q <= thresholds; ++q) {  // after the q-th of thresholds + 1 equal shares of the samples
        const float v = sorted[static_cast<std::size_t>(static_cast<long long>(q) * n / (thresholds + 1))];
        const std::size_t j = static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), v) - distinct.begin());
        if (j + 1 < distinct.size() && (cuts.empty() || cuts.back() < distinct[j])) cutAfter(j);
      }
    }
    std::vector<std::uint8_t>& bins = b.bins[static_cast<std::size_t>(k)];
    bins.resize(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
      bins[static_cast<std::size_t>(i)] =
          static_cast<std::uint8_t>(std::lower_bound(cuts.begin(), cuts.end(), static_cast<double>(samples(i, k))) - cuts.begin());
    }
  }
  return b;
}

class Grower {
 public:
  Grower(const Binned& binned, const Eigen::VectorXd& targets, const Eigen::VectorXd& weights,
         const RegressionTree::Params& params, std::vector<RegressionTree::Node>& nodes)
      : binned_(binned), y_(targets), w_(weights), params_(params), nodes_(nodes) {}

  // Grows the subtree of the samples `index` at `depth`; returns its root's node index.
  int grow(std::vector<int> index, int depth) {
    double weight = 0.0, sum = 0.0, squares = 0.0;
    for (int i : index) weight += w_[i], sum += w_[i] * y_[i], squares += w_[i] * y_[i] * y_[i];
    const int self = static_cast<int>(nodes_.size());
    nodes_.push_back({});
    nodes_.back().value = sum / weight;
    const int m = params_.min_leaf_samples;
    if (depth == params_.depth || static_cast<int>(index.size()) < 2 * m) return self;

    // 1) the best split: the largest drop of the weighted squared error,
    //    sum w y^2 - S^2 / W  ->  (sum w y^2 - S_L^2 / W_L) + (sum w y^2 - S_R^2 / W_R)
    double best_gain = 1e-12 * squares;  // below this the split only fits rounding
    int best_feature = -1, best_cut = -1;
    for (std::size_t k = 0; k < binned_.cuts.size(); ++k) {
      const std::size_t cuts = binned_.cuts[k].size();
      if (cuts == 0) continue;
      hist_weight_.assign(cuts + 1, 0.0);
      hist_sum_.assign(cuts + 1, 0.0);
      hist_count_.assign(cuts + 1, 0);
      const std::vector<std::uint8_t>& bins = binned_.bins[k];
      for (int i : index) {
        const std::uint8_t b = bins[static_cast<std::size_t>(i)];
        hist_weight_[b] += w_[i];
        hist_sum_[b] += w_[i] * y_[i];
        ++hist_count_[b];
      }
      double left_weight = 0.0, left_sum = 0.0;
      int left_count = 0;
      for (std::size_t c = 0; c < cuts; ++c) {
        left_weight += hist_weight_[c], left_sum += hist_sum_[c], left_count += hist_count_[c];
        const int right_count = static_cast<int>(index.size()) - left_count;
        if (left_count < m) continue;
        if (right_count < m) break;
        const double right_weight = weight - left_weight, right_sum = sum - left_sum;
        if (!(left_weight > 0.0 && right_weight > 0.0)) continue;
        const double gain =
            left_sum * left_sum / left_weight + right_sum * right_sum / right_weight - sum * sum / weight;
        if (gain > best_gain) best_gain = gain, best_feature = static_cast<int>(k), best_cut = static_cast<int>(c);
      }
    }
    if (best_feature < 0) return self;

    // 2) split the samples (in their order) and grow both sides, left first: children after parents.
    std::vector<int> left, right;
    const std::vector<std::uint8_t>& bins = binned_.bins[static_cast<std::size_t>(best_feature)];
    for (int i : index) (bins[static_cast<std::size_t>(i)] <= best_cut ? left : right).push_back(i);
    std::vector<int>().swap(index);
    const int l = grow(std::move(left), depth + 1);
    const int r = grow(std::move(right), depth + 1);
    RegressionTree::Node& node = nodes_[static_cast<std::size_t>(self)];
    node.feature = best_feature;
    node.threshold = binned_.cuts[static_cast<std::size_t>(best_feature)][static_cast<std::size_t>(best_cut)];
    node.left = l;
    node.right = r;
    return self;
  }

 private:
  const Binned& binned_;
  const Eigen::VectorXd& y_;
  const Eigen::VectorXd& w_;
  const RegressionTree::Params& params_;
  std::vector<RegressionTree::Node>& nodes_;
  std::vector<double> hist_weight_, hist_sum_;
  std::vector<int> hist_count_;
};

std::string nodeName(std::size_t i) { return "tree node " + std::to_string(i); }

// The array names of TreeEnsemble's storage.
constexpr const char* kSteps = "trees.steps";
constexpr const char* kNodes = "trees.nodes";
constexpr const char* kFeature = "trees.feature";
constexpr const char* kThreshold = "trees.threshold";
constexpr const char* kLeft = "trees.left";
constexpr const char* kRight = "trees.right";
constexpr const char* kValue = "trees.value";

}  // namespace

RegressionTree RegressionTree::fit(const Eigen::MatrixXf& samples, const Eigen::VectorXd& targets,
                                   const Eigen::VectorXd& weights, const Params& params) {
  if (params.depth < 1 || params.depth > 16) {
    throw InvalidArgument("regression tree: depth " + std::to_string(params.depth) + " outside [1, 16]");
  }
  if (params.min_leaf_samples < 1) {
    throw InvalidArgument("regression tree: min_leaf_samples " + std::to_string(params.min_leaf_samples) + " must be >= 1");
  }
  if (params.thresholds < 1 || params.thresholds > 255) {
    throw InvalidArgument("regression tree: thresholds " + std::to_string(params.thresholds) + " outside [1, 255]");
  }
  const Eigen::Index n = samples.rows();
  if (n < 1 || targets.size() != n || weights.size() != n) {
    throw InvalidArgument("regression tree: " + std::to_string(n) + " samples, " + std::to_string(targets.size()) +
                          " targets and " + std::to_string(weights.size()) + " weights; give one of each per sample, at least one");
  }
  if (!samples.allFinite() || !targets.allFinite()) {
    throw InvalidArgument("regression tree: a sample's feature or target is not finite");
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(weights[i] > 0.0) || !std::isfinite(weights[i])) {
      throw InvalidArgument("regression tree: the weight of sample " + std::to_string(i) + " is " +
                            std::to_string(weights[i]) + "; weights must be finite > 0");
    }
  }
  RegressionTree tree;
  std::vector<int> all(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = static_cast<int>(i);
  const Binned binned = binSamples(samples, params.thresholds);
  Grower(binned, targets, weights, params, tree.nodes_).grow(std::move(all), 0);
  return tree;
}

RegressionTree::RegressionTree(std::vector<Node> nodes, int features) : nodes_(std::move(nodes)) { validate(features); }

void RegressionTree::validate(int features) const {
  if (nodes_.empty()) throw InvalidArgument("regression tree: it has no node");
  const std::size_t n = nodes_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = nodes_[i];
    if (!std::isfinite(node.threshold) || !std::isfinite(node.value)) {
      throw InvalidArgument(nodeName(i) + ": its threshold or value is not finite");
    }
    if (node.feature == -1) {
      if (node.left != -1 || node.right != -1) {
        throw InvalidArgument(nodeName(i) + " is a leaf (feature -1) but has children " + std::to_string(node.left) +
                              " and " + std::to_string(node.right) + "; a leaf's are -1");
      }
      continue;
    }
    if (node.feature < 0 || node.feature >= features) {
      throw InvalidArgument(nodeName(i) + " splits on feature " + std::to_string(node.feature) + ", outside [0, " +
                            std::to_string(features) + ") (or -1 for a leaf)");
    }
    for (const int child : {node.left, node.right}) {
      if (child <= static_cast<long long>(i) || static_cast<std::size_t>(child) >= n) {
        throw InvalidArgument(nodeName(i) + " has child " + std::to_string(child) + "; a child must come after its node and "
                              "inside the tree of " + std::to_string(n) + " nodes");
      }
    }
  }
}

std::array<double, 2> RegressionTree::range() const {
  std::array<double, 2> r = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (const Node& node : nodes_) {
    if (node.feature < 0) r = {std::min(r[0], node.value), std::max(r[1], node.value)};
  }
  return r;
}

void TreeEnsemble::add(RegressionTree tree, double step) {
  if (!(step > 0.0) || !std::isfinite(step)) {
    throw InvalidArgument("tree ensemble: step " + std::to_string(step) + " must be finite > 0");
  }
  trees_.push_back(std::move(tree));
  steps_.push_back(step);
}

void TreeEnsemble::truncate(std::size_t count) {
  if (count >= trees_.size()) return;
  trees_.erase(trees_.begin() + static_cast<std::ptrdiff_t>(count), trees_.end());
  steps_.resize(count);
}

std::array<double, 2> TreeEnsemble::range() const {
  std::array<double, 2> r = {0.0, 0.0};
  for (std::size_t t = 0; t < trees_.size(); ++t) {
    const std::array<double, 2> leaves = trees_[t].range();
    r[0] += steps_[t] * leaves[0];
    r[1] += steps_[t] * leaves[1];
  }
  return r;
}

int TreeEnsemble::largestFeature() const {
  int largest = -1;
  for (const RegressionTree& tree : trees_) {
    for (const RegressionTree::Node& node : tree.nodes()) largest = std::max(largest, node.feature);
  }
  return largest;
}

void TreeEnsemble::store(Model& model) const {
  if (trees_.empty()) return;
  std::vector<double>& steps = model.arrays[kSteps];
  std::vector<double>& counts = model.arrays[kNodes];
  std::vector<double>& feature = model.arrays[kFeature];
  std::vector<double>& threshold = model.arrays[kThreshold];
  std::vector<double>& left = model.arrays[kLeft];
  std::vector<double>& right = model.arrays[kRight];
  std::vector<double>& value = model.arrays[kValue];
  steps = steps_;
  counts.clear();
  feature.clear(), threshold.clear(), left.clear(), right.clear(), value.clear();
  for (const RegressionTree& tree : trees_) {
    counts.push_back(static_cast<double>(tree.nodes().size()));
    for (const RegressionTree::Node& node : tree.nodes()) {
      feature.push_back(node.feature);
      threshold.push_back(node.threshold);
      left.push_back(node.left);
      right.push_back(node.right);
      value.push_back(node.value);
    }
  }
}

TreeEnsemble TreeEnsemble::fromModel(const Model& model, int features) {
  const std::vector<const char*> names = {kSteps, kNodes, kFeature, kThreshold, kLeft, kRight, kValue};
  int present = 0;
  for (const char* name : names) present += model.arrays.count(name) != 0 ? 1 : 0;
  TreeEnsemble ensemble;
  if (present == 0) return ensemble;  // a linear model, or one written before LEARCH
  for (const char* name : names) {
    if (model.arrays.count(name) == 0) {
      throw DataError(std::string("the model has some trees.* arrays but not '") + name + "'; a tree ensemble needs all seven");
    }
  }
  const std::vector<double>& steps = model.arrays.at(kSteps);
  const std::vector<double>& counts = model.arrays.at(kNodes);
  if (steps.size() != counts.size()) {
    throw DataError("array '" + std::string(kSteps) + "' has " + std::to_string(steps.size()) + " entries and '" + kNodes +
                    "' " + std::to_string(counts.size()) + "; both hold one per tree");
  }
  const std::size_t total = model.arrays.at(kFeature).size();
  for (const char* name : {kThreshold, kLeft, kRight, kValue}) {
    if (model.arrays.at(name).size() != total) {
      throw DataError("array '" + std::string(name) + "' has " + std::to_string(model.arrays.at(name).size()) +
                      " entries and '" + kFeature + "' " + std::to_string(total) + "; each holds one per node");
    }
  }
  // An index stored as a double: integral and in [lo, hi) before it becomes an int.
  auto index = [&](const char* name, std::size_t entry, double lo, double hi, const std::string& where) {
    const double v = model.arrays.at(name)[entry];
    if (!(v >= lo && v < hi) || v != std::floor(v)) {
      throw DataError("array '" + std::string(name) + "' entry " + std::to_string(entry) + " (" + where + ") is " +
                      numberText(v) + "; expected an integer in [" + numberText(lo) + ", " + numberText(hi) + ")");
    }
    return static_cast<int>(v);
  };
  std::size_t offset = 0;
  for (std::size_t t = 0; t < steps.size(); ++t) {
    const std::size_t count = static_cast<std::size_t>(index(kNodes, t, 1, static_cast<double>(total - offset) + 1,
                                                             "tree " + std::to_string(t) + "'s node count, with " +
                                                                 std::to_string(total - offset) + " node entries left"));
    std::vector<RegressionTree::Node> nodes(count);
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t entry = offset + i;
      const std::string where = "tree " + std::to_string(t) + ", node " + std::to_string(i);
      RegressionTree::Node& node = nodes[i];
      node.feature = index(kFeature, entry, -1, features, where);
      node.threshold = model.arrays.at(kThreshold)[entry];
      node.left = index(kLeft, entry, -1, static_cast<double>(count), where);
      node.right = index(kRight, entry, -1, static_cast<double>(count), where);
      node.value = model.arrays.at(kValue)[entry];
    }
    if (!(steps[t] > 0.0)) {
      throw DataError("array '" + std::string(kSteps) + "' entry " + std::to_string(t) + " is " + numberText(steps[t]) +
                      "; a tree's step must be > 0");
    }
    try {
      ensemble.add(RegressionTree(std::move(nodes), features), steps[t]);
    } catch (const InvalidArgument& e) {
      throw DataError("tree " + std::to_string(t) + " (entries " + std::to_string(offset) + " to " +
                      std::to_string(offset + count - 1) + " of the trees.* node arrays): " + e.what());
    }
    offset += count;
  }
  if (offset != total) {
    throw DataError("array '" + std::string(kNodes) + "' counts " + std::to_string(offset) + " nodes, the node arrays hold " +
                    std::to_string(total));
  }
  return ensemble;
}

}  // namespace mmp
