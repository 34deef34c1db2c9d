#include <mmp/frontend/adapt_config.hpp>

#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/train_config.hpp>

#include <mmp/core/error.hpp>

#include <filesystem>
#include <limits>

namespace mmp::tools {

void readAdaptSection(const ConfigNode& node, AdaptationSettings& s, bool& held_out, std::vector<double>& lambdas) {
  node.expectKeys({"lambda", "epochs", "learch_rounds", "learch_step", "learch_depth", "network_lambda", "network_step",
                   "network_epochs", "network_head_only", "min_cost", "threads", "held_out", "loss"});
  lambdas = node.isList("lambda") ? node.numbers("lambda", {}, 1e-12, std::numeric_limits<double>::infinity())
                                  : std::vector<double>{node.number("lambda", s.lambda, 1e-12)};
  if (lambdas.empty()) node.fail("lambda", "give a number > 0, or a list of them to choose from by the held-out loss");
  s.lambda = lambdas.front();
  s.epochs = static_cast<int>(node.integer("epochs", s.epochs, 1, 100000));
  s.learch_rounds = static_cast<int>(node.integer("learch_rounds", s.learch_rounds, 1, 10000));
  s.learch_step = node.number("learch_step", s.learch_step, 1e-12);
  s.learch_depth = static_cast<int>(node.integer("learch_depth", s.learch_depth, 1, 16));
  s.network_lambda = node.number("network_lambda", s.network_lambda, 1e-12);
  s.network_step = node.number("network_step", s.network_step, 1e-12);
  s.network_epochs = static_cast<int>(node.integer("network_epochs", s.network_epochs, 1, 10000));
  s.network_head_only = node.boolean("network_head_only", s.network_head_only);
  s.min_cost = node.number("min_cost", s.min_cost, 1e-12);
  s.threads = static_cast<int>(node.integer("threads", s.threads, 0, 256));
  held_out = node.boolean("held_out", held_out);
  const ConfigNode loss = node.child("loss");
  loss.expectKeys({"radius_px", "scale"});
  s.loss.radius_px = loss.number("radius_px", s.loss.radius_px, 1e-9);
  s.loss.scale = loss.number("scale", s.loss.scale, 1e-12);
}

AdaptConfig loadAdaptConfig(const std::string& path, const std::string& data_root_flag, const std::string& output_flag,
                            const std::vector<std::string>& overrides) {
  const ConfigNode config = ConfigNode::load(path, overrides);
  // A train config as a base lends what scoring needs; what made its model is the model's own.
  const std::vector<std::string> training_keys = {"train", "features", "learner", "loss", "classifier", "select"};
  for (const std::string& key : training_keys) {
    if (config.has(key) && config.origin(key) == config.file()) {
      config.fail(key, "does not apply to mmp adapt: the model carries its features and learner (teach: lists the "
                       "images to teach on, adapt: the adaptation's settings)");
    }
  }
  std::vector<std::string> keys = {"data_root", "output_dir", "classes", "behaviour", "teach", "holdout",
                                   "demonstrations", "evaluation", "adapt"};
  keys.insert(keys.end(), training_keys.begin(), training_keys.end());
  config.expectKeys(keys);
  AdaptConfig c;
  c.source = path;
  c.data_root = resolveDataRoot(data_root_flag, config);
  c.output_dir = !output_flag.empty() ? output_flag : config.text("output_dir", "out/" + std::filesystem::path(path).stem().string());
  if (config.has("behaviour")) {
    readPipelineSections(config, c);
  } else {
    for (const char* key : {"classes", "demonstrations", "evaluation", "holdout"}) {
      if (config.has(key)) config.fail(key, "applies with a behaviour only (behaviour: {name, preferred, costs})");
    }
  }
  const std::string base = !c.data_root.empty() ? c.data_root : config.folder();
  if (!config.has("teach")) config.fail("teach", "required: the images to teach on, each with demonstrations or labels");
  for (const ConfigNode& item : config.items("teach")) {
    for (RegionSpec& spec : readRegionEntry(item, true, base)) c.train.push_back(std::move(spec));
  }
  if (c.train.empty()) config.fail("teach", "the list is empty");
  for (const ConfigNode& item : config.items("holdout")) {
    for (RegionSpec& spec : readRegionEntry(item, false, base)) c.holdout.push_back(std::move(spec));
  }
  for (const RegionSpec& h : c.holdout) {  // a scored image never gives a demonstration
    for (const RegionSpec& t : c.train) {
      if (!h.image.empty() && h.image == t.image) {
        config.fail("holdout", "'" + h.image + "' is also a teach image (" + t.where + "); score on images not taught on");
      }
    }
  }
  readAdaptSection(config.child("adapt"), c.adapt, c.held_out, c.lambdas);
  try {
    c.adapt.validate();
  } catch (const InvalidArgument& e) {
    throw ConfigError(path + ": " + e.what());
  }
  return c;
}

}  // namespace mmp::tools
