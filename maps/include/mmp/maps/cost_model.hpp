// CostModel: everything that turns an image into path costs -- the feature settings, the fitted
// feature scaling and class-score layer (FeatureStack), the learned weights and the cost form, and
// for a LEARCH model the boosted trees of its log-cost (learch.hpp), for a network model the
// convolutional network of its log-cost (cost_network.hpp) -- and the unit a navigation stack links
// against (mmp::maps: OpenCV and GDAL, no libtorch, whatever the model).  Three lines give a cost map:
//
//   const mmp::CostModel model = mmp::CostModel::load("out/demo/model.mmp");
//   const cv::Mat image = mmp::loadImage("area.png");
//   const mmp::CostGrid grid = model.costs(image);   // grid.costs[row * grid.cols + col]
//
// A model is written by the pipeline (pipeline.hpp: train) or by `mmp train`, in the versioned model
// file of mmp/core/model_file.hpp; files of an older format are refused with a message to retrain.
// costs() is const and may be called from several threads at once.
#pragma once

#include <mmp/core/error.hpp>
#include <mmp/core/feature_map.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/cost_network.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/regression_tree.hpp>
#include <mmp/maps/training_domain.hpp>
#include <mmp/planning/cost_grid.hpp>

#include <opencv2/core.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mmp {

/// How CostModel::costs cuts an image: square tiles of tile_cells cells a side, each computed with
/// overlap_cells of halo around it, tiles on `threads` threads.  With a halo of at least
/// FeatureStack::reachCells() the blurs, texture windows and class context discs see around each
/// tile what they see in the whole image, so the costs equal the untiled computation's; memory
/// grows with the tile, not the image.
struct TileSettings {
  /// The largest tile side: a tile of more cells than an image mmp reads whole, and small enough
  /// that tile arithmetic (a tile's end, its halo) never overflows an int.
  static constexpr int kMaxTileCells = 1 << 20;
  /// The most threads computing tiles at once.
  static constexpr int kMaxThreads = 256;
  int tile_cells = 256;    ///< in [1, kMaxTileCells], and tiles must hold the largest blur and texture window
  int overlap_cells = -1;  ///< -1: exactly the features' reach, the least that gives untiled costs
  int threads = 0;         ///< tiles computed at once, in [0, kMaxThreads]; 0 = every core
};

/// The cost range a trained model may give its training cells, for every cost form: LEARCH's rule
/// (learch.hpp: max_cost_ratio, default the same) for the linear and exponential forms too, and ends
/// that a 32-bit float raster (--raw) holds with room to spare.  Training stops at the last model
/// inside them (trainingCostFault through Learner::setWeightCheck) and says so; on other images a
/// model may still go beyond, and rasterCosts refuses what a float cannot hold.
struct CostLimits {
  static constexpr double kHighest = 1e30;  ///< float32 holds up to 3.4e38
  static constexpr double kLowest = 1e-30;  ///< float32 holds down to 1.2e-38 (normal)
  static constexpr double kMaxRatio = 1e12;  ///< highest / lowest
};

/// lowest <= the cost of every cell of every image <= highest, for weights w (every feature of a
/// stacked map lies in [0, 1], the bias is 1) plus a log-cost part in tree_range (LEARCH's trees).
std::array<double, 2> costBounds(const Eigen::VectorXd& w, CostForm form, std::array<double, 2> tree_range = {0.0, 0.0});
/// Why a cost range {lowest, highest} lies outside CostLimits (naming the range and the limit), ""
/// if it lies inside.  (costBounds is a bound over every possible image, far wider than any real
/// one's range for stacks of binned features: check observed ranges, not it.)
std::string costRangeFault(const std::array<double, 2>& range);
/// costRangeFault of the costs w gives the passable cells of `maps` (cells of stacked maps, cost
/// form `form`): the check the pipeline's learners run on the training maps.
std::string trainingCostFault(const std::vector<const FeatureMap*>& maps, const Eigen::VectorXd& w, CostForm form);

/// Info entries `mmp train` records for the holdout's contrast (CostModel::summary composes them):
/// "holdout_class_cost.<class>", the geometric mean of the learned costs of the class's cells on the
/// holdout images over the preferred class's (1 for it), and "holdout_class_cost_preferred", the
/// preferred class's name.
inline constexpr const char* kHoldoutClassCostPrefix = "holdout_class_cost.";
inline constexpr const char* kHoldoutClassCostPreferred = "holdout_class_cost_preferred";

/// The hypothesis class of a cost map, its kind: linear in the features (costs w . f or exp(w . f),
/// learned by the online or batch subgradient learner), LEARCH's boosted trees on the log-cost, or a
/// convolutional network of the image on the log-cost.  A model answers it (CostModel::hypothesis());
/// what differs between the kinds -- how each is fitted, adapted and described -- is owned by one
/// class per kind in mmp::maps_training (its CostModelTrainer), chosen once by this value.
enum class CostHypothesis { Linear, Learch, Network };
/// "linear", "learch" or "network": the kind as configs, metrics and `mmp info` name it.
const char* hypothesisName(CostHypothesis hypothesis);

class CostModel {
 public:
  /*!
      requires: weights.size() == features.features()
      ensures: a model whose costs are w . f (Linear) or exp(w . f) (Exponential); info holds what
               produced it (behaviour, learner, training images, ...) and is saved with it; source
               names the model in messages.
               Throws mmp::InvalidArgument if a weight is not finite, or if a Linear model has a
               negative weight or a bias <= 0 (its costs would not all be > 0).
  !*/
  CostModel(FeatureStack features, Eigen::VectorXd weights, CostForm form,
            std::map<std::string, std::string> info = {}, std::string source = "model");
  /*!
      A LEARCH model.  requires: weights.size() == features.features(), the trees' split features
      below it (throws mmp::InvalidArgument naming the weight or feature otherwise).
      ensures: a model whose costs are exp(w . f + trees(f)) (CostForm::Exponential).
  !*/
  CostModel(FeatureStack features, Eigen::VectorXd weights, TreeEnsemble trees,
            std::map<std::string, std::string> info = {}, std::string source = "model");
  /*!
      A network model.  requires: weights.size() == features.features(), network not empty (throws
      mmp::InvalidArgument otherwise).
      ensures: a model whose costs are exp(w . f + network(image)) (CostForm::Exponential); w = 0
               leaves the features out (their map is then not computed).
  !*/
  CostModel(FeatureStack features, Eigen::VectorXd weights, CostNetwork network,
            std::map<std::string, std::string> info = {}, std::string source = "model");

  /// Throws mmp::ModelFileError or mmp::DataError naming the file and what is wrong with it (a tree
  /// array included).  Files without trees, written before LEARCH too, load as weights-only models.
  static CostModel load(const std::string& path);
  /// Written atomically; throws mmp::ModelFileError naming the file.
  void save(const std::string& path) const;

  /// The image's cost map (image: 8-bit BGR as loadImage gives), computed tile by tile (a network
  /// that normalises colours takes the whole image's ColourStatistics first).  Throws
  /// mmp::InvalidArgument if the image or the tile settings do not suit the feature settings (naming
  /// the setting and the least value that works), mmp::DataError if a cell's cost is not finite > 0
  /// (exponential costs can overflow).
  /// metres_per_pixel: the image's ground resolution (0: unknown, taken as the model's); with the
  /// model's features().settings().ground_resolution declared and another resolution, the costs of the
  /// image resampled to it, each cell of the image's own grid taking the cost under its centre
  /// (ground_scale.hpp; beyond a factor of kMaxGroundFactor mmp::InvalidArgument).
  CostGrid costs(const cv::Mat& image, const TileSettings& tiles = {}, double metres_per_pixel = 0.0) const;
  /// The same, with the grid in the image's world frame (per cell: image.frame.coarsened(cell_size)) at
  /// the frame's resolution (metresPerPixel); cells holding a pixel without data (image.valid) cost
  /// +inf and are listed in grid.unknown.
  CostGrid costs(const GeoImage& image, const TileSettings& tiles = {}) const;
  /// The factor (groundFactor) by which an image of metres_per_pixel is resampled for this model: 1
  /// unless both resolutions are known and differ.  bandCosts, windowCosts and writeCostRaster do not
  /// resample (they refuse an image whose factor is not 1).
  double groundFactorOf(double metres_per_pixel) const;
  /// The costs of cell rows [first, first + count) of an image of `rows` x `cols` cells, written
  /// row-major to out (count * cols values), from `pixels`: the image's pixel rows [top, top +
  /// pixels.rows), full width, covering those cell rows and the tiles' halo above and below them
  /// (pixel rows from (first - halo) k to (first + count + halo) k, clipped to the image).  For
  /// images streamed band by band; costs(image) is one band.  `colours`: the whole image's statistics,
  /// required (mmp::InvalidArgument without) if needsColourStatistics().
  void bandCosts(const cv::Mat& pixels, int top, int rows, int first, int count, const TileSettings& tiles,
                 double* out, const ColourStatistics* colours = nullptr,
                 const ImageFeatureStatistics* feature_statistics = nullptr) const;
  /// The costs of the cells `cells` (a rectangle of an image of rows x cols cells), written row-major
  /// to out (cells.area() values), from `pixels`: the image's pixels from `corner` (x, y in pixels)
  /// on, covering those cells and the tiles' halo around them, clipped to the image.  Tiles are cut
  /// from the rectangle's top-left cell, so a rectangle on the grid of tiles (cells.x and cells.y
  /// multiples of tiles.tile_cells) gets the costs costs(image) gives them, bit for bit: how a region
  /// is computed window by window (region_costmap.hpp).  bandCosts is the full-width case.
  void windowCosts(const cv::Mat& pixels, cv::Point corner, int rows, int cols, const cv::Rect& cells,
                   const TileSettings& tiles, double* out, const ColourStatistics* colours = nullptr,
                   const ImageFeatureStatistics* feature_statistics = nullptr) const;
  /// A model whose features are standardised per image (features.normalise: per_image): bandCosts and
  /// windowCosts need the whole image's feature statistics (features().statistics, or
  /// featureStatistics(ImageRows&) for a streamed image); costs() computes them in a first pass.
  bool needsFeatureStatistics() const { return features_.settings().normalise_per_image; }
  /// A network model that standardises colours by the image's own statistics: bandCosts needs them.
  bool needsColourStatistics() const { return !network_.empty() && network_.shape().normalise; }
  /// The halo of the tile settings (overlap_cells, or the features' reach for -1); throws
  /// mmp::InvalidArgument naming the setting and the least value that works if they do not suit
  /// the features.
  int haloCells(const TileSettings& tiles) const;
  /// Throws mmp::InvalidArgument naming the model (source()) and the setting if a blur, texture
  /// window or class context radius of its features is wider than a width x height px image.
  void checkImage(int width, int height) const;
  /// The same on a feature map made by features().  Throws mmp::InvalidArgument for a network model,
  /// which needs the image.
  CostGrid costs(const FeatureMap& map) const;

  /// The model's kind: Learch with trees, Network with a network, else Linear.
  CostHypothesis hypothesis() const {
    return !network_.empty() ? CostHypothesis::Network : !trees_.empty() ? CostHypothesis::Learch : CostHypothesis::Linear;
  }
  /// Its costs read the image's pixels (a network model): costs(FeatureMap) cannot give them, logCosts
  /// needs the network's inputs.
  bool readsPixels() const { return !network_.empty(); }
  /*!
      requires: map made by features() (its blocked cells: those of the image without data);
                network_inputs: a network model's input planes on the same image (networkInputs of its
                pixels, standardised as the network's shape says, then the map's feature planes if the
                network reads them), map.cells() * network().shape().inputs() values; ignored otherwise
      ensures: out[s] = log of the cost the model gives cell s, its cost exponent applied (+inf on
               blocked cells): the one formula of each kind that planners on log-costs use --
               e log(w . f) or e w . f (linear, by form), e (w . f + trees(f)) (LEARCH),
               e log(floor + exp(w . f + net)) (network).  Throws mmp::InvalidArgument for a network
               model without inputs or with inputs of another size.
  !*/
  void logCosts(const FeatureMap& map, std::vector<double>& out, const std::vector<float>* network_inputs = nullptr) const {
    logCosts(map, weights_, trees_, out, network_inputs);
  }
  /// The same with weights w and trees in place of the model's own (same feature count; trees of a
  /// LEARCH model): the log-costs of a model that differs from this one only in those.
  void logCosts(const FeatureMap& map, const Eigen::VectorXd& w, const TreeEnsemble& trees, std::vector<double>& out,
                const std::vector<float>* network_inputs = nullptr) const;

  const FeatureStack& features() const { return features_; }
  const Eigen::VectorXd& weights() const { return weights_; }
  CostForm form() const { return form_; }
  /// The boosted part of the log-cost; empty unless LEARCH made the model.
  const TreeEnsemble& trees() const { return trees_; }
  /// The network part of the log-cost; empty unless network training made the model.
  const CostNetwork& network() const { return network_; }
  /// lowest <= the cost of every cell of every image <= highest, from the weights (every feature of
  /// a stacked map lies in [0, 1], the bias is 1) and the trees' leaf values: a bound, usually not
  /// attained, e.g. for a fixed scale across tiles.  May be +inf for exponential costs.
  std::array<double, 2> costBounds() const;
  const std::map<std::string, std::string>& info() const { return info_; }
  /// The power every cost is raised to, c -> c^exponent (1: the costs as learned).  It keeps the
  /// order of the cells and changes the contrast between them, and so which paths are cheapest: the
  /// margin of training fixes costs only up to where the demonstrations are optimal, and learned maps
  /// can be far flatter than the terrain's costs (docs/results-cost-maps.md).  Saved with the model.
  double costExponent() const { return exponent_; }
  /// Throws mmp::InvalidArgument unless exponent lies in [kMinExponent, kMaxExponent].
  void setCostExponent(double exponent);
  /// Declares the metres per pixel of the imagery the model was trained on (0: not declared) and how a
  /// coarser image is brought to it (FeatureSettings::upsample), for a model trained without
  /// features.ground_resolution; saved with the model (FeatureStack's rule).
  void setGroundResolution(double metres_per_pixel, const std::string& upsample = "cubic") {
    features_.setGroundResolution(metres_per_pixel, upsample);
  }
  static constexpr double kMinExponent = 0.125, kMaxExponent = 16.0;
  /*!
      What the model is, for people and tools (`mmp info`): in order, format (the model file format
      version), behaviour, cost (its form: "exp(w . f + trees(f))", ...), learner, features (count,
      cell size, colour spaces, blurs, bins), network (a network model's shape), trained_on (the
      training images), training_cost_range, training_statistics (the cells the familiarity check
      knows), then the provenance `mmp train` records (mmp_version, config, selected, holdout and
      its figures, data fingerprints, config_effective) and any other info entry.  From the
      per-class holdout costs (kHoldoutClassCostPrefix) it composes holdout_contrast (the cheapest
      class but the preferred one, and the costliest, against the preferred and the cheapest) and
      holdout_class_costs (every class); a model with a holdout but without them gets
      holdout_contrast "not recorded (...)"; an adapted model's parent_* copies likewise.  Entries
      the model does not hold are left out.
  !*/
  std::vector<std::pair<std::string, std::string>> summary() const;
  /// Sets info entry `key` (saved with the model): e.g. provenance added after training.
  void setInfo(const std::string& key, const std::string& value) { info_[key] = value; }

  /// The statistics of the cells the model was trained on (empty for a model made before they were
  /// kept); the pipeline sets them from the training images.
  const TrainingDomain& domain() const { return domain_; }
  void setDomain(TrainingDomain domain) { domain_ = std::move(domain); }
  /// How much of an image (8-bit BGR, cells where valid != 0: all if valid is empty) the training
  /// statistics cover: Familiarity::warns() when the image is unlike the training images.
  Familiarity familiarity(const cv::Mat& image, const cv::Mat& valid = {}) const;
  /// Where the model came from (its file), or "model": prefixed to messages.
  const std::string& source() const { return source_; }

 private:
  DataError badCost(long long row, long long col, double cost) const;
  /// costs(image), the colour statistics taken over the pixels where valid != 0 (all if empty).
  CostGrid imageCosts(const cv::Mat& image, const cv::Mat& valid, const TileSettings& tiles, double metres_per_pixel) const;
  /// The cost of cell s of a map made by features(): every cost the model gives comes from here.
  double cellCost(const CellScores& linear, const FeatureMap& map, int s, double network) const {
    const double sum = linear(s) + trees_(map, s) + network;
    return form_ == CostForm::Exponential ? std::exp(sum) : sum;
  }
  /// A learned cost raised to the cost exponent: every cost the model gives passes through here.
  double raised(double cost) const { return exponent_ == 1.0 ? cost : std::pow(cost, exponent_); }

  FeatureStack features_;
  Eigen::VectorXd weights_;
  CostForm form_;
  TreeEnsemble trees_;
  CostNetwork network_;
  TrainingDomain domain_;
  double exponent_ = 1.0;
  std::map<std::string, std::string> info_;
  std::string source_;
};

/*!
    ensures
        - the costs [costs, costs + count) of cell rows first_row on (cols a row) as the 32-bit
          floats of a cost raster: +inf (impassable) stays +inf, the raster's nodata
        - throws mmp::DataError naming `source`, the cell and the range a float holds if a finite
          cost is above it (it would turn +inf: nodata, impassable) or below its smallest normal
          value (it would turn 0 or lose its precision): such a model is refused, never written
!*/
std::vector<float> rasterCosts(const double* costs, std::size_t count, int cols, long long first_row,
                               const std::string& source);

/// What writeCostRaster wrote.
struct CostRasterInfo {
  int rows = 0, cols = 0;               ///< cells
  double lowest = 0.0, highest = 0.0;   ///< the cost range of the cells with data
  long long unknown = 0;                ///< cells without data in the image: +inf, the raster's nodata
  WorldFrame frame;                     ///< the cells' world frame, as written
};

/*!
    ensures
        - streams the cost map of `image` (from its next row on: a fresh ImageRows) into a 32-bit
          float GeoTIFF at `tiff` in the image's frame (image.frame(), per cell), one value per cell
          (FloatTiffWriter), band by band of
          tiles.tile_cells cell rows: memory grows with the band (tile_cells x the image width), not
          with the image, and the values equal CostModel::costs(image)
        - cells holding a pixel without data (image.valid()) are written +inf, the raster's nodata
        - progress(done, total) after each band, in cell rows
        - colours: the whole image's, required if model.needsColourStatistics() (read them from the
          file first with colourStatistics(ImageRows&))
        - throws as CostModel::costs does, mmp::Error naming the file if writing fails (the old file
          is then untouched)
!*/
CostRasterInfo writeCostRaster(const CostModel& model, ImageRows& image, const std::string& tiff,
                               const TileSettings& tiles = {},
                               const std::function<void(int done, int total)>& progress = {},
                               const ColourStatistics* colours = nullptr,
                               const ImageFeatureStatistics* feature_statistics = nullptr);

/// The model's feature statistics of every remaining row of the image (features().addStatistics band
/// by band of tiles.tile_cells cell rows): reads it to its end.  The first pass of a streamed cost map
/// when model.needsFeatureStatistics().
ImageFeatureStatistics featureStatistics(const CostModel& model, ImageRows& image, const TileSettings& tiles = {});

/// The colour statistics of every remaining row of the image (over its pixels with data): reads it
/// to its end.
ColourStatistics colourStatistics(ImageRows& image);
/// model.familiarity of every remaining row of the image, read band by band: reads it to its end.
Familiarity familiarity(const CostModel& model, ImageRows& image);

}  // namespace mmp
