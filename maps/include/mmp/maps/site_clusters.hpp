// SiteClusters: the local capacity an adapted model gains on its site -- the appearance clusters of
// the site's own cells (k-means of their coded features) and one offset per cluster, added to a cell's
// cost (costs w . f: w . f + v[c]) or log-cost (exp(w . f + v[c])).  The weights are shared by every
// cell that looks alike; an offset moves one cluster of this site's ground only, so a path along this
// site's roads can make them cheap without moving the water the weights confuse with them.
//
// A cell's appearance is the bytes of its coded feature map (feature_map.hpp: one quantised raw
// feature a byte), and its cluster the nearest centre (squared distance in byte units, ties to the
// lower index): a function of the cell alone, so tiles, bands and windows of an image give the costs
// the whole image gives.  fit() clusters the cells of a set of maps by cv::kmeans (OpenCV's, seeded
// k-means++; a library the project links already), deterministic in the maps and their order.
//
//   SiteClusters site = SiteClusters::fit({&map}, 16);        // offsets 0: the costs are unchanged
//   FeatureMap learning = withSiteColumns(map, site, 3.0f);  // + 16 one-hot columns for a learner
//   site = site.withValues(v);                              // the learned offsets
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/core/model_file.hpp>

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

namespace mmp {

class SiteClusters {
 public:
  static constexpr int kMaxClusters = 64;  ///< a cluster index fits a byte of a coded map
  /// The cells fit() clusters at most (every stride-th of each map, the maps sharing them evenly).
  static constexpr int kFitCells = 20000;

  SiteClusters() = default;
  /// requires: centres: clusters x channels (byte units, in [0, 255]), values: one per cluster, all
  /// finite, 1 <= clusters <= kMaxClusters (throws mmp::InvalidArgument naming what is wrong).
  SiteClusters(Eigen::MatrixXf centres, Eigen::VectorXd values);

  /*!
      requires: maps coded, with the same channels; clusters in [1, kMaxClusters] (else
                mmp::InvalidArgument)
      ensures: the k-means centres of the maps' passable cells (at most kFitCells, every stride-th of
               each map), seeded with `seed`; offsets 0.  Fewer distinct cells than clusters give as
               many clusters as there are distinct cells.
  !*/
  static SiteClusters fit(const std::vector<const FeatureMap*>& maps, int clusters, std::uint64_t seed = 1);

  bool empty() const { return values_.size() == 0; }
  int clusters() const { return static_cast<int>(values_.size()); }
  int channels() const { return static_cast<int>(centres_.cols()); }
  const Eigen::MatrixXf& centres() const { return centres_; }
  /// The offset of each cluster.
  const Eigen::VectorXd& values() const { return values_; }
  /// The same clusters with other offsets (values.size() == clusters(), finite).
  SiteClusters withValues(Eigen::VectorXd values) const;
  /// {lowest, highest} offset ({0, 0} when empty).
  std::array<double, 2> range() const;

  /// The cluster of each cell of `map` (blocked cells too).  Throws mmp::InvalidArgument unless the map
  /// is coded with channels() channels.
  std::vector<std::uint8_t> assign(const FeatureMap& map) const;
  /// The offset of each cell of `map` (assign, then values()).
  std::vector<double> offsets(const FeatureMap& map) const;

  /// As the model file's arrays "site.centres" and "site.values" (nothing when empty).
  void store(Model& model) const;
  /// The clusters a model file holds (empty without them); throws mmp::DataError naming the array.
  static SiteClusters fromModel(const Model& model);

 private:
  Eigen::MatrixXf centres_;
  Eigen::VectorXd values_;
};

/// `map` with clusters() columns appended, one-hot: cell s holds `scale` in the column of its cluster
/// (site.assign) and 0 in the others.  A weight v' on column k adds scale v' to the cell's w . f, so a
/// learner with prior lambda |v'|^2 holds the offsets v = scale v' to lambda / scale^2 |v|^2.  Keeps
/// the map's blocked cells and frame.  Throws as assign() does.
FeatureMap withSiteColumns(const FeatureMap& map, const SiteClusters& site, float scale);

}  // namespace mmp
