// Writes the seed corpora of the fuzz targets: small valid inputs of every format and variant, so that
// the fuzzers start deep inside the parsers rather than at "not a model file".
//   fuzz_make_seeds <folder>        (tests/fuzz/corpus; the files there are this program's output)
// Every file is small (a few hundred bytes, the train configs a few kilobytes).
#include <mmp/frontend/demonstration_file.hpp>
#include "test_paths.hpp"
#include <mmp/maps/training/evaluation.hpp>

#include <mmp/core/model_file.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/regression_tree.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace mmp;

namespace {

fs::path g_root;

std::string target(const std::string& name, const std::string& file) {
  fs::create_directories(g_root / name);
  return (g_root / name / file).string();
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

cv::Mat pattern(int rows, int cols, int type) {
  cv::Mat m(rows, cols, type);
  cv::randu(m, cv::Scalar::all(0), cv::Scalar::all(type == CV_32FC1 ? 1.0 : 255.0));
  return m;
}

// --- model files ---------------------------------------------------------------------------------

void modelSeeds() {
  cv::setRNGSeed(1);
  const cv::Mat image = pattern(16, 16, CV_8UC3);
  const auto stackModel = [&](const FeatureSettings& settings, const std::string& costs) {
    const RawFeatures raw = computeRawFeatures(image, settings);
    FeatureStack stack = FeatureStack::fit(settings, {&raw});
    Model model;
    stack.store(model);
    model.weights = Eigen::VectorXd::LinSpaced(stack.features(), 0.1, 1.0);
    model.settings["costs"] = costs;
    return std::make_pair(stack, model);
  };
  FeatureSettings plain;
  plain.cell_size = 4;
  plain.blur_sigmas = {0.0};
  plain.lab = false;
  plain.texture_windows = {3};
  saveModel(target("model_file", "plain_complements.mmp"), stackModel(plain, "linear").second);

  FeatureSettings binned;
  binned.cell_size = 2;
  binned.blur_sigmas = {0.0, 1.5};
  binned.rgb = binned.hsv = false;
  binned.gradient = false;
  binned.texture_windows = {};
  binned.complements = false;
  binned.bins = 3;
  saveModel(target("model_file", "bins_exponential.mmp"), stackModel(binned, "exponential").second);

  // A LEARCH model: the same stack with two trees on its log-cost.
  Model boosted = stackModel(binned, "exponential").second;
  using Node = RegressionTree::Node;
  TreeEnsemble trees;
  trees.add(RegressionTree({{1, 0.5, 1, 2, 0.0}, {-1, 0.0, -1, -1, -0.5}, {-1, 0.0, -1, -1, 1.0}}, boosted.weights.size()), 0.5);
  trees.add(RegressionTree({{2, 0.25, 1, 4, 0.0}, {3, 0.75, 2, 3, 0.0}, {-1, 0.0, -1, -1, 0.25}, {-1, 0.0, -1, -1, -1.0},
                            Node{-1, 0.0, -1, -1, 0.5}},
                           boosted.weights.size()),
            0.25);
  trees.store(boosted);
  saveModel(target("model_file", "learch_trees.mmp"), boosted);

  // The class-score layer with one context radius.
  FeatureSettings small = binned;
  small.bins = 0;
  const FeatureStack stack = stackModel(small, "linear").first;
  const FeatureMap map = stack.map(image);
  const Eigen::MatrixXd weights = Eigen::MatrixXd::Constant(2, stack.features(), 0.5) -
                                  Eigen::MatrixXd::Identity(2, stack.features());
  const FeatureStack layered = stack.withClassScores({"road", "water"}, weights, {&map}, {4.0});
  Model with_layer;
  layered.store(with_layer);
  with_layer.weights = Eigen::VectorXd::Ones(layered.features());
  saveModel(target("model_file", "class_scores.mmp"), with_layer);

  // A model without feature settings (an OCR or other task's weights).
  Model bare;
  bare.weights = Eigen::VectorXd::LinSpaced(3, -1.0, 1.0);
  bare.feature_names = {"a", "b", "c"};
  bare.arrays["scale"] = {1.0, 2.0};
  saveModel(target("model_file", "no_feature_settings.mmp"), bare);
}

// --- train configs -------------------------------------------------------------------------------

void trainConfigSeeds(const fs::path& source) {
  for (const char* name : {"demo.yaml", "demo_hide_in_vegetation.yaml"}) {
    std::ifstream in(source / "configs" / name);
    if (!in) throw std::runtime_error("cannot read configs/" + std::string(name));
    writeText(target("train_config", name), std::string(std::istreambuf_iterator<char>(in), {}));
  }
  // Every section and key, with file regions that exist in the fuzz harness's folder: the config
  // itself (train.yaml) and the folder (.).
  writeText(target("train_config", "all_keys.yaml"), R"(data_root: ""
output_dir: out/fuzz
classes:
  - {name: Road, index: 2, colour: "#6EC1E4"}
  - {name: Water, index: 4, colour: "#E2A929"}
  - {name: Land, index: 1}
behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, 4: inf, Land: 2.5}}
train:
  - {image: train.yaml, labels: train.yaml, demonstrations: train.yaml}
  - {image: train.yaml, demonstrations: train.yaml}
  - synthetic: {seed: 5, rows: 64, cols: 80, roads: 2, vegetation_share: 0.3, water_share: 0.1, buildings: 3, noise: 2}
holdout:
  - {image: ., labels: train.yaml}
  - synthetic: {seed: 6}
features:
  cell_size: 8
  blur_sigmas: [0, 2.5]
  colour_spaces: [rgb, lab]
  gradient: false
  texture_windows: [3, 5]
  complements: false
  bins: 4
  scaling_quantile: 0.01
  class_scores: false
demonstrations: {per_region: 3, min_separation_px: 20, seed: 2}
loss: {shape: gaussian, radius_px: 12, scale: 0.5, length_weighting: false, by_class: false}
learner:
  kind: batch
  costs: linear
  min_cost: 0.1
  calibrate_bias: false
  online: {lambda: 0.5, q: 2, epochs: 3, averaging: uniform, shuffle: false, seed: 4, tolerance: 0, time_budget_seconds: 1}
  batch: {lambda: 0.001, q: 1, iterations: 5, step: gamma_over_t, step_size: 2, averaging: none, threads: 1, tolerance: 0.1, time_budget_seconds: 2}
evaluation: {pairs: 3, min_separation_px: 10, seed: 1, impassable_cost: 50, panel_paths: 1, panel_height: 64, panel_format: jpg}
classifier: {enabled: true, lambda: 0.01, iterations: 10, step_size: 0.5, samples: 100, seed: 9, cost_scales: [1, 10]}
)");
  writeText(target("train_config", "minimal.yaml"),
            "behaviour: {name: b, preferred: Road, costs: {Road: 1, Land: 2, Vegetation: 3, Building: inf, Water: .inf}}\n"
            "train: [{synthetic: {seed: 1}}]\nholdout: [{synthetic: {seed: 2}}]\n"
            "features: {class_scores: true, class_context_px: [8, 16]}\nloss: {by_class: true, impassable_factor: 2}\n");
}

// --- demonstrations ------------------------------------------------------------------------------

void demonstrationSeeds() {
  writePathCsv(target("demonstration", "plan_output.csv"), {{0, 1, 33, 66}, {100, 99, 98}}, 32, 4);
  writeText(target("demonstration", "xy_no_header.csv"), "# one path of x,y\n1.5,2\n30,40\n\n100.25,7\n");
  writeText(target("demonstration", "xy_header.csv"), "X, Y\r\n3,4\r\n50,60\r\n");
  writeText(target("demonstration", "list.yaml"), "- [[1, 2], [30, 4], [60.5, 70]]\n- [{x: 5, y: 6}, {x: 70, y: 80}]\n");
  writeText(target("demonstration", "map.yaml"), "paths:\n  - - [0, 0]\n    - [127, 127]\n  - [{y: 3, x: 9}, [9, 100]]\n");
}

// --- letters -------------------------------------------------------------------------------------

std::string letterLine(int id, char letter, int next, int word, int position, int fold, int seed) {
  std::string s = std::to_string(id) + "\t" + letter + "\t" + std::to_string(next) + "\t" + std::to_string(word) +
                  "\t" + std::to_string(position) + "\t" + std::to_string(fold) + "\t";
  for (int p = 0; p < 128; ++p) s += ((p * seed) % 7 < 3 ? "1\t" : "0\t");
  return s + "\n";
}

void lettersSeeds() {
  const std::string text = letterLine(1, 'o', 2, 1, 1, 0, 3) + letterLine(2, 'k', -1, 1, 2, 0, 5) +
                           letterLine(3, 'a', -1, 2, 1, 9, 2);
  writeText(target("letters", "two_words.data"), text);
  const std::string gz = target("letters", "two_words.data.gz");
  gzFile file = gzopen(gz.c_str(), "wb9");
  if (file == nullptr || gzwrite(file, text.data(), static_cast<unsigned>(text.size())) != static_cast<int>(text.size()) ||
      gzclose(file) != Z_OK) {
    throw std::runtime_error("cannot write " + gz);
  }
}

// --- multilabel ----------------------------------------------------------------------------------

void multilabelSeeds() {
  writeText(target("multilabel", "rows.svm"), "0,1 1:0.5 2:-0.25 4:1\n2 2:1e-3\n\t1:1\n");
  writeText(target("multilabel", "rows.arff"),
            "@relation t\n@attribute x1 numeric\n@attribute a {0,1}\n@attribute x2 real\n@attribute b {0,1}\n"
            "@data\n0.5,1,2,0\n{0 1, 1 1}\n");
  writeText(target("multilabel", "labels.xml"),
            "<?xml version=\"1.0\"?>\n<labels xmlns=\"http://mulan.sourceforge.net/labels\">\n<label name=\"a\"></label>\n"
            "<!-- b -->\n<label name=\"b\"><label name=\"c\"/></label>\n</labels>\n");
}

// --- pairs.csv -----------------------------------------------------------------------------------

void pairsSeeds() {
  std::vector<PairRecord> records;
  for (int k = 0; k < 2; ++k) {
    for (const char* method : {"mmp", "classifier"}) {
      PairRecord r;
      r.region = "tile" + std::to_string(k);
      r.pair = k;
      r.start_row = 3 * k, r.start_col = 4, r.goal_row = 50, r.goal_col = 60 + k;
      r.method = method;
      r.cost_ratio = 1.25 + k;
      r.feasible = k == 0;
      r.preferred_share = 0.5;
      records.push_back(r);
    }
  }
  writePairRecords(target("pairs", "pairs.csv"), records);
}

// --- images and masks ----------------------------------------------------------------------------

void writeImage(const std::string& name, const cv::Mat& image, const std::vector<int>& params = {}) {
  if (!cv::imwrite(target("image", name), image, params)) throw std::runtime_error("cannot write image " + name);
}

void imageSeeds() {
  cv::setRNGSeed(2);
  writeImage("colour.png", pattern(8, 8, CV_8UC3));
  writeImage("colour.jpg", pattern(8, 8, CV_8UC3), {cv::IMWRITE_JPEG_QUALITY, 30});
  writeImage("grey.jpg", pattern(8, 8, CV_8UC1), {cv::IMWRITE_JPEG_QUALITY, 30});
  writeImage("colour.tiff", pattern(4, 4, CV_8UC3));
  writeImage("float.tiff", pattern(3, 3, CV_32FC1));
  writeImage("deep16.png", pattern(4, 4, CV_16UC3));
  writeImage("alpha.png", pattern(4, 5, CV_8UC4));
  writeImage("grey.pgm", pattern(4, 4, CV_8UC1));
  writeImage("colour.bmp", pattern(2, 3, CV_8UC3));
  // Masks the harness's class lists accept: indices 0..2 (and colours black, white, red as BGR).
  cv::Mat index(6, 7, CV_8UC1);
  cv::Mat colour(6, 7, CV_8UC3);
  const cv::Vec3b bgr[3] = {{0, 0, 0}, {255, 255, 255}, {0, 0, 255}};
  for (int r = 0; r < index.rows; ++r) {
    for (int c = 0; c < index.cols; ++c) {
      index.at<std::uint8_t>(r, c) = static_cast<std::uint8_t>((r / 3 + c / 2) % 3);
      colour.at<cv::Vec3b>(r, c) = bgr[(r / 3 + c / 2) % 3];
    }
  }
  writeImage("index_mask.png", index);
  writeImage("colour_mask.png", colour);
  cv::Mat grey_levels(4, 6, CV_8UC1);
  for (int i = 0; i < 24; ++i) grey_levels.at<std::uint8_t>(i / 6, i % 6) = static_cast<std::uint8_t>(i * 11);
  writeImage("grey_levels_mask.png", grey_levels);
}

// --- GeoTIFFs through GDAL ------------------------------------------------------------------------

// A GTiff of `bands` bands of `type` holding a pattern, with a geotransform and CRS (EPSG:32640) unless
// `frame` is false, nodata (every band) if given, creation options NAME=VALUE.
void writeGeoTiff(const std::string& name, int rows, int cols, int bands, GDALDataType type, bool frame,
                  const std::vector<std::string>& options = {}, const double* nodata = nullptr) {
  GDALAllRegister();
  char** list = nullptr;
  for (const std::string& o : options) list = CSLAddString(list, o.c_str());
  GDALDatasetH out = GDALCreate(GDALGetDriverByName("GTiff"), target("geotiff", name).c_str(), cols, rows, bands, type, list);
  CSLDestroy(list);
  if (out == nullptr) throw std::runtime_error("cannot write GeoTIFF " + name);
  std::vector<double> values(static_cast<std::size_t>(rows) * cols);
  for (int b = 1; b <= bands; ++b) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>((i * 37 + static_cast<std::size_t>(b) * 91) % 251);
    if (nodata != nullptr) values[0] = *nodata;
    GDALRasterBandH band = GDALGetRasterBand(out, b);
    if (nodata != nullptr) GDALSetRasterNoDataValue(band, *nodata);
    if (GDALRasterIO(band, GF_Write, 0, 0, cols, rows, values.data(), cols, rows, GDT_Float64, 0, 0) != CE_None) {
      throw std::runtime_error("cannot write the pixels of " + name);
    }
  }
  if (frame) {
    double gt[6] = {500000.0, 0.5, 0.0, 2800000.0, 0.0, -0.5};
    GDALSetGeoTransform(out, gt);
    OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
    OSRImportFromEPSG(srs, 32640);
    GDALSetSpatialRef(out, srs);
    OSRDestroySpatialReference(srs);
  }
  GDALClose(out);
}

void geoTiffSeeds() {
  const double zero = 0.0;
  writeGeoTiff("rgb_utm.tif", 8, 8, 3, GDT_Byte, true);
  writeGeoTiff("rgb_nodata.tif", 8, 8, 3, GDT_Byte, true, {}, &zero);
  writeGeoTiff("rgba_alpha.tif", 8, 6, 4, GDT_Byte, true, {"ALPHA=YES"});
  writeGeoTiff("rgbn.tif", 6, 6, 4, GDT_Byte, true, {"PHOTOMETRIC=RGB", "ALPHA=UNSPECIFIED"});
  writeGeoTiff("grey16.tif", 8, 8, 1, GDT_UInt16, true);
  writeGeoTiff("grey_alpha.tif", 6, 8, 2, GDT_Byte, false, {"ALPHA=YES"});
  writeGeoTiff("float.tif", 4, 4, 1, GDT_Float32, true);
  writeGeoTiff("plain_big.tif", 8, 8, 3, GDT_Byte, false, {"BIGTIFF=YES"});
  writeGeoTiff("tiled_deflate.tif", 16, 16, 3, GDT_Byte, true, {"TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", "COMPRESS=DEFLATE"});
}

// `depth` levels of nested JSON arrays, "[[...]]".
std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

// The teaching page's requests (fuzzServe: "METHOD PATH?query" on the first line, the body after it), on
// the harness's 64 x 64 px probe image (id 0): every endpoint once with good input, and some bad.
void serveSeeds() {
  const std::vector<std::pair<std::string, std::string>> requests = {
      {"page", "GET /\n"},
      {"app_js", "GET /app.js\n"},
      {"traversal", "GET /../../etc/passwd\n"},
      {"session", "GET /api/session\n"},
      {"legend", "GET /api/legend.png\n"},
      {"info", "GET /api/images/0/info\n"},
      {"image_region", "GET /api/images/0/image.jpg?region=4,4,40,30&max=32\n"},
      {"costs_region", "GET /api/images/0/costs.png?region=0,0,64,64\n"},
      {"cell", "GET /api/images/0/cell?x=10&y=20\n"},
      {"plan", "POST /api/images/0/plan\n{\"start\": [3, 3], \"goal\": [60, 50]}"},
      {"plan_ompl", "POST /api/images/0/plan\n{\"start\": [3, 3], \"goal\": [60, 50], \"planner\": \"rrtstar\", \"budget\": 0.01}"},
      {"teach", "POST /api/images/0/teach\n{\"points\": [[3, 3], [30, 5], [60, 50]], \"revision\": 0}"},
      {"undo", "POST /api/undo\n{}"},
      {"suggest", "POST /api/images/0/suggest\n{\"n\": 2}"},
      {"save", "POST /api/save\n"},
      {"model", "GET /api/model.mmp\n"},
      {"csv", "GET /api/images/0/demonstrations.csv\n"},
      {"tif", "GET /api/images/0/costmap.tif\n"},
      {"nav2", "GET /api/images/0/nav2.tar?scale=linear&lethal_quantile=0.9\n"},
      {"bad_json", "POST /api/images/0/plan\n{\"start\": [3, "},
      {"unknown_image", "GET /api/images/99/info\n"},
      // JSON nesting (refused above 16 levels before parsing): at the limit, one over, deep, and
      // brackets the scanner must read as text (in strings, after escaped quotes and backslashes)
      {"nested_at_limit", "POST /api/images/0/plan\n{\"start\": " + nested(15) + ", \"goal\": [6, 6]}"},
      {"nested_over_limit", "POST /api/images/0/teach\n{\"points\": " + nested(16) + ", \"revision\": 0}"},
      {"nested_objects", "POST /api/images/0/suggest\n" + std::string(40, '{') + std::string(40, '}')},
      {"nested_deep", "POST /api/undo\n{\"revision\": " + nested(20000) + "}"},
      {"nested_in_strings", "POST /api/images/0/plan\n{\"note\": \"[[[\\\"{{{\", \"x\": \"\\\\\", \"start\": [3, 3], "
                            "\"goal\": [60, 50]}"},
  };
  for (const auto& [name, text] : requests) writeText(target("serve", name + ".req"), text);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus folder>   (tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  try {
    g_root = argv[1];
    modelSeeds();
    trainConfigSeeds(mmp::test::sourceDir());
    demonstrationSeeds();
    lettersSeeds();
    multilabelSeeds();
    pairsSeeds();
    imageSeeds();
    geoTiffSeeds();
    serveSeeds();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_make_seeds: %s\n", e.what());
    return 1;
  }
  std::printf("wrote the seed corpora under %s\n", argv[1]);
  return 0;
}
