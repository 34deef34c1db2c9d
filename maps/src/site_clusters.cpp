#include <mmp/maps/site_clusters.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>

namespace mmp {

namespace {

constexpr const char* kCentres = "site.centres";
constexpr const char* kValues = "site.values";

void checkValues(const Eigen::VectorXd& values, Eigen::Index clusters) {
  if (values.size() != clusters) {
    throw InvalidArgument("site clusters: " + std::to_string(values.size()) + " offsets for " + std::to_string(clusters) + " clusters");
  }
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    if (!std::isfinite(values[k])) throw InvalidArgument("site clusters: the offset of cluster " + std::to_string(k) + " is not finite");
  }
}

// Restores OpenCV's thread-local random state (cv::kmeans seeds from it) when it goes.
class SeededRng {
 public:
  explicit SeededRng(std::uint64_t seed) : saved_(cv::theRNG().state) { cv::theRNG().state = seed == 0 ? 1 : seed; }
  ~SeededRng() { cv::theRNG().state = saved_; }
  SeededRng(const SeededRng&) = delete;
  SeededRng& operator=(const SeededRng&) = delete;

 private:
  std::uint64_t saved_;
};

}  // namespace

SiteClusters::SiteClusters(Eigen::MatrixXf centres, Eigen::VectorXd values) : centres_(std::move(centres)) {
  if (centres_.rows() < 1 || centres_.rows() > kMaxClusters || centres_.cols() < 1) {
    throw InvalidArgument("site clusters: " + std::to_string(centres_.rows()) + " centres of " + std::to_string(centres_.cols()) +
                          " channels; expected 1 to " + std::to_string(kMaxClusters) + " centres of at least 1 channel");
  }
  if (!(centres_.array() >= 0.0f).all() || !(centres_.array() <= 255.0f).all()) {
    throw InvalidArgument("site clusters: a centre lies outside [0, 255], the values of a coded feature byte");
  }
  checkValues(values, centres_.rows());
  values_ = std::move(values);
}

SiteClusters SiteClusters::fit(const std::vector<const FeatureMap*>& maps, int clusters, std::uint64_t seed) {
  if (clusters < 1 || clusters > kMaxClusters) {
    throw InvalidArgument("site clusters: " + std::to_string(clusters) + " clusters; expected 1 to " + std::to_string(kMaxClusters));
  }
  if (maps.empty()) throw InvalidArgument("site clusters: no map to cluster");
  const int channels = maps.front()->channels();
  for (const FeatureMap* map : maps) {
    if (!map->coded() || map->channels() != channels) {
      throw InvalidArgument("site clusters: every map must be coded with the same channels (" + std::to_string(channels) + ")");
    }
  }
  const int per_map = std::max(1, kFitCells / static_cast<int>(maps.size()));
  std::vector<float> rows;
  std::set<std::vector<std::uint8_t>> distinct;  // bounded by the clusters asked for
  for (const FeatureMap* map : maps) {
    const int stride = std::max(1, map->cells() / per_map);
    const std::uint8_t* codes = map->codes().data();
    for (int s = 0; s < map->cells(); s += stride) {
      if (map->isBlocked(s)) continue;
      const std::uint8_t* cell = codes + static_cast<std::size_t>(s) * channels;
      rows.insert(rows.end(), cell, cell + channels);
      if (static_cast<int>(distinct.size()) < clusters) distinct.emplace(cell, cell + channels);
    }
  }
  const int k = static_cast<int>(distinct.size());
  if (k == 0) throw InvalidArgument("site clusters: the maps have no passable cell");
  Eigen::MatrixXf centres(k, channels);
  if (k < clusters) {  // as many clusters as distinct cells: each its own
    int r = 0;
    for (const auto& cell : distinct) {
      for (int c = 0; c < channels; ++c) centres(r, c) = cell[static_cast<std::size_t>(c)];
      ++r;
    }
  } else {
    const cv::Mat data(static_cast<int>(rows.size() / static_cast<std::size_t>(channels)), channels, CV_32F, rows.data());
    cv::Mat labels, found;
    const SeededRng rng(seed);
    cv::kmeans(data, k, labels, cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 30, 1e-2), 1,
               cv::KMEANS_PP_CENTERS, found);
    // Ordered by their values, so that the clusters' numbering is a function of the centres alone.
    std::vector<std::vector<float>> sorted(static_cast<std::size_t>(k));
    for (int r = 0; r < k; ++r) sorted[static_cast<std::size_t>(r)].assign(found.ptr<float>(r), found.ptr<float>(r) + channels);
    std::sort(sorted.begin(), sorted.end());
    for (int r = 0; r < k; ++r) {
      for (int c = 0; c < channels; ++c) centres(r, c) = std::clamp(sorted[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)], 0.0f, 255.0f);
    }
  }
  return SiteClusters(std::move(centres), Eigen::VectorXd::Zero(k));
}

SiteClusters SiteClusters::withValues(Eigen::VectorXd values) const {
  checkValues(values, centres_.rows());
  SiteClusters out = *this;
  out.values_ = std::move(values);
  return out;
}

std::array<double, 2> SiteClusters::range() const {
  if (empty()) return {0.0, 0.0};
  return {values_.minCoeff(), values_.maxCoeff()};
}

std::vector<std::uint8_t> SiteClusters::assign(const FeatureMap& map) const {
  if (!map.coded() || map.channels() != channels()) {
    throw InvalidArgument("site clusters: they need a coded feature map of " + std::to_string(channels()) + " channels (the model's); this map is " +
                          (map.coded() ? "coded with " + std::to_string(map.channels()) + " channels" : std::string("dense")));
  }
  const int k = clusters(), c = channels();
  std::vector<std::uint8_t> out(static_cast<std::size_t>(map.cells()));
  const Eigen::MatrixXf centres = centres_.transpose();  // a centre a column
  const std::uint8_t* codes = map.codes().data();
  std::vector<float> cell(static_cast<std::size_t>(c));
  for (int s = 0; s < map.cells(); ++s) {
    const std::uint8_t* q = codes + static_cast<std::size_t>(s) * c;
    for (int j = 0; j < c; ++j) cell[static_cast<std::size_t>(j)] = q[j];
    int best = 0;
    float best_distance = std::numeric_limits<float>::infinity();
    for (int r = 0; r < k; ++r) {
      const float* centre = centres.col(r).data();
      float d = 0.0f;
      for (int j = 0; j < c; ++j) {
        const float e = cell[static_cast<std::size_t>(j)] - centre[j];
        d += e * e;
      }
      if (d < best_distance) best_distance = d, best = r;
    }
    out[static_cast<std::size_t>(s)] = static_cast<std::uint8_t>(best);
  }
  return out;
}

std::vector<double> SiteClusters::offsets(const FeatureMap& map) const {
  const std::vector<std::uint8_t> cluster = assign(map);
  std::vector<double> out(cluster.size());
  for (std::size_t s = 0; s < cluster.size(); ++s) out[s] = values_[cluster[s]];
  return out;
}

void SiteClusters::store(Model& model) const {
  if (empty()) return;
  std::vector<double>& centres = model.arrays[kCentres];
  centres.clear();
  for (Eigen::Index r = 0; r < centres_.rows(); ++r) {
    for (Eigen::Index c = 0; c < centres_.cols(); ++c) centres.push_back(centres_(r, c));
  }
  model.arrays[kValues].assign(values_.data(), values_.data() + values_.size());
}

SiteClusters SiteClusters::fromModel(const Model& model) {
  const auto centres = model.arrays.find(kCentres);
  const auto values = model.arrays.find(kValues);
  if (centres == model.arrays.end() && values == model.arrays.end()) return {};
  if (centres == model.arrays.end() || values == model.arrays.end()) {
    throw DataError(std::string("the model has one of the arrays '") + kCentres + "' and '" + kValues + "' but not the other");
  }
  const std::size_t k = values->second.size();
  if (k < 1 || k > static_cast<std::size_t>(kMaxClusters) || centres->second.empty() || centres->second.size() % k != 0) {
    throw DataError("array '" + std::string(kCentres) + "' holds " + std::to_string(centres->second.size()) + " values for the " +
                    std::to_string(k) + " clusters of '" + kValues + "'; expected a positive multiple of 1 to " +
                    std::to_string(kMaxClusters) + " clusters");
  }
  const Eigen::Index c = static_cast<Eigen::Index>(centres->second.size() / k);
  Eigen::MatrixXf m(static_cast<Eigen::Index>(k), c);
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    for (Eigen::Index j = 0; j < c; ++j) m(r, j) = static_cast<float>(centres->second[static_cast<std::size_t>(r * c + j)]);
  }
  try {
    return SiteClusters(std::move(m), Eigen::Map<const Eigen::VectorXd>(values->second.data(), static_cast<Eigen::Index>(k)));
  } catch (const InvalidArgument& e) {
    throw DataError(std::string("arrays '") + kCentres + "' and '" + kValues + "': " + e.what());
  }
}

FeatureMap withSiteColumns(const FeatureMap& map, const SiteClusters& site, float scale) {
  const std::vector<std::uint8_t> cluster = site.assign(map);
  auto code = std::make_shared<FeatureCode>(*map.code());
  const int d = map.features(), k = site.clusters();
  FeatureCode::Channel channel;
  for (int j = 0; j < k; ++j) channel.columns.push_back(d + j);
  channel.values.assign(static_cast<std::size_t>(FeatureCode::kLevels) * k, 0.0f);
  for (int q = 0; q < k; ++q) channel.values[static_cast<std::size_t>(q) * k + q] = scale;
  code->channels.push_back(std::move(channel));
  code->features = d + k;
  const int channels = map.channels();
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(map.cells()) * (channels + 1));
  for (int s = 0; s < map.cells(); ++s) {
    std::copy_n(map.codes().data() + static_cast<std::size_t>(s) * channels, channels, codes.data() + static_cast<std::size_t>(s) * (channels + 1));
    codes[static_cast<std::size_t>(s) * (channels + 1) + channels] = cluster[static_cast<std::size_t>(s)];
  }
  std::vector<std::string> names = map.names();
  if (!names.empty()) {
    for (int j = 0; j < k; ++j) names.push_back("site cluster " + std::to_string(j));
  }
  FeatureMap out(map.rows(), map.cols(), std::move(code), std::move(codes), std::move(names));
  out.setBlocked(map.blocked());
  if (map.frame().rows == map.rows() && map.frame().cols == map.cols()) out.setFrame(map.frame());
  return out;
}

}  // namespace mmp
