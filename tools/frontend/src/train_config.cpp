#include <mmp/frontend/train_config.hpp>
#include <mmp/core/numbers.hpp>

#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/frontend/learner_config.hpp>

#include <mmp/maps/training/setting_keys.hpp>

#include <mmp/core/error.hpp>

#include <glob.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

namespace mmp::tools {
namespace {

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
  std::vector<std::string> names;
  for (const LabelClass& c : classes) names.push_back(c.name);
  return nearestName(key, names);
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

}  // namespace

FrameSettings readFrame(const ConfigNode& item) {
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

namespace {

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

// The strokes of the entry's mark files (avoid:, prefer:), once their paths are known.
void readMarks(RegionSpec& r) {
  if (!r.avoid_file.empty()) r.avoid = readDemonstrationFile(r.avoid_file);
  if (!r.prefer_file.empty()) r.prefer = readDemonstrationFile(r.prefer_file);
}

// One region from an entry: `image` is the image file's path, already resolved (base applies to the others).
RegionSpec parseRegion(const ConfigNode& item, const std::string& where, const std::string& image, bool training,
                       const std::string& base) {  // (the keys were checked by readRegionEntry)
  RegionSpec r;
  r.where = where;
  r.frame = readFrame(item);
  r.area = item.text("area", "");
  if (item.has("synthetic")) {
    if (item.has("labels")) item.fail("labels", "a synthetic scene brings its own labels");
    r.synthetic = parseSynthetic(item.child("synthetic"));
    r.name = "synthetic-" + std::to_string(r.synthetic->seed);
    if (item.has("demonstrations")) item.fail("demonstrations", "not available for synthetic scenes (they are generated from the labels)");
    for (const char* key : {"avoid", "prefer"}) {
      if (!item.has(key)) continue;
      std::string& file = std::string(key) == "avoid" ? r.avoid_file : r.prefer_file;
      file = resolve(item.text(key, ""), base);
      if (const std::string problem = fileProblem(file); !problem.empty()) item.fail(key, "file '" + file + "': " + problem);
    }
    readMarks(r);
    return r;
  }
  const std::string image_stem = stem(image);
  for (const char* file_key : {"image", "labels", "demonstrations", "avoid", "prefer"}) {
    const std::string key = file_key;
    if (key != "image" && !item.has(key)) continue;
    const std::string path = key == "image" ? image : resolve(withStem(item.text(key, ""), image_stem), base);
    if (const std::string problem = fileProblem(path); !problem.empty()) {
      item.fail(key == "image" && item.has("images") ? "images" : key,
                "file '" + path + "': " + problem +
                    (base.empty() ? std::string() : " (relative paths start at '" + base + "')"));
    }
    (key == "image" ? r.image : key == "labels" ? r.labels : key == "avoid" ? r.avoid_file : key == "prefer" ? r.prefer_file : r.demonstrations_file) = path;
  }
  r.name = image_stem;
  if (!r.demonstrations_file.empty()) r.demonstrations = readDemonstrationFile(r.demonstrations_file);
  readMarks(r);
  if (training && r.labels.empty() && r.demonstrations_file.empty()) {
    item.fail("", "a training image needs 'labels' (demonstrations are then generated from the behaviour) or "
                  "'demonstrations' (a CSV or YAML file of paths)");
  }
  if (!training && r.labels.empty()) {
    item.fail("labels", "required: a holdout image is scored against reference paths planned on its labels");
  }
  return r;
}

std::vector<RegionSpec> parseRegions(const ConfigNode& config, const std::string& key, bool training,
                                     const std::string& base) {
  std::vector<RegionSpec> regions;
  for (const ConfigNode& item : config.items(key)) {
    std::vector<RegionSpec> entry = readRegionEntry(item, training, base);
    regions.insert(regions.end(), entry.begin(), entry.end());
  }
  return regions;
}

// The `select:` section; every value is tried on the settings here, so a bad one fails at load time.
SelectionSpace parseSelection(const ConfigNode& node, const PipelineSettings& settings) {
  node.expectKeys({"sweeps", "space", "rule", "score", "rungs", "eta", "threads", "pairs_seed", "pairs"});
  SelectionSpace space;
  space.sweeps = static_cast<int>(node.integer("sweeps", space.sweeps, 1, 100));
  space.rule = parseSelectionRule(node.choice("rule", describe(space.rule), {"paired", "lowest"}));
  space.score = parseSelectionScore(node.choice("score", describe(space.score), {"pooled", "area_median"}));
  space.rungs = static_cast<int>(node.integer("rungs", space.rungs, 1, 10));
  space.eta = static_cast<int>(node.integer("eta", space.eta, 1, 10));
  space.threads = static_cast<int>(node.integer("threads", space.threads, 0, 256));
  if (node.has("pairs_seed")) {
    space.pairs_seed = static_cast<std::uint64_t>(node.integer("pairs_seed", 0, 0, std::numeric_limits<long>::max()));
  }
  if (node.has("pairs")) space.pairs = static_cast<int>(node.integer("pairs", 0, 1, 100000));
  if (!node.has("space")) node.fail("space", "required: a map of setting -> list of values to try");
  const ConfigNode s = node.child("space");
  std::vector<std::string> known;
  for (const SettingKey& k : settingKeys()) {
    if (k.selectable) known.push_back(k.key);
  }
  s.expectKeys(known);
  for (const std::string& key : s.keys()) {
    SelectionKey k{key, s.valueTexts(key)};
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

// A whole number's bound as a long (the seeds' upper bound, 2^63 - 1, is not exact as a double).
long longBound(double v) {
  constexpr double kLongMax = static_cast<double>(std::numeric_limits<long>::max());
  if (v >= kLongMax) return std::numeric_limits<long>::max();
  if (v <= -kLongMax) return std::numeric_limits<long>::min();
  return static_cast<long>(v);
}

// The section "a.b" of the config (an empty map where it is missing).  Never assign ConfigNodes: a
// yaml-cpp node assigned to is overwritten in the tree it belongs to.
ConfigNode sectionOf(const ConfigNode& config, const std::string& dotted) {
  const std::size_t dot = dotted.find('.');
  if (dot == std::string::npos) return config.child(dotted);
  return sectionOf(config.child(dotted.substr(0, dot)), dotted.substr(dot + 1));
}

}  // namespace

void readSettingKeys(const ConfigNode& config, PipelineSettings& s, SettingCommand command) {
  for (const SettingKey& k : settingKeys()) {
    if (!k.in_config || k.command != command) continue;
    const std::string leaf = k.key.substr(k.key.rfind('.') + 1);
    const ConfigNode node = sectionOf(config, k.key.substr(0, k.key.rfind('.')));
    if (!node.has(leaf)) continue;
    SettingValue v;
    switch (k.type) {
      case SettingType::Number:
        if (k.candidates && node.isList(leaf)) {
          v.numbers = node.numbers(leaf, {}, k.low, k.high);
          if (v.numbers.empty()) node.fail(leaf, "give " + rangeText(k));
        } else {
          v.number = node.number(leaf, 0.0, k.low, k.high);
        }
        break;
      case SettingType::Integer: v.integer = node.integer(leaf, 0, longBound(k.low), longBound(k.high)); break;
      case SettingType::Boolean: v.boolean = node.boolean(leaf, false); break;
      case SettingType::Choice: v.choice = node.choice(leaf, k.valid.front(), k.valid); break;
      case SettingType::Numbers: v.numbers = node.numbers(leaf, {}, k.low, k.high); break;
      case SettingType::Integers: v.integers = node.integers(leaf, {}, longBound(k.low), longBound(k.high)); break;
      case SettingType::Choices: v.choices = node.texts(leaf, {}, k.valid); break;
    }
    try {
      k.set(s, v);
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();  // "[i]: reason" for an item of a list, else the reason
      if (what.front() == '[') node.fail(leaf + what.substr(0, what.find(']') + 1), what.substr(what.find(": ") + 2));
      node.fail(leaf, what);
    }
  }
}

std::vector<std::string> sectionKeys(const std::string& section, SettingCommand command, std::vector<std::string> more) {
  for (const SettingKey& k : settingKeys()) {
    if (k.in_config && k.command == command && k.key.rfind(section + ".", 0) == 0 &&
        k.key.find('.', section.size() + 1) == std::string::npos) {
      more.push_back(k.key.substr(section.size() + 1));
    }
  }
  return more;
}

void refuseOtherCommands(const ConfigNode& config, SettingCommand command) {
  for (const SettingKey& k : settingKeys()) {
    const std::string section = k.key.substr(0, k.key.find('.'));
    if (k.command == command || k.command == SettingCommand::Train || !config.has(section)) continue;
    std::string of = "the settings of " + describe(k.command) + " (" + section + ".*";
    of += k.command == SettingCommand::Adapt ? ": an adapt config's adapt: section, mmp adapt --set or its flags)"
                                             : ": its flags)";
    config.fail(section, of + "; " + describe(command) + " does not read them");
  }
}

std::vector<RegionSpec> readRegionEntry(const ConfigNode& item, bool training, const std::string& base, bool teaching) {
  std::vector<std::string> keys = {"image", "images", "area", "labels", "synthetic", "resolution", "origin", "crs"};
  if (training) keys.push_back("demonstrations");
  if (teaching) keys.insert(keys.end(), {"avoid", "prefer"});
  item.expectKeys(keys);
  const int sources = (item.has("image") ? 1 : 0) + (item.has("images") ? 1 : 0) + (item.has("synthetic") ? 1 : 0);
  if (sources != 1) {
    item.fail("", "give one of 'image' (a file, with 'labels'" + std::string(training ? " or 'demonstrations'" : "") +
                      "), 'images' (a file pattern such as tiles/area3_*.jpg, with labels: masks/{stem}.png) or "
                      "'synthetic' (a generated scene)");
  }
  if (!item.has("images")) return {parseRegion(item, item.path(), resolve(item.text("image", ""), base), training, base)};
  const std::string pattern = item.text("images", "");
  for (const char* file_key : {"labels", "demonstrations", "avoid", "prefer"}) {
    if (item.has(file_key) && item.text(file_key, "").find("{stem}") == std::string::npos) {
      item.fail(file_key, "with 'images', name each image's file through {stem}, e.g. masks/{stem}.png");
    }
  }
  const std::vector<std::string> files = matchingFiles(resolve(pattern, base));
  if (files.empty()) {
    item.fail("images", "no file matches '" + resolve(pattern, base) + "'" +
                            (base.empty() ? std::string() : " (relative paths start at '" + base + "')"));
  }
  std::vector<RegionSpec> regions;
  for (const std::string& file : files) {
    regions.push_back(parseRegion(item, item.path() + " (" + stem(file) + ")", file, training, base));
  }
  return regions;
}

void readPipelineSections(const ConfigNode& config, PipelineSettings& c, bool behaviour_required) {
  c.classes = parseClasses(config);
  if (config.has("behaviour")) {
    c.behaviour = parseBehaviour(config.child("behaviour"), c.classes);
  } else if (behaviour_required) {
    config.fail("behaviour", "required: {name, preferred, costs}");
  }
  for (const char* section : {"features", "demonstrations", "loss", "evaluation", "classifier"}) {
    config.child(section).expectKeys(sectionKeys(section, SettingCommand::Train));
  }
  const ConfigNode learner = config.child("learner");
  // learner.lambda and learner.passes set both learners at once, for a search space alone.
  if (learner.has("lambda")) learner.fail("lambda", "a select: key only; here set learner.online.lambda or learner.batch.lambda");
  if (learner.has("passes")) learner.fail("passes", "a select: key only; here set learner.online.epochs or learner.batch.iterations");
  learner.expectKeys(sectionKeys("learner", SettingCommand::Train, {"online", "batch", "learch", "network"}));
  learner.child("learch").expectKeys(sectionKeys("learner.learch", SettingCommand::Train));
  learner.child("network").expectKeys(sectionKeys("learner.network", SettingCommand::Train));
  // The online and batch sections, shared with the other commands (learner_config.hpp); the kind is
  // the table's learner.kind, which the sections leave alone.
  static_cast<LearnerSettings&>(c.learner) = learnerSettings(learner, "kind", c.learner, {"learch", "network"}, {"margin", "maxent"});
  readSettingKeys(config, c, SettingCommand::Train);
  if (learner.has("learch") && c.learner.hypothesis != CostHypothesis::Learch) {
    learner.fail("learch", "applies with kind: learch only");
  }
  if (learner.has("network") && c.learner.hypothesis != CostHypothesis::Network) {
    learner.fail("network", "applies with kind: network only");
  }
}

std::vector<std::string> inapplicableSettings(const ConfigNode& config, const PipelineSettings& s) {
  std::vector<std::string> out;
  const auto given = [&](const char* section, const char* key) { return config.has(section) && config.child(section).has(key); };
  const std::string noise = describe(s.demonstrations.noise.kind);
  if (given("demonstrations", "temperature") && s.demonstrations.noise.kind != NoiseKind::Boltzmann) {
    out.push_back("demonstrations.temperature applies to noise: boltzmann only; this config has noise: " + noise + ", so it is ignored");
  }
  for (const char* key : {"waypoints", "waypoint_spread"}) {
    if (given("demonstrations", key) && s.demonstrations.noise.kind != NoiseKind::Waypoints) {
      out.push_back(std::string("demonstrations.") + key + " applies to noise: waypoints only; this config has noise: " + noise +
                    ", so it is ignored");
    }
  }
  const bool maxent = s.learner.objective == TrainingObjective::Likelihood;
  if (given("learner", "maxent_margin") && !maxent) {
    out.push_back("learner.maxent_margin applies to objective: maxent only; this config has objective: margin, so it is ignored");
  }
  if (given("loss", "scale") && maxent) {
    out.push_back("loss.scale is the margin asked of a path under objective: margin; this config has objective: maxent "
                  "(no loss augmentation), where it only scales the reported prediction loss");
  }
  if (s.evaluation.class_mean && s.holdout.empty()) {
    out.push_back("evaluation.class_mean scores the holdout images' labels; this config has no holdout, so it is not scored");
  }
  return out;
}

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
    node.fail("preferred", "unknown class '" + preferred + "'; did you mean '" + nearestClass(classes, preferred) +
                               "'? (declared: " + classList(classes) + ")");
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
  refuseOtherCommands(config, SettingCommand::Train);
  config.expectKeys({"data_root", "output_dir", "classes", "behaviour", "train", "holdout", "features",
                     "demonstrations", "loss", "learner", "evaluation", "classifier", "select"});
  TrainConfig c;
  c.source = path;
  c.data_root = resolveDataRoot(data_root_flag, config);
  c.output_dir = !output_flag.empty() ? output_flag : config.text("output_dir", "out/" + stem(path));
  const std::string base = !c.data_root.empty() ? c.data_root : config.folder();
  if (!config.has("train")) config.fail("train", "required: a list of training images");
  c.train = parseRegions(config, "train", true, base);
  c.holdout = parseRegions(config, "holdout", false, base);
  if (c.train.empty()) config.fail("train", "the list is empty");
  if (config.has("holdout") && c.holdout.empty()) config.fail("holdout", "the list is empty (leave the key out to train from paths alone)");
  // Paths alone: training images with demonstration files and no holdout need no behaviour.
  const bool labelled = !c.holdout.empty() || std::any_of(c.train.begin(), c.train.end(), [](const RegionSpec& r) {
    return r.hasLabels();
  });
  readPipelineSections(config, c, labelled);
  for (const std::string& w : inapplicableSettings(config, c)) c.warnings.push_back(path + ": " + w);
  validate(c);  // what the settings must satisfy together, as for any caller of the library
  if (config.has("select")) c.select = parseSelection(config.child("select"), c);
  return c;
}

std::string effectiveTrainConfig(const std::string& path, const std::string& data_root_flag,
                                const std::vector<std::string>& overrides) {
  const TrainConfig c = loadTrainConfig(path, data_root_flag, "", overrides);
  YAML::Node root = YAML::Load(ConfigNode::load(path, overrides).dump());
  root.remove("base");  // merged in already
  for (const SettingKey& k : settingKeys()) {
    const std::string value = k.get(c);
    if (!k.in_config || k.command != SettingCommand::Train || value.empty()) continue;  // without a value: its rule applies
    YAML::Node node = root;
    std::string rest = k.key;
    for (std::size_t dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      node.reset(node[rest.substr(0, dot)]);  // reset, not assign: assigning a yaml-cpp node overwrites it
      rest = rest.substr(dot + 1);
    }
    node[rest] = YAML::Load(value);
  }
  if (c.learner.hypothesis != CostHypothesis::Learch) root["learner"].remove("learch");
  if (c.learner.hypothesis != CostHypothesis::Network) root["learner"].remove("network");
  YAML::Node learner = root["learner"];
  writeLearnerSections(learner, c.learner);
  YAML::Emitter out;
  out << root;
  return "# " + path + " as mmp train reads it: merged with its bases and --set, every setting at its value\n" +
         std::string(out.c_str()) + "\n";
}

}  // namespace mmp::tools
