#include <mmp/maps/training/adaptation_run.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/training/regions.hpp>

#include <limits>
#include <optional>

namespace mmp {
namespace {

// What a teacher needs of a teach image: its feature map, a network model's inputs and, for a network
// model's costs, the image itself.
struct TeachImage {
  std::shared_ptr<const FeatureMap> map;
  std::shared_ptr<const std::vector<float>> inputs;
  GeoImage image;  ///< network models only
};

CostGrid teachGrid(const CostModel& model, const TeachImage& image) {
  return model.network().empty() ? model.costs(*image.map) : model.costs(image.image);
}

// Leave one demonstration out: for each, the model taught on the others plans between its ends.
HeldOutReport heldOut(const CostModel& parent, const AdaptationRunSettings& settings,
                      const std::vector<TeachImage>& maps, const std::vector<TeachingRecord>& taught,
                      const StageCallback& progress) {
  const int n = static_cast<int>(taught.size());
  if (!settings.held_out || n < 2) return {};
  const int cell_size = parent.features().settings().cell_size;
  const PathExample::Params params = adaptationExampleParams(settings.adapt, parent);
  std::vector<CostGrid> parent_grids;
  for (const TeachImage& image : maps) parent_grids.push_back(teachGrid(parent, image));
  HeldOutTally tally;
  for (int d = 0; d < n; ++d) {
    if (progress) progress("scoring each demonstration held out", d, n, taught[static_cast<std::size_t>(d)].name);
    const TeachingRecord& held = taught[static_cast<std::size_t>(d)];
    CostModelTeacher teacher(parent, settings.adapt);
    for (std::size_t i = 0; i < maps.size(); ++i) teacher.addImage(maps[i].map, maps[i].inputs, "image " + std::to_string(i));
    std::vector<TaughtDemonstration> others;
    for (int o = 0; o < n; ++o) {
      if (o != d) others.push_back({taught[static_cast<std::size_t>(o)].image, taught[static_cast<std::size_t>(o)].cells});
    }
    teacher.teach(others);
    const TeachImage& image = maps[static_cast<std::size_t>(held.image)];
    const PathExample example(image.map, held.cells, params);
    tally.add(scoreHeldOut(parent_grids[static_cast<std::size_t>(held.image)], example, cell_size),
              scoreHeldOut(teachGrid(teacher.model(), image), example, cell_size));
  }
  if (progress) progress("scoring each demonstration held out", n, n, "");
  return tally.finish();
}

}  // namespace

AdaptationRun adaptAndReport(const CostModel& parent, const AdaptationRunSettings& settings, const TeachingProgress& teaching,
                             const StageCallback& progress) {
  if (settings.train.empty()) throw ConfigError(prefix(settings) + "teach: give at least one image to teach on");
  settings.adapt.validate();
  PipelineSettings s = settings;
  s.features = parent.features().settings();  // the parent's grid: cells of its size
  for (const RegionSpec& spec : settings.train) {
    if (spec.hasLabels() && s.behaviour.preferred < 0) {
      throw ConfigError(prefix(settings) + spec.where + ": demonstrations generated on labels need classes and a behaviour");
    }
  }
  if (!settings.holdout.empty() && s.behaviour.preferred < 0) {
    throw ConfigError(prefix(settings) + "holdout: scoring needs classes and a behaviour (its true costs)");
  }

  AdaptationRun run{parent, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  std::vector<TeachImage> maps;
  std::vector<std::string> fingerprints;
  for (std::size_t i = 0; i < settings.train.size(); ++i) {
    const RegionSpec& spec = settings.train[i];
    if (progress) progress("loading teach images", static_cast<long>(i), static_cast<long>(settings.train.size()), spec.name);
    Region region = loadRegion(spec, s);
    addDemonstrations(region, s, static_cast<int>(i));
    region.map = regionMap(parent.features(), region);
    std::vector<float>().swap(region.raw.values);  // the map holds what teaching needs
    TeachImage teach{region.map, nullptr, {}};
    if (!parent.network().empty()) {
      if (!region.cell_sources.empty()) {
        throw ConfigError(prefix(s) + spec.where + ": its resolution differs from the network model's imagery (" +
                          numberText(parent.features().settings().ground_resolution) + " m per pixel); a network is "
                          "taught on images at its own resolution: resample the image first");
      }
      teach.image.pixels = region.image;
      teach.image.frame = region.frame;
      teach.inputs = teachingInputs(parent, teach.image, *region.map);
    }
    maps.push_back(std::move(teach));
    fingerprints.push_back(spec.image.empty() ? "" : fileChecksum(spec.image));
    for (std::size_t d = 0; d < region.demonstrations.size(); ++d) {
      const std::string name = d < spec.demonstrations.size() && !spec.demonstrations[d].name.empty()
                                   ? spec.name + " path '" + spec.demonstrations[d].name + "'"
                                   : spec.name + " demonstration " + std::to_string(d + 1);
      run.taught.push_back({static_cast<int>(i), name, region.demonstrations[d], {}});
    }
    run.teach_regions.push_back(std::move(region));
  }
  const int n = static_cast<int>(run.taught.size());
  if (n == 0) throw DataError(prefix(settings) + "teach: no demonstration on any image");

  AdaptationRunSettings chosen = settings;
  run.lambda = settings.adapt.lambda;
  if (settings.lambdas.size() > 1) {
    if (!parent.network().empty()) {
      run.selection_note = "adapt.lambda applies to linear models; a network model adapts with adapt.network_lambda";
    } else if (!parent.trees().empty()) {
      run.selection_note = "adapt.lambda applies to linear models; a LEARCH model adapts with adapt.learch_rounds";
    } else if (n < AdaptationRunSettings::kSelectionDemonstrations) {
      run.selection_note = std::to_string(n) + " demonstration(s) are too few to choose adapt.lambda on (" +
                           std::to_string(AdaptationRunSettings::kSelectionDemonstrations) + " or more): " +
                           numberText(run.lambda) + " kept";
    } else {
      chosen.held_out = true;
      double best = std::numeric_limits<double>::infinity();
      std::optional<HeldOutReport> best_report;
      for (double lambda : settings.lambdas) {
        chosen.adapt.lambda = lambda;
        chosen.adapt.validate();
        const HeldOutReport r = heldOut(parent, chosen, maps, run.taught, progress);
        const double loss = r.model.unplanned > 0 ? std::numeric_limits<double>::infinity() : r.model.loss;
        run.lambda_selection.push_back({lambda, loss});
        if (!best_report || loss < best || (loss == best && lambda > run.lambda)) {
          best = loss, run.lambda = lambda, best_report = r;
        }
      }
      if (settings.held_out) run.held_out = *best_report;
    }
  }
  chosen.adapt.lambda = run.lambda;
  chosen.held_out = settings.held_out;

  CostModelTeacher teacher(parent, chosen.adapt);
  for (std::size_t i = 0; i < maps.size(); ++i) teacher.addImage(maps[i].map, maps[i].inputs, settings.train[i].name, fingerprints[i]);
  for (int k = 0; k < n; ++k) {
    TeachingRecord& record = run.taught[static_cast<std::size_t>(k)];
    try {
      record.step = teacher.teach(record.image, record.cells);
    } catch (const Error& e) {
      throw DataError(prefix(settings) + record.name + ": " + e.what());
    }
    if (teaching) teaching(k + 1, n, record);
  }
  run.model = teacher.model();
  if (run.lambda_selection.empty()) run.held_out = heldOut(parent, chosen, maps, run.taught, progress);

  for (std::size_t i = 0; i < settings.holdout.size(); ++i) {
    const std::string name = settings.holdout[i].name;
    if (progress) progress("scoring the holdout", static_cast<long>(i), static_cast<long>(settings.holdout.size()), name);
    const HoldoutImage image = loadHoldout(s, static_cast<int>(i), parent.features());
    run.holdouts.push_back(scoreHoldout(s, image, run.model, nullptr));
    run.parent_holdouts.push_back(scoreHoldout(s, image, parent, nullptr));
  }
  if (!run.holdouts.empty()) {
    run.report = reportHoldouts(run.holdouts, s.classes);
    run.parent_report = reportHoldouts(run.parent_holdouts, s.classes);
    run.versus_parent =
        comparePaired(run.report.scores.at(Method::Learned), run.parent_report.scores.at(Method::Learned));
  }
  return run;
}

}  // namespace mmp
