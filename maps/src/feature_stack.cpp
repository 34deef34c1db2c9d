#include <mmp/maps/feature_stack.hpp>

#include <mmp/core/error.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

namespace mmp {

constexpr double kPi = 3.14159265358979323846;

void validate(const FeatureSettings& s) {
  if (s.cell_size < 1) throw InvalidArgument("features: cell_size must be >= 1, got " + std::to_string(s.cell_size));
  if (s.blur_sigmas.empty()) throw InvalidArgument("features: blur_sigmas must list at least one scale (0 = no blur)");
  for (double sigma : s.blur_sigmas) {
    if (!(sigma >= 0.0) || !std::isfinite(sigma)) {
      throw InvalidArgument("features: blur sigma " + std::to_string(sigma) + " is not a finite number >= 0");
    }
  }
  if (!s.rgb && !s.hsv && !s.lab) throw InvalidArgument("features: enable at least one colour space (rgb, hsv, lab)");
  for (int w : s.texture_windows) {
    if (w < 3 || w % 2 == 0) {
      throw InvalidArgument("features: texture window " + std::to_string(w) + " must be odd and >= 3 pixels");
    }
  }
  if (s.bins == 1 || s.bins < 0 || s.bins > 64) {
    throw InvalidArgument("features: bins must be 0 (plain features) or in [2, 64], got " + std::to_string(s.bins));
  }
  if (s.bins >= 2 && s.complements) {
    throw InvalidArgument("features: complements are redundant with bins (the bins of a feature sum to 1); turn one off");
  }
  if (!(s.scaling_quantile >= 0.0 && s.scaling_quantile < 0.5)) {
    throw InvalidArgument("features: scaling_quantile must lie in [0, 0.5), got " + std::to_string(s.scaling_quantile));
  }
}

static std::string sigmaTag(double sigma) {
  std::ostringstream out;
  out << "@" << sigma << "px";
  return out.str();
}

std::vector<std::string> rawFeatureNames(const FeatureSettings& s) {
  std::vector<std::string> names;
  for (double sigma : s.blur_sigmas) {
    const std::string tag = sigmaTag(sigma);
    if (s.rgb) for (const char* n : {"rgb.r", "rgb.g", "rgb.b"}) names.push_back(n + tag);
    if (s.hsv) for (const char* n : {"hsv.hue_x", "hsv.hue_y", "hsv.s", "hsv.v"}) names.push_back(n + tag);
    if (s.lab) for (const char* n : {"lab.L", "lab.a", "lab.b"}) names.push_back(n + tag);
    if (s.gradient) names.push_back("edges" + tag);
    for (int w : s.texture_windows) names.push_back("texture" + std::to_string(w) + tag);
  }
  return names;
}

void checkImageSize(const FeatureSettings& s, int width, int height) {
  // A blur or window wider than the image sees nothing more than the whole image, at a cost that grows
  // with its size: refused, so that a mistyped setting is an error and not an endless run.
  const int side = std::max(width, height);
  const std::string image_size = std::to_string(width) + " x " + std::to_string(height) + " px image";
  for (double sigma : s.blur_sigmas) {
    if (sigma > side) {
      std::ostringstream text;
      text << "features.blur_sigmas: sigma " << sigma << " px is larger than the " << image_size << "; use at most "
           << side << " px";
      throw InvalidArgument(text.str());
    }
  }
  for (int w : s.texture_windows) {
    if (w > side) {
      throw InvalidArgument("features.texture_windows: window " + std::to_string(w) + " px is larger than the " +
                            image_size + "; use at most " + std::to_string(side) + " px");
    }
  }
}

RawFeatures computeRawFeatures(const cv::Mat& bgr, const FeatureSettings& s) {
  validate(s);
  if (bgr.type() != CV_8UC3) throw InvalidArgument("features: the image must be 8-bit BGR (see loadImage)");
  const int k = s.cell_size;
  const int rows = bgr.rows / k, cols = bgr.cols / k;
  if (rows < 1 || cols < 1) {
    throw InvalidArgument("features: a " + std::to_string(bgr.cols) + " x " + std::to_string(bgr.rows) +
                          " image holds no whole cell of " + std::to_string(k) + " pixels");
  }
  checkImageSize(s, bgr.cols, bgr.rows);
  cv::Mat pixels;
  bgr(cv::Rect(0, 0, cols * k, rows * k)).convertTo(pixels, CV_32FC3, 1.0 / 255.0);
  const cv::Size grid(cols, rows);
  cv::Mat cells;  // mean colour per cell
  cv::resize(pixels, cells, grid, 0, 0, cv::INTER_AREA);

  // Per-cell channels that need the pixels: edge density and local texture.
  cv::Mat grey;
  cv::cvtColor(pixels, grey, cv::COLOR_BGR2GRAY);
  std::vector<cv::Mat> pixel_channels;  // each CV_32FC1 at cell resolution
  if (s.gradient) {
    cv::Mat dx, dy, magnitude, cell_mean;
    cv::Sobel(grey, dx, CV_32F, 1, 0, 3, 1.0 / 8.0, 0.0, cv::BORDER_REFLECT);
    cv::Sobel(grey, dy, CV_32F, 0, 1, 3, 1.0 / 8.0, 0.0, cv::BORDER_REFLECT);
    cv::magnitude(dx, dy, magnitude);
    cv::resize(magnitude, cell_mean, grid, 0, 0, cv::INTER_AREA);
    pixel_channels.push_back(cell_mean);
  }
  for (int w : s.texture_windows) {
    cv::Mat mean, mean_sq, variance, deviation, cell_mean;
    cv::boxFilter(grey, mean, CV_32F, cv::Size(w, w), cv::Point(-1, -1), true, cv::BORDER_REFLECT);
    cv::boxFilter(grey.mul(grey), mean_sq, CV_32F, cv::Size(w, w), cv::Point(-1, -1), true, cv::BORDER_REFLECT);
    variance = mean_sq - mean.mul(mean);
    cv::max(variance, 0.0, variance);  // rounding can make E[x^2] - E[x]^2 slightly negative
    cv::sqrt(variance, deviation);
    cv::resize(deviation, cell_mean, grid, 0, 0, cv::INTER_AREA);
    pixel_channels.push_back(cell_mean);
  }

  RawFeatures raw;
  raw.rows = rows;
  raw.cols = cols;
  raw.names = rawFeatureNames(s);
  const std::size_t n = raw.names.size();
  raw.values.assign(static_cast<std::size_t>(rows) * cols * n, 0.0f);
  std::size_t next = 0;  // feature index being filled
  auto put = [&](const cv::Mat& channel) {  // CV_32FC1 rows x cols
    for (int r = 0; r < rows; ++r) {
      const float* in = channel.ptr<float>(r);
      for (int c = 0; c < cols; ++c) raw.values[(static_cast<std::size_t>(r) * cols + c) * n + next] = in[c];
    }
    ++next;
  };
  auto blur = [&](const cv::Mat& in, double sigma) {
    if (sigma <= 0.0) return in;
    cv::Mat out;
    const double sigma_cells = sigma / k;  // sigmas are in pixels, the grid in cells
    cv::GaussianBlur(in, out, cv::Size(0, 0), sigma_cells, sigma_cells, cv::BORDER_REFLECT);
    return out;
  };

  for (double sigma : s.blur_sigmas) {
    const cv::Mat colour = blur(cells, sigma);
    std::vector<cv::Mat> bgr_planes;
    cv::split(colour, bgr_planes);
    if (s.rgb) {
      put(bgr_planes[2]);
      put(bgr_planes[1]);
      put(bgr_planes[0]);
    }
    if (s.hsv) {
      cv::Mat hsv;
      cv::cvtColor(colour, hsv, cv::COLOR_BGR2HSV);  // float: H in [0, 360), S and V in [0, 1]
      std::vector<cv::Mat> planes;
      cv::split(hsv, planes);
      cv::Mat hue_x(grid, CV_32F), hue_y(grid, CV_32F);
      for (int r = 0; r < rows; ++r) {
        const float* h = planes[0].ptr<float>(r);
        const float* sat = planes[1].ptr<float>(r);
        for (int c = 0; c < cols; ++c) {
          const double angle = h[c] * (kPi / 180.0);
          hue_x.at<float>(r, c) = static_cast<float>(sat[c] * std::cos(angle));
          hue_y.at<float>(r, c) = static_cast<float>(sat[c] * std::sin(angle));
        }
      }
      put(hue_x);
      put(hue_y);
      put(planes[1]);
      put(planes[2]);
    }
    if (s.lab) {
      cv::Mat lab;
      cv::cvtColor(colour, lab, cv::COLOR_BGR2Lab);  // float: L in [0, 100], a and b about [-127, 127]
      std::vector<cv::Mat> planes;
      cv::split(lab, planes);
      for (const cv::Mat& p : planes) put(p);
    }
    for (const cv::Mat& channel : pixel_channels) put(blur(channel, sigma));
  }
  if (next != n) throw Error("features: internal error, filled " + std::to_string(next) + " of " + std::to_string(n));
  return raw;
}

FeatureScaling FeatureScaling::fit(const std::vector<const RawFeatures*>& images, double quantile) {
  if (images.empty()) throw InvalidArgument("feature scaling: no images to fit on");
  if (!(quantile >= 0.0 && quantile < 0.5)) throw InvalidArgument("feature scaling: quantile must lie in [0, 0.5)");
  const std::size_t n = images.front()->names.size();
  std::size_t cells = 0;
  for (const RawFeatures* image : images) {
    if (image->names != images.front()->names) {
      throw InvalidArgument("feature scaling: the images were computed with different feature settings");
    }
    cells += image->values.size() / std::max<std::size_t>(1, n);
  }
  FeatureScaling scaling;
  scaling.lower.resize(n);
  scaling.upper.resize(n);
  std::vector<float> column(cells);
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i = 0;
    for (const RawFeatures* image : images) {
      for (std::size_t s = 0; s * n < image->values.size(); ++s) column[i++] = image->values[s * n + k];
    }
    const std::size_t lo = static_cast<std::size_t>(std::floor(quantile * static_cast<double>(cells - 1)));
    const std::size_t hi = cells - 1 - lo;
    std::nth_element(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(lo), column.end());
    scaling.lower[k] = column[lo];
    std::nth_element(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(hi), column.end());
    scaling.upper[k] = column[hi];
  }
  return scaling;
}

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
  const double reach = static_cast<double>((pixels + k - 1) / k) + blur + context;
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

// ---- model storage --------------------------------------------------------------------------

template <class T>
static std::string joinList(const std::vector<T>& values) {
  std::ostringstream out;
  out.precision(17);
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
  return out.str();
}

void FeatureStack::store(Model& model) const {
  auto& m = model.settings;
  m["features.cell_size"] = std::to_string(settings_.cell_size);
  m["features.blur_sigmas"] = joinList(settings_.blur_sigmas);
  m["features.rgb"] = settings_.rgb ? "1" : "0";
  m["features.hsv"] = settings_.hsv ? "1" : "0";
  m["features.lab"] = settings_.lab ? "1" : "0";
  m["features.gradient"] = settings_.gradient ? "1" : "0";
  m["features.texture_windows"] = joinList(settings_.texture_windows);
  m["features.complements"] = settings_.complements ? "1" : "0";
  m["features.bins"] = std::to_string(settings_.bins);
  m["features.scaling_quantile"] = joinList(std::vector<double>{settings_.scaling_quantile});
  model.arrays["features.lower"] = scaling_.lower;
  model.arrays["features.upper"] = scaling_.upper;
  if (const ClassScores* layer = classScores()) {
    std::string classes;
    for (const std::string& c : layer->classes) classes += (classes.empty() ? "" : "\n") + c;
    m["features.class_scores"] = classes;
    m["features.class_context_px"] = joinList(layer->context_px);
    std::vector<double>& w = model.arrays["features.class_weights"];
    w.clear();
    for (Eigen::Index c = 0; c < layer->weights.rows(); ++c) {
      for (Eigen::Index j = 0; j < layer->weights.cols(); ++j) w.push_back(layer->weights(c, j));
    }
    model.arrays["features.class_lower"] = layer->scaling.lower;
    model.arrays["features.class_upper"] = layer->scaling.upper;
  }
  model.feature_names = names_;
}

namespace {

const std::string& setting(const Model& model, const std::string& key) {
  const auto it = model.settings.find(key);
  if (it == model.settings.end()) {
    throw DataError("model: setting '" + key + "' is missing; the model was not written by mmp train (re-train it)");
  }
  return it->second;
}

std::vector<double> numbers(const Model& model, const std::string& key) {
  const std::string& text = setting(model, key);
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    double x = 0.0;
    try {
      x = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size()) throw DataError("model: setting '" + key + "' = '" + text + "' is not a list of numbers");
    out.push_back(x);
  }
  return out;
}

// One integer in [min, max] (checked before any cast: a stored 1e300 must not reach static_cast<int>).
int integer(const Model& model, const std::string& key, double min, double max) {
  const std::vector<double> x = numbers(model, key);
  if (x.size() != 1 || x[0] != std::floor(x[0]) || !(x[0] >= min && x[0] <= max)) {
    std::ostringstream range;
    range << "model: setting '" << key << "' = '" << setting(model, key) << "' must be one integer in [" << min << ", "
          << max << "] (re-train the model)";
    throw DataError(range.str());
  }
  return static_cast<int>(x[0]);
}

bool flag(const Model& model, const std::string& key) {
  const std::string& text = setting(model, key);
  if (text != "0" && text != "1") throw DataError("model: setting '" + key + "' = '" + text + "' must be 0 or 1");
  return text == "1";
}

}  // namespace

FeatureStack FeatureStack::fromModel(const Model& model) {
  FeatureSettings s;
  s.cell_size = integer(model, "features.cell_size", 1, 1 << 16);
  s.blur_sigmas = numbers(model, "features.blur_sigmas");
  s.rgb = flag(model, "features.rgb");
  s.hsv = flag(model, "features.hsv");
  s.lab = flag(model, "features.lab");
  s.gradient = flag(model, "features.gradient");
  s.texture_windows.clear();
  if (!setting(model, "features.texture_windows").empty()) {
    for (double w : numbers(model, "features.texture_windows")) {
      if (!(w >= 3 && w <= (1 << 16) && w == std::floor(w))) {
        throw DataError("model: setting 'features.texture_windows' holds " + std::to_string(w) +
                        "; windows are odd integers in [3, 65536] (re-train the model)");
      }
      s.texture_windows.push_back(static_cast<int>(w));
    }
  }
  s.complements = flag(model, "features.complements");
  s.bins = integer(model, "features.bins", 0, 64);
  const std::vector<double> quantile = numbers(model, "features.scaling_quantile");
  if (quantile.size() != 1) throw DataError("model: setting 'features.scaling_quantile' must be one number");
  s.scaling_quantile = quantile[0];
  FeatureScaling scaling;
  for (const char* key : {"features.lower", "features.upper"}) {
    if (model.arrays.count(key) == 0) throw DataError(std::string("model: array '") + key + "' is missing (re-train the model)");
  }
  scaling.lower = model.arrays.at("features.lower");
  scaling.upper = model.arrays.at("features.upper");
  FeatureStack stack;
  try {
    stack = FeatureStack(s, scaling);
  } catch (const InvalidArgument& e) {
    throw DataError(std::string("model: the stored feature settings are unusable: ") + e.what());
  }
  if (model.settings.count("features.class_scores") != 0) {
    ClassScores layer;
    std::stringstream names(model.settings.at("features.class_scores"));
    for (std::string c; std::getline(names, c, '\n');) layer.classes.push_back(c);
    const Eigen::Index k = static_cast<Eigen::Index>(layer.classes.size());
    for (const char* key : {"features.class_weights", "features.class_lower", "features.class_upper"}) {
      if (model.arrays.count(key) == 0) throw DataError(std::string("model: array '") + key + "' is missing (re-train the model)");
    }
    if (model.settings.count("features.class_context_px") != 0 && !model.settings.at("features.class_context_px").empty()) {
      layer.context_px = numbers(model, "features.class_context_px");
    }
    const std::vector<double>& w = model.arrays.at("features.class_weights");
    layer.scaling.lower = model.arrays.at("features.class_lower");
    layer.scaling.upper = model.arrays.at("features.class_upper");
    const std::size_t entries = static_cast<std::size_t>(k) * (1 + layer.context_px.size());
    if (k < 2 || w.size() != static_cast<std::size_t>(k) * static_cast<std::size_t>(stack.features()) ||
        layer.scaling.lower.size() != entries || layer.scaling.upper.size() != entries) {
      throw DataError("model: the class-score layer (" + std::to_string(k) + " classes, " + std::to_string(w.size()) +
                      " weights, " + std::to_string(layer.scaling.lower.size()) + " scaling entries) does not fit " +
                      std::to_string(stack.features()) + " stacked features; re-train the model");
    }
    layer.weights = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        w.data(), k, stack.features());
    for (double r : layer.context_px) {
      if (!(r >= s.cell_size) || !std::isfinite(r)) {
        throw DataError("model: setting 'features.class_context_px' holds " + std::to_string(r) +
                        "; each radius is a finite number of pixels >= the cell size");
      }
    }
    for (std::size_t k = 0; k < entries; ++k) {
      if (!(layer.scaling.lower[k] <= layer.scaling.upper[k])) {
        throw DataError("model: the class-score scaling entry " + std::to_string(k) + " is not a range lower <= upper");
      }
    }
    stack.class_scores_ = std::move(layer);
    stack.describeLayout();
  }
  if (!model.feature_names.empty() && model.feature_names != stack.names()) {
    throw DataError("model: its feature names differ from those of its stored feature settings; it was written by "
                    "another version of mmp (re-train it)");
  }
  if (model.weights.size() != stack.features()) {
    throw DataError("model: " + std::to_string(model.weights.size()) + " weights for " +
                    std::to_string(stack.features()) + " features of its stored feature settings");
  }
  return stack;
}

}  // namespace mmp
