// The feature stack: per-cell features of an aerial image, the input of maximum margin planning.
//
// An image is cut into cells of cell_size x cell_size pixels (trailing pixels that do not fill a cell
// are dropped) and every cell gets, for each blur scale sigma (Gaussian, in pixels; 0 = none):
//   rgb.r, rgb.g, rgb.b           mean colour of the cell, blurred
//   hsv.hue_x, hsv.hue_y          the hue angle as a saturation-weighted unit vector (S cos H, S sin H):
//                                 continuous across 0/360 degrees and silent on grey pixels
//   hsv.s, hsv.v                  saturation and value
//   lab.L, lab.a, lab.b           CIE Lab of the blurred colour
//   edges                         mean Sobel gradient magnitude of the grey image inside the cell
//   texture<w>                    local standard deviation of grey in a w x w pixel window, cell mean
// each named "<name>@<sigma>px".
//
// Optionally (region_window > 0) regions as context: the cell grid is cut into fixed windows of
// region_window x region_window cells, aligned to the whole image's cell grid (so a tile computed with
// its cell origin and a halo of region_window - 1 cells gets the whole image's values), each window is
// segmented without labels by Felzenszwalb and Huttenlocher's graph segmentation (OpenCV contrib
// ximgproc, on the 8-bit Lab colour of the cells, smoothed by sigma 0.5 cells; threshold k =
// region_threshold, segments of at least region_size cells), and every cell gets the statistics of its
// segment:
//   region.L, region.a, region.b  the segment's mean Lab colour (of the unblurred cell colours)
//   region.L_sd                   the spread (standard deviation) of L over the segment's cells
//   region.detail                 the mean within-cell standard deviation of grey (fine texture)
//   region.size                   log of the segment's size in cells
//   region.elongation             1 - sqrt(minor / major) of the second moments of its cells' positions
//                                 (0 = round, -> 1 = a line: roads are long and thin)
//   region.L_contrast             its mean L minus the mean L of its neighbours in the window, weighted
//                                 by the shared boundary (0 without neighbours)
//   region.colour_contrast        the boundary-weighted mean Lab distance to its neighbours
// Why: a cell's own colour cannot tell water from shadow or a roof from a road; the segment it lies in
// (large and smooth, long and thin, darker than its surroundings) can, on an image never seen.  Why
// graph segmentation and not SLIC superpixels: its segments follow the image (a road is one long
// segment, a pond one large one), so size and shape mean something; SLIC's are of one size by design,
// and OpenCV's SLIC dispatches a parallel loop per seed and iteration (slow on thousands of windows)
// with parallel float reductions.
//
// Optionally (normalise_per_image, config `features.normalise: per_image`) each image's raw features are
// first standardised by that image's own statistics: v' = (v - mean) / sd, the mean and standard
// deviation of the feature over all the image's whole cells (sd 0: divided by 1), at training on each
// training image and at use on the new image (the whole image's, also when it is cut into tiles: a
// first pass over the tiles; ImageFeatureStatistics sums exactly and rounds, so tiles give the whole
// image's figures).  Why:
// a new area's features shift (other light, season, camera); a label-free re-estimate of the feature
// normalisation on the new imagery (as AdaBN re-estimates a network's) removes shifts and gains of each
// feature.  Mean and sd rather than median and spread of quantiles: they add up exactly over tiles.
//
// These raw features are then scaled to [0, 1] by a FeatureScaling
// fitted on the training images (low and high quantiles per feature, values outside clamped),
// quantised to one byte (v = q / 255, within 1 / 510 of the scaled value), and the FeatureMap is one of
//   bins = 0:  [ bias = 1 | scaled features v | 1 - v (if complements) ]
//   bins = B:  [ bias = 1 | B soft bins of each scaled feature ]   (B >= 2)
// Soft bin b of v is the triangular membership max(0, 1 - |v - b/(B-1)| (B-1)): the B bins of a
// feature sum to 1, and a nonnegative weight per bin gives any nonnegative piecewise-linear cost of
// v (a generalised additive model).  Why: the positive-cost set of planning/loss.hpp (w >= 0, bias
// weight floored) lets plain features only ADD cost, so a cost can fall below the floor nowhere and
// a demonstration that detours along the road integrates more of every feature than the shortcut:
// the learner sits at uniform costs.  Bins are exactly 0 on most cells, so weight can go on "not
// road" values alone.  Complements (1 - v) are the lighter fix.  The bias is feature kBiasIndex = 0.
// The map is stored coded (core/feature_map.hpp): one byte per scaled value, whose bins are a row of
// a 256-entry table -- 42 bytes a cell for the shipped settings instead of 4 bytes per feature.
//
// Optionally a class-score layer follows (withClassScores): a linear multiclass classifier of the
// stacked features, fitted by the caller on labelled training cells, gives each cell a margin per class
//   m_c = w_c . f - max_{c' != c} w_c' . f        (> 0 where class c wins)
// which is scaled to [0, 1] (a FeatureScaling fitted on the training cells) and binned like a raw
// feature, named "margin(<class>)#<b>".  A cost can then be any nonnegative piecewise-linear function
// of "how much like water / road / ... does this cell look", which the additive bins of single colour
// features cannot express (water and dense trees are both dark; only the joint evidence tells them apart).
// With context radii R (pixels), each margin map is also max-filtered over a disc of radius R (in cells,
// rounded), scaled and binned, named "margin(<class>)max<R>px#<b>": "the strongest evidence of class c
// within R".  Why: a planner crosses a river wherever a few cells of it look like land; the neighbourhood
// maximum closes such gaps narrower than 2R, and the learner decides from the demonstrations whether
// "near water" should cost anything.
//
// FeatureStack bundles settings, scaling and class scores; store() writes them into a Model so that a
// held-out image, `mmp plan` or `mmp costmap` get exactly the training transform.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/georeference.hpp>

#include <Eigen/Dense>
#include <opencv2/core.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mmp {

/// Index of the constant bias feature in every stacked FeatureMap.
constexpr int kBiasIndex = 0;

struct FeatureSettings {
  int cell_size = 4;                                    ///< pixels per cell side, >= 1
  std::vector<double> blur_sigmas = {0.0, 4.0, 12.0};   ///< Gaussian sigmas in pixels, >= 0, non-empty
  bool rgb = true, hsv = true, lab = true;              ///< colour spaces (at least one)
  bool gradient = true;                                 ///< the edges feature
  std::vector<int> texture_windows = {7};               ///< odd window sides in pixels, >= 3
  bool complements = true;                              ///< append 1 - f for every scaled feature (bins = 0 only)
  int bins = 0;                                         ///< 0 = plain features, else soft bins per feature (>= 2)
  double scaling_quantile = 0.005;                      ///< fit: features scaled from this quantile to 1 - it
  int region_window = 0;             ///< region features: 0 = none, else the window side in cells, [8, 256]
  int region_size = 4;               ///< least segment size in cells, [1, region_window^2]
  double region_threshold = 100.0;   ///< Felzenszwalb's k on 8-bit Lab (larger: larger segments), (0, 1e5]
  bool normalise_per_image = false;  ///< standardise each image's raw features by its own statistics
  /// Metres per pixel of the training imagery, 0 = not declared.  When declared, an image of another
  /// known resolution is resampled to it before its features are computed (ground_scale.hpp).
  double ground_resolution = 0.0;
  /// How an image coarser than ground_resolution is brought to it: "cubic" (bicubic), "linear"
  /// (bilinear) or "none" (taken as it comes, in pixels); a finer image is always area-averaged.
  /// cubic was chosen on the training areas resampled to half their resolution (docs/label-free.md).
  std::string upsample = "cubic";
};

/// Throws mmp::InvalidArgument naming the first setting outside its documented range.
void validate(const FeatureSettings& settings);

/// Raw (unscaled) per-cell features of one image, cell-major like FeatureMap, without bias.
struct RawFeatures {
  int rows = 0, cols = 0;
  std::vector<std::string> names;
  std::vector<float> values;  ///< values[(r * cols + c) * names.size() + k]
  int features() const { return static_cast<int>(names.size()); }
};

/// ensures: the raw features of a CV_8UC3 BGR image (loadImage) under `settings`.  Throws
/// mmp::InvalidArgument if the image is not 8-bit BGR or holds no whole cell.  origin_cells: where
/// the image's top-left cell lies in the whole image it was cut from (column, row, in cells, >= 0);
/// only the region windows depend on it (they are aligned to the whole image's cell grid).
RawFeatures computeRawFeatures(const cv::Mat& bgr, const FeatureSettings& settings, cv::Point origin_cells = {});

/// The names of the region features under `settings` (none if region_window == 0), in order.
std::vector<std::string> regionFeatureNames(const FeatureSettings& settings);

/// Throws mmp::InvalidArgument naming the setting if a blur sigma or texture window is larger than
/// the longer side of a width x height px image (it would see nothing more, at a cost that grows
/// with it).  computeRawFeatures checks this; tiled computations check it on the whole image.
void checkImageSize(const FeatureSettings& settings, int width, int height);

/// The names of the raw features computeRawFeatures gives under `settings`, in order.
std::vector<std::string> rawFeatureNames(const FeatureSettings& settings);

/// Per raw feature, the mean and standard deviation over an image's whole cells, summed exactly
/// (each value rounded to a multiple of 2^-20 and added as an integer): adding the cells in any order,
/// tile by tile or all at once, gives the same sums bit for bit.  The figures are rounded (mean to
/// 2^-12, sd to 12 significant bits) so that a tile's raw features, which may differ from the whole
/// image's in their last float bits, give the same figures too (unless one lies within that noise of
/// a rounding boundary).
class ImageFeatureStatistics {
 public:
  /// Adds the cells [rows.start, rows.end) x [cols.start, cols.end) of raw (cell rows and columns of raw).
  void add(const RawFeatures& raw, cv::Range rows, cv::Range cols);
  void add(const RawFeatures& raw) { add(raw, cv::Range(0, raw.rows), cv::Range(0, raw.cols)); }
  /// Adds another's cells (of the same features).
  void merge(const ImageFeatureStatistics& other);
  long long cells() const { return cells_; }
  /// requires: cells() > 0.  The mean and sd (population) of each feature; sd 0 is given as 1.
  void meanAndSpread(std::vector<double>& mean, std::vector<double>& sd) const;

 private:
  long long cells_ = 0;
  __extension__ typedef __int128 Wide;  // GCC and Clang: 2^-20 steps of 2^40 cells of values up to 2^20 fit
  std::vector<Wide> sum_, square_;
};

/// raw = (raw - mean) / sd per feature with the statistics given (the image's own if none); does
/// nothing unless settings.normalise_per_image.  Throws mmp::InvalidArgument if the statistics have
/// other features or no cells.
void normaliseImageFeatures(RawFeatures& raw, const FeatureSettings& settings,
                            const ImageFeatureStatistics* whole_image = nullptr);

/// Per raw feature, the values mapped to 0 and to 1: f = clamp((v - lower) / (upper - lower), 0, 1)
/// (0 if upper == lower).
struct FeatureScaling {
  std::vector<double> lower, upper;

  /*!
      requires: images non-empty, all with the same features; 0 <= quantile < 0.5
      ensures: lower/upper are the quantile and 1 - quantile points of each feature over all cells of
               all images (quantile 0: minimum and maximum)
  !*/
  static FeatureScaling fit(const std::vector<const RawFeatures*>& images, double quantile);
};

/// The class-score layer: weights.row(c) scores class c on the stacked features before the layer.
struct ClassScores {
  std::vector<std::string> classes;  ///< names, >= 2, none empty or holding a line break
  Eigen::MatrixXd weights;           ///< classes x (features of the stack without the layer)
  std::vector<double> context_px;    ///< context radii in pixels, each >= the cell size; may be empty
  FeatureScaling scaling;            ///< of the margins, then of their maxima per radius: one entry each
};

class FeatureStack {
 public:
  FeatureStack() = default;
  /// requires: settings valid; scaling of the size of rawFeatureNames(settings).
  FeatureStack(FeatureSettings settings, FeatureScaling scaling);

  /// Fits the scaling on training images (their raw features under `settings`).
  static FeatureStack fit(const FeatureSettings& settings, const std::vector<const RawFeatures*>& training);

  /*!
      requires: no class-score layer yet; classes.size() == weights.rows() >= 2; weights.cols() ==
                features(); every context radius >= settings().cell_size; training: maps made by this
                stack (the cells the margin scaling is fitted on)
      ensures: this stack followed by the class-score layer (see the file comment)
  !*/
  FeatureStack withClassScores(std::vector<std::string> classes, Eigen::MatrixXd weights,
                               const std::vector<const FeatureMap*>& training,
                               std::vector<double> context_px = {}) const;
  /// The class-score layer, or nullptr.
  const ClassScores* classScores() const { return class_scores_.classes.empty() ? nullptr : &class_scores_; }

  /// Reads settings and scaling back from a model written with store(); throws mmp::DataError naming
  /// the setting or array that is missing or malformed, or if the model's feature names differ.
  static FeatureStack fromModel(const Model& model);
  /// Writes settings (keys "features.*"), scaling (arrays "features.lower", "features.upper") and the
  /// class-score layer ("features.class_scores", "features.class_context_px", arrays
  /// "features.class_weights", "features.class_lower", "features.class_upper") into the model, and sets
  /// model.feature_names to names().
  void store(Model& model) const;

  const FeatureSettings& settings() const { return settings_; }
  const FeatureScaling& scaling() const { return scaling_; }
  /// Declares the training imagery's ground resolution and upsampling (FeatureSettings::ground_resolution,
  /// upsample): for a model trained without them declared.  Throws mmp::InvalidArgument (validate's message) if invalid.
  void setGroundResolution(double metres_per_pixel, const std::string& upsample = "cubic");
  /// Names of the stacked features: "bias", then the raw names and "1-<raw name>" if complements,
  /// or "<raw name>#<b>" for bin b of each raw feature; then the class-score features, if any.
  const std::vector<std::string>& names() const { return names_; }
  int features() const { return static_cast<int>(names_.size()); }
  /// The channels of the stack's coded maps: one per scaled value (raw features, then class scores).
  int channels() const { return code_ ? static_cast<int>(code_->channels.size()) : 0; }
  /// The features before the class-score layer (all of them if there is none); they come first.
  int baseFeatures() const {
    return class_scores_.classes.empty() ? features() : static_cast<int>(class_scores_.weights.cols());
  }

  /// How far a cell's features reach, in cells: a cell's features depend only on the pixels of the
  /// cells within this distance (texture windows and gradients, then the blur kernels, or the region
  /// window less one if larger, then the class context discs).  A tile computed with this many cells of halo around it gets the same
  /// features as the whole image.
  int reachCells() const;

  /// The stacked feature map, coded with one byte per scaled value; every feature in [0, 1],
  /// feature kBiasIndex == 1.  requires: raw computed under settings() (same names).
  FeatureMap map(const RawFeatures& raw) const;
  /// The map of a whole image (standardised by its own statistics if settings().normalise_per_image).
  FeatureMap map(const cv::Mat& bgr) const;
  /// The map of a piece of a larger image whose top-left cell is origin_cells there (see
  /// computeRawFeatures); whole_image: the whole image's statistics, required (mmp::InvalidArgument
  /// without) if settings().normalise_per_image.
  FeatureMap map(const cv::Mat& bgr, cv::Point origin_cells, const ImageFeatureStatistics* whole_image = nullptr) const;
  /// The whole image's feature statistics, tile by tile (tile_cells cells a side with the stack's
  /// reach as halo, threads as CostModel's tiles): what map(bgr) standardises by.
  ImageFeatureStatistics statistics(const cv::Mat& bgr, int tile_cells, int threads = 1) const;
  /// Adds to `total` the cells of cell rows [core.start, core.end) of an image of `rows` cell rows,
  /// given its full-width pixel rows from cell row top_cell on (covering the core and reachCells() of
  /// halo): a band of a streamed image (writeCostRaster's first pass).
  void addStatistics(const cv::Mat& pixels, int top_cell, int rows, cv::Range core, int tile_cells, int threads,
                     ImageFeatureStatistics& total) const;
  /// The map of a whole image of `metres_per_pixel` (0: unknown): with settings().ground_resolution
  /// declared and another resolution known, the map of the image resampled to it, each cell reading
  /// the resampled map's cell under its centre (ground_scale.hpp); else map(bgr).  Throws
  /// mmp::InvalidArgument if the resolutions differ by more than kMaxGroundFactor.
  FeatureMap mapAtResolution(const cv::Mat& bgr, double metres_per_pixel) const;
  /// The same, in the image's world frame (per cell), at its frame's resolution (metresPerPixel).
  FeatureMap map(const GeoImage& image) const;

 private:
  // Sets names_ and code_ from the settings and the class-score layer.
  void describeLayout();

  FeatureSettings settings_;
  FeatureScaling scaling_;
  ClassScores class_scores_;
  std::vector<std::string> names_;
  std::shared_ptr<const FeatureCode> code_;  // what the bytes of the stack's maps mean
};

}  // namespace mmp
