// The feature stack: the encoding of scaled features (soft bins or complements), the class-score
// layer and the coded feature maps; raw features and their scaling: raw_features.cpp; model files:
// feature_stack_model.cpp.
#include <mmp/maps/feature_stack.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/ground_scale.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <sstream>

namespace mmp {

// Names of the encoding of the named values (encode): "<name>#<b>", or the names and "1-<name>".
static void appendEncodedNames(const std::vector<std::string>& values, const FeatureSettings& settings,
                               std::vector<std::string>& names) {
  if (settings.bins >= 2) {
    for (const std::string& r : values) {
      for (int b = 0; b < settings.bins; ++b) names.push_back(r + "#" + std::to_string(b));
    }
    return;
  }
  names.insert(names.end(), values.begin(), values.end());
  if (settings.complements) {
    for (const std::string& r : values) names.push_back("1-" + r);
  }
}

// Names of the class-score layer's values before encoding: the margins, then their maxima per radius.
static std::vector<std::string> layerNames(const std::vector<std::string>& classes, const std::vector<double>& context_px) {
  std::vector<std::string> names;
  for (const std::string& c : classes) names.push_back("margin(" + c + ")");
  for (double r : context_px) {
    std::ostringstream radius;
    radius << r;
    for (const std::string& c : classes) names.push_back("margin(" + c + ")max" + radius.str() + "px");
  }
  return names;
}

static std::vector<std::string> stackNames(const FeatureSettings& settings, const ClassScores& layer) {
  std::vector<std::string> names{"bias"};
  appendEncodedNames(rawFeatureNames(settings), settings, names);
  appendEncodedNames(layerNames(layer.classes, layer.context_px), settings, names);
  return names;
}

FeatureStack::FeatureStack(FeatureSettings settings, FeatureScaling scaling)
    : settings_(std::move(settings)), scaling_(std::move(scaling)) {
  validate(settings_);
  const std::size_t n = rawFeatureNames(settings_).size();
  if (scaling_.lower.size() != n || scaling_.upper.size() != n) {
    throw InvalidArgument("feature stack: the scaling has " + std::to_string(scaling_.lower.size()) + " / " +
                          std::to_string(scaling_.upper.size()) + " entries for " + std::to_string(n) +
                          " raw features");
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(scaling_.lower[k]) || !std::isfinite(scaling_.upper[k]) || scaling_.upper[k] < scaling_.lower[k]) {
      throw InvalidArgument("feature stack: the scaling of raw feature " + std::to_string(k) +
                            " is not a finite range lower <= upper");
    }
  }
  describeLayout();
}

FeatureStack FeatureStack::fit(const FeatureSettings& settings, const std::vector<const RawFeatures*>& training) {
  validate(settings);
  const std::vector<std::string> expected = rawFeatureNames(settings);
  for (const RawFeatures* raw : training) {
    if (raw->names != expected) throw InvalidArgument("feature stack: training features were computed with other settings");
  }
  return FeatureStack(settings, FeatureScaling::fit(training, settings.scaling_quantile));
}

namespace {

// Width of the encoding of one value scaled to [0, 1]: its bins, or the value (and its complement).
std::size_t encodedWidth(const FeatureSettings& s) {
  return s.bins >= 2 ? static_cast<std::size_t>(s.bins) : (s.complements ? 2 : 1);
}

// Encodes one scaled value v in [0, 1] (see the file comment of the header) into encodedWidth values.
void encode(double v, const FeatureSettings& s, float* out) {
  if (s.bins >= 2) {
    // Triangular memberships at the knots b / (bins - 1): at most two are non-zero, summing to 1.
    std::fill(out, out + s.bins, 0.0f);
    const double position = v * (s.bins - 1);
    const int lower = std::min(s.bins - 2, static_cast<int>(position));
    const double upper_share = position - lower;
    out[lower] = static_cast<float>(1.0 - upper_share);
    out[lower + 1] = static_cast<float>(upper_share);
    return;
  }
  out[0] = static_cast<float>(v);
  if (s.complements) out[1] = static_cast<float>(1.0 - v);
}

// A value scaled to [0, 1] as one byte: v = q / 255, within 1 / 510 of the value.
constexpr int kTop = FeatureCode::kLevels - 1;
std::uint8_t quantise(double v) { return static_cast<std::uint8_t>(v * kTop + 0.5); }

// Appends to `code` one channel per value of a group of n values whose encoding starts at column
// `first` ("<name>#<b>" bins next to each other, or the n values and then their n complements).
void appendChannels(std::size_t n, int first, const FeatureSettings& s, FeatureCode& code) {
  const std::size_t width = encodedWidth(s);
  for (std::size_t k = 0; k < n; ++k) {
    FeatureCode::Channel channel;
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t offset = s.bins >= 2 ? k * width + i : k + i * n;
      channel.columns.push_back(first + static_cast<int>(offset));
    }
    channel.values.resize(width * FeatureCode::kLevels);
    for (int q = 0; q <= kTop; ++q) encode(static_cast<double>(q) / kTop, s, channel.values.data() + q * width);
    code.channels.push_back(std::move(channel));
  }
  code.features += static_cast<int>(n * width);
}

// The code of a stack: the bias, one channel per raw feature, one per value of the class-score layer.
std::shared_ptr<const FeatureCode> stackCode(const FeatureSettings& s, std::size_t raw, std::size_t layer) {
  auto code = std::make_shared<FeatureCode>();
  code->features = 1;
  code->constants.emplace_back(kBiasIndex, 1.0f);
  appendChannels(raw, code->features, s, *code);
  appendChannels(layer, code->features, s, *code);
  return code;
}

// The scaled value of x under entry k of a scaling: clamp((x - lower) / (upper - lower), 0, 1), 0 if
// constant.  Always in [0, 1], NaN included (as 0): the byte of a value is an index.
double scaled(double x, const FeatureScaling& scaling, std::size_t k) {
  const double span = scaling.upper[k] - scaling.lower[k];
  const double v = span > 0.0 ? (x - scaling.lower[k]) / span : 0.0;
  return v > 0.0 ? std::min(v, 1.0) : 0.0;
}

// The unscaled values of the class-score layer on a (coded) map of the stack's base features: per cell the
// K margins m_c = s_c - max_{c' != c} s_c' of the class scores s = weights * f, then per context
// radius the K margins' maxima over the cells within that radius (in cells, rounded; at least 1).
// Cell-major, K (1 + radii) values per cell.
std::vector<float> layerValues(const ClassScores& layer, int cell_size, const FeatureMap& base) {
  const int rows = base.rows(), cols = base.cols();
  const int side = std::max(rows, cols) * cell_size;
  for (double r : layer.context_px) {
    if (r > side) {  // the dilation's cost grows with the disc; beyond the image it adds nothing
      std::ostringstream text;
      text << "features.class_context_px: radius " << r << " px is larger than the " << cols * cell_size << " x "
           << rows * cell_size << " px image; use at most " << side << " px";
      throw InvalidArgument(text.str());
    }
  }
  const std::size_t k = layer.classes.size(), width = k * (1 + layer.context_px.size());
  const std::size_t cells = static_cast<std::size_t>(base.cells());
  // The K scores at once, as CellScores gives one: a table of K partial sums per channel and byte.
  const FeatureCode& code = *base.code();
  const std::size_t m = code.channels.size(), levels = FeatureCode::kLevels;
  Eigen::VectorXd constant = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(k));
  for (const auto& [column, value] : code.constants) constant += layer.weights.col(column) * static_cast<double>(value);
  std::vector<double> table(m * levels * k, 0.0);
  for (std::size_t j = 0; j < m; ++j) {
    const FeatureCode::Channel& channel = code.channels[j];
    for (std::size_t q = 0; q < levels; ++q) {
      double* sums = table.data() + (j * levels + q) * k;
      for (std::size_t i = 0; i < channel.columns.size(); ++i) {
        const double x = channel.values[q * channel.columns.size() + i];
        for (std::size_t c = 0; c < k; ++c) sums[c] += layer.weights(static_cast<Eigen::Index>(c), channel.columns[i]) * x;
      }
    }
  }
  std::vector<float> values(cells * width);
  std::vector<double> s(k);
  for (std::size_t cell = 0; cell < cells; ++cell) {
    const std::uint8_t* q = base.codes().data() + cell * m;
    for (std::size_t c = 0; c < k; ++c) s[c] = constant[static_cast<Eigen::Index>(c)];
    for (std::size_t j = 0; j < m; ++j) {
      const double* sums = table.data() + (j * levels + q[j]) * k;
      for (std::size_t c = 0; c < k; ++c) s[c] += sums[c];
    }
    for (std::size_t c = 0; c < k; ++c) {
      double other = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < k; ++j) {
        if (j != c) other = std::max(other, s[j]);
      }
      values[cell * width + c] = static_cast<float>(s[c] - other);
    }
  }
  cv::Mat margin(rows, cols, CV_32F), maximum;
  for (std::size_t r = 0; r < layer.context_px.size(); ++r) {
    const int radius = std::max(1, static_cast<int>(std::lround(layer.context_px[r] / cell_size)));
    cv::Mat disc(2 * radius + 1, 2 * radius + 1, CV_8U);  // the cells (dr, dc) with dr^2 + dc^2 <= radius^2
    for (int dr = -radius; dr <= radius; ++dr) {
      for (int dc = -radius; dc <= radius; ++dc) {
        disc.at<std::uint8_t>(dr + radius, dc + radius) = dr * dr + dc * dc <= radius * radius;
      }
    }
    for (std::size_t c = 0; c < k; ++c) {
      float* m = margin.ptr<float>();
      for (std::size_t cell = 0; cell < cells; ++cell) m[cell] = values[cell * width + c];
      cv::dilate(margin, maximum, disc);  // outside the image counts as -infinity: only cells inside
      const float* x = maximum.ptr<float>();
      for (std::size_t cell = 0; cell < cells; ++cell) values[cell * width + (1 + r) * k + c] = x[cell];
    }
  }
  return values;
}

}  // namespace

void ImageFeatureStatistics::add(const RawFeatures& raw, cv::Range rows, cv::Range cols) {
  const std::size_t n = raw.names.size();
  if (sum_.empty() && cells_ == 0) sum_.assign(n, 0), square_.assign(n, 0);
  if (sum_.size() != n) {
    throw InvalidArgument("image feature statistics: " + std::to_string(raw.names.size()) + " features added to statistics of " +
                          std::to_string(sum_.size()));
  }
  constexpr double kStep = 1048576.0;  // 2^20: values are rounded to multiples of 2^-20
  constexpr double kLargest = 1048576.0;  // |v| <= 2^20: the squares of 2^40 cells fit in 127 bits
  for (int r = rows.start; r < rows.end; ++r) {
    for (int c = cols.start; c < cols.end; ++c) {
      const float* v = raw.values.data() + (static_cast<std::size_t>(r) * raw.cols + c) * n;
      for (std::size_t k = 0; k < n; ++k) {
        if (!(std::fabs(v[k]) <= kLargest)) {
          throw InvalidArgument("image feature statistics: feature '" + raw.names[k] + "' of cell (row " + std::to_string(r) +
                                ", col " + std::to_string(c) + ") is " + std::to_string(v[k]) +
                                "; per-image normalisation takes values of at most 2^20 in magnitude");
        }
        const long long q = std::llround(static_cast<double>(v[k]) * kStep);
        sum_[k] += q;
        square_[k] += static_cast<Wide>(q) * q;
      }
    }
  }
  cells_ += static_cast<long long>(rows.size()) * cols.size();
}

void ImageFeatureStatistics::merge(const ImageFeatureStatistics& other) {
  if (other.cells_ == 0) return;
  if (cells_ == 0 && sum_.empty()) sum_.assign(other.sum_.size(), 0), square_.assign(other.sum_.size(), 0);
  if (sum_.size() != other.sum_.size()) {
    throw InvalidArgument("image feature statistics: statistics of " + std::to_string(other.sum_.size()) +
                          " features merged into statistics of " + std::to_string(sum_.size()));
  }
  for (std::size_t k = 0; k < sum_.size(); ++k) sum_[k] += other.sum_[k], square_[k] += other.square_[k];
  cells_ += other.cells_;
}

void ImageFeatureStatistics::meanAndSpread(std::vector<double>& mean, std::vector<double>& sd) const {
  if (cells_ <= 0) throw InvalidArgument("image feature statistics: no cells were added");
  const std::size_t n = sum_.size();
  mean.assign(n, 0.0);
  sd.assign(n, 1.0);
  for (std::size_t k = 0; k < n; ++k) {
    // n * sum(q^2) - sum(q)^2 exactly would need 190 bits; long double is enough and deterministic.
    const long double count = static_cast<long double>(cells_);
    const long double m = static_cast<long double>(sum_[k]) / count;
    const long double var = static_cast<long double>(square_[k]) / count - m * m;
    // Rounded: the mean to a multiple of 2^-12, the sd to 12 significant bits.  A tile's raw features
    // may differ from the whole image's in their last float bits (OpenCV's filters on another extent),
    // which would move exact sums; rounded, the figures agree unless one lies within that noise of a
    // rounding boundary.  The rounding moves a standardised value by at most 1/8192 of an sd, far
    // below the one-byte code's step.
    mean[k] = std::round(static_cast<double>(m / 1048576.0L) * 4096.0) / 4096.0;
    const double s = var > 0 ? static_cast<double>(std::sqrt(var) / 1048576.0L) : 0.0;
    if (s > 1e-6) {
      int exponent = 0;
      const double fraction = std::frexp(s, &exponent);
      sd[k] = std::ldexp(std::round(fraction * 4096.0) / 4096.0, exponent);
    } else {
      sd[k] = 1.0;
    }
  }
}

void normaliseImageFeatures(RawFeatures& raw, const FeatureSettings& settings, const ImageFeatureStatistics* whole_image) {
  if (!settings.normalise_per_image) return;
  ImageFeatureStatistics own;
  if (whole_image == nullptr) {
    own.add(raw);
    whole_image = &own;
  }
  std::vector<double> mean, sd;
  whole_image->meanAndSpread(mean, sd);
  const std::size_t n = raw.names.size();
  if (mean.size() != n) {
    throw InvalidArgument("per-image normalisation: the statistics hold " + std::to_string(mean.size()) +
                          " features, the image " + std::to_string(n));
  }
  for (std::size_t i = 0; i < raw.values.size(); ++i) {
    const std::size_t k = i % n;
    raw.values[i] = static_cast<float>((static_cast<double>(raw.values[i]) - mean[k]) / sd[k]);
  }
}

FeatureMap FeatureStack::map(const cv::Mat& bgr) const {
  RawFeatures raw = computeRawFeatures(bgr, settings_);
  normaliseImageFeatures(raw, settings_);
  return map(raw);
}

void FeatureStack::setGroundResolution(double metres_per_pixel, const std::string& upsample) {
  FeatureSettings settings = settings_;
  settings.ground_resolution = metres_per_pixel;
  settings.upsample = upsample;
  validate(settings);
  settings_ = settings;
}

FeatureMap FeatureStack::mapAtResolution(const cv::Mat& bgr, double metres_per_pixel) const {
  const double factor = groundFactor(settings_, metres_per_pixel, "features in metres");
  if (factor == 1.0) return map(bgr);
  const cv::Mat seen = resampleToGround(bgr, factor, settings_.upsample);
  const int k = settings_.cell_size;
  return map(seen).gathered(groundCellSources(bgr.size(), seen.size(), k), bgr.rows / k, bgr.cols / k);
}

FeatureMap FeatureStack::map(const GeoImage& image) const {
  FeatureMap m = mapAtResolution(image.pixels, metresPerPixel(image.frame));
  m.setFrame(image.frame.coarsened(settings_.cell_size));
  return m;
}

FeatureMap FeatureStack::map(const cv::Mat& bgr, cv::Point origin_cells, const ImageFeatureStatistics* whole_image) const {
  if (settings_.normalise_per_image && whole_image == nullptr) {
    throw InvalidArgument("feature stack: features.normalise is per_image, so a piece of an image needs the whole image's "
                          "statistics (FeatureStack::statistics)");
  }
  RawFeatures raw = computeRawFeatures(bgr, settings_, origin_cells);
  normaliseImageFeatures(raw, settings_, whole_image);
  return map(raw);
}

ImageFeatureStatistics FeatureStack::statistics(const cv::Mat& bgr, int tile_cells, int threads) const {
  const int k = settings_.cell_size, rows = bgr.rows / k, cols = bgr.cols / k;
  ImageFeatureStatistics total;
  if (rows < 1 || cols < 1 || tile_cells < 1) {  // computeRawFeatures says why
    total.add(computeRawFeatures(bgr, settings_));
    return total;
  }
  checkImageSize(settings_, bgr.cols, bgr.rows);
  addStatistics(bgr, 0, rows, cv::Range(0, rows), tile_cells, threads, total);
  return total;
}

void FeatureStack::addStatistics(const cv::Mat& pixels, int top_cell, int rows, cv::Range core, int tile_cells, int threads,
                                 ImageFeatureStatistics& total) const {
  const int k = settings_.cell_size, cols = pixels.cols / k, halo = reachCells();
  const int needed_top = std::max(0, core.start - halo), needed_bottom = std::min(rows, core.end + halo);
  if (tile_cells < 1 || core.start < 0 || core.end > rows || core.start >= core.end || top_cell > needed_top ||
      (top_cell * k + pixels.rows) < needed_bottom * k || cols < 1) {
    throw InvalidArgument("feature statistics: pixel rows from cell row " + std::to_string(top_cell) + " (" +
                          std::to_string(pixels.rows) + " px) do not cover cell rows [" + std::to_string(core.start) +
                          ", " + std::to_string(core.end) + ") and their halo [" + std::to_string(needed_top) + ", " +
                          std::to_string(needed_bottom) + ")");
  }
  const int tile_rows = (core.size() + tile_cells - 1) / tile_cells, tile_cols = (cols + tile_cells - 1) / tile_cells;
  std::mutex lock;
  ThreadPool pool(threads);
  pool.parallelFor(static_cast<std::size_t>(tile_rows) * tile_cols, [&](std::size_t t) {
    const int r0 = core.start + static_cast<int>(t / tile_cols) * tile_cells, c0 = static_cast<int>(t % tile_cols) * tile_cells;
    const int r1 = std::min(core.end, r0 + tile_cells), c1 = std::min(cols, c0 + tile_cells);
    const int er0 = std::max(0, r0 - halo), er1 = std::min(rows, r1 + halo);
    const int ec0 = std::max(0, c0 - halo), ec1 = std::min(cols, c1 + halo);
    const cv::Mat tile = pixels(cv::Rect(ec0 * k, (er0 - top_cell) * k, (ec1 - ec0) * k, (er1 - er0) * k));
    const RawFeatures raw = computeRawFeatures(tile, settings_, cv::Point(ec0, er0));
    ImageFeatureStatistics part;
    part.add(raw, cv::Range(r0 - er0, r1 - er0), cv::Range(c0 - ec0, c1 - ec0));
    const std::lock_guard<std::mutex> guard(lock);
    total.merge(part);  // exact integer sums: the order of the tiles does not matter
  });
}

FeatureMap FeatureStack::map(const RawFeatures& raw) const {
  if (raw.names != rawFeatureNames(settings_)) {
    throw InvalidArgument("feature stack: the raw features were computed with other settings than the stack's");
  }
  const std::size_t n = raw.names.size();
  const std::size_t cells = static_cast<std::size_t>(raw.rows) * raw.cols;
  std::vector<std::uint8_t> codes(cells * n);
  for (std::size_t s = 0; s < cells; ++s) {
    for (std::size_t k = 0; k < n; ++k) codes[s * n + k] = quantise(scaled(raw.values[s * n + k], scaling_, k));
  }
  const std::size_t layer = class_scores_.scaling.lower.size();  // values of the class-score layer, 0 without
  if (layer == 0) return FeatureMap(raw.rows, raw.cols, code_, std::move(codes), names_);
  const FeatureMap base(raw.rows, raw.cols, stackCode(settings_, n, 0), codes);
  const std::vector<float> x = layerValues(class_scores_, settings_.cell_size, base);
  const std::size_t m = n + layer;
  std::vector<std::uint8_t> all(cells * m);
  for (std::size_t s = 0; s < cells; ++s) {
    std::copy_n(codes.data() + s * n, n, all.data() + s * m);
    for (std::size_t k = 0; k < layer; ++k) all[s * m + n + k] = quantise(scaled(x[s * layer + k], class_scores_.scaling, k));
  }
  return FeatureMap(raw.rows, raw.cols, code_, std::move(all), names_);
}

int FeatureStack::reachCells() const {
  const int k = settings_.cell_size;
  int pixels = settings_.gradient ? 1 : 0;  // the 3 x 3 Sobel kernel
  for (int w : settings_.texture_windows) pixels = std::max(pixels, w / 2);
  int blur = 0;
  for (double sigma : settings_.blur_sigmas) {
    // OpenCV's kernel for a float image when given only sigma: ksize = round(8 sigma + 1) | 1.
    if (sigma > 0.0) blur = std::max(blur, (cvRound(sigma / k * 8.0 + 1.0) | 1) / 2);
  }
  // In double, saturated at INT_MAX: a model file may hold any finite radius, and the caller says
  // what reach is too large (CostModel::haloCells).
  double context = 0.0;
  for (double r : class_scores_.context_px) context = std::max(context, std::max(1.0, std::round(r / k)));
  // Region features depend on the cells of their window alone (within-cell values, no blur).
  const int base = std::max((pixels + k - 1) / k + blur, settings_.region_window > 0 ? settings_.region_window - 1 : 0);
  const double reach = static_cast<double>(base) + context;
  return reach >= std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : static_cast<int>(reach);
}

void FeatureStack::describeLayout() {
  names_ = stackNames(settings_, class_scores_);
  code_ = stackCode(settings_, rawFeatureNames(settings_).size(), class_scores_.scaling.lower.size());
}

FeatureStack FeatureStack::withClassScores(std::vector<std::string> classes, Eigen::MatrixXd weights,
                                           const std::vector<const FeatureMap*>& training,
                                           std::vector<double> context_px) const {
  if (classScores()) throw InvalidArgument("feature stack: it already has a class-score layer");
  if (classes.size() < 2 || static_cast<Eigen::Index>(classes.size()) != weights.rows()) {
    throw InvalidArgument("feature stack: a class-score layer needs >= 2 classes and one weight row per class, got " +
                          std::to_string(classes.size()) + " classes and " + std::to_string(weights.rows()) + " rows");
  }
  if (weights.cols() != features() || !weights.allFinite()) {
    throw InvalidArgument("feature stack: class-score weights must be finite, " + std::to_string(features()) +
                          " per class, got " + std::to_string(weights.cols()));
  }
  for (const std::string& c : classes) {
    if (c.empty() || c.find('\n') != std::string::npos) {
      throw InvalidArgument("feature stack: class name '" + c + "' is empty or holds a line break");
    }
  }
  for (double r : context_px) {
    if (!(r >= settings_.cell_size) || !std::isfinite(r)) {
      throw InvalidArgument("feature stack: a class context radius must be at least the cell size (" +
                            std::to_string(settings_.cell_size) + " px), got " + std::to_string(r));
    }
  }
  if (training.empty()) throw InvalidArgument("feature stack: no training maps to fit the class-score scaling on");
  ClassScores layer{std::move(classes), std::move(weights), std::move(context_px), {}};
  RawFeatures values;  // every training cell's layer values, one "raw feature" each
  values.names = layerNames(layer.classes, layer.context_px);
  values.cols = 1;
  for (const FeatureMap* map : training) {
    if (map->features() != features()) throw InvalidArgument("feature stack: a training map was made by another stack");
    values.rows += map->cells();
    const std::vector<float> x = layerValues(layer, settings_.cell_size, *map);
    values.values.insert(values.values.end(), x.begin(), x.end());
  }
  layer.scaling = FeatureScaling::fit({&values}, settings_.scaling_quantile);
  FeatureStack stack = *this;
  stack.class_scores_ = std::move(layer);
  stack.describeLayout();
  return stack;
}

}  // namespace mmp
