#include "train_config.hpp"

#include "demonstration_file.hpp"
#include "learner_config.hpp"

#include <mmp/core/error.hpp>

#include <glob.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

namespace mmp::tools {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
namespace fs = std::filesystem;

std::string stem(const std::string& path) { return fs::path(path).stem().string(); }

std::vector<LabelClass> parseClasses(const ConfigNode& config) {
  if (!config.has("classes")) return syntheticClasses();
  std::vector<LabelClass> classes;
  for (const ConfigNode& item : config.items("classes")) {
    item.expectKeys({"name", "index", "colour"});
    LabelClass c;
    if (!item.has("name")) item.fail("name", "required: the class name");
    if (!item.has("index")) item.fail("index", "required: the class's value in index masks, 0..255");
    c.name = item.text("name", "");
    c.index = static_cast<int>(item.integer("index", 0, 0, 255));
    if (item.has("colour")) {
      try {
        c.rgb = parseHexColour(item.text("colour", ""));
      } catch (const InvalidArgument& e) {
        item.fail("colour", e.what());
      }
    }
    for (const LabelClass& other : classes) {
      if (other.name == c.name) item.fail("name", "'" + c.name + "' is declared twice");
      if (other.index == c.index) item.fail("index", std::to_string(c.index) + " is used by '" + other.name + "' too");
    }
    classes.push_back(c);
  }
  if (classes.empty()) config.fail("classes", "the list is empty; declare at least one class");
  return classes;
}

// A class named by name or by index.
const LabelClass* findClass(const std::vector<LabelClass>& classes, const std::string& key) {
  for (const LabelClass& c : classes) {
    if (c.name == key || std::to_string(c.index) == key) return &c;
  }
  return nullptr;
}

std::string classList(const std::vector<LabelClass>& classes) {
  std::string out;
  for (const LabelClass& c : classes) out += (out.empty() ? "" : ", ") + c.name + " (" + std::to_string(c.index) + ")";
  return out;
}

std::string nearestClass(const std::vector<LabelClass>& classes, const std::string& key) {
  std::string best;
  std::size_t distance = std::string::npos;
  for (const LabelClass& c : classes) {
    const std::size_t d = editDistance(key, c.name);
    if (d < distance) distance = d, best = c.name;
  }
  return best;
}

std::string resolve(const std::string& path, const std::string& base) {
  if (path.empty() || path.front() == '/' || base.empty()) return path;
  return base + "/" + path;
}

std::optional<SyntheticSceneParams> parseSynthetic(const ConfigNode& node) {
  node.expectKeys({"seed", "rows", "cols", "roads", "vegetation_share", "water_share", "buildings", "noise"});
  SyntheticSceneParams p;
  p.seed = static_cast<std::uint64_t>(node.integer("seed", static_cast<long>(p.seed), 0));
  p.rows = static_cast<int>(node.integer("rows", p.rows, 64, 8192));
  p.cols = static_cast<int>(node.integer("cols", p.cols, 64, 8192));
  p.roads = static_cast<int>(node.integer("roads", p.roads, 1, 64));
  p.vegetation_share = node.number("vegetation_share", p.vegetation_share, 0.0, 0.8);
  p.water_share = node.number("water_share", p.water_share, 0.0, 0.5);
  p.buildings = static_cast<int>(node.integer("buildings", p.buildings, 0, 100000));
  p.noise = node.number("noise", p.noise, 0.0, 100.0);
  return p;
}

// A plain image's world frame: resolution (m per pixel), origin [x, y] of its lower-left corner, crs.
FrameSettings parseFrame(const ConfigNode& item) {
  FrameSettings frame;
  if (item.has("resolution") != item.has("origin")) {
    item.fail(item.has("resolution") ? "origin" : "resolution",
              "give 'resolution' (world units per pixel) and 'origin' ([x, y] of the image's lower-left corner) together");
  }
  if (item.has("crs") && !item.has("resolution")) item.fail("crs", "needs 'resolution' and 'origin'");
  if (!item.has("resolution")) return frame;
  frame.resolution = item.number("resolution", 0.0, 1e-12);
  const std::vector<double> origin = item.numbers("origin", {}, -1e300, 1e300);
  if (origin.size() != 2) item.fail("origin", "expected [x, y], got " + std::to_string(origin.size()) + " numbers");
  frame.origin = {origin[0], origin[1]};
  frame.crs = item.text("crs", "");
  return frame;
}

// Why `path` is not a readable file, or "" if it is one.
std::string fileProblem(const std::string& path) {
  std::error_code error;
  if (fs::is_regular_file(path, error)) return "";
  return error && error != std::errc::no_such_file_or_directory ? error.message()
         : fs::exists(path, error)                               ? "not a file"
                                                                 : "not found";
}

// The files matching a glob pattern (`*`, `?`, `[...]`), in byte order of their paths.
std::vector<std::string> matchingFiles(const std::string& pattern) {
  glob_t found{};
  const int status = glob(pattern.c_str(), GLOB_ERR, nullptr, &found);
  std::vector<std::string> files;
  if (status == 0) {
    for (std::size_t i = 0; i < found.gl_pathc; ++i) {
      if (fileProblem(found.gl_pathv[i]).empty()) files.emplace_back(found.gl_pathv[i]);
    }
  }
  globfree(&found);
  std::sort(files.begin(), files.end());
  return files;
}

// `text` with every "{stem}" replaced by `image_stem`.
std::string withStem(std::string text, const std::string& image_stem) {
  for (std::size_t at = text.find("{stem}"); at != std::string::npos; at = text.find("{stem}", at + image_stem.size())) {
    text.replace(at, 6, image_stem);
  }
  return text;
}

// One region from an entry: `image` is the image file's path, already resolved (base applies to the others).
RegionSpec parseRegion(const ConfigNode& item, const std::string& where, const std::string& image, bool training,
                       const std::string& base) {
  RegionSpec r;
  r.where = where;
  r.frame = parseFrame(item);
  r.area = item.text("area", "");
  if (item.has("synthetic")) {
    if (item.has("labels")) item.fail("labels", "a synthetic scene brings its own labels");
    r.synthetic = parseSynthetic(item.child("synthetic"));
    r.name = "synthetic-" + std::to_string(r.synthetic->seed);
    if (item.has("demonstrations")) item.fail("demonstrations", "not available for synthetic scenes (they are generated from the labels)");
    return r;
  }
  const std::string image_stem = stem(image);
  for (const char* file_key : {"image", "labels", "demonstrations"}) {
    const std::string key = file_key;
    if (key != "image" && !item.has(key)) continue;
    const std::string path = key == "image" ? image : resolve(withStem(item.text(key, ""), image_stem), base);
    if (const std::string problem = fileProblem(path); !problem.empty()) {
      item.fail(key == "image" && item.has("images") ? "images" : key,
                "file '" + path + "': " + problem +
                    (base.empty() ? std::string() : " (relative paths start at '" + base + "')"));
    }
    (key == "image" ? r.image : key == "labels" ? r.labels : r.demonstrations_file) = path;
  }
  r.name = image_stem;
  if (!r.demonstrations_file.empty()) r.demonstrations = readDemonstrationFile(r.demonstrations_file);
  if (training && r.labels.empty() && r.demonstrations_file.empty()) {
    item.fail("", "a training image needs 'labels' (demonstrations are then generated from the behaviour) or "
                  "'demonstrations' (a CSV or YAML file of paths)");
  }
  if (!training && r.labels.empty()) {
    item.fail("labels", "required: a holdout image is scored against reference paths planned on its labels");
  }
  return r;
}

// Each entry is one image (`image`), every image a pattern matches (`images`, with `{stem}` in
// `labels` and `demonstrations` standing for each image's file stem), or a synthetic scene.
std::vector<RegionSpec> parseRegions(const ConfigNode& config, const std::string& key, bool training,
                                     const std::string& base) {
  std::vector<RegionSpec> regions;
  for (const ConfigNode& item : config.items(key)) {
    std::vector<std::string> keys = {"image", "images", "area", "labels", "synthetic", "resolution", "origin", "crs"};
    if (training) keys.push_back("demonstrations");
    item.expectKeys(keys);
    const int sources = (item.has("image") ? 1 : 0) + (item.has("images") ? 1 : 0) + (item.has("synthetic") ? 1 : 0);
    if (sources != 1) {
      item.fail("", "give one of 'image' (a file, with 'labels'" + std::string(training ? " or 'demonstrations'" : "") +
                        "), 'images' (a file pattern such as tiles/area3_*.jpg, with labels: masks/{stem}.png) or "
                        "'synthetic' (a generated scene)");
    }
    if (!item.has("images")) {
      regions.push_back(parseRegion(item, item.path(), resolve(item.text("image", ""), base), training, base));
      continue;
    }
    const std::string pattern = item.text("images", "");
    for (const char* file_key : {"labels", "demonstrations"}) {
      if (item.has(file_key) && item.text(file_key, "").find("{stem}") == std::string::npos) {
        item.fail(file_key, "with 'images', name each image's file through {stem}, e.g. masks/{stem}.png");
      }
    }
    const std::vector<std::string> files = matchingFiles(resolve(pattern, base));
    if (files.empty()) {
      item.fail("images", "no file matches '" + resolve(pattern, base) + "'" +
                              (base.empty() ? std::string() : " (relative paths start at '" + base + "')"));
    }
    for (const std::string& file : files) {
      regions.push_back(parseRegion(item, item.path() + " (" + stem(file) + ")", file, training, base));
    }
  }
  return regions;
}

// The `select:` section; every value is tried on the settings here, so a bad one fails at load time.
SelectionSpace parseSelection(const ConfigNode& node, const PipelineSettings& settings) {
  node.expectKeys({"sweeps", "space"});
  SelectionSpace space;
  space.sweeps = static_cast<int>(node.integer("sweeps", space.sweeps, 1, 100));
  if (!node.has("space")) node.fail("space", "required: a map of setting -> list of values to try");
  const ConfigNode s = node.child("space");
  std::vector<std::string> known;
  for (const auto& [name, what] : selectionKeys()) known.push_back(name);
  s.expectKeys(known);
  for (const std::string& key : s.keys()) {
    SelectionKey k{key, s.texts(key, {})};
    if (k.values.empty()) s.fail(key, "list at least one value");
    for (std::size_t i = 0; i < k.values.size(); ++i) {
      PipelineSettings check = settings;
      try {
        applySetting(check, key, k.values[i]);
        validate(check);
      } catch (const Error& e) {
        const std::string what = e.what();
        s.fail(key + "[" + std::to_string(i) + "]", what.substr(what.rfind(": ") + 2));
      }
    }
    space.keys.push_back(std::move(k));
  }
  if (space.keys.empty()) node.fail("space", "name at least one setting");
  return space;
}

// kind: learch, and its section learch: {rounds, step, depth, min_leaf_samples, samples, max_cost_ratio,
// seed, start: uniform | batch | online}.  start batch or online starts LEARCH from the weights of that
// linear learner (its section's parameters, exponential costs): it sets learner.kind to it.
void parseLearch(const ConfigNode& learner, CostLearnerSettings& s) {
  LearchSettings& l = s.learch;
  l.enabled = learner.text("kind", "") == "learch";
  if (!l.enabled) {
    if (learner.has("learch")) learner.fail("learch", "applies with kind: learch only");
    return;
  }
  const ConfigNode node = learner.child("learch");
  node.expectKeys({"rounds", "step", "depth", "min_leaf_samples", "samples", "max_cost_ratio", "seed", "start"});
  l.rounds = static_cast<int>(node.integer("rounds", l.rounds, 1, 100000));
  l.step = node.number("step", l.step, std::numeric_limits<double>::min(), kInf);
  l.depth = static_cast<int>(node.integer("depth", l.depth, 1, 16));
  l.min_leaf_samples = static_cast<int>(node.integer("min_leaf_samples", l.min_leaf_samples, 1, 100000000));
  l.samples = static_cast<int>(node.integer("samples", l.samples, 1, 100000000));
  l.max_cost_ratio = node.number("max_cost_ratio", l.max_cost_ratio, 1.0, kInf);
  if (!(l.max_cost_ratio > 1.0)) node.fail("max_cost_ratio", "expected a number > 1, got 1");
  l.seed = static_cast<std::uint64_t>(node.integer("seed", static_cast<long>(l.seed), 0));
  const std::string start = node.choice("start", l.from_linear ? describe(s.kind) : "uniform", {"uniform", "batch", "online"});
  l.from_linear = start != "uniform";
  if (l.from_linear) s.kind = parseLearnerKind(start);
}

}  // namespace

Behaviour parseBehaviour(const ConfigNode& node, const std::vector<LabelClass>& classes) {
  node.expectKeys({"name", "preferred", "costs"});
  if (!node.has("name")) node.fail("name", "required: a name for the behaviour, e.g. follow_road");
  if (!node.has("costs")) node.fail("costs", "required: a cost per class (class name or index: number > 0, or inf)");
  if (!node.has("preferred")) node.fail("preferred", "required: the class the behaviour seeks (scored as preferred_share)");
  const ConfigNode costs = node.child("costs");
  std::vector<std::pair<std::string, double>> cost_list;
  for (const std::string& key : costs.keys()) {
    if (findClass(classes, key) == nullptr) {
      costs.fail(key, "unknown class; did you mean '" + nearestClass(classes, key) + "'? (declared: " +
                          classList(classes) + ")");
    }
    const std::string text = costs.text(key, "");
    double cost = kInf;
    if (!(text == "inf" || text == "Inf" || text == "INF" || text == ".inf" || text == ".Inf" || text == "impassable")) {
      try {
        cost = costs.number(key, 0.0);
      } catch (const ConfigError&) {
        cost = 0.0;
      }
      if (!(cost > 0.0) || !std::isfinite(cost)) costs.fail(key, "expected a cost > 0 or inf (impassable), got '" + text + "'");
    }
    cost_list.emplace_back(key, cost);
  }
  const std::string preferred = node.text("preferred", "");
  if (findClass(classes, preferred) == nullptr) {
    node.fail("preferred", "unknown class '" + preferred + "'; did you mean '" + nearestClass(classes, preferred) + "'?");
  }
  try {
    return Behaviour::make(node.text("name", ""), classes, cost_list, preferred);
  } catch (const InvalidArgument& e) {  // a class without a cost or given two, or an impassable preferred class
    const std::string what = e.what();
    const std::string reason = what.substr(what.find(": ") + 2);  // without "behaviour '<name>': "
    node.fail(reason.find("preferred") != std::string::npos ? "preferred" : "costs", reason);
  }
  return {};
}

TrainConfig loadTrainConfig(const std::string& path, const std::string& data_root_flag, const std::string& output_flag,
                            const std::vector<std::string>& overrides) {
  const ConfigNode config = ConfigNode::load(path, overrides);
  config.expectKeys({"data_root", "output_dir", "classes", "behaviour", "train", "holdout", "features",
                     "demonstrations", "loss", "learner", "evaluation", "classifier", "select"});
  TrainConfig c;
  c.source = path;
  c.data_root = resolveDataRoot(data_root_flag, config);
  c.output_dir = !output_flag.empty() ? output_flag : config.text("output_dir", "out/" + stem(path));
  c.classes = parseClasses(config);
  if (!config.has("behaviour")) config.fail("behaviour", "required: {name, preferred, costs}");
  c.behaviour = parseBehaviour(config.child("behaviour"), c.classes);

  const std::string base = !c.data_root.empty() ? c.data_root : config.folder();
  if (!config.has("train")) config.fail("train", "required: a list of training images");
  if (!config.has("holdout")) config.fail("holdout", "required: a list of holdout images");
  c.train = parseRegions(config, "train", true, base);
  c.holdout = parseRegions(config, "holdout", false, base);
  if (c.train.empty()) config.fail("train", "the list is empty");
  if (c.holdout.empty()) config.fail("holdout", "the list is empty");

  const ConfigNode f = config.child("features");
  f.expectKeys({"cell_size", "blur_sigmas", "colour_spaces", "gradient", "texture_windows", "complements",
                "bins", "scaling_quantile", "class_scores", "class_context_px"});
  c.features.cell_size = static_cast<int>(f.integer("cell_size", c.features.cell_size, 1, 256));
  c.features.blur_sigmas = f.numbers("blur_sigmas", c.features.blur_sigmas, 0.0, 1000.0);
  if (c.features.blur_sigmas.empty()) f.fail("blur_sigmas", "list at least one scale (0 = no blur)");
  const std::vector<std::string> spaces = f.texts("colour_spaces", {"rgb", "hsv", "lab"}, {"rgb", "hsv", "lab"});
  if (spaces.empty()) f.fail("colour_spaces", "list at least one of rgb, hsv, lab");
  auto uses = [&](const char* s) { return std::find(spaces.begin(), spaces.end(), s) != spaces.end(); };
  c.features.rgb = uses("rgb");
  c.features.hsv = uses("hsv");
  c.features.lab = uses("lab");
  c.features.gradient = f.boolean("gradient", c.features.gradient);
  std::vector<long> windows(c.features.texture_windows.begin(), c.features.texture_windows.end());
  windows = f.integers("texture_windows", windows, 3, 255);
  c.features.texture_windows.clear();
  for (std::size_t i = 0; i < windows.size(); ++i) {
    if (windows[i] % 2 == 0) f.fail("texture_windows[" + std::to_string(i) + "]", "a window side must be odd, got " + std::to_string(windows[i]));
    c.features.texture_windows.push_back(static_cast<int>(windows[i]));
  }
  c.features.bins = static_cast<int>(f.integer("bins", 0, 0, 64));
  if (c.features.bins == 1) f.fail("bins", "expected 0 (plain features) or 2..64 soft bins per feature, got 1");
  c.features.complements = f.boolean("complements", c.features.bins == 0);
  if (c.features.bins >= 2 && c.features.complements) {
    f.fail("complements", "complements are redundant with bins (the bins of a feature sum to 1); set complements: false");
  }
  c.features.scaling_quantile = f.number("scaling_quantile", c.features.scaling_quantile, 0.0, 0.49);
  c.class_scores = f.boolean("class_scores", c.class_scores);
  c.class_context_px = f.numbers("class_context_px", {}, c.features.cell_size, 100000.0);

  const ConfigNode d = config.child("demonstrations");
  d.expectKeys({"per_region", "min_separation_px", "seed"});
  c.demonstrations.per_region = static_cast<int>(d.integer("per_region", c.demonstrations.per_region, 1, 100000));
  c.demonstrations.min_separation_px = d.number("min_separation_px", c.demonstrations.min_separation_px, 0.0, kInf);
  c.demonstrations.seed = static_cast<std::uint64_t>(d.integer("seed", static_cast<long>(c.demonstrations.seed), 0));

  const ConfigNode l = config.child("loss");
  l.expectKeys({"shape", "radius_px", "scale", "length_weighting", "by_class", "impassable_factor"});
  c.loss.shape = parseLossShape(l.choice("shape", describe(c.loss.shape), {"linear", "step", "gaussian"}));
  c.loss.radius_px = l.number("radius_px", c.loss.radius_px, 1e-9, kInf);
  c.loss.scale = l.number("scale", c.loss.scale, 1e-9, kInf);
  c.loss.length_weighting = l.boolean("length_weighting", c.loss.length_weighting);
  c.loss.by_class = l.boolean("by_class", c.loss.by_class);
  c.loss.impassable_factor = l.number("impassable_factor", c.loss.impassable_factor, 1.0, kInf);

  const ConfigNode learner = config.child("learner");
  learner.expectKeys({"kind", "costs", "min_cost", "calibrate_bias", "online", "batch", "learch"});
  static_cast<LearnerSettings&>(c.learner) = learnerSettings(learner, "kind", c.learner, {"learch"});
  parseLearch(learner, c.learner);
  c.learner.min_cost = learner.number("min_cost", c.learner.min_cost, 1e-9, kInf);
  c.learner.calibrate_bias = learner.boolean("calibrate_bias", c.learner.calibrate_bias);
  c.learner.costs = parseCostForm(learner.choice("costs", describe(c.learner.costs), {"linear", "exponential"}));

  const ConfigNode e = config.child("evaluation");
  e.expectKeys({"pairs", "min_separation_px", "seed", "impassable_cost", "panel_paths", "panel_height",
                "panel_format"});
  c.evaluation.pairs = static_cast<int>(e.integer("pairs", c.evaluation.pairs, 1, 100000));
  c.evaluation.min_separation_px = e.number("min_separation_px", c.evaluation.min_separation_px, 0.0, kInf);
  c.evaluation.seed = static_cast<std::uint64_t>(e.integer("seed", static_cast<long>(c.evaluation.seed), 0));
  if (e.has("impassable_cost")) c.evaluation.impassable_cost = e.number("impassable_cost", 0.0, 1e-9, 1e12);
  c.evaluation.panel_paths = static_cast<int>(e.integer("panel_paths", c.evaluation.panel_paths, 0, 1000));
  c.evaluation.panel_height = static_cast<int>(e.integer("panel_height", c.evaluation.panel_height, 64, 4096));
  c.evaluation.panel_format = e.choice("panel_format", c.evaluation.panel_format, {"png", "jpg"});

  const ConfigNode k = config.child("classifier");
  k.expectKeys({"enabled", "lambda", "iterations", "step_size", "samples", "seed", "cost_scales"});
  c.classifier.enabled = k.boolean("enabled", c.classifier.enabled);
  c.classifier.lambda = k.number("lambda", c.classifier.lambda, 0.0, kInf);
  c.classifier.iterations = k.integer("iterations", c.classifier.iterations, 1, 1000000);
  c.classifier.step_size = k.number("step_size", c.classifier.step_size, 1e-12, kInf);
  c.classifier.samples = static_cast<int>(k.integer("samples", c.classifier.samples, 10, 10000000));
  c.classifier.seed = static_cast<std::uint64_t>(k.integer("seed", static_cast<long>(c.classifier.seed), 0));
  c.classifier.cost_scales = k.numbers("cost_scales", c.classifier.cost_scales, 1e-6, 1e6);
  if (c.classifier.cost_scales.empty()) k.fail("cost_scales", "list at least one cost scale > 0");
  validate(c);  // what the settings must satisfy together, as for any caller of the library
  if (config.has("select")) c.select = parseSelection(config.child("select"), c);
  return c;
}

}  // namespace mmp::tools
