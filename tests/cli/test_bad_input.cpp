// The bad-input suite: the `mmp` executable run as a user (or a careless script) would run it, on
// malformed configs, models, images, pair files, letters and output paths.  Each row gives the
// arguments, the exit code expected and a pattern its output must match: a clear error that names
// the file, key, line or cell.  A crash (a signal, exit 134), a hang (the time limit) or a silent
// success fails the row.  One row at least per failure class of the reliability issue.
#include "maps/maps_support.hpp"
#include "support.hpp"
#include "test_paths.hpp"

#include <mmp/core/model_file.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/maps/training/network_training.hpp>

#include <doctest/doctest.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#include <opencv2/imgcodecs.hpp>
#include <zlib.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <regex>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace mmp;

namespace {

struct Outcome {
  int exit_code = -1;  ///< -1: killed by a signal or the time limit
  std::string output;  ///< stdout and stderr
  bool timed_out = false;
};

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Runs build/bin/mmp with `args` in `dir`, stdin closed, for at most `limit`.  Arguments ending in
// ">", FILE send standard output to FILE (as a shell would).  `memory_bytes` > 0 caps the address
// space (RLIMIT_AS) of the child.
Outcome runMmp(const test::TempDir& dir, std::vector<std::string> args, std::chrono::seconds limit,
               rlim_t memory_bytes = 0) {
  const std::string log = dir.file("mmp_output.txt");
  std::string stdout_path = log;
  if (args.size() >= 2 && args[args.size() - 2] == ">") {
    stdout_path = args.back();
    args.resize(args.size() - 2);
  }
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int results = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || results < 0 || in < 0 || ::dup2(results, 1) < 0 || ::dup2(out, 2) < 0 || ::dup2(in, 0) < 0) {
      ::_exit(127);
    }
    if (memory_bytes > 0) {
      const rlimit cap{memory_bytes, memory_bytes};
      ::setrlimit(RLIMIT_AS, &cap);
    }
    if (::chdir(dir.file("").c_str()) != 0) ::_exit(127);
    std::vector<char*> argv{const_cast<char*>(mmp::test::executable())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(mmp::test::executable(), argv.data());
    ::_exit(127);
  }
  Outcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!outcome.timed_out && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  outcome.output = readText(log);
  return outcome;
}

void writeText(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A small, valid train config on generated scenes (a few seconds of training); each top-level block
// given in `blocks` replaces the default one.
std::string trainConfig(const std::string& blocks) {
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"output_dir", "output_dir: out"},
      {"behaviour", "behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 6, Vegetation: 8, "
                    "Water: inf, Building: 40}}"},
      {"train", "train:\n  - synthetic: {seed: 1, rows: 128, cols: 128, roads: 2, buildings: 5}\n"
                "  - synthetic: {seed: 2, rows: 128, cols: 128, roads: 2, buildings: 5}"},
      {"holdout", "holdout:\n  - synthetic: {seed: 3, rows: 128, cols: 128, roads: 2, buildings: 5}"},
      {"features", "features: {cell_size: 4, blur_sigmas: [0, 8], texture_windows: [7], bins: 4}"},
      {"demonstrations", "demonstrations: {per_region: 4, min_separation_px: 40, seed: 1}"},
      {"learner", "learner: {kind: batch, batch: {lambda: 0.0001, iterations: 5, step: constant, step_size: 1, threads: 1}}"},
      {"evaluation", "evaluation: {pairs: 4, min_separation_px: 40, seed: 7}"},
      {"classifier", "classifier: {iterations: 5, samples: 500}"},
      {"loss", "loss: {radius_px: 16}"}};
  std::string text;
  for (const auto& [key, block] : defaults) {
    if (("\n" + blocks).find("\n" + key + ":") == std::string::npos) text += block + "\n";
  }
  return text + blocks + "\n";
}


// Replaces the first occurrence of the double `from` in a model file's bytes by `to`, checksum fixed.
std::string replaceDouble(const std::string& bytes, double from, double to) {
  const std::string pattern(reinterpret_cast<const char*>(&from), sizeof from);
  const std::size_t at = bytes.find(pattern);
  REQUIRE(at != std::string::npos);
  std::string out = bytes;
  std::memcpy(&out[at], &to, sizeof to);
  return test::withModelChecksum(out);
}

// `text` gzip-compressed, flushed completely after its first `cut` characters; `flushed` is then the
// length of the compressed bytes that decompress to exactly those characters.
std::string gzipFlushedAt(const std::string& text, std::size_t cut, std::size_t& flushed) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(cut);
  REQUIRE(deflate(&z, Z_FULL_FLUSH) == Z_OK);
  flushed = z.total_out;
  z.avail_in = static_cast<uInt>(text.size() - cut);
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// The fixtures every row may use, made once per test case in a fresh folder.
struct Fixtures {
  test::TempDir dir;
  std::string image, model_bytes;

  Fixtures() {
    SyntheticSceneParams p;
    p.seed = 5;
    p.rows = p.cols = 128;
    image = dir.file("scene.png");
    REQUIRE(cv::imwrite(image, makeSyntheticScene(p).image));
    // A model as mmp train writes one: feature settings, scaling, a class-score layer, weights.
    FeatureSettings settings;
    settings.blur_sigmas = {0.0, 8.0};
    settings.bins = 4;
    settings.complements = false;
    const RawFeatures raw = computeRawFeatures(makeSyntheticScene(p).image, settings);
    FeatureStack stack = FeatureStack::fit(settings, {&raw});
    const FeatureMap base = stack.map(raw);
    Eigen::MatrixXd class_weights = Eigen::MatrixXd::Constant(2, stack.features(), 0.25);
    class_weights(1, 3) = 0.75;
    stack = stack.withClassScores({"Road", "Land"}, class_weights, {&base}, {8.0});
    Model model;
    model.weights = Eigen::VectorXd::Constant(stack.features(), 0.5);
    model.weights[kBiasIndex] = 2.0;
    stack.store(model);
    saveModel(dir.file("model.mmp"), model);
    model_bytes = readText(dir.file("model.mmp"));
  }
  std::string write(const std::string& name, const std::string& text) const {
    writeText(dir.file(name), text);
    return dir.file(name);
  }
  // The model file with one setting changed and no feature names (which would follow the settings):
  // a consistent file, with a valid checksum, as a writer could make it.
  std::string modelWithSetting(const std::string& name, const std::string& key, const std::string& value) const {
    Model model = loadModel(dir.file("model.mmp"));
    model.settings[key] = value;
    model.feature_names.clear();
    saveModel(dir.file(name), model);
    return dir.file(name);
  }
};

// Row::exit_code of a sampling planner's row: exit 0 and the pattern, or exit 1 saying that the budget
// (wall time) ran out before an exact solution -- a slow or loaded machine (sanitizers) -- never an abort.
constexpr int kPlanOrBudgetError = -2;

struct Row {
  const char* failure_class;
  const char* name;
  std::function<std::vector<std::string>(Fixtures&)> arguments;  ///< may write files first
  int exit_code;
  const char* pattern;  ///< ECMAScript regex the output must match
  std::function<void(Fixtures&)> after = {};  ///< further checks, e.g. that old outputs survived
};

void runRows(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    Fixtures f;
    const std::vector<std::string> args = row.arguments(f);
    const Outcome outcome = runMmp(f.dir, args, std::chrono::seconds(120));
    const std::string what = std::string(row.failure_class) + ": " + row.name + "\n  output: " + outcome.output;
    INFO(what);
    CHECK_FALSE(outcome.timed_out);
    if (row.exit_code == kPlanOrBudgetError && outcome.exit_code == 1) {
      CHECK(std::regex_search(outcome.output, std::regex("mmp: error: no plan .* no exact solution within .* s")));
      if (row.after) row.after(f);
      continue;
    }
    CHECK(outcome.exit_code == (row.exit_code == kPlanOrBudgetError ? 0 : row.exit_code));
    CHECK(std::regex_search(outcome.output, std::regex(row.pattern)));
    if (row.exit_code > 0) CHECK(outcome.output.find("mmp: error: ") != std::string::npos);
    if (row.after) row.after(f);
  }
}

// An 8-bit RGB GeoTIFF of `bgr` (GDAL's own writer) in EPSG:32640, with nodata 0 if `nodata`; its
// ProjectedCSTypeGeoKey then set to `epsg` by editing the bytes (GDAL writes only codes it knows).
std::string geoTiff(const test::TempDir& dir, const std::string& name, const cv::Mat& bgr, bool nodata, int epsg = 32640) {
  GDALAllRegister();
  const std::string path = dir.file(name);
  GDALDatasetH out = GDALCreate(GDALGetDriverByName("GTiff"), path.c_str(), bgr.cols, bgr.rows, 3, GDT_Byte, nullptr);
  REQUIRE(out != nullptr);
  std::vector<cv::Mat> channels;
  cv::split(bgr, channels);
  for (int b = 0; b < 3; ++b) {
    const cv::Mat channel = channels[static_cast<std::size_t>(2 - b)].clone();
    GDALRasterBandH band = GDALGetRasterBand(out, b + 1);
    REQUIRE(GDALRasterIO(band, GF_Write, 0, 0, bgr.cols, bgr.rows, channel.data, bgr.cols, bgr.rows, GDT_Byte, 0, 0) == CE_None);
    if (nodata) GDALSetRasterNoDataValue(band, 0.0);
  }
  double gt[6] = {500000.0, 0.5, 0.0, 2800000.0, 0.0, -0.5};
  GDALSetGeoTransform(out, gt);
  OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
  REQUIRE(OSRImportFromEPSG(srs, 32640) == OGRERR_NONE);
  GDALSetSpatialRef(out, srs);
  OSRDestroySpatialReference(srs);
  GDALClose(out);
  if (epsg != 32640) {
    std::string bytes = readText(path);
    const std::size_t at = bytes.find(std::string("\x00\x0c\x00\x00\x01\x00\x80\x7f", 8));
    REQUIRE(at != std::string::npos);
    bytes[at + 6] = static_cast<char>(epsg & 0xff);
    bytes[at + 7] = static_cast<char>(epsg >> 8);
    std::ofstream(path, std::ios::binary) << bytes;
  }
  return path;
}

std::vector<std::string> costmap(const std::string& model, const std::string& image) {
  return {"costmap", "--model", model, "--image", image, "--raw", "cost.tiff"};
}

}  // namespace

TEST_CASE("bad input: crashes are clear errors (model layers, YAML keys, output paths, folders, huge settings)") {
  runRows({
      {"crash", "NaN in the class-score layer of a model",
       [](Fixtures& f) {
         return costmap(f.write("nan.mmp", replaceDouble(f.model_bytes, 0.75, std::nan(""))), f.image);
       },
       1, "nan.mmp': array 'features.class_weights' entry \\d+ is nan"},
      {"crash", "inf in the scaling of a model",
       [](Fixtures& f) {
         Model m = loadModel(f.dir.file("model.mmp"));
         const double first = m.arrays.at("features.upper").front();
         return costmap(f.write("inf.mmp", replaceDouble(f.model_bytes, first, std::numeric_limits<double>::infinity())),
                        f.image);
       },
       1, "inf.mmp': array 'features.\\w+' entry \\d+ is inf"},
      {"crash", "a YAML key that is a list",
       [](Fixtures& f) { return std::vector<std::string>{"train", f.write("c.yaml", trainConfig("? [a, b]\n: 1"))}; }, 1,
       "c.yaml: top level: a key must be a plain name, got a list"},
      {"crash", "output_dir names an existing file",
       [](Fixtures& f) {
         f.write("taken", "x");
         return std::vector<std::string>{"train", f.write("c.yaml", trainConfig("")), "--output-dir", "taken"};
       },
       1, "output folder 'taken' exists and is not a folder"},
      {"crash", "output_dir cannot be created",
       [](Fixtures& f) {
         f.write("file", "x");
         return std::vector<std::string>{"train", f.write("c.yaml", trainConfig("")), "--output-dir", "file/sub"};
       },
       1, "cannot create the output folder beside 'file/sub'"},
      {"crash", "a folder given as the config",
       [](Fixtures& f) { return std::vector<std::string>{"train", f.dir.file("")}; }, 1, "is a folder; give a YAML file"},
      {"crash", "a folder given as the model",
       [](Fixtures& f) { return costmap(f.dir.file(""), f.image); }, 1, "is a folder, not a model file"},
      {"crash", "blur sigma 1e300 in a model",
       [](Fixtures& f) { return costmap(f.modelWithSetting("b.mmp", "features.blur_sigmas", "0,1e300"), f.image); }, 1,
       "features.blur_sigmas: sigma 1e\\+300 px is larger than the 128 x 128 px image"},
      {"unclear", "a tile size too small for the model (0 is out of --tile-cells' range)",
       [](Fixtures& f) {
         std::vector<std::string> args = costmap(f.dir.file("model.mmp"), f.image);
         args.insert(args.end(), {"--tile-cells", "1"});
         return args;
       },
       1, "tile_cells = 1 is too small for the model's features .*; use at least [0-9]+"},
      {"unclear", "an unknown planner",
       [](Fixtures& f) {
         return std::vector<std::string>{"plan", "--out", f.dir.file("p.csv"), "--model", f.dir.file("model.mmp"), "--image", f.image, "--start", "4,4",
                                         "--goal", "100,100", "--planner", "dijkstra"};
       },
       1, "--planner: unknown OMPL planner \"dijkstra\"; valid names: rrtstar, .*bitstar.*; or astar"},
      {"unclear", "world points on an image without a world frame",
       [](Fixtures& f) {
         return std::vector<std::string>{"plan", "--out", f.dir.file("p.csv"), "--model", f.dir.file("model.mmp"), "--image", f.image, "--world",
                                         "--start", "4,4", "--goal", "100,100"};
       },
       1, "--start 4,4 is in world coordinates, but '.*scene.png' has no world frame \\(no georeference\\): give "
          "--resolution and --origin"},
      {"unclear", "a world start outside the image",
       [](Fixtures& f) {
         return std::vector<std::string>{"plan", "--out", f.dir.file("p.csv"), "--model", f.dir.file("model.mmp"), "--image", f.image, "--world",
                                         "--resolution", "0.5", "--origin", "100,200", "--start", "90,210", "--goal",
                                         "120,230"};
       },
       1, "--start 90,210 lies outside the image's whole cells \\(x in \\[100, 164\\), y in \\(200, 264\\]\\)"},
      {"unclear", "a Nav2 map of an image without a world frame",
       [](Fixtures& f) {
         std::vector<std::string> args = costmap(f.dir.file("model.mmp"), f.image);
         args.insert(args.end(), {"--nav2", f.dir.file("nav2")});
         return args;
       },
       1, "world frame"},
  });
}

TEST_CASE("bad input: settings whose cost grows with their value are bounded by what they mean") {
  runRows({
      {"hang", "blur sigma 1e9 in a model",
       [](Fixtures& f) { return costmap(f.modelWithSetting("b.mmp", "features.blur_sigmas", "0,1e9"), f.image); },
       1, "features.blur_sigmas: sigma 1e\\+09 px is larger than the 128 x 128 px image; use at most 128 px"},
      {"hang", "texture window 2^31-1 in a model",
       [](Fixtures& f) { return costmap(f.modelWithSetting("w.mmp", "features.texture_windows", "2147483647"), f.image); },
       1, "w.mmp': model: setting 'features.texture_windows' holds 2147483647"},
      {"hang", "a texture window wider than the image in a config",
       [](Fixtures& f) {
         return std::vector<std::string>{
             "train", f.write("c.yaml", trainConfig("features: {cell_size: 4, texture_windows: [201]}"))};
       },
       1, "c.yaml: train\\[0\\] \\(synthetic-1\\): features.texture_windows: window 201 px is larger than the 128 x 128"},
      {"hang", "class_context_px: [100000]",
       [](Fixtures& f) {
         return std::vector<std::string>{
             "train", f.write("c.yaml", trainConfig("features: {cell_size: 4, bins: 4, class_scores: true, "
                                                    "class_context_px: [100000]}"))};
       },
       1, "features.class_context_px: radius 100000 px is larger than the 128 x 128 px image"},
      {"hang", "per_region: 100000 on a small scene",
       [](Fixtures& f) {
         return std::vector<std::string>{
             "train", f.write("c.yaml", trainConfig("demonstrations: {per_region: 100000, min_separation_px: 40}"))};
       },
       1, "c.yaml: demonstrations.per_region: 100000 paths asked of train\\[0\\], an image of 1024 cells"},
  });
}

TEST_CASE("bad input: no silent success (checksums, weights, damaged images, full disks, bad pair files, cut gzip)") {
  runRows({
      {"silent success", "a flipped byte in a model's weights",
       [](Fixtures& f) {
         std::string b = f.model_bytes;
         b[8 + 4 + 8 + 2] = static_cast<char>(b[8 + 4 + 8 + 2] ^ 0x01);
         return costmap(f.write("flip.mmp", b), f.image);
       },
       1, "flip.mmp' is corrupt: its checksum does not match"},
      {"silent success", "a NaN weight",
       [](Fixtures& f) { return costmap(f.write("nanw.mmp", replaceDouble(f.model_bytes, 2.0, std::nan(""))), f.image); },
       1, "nanw.mmp': weight 0 \\('bias'\\) is nan"},
      {"silent success", "a negative weight",
       [](Fixtures& f) {
         Model m = loadModel(f.dir.file("model.mmp"));
         m.weights[3] = -0.5;
         saveModel(f.dir.file("neg.mmp"), m);
         return costmap(f.dir.file("neg.mmp"), f.image);
       },
       1, "neg.mmp': weight 3 \\('.*'\\) is -0.5.*needs every weight >= 0"},
      {"silent success", "a truncated JPEG",
       [](Fixtures& f) {
         std::vector<std::uint8_t> jpeg;
         REQUIRE(cv::imencode(".jpg", cv::imread(f.image), jpeg));
         f.write("cut.jpg", std::string(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(jpeg.size() / 2)));
         return costmap(f.dir.file("model.mmp"), f.dir.file("cut.jpg"));
       },
       1, "image '.*cut.jpg' is a damaged JPEG"},
      {"silent success", "a JPEG with corrupt data",
       [](Fixtures& f) {
         std::vector<std::uint8_t> jpeg;
         REQUIRE(cv::imencode(".jpg", cv::imread(f.image), jpeg));
         std::string b(jpeg.begin(), jpeg.end());
         for (std::size_t i = b.size() / 2; i < b.size() / 2 + 64; ++i) b[i] = static_cast<char>(b[i] ^ 0x55);
         return costmap(f.dir.file("model.mmp"), f.write("bad.jpg", b));
       },
       1, "image '.*bad.jpg' is a damaged JPEG"},
      {"silent success", "plan's path on a full disk",
       [](Fixtures& f) {
         return std::vector<std::string>{"plan", "--model", f.dir.file("model.mmp"), "--image", f.image, "--start", "4,4",
                                         "--goal", "100,100", "--out", "/dev/full"};
       },
       1, "cannot write '/dev/full': No space left on device"},
      {"silent success", "plan's PNG on a full disk",
       [](Fixtures& f) {
         std::filesystem::create_symlink("/dev/full", f.dir.file("full.png"));
         return std::vector<std::string>{"plan", "--model", f.dir.file("model.mmp"), "--image", f.image, "--start", "4,4",
                                         "--goal", "100,100", "--png", "full.png"};
       },
       1, "cannot write 'full.png': No space left on device"},
      {"silent success", "costmap's picture on a full disk (a .png link to /dev/full)",
       [](Fixtures& f) {
         std::filesystem::create_symlink("/dev/full", f.dir.file("full.png"));
         return std::vector<std::string>{"costmap", "--model", f.dir.file("model.mmp"), "--image", f.image, "--png",
                                         "full.png"};
       },
       1, "cannot write 'full.png': No space left on device"},
      {"silent success", "the printed results on a full disk",
       [](Fixtures& f) {
         return std::vector<std::string>{"costmap", "--model", f.dir.file("model.mmp"), "--image", f.image, "--raw",
                                         "cost.tiff", ">", "/dev/full"};
       },
       1, "writing to standard output failed: No space left on device"},
      {"silent success", "mmp compare on a nan cost ratio",
       [](Fixtures& f) {
         const std::string header = "region,pair,start_row,start_col,goal_row,goal_col,method,cost_ratio,feasible,preferred_share\n";
         f.write("a.csv", header + "r,0,1,1,5,5,learned,1.5,1,0.5\n");
         f.write("b.csv", header + "r,0,1,1,5,5,learned,nan,1,0.5\n");
         return std::vector<std::string>{"compare", "a.csv", "b.csv"};
       },
       1, "b.csv: line 2: cost_ratio 'nan' is not a finite number > 0"},
      {"silent success", "mmp compare on a negative cost ratio",
       [](Fixtures& f) {
         const std::string header = "region,pair,start_row,start_col,goal_row,goal_col,method,cost_ratio,feasible,preferred_share\n";
         f.write("a.csv", header + "r,0,1,1,5,5,learned,-2,1,0.5\n");
         return std::vector<std::string>{"compare", "a.csv", "a.csv"};
       },
       1, "a.csv: line 2: cost_ratio '-2' is not a finite number > 0"},
      {"silent success", "a gzip letters file cut at a line boundary",
       [](Fixtures& f) {
         std::string letters;
         for (int i = 1; i <= 40; ++i) {
           letters += std::to_string(i) + "\ta\t" + (i % 4 == 0 ? "-1" : std::to_string(i + 1)) + "\t" +
                      std::to_string((i - 1) / 4) + "\t" + std::to_string((i - 1) % 4 + 1) + "\t" + std::to_string((i - 1) / 4 % 10);
           for (int k = 0; k < 128; ++k) letters += "\t0";
           letters += "\t\n";
         }
         std::filesystem::create_directories(f.dir.file("data/ocr"));
         const std::size_t half = letters.find("\n21\t") + 1;  // lines 1..20: whole words, a valid file by itself
         std::size_t flushed = 0;
         const std::string gzip = gzipFlushedAt(letters, half, flushed);
         f.write("data/ocr/letter.data.gz", gzip.substr(0, flushed));
         // no --config: the default is configs/letters.yaml in the working directory
         std::filesystem::create_directories(f.dir.file("configs"));
         f.write("configs/letters.yaml", readText(std::string(mmp::test::sourceDir()) + "/configs/letters.yaml"));
         return std::vector<std::string>{"letters", "--data-root", f.dir.file("data")};
       },
       1, "letter.data.gz.*(truncated|unexpected end)"},
  });
}

TEST_CASE("bad input: every surface as strict as the first (issue 32: threads, tiles, costs, rasters, keys, messages)") {
  const auto with = [](std::vector<std::string> args, std::initializer_list<std::string> more) {
    args.insert(args.end(), more);
    return args;
  };
  runRows({
      {"hang", "costmap --threads far beyond the cores",
       [&](Fixtures& f) { return with(costmap(f.dir.file("model.mmp"), f.image), {"--threads", "100000"}); },
       1, "mmp: error: --threads: Value 100000 not in range 0 to 256 \\(mmp costmap --help lists the options\\)"},
      {"silent success", "--tile-cells near INT_MAX (an all-zero cost map before)",
       [&](Fixtures& f) { return with(costmap(f.dir.file("model.mmp"), f.image), {"--tile-cells", "2147483647"}); },
       1, "mmp: error: --tile-cells: Value 2147483647 not in range 1 to 1048576"},
      {"silent success", "--raw of a model whose costs overflow float32 (written as nodata before)",
       [](Fixtures& f) {
         Model m = loadModel(f.dir.file("model.mmp"));
         m.settings["costs"] = "exponential";
         m.weights[kBiasIndex] = 100.0;  // every cost about e^100 = 2.7e43 > 3.4e38
         m.feature_names.clear();
         saveModel(f.dir.file("runaway.mmp"), m);
         return costmap(f.dir.file("runaway.mmp"), f.image);
       },
       1, "runaway.mmp' gives cell \\(row 0, col 0\\) the cost \\d\\.\\d+e\\+\\d+, outside what a 32-bit float raster holds",
       [](Fixtures& f) { CHECK_FALSE(std::filesystem::exists(f.dir.file("cost.tiff"))); }},
      {"silent success", "a float TIFF with NaN (black terrain before)",
       [](Fixtures& f) {
         cv::Mat floats(64, 64, CV_32FC3, cv::Scalar(10.0f, 200.0f, 0.5f));
         floats.at<cv::Vec3f>(5, 5)[1] = std::numeric_limits<float>::quiet_NaN();
         REQUIRE(cv::imwrite(f.dir.file("float.tif"), floats));
         return costmap(f.dir.file("model.mmp"), f.dir.file("float.tif"));
       },
       // (GDAL names the type of OpenCV's float TIFF Int16: refused either way, by the one reader)
       1, "float.tif': band 1 holds \\w+ values; mmp reads 8- or 16-bit imagery"},
      {"silent success", "nodata pixels of a GeoTIFF (costed as terrain before)",
       [](Fixtures& f) {
         cv::Mat image;
         cv::max(cv::imread(f.image), cv::Scalar(1, 1, 1), image);
         image(cv::Rect(0, 0, 32, 16)).setTo(cv::Scalar(0, 0, 0));  // 8 x 4 cells of 4 px without data
         return costmap(f.dir.file("model.mmp"), geoTiff(f.dir, "holes.tif", image, true));
       },
       0, "32 cells hold pixels without data in the image .*: unknown -- \\+inf \\(nodata\\) in --raw, 255 in --nav2, "
          "impassable to plans",
       [](Fixtures& f) {
         const cv::Mat raw = cv::imread(f.dir.file("cost.tiff"), cv::IMREAD_UNCHANGED);
         REQUIRE(raw.type() == CV_32FC1);
         int unknown = 0;
         for (int r = 0; r < raw.rows; ++r) {
           for (int c = 0; c < raw.cols; ++c) {
             const bool hole = r < 4 && c < 8;
             CHECK(std::isinf(raw.at<float>(r, c)) == hole);
             unknown += hole;
           }
         }
         CHECK(unknown == 32);
       }},
      {"silent success", "nodata pixels of a GeoTIFF in a Nav2 map (graded as terrain before)",
       [&](Fixtures& f) {
         cv::Mat image;
         cv::max(cv::imread(f.image), cv::Scalar(1, 1, 1), image);
         image(cv::Rect(0, 0, 32, 16)).setTo(cv::Scalar(0, 0, 0));
         return std::vector<std::string>{"costmap", "--model", f.dir.file("model.mmp"), "--image",
                                         geoTiff(f.dir, "holes.tif", image, true), "--nav2", f.dir.file("nav2")};
       },
       0, "32 cells hold pixels without data",
       [](Fixtures& f) {
         const cv::Mat pgm = cv::imread(f.dir.file("nav2/map.pgm"), cv::IMREAD_UNCHANGED);
         REQUIRE(pgm.type() == CV_8UC1);
         cv::Mat unknown;
         cv::compare(pgm, 255, unknown, cv::CMP_EQ);
         CHECK(cv::countNonZero(unknown) == 32);
         CHECK(cv::countNonZero(unknown(cv::Rect(0, 0, 8, 4))) == 32);
         CHECK(readText(f.dir.file("nav2/map.yaml")).find("v = 255: unknown (no data); cells: 32") != std::string::npos);
       }},
      {"silent success", "nodata pixels in a training image (learned as terrain before)",
       [&](Fixtures& f) {
         cv::Mat image;
         cv::max(cv::imread(f.image), cv::Scalar(1, 1, 1), image);
         image(cv::Rect(0, 0, 32, 16)).setTo(cv::Scalar(0, 0, 0));
         geoTiff(f.dir, "holes.tif", image, true);
         REQUIRE(cv::imwrite(f.dir.file("labels.png"), cv::Mat(128, 128, CV_8UC1, cv::Scalar(1))));
         return std::vector<std::string>{
             "train", f.write("c.yaml", trainConfig("train:\n  - {image: holes.tif, labels: labels.png}\n"
                                                    "  - synthetic: {seed: 2, rows: 128, cols: 128, roads: 2, buildings: 5}"))};
       },
       1, "c.yaml: train\\[0\\]: the image '.*holes.tif' has 512 pixels without data \\(nodata, mask or alpha 0\\); "
          "mmp does not train on them"},
      {"silent success", "an EPSG code GDAL does not know (a local CRS, written on, before)",
       [](Fixtures& f) { return costmap(f.dir.file("model.mmp"), geoTiff(f.dir, "crs.tif", cv::imread(f.image), false, 32569)); },
       1, "crs.tif': its coordinate reference system is not one GDAL knows: .+"},
      {"silent success", "an extent beyond the finite numbers",
       [&](Fixtures& f) {
         return with(costmap(f.dir.file("model.mmp"), f.image), {"--resolution", "1e308", "--origin", "1e308,0"});
       },
       1, "mmp: error: --resolution 1e\\+308 --origin 1e308,0: world frame: .* reach \\(inf, .*beyond the finite numbers"},
      {"silent success", "a YAML key given twice (the second dropped before)",
       [](Fixtures& f) {
         return std::vector<std::string>{
             "train", f.write("c.yaml", trainConfig("loss: {radius_px: 16}\nloss: {radius_px: 32}"))};
       },
       1, "c.yaml: loss: the key appears twice, on line \\d+ and on line \\d+; give it once"},
      {"silent success", "exponential costs that run away in training (1e25 to 1e44 saved before)",
       [](Fixtures& f) {
         return std::vector<std::string>{
             "train", f.write("c.yaml", trainConfig("learner: {kind: online, costs: exponential, online: {lambda: 0.03, "
                                                    "epochs: 3}}"))};
       },
       0, "NumericalIssue: the model after epoch \\d+ on the training cells: the costs range from .*(above the highest "
          "cost a model may give, 1e\\+30|the most a model may spread them); kept the model of "},
      {"wrong name", "an OMPL budget of 1e308 (the clock overflowed before)",
       [](Fixtures& f) {
         return std::vector<std::string>{"plan", "--out", f.dir.file("p.csv"), "--model", f.dir.file("model.mmp"), "--image", f.image, "--start", "4,4",
                                         "--goal", "100,100", "--planner", "rrtstar", "--budget", "1e308"};
       },
       1, "--budget 1e\\+308 is out of range: give seconds > 0 and at most 604800"},
      {"wrong name", "an error in a base file",
       [](Fixtures& f) {
         f.write("base.yaml", trainConfig("loss: {radius_px: -3}"));
         return std::vector<std::string>{"train", f.write("c.yaml", "base: base.yaml\nclassifier: {iterations: 5, samples: 500}\n")};
       },
       1, "base.yaml: loss.radius_px: expected"},
      {"wrong name", "a huge class-context radius in a model (blamed on --tile-cells before)",
       [](Fixtures& f) { return costmap(f.modelWithSetting("ctx.mmp", "features.class_context_px", "100000"), f.image); },
       1, "ctx.mmp': features.class_context_px: radius 100000 px is larger than the 128 x 128 px image"},
      {"wrong name", "CLI11's wording: a value that is not a number",
       [&](Fixtures& f) { return with(costmap(f.dir.file("model.mmp"), f.image), {"--threads", "many"}); },
       1, "mmp: error: --threads: .*many.* \\(mmp costmap --help lists the options\\)"},
      {"wrong name", "CLI11's wording: no subcommand",
       [](Fixtures&) { return std::vector<std::string>{}; }, 1, "mmp: error: give a command: letters, ocr, .*costmap"},
      {"wrong name", "an unknown command is named, with the commands",
       [](Fixtures&) { return std::vector<std::string>{"bogus"}; }, 1,
       "mmp: error: unknown command 'bogus'; the commands are letters, ocr, .*costmap"},
  });
}

TEST_CASE("bad input: staging folders of killed runs are removed by the next run into the same folder, and only those") {
  Fixtures f;
  const pid_t dead = ::fork();  // a process id that is surely no longer alive
  REQUIRE(dead >= 0);
  if (dead == 0) ::_exit(0);
  REQUIRE(::waitpid(dead, nullptr, 0) == dead);
  const auto staging = [&](const std::string& name, bool marker, bool other_file) {
    std::filesystem::create_directories(f.dir.file(name));
    if (marker) f.write(name + "/.mmp-output", "written by mmp");
    if (other_file) f.write(name + "/notes.txt", "mine");
    return f.dir.file(name);
  };
  const std::string killed = staging("out.partial-" + std::to_string(dead), true, true);
  const std::string killed_old = staging("out.old-" + std::to_string(dead), true, false);
  const std::string empty = staging("out.partial-" + std::to_string(dead + 1000000), false, false);  // killed before its marker
  const std::string live = staging("out.partial-" + std::to_string(::getpid()), true, false);  // a run still going
  const std::string users = staging("out.partial-" + std::to_string(dead) + "x", true, false);      // not mmp's name
  const std::string unmarked = staging("out.old-" + std::to_string(dead + 2000000), false, true);  // not mmp's folder
  const Outcome run = runMmp(f.dir, {"train", f.write("c.yaml", trainConfig(""))}, std::chrono::seconds(300));
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("removed '" + std::string("./out.partial-") + std::to_string(dead) + "', left by a run that was killed") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(killed));
  CHECK_FALSE(std::filesystem::exists(killed_old));
  CHECK_FALSE(std::filesystem::exists(empty));
  CHECK(std::filesystem::exists(live));
  CHECK(std::filesystem::exists(users));
  CHECK(std::filesystem::exists(unmarked));
  CHECK(std::filesystem::exists(f.dir.file("out/model.mmp")));
}

TEST_CASE("bad input: without --config outside a checkout, the error names the places looked at") {
  runRows({
      {"missing config", "mmp letters with no configs/ in the working directory",
       [](Fixtures&) { return std::vector<std::string>{"letters"}; },
       1, "'configs/letters.yaml' \\(in the working directory\\) or at '/.*/share/mmp/configs/letters.yaml' "
          "\\(beside an installed mmp\\): pass the config's path with --config"},
      {"missing config", "mmp ocr with no configs/ in the working directory",
       [](Fixtures&) { return std::vector<std::string>{"ocr"}; },
       1, "'configs/ocr_small.yaml' .* '/.*/share/mmp/configs/ocr_small.yaml' .*--config"},
  });
}

TEST_CASE("bad input: infinite values are refused where they enter, naming the file and key") {
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"learner: {kind: batch, batch: {lambda: .inf}}", "learner.batch.lambda"},
      {"learner: {kind: batch, batch: {step_size: .inf}}", "learner.batch.step_size"},
      {"loss: {radius_px: .inf}", "loss.radius_px"},
      {"loss: {scale: .inf}", "loss.scale"},
      {"learner: {min_cost: .inf}", "learner.min_cost"},
      {"learner: {kind: online, online: {lambda: .nan}}", "learner.online.lambda"}};
  std::vector<Row> rows;
  for (const auto& [block, key] : settings) {
    rows.push_back({"unclear error", key.c_str(),
                    [block = block](Fixtures& f) {
                      return std::vector<std::string>{"train", f.write("c.yaml", trainConfig(block))};
                    },
                    1, ""});
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Fixtures f;
    const Outcome outcome = runMmp(f.dir, rows[i].arguments(f), std::chrono::seconds(60));
    INFO(settings[i].second, ": ", outcome.output);
    CHECK(outcome.exit_code == 1);
    CHECK(outcome.output.find("c.yaml: " + settings[i].second + ": expected a finite number") != std::string::npos);
  }
}

TEST_CASE("bad input: a failed run leaves the previous outputs untouched, and --validate fails before the folds") {
  Fixtures f;
  const std::string config = f.write("c.yaml", trainConfig(""));
  const Outcome first = runMmp(f.dir, {"train", config}, std::chrono::seconds(300));
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const std::string model = readText(f.dir.file("out/model.mmp")), metrics = readText(f.dir.file("out/metrics.json"));
  REQUIRE(!model.empty());

  // Fails in the evaluation, after training: more pairs than the holdout image has cells.
  const Outcome failed = runMmp(
      f.dir, {"train", f.write("c2.yaml", trainConfig("evaluation: {pairs: 5000, min_separation_px: 40, seed: 7}"))},
      std::chrono::seconds(300));
  INFO(failed.output);
  CHECK(failed.exit_code == 1);
  CHECK(failed.output.find("evaluation.pairs: 5000 paths asked of holdout[0]") != std::string::npos);
  CHECK(failed.output.find("nothing written: 'out' keeps its previous contents") != std::string::npos);
  CHECK(readText(f.dir.file("out/model.mmp")) == model);
  CHECK(readText(f.dir.file("out/metrics.json")) == metrics);
  for (const auto& entry : std::filesystem::directory_iterator(f.dir.file(""))) {
    CHECK(entry.path().filename().string().find(".partial-") == std::string::npos);  // no staging left behind
  }

  f.write("file", "x");
  const Outcome validate = runMmp(f.dir, {"train", config, "--validate", "--output-dir", "file/out"},
                                  std::chrono::seconds(60));
  INFO(validate.output);
  CHECK(validate.exit_code == 1);
  CHECK(validate.output.find("cannot create the output folder beside 'file/out'") != std::string::npos);
  CHECK(validate.output.find("fold 1") == std::string::npos);  // no fold was trained
}

#ifndef MMP_SANITIZED
TEST_CASE("bad input: running out of memory is an error, not an abort") {
  // Features of a 4096 x 4096 scene at one pixel per cell need far more than 1 GiB.  (Not under
  // AddressSanitizer, whose shadow memory does not fit such a limit.)
  Fixtures f;
  const std::string config = f.write(
      "c.yaml", trainConfig("train:\n  - synthetic: {seed: 1, rows: 4096, cols: 4096}\n  - synthetic: {seed: 2}\n"
                            "features: {cell_size: 1}"));
  const Outcome outcome = runMmp(f.dir, {"train", config}, std::chrono::seconds(300), rlim_t{1} << 30);
  INFO(outcome.output);
  CHECK(outcome.exit_code == 1);
  CHECK(outcome.output.find("mmp: error: out of memory") != std::string::npos);
}
#endif

TEST_CASE("mmp train runs a network on pinned kernels and says so, or on the CPU's own with MMP_NATIVE_KERNELS") {
  if (!networkTrainingAvailable()) return;  // a build without libtorch trains no network
  // The run's environment is this process's: start without any pin, and put back what was there.
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* variable : {"OPENBLAS_CORETYPE", "ONEDNN_MAX_CPU_ISA", "MMP_NATIVE_KERNELS"}) {
    if (const char* value = std::getenv(variable)) saved.emplace_back(variable, value);
    ::unsetenv(variable);
  }
  Fixtures f;
  const std::string config = f.write(
      "net.yaml", trainConfig("learner: {kind: network, network: {epochs: 1, channels: 2, dilations: [1]}}"));
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const Outcome pinned = runMmp(f.dir, {"train", config, "--threads", "1"}, std::chrono::seconds(120));
  INFO(pinned.output);
  CHECK(pinned.exit_code == 0);
  CHECK(pinned.output.find(avx2 ? "kernels pinned (OPENBLAS_CORETYPE=Haswell, ONEDNN_MAX_CPU_ISA=AVX2)"
                                : "this CPU's own for OPENBLAS_CORETYPE, ONEDNN_MAX_CPU_ISA") != std::string::npos);

  ::setenv("MMP_NATIVE_KERNELS", "1", 1);
  const Outcome native = runMmp(f.dir, {"train", config, "--threads", "1"}, std::chrono::seconds(120));
  ::unsetenv("MMP_NATIVE_KERNELS");
  for (const auto& [variable, value] : saved) ::setenv(variable.c_str(), value.c_str(), 1);
  INFO(native.output);
  CHECK(native.exit_code == 0);
  CHECK(native.output.find("kernels this CPU's own for OPENBLAS_CORETYPE, ONEDNN_MAX_CPU_ISA: results can differ") !=
        std::string::npos);
}

// Issue 57 (reliability round 4): the car planners never abort, and the last silent inputs.
TEST_CASE("bad input: round 4 -- car planners at tiny radii and long budgets are errors or plans, never aborts") {
  const auto car = [](const char* vehicle, const char* radius, const char* planner, const char* budget) {
    return [=](Fixtures& f) {
      return std::vector<std::string>{"plan", "--model", f.dir.file("model.mmp"), "--image", f.image, "--start", "10,10",
                                      "--goal", "110,100", "--vehicle", vehicle, "--turning-radius", radius,
                                      "--planner", planner, "--budget", budget, "--out", f.dir.file("p.csv")};
    };
  };
  std::vector<Row> rows;
  for (const char* vehicle : {"dubins", "reeds-shepp"}) {
    for (const char* radius : {"1e-300", "1e-6", "1e-3", "0.01"}) {  // px, cells of 4 px: SIGABRT before
      rows.push_back({"crash", "a turning radius far below a cell", car(vehicle, radius, "rrtstar", "0.2"), 1,
                      "--turning-radius .* cells of this grid: give 0\\.4 to 4000000 px \\(0\\.1 to 1000000 cells"});
    }
    // 3 cells: RRT*'s steps made OMPL's Dubins words assert (every run of 3-5 s before).
    for (const char* planner : {"rrtstar", "bitstar", "abitstar"}) {
      rows.push_back({"crash", "a turning radius of 3 cells on RRT*, BIT*, ABIT*", car(vehicle, "12", planner, "1.5"), kPlanOrBudgetError,
                      "wrote .*p\\.csv"});
    }
  }
  runRows(rows);
}

TEST_CASE("bad input: round 4 -- the last silent inputs are refused or warned of by name") {
  const auto nav2 = [](const char* crs) {
    return [=](Fixtures& f) {
      return std::vector<std::string>{"costmap", "--model", f.dir.file("model.mmp"), "--image", f.image, "--resolution", "0.5",
                                      "--origin", "500000,2800000", "--crs", crs, "--nav2", f.dir.file("nav2")};
    };
  };
  const std::string demonstrations_twice =
      "paths:\n  - [[10, 10], [40, 40]]\npaths:\n  - [[20, 20], [60, 60]]\n";
  const std::vector<Row> rows = {
      {"silent", "paths: given twice in a demonstrations YAML (one list dropped before)",
       [&](Fixtures& f) {
         return std::vector<std::string>{"adapt", f.dir.file("model.mmp"), "--image", f.image, "--demonstrations",
                                         f.write("d.yaml", demonstrations_twice), "--out", f.dir.file("a.mmp")};
       },
       1, "d\\.yaml: paths: the key appears twice, on line 1 and on line 3; give it once"},
      {"meaningless", "a vertical --crs for a Nav2 map (heights only: EPSG:5703)", nav2("EPSG:5703"), 1,
       "--nav2: .*vertical \\(heights only\\), which has no map plane"},
      {"meaningless", "a geocentric --crs for a Nav2 map (EPSG:4978)", nav2("EPSG:4978"), 1,
       "--nav2: .*geocentric .*which has no map plane"},
      {"silent", "latitudes beyond the poles written to --raw (EPSG:4326 from 80 degrees, 128 px of 1 degree)",
       [](Fixtures& f) {
         return std::vector<std::string>{"costmap", "--model", f.dir.file("model.mmp"), "--image", f.image, "--resolution", "1",
                                         "--origin", "10,80", "--crs", "EPSG:4326", "--raw", f.dir.file("c.tif")};
       },
       1, "--resolution 1 --origin 10,80: world frame: its latitudes run from 80 to 208 degrees .*beyond the poles"},
      {"meaningless", "a temperature without Boltzmann noise, a margin key under maxent (ignored silently before)",
       [](Fixtures& f) {
         return std::vector<std::string>{
             "train", f.write("c.yaml", trainConfig("demonstrations: {per_region: 4, min_separation_px: 40, seed: 1, temperature: 2}\n"
                                                    "loss: {radius_px: 16, scale: 3}\n"
                                                    "learner: {kind: batch, objective: maxent, batch: {lambda: 0.0001, iterations: 3, "
                                                    "step: constant, step_size: 1, threads: 1}}"))};
       },
       0, "warning: .*c\\.yaml: demonstrations\\.temperature applies to noise: boltzmann only; this config has noise: none"
          "[^]*warning: .*c\\.yaml: loss\\.scale is the margin asked of a path under objective: margin"},
  };
  runRows(rows);
}

TEST_CASE("mmp adapt --image: a file of paths in one adaptation, each path scored held out, avoid and prefer strokes taken") {
  const auto adapt = [](std::vector<std::string> more) {
    return [=](Fixtures& f) {
      std::vector<std::string> args{"adapt", f.dir.file("model.mmp"), "--image", f.image, "--demonstrations",
                                    f.write("p.csv", "path,x,y\n1,4,4\n1,4,100\n1,100,100\n2,120,10\n2,60,60\n3,10,120\n3,90,20\n"),
                                    "--out", f.dir.file("a.mmp")};
      for (const std::string& m : more) {
        args.push_back(m == "STROKES"    ? f.write("s.csv", "path,x,y\n1,40,40\n1,80,80\n")
                       : m == "STROKES2" ? f.write("t.csv", "path,x,y\ntrack,10,70\ntrack,60,120\n")
                                         : m);
      }
      return args;
    };
  };
  const std::vector<Row> rows = {
      {"works", "three paths: one adaptation, then each scored held out (the config form's figure)", adapt({}), 0,
       "taught 3 demonstration\\(s\\) in one adaptation[^]*each demonstration held out \\(the model taught on the other 2[^]*"
       "adapted vs parent: prediction loss"},
      {"works", "an avoid stroke beside the paths", adapt({"--avoid", "STROKES"}), 0,
       "taught 3 demonstration\\(s\\) and 1 mark\\(s\\) in one adaptation"},
      {"works", "a prefer stroke and an avoid stroke beside the paths", adapt({"--prefer", "STROKES2", "--avoid", "STROKES"}), 0,
       "taught 3 demonstration\\(s\\) and 2 mark\\(s\\) in one adaptation"},
      {"refused", "two --prefer files for one image", adapt({"--prefer", "STROKES2", "--prefer", "STROKES2"}), 1,
       "2 --prefer for 1 --image; give at most one file of prefer strokes per image"},
  };
  runRows(rows);
}

TEST_CASE("bad input: round 5 -- mmp --version with more after it is refused, not ignored") {
  runRows({{"silent", "mmp --version extra (printed the version and dropped the rest)",
            [](Fixtures&) { return std::vector<std::string>{"--version", "extra"}; }, 1, "--version takes nothing after it; got 'extra'"}});
}

TEST_CASE("bad input: round 4 -- mmp info escapes the control characters of a model's settings") {
  Fixtures f;
  // A terminal title, a colour, a cursor move and a C1 CSI (U+009B) in a setting of the model.
  const std::string model = f.modelWithSetting("escapes.mmp", "note", "\x1b]0;owned\x07\x1b[31mred\x1b[2A\xc2\x9b" "1m end");
  const Outcome outcome = runMmp(f.dir, {"info", model}, std::chrono::seconds(60));
  INFO(outcome.output);
  CHECK(outcome.exit_code == 0);
  const std::string out = readText(f.dir.file("mmp_output.txt"));
  CHECK(out.find("\\x1B]0;owned\\x07\\x1B[31mred\\x1B[2A\\u009B1m end") != std::string::npos);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find('\x07') == std::string::npos);
  CHECK(out.find("\xc2\x9b") == std::string::npos);
}

TEST_CASE("bad input: every flag of mmp adapt, suggest and serve takes its range from the settings table (issue 67)") {
  const auto adapt = [](std::vector<std::string> flags) {
    return [flags](Fixtures& f) {
      std::vector<std::string> args{"adapt", f.dir.file("model.mmp"), "--image", f.image, "--demonstrations",
                                    f.write("p.csv", "path,x,y\n1,10,10\n1,60,60\n"), "--out", f.dir.file("a.mmp")};
      args.insert(args.end(), flags.begin(), flags.end());
      return args;
    };
  };
  const auto suggest = [](std::vector<std::string> flags) {
    return [flags](Fixtures& f) {
      std::vector<std::string> args{"suggest", f.dir.file("model.mmp"), "--image", f.image, "--out", f.dir.file("s.csv")};
      args.insert(args.end(), flags.begin(), flags.end());
      return args;
    };
  };
  const auto serve = [](std::vector<std::string> flags) {
    return [flags](Fixtures& f) {
      std::vector<std::string> args{"serve", "--model", f.dir.file("model.mmp"), "--images", f.image, "--port", "0"};
      args.insert(args.end(), flags.begin(), flags.end());
      return args;
    };
  };
  const std::vector<Row> rows = {
      {"silent", "mmp adapt --epochs 2000000000 (ran on for hours before)", adapt({"--epochs", "2000000000"}), 1,
       "--epochs: adapt\\.epochs: expected a whole number 1\\.\\.100000, got '2000000000'"},
      {"silent", "mmp adapt --learch-rounds 100000000", adapt({"--learch-rounds", "100000000"}), 1,
       "--learch-rounds: adapt\\.learch_rounds: expected a whole number 1\\.\\.10000, got '100000000'"},
      {"crash", "mmp adapt --threads 100000 (an unnamed 'out of memory' before)", adapt({"--threads", "100000"}), 1,
       "--threads: adapt\\.threads: expected a whole number 0\\.\\.256, got '100000'"},
      {"silent", "mmp adapt --loss-radius nan", adapt({"--loss-radius", "nan"}), 1,
       "--loss-radius: adapt\\.loss\\.radius_px: expected a number in \\(0, 1000000\\], got 'nan'"},
      {"silent", "mmp suggest --min-separation-px -5 (one pair listed four times before)", suggest({"--min-separation-px", "-5"}), 1,
       "--min-separation-px: suggest\\.min_separation_px: expected a number in \\(0, 10000000\\], got '-5'"},
      {"silent", "mmp suggest --min-separation-px 0", suggest({"--min-separation-px", "0"}), 1, "suggest\\.min_separation_px"},
      {"silent", "mmp suggest --seed -1 (taken as 2^64 - 1 before)", suggest({"--seed", "-1"}), 1,
       "--seed: suggest\\.seed: expected a whole number 0\\.\\.2\\^63-1, got '-1'"},
      {"silent", "mmp suggest --spread 1e308 (every pair valued 0 before)", suggest({"--spread", "1e308"}), 1,
       "--spread: suggest\\.spread: expected a number in \\(0, 5\\], got '1e308'"},
      {"crash", "mmp suggest --threads 100000", suggest({"--threads", "100000"}), 1, "--threads: suggest\\.threads: expected a whole number 0\\.\\.256"},
      {"silent", "mmp suggest --rule density", suggest({"--rule", "density"}), 1,
       "--rule: suggest\\.rule: expected one of change, committee, got 'density'"},
      {"crash", "mmp serve --threads 100000", serve({"--threads", "100000"}), 1, "--threads: adapt\\.threads: expected a whole number 0\\.\\.256"},
      {"silent", "mmp serve --max-pixels 0", serve({"--max-pixels", "0"}), 1,
       "--max-pixels: serve\\.max_image_pixels: expected a whole number 1\\.\\.4000000000, got '0'"},
      {"meaningless", "adapt: in a train config (the settings of mmp adapt)",
       [](Fixtures& f) { return std::vector<std::string>{"train", f.write("c.yaml", trainConfig("adapt: {lambda: 3}"))}; }, 1,
       "c\\.yaml: adapt: the settings of mmp adapt .*; mmp train does not read them"},
      {"meaningless", "mmp train --set suggest.rule=committee", [](Fixtures& f) {
         return std::vector<std::string>{"train", f.write("c.yaml", trainConfig("")), "--set", "suggest.rule=committee"};
       },
       1, "suggest: the settings of mmp suggest .*; mmp train does not read them"},
      {"listed", "mmp train --keys lists the adapt.*, suggest.* and serve.* keys",
       [](Fixtures&) { return std::vector<std::string>{"train", "--keys"}; }, 0,
       "`adapt\\.lambda` \\| a number in \\(0, 1000000000000\\][^]*`suggest\\.rule` \\| one of change, committee \\| change[^]*"
       "`serve\\.max_points`"},
  };
  runRows(rows);
}
