#include <mmp/maps/training/adaptation_run.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/maps/training/settings_selection.hpp>

#include <algorithm>
#include <limits>

namespace mmp {
namespace {

// A teach image as a teacher holds it, and for a model that reads pixels the image itself (its costs
// are computed from the image, tile by tile, as CostModel::costs gives them).
struct RunImage {
  TeachingImage teaching;
  GeoImage image;

  CostGrid costs(const CostModel& model) const { return model.readsPixels() ? model.costs(image) : model.costs(*teaching.map); }
};

// The settings the run's images are loaded with (the parent's features), after checking that what the
// teach and holdout images need is there.
PipelineSettings runSettings(const CostModel& parent, const AdaptationRunSettings& settings) {
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
  return s;
}

// Teach image i with its demonstrations (files, or generated on its labels), appended to run.taught.
RunImage loadTeachImage(const CostModel& parent, const PipelineSettings& s, std::size_t i, AdaptationRun& run) {
  const RegionSpec& spec = s.train[i];
  Region region = loadRegion(spec, s);
  addDemonstrations(region, s, static_cast<int>(i));
  region.map = regionMap(parent.features(), region);
  std::vector<float>().swap(region.raw.values);  // the map holds what teaching needs
  RunImage image{{spec.name, spec.image.empty() ? "" : fileChecksum(spec.image), region.map, nullptr}, {}};
  if (parent.readsPixels()) {
    if (!region.cell_sources.empty()) {
      throw ConfigError(prefix(s) + spec.where + ": its resolution differs from the network model's imagery (" +
                        numberText(parent.features().settings().ground_resolution) + " m per pixel); a network is "
                        "taught on images at its own resolution: resample the image first");
    }
    image.image.pixels = region.image;
    image.image.frame = region.frame;
    image.teaching.inputs = teachingInputs(parent, image.image, *region.map);
  }
  for (std::size_t d = 0; d < region.demonstrations.size(); ++d) {
    const std::string name = d < spec.demonstrations.size() && !spec.demonstrations[d].name.empty()
                                 ? spec.name + " path '" + spec.demonstrations[d].name + "'"
                                 : spec.name + " demonstration " + std::to_string(d + 1);
    run.taught.push_back({static_cast<int>(i), name, region.demonstrations[d], {}});
  }
  for (const MarkKind kind : {MarkKind::Avoid, MarkKind::Prefer}) {
    const bool avoid = kind == MarkKind::Avoid;
    const std::vector<PixelPath>& strokes = avoid ? spec.avoid : spec.prefer;
    const std::string& file = avoid ? spec.avoid_file : spec.prefer_file;
    if (strokes.empty()) continue;
    TeachingMark mark{static_cast<int>(i), {}, kind};  // every cell a stroke crosses
    for (const PixelPath& stroke : strokes) {
      const std::vector<int> cells = pathCells(stroke, s.features.cell_size, region.rows(), region.cols(),
                                               prefix(s) + spec.where + ": '" + file + "' stroke '" + stroke.name + "'", region.frame);
      mark.cells.insert(mark.cells.end(), cells.begin(), cells.end());
    }
    run.marks.push_back(std::move(mark));
    run.mark_files.push_back(spec.where + ": " + markKindName(kind) + " '" + file + "'");
  }
  run.teach_regions.push_back(std::move(region));
  return image;
}

// A teacher of the parent holding the run's images.
std::unique_ptr<CostModelTeacher> teacherOf(const CostModel& parent, const AdaptationSettings& settings,
                                            const std::vector<RunImage>& images) {
  auto teacher = std::make_unique<CostModelTeacher>(parent, settings);
  for (const RunImage& image : images) {
    teacher->addImage(image.teaching.map, image.teaching.inputs, image.teaching.name, image.teaching.fingerprint);
  }
  return teacher;
}

// Leave one demonstration out: for each, the model taught on the others plans between its ends.
HeldOutPathReport heldOut(const CostModel& parent, const AdaptationSettings& settings, const std::vector<RunImage>& images,
                          const std::vector<TeachingRecord>& taught, const std::vector<TeachingMark>& marks,
                          const StageCallback& progress) {
  const int n = static_cast<int>(taught.size());
  const int cell_size = parent.features().settings().cell_size;
  const PathExample::Params params = adaptationExampleParams(settings, parent);
  std::vector<CostGrid> parent_grids;
  for (const RunImage& image : images) parent_grids.push_back(image.costs(parent));
  HeldOutTally tally;
  for (int d = 0; d < n; ++d) {
    if (progress) progress("scoring each demonstration held out", d, n, taught[static_cast<std::size_t>(d)].name);
    const TeachingRecord& held = taught[static_cast<std::size_t>(d)];
    const std::unique_ptr<CostModelTeacher> teacher = teacherOf(parent, settings, images);
    std::vector<TaughtDemonstration> others;
    for (int o = 0; o < n; ++o) {
      if (o != d) others.push_back({taught[static_cast<std::size_t>(o)].image, taught[static_cast<std::size_t>(o)].cells, {}});
    }
    teacher->teach(others, marks);
    const RunImage& image = images[static_cast<std::size_t>(held.image)];
    const PathExample example(image.teaching.map, held.cells, params);
    tally.add(scoreHeldOut(parent_grids[static_cast<std::size_t>(held.image)], example, cell_size),
              scoreHeldOut(image.costs(teacher->model()), example, cell_size));
  }
  if (progress) progress("scoring each demonstration held out", n, n, "");
  return tally.finish();
}

// Why adapt.lambda cannot be chosen here ("" if it can): another kind, or too few demonstrations.
std::string selectionRefusal(const CostModel& parent, const AdaptationRunSettings& settings, int n) {
  if (settings.adapt.lambdas.size() < 2) return "";
  const std::string strength = adaptationStrength(parent);
  if (strength != "adapt.lambda") {
    return "adapt.lambda applies to linear models; a " + std::string(hypothesisName(parent.hypothesis())) + " model adapts with " +
           strength;
  }
  if (n >= AdaptationRunSettings::kSelectionDemonstrations) return "";
  return std::to_string(n) + " demonstration(s) are too few to choose adapt.lambda on (" +
         std::to_string(AdaptationRunSettings::kSelectionDemonstrations) + " or more): " + numberText(settings.adapt.lambda) + " kept";
}

// adapt.lambda among settings.adapt.lambdas by the held-out loss, by the selection's lowest-score rule (ties,
// and every candidate failing, to the larger lambda); the chosen one's held-out report in run.held_out.
void chooseLambda(const CostModel& parent, const AdaptationRunSettings& settings, const std::vector<RunImage>& images,
                  AdaptationRun& run, const StageCallback& progress) {
  std::vector<double> lambdas = settings.adapt.lambdas;
  std::sort(lambdas.begin(), lambdas.end(), std::greater<>());  // the first of equals is the larger lambda
  std::vector<SelectionCandidate> candidates;
  std::vector<HeldOutPathReport> reports;
  for (double lambda : lambdas) {
    AdaptationSettings candidate = settings.adapt;
    candidate.lambda = lambda;
    candidate.validate();
    reports.push_back(heldOut(parent, candidate, images, run.taught, run.marks, progress));
    const HeldOutPathReport& r = reports.back();
    candidates.emplace_back();
    candidates.back().score = r.model.unplanned > 0 ? std::numeric_limits<double>::infinity() : r.model.loss;
  }
  std::vector<std::size_t> among(candidates.size());
  for (std::size_t i = 0; i < among.size(); ++i) among[i] = i;
  std::size_t best = pickCandidate(candidates, among, kNoCandidate, SelectionRule::Lowest, SelectionScore::Pooled);
  if (best == kNoCandidate) best = 0;
  for (std::size_t i = 0; i < settings.adapt.lambdas.size(); ++i) {  // reported in the order given
    const std::size_t c = static_cast<std::size_t>(std::find(lambdas.begin(), lambdas.end(), settings.adapt.lambdas[i]) - lambdas.begin());
    run.lambda_selection.push_back({settings.adapt.lambdas[i], candidates[c].score});
  }
  run.lambda = lambdas[best];
  if (settings.adapt.held_out) run.held_out = reports[best];
}

// Teaches the demonstrations one at a time, in order (progress after each); the adapted model to run.model.
void teachInOrder(const CostModel& parent, const AdaptationRunSettings& settings, const AdaptationSettings& adapt,
                  const std::vector<RunImage>& images, AdaptationRun& run, const TeachingProgress& teaching) {
  const std::unique_ptr<CostModelTeacher> teacher = teacherOf(parent, adapt, images);
  if (!run.marks.empty()) {
    try {
      teacher->teach({}, run.marks);
    } catch (const Error& e) {
      std::string files;
      for (const std::string& file : run.mark_files) files += (files.empty() ? "" : ", ") + file;
      throw ConfigError(prefix(settings) + "marks (" + files + "): " + e.what());
    }
  }
  const int n = static_cast<int>(run.taught.size());
  for (int k = 0; k < n; ++k) {
    TeachingRecord& record = run.taught[static_cast<std::size_t>(k)];
    try {
      record.step = teacher->teach(record.image, record.cells);
    } catch (const Error& e) {
      throw DataError(prefix(settings) + record.name + ": " + e.what());
    }
    if (teaching) teaching(k + 1, n, record);
  }
  run.model = teacher->model();
}

// The adapted model and the parent scored on the holdout images, as `mmp train` scores a holdout.
void scoreHoldouts(const CostModel& parent, const PipelineSettings& s, AdaptationRun& run, const StageCallback& progress) {
  for (std::size_t i = 0; i < s.holdout.size(); ++i) {
    if (progress) progress("scoring the holdout", static_cast<long>(i), static_cast<long>(s.holdout.size()), s.holdout[i].name);
    const HoldoutImage image = loadHoldout(s, static_cast<int>(i), parent.features());
    run.holdouts.push_back(scoreHoldout(s, image, run.model, nullptr));
    run.parent_holdouts.push_back(scoreHoldout(s, image, parent, nullptr));
  }
  if (run.holdouts.empty()) return;
  run.report = reportHoldouts(run.holdouts, s.classes);
  run.parent_report = reportHoldouts(run.parent_holdouts, s.classes);
  run.versus_parent = comparePaired(run.report.scores.at(Method::Learned), run.parent_report.scores.at(Method::Learned));
}

}  // namespace

AdaptationRun adaptAndReport(const CostModel& parent, const AdaptationRunSettings& settings, const TeachingProgress& teaching,
                             const StageCallback& progress) {
  const PipelineSettings s = runSettings(parent, settings);
  AdaptationRun run(parent);
  std::vector<RunImage> images;
  for (std::size_t i = 0; i < settings.train.size(); ++i) {
    if (progress) progress("loading teach images", static_cast<long>(i), static_cast<long>(settings.train.size()), settings.train[i].name);
    images.push_back(loadTeachImage(parent, s, i, run));
  }
  const int n = static_cast<int>(run.taught.size());
  if (n == 0) throw DataError(prefix(settings) + "teach: no demonstration on any image");

  run.lambda = settings.adapt.lambda;
  run.selection_note = selectionRefusal(parent, settings, n);
  if (settings.adapt.lambdas.size() > 1 && run.selection_note.empty()) chooseLambda(parent, settings, images, run, progress);
  AdaptationSettings chosen = settings.adapt;
  chosen.lambda = run.lambda;
  teachInOrder(parent, settings, chosen, images, run, teaching);
  if (run.lambda_selection.empty() && settings.adapt.held_out && n >= 2) {
    run.held_out = heldOut(parent, chosen, images, run.taught, run.marks, progress);
  }
  scoreHoldouts(parent, s, run, progress);
  return run;
}

}  // namespace mmp
