// The settings of `mmp train`, read from one YAML file and validated key by key.
//
//   data_root: ../../shared/data        # image, label and demonstration paths are relative to it
//   output_dir: out/follow_road         # relative to the working directory
//   classes:   [{name: Road, index: 2, colour: "#6EC1E4"}, ...]
//   behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Building: inf, ...}}
//   train:     [{image: .., labels: ..} | {image: .., demonstrations: paths.csv} | {synthetic: {seed: 1}}]
//   holdout:   [{image: .., labels: ..} | {synthetic: {seed: 9}}]   (optional: without it, and with
//              demonstration files alone, no behaviour is needed: folds of the demonstrations are held out)
//              an image entry may add resolution: 0.3, origin: [x, y], crs: EPSG:32640 when the file
//              has no georeference (then demonstrations may be in world coordinates: path_files.hpp)
//              or many: {images: tiles/area3_*.jpg, labels: "masks/{stem}.png", area: area3}; images of
//              one `area` are left out together in validation and may not be both trained on and held out
//   select:    {sweeps: 1, space: {learner.costs: [linear, exponential], loss.scale: [1, 3], ...}}
//              settings chosen by leave-one-area-out validation (maps/settings_selection.hpp)
//   base:      another config this one starts from (config.hpp)
//   features, demonstrations, loss, learner, evaluation, classifier: see the configs/ files; and
//   learner: {kind: learch, learch: {rounds: 30, step: 0.5, depth: 3, min_leaf_samples: 10,
//             samples: 20000, max_cost_ratio: 1e6, seed: 1, start: uniform | batch | online}}
//             (maps/learch.hpp; start batch / online: from that linear learner's weights)
//
// The settings land in a PipelineSettings (maps/training/settings.hpp, whose defaults apply to every
// key left out); demonstration files are read here (demonstration_file.hpp).
// Every map rejects unknown keys (naming the nearest valid one); numbers are range-checked with
// their key path.  A behaviour is data, not code: its costs are keyed by class name or index, and
// `inf` marks a class as impassable.
#pragma once

#include <mmp/frontend/config.hpp>

#include <mmp/maps/training/setting_keys.hpp>
#include <mmp/maps/training/settings.hpp>
#include <mmp/maps/training/settings_selection.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mmp::tools {

/// The pipeline's settings (source = the config file) and where `mmp train` reads and writes.
struct TrainConfig : PipelineSettings {
  std::string data_root;
  std::string output_dir;
  std::optional<SelectionSpace> select;  ///< the `select:` section, if any
  /// Keys given that the chosen settings do not use (inapplicableSettings), for the caller to warn of.
  std::vector<std::string> warnings;
};

/// Reads and validates a train config.  data_root_flag / output_flag override the file when not
/// empty ($MMP_DATA_ROOT too, see resolveDataRoot); overrides are --set KEY=VALUE (ConfigNode::load).  Throws mmp::ConfigError naming the file, the key
/// path and what is allowed.
TrainConfig loadTrainConfig(const std::string& path, const std::string& data_root_flag = "",
                            const std::string& output_flag = "", const std::vector<std::string>& overrides = {});

/// The config at `path` as loadTrainConfig reads it -- merged with its bases and overrides -- with every
/// setting it leaves out written at its default: YAML that loads as the same settings.  Throws what
/// loadTrainConfig throws.
std::string effectiveTrainConfig(const std::string& path, const std::string& data_root_flag = "",
                                const std::vector<std::string>& overrides = {});

/// The settings of a config's classes, behaviour (required) and sections (features, demonstrations,
/// loss, learner, evaluation, classifier) into `settings`, each key checked as loadTrainConfig checks
/// it; the other top-level keys are the caller's.  For the front ends that hold no whole config file
/// (the Python module's dict of the same keys).  Throws mmp::ConfigError naming the key path.
void readPipelineSections(const ConfigNode& config, PipelineSettings& settings, bool behaviour_required = true);

/// Every key of `command` in the settings table (setting_keys.hpp) that the config sets ("adapt.epochs"
/// is epochs: under adapt:), into `settings`, read through its section's node (so errors name the file
/// and the key path) with the table's range, in the table's order.  A key that takes candidates
/// (adapt.lambda) may be a list of them.  Does not check for unknown keys (the caller's expectKeys).
void readSettingKeys(const ConfigNode& config, PipelineSettings& settings, SettingCommand command);
/// The keys of `command` that a section ("adapt", "adapt.loss") of a config may hold, and `more`.
std::vector<std::string> sectionKeys(const std::string& section, SettingCommand command, std::vector<std::string> more = {});
/// Throws mmp::ConfigError if the config gives the section of another command's settings -- adapt:,
/// suggest: or serve: (adapt: in a train config) -- naming the command the keys belong to.
void refuseOtherCommands(const ConfigNode& config, SettingCommand command);

/// The keys `config` gives that `settings` (read from it) do not use, one sentence each naming the
/// key, what it applies to and what the config chose: demonstrations.temperature without boltzmann
/// noise, demonstrations.waypoints or waypoint_spread without waypoints noise, learner.maxent_margin
/// under objective margin, loss.scale (the margin asked of a path) under maxent.  Not errors -- a
/// base file or a select: search may set them for another choice --, so front ends warn.
std::vector<std::string> inapplicableSettings(const ConfigNode& config, const PipelineSettings& settings);

/// The images of one train (`training`) or holdout entry: {image, labels, demonstrations}, {images:
/// pattern, ...} or {synthetic: {...}}, with resolution, origin, crs and area; file paths relative to
/// `base`.  A teach entry of `mmp adapt`'s config (`teaching`) may also name `avoid`, a file of strokes
/// over ground that must stay dear (RegionSpec::avoid).  Throws mmp::ConfigError naming the entry's key path.
std::vector<RegionSpec> readRegionEntry(const ConfigNode& item, bool training, const std::string& base, bool teaching = false);

/// A plain image's world frame from an entry's resolution (world units per pixel), origin [x, y] of
/// its lower-left corner and crs (none of them: no frame).  Throws mmp::ConfigError naming the key.
FrameSettings readFrame(const ConfigNode& item);

/// Parses a behaviour map {name, preferred, costs} against declared classes (exposed for tests).
Behaviour parseBehaviour(const ConfigNode& node, const std::vector<LabelClass>& classes);

}  // namespace mmp::tools
