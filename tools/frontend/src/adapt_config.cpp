#include <mmp/frontend/adapt_config.hpp>

#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/train_config.hpp>

#include <mmp/core/error.hpp>

#include <filesystem>

namespace mmp::tools {

void readAdaptSection(const ConfigNode& config, PipelineSettings& settings) {
  config.child("adapt").expectKeys(sectionKeys("adapt", SettingCommand::Adapt, {"loss"}));
  config.child("adapt").child("loss").expectKeys(sectionKeys("adapt.loss", SettingCommand::Adapt));
  readSettingKeys(config, settings, SettingCommand::Adapt);
}

AdaptConfig loadAdaptConfig(const std::string& path, const std::string& data_root_flag, const std::string& output_flag,
                            const std::vector<std::string>& overrides) {
  const ConfigNode config = ConfigNode::load(path, overrides);
  refuseOtherCommands(config, SettingCommand::Adapt);
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
    for (RegionSpec& spec : readRegionEntry(item, true, base, true)) c.train.push_back(std::move(spec));
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
  readAdaptSection(config, c);  // each key checked by its row of the settings table, as validate() checks it
  return c;
}

}  // namespace mmp::tools
