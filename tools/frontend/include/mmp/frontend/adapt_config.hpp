// The settings of `mmp adapt MODEL CONFIG` (and mmp.adapt in Python), read from one YAML file:
//
//   data_root: ../../shared/data      # image, label and demonstration paths are relative to it
//   output_dir: out/adapt_site        # relative to the working directory
//   teach:     [{image: site.tif, demonstrations: paths.csv} | {image: .., labels: ..} | {images: .., labels: ..}]
//   holdout:   [{image: .., labels: ..}, ...]              # optional: scored as `mmp train` scores one
//   adapt:     {lambda: 10 (or a list: chosen by the demonstrations' held-out loss), epochs: 10, learch_rounds: 2, learch_step: 0.5, learch_depth: 3,
//               network_lambda: 100, network_step: 0.001, network_epochs: 10, network_head_only: false,
//               min_cost: 0.05, threads: 1, held_out: true, loss: {radius_px: .., scale: ..}}
//              (the adapt.* rows of the settings table, setting_keys.hpp: their ranges, docs/config.md)
//   classes, behaviour, demonstrations, evaluation: as in a train config, needed only for
//              demonstrations generated on labels and for the holdout
//   base:      another config this one starts from; a train config lends its classes, behaviour,
//              data_root, demonstrations and evaluation (and holdout, unless this file gives one).
//              Its training keys (train, features, learner, loss, classifier, select) are the model's
//              business and are not read; given in this file they are refused.
//
// Paths alone: teach entries with demonstration files need no labels, classes or behaviour.  A teach
// image may not also be a holdout image.  Errors are mmp::ConfigError naming the file and key path.
#pragma once

#include <mmp/frontend/config.hpp>

#include <mmp/maps/training/adaptation_run.hpp>

#include <string>
#include <vector>

namespace mmp::tools {

struct AdaptConfig : AdaptationRunSettings {
  std::string data_root;
  std::string output_dir;
};

/// Reads and validates an adapt config; data_root_flag / output_flag override the file when not empty
/// ($MMP_DATA_ROOT too); overrides are --set KEY=VALUE.
AdaptConfig loadAdaptConfig(const std::string& path, const std::string& data_root_flag = "",
                            const std::string& output_flag = "", const std::vector<std::string>& overrides = {});

/// The config's adapt: section into settings.adapt: the adapt.* keys of the settings table, each checked
/// by its row with its path (the Python module reads a dict of the same keys); `lambda` may be a list,
/// whose values go to adapt.lambdas (the first to adapt.lambda).
void readAdaptSection(const ConfigNode& config, PipelineSettings& settings);

}  // namespace mmp::tools
