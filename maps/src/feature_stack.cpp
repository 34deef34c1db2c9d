#include <mmp/maps/feature_stack.hpp>

#include <mmp/core/error.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <limits>
#include <cmath>
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
  if (s.words < 0 || s.words > 256) throw InvalidArgument("features: words must lie in [0, 256], got " + std::to_string(s.words));
  if (s.words > 0 && s.word_contexts.empty()) {
    throw InvalidArgument("features: word_contexts must list at least one sigma (0 = the cell's own word)");
  }
  for (double sigma : s.word_contexts) {
    if (!(sigma >= 0.0) || !std::isfinite(sigma)) {
      throw InvalidArgument("features: word context sigma " + std::to_string(sigma) + " is not a finite number >= 0");
    }
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

RawFeatures computeRawFeatures(const cv::Mat& bgr, const FeatureSettings& s) {
  validate(s);
  if (bgr.type() != CV_8UC3) throw InvalidArgument("features: the image must be 8-bit BGR (see loadImage)");
  const int k = s.cell_size;
  const int rows = bgr.rows / k, cols = bgr.cols / k;
  if (rows < 1 || cols < 1) {
    throw InvalidArgument("features: a " + std::to_string(bgr.cols) + " x " + std::to_string(bgr.rows) +
                          " image holds no whole cell of " + std::to_string(k) + " pixels");
  }
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

static std::vector<std::string> stackNames(const FeatureSettings& settings) {
  const std::vector<std::string> raw = rawFeatureNames(settings);
  std::vector<std::string> names{"bias"};
  if (settings.bins >= 2) {
    for (const std::string& r : raw) {
      for (int b = 0; b < settings.bins; ++b) names.push_back(r + "#" + std::to_string(b));
    }
  } else {
    names.insert(names.end(), raw.begin(), raw.end());
    if (settings.complements) {
      for (const std::string& r : raw) names.push_back("1-" + r);
    }
  }
  if (settings.words > 0) {
    for (double sigma : settings.word_contexts) {
      for (int w = 0; w < settings.words; ++w) names.push_back("word" + std::to_string(w) + sigmaTag(sigma));
    }
  }
  return names;
}

namespace {

/// Per raw feature, f = clamp((v - offset) * factor, 0, 1).
struct Scaler {
  std::vector<double> offset, factor;
  explicit Scaler(const FeatureScaling& scaling) {
    for (std::size_t k = 0; k < scaling.lower.size(); ++k) {
      const double span = scaling.upper[k] - scaling.lower[k];
      offset.push_back(scaling.lower[k]);
      factor.push_back(span > 0.0 ? 1.0 / span : 0.0);  // a constant feature carries no information: 0
    }
  }
  void operator()(const float* in, double* out) const {
    for (std::size_t k = 0; k < offset.size(); ++k) out[k] = std::clamp((in[k] - offset[k]) * factor[k], 0.0, 1.0);
  }
};

/// k-means centres (words x features, row-major) of the scaled features of at most kWordSample cells
/// spread evenly over the training images; OpenCV's k-means++ with a fixed seed, so fits repeat.
std::vector<double> fitWords(int words, const FeatureScaling& scaling, const std::vector<const RawFeatures*>& training) {
  constexpr std::size_t kWordSample = 60000;
  const Scaler scale(scaling);
  const std::size_t n = scaling.lower.size();
  std::size_t cells = 0;
  for (const RawFeatures* raw : training) cells += static_cast<std::size_t>(raw->rows) * raw->cols;
  const std::size_t stride = std::max<std::size_t>(1, (cells + kWordSample - 1) / kWordSample);
  std::vector<double> scaled(n);
  cv::Mat sample(0, static_cast<int>(n), CV_32F);
  std::size_t index = 0;
  for (const RawFeatures* raw : training) {
    const std::size_t image_cells = static_cast<std::size_t>(raw->rows) * raw->cols;
    for (std::size_t s = 0; s < image_cells; ++s, ++index) {
      if (index % stride != 0) continue;
      scale(raw->values.data() + s * n, scaled.data());
      cv::Mat row(1, static_cast<int>(n), CV_32F);
      for (std::size_t k = 0; k < n; ++k) row.at<float>(0, static_cast<int>(k)) = static_cast<float>(scaled[k]);
      sample.push_back(row);
    }
  }
  if (sample.rows < words) {
    throw InvalidArgument("features: " + std::to_string(words) + " words need at least as many training cells, got " +
                          std::to_string(sample.rows));
  }
  cv::Mat labels, centres;
  cv::theRNG() = cv::RNG(0x6d6d70);
  cv::kmeans(sample, words, labels, cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-4), 3,
             cv::KMEANS_PP_CENTERS, centres);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(words) * n);
  for (int w = 0; w < words; ++w) {
    for (std::size_t k = 0; k < n; ++k) out.push_back(centres.at<float>(w, static_cast<int>(k)));
  }
  return out;
}

}  // namespace

FeatureStack::FeatureStack(FeatureSettings settings, FeatureScaling scaling, std::vector<double> word_centres)
    : settings_(std::move(settings)), scaling_(std::move(scaling)), word_centres_(std::move(word_centres)) {
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
  if (word_centres_.size() != static_cast<std::size_t>(settings_.words) * n) {
    throw InvalidArgument("feature stack: " + std::to_string(word_centres_.size()) + " word centre values for " +
                          std::to_string(settings_.words) + " words of " + std::to_string(n) + " raw features");
  }
  for (double x : word_centres_) {
    if (!std::isfinite(x)) throw InvalidArgument("feature stack: a word centre value is not finite");
  }
  names_ = stackNames(settings_);
}

FeatureStack FeatureStack::fit(const FeatureSettings& settings, const std::vector<const RawFeatures*>& training) {
  validate(settings);
  const std::vector<std::string> expected = rawFeatureNames(settings);
  for (const RawFeatures* raw : training) {
    if (raw->names != expected) throw InvalidArgument("feature stack: training features were computed with other settings");
  }
  FeatureScaling scaling = FeatureScaling::fit(training, settings.scaling_quantile);
  std::vector<double> centres;
  if (settings.words > 0) centres = fitWords(settings.words, scaling, training);
  return FeatureStack(settings, std::move(scaling), std::move(centres));
}

int FeatureStack::nearestWord(const double* scaled) const {
  const std::size_t n = scaling_.lower.size();
  int best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int w = 0; w < settings_.words; ++w) {
    const double* centre = word_centres_.data() + static_cast<std::size_t>(w) * n;
    double distance = 0.0;
    for (std::size_t k = 0; k < n; ++k) distance += (scaled[k] - centre[k]) * (scaled[k] - centre[k]);
    if (distance < best_distance) {
      best_distance = distance;
      best = w;
    }
  }
  return best;
}

FeatureMap FeatureStack::map(const RawFeatures& raw) const {
  if (raw.names != rawFeatureNames(settings_)) {
    throw InvalidArgument("feature stack: the raw features were computed with other settings than the stack's");
  }
  const std::size_t n = raw.names.size();
  const std::size_t d = names_.size();
  const std::size_t cells = static_cast<std::size_t>(raw.rows) * raw.cols;
  std::vector<float> values(cells * d);
  const Scaler scale(scaling_);
  const int bins = settings_.bins;
  const int words = settings_.words;
  const std::size_t first_word = d - static_cast<std::size_t>(words) * settings_.word_contexts.size();
  cv::Mat word_of(raw.rows, raw.cols, CV_32S);
  std::vector<double> v(n);
  for (std::size_t s = 0; s < cells; ++s) {
    scale(raw.values.data() + s * n, v.data());
    float* out = values.data() + s * d;
    out[kBiasIndex] = 1.0f;
    if (words > 0) word_of.ptr<int>(0)[s] = nearestWord(v.data());
    for (std::size_t k = 0; k < n; ++k) {
      if (bins >= 2) {
        // Triangular memberships at the knots b / (bins - 1): at most two are non-zero, summing to 1.
        float* bin = out + 1 + k * static_cast<std::size_t>(bins);
        const double position = v[k] * (bins - 1);
        const int lower = std::min(bins - 2, static_cast<int>(position));
        const double upper_share = position - lower;
        bin[lower] = static_cast<float>(1.0 - upper_share);
        bin[lower + 1] = static_cast<float>(upper_share);
        continue;
      }
      out[1 + k] = static_cast<float>(v[k]);
      if (settings_.complements) out[1 + n + k] = static_cast<float>(1.0 - v[k]);
    }
  }
  // Word shares: the one-hot map of each word, blurred at each context sigma (in cells).
  std::size_t column = first_word;
  for (double sigma : settings_.word_contexts) {
    const double sigma_cells = sigma / settings_.cell_size;
    for (int w = 0; w < words; ++w, ++column) {
      cv::Mat share = word_of == w;  // CV_8U, 255 where the word is w
      share.convertTo(share, CV_32F, 1.0 / 255.0);
      if (sigma_cells > 0.0) cv::GaussianBlur(share, share, cv::Size(0, 0), sigma_cells, sigma_cells, cv::BORDER_REFLECT);
      const float* in = share.ptr<float>(0);  // continuous: freshly allocated
      for (std::size_t s = 0; s < cells; ++s) values[s * d + column] = std::clamp(in[s], 0.0f, 1.0f);
    }
  }
  return FeatureMap(raw.rows, raw.cols, static_cast<int>(d), std::move(values), names_);
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
  m["features.words"] = std::to_string(settings_.words);
  m["features.word_contexts"] = joinList(settings_.word_contexts);
  model.arrays["features.word_centres"] = word_centres_;
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

bool flag(const Model& model, const std::string& key) {
  const std::string& text = setting(model, key);
  if (text != "0" && text != "1") throw DataError("model: setting '" + key + "' = '" + text + "' must be 0 or 1");
  return text == "1";
}

}  // namespace

FeatureStack FeatureStack::fromModel(const Model& model) {
  FeatureSettings s;
  const std::vector<double> cell = numbers(model, "features.cell_size");
  if (cell.size() != 1 || cell[0] != std::floor(cell[0])) throw DataError("model: setting 'features.cell_size' must be one integer");
  s.cell_size = static_cast<int>(cell[0]);
  s.blur_sigmas = numbers(model, "features.blur_sigmas");
  s.rgb = flag(model, "features.rgb");
  s.hsv = flag(model, "features.hsv");
  s.lab = flag(model, "features.lab");
  s.gradient = flag(model, "features.gradient");
  s.texture_windows.clear();
  if (!setting(model, "features.texture_windows").empty()) {
    for (double w : numbers(model, "features.texture_windows")) s.texture_windows.push_back(static_cast<int>(w));
  }
  s.complements = flag(model, "features.complements");
  const std::vector<double> bins = numbers(model, "features.bins");
  if (bins.size() != 1 || bins[0] != std::floor(bins[0])) throw DataError("model: setting 'features.bins' must be one integer");
  s.bins = static_cast<int>(bins[0]);
  const std::vector<double> quantile = numbers(model, "features.scaling_quantile");
  if (quantile.size() != 1) throw DataError("model: setting 'features.scaling_quantile' must be one number");
  s.scaling_quantile = quantile[0];
  FeatureScaling scaling;
  for (const char* key : {"features.lower", "features.upper"}) {
    if (model.arrays.count(key) == 0) throw DataError(std::string("model: array '") + key + "' is missing (re-train the model)");
  }
  scaling.lower = model.arrays.at("features.lower");
  scaling.upper = model.arrays.at("features.upper");
  std::vector<double> centres;
  if (model.settings.count("features.words") != 0) {  // models written before words have none
    const std::vector<double> words = numbers(model, "features.words");
    if (words.size() != 1 || words[0] != std::floor(words[0])) throw DataError("model: setting 'features.words' must be one integer");
    s.words = static_cast<int>(words[0]);
    s.word_contexts = numbers(model, "features.word_contexts");
    if (model.arrays.count("features.word_centres") == 0) {
      throw DataError("model: array 'features.word_centres' is missing (re-train the model)");
    }
    centres = model.arrays.at("features.word_centres");
  }
  FeatureStack stack;
  try {
    stack = FeatureStack(s, scaling, centres);
  } catch (const InvalidArgument& e) {
    throw DataError(std::string("model: the stored feature settings are unusable: ") + e.what());
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
