#include "fuzz_targets.hpp"

#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/maps/training/evaluation.hpp>
#include <mmp/datasets/gzip_file.hpp>
#include <mmp/datasets/letters.hpp>
#include <mmp/datasets/multilabel_data.hpp>
#include <mmp/frontend/multilabel_experiment.hpp>
#include <mmp/frontend/train_config.hpp>

#include "support.hpp"  // test::withModelChecksum

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/serve/serve_api.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace mmp::fuzz {
namespace {

namespace fs = std::filesystem;

// The scratch folder of this process, removed at exit.  One per process, because libFuzzer's -fork
// and -jobs modes and parallel CTest runs start several processes at once.
class ScratchFolder {
 public:
  ScratchFolder() : root_(fs::temp_directory_path() / ("mmp_fuzz_" + std::to_string(::getpid()))) {}
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  /// The folder of one target, created on first use.
  fs::path folder(const char* target) const {
    const fs::path dir = root_ / target;
    fs::create_directories(dir);
    return dir;
  }

 private:
  fs::path root_;
};

// Writes the input to `name` in the target's folder.  A failure here is the harness's, not the
// loader's, so it throws std::runtime_error, which no entry function catches.
std::string writeInput(const char* target, const char* name, const std::uint8_t* data, std::size_t size) {
  static const ScratchFolder scratch;
  const std::string path = (scratch.folder(target) / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw std::runtime_error("fuzz harness: cannot write the input to '" + path + "'");
  return path;
}

// A deterministic BGR image of side x side pixels with some structure (stripes and a gradient), so
// that every feature (colour, edges, texture) takes more than one value.
cv::Mat probeImage(int side) {
  cv::Mat image(side, side, CV_8UC3);
  for (int r = 0; r < side; ++r) {
    for (int c = 0; c < side; ++c) {
      image.at<cv::Vec3b>(r, c) = cv::Vec3b(static_cast<std::uint8_t>((r * 37 + c * 11) % 256),
                                            static_cast<std::uint8_t>((c / 3 % 2) * 200 + 20),
                                            static_cast<std::uint8_t>(255 - (r * 7) % 256));
    }
  }
  return image;
}

// Class lists for label masks: a few classes (most masks break them: the error paths) and all 256
// indices with grey colours (every index mask and every grey colour mask is valid: the cell paths).
std::vector<LabelClass> fewClasses() {
  return {{"black", 0, std::array<std::uint8_t, 3>{0, 0, 0}},
          {"white", 1, std::array<std::uint8_t, 3>{255, 255, 255}},
          {"red", 2, std::array<std::uint8_t, 3>{255, 0, 0}}};
}

std::vector<LabelClass> allClasses() {
  std::vector<LabelClass> classes;
  for (int i = 0; i < 256; ++i) {
    const auto v = static_cast<std::uint8_t>(i);
    classes.push_back({"grey" + std::to_string(i), i, std::array<std::uint8_t, 3>{v, v, v}});
  }
  return classes;
}

// With MMP_FUZZ_VERBOSE set, says how each input ended (for checking that seeds reach deep).
void outcome(const char* target, const char* what) {
  static const bool verbose = std::getenv("MMP_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "[%s] %s\n", target, what);
}

// What `mmp plan` and `mmp costmap` do with a model file (tools/cli/plan_command.cpp): load it as a CostModel
// (the model file, the feature stack, a LEARCH model's trees), map an image with its stack and turn
// the map into costs with its weights and trees.
void useModelFile(const std::string& path) {
  try {
    const CostModel model = CostModel::load(path);
    // Two cells a side (at least 16 pixels, at most 256): larger cells make the map fail, as it should.
    const int side = std::clamp(2 * model.features().settings().cell_size, 16, 256);
    model.costs(model.features().map(probeImage(side)));
    outcome("model_file", "costs computed");
  } catch (const Error& e) {
    outcome("model_file", e.what());
  }
}

// A small linear model for the rasters: 2-pixel cells, a blur and a texture window, fitted on a probe.
const CostModel& rasterModel() {
  static const CostModel model = [] {
    FeatureSettings settings;
    settings.cell_size = 2;
    settings.blur_sigmas = {0.0, 2.0};
    settings.texture_windows = {3};
    settings.bins = 4;
    settings.complements = false;
    const RawFeatures raw = computeRawFeatures(probeImage(16), settings);
    FeatureStack stack = FeatureStack::fit(settings, {&raw});
    Eigen::VectorXd w = Eigen::VectorXd::Constant(stack.features(), 0.25);
    w[kBiasIndex] = 1.0;
    return CostModel(std::move(stack), w, CostForm::Linear, {}, "fuzz model");
  }();
  return model;
}


// One teaching page's server for the process: the small linear model above, saved, and a 64 x 64 px probe image.
serve::ServeApi& serveApi() {
  static serve::ServeApi* api = [] {
    static const ScratchFolder folder;
    const fs::path dir = folder.folder("serve_api");
    rasterModel().save((dir / "model.mmp").string());
    if (!cv::imwrite((dir / "probe.png").string(), probeImage(64))) throw std::runtime_error("fuzz harness: cannot write probe.png");
    serve::ServeSettings settings;
    settings.model = (dir / "model.mmp").string();
    settings.images = {(dir / "probe.png").string()};
    settings.out = (dir / "saved.mmp").string();
    settings.max_picture_px = 64;
    settings.max_ompl_budget = 0.05;
    settings.adaptation.epochs = 2;
    return new serve::ServeApi(settings);  // kept for the process (its temporary folder goes with the scratch folder)
  }();
  return *api;
}

}  // namespace

int fuzzServe(const std::uint8_t* data, std::size_t size) {
  // "METHOD PATH[?key=value&...]\n" then the body, as the HTTP layer would hand them over (decoded).
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::size_t eol = bytes.find('\n');
  const std::string line = bytes.substr(0, eol);
  serve::Request request;
  request.body = eol == std::string::npos ? "" : bytes.substr(eol + 1);
  const std::size_t space = line.find(' ');
  request.method = line.substr(0, space);
  const std::string target = space == std::string::npos ? "/" : line.substr(space + 1);
  const std::size_t question = target.find('?');
  request.path = target.substr(0, question);
  if (question != std::string::npos) {
    std::stringstream query(target.substr(question + 1));
    std::string pair;
    while (std::getline(query, pair, '&')) {
      const std::size_t eq = pair.find('=');
      request.query[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
    }
  }
  serve::ServeApi& api = serveApi();
  const serve::Response response = api.handle(request);  // never throws
  if (response.status >= 500) throw std::logic_error("fuzz harness: the server failed: " + response.body);
  if (response.status >= 400 && response.body.find("\"error\"") == std::string::npos) {
    throw std::logic_error("fuzz harness: a refusal without an error message: " + response.body);
  }
  // Teaching accumulates state: keep at most a few demonstrations so that each input stays fast.
  const serve::Response session = api.handle({"GET", "/api/session", {}, ""});
  if (session.body.find("\"index\":4") != std::string::npos) api.handle({"POST", "/api/undo", {}, ""});
  outcome("serve", (std::to_string(response.status) + " " + request.path.substr(0, 60)).c_str());
  return 0;
}

int fuzzGeoTiff(const std::uint8_t* data, std::size_t size) {
  const auto starts = [&](const char* magic) { return size >= 4 && std::equal(magic, magic + 4, data); };
  if (!starts("II*\0") && !starts("MM\0*") && !starts("II+\0") && !starts("MM\0+")) return 0;
  const std::string path = writeInput("geotiff", "raster.tif", data, size);
  try {
    // A header of a few hundred bytes may declare up to the 2^27 px mmp reads whole, which takes a
    // second and over 1 GB under ASan to read (zeros, for a sparse file): libFuzzer then runs a few
    // inputs a second, all mutations of one such header.  A raster declared larger than 2^22 px is
    // read through a window of it instead (the same reader, block checks and frame).
    const RasterWindowReader reader(path);
    if (static_cast<double>(reader.rows()) * reader.cols() > 4194304.0) {
      const GeoImage window = reader.read(cv::Rect(0, 0, std::min(reader.cols(), 64), std::min(reader.rows(), 64)));
      if (window.pixels.empty()) throw std::logic_error("fuzz harness: an empty window read without an error");
      outcome("geotiff", "declared too large to read whole here; a window read");
      return 0;
    }
    const GeoImage image = loadGeoImage(path);
    if (image.valid.empty() == false && (image.valid.size != image.pixels.size || image.valid.type() != CV_8UC1)) {
      throw std::logic_error("fuzz harness: loadGeoImage gave a valid mask unlike its pixels");
    }
    // Feature maps cost time with the area: large (declared) rasters stop at the reader's checks.
    if (static_cast<double>(image.pixels.rows) * image.pixels.cols > 256.0 * 256.0) {
      outcome("geotiff", "read; too large to map here");
      return 0;
    }
    TileSettings tiles;
    tiles.threads = 1;
    const CostGrid grid = rasterModel().costs(image, tiles);
    const std::vector<float> raster = rasterCosts(grid.costs.data(), grid.costs.size(), grid.cols, 0, "fuzz model");
    for (std::size_t s = 0; s < raster.size(); ++s) {
      const bool unknown = !grid.unknown.empty() && grid.unknown[s] != 0;
      if (unknown != std::isinf(raster[s])) throw std::logic_error("fuzz harness: a cell is +inf but not unknown, or back");
    }
    outcome("geotiff", "cost map computed");
  } catch (const Error& e) {
    outcome("geotiff", e.what());
  }
  return 0;
}

int fuzzModelFile(const std::uint8_t* data, std::size_t size) {
  useModelFile(writeInput("model_file", "model.mmp", data, size));
  // A model file ends in a checksum of all bytes before it (u64, little-endian) and an 8-byte end
  // marker.  Almost every mutation breaks the checksum, so the loader would stop there and the parts
  // read after it (finiteness, the feature stack, the costs) would never see a mutated file: the same
  // bytes go in a second time with the checksum made to match.
  if (size < 16) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string repaired = test::withModelChecksum(bytes);
  if (repaired != bytes) {
    useModelFile(writeInput("model_file", "model.mmp", reinterpret_cast<const std::uint8_t*>(repaired.data()), size));
  }
  return 0;
}

int fuzzTrainConfig(const std::uint8_t* data, std::size_t size) {
  // $MMP_DATA_ROOT would redirect the config's relative paths: the outcome must depend on the bytes only.
  static const bool unset = ::unsetenv("MMP_DATA_ROOT") == 0;
  (void)unset;
  // The folder holds only this file: a config naming `train.yaml` (or `.`) as an image finds it.
  const std::string path = writeInput("train_config", "train.yaml", data, size);
  try {
    tools::loadTrainConfig(path, "", "");
    outcome("train_config", "config valid");
  } catch (const Error& e) {
    outcome("train_config", e.what());
  }
  return 0;
}

int fuzzDemonstration(const std::uint8_t* data, std::size_t size) {
  // The extension picks the format: the same bytes are read as both.
  for (const char* name : {"paths.csv", "paths.yaml"}) {
    const std::string path = writeInput("demonstration", name, data, size);
    try {
      // What training does with them: cells of a 32 x 32 grid of 4-pixel cells.
      for (const PixelPath& p : tools::readDemonstrationFile(path)) pathCells(p, 4, 32, 32, path);
      outcome("demonstration", "paths rasterised");
    } catch (const Error& e) {
      outcome("demonstration", e.what());
    }
  }
  return 0;
}

int fuzzLetters(const std::uint8_t* data, std::size_t size) {
  const std::string path = writeInput("letters", "letter.data", data, size);
  try {
    std::istringstream text(datasets::readMaybeGzip(path));
    const datasets::LetterData letters = datasets::parseLetters(text, path);
    datasets::groupWords(letters);
    outcome("letters", "words grouped");
  } catch (const Error& e) {
    outcome("letters", e.what());
  }
  return 0;
}

int fuzzMultilabel(const std::uint8_t* data, std::size_t size) {
  const std::string path = writeInput("multilabel", "rows.svm", data, size);
  try {
    // As `mmp multilabel` with the dimensions left to the file: the table, then the model on it.
    const datasets::MultilabelTable table = datasets::readLibsvmMultilabel(path);
    if (table.labels >= 1 && table.labels <= 8) {
      tools::multilabelModel(table, tools::labelGraph("complete", table.labels));
      outcome("multilabel", "LIBSVM model built");
    }
    outcome("multilabel", "LIBSVM read");
  } catch (const Error& e) {
    outcome("multilabel", e.what());
  }
  // The same bytes as a MULAN ARFF file with two labels, and as its XML label file.
  static const std::string labels = "<labels><label name=\"a\"/><label name=\"b\"/></labels>";
  static const std::string xml =
      writeInput("multilabel", "labels.xml", reinterpret_cast<const std::uint8_t*>(labels.data()), labels.size());
  try {
    datasets::readMulanArff(writeInput("multilabel", "rows.arff", data, size), xml);
    outcome("multilabel", "ARFF read");
  } catch (const Error& e) {
    outcome("multilabel", e.what());
  }
  try {
    datasets::parseMulanLabels(std::string_view(reinterpret_cast<const char*>(data), size), path);
    outcome("multilabel", "XML labels read");
  } catch (const Error& e) {
    outcome("multilabel", e.what());
  }
  return 0;
}

int fuzzPairs(const std::uint8_t* data, std::size_t size) {
  const std::string path = writeInput("pairs", "pairs.csv", data, size);
  try {
    readPairRecords(path);
    outcome("pairs", "records read");
  } catch (const Error& e) {
    outcome("pairs", e.what());
  }
  return 0;
}

int fuzzImage(const std::uint8_t* data, std::size_t size) {
  // OpenCV picks the decoder by the file's signature, not its name.
  const std::string path = writeInput("image", "image", data, size);
  try {
    loadImage(path);
    outcome("image", "image loaded");
  } catch (const Error& e) {
    outcome("image", e.what());
  }
  static const std::vector<LabelClass> few = fewClasses(), all = allClasses();
  for (const std::vector<LabelClass>* classes : {&few, &all}) {
    try {
      const cv::Mat mask = loadLabelMask(path, *classes);
      cellLabels(mask, 1);
      cellLabels(mask, 3);  // throws InvalidArgument on a mask smaller than a cell
      outcome("image", "mask cells labelled");
    } catch (const Error& e) {
      outcome("image", e.what());
    }
  }
  return 0;
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {{"model_file", fuzzModelFile},     {"train_config", fuzzTrainConfig},
                                          {"demonstration", fuzzDemonstration}, {"letters", fuzzLetters},
                                          {"pairs", fuzzPairs},             {"image", fuzzImage},
                                          {"multilabel", fuzzMultilabel},   {"geotiff", fuzzGeoTiff},
                                          {"serve", fuzzServe}};
  return all;
}

}  // namespace mmp::fuzz
