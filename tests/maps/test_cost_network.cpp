#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/core/random.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/cost_network.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <cmath>

using namespace mmp;

namespace {

// A network of the given shape with random weights (scaled so that the outputs spread).
CostNetwork randomNetwork(NetworkShape shape, std::uint64_t seed) {
  Random rng(seed);
  std::vector<std::vector<ConvLayer>> members;
  for (int m = 0; m < shape.members; ++m) {
    std::vector<ConvLayer> layers = networkLayers(shape);
    for (ConvLayer& layer : layers) {
      const double scale = 1.5 / std::sqrt(static_cast<double>(layer.in * layer.kernel * layer.kernel));
      for (float& w : layer.weights) w = static_cast<float>(scale * rng.normal());
      for (float& b : layer.bias) b = static_cast<float>(0.1 * rng.normal());
    }
    members.push_back(std::move(layers));
  }
  return CostNetwork(shape, std::move(members));
}

CostModel networkModel(const cv::Mat& image, const CostNetwork& network, double linear_scale) {
  const CostModel base = test::randomCostModel(image, 4);
  return CostModel(base.features(), linear_scale * base.weights(), network);
}

// The textbook convolution, one output at a time: the reference the fast loop must equal.
std::vector<double> referenceLogCosts(const CostNetwork& network, const std::vector<float>& inputs, int rows, int cols) {
  const std::size_t plane = static_cast<std::size_t>(rows) * cols;
  std::vector<double> sum(plane, 0.0), squares(plane, 0.0);
  for (const std::vector<ConvLayer>& member : network.members()) {
    std::vector<float> x = inputs;
    for (std::size_t l = 0; l < member.size(); ++l) {
      const ConvLayer& layer = member[l];
      if (network.shape().skip && l == network.shape().dilations.size()) x.insert(x.end(), inputs.begin(), inputs.end());
      std::vector<float> y(plane * layer.out);
      const int half = layer.kernel / 2;
      for (int o = 0; o < layer.out; ++o) {
        for (int r = 0; r < rows; ++r) {
          for (int c = 0; c < cols; ++c) {
            float v = layer.bias[static_cast<std::size_t>(o)];
            for (int i = 0; i < layer.in; ++i) {
              for (int ky = 0; ky < layer.kernel; ++ky) {
                for (int kx = 0; kx < layer.kernel; ++kx) {
                  const int rr = r + (ky - half) * layer.dilation, cc = c + (kx - half) * layer.dilation;
                  if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
                  v += layer.weights[((static_cast<std::size_t>(o) * layer.in + i) * layer.kernel + ky) * layer.kernel + kx] *
                       x[i * plane + static_cast<std::size_t>(rr) * cols + cc];
                }
              }
            }
            y[o * plane + static_cast<std::size_t>(r) * cols + c] = layer.relu ? std::max(v, 0.0f) : v;
          }
        }
      }
      x = std::move(y);
    }
    for (std::size_t s = 0; s < plane; ++s) {
      const double l = NetworkShape::kBound * std::tanh(x[s] / NetworkShape::kBound);
      sum[s] += l;
      squares[s] += l * l;
    }
  }
  const double k = static_cast<double>(network.members().size());
  for (std::size_t s = 0; s < plane; ++s) {
    const double mean = sum[s] / k;
    sum[s] = mean + network.shape().kappa * std::sqrt(std::max(0.0, squares[s] / k - mean * mean));
  }
  return sum;
}

}  // namespace

TEST_CASE("a network's log-costs are the textbook convolutions (with and without the skip to the head) bounded and risk-averse with kappa") {
  const cv::Mat image = test::syntheticImage(64, 72, 2);
  for (const bool skip : {false, true}) {
    CAPTURE(skip);
    NetworkShape shape;
    shape.channels = 5;
    shape.dilations = {1, 3};
    shape.members = 3;
    shape.kappa = 0.5;
    shape.skip = skip;
    const CostNetwork network = randomNetwork(shape, 7);
    CHECK(network.members()[0][2].in == 5 + (skip ? NetworkShape::kColourInputs : 0));
    CHECK(network.reachCells() == 4);
    const std::vector<float> inputs = networkInputs(image, 4, colourStatistics(image));
    std::vector<double> fast;
    network.logCosts(inputs, 16, 18, fast);
    const std::vector<double> slow = referenceLogCosts(network, inputs, 16, 18);
    REQUIRE(fast.size() == slow.size());
    double spread = 0.0;
    for (std::size_t s = 0; s < fast.size(); ++s) {
      CHECK(fast[s] == doctest::Approx(slow[s]).epsilon(1e-5));
      CHECK(std::abs(fast[s]) < NetworkShape::kBound * (1.0 + shape.kappa));
      spread = std::max(spread, std::abs(fast[s] - fast[0]));
    }
    CHECK(spread > 0.1);  // the random network is not flat: the comparison means something
  }
}

TEST_CASE("the network's input: colour means and spreads per cell, standardised by the image's statistics") {
  cv::Mat image(8, 8, CV_8UC3, cv::Scalar(10, 20, 30));  // B, G, R
  image(cv::Rect(0, 0, 4, 4)).setTo(cv::Scalar(50, 60, 70));
  image.at<cv::Vec3b>(5, 5) = cv::Vec3b(14, 20, 30);
  const ColourStatistics colours = colourStatistics(image);
  CHECK(colours.mean[0] == doctest::Approx((16 * 70 + 48 * 30) / 64.0));  // R first
  const std::vector<float> x = networkInputs(image, 4, colours);
  REQUIRE(x.size() == 6u * 4u);
  CHECK(x[0] == doctest::Approx((70 - colours.mean[0]) / colours.spread[0]));  // R mean of cell (0, 0)
  CHECK(x[3 * 4 + 0] == doctest::Approx(0.0));                                // R spread of a flat cell
  CHECK(x[5 * 4 + 3] == doctest::Approx(std::sqrt(16.0 * 15.0 / 256.0) / colours.spread[2]));  // B spread of cell (1, 1)
  cv::Mat none(8, 8, CV_8UC1, cv::Scalar(0));
  CHECK_THROWS_AS(colourStatistics(image, none), InvalidArgument);
  CHECK_THROWS_AS(colourStatistics(image, cv::Mat(4, 4, CV_8UC1, cv::Scalar(1))), InvalidArgument);
}

TEST_CASE("a network model's tiles equal the whole image bit for bit, its file round-trips, its rasters stream") {
  const cv::Mat image = test::syntheticImage(250, 330, 3);
  // The network alone (no feature map computed), on a linear part, and reading the stacked features.
  // The last variant also feeds the cell's inputs past the dilated layers to the head.
  for (const std::pair<double, int>& variant : {std::pair{0.0, 0}, std::pair{1.0, 0}, std::pair{0.0, 1}, std::pair{0.0, 2}}) {
    const double linear = variant.first;  // not a structured binding: Clang 14 cannot CAPTURE one
    const bool features = variant.second > 0, skip = variant.second == 2;
    CAPTURE(linear);
    CAPTURE(features);
    CAPTURE(skip);
    NetworkShape shape;
    shape.channels = 4;
    shape.dilations = {1, 2, 4};
    shape.skip = skip;
    if (features) shape.feature_inputs = test::randomCostModel(image, 4).features().channels();
    const CostNetwork network = randomNetwork(shape, 3);
    const CostModel model = networkModel(image, network, linear);
    CHECK(model.needsColourStatistics());
    const int reach = model.features().reachCells();
    CHECK(model.haloCells({}) == (features ? reach + 7 : std::max(reach, 7)));
    TileSettings one;
    one.tile_cells = 1000;
    const CostGrid whole = model.costs(image, one);
    const int least = model.haloCells({});  // the smallest tile
    for (int size : {least, least + 8, 40}) {
      TileSettings tiles;
      tiles.tile_cells = size;
      tiles.threads = 2;
      CAPTURE(size);
      CHECK(model.costs(image, tiles).costs == whole.costs);
    }
    const std::array<double, 2> bounds = model.costBounds();
    for (double c : whole.costs) CHECK((c >= bounds[0] && c <= bounds[1]));

    test::TempDir dir;
    model.save(dir.file("net.mmp"));
    const CostModel loaded = CostModel::load(dir.file("net.mmp"));
    CHECK(loaded.costs(image).costs == whole.costs);
    CHECK(loaded.network().shape().describe() == network.shape().describe());
    CHECK_THROWS_AS(loaded.costs(loaded.features().map(image)), InvalidArgument);  // it needs the image

    // Streamed band by band: the whole image's statistics are needed, and then the raster equals costs().
    REQUIRE(cv::imwrite(dir.file("image.png"), image));
    ImageRows rows(dir.file("image.png"));
    CHECK_THROWS_WITH_AS(writeCostRaster(model, rows, dir.file("costs.tif")), doctest::Contains("statistics"), InvalidArgument);
    ImageRows first(dir.file("image.png")), second(dir.file("image.png"));
    const ColourStatistics colours = colourStatistics(first);
    TileSettings band;
    band.tile_cells = std::max(20, least);
    writeCostRaster(model, second, dir.file("costs.tif"), band, {}, &colours);
    const cv::Mat tiff = cv::imread(dir.file("costs.tif"), cv::IMREAD_UNCHANGED);
    REQUIRE(tiff.type() == CV_32FC1);
    REQUIRE(static_cast<std::size_t>(tiff.rows) * tiff.cols == whole.costs.size());
    for (int s = 0; s < whole.cells(); ++s) {
      REQUIRE(tiff.at<float>(s / whole.cols, s % whole.cols) == static_cast<float>(whole.costs[static_cast<std::size_t>(s)]));
    }
  }
}

TEST_CASE("a network model file with a damaged network is refused, naming what is wrong") {
  const cv::Mat image = test::syntheticImage(64, 64, 1);
  NetworkShape shape;
  shape.channels = 3;
  shape.dilations = {1};
  const CostModel model = networkModel(image, randomNetwork(shape, 1), 0.0);
  test::TempDir dir;
  model.save(dir.file("net.mmp"));
  const Model stored = loadModel(dir.file("net.mmp"));
  auto refused = [&](const std::function<void(Model&)>& damage, const std::string& expected) {
    Model m = stored;
    damage(m);
    saveModel(dir.file("bad.mmp"), m);
    CHECK_THROWS_WITH_AS(CostModel::load(dir.file("bad.mmp")), doctest::Contains(expected.c_str()), DataError);
  };
  refused([](Model& m) { m.arrays.erase("network.m0.l1.bias"); }, "'network.m0.l1.bias' is missing");
  refused([](Model& m) { m.arrays["network.m0.l0.weights"].pop_back(); }, "network.m0.l0.weights");
  refused([](Model& m) { m.settings["network.channels"] = "3x"; }, "not an integer");
  refused([](Model& m) { m.settings["network.dilations"] = "0"; }, "network.dilations");
  refused([](Model& m) { m.settings["network.members"] = "2"; }, "'network.m1.l0.weights' is missing");
  refused([](Model& m) { m.settings["costs"] = "linear"; }, "needs exponential costs");
  refused([](Model& m) { m.settings["network.feature_inputs"] = "5000"; }, "network.feature_inputs");
  // A network that reads more feature planes than the stack codes (its first layer sized to match).
  refused(
      [&](Model& m) {
        m.settings["network.feature_inputs"] = std::to_string(model.features().channels() + 1);
        m.arrays["network.m0.l0.weights"].resize(static_cast<std::size_t>(3 * (NetworkShape::kColourInputs + model.features().channels() + 1) * 9));
      },
      "feature planes");
  CHECK_THROWS_AS(CostModel(model.features(), model.weights(), CostNetwork{}), InvalidArgument);
}
