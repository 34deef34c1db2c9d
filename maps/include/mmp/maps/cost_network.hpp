// CostNetwork: a small fully convolutional network from an image's cells to each cell's log-cost, the
// third hypothesis class of CostModel beside linear weights and LEARCH's trees (cost_model.hpp).
//
// Input, per cell of cell_size x cell_size pixels (networkInputs): the mean and the standard deviation
// of each colour channel (R, G, B) over the cell's pixels, standardised by the image's own per-channel
// mean and standard deviation (ColourStatistics; with `normalise` off, by the fixed 127.5 and 64).
// With feature_inputs > 0 the stacked features' scaled values follow as further planes
// (appendFeatureInputs: every coded channel of the cell's FeatureMap, byte q as q / 255 in [0, 1]):
// the gradient, texture and blurred colour spaces the linear model sees, which the cell's colour alone
// does not carry.  The stacked features also enter through CostModel's linear part: a network
// model's log-cost is w0 . f + the network's output, w0 = 0 (uniform start) or a trained linear model.
// Layers: 3 x 3 convolutions with the given dilations, `channels` wide, ReLU after each, zero padding
// at the grid's border; then a 1 x 1 convolution to `channels` with ReLU and a 1 x 1 convolution to
// one output o.  With `skip` the first 1 x 1 convolution also reads the cell's own input planes beside
// the dilated layers' output (concatenated after it), so that the network holds a per-cell model and
// the context adds to it; a skip reads no further, so the reach stays the dilations' sum.  The
// log-cost is kBound tanh(o / kBound): every cost lies within e^+-kBound of 1, so a network's costs
// never leave CostLimits (cost_model.hpp) and A* needs no guard.
// A segmenter (classes > 0; the label-trained baseline of network_training.hpp) ends in `classes`
// logits instead, and its log-cost is that of the per-pixel classifier baseline's cost assignment,
// log(1 + cost_scale (1 - p)), p the softmax probability of class `preferred`.
// An ensemble of k members (trained from different seeds) gives the risk-averse log-cost
//     mean_m l_m + kappa * spread_m l_m        (spread: the population standard deviation)
// A model trained by Maximum Entropy IRL has a cost floor f0 > 0 (NetworkShape::cost_floor): its cell
// costs are f0 + exp(log-cost), never below f0, so that the path distribution it was trained as stays
// normalisable (maxent_planner.hpp); CostModel adds the floor, logCosts() does not.
// A cell's log-cost depends on the inputs within reachCells() of it (the sum of the dilations): a tile
// computed with at least that halo (plus the features' own reach, with feature inputs) equals the
// whole image's computation bit for bit, because every output is summed in one fixed order (input
// channel, tap row, tap column) whatever the tile.
//
// This file is plain C++ (no libtorch): a navigation stack that computes costs links mmp::maps only.
// Training (maps/training/network_training.hpp) uses libtorch and hands back a CostNetwork.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/core/model_file.hpp>

#include <opencv2/core.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace mmp {

/// Per-channel (R, G, B) mean and standard deviation of an image's pixels (with data).
struct ColourStatistics {
  std::array<double, 3> mean{127.5, 127.5, 127.5};
  std::array<double, 3> spread{64.0, 64.0, 64.0};  ///< >= 1 (a flat channel counts as 1)
};

/// Sums of the pixels seen so far, for images read band by band.
struct ColourSums {
  std::array<double, 3> sum{}, squares{};
  double count = 0.0;
  /// Adds the pixels of a CV_8UC3 BGR image where valid != 0 (all if valid is empty; else CV_8UC1 of
  /// the image's size, mmp::InvalidArgument otherwise).
  void add(const cv::Mat& bgr, const cv::Mat& valid = {});
  /// Throws mmp::InvalidArgument if no pixel was added.
  ColourStatistics statistics() const;
};

/// The statistics of a CV_8UC3 BGR image over the pixels where valid != 0 (all if valid is empty).
/// Throws mmp::InvalidArgument if no pixel has data.
ColourStatistics colourStatistics(const cv::Mat& bgr, const cv::Mat& valid = {});

/// The architecture of a CostNetwork.
/// A network model's cell cost from its log-cost sum l (w . f + the network's output) and the shape's
/// cost floor f0: f0 + exp(l), the one formula of the forward pass (CostModel), teaching and network
/// training.
inline double networkCost(double log_sum, double floor) { return floor + std::exp(log_sum); }

struct NetworkShape {
  int channels = 16;                        ///< width of every hidden layer, in [1, 256]
  std::vector<int> dilations = {1, 2, 4, 8, 16};  ///< of the 3 x 3 layers, each in [1, 64], 1 to 12 layers
  bool normalise = true;                    ///< standardise colours by the image's own statistics
  int members = 1;                          ///< ensemble size, in [1, 16]
  double kappa = 0.0;                       ///< weight of the members' spread, in [0, 10]
  int classes = 0;                          ///< 0: a cost network; else a segmenter of that many classes, <= 64
  int preferred = 0;                        ///< a segmenter's cheap class, in [0, classes)
  double cost_scale = 1.0;                  ///< a segmenter's cost scale, in (0, 1000]
  int feature_inputs = 0;                   ///< planes of stacked features after the colours, in [0, 1024]
  bool skip = false;                        ///< the cell's input planes also feed the first 1 x 1 layer
  /// Added to every cell's cost, exp(log-cost), by CostModel: 0, or the floor of a network trained by
  /// Maximum Entropy IRL (kMaxEntTrainingFloor), in [0, 1000].
  double cost_floor = 0.0;

  /// A cell's cost from its log-cost sum (w . f + the network's output): networkCost.
  double cost(double log_sum) const;
  /// Input planes: the colours' and the features'.
  int inputs() const { return kColourInputs + feature_inputs; }

  static constexpr int kColourInputs = 6;   ///< mean and spread of R, G, B
  static constexpr double kBound = 8.0;     ///< |log-cost| < kBound
  /// Throws mmp::InvalidArgument naming the setting (as "network.channels") outside its range.
  void validate() const;
  /// One line: "16 channels, dilations 1 2 4 8 16, image-normalised colours, 1 member" (and
  /// ", 36 feature inputs" with them, ", inputs skip to the head" with a skip, ", cost floor 3.56"
  /// with one).
  std::string describe() const;
  /// The cost a cell gets, in words: "exp(w . f + network(image))", with the floor or a segmenter's form.
  std::string formula() const;
};

inline double NetworkShape::cost(double log_sum) const { return networkCost(log_sum, cost_floor); }

/// One convolution: weights [out][in][k][k] (k = 1 or 3, libtorch's layout), bias [out].
struct ConvLayer {
  int in = 0, out = 0, kernel = 1, dilation = 1;
  bool relu = true;
  std::vector<float> weights, bias;
};

/// The layers of one member, in the order NetworkShape gives (3 x 3 layers, then the two 1 x 1).
std::vector<ConvLayer> networkLayers(const NetworkShape& shape);

/// The network input of a CV_8UC3 BGR image's whole cells (rows = image.rows / cell_size, cols
/// likewise): kColourInputs planes of rows x cols floats, plane-major, standardised by `colours` (the
/// image's, or ColourStatistics{} for a network that does not normalise).
std::vector<float> networkInputs(const cv::Mat& bgr, int cell_size, const ColourStatistics& colours);

/// Appends the feature planes a network with feature inputs reads, one per channel of a coded
/// FeatureMap (feature_stack.hpp; map.channels() of them), channel-major, byte q as q / 255, to
/// `inputs`.  Throws mmp::InvalidArgument for a map that is not coded.
void appendFeatureInputs(const FeatureMap& map, std::vector<float>& inputs);

class CostNetwork {
 public:
  CostNetwork() = default;
  /// requires: shape valid; members.size() == shape.members, each of networkLayers(shape)'s sizes
  /// with finite values (throws mmp::InvalidArgument naming the member, layer and entry otherwise).
  CostNetwork(NetworkShape shape, std::vector<std::vector<ConvLayer>> members);

  const NetworkShape& shape() const { return shape_; }
  const std::vector<std::vector<ConvLayer>>& members() const { return members_; }
  bool empty() const { return members_.empty(); }
  /// Cells a log-cost depends on in each direction.
  int reachCells() const;

  /// The log-cost of every cell from inputs (networkInputs, then appendFeatureInputs if the shape has
  /// feature inputs; rows x cols), row-major into out.
  void logCosts(const std::vector<float>& inputs, int rows, int cols, std::vector<double>& out) const;

  /// Writes "network.*" settings and arrays into the model.
  void store(Model& model) const;
  /// The network stored in the model (empty if it has none).  Throws mmp::DataError naming the
  /// setting or array and what is wrong.
  static CostNetwork fromModel(const Model& model);

 private:
  /// One member's log-cost of cell s from its last layer's output planes.
  double memberLogCost(const std::vector<float>& output, std::size_t plane, std::size_t s) const;

  NetworkShape shape_;
  std::vector<std::vector<ConvLayer>> members_;
};

}  // namespace mmp
