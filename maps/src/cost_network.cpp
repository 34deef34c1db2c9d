#include <mmp/maps/cost_network.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace mmp {
namespace {

constexpr const char* kPrefix = "network.";

std::string layerName(std::size_t member, std::size_t layer) {
  return std::string(kPrefix) + "m" + std::to_string(member) + ".l" + std::to_string(layer);
}

// out = layer(in) on a rows x cols grid, plane-major, zero padding.  Each output starts at its bias
// and adds input channel by input channel, tap row by tap row, tap column by tap column: one order for
// every cell, so a tile's cells equal the whole grid's wherever their taps see the same inputs.
void convolve(const ConvLayer& layer, const std::vector<float>& in, int rows, int cols, std::vector<float>& out) {
  const std::size_t plane = static_cast<std::size_t>(rows) * cols;
  out.assign(plane * layer.out, 0.0f);
  const int k = layer.kernel, half = k / 2;
  for (int y = 0; y < rows; ++y) {
    for (int o = 0; o < layer.out; ++o) {
      float* dst = out.data() + o * plane + static_cast<std::size_t>(y) * cols;
      std::fill(dst, dst + cols, layer.bias[static_cast<std::size_t>(o)]);
      for (int i = 0; i < layer.in; ++i) {
        const float* src = in.data() + i * plane;
        const float* w = layer.weights.data() + (static_cast<std::size_t>(o) * layer.in + i) * k * k;
        for (int ky = 0; ky < k; ++ky) {
          const int sy = y + (ky - half) * layer.dilation;
          if (sy < 0 || sy >= rows) continue;
          const float* row = src + static_cast<std::size_t>(sy) * cols;
          for (int kx = 0; kx < k; ++kx) {
            const int dx = (kx - half) * layer.dilation;
            const float weight = w[ky * k + kx];
            const int x0 = std::max(0, -dx), x1 = std::min(cols, cols - dx);
            for (int x = x0; x < x1; ++x) dst[x] += weight * row[x + dx];
          }
        }
      }
      if (layer.relu) {
        for (int x = 0; x < cols; ++x) dst[x] = std::max(dst[x], 0.0f);
      }
    }
  }
}

std::string joined(const std::vector<int>& values) {
  std::string text;
  for (int v : values) text += (text.empty() ? "" : " ") + std::to_string(v);
  return text;
}

}  // namespace

void ColourSums::add(const cv::Mat& bgr, const cv::Mat& valid) {
  if (bgr.type() != CV_8UC3) throw InvalidArgument("colour statistics: the image must be 8-bit BGR (see loadImage)");
  if (!valid.empty() && (valid.size != bgr.size || valid.type() != CV_8UC1)) {
    throw InvalidArgument("colour statistics: the valid mask must be CV_8UC1 of the image's size");
  }
  for (int r = 0; r < bgr.rows; ++r) {
    const cv::Vec3b* row = bgr.ptr<cv::Vec3b>(r);
    const std::uint8_t* ok = valid.empty() ? nullptr : valid.ptr<std::uint8_t>(r);
    for (int c = 0; c < bgr.cols; ++c) {
      if (ok != nullptr && ok[c] == 0) continue;
      for (int ch = 0; ch < 3; ++ch) {
        const double v = row[c][2 - ch];  // R, G, B
        sum[static_cast<std::size_t>(ch)] += v;
        squares[static_cast<std::size_t>(ch)] += v * v;
      }
      count += 1.0;
    }
  }
}

ColourStatistics ColourSums::statistics() const {
  if (count == 0.0) throw InvalidArgument("colour statistics: the image has no pixel with data");
  ColourStatistics s;
  for (std::size_t ch = 0; ch < 3; ++ch) {
    s.mean[ch] = sum[ch] / count;
    s.spread[ch] = std::max(1.0, std::sqrt(std::max(0.0, squares[ch] / count - s.mean[ch] * s.mean[ch])));
  }
  return s;
}

ColourStatistics colourStatistics(const cv::Mat& bgr, const cv::Mat& valid) {
  ColourSums sums;
  sums.add(bgr, valid);
  return sums.statistics();
}

void NetworkShape::validate() const {
  auto fail = [](const std::string& key, const std::string& value, const std::string& valid) {
    throw InvalidArgument(std::string(kPrefix) + key + " = " + value + " is out of range: use " + valid);
  };
  if (channels < 1 || channels > 256) fail("channels", std::to_string(channels), "1 to 256");
  if (dilations.empty() || dilations.size() > 12) fail("dilations", "[" + joined(dilations) + "]", "1 to 12 layers");
  for (int d : dilations) {
    if (d < 1 || d > 64) fail("dilations", "[" + joined(dilations) + "]", "dilations from 1 to 64");
  }
  if (members < 1 || members > 16) fail("members", std::to_string(members), "1 to 16");
  if (!(kappa >= 0.0 && kappa <= 10.0)) fail("kappa", numberText(kappa), "0 to 10");
  if (classes < 0 || classes > 64) fail("classes", std::to_string(classes), "0 (a cost network) to 64");
  if (classes > 0 && (preferred < 0 || preferred >= classes)) fail("preferred", std::to_string(preferred), "0 to classes - 1");
  // log(1 + 1000) < kBound: a segmenter's costs stay inside the bounds a cost network's do.
  if (!(cost_scale > 0.0 && cost_scale <= 1000.0)) fail("cost_scale", numberText(cost_scale), "a number in (0, 1000]");
  if (feature_inputs < 0 || feature_inputs > 1024) fail("feature_inputs", std::to_string(feature_inputs), "0 to 1024");
  if (!(cost_floor >= 0.0 && cost_floor <= 1000.0)) fail("cost_floor", numberText(cost_floor), "a number in [0, 1000]");
  if (cost_floor > 0.0 && classes > 0) fail("cost_floor", numberText(cost_floor), "0 for a segmenter");
}

std::string NetworkShape::describe() const {
  std::ostringstream text;
  text << channels << " channels, dilations " << joined(dilations) << ", "
       << (normalise ? "image-normalised" : "fixed-scale") << " colours, " << members
       << (members == 1 ? " member" : " members");
  if (members > 1) text << ", kappa " << numberText(kappa);
  if (feature_inputs > 0) text << ", " << feature_inputs << " feature inputs";
  if (skip) text << ", inputs skip to the head";
  if (cost_floor > 0.0) text << ", cost floor " << numberText(cost_floor);
  if (classes > 0) text << ", a segmenter of " << classes << " classes, cost 1 + " << numberText(cost_scale) << " (1 - p(class " << preferred << "))";
  return text.str();
}

std::string NetworkShape::formula() const {
  if (classes > 0) return "exp(w . f) (1 + " + numberText(cost_scale) + " (1 - p(class " + std::to_string(preferred) + " | image)))";
  return (cost_floor > 0.0 ? numberText(cost_floor) + " + " : std::string()) + "exp(w . f + network(image))";
}

std::vector<ConvLayer> networkLayers(const NetworkShape& shape) {
  std::vector<ConvLayer> layers;
  int in = shape.inputs();
  auto add = [&](int out, int kernel, int dilation, bool relu) {
    ConvLayer layer;
    layer.in = in;
    layer.out = out;
    layer.kernel = kernel;
    layer.dilation = dilation;
    layer.relu = relu;
    layer.weights.assign(static_cast<std::size_t>(out) * in * kernel * kernel, 0.0f);
    layer.bias.assign(static_cast<std::size_t>(out), 0.0f);
    layers.push_back(std::move(layer));
    in = out;
  };
  for (int d : shape.dilations) add(shape.channels, 3, d, true);
  if (shape.skip) in += shape.inputs();  // the cell's inputs, after the dilated layers' planes
  add(shape.channels, 1, 1, true);
  add(shape.classes > 0 ? shape.classes : 1, 1, 1, false);
  return layers;
}

std::vector<float> networkInputs(const cv::Mat& bgr, int cell_size, const ColourStatistics& colours) {
  if (bgr.type() != CV_8UC3) throw InvalidArgument("network input: the image must be 8-bit BGR (see loadImage)");
  if (cell_size < 1) throw InvalidArgument("network input: cell_size must be >= 1");
  const int k = cell_size, rows = bgr.rows / k, cols = bgr.cols / k;
  const std::size_t plane = static_cast<std::size_t>(rows) * cols;
  std::vector<float> out(plane * NetworkShape::kColourInputs);
  const double n = static_cast<double>(k) * k;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      std::array<double, 3> sum{}, squares{};
      for (int y = r * k; y < (r + 1) * k; ++y) {
        const cv::Vec3b* row = bgr.ptr<cv::Vec3b>(y);
        for (int x = c * k; x < (c + 1) * k; ++x) {
          for (int ch = 0; ch < 3; ++ch) {
            const double v = row[x][2 - ch];
            sum[static_cast<std::size_t>(ch)] += v;
            squares[static_cast<std::size_t>(ch)] += v * v;
          }
        }
      }
      const std::size_t s = static_cast<std::size_t>(r) * cols + c;
      for (std::size_t ch = 0; ch < 3; ++ch) {
        const double mean = sum[ch] / n;
        const double spread = std::sqrt(std::max(0.0, squares[ch] / n - mean * mean));
        out[ch * plane + s] = static_cast<float>((mean - colours.mean[ch]) / colours.spread[ch]);
        out[(3 + ch) * plane + s] = static_cast<float>(spread / colours.spread[ch]);
      }
    }
  }
  return out;
}

void appendFeatureInputs(const FeatureMap& map, std::vector<float>& inputs) {
  if (!map.coded()) throw InvalidArgument("network input: feature inputs come from a coded feature map (feature_stack.hpp)");
  const std::size_t plane = static_cast<std::size_t>(map.cells()), channels = static_cast<std::size_t>(map.channels());
  const std::vector<std::uint8_t>& codes = map.codes();
  std::size_t at = inputs.size();
  inputs.resize(at + plane * channels);
  for (std::size_t j = 0; j < channels; ++j) {
    for (std::size_t s = 0; s < plane; ++s) inputs[at++] = static_cast<float>(codes[s * channels + j]) / 255.0f;
  }
}

CostNetwork::CostNetwork(NetworkShape shape, std::vector<std::vector<ConvLayer>> members)
    : shape_(std::move(shape)), members_(std::move(members)) {
  shape_.validate();
  if (members_.size() != static_cast<std::size_t>(shape_.members)) {
    throw InvalidArgument("network: " + std::to_string(members_.size()) + " members for network.members = " +
                          std::to_string(shape_.members));
  }
  const std::vector<ConvLayer> expected = networkLayers(shape_);
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (members_[m].size() != expected.size()) {
      throw InvalidArgument("network: member " + std::to_string(m) + " has " + std::to_string(members_[m].size()) +
                            " layers, its shape " + std::to_string(expected.size()));
    }
    for (std::size_t l = 0; l < expected.size(); ++l) {
      const ConvLayer& a = members_[m][l];
      const ConvLayer& e = expected[l];
      const std::string name = layerName(m, l);
      if (a.in != e.in || a.out != e.out || a.kernel != e.kernel || a.dilation != e.dilation || a.relu != e.relu ||
          a.weights.size() != e.weights.size() || a.bias.size() != e.bias.size()) {
        throw InvalidArgument(name + ": a " + std::to_string(a.kernel) + "x" + std::to_string(a.kernel) + " layer " +
                              std::to_string(a.in) + " -> " + std::to_string(a.out) + " where the shape has " +
                              std::to_string(e.kernel) + "x" + std::to_string(e.kernel) + " " + std::to_string(e.in) +
                              " -> " + std::to_string(e.out));
      }
      for (const std::vector<float>* values : {&a.weights, &a.bias}) {
        for (std::size_t i = 0; i < values->size(); ++i) {
          if (!std::isfinite((*values)[i])) {
            throw InvalidArgument(name + (values == &a.bias ? ".bias" : ".weights") + "[" + std::to_string(i) +
                                  "] is not finite");
          }
        }
      }
    }
  }
}

double CostNetwork::memberLogCost(const std::vector<float>& output, std::size_t plane, std::size_t s) const {
  if (shape_.classes == 0) return NetworkShape::kBound * std::tanh(static_cast<double>(output[s]) / NetworkShape::kBound);
  double highest = -std::numeric_limits<double>::infinity();
  for (int c = 0; c < shape_.classes; ++c) highest = std::max(highest, static_cast<double>(output[c * plane + s]));
  double sum = 0.0;
  for (int c = 0; c < shape_.classes; ++c) sum += std::exp(output[c * plane + s] - highest);
  const double p = std::exp(output[static_cast<std::size_t>(shape_.preferred) * plane + s] - highest) / sum;
  return std::log1p(shape_.cost_scale * (1.0 - p));
}

int CostNetwork::reachCells() const {
  int reach = 0;
  for (int d : shape_.dilations) reach += d;
  return empty() ? 0 : reach;
}

void CostNetwork::logCosts(const std::vector<float>& inputs, int rows, int cols, std::vector<double>& out) const {
  const std::size_t plane = static_cast<std::size_t>(rows) * cols;
  if (inputs.size() != plane * static_cast<std::size_t>(shape_.inputs())) {
    throw InvalidArgument("network: " + std::to_string(inputs.size()) + " input values for " + std::to_string(rows) +
                          " x " + std::to_string(cols) + " cells of " + std::to_string(shape_.inputs()) + " planes");
  }
  out.assign(plane, 0.0);
  std::vector<double> squares(plane, 0.0);
  std::vector<float> a, b;
  const std::size_t head = shape_.dilations.size();  // the first 1 x 1 layer
  for (const std::vector<ConvLayer>& member : members_) {
    const std::vector<float>* x = &inputs;
    for (std::size_t l = 0; l < member.size(); ++l) {
      const ConvLayer& layer = member[l];
      if (l == head && shape_.skip) {  // the dilated layers' planes, then the inputs'
        b.insert(b.end(), inputs.begin(), inputs.end());
        x = &b;
      }
      convolve(layer, *x, rows, cols, a);
      a.swap(b);
      x = &b;
    }
    for (std::size_t s = 0; s < plane; ++s) {
      const double l = memberLogCost(*x, plane, s);
      out[s] += l;
      squares[s] += l * l;
    }
  }
  const double k = static_cast<double>(members_.size());
  for (std::size_t s = 0; s < plane; ++s) {
    const double mean = out[s] / k;
    out[s] = mean + shape_.kappa * std::sqrt(std::max(0.0, squares[s] / k - mean * mean));
  }
}

void CostNetwork::store(Model& model) const {
  if (empty()) return;
  model.settings["network.channels"] = std::to_string(shape_.channels);
  model.settings["network.dilations"] = joined(shape_.dilations);
  model.settings["network.normalise"] = shape_.normalise ? "true" : "false";
  model.settings["network.members"] = std::to_string(shape_.members);
  model.settings["network.kappa"] = numberText(shape_.kappa);
  if (shape_.classes > 0) {
    model.settings["network.classes"] = std::to_string(shape_.classes);
    model.settings["network.preferred"] = std::to_string(shape_.preferred);
    model.settings["network.cost_scale"] = exactNumberText(shape_.cost_scale);
  }
  if (shape_.feature_inputs > 0) model.settings["network.feature_inputs"] = std::to_string(shape_.feature_inputs);
  if (shape_.skip) model.settings["network.skip"] = "true";
  if (shape_.cost_floor > 0.0) model.settings["network.cost_floor"] = exactNumberText(shape_.cost_floor);
  for (std::size_t m = 0; m < members_.size(); ++m) {
    for (std::size_t l = 0; l < members_[m].size(); ++l) {
      const ConvLayer& layer = members_[m][l];
      model.arrays[layerName(m, l) + ".weights"] = std::vector<double>(layer.weights.begin(), layer.weights.end());
      model.arrays[layerName(m, l) + ".bias"] = std::vector<double>(layer.bias.begin(), layer.bias.end());
    }
  }
}

CostNetwork CostNetwork::fromModel(const Model& model) {
  if (model.settings.count("network.channels") == 0) return {};
  auto setting = [&](const std::string& key) -> const std::string& {
    const auto it = model.settings.find(key);
    if (it == model.settings.end()) throw DataError("setting '" + key + "' is missing (a network model needs it)");
    return it->second;
  };
  auto integer = [&](const std::string& key, const std::string& text) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) throw DataError("setting '" + key + "' = '" + text + "' is not an integer");
    return v;
  };
  NetworkShape shape;
  shape.channels = integer("network.channels", setting("network.channels"));
  shape.dilations.clear();
  std::istringstream dilations(setting("network.dilations"));
  for (std::string word; dilations >> word;) shape.dilations.push_back(integer("network.dilations", word));
  auto boolean = [&](const std::string& key) {
    const std::string& text = setting(key);
    if (text != "true" && text != "false") throw DataError("setting '" + key + "' = '" + text + "' must be true or false");
    return text == "true";
  };
  shape.normalise = boolean("network.normalise");
  if (model.settings.count("network.skip") != 0) shape.skip = boolean("network.skip");
  shape.members = integer("network.members", setting("network.members"));
  auto number = [&](const std::string& key) {
    const std::string& text = setting(key);
    if (const std::optional<double> v = numberFromText(text)) return *v;
    throw DataError("setting '" + key + "' = '" + text + "' is not a number");
  };
  shape.kappa = number("network.kappa");
  if (model.settings.count("network.classes") != 0) {
    shape.classes = integer("network.classes", setting("network.classes"));
    shape.preferred = integer("network.preferred", setting("network.preferred"));
    shape.cost_scale = number("network.cost_scale");
  }
  if (model.settings.count("network.feature_inputs") != 0) {
    shape.feature_inputs = integer("network.feature_inputs", setting("network.feature_inputs"));
  }
  if (model.settings.count("network.cost_floor") != 0) shape.cost_floor = number("network.cost_floor");
  try {
    shape.validate();
  } catch (const InvalidArgument& e) {
    throw DataError(e.what());
  }
  std::vector<std::vector<ConvLayer>> members;
  for (std::size_t m = 0; m < static_cast<std::size_t>(shape.members); ++m) {
    std::vector<ConvLayer> layers = networkLayers(shape);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      for (const char* part : {".weights", ".bias"}) {
        const std::string name = layerName(m, l) + part;
        const auto it = model.arrays.find(name);
        std::vector<float>& values = std::string(part) == ".bias" ? layers[l].bias : layers[l].weights;
        if (it == model.arrays.end()) throw DataError("array '" + name + "' is missing");
        if (it->second.size() != values.size()) {
          throw DataError("array '" + name + "' has " + std::to_string(it->second.size()) + " values; the shape needs " +
                          std::to_string(values.size()));
        }
        std::transform(it->second.begin(), it->second.end(), values.begin(), [](double v) { return static_cast<float>(v); });
      }
    }
    members.push_back(std::move(layers));
  }
  try {
    return CostNetwork(shape, std::move(members));
  } catch (const InvalidArgument& e) {
    throw DataError(e.what());
  }
}

}  // namespace mmp
