// `mmp train CONFIG.yaml`: maximum margin planning from imagery and demonstrations, end to end.
// Reads the config into PipelineSettings, makes one library call for the whole run
// (maps/training/training_run.hpp: select: if given, train on the training images, score the learned
// planner and two baselines -- uniform cost, per-pixel classifier -- on the holdout images, pool the
// holdout report), prints what it returns and writes the model, a Figure-2-style panel per holdout
// image, a training curve, metrics.json and pairs.csv (sec. 6.2 of the subgradient paper).
// --validate runs leave-one-area-out validation (validateByArea) and writes validation.json.
#include "commands.hpp"
#include "failure.hpp"
#include <mmp/frontend/json_output.hpp>
#include "pictures.hpp"
#include "processes.hpp"
#include "progress.hpp"
#include "tables.hpp"
#include "provenance.hpp"
#include <mmp/frontend/train_config.hpp>
#include <mmp/frontend/train_metrics.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/core/model_file.hpp>
#include "output_folder.hpp"
#include <mmp/maps/render.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/maps/training/figures.hpp>
#include <mmp/maps/training/held_out.hpp>
#include <mmp/maps/training/training_run.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace mmp::tools {
namespace {

struct TrainOptions {
  std::string config;
  std::string data_root;
  std::string output_dir;
  std::vector<std::string> overrides;
  int threads = -1;
  bool validate = false;
  bool print_config = false;
  bool keys = false;
};

// Prints what the class_mean diagnostic says (misreadJson), if it was scored.
void printMisread(const Json& misread) {
  if (misread.is_null()) return;
  std::printf("class_mean is a diagnostic that reads the labels: the learned costs averaged over each true class.\n"
              "misread cells (and other variation within a class) cost %.3f of the learned mean cost ratio, 95 %% "
              "paired-bootstrap interval [%.3f, %.3f]\n",
              misread["gap"].get<double>(), misread["ci95_low"].get<double>(), misread["ci95_high"].get<double>());
}

// Prints what the learned map makes of each class (learnedClassCosts), if any class had cells.
void printClassCosts(const Json& costs, const std::string& preferred) {
  if (costs.empty()) return;
  std::printf("learned cost per class (geometric mean over its cells, %s = 1):", preferred.c_str());
  for (const auto& [name, cost] : costs.items()) std::printf(" %s %.3g", name.c_str(), cost.get<double>());
  std::printf("\n");
}

void printTraining(const RunResult& run, const PipelineSettings& config) {
  const TrainingData& training = run.training;
  for (const Region& r : training.regions) {
    std::printf("  train %-24s %5d x %-5d cells of %d px, %zu demonstrations%s\n", r.spec.name.c_str(), r.rows(),
                r.cols(), config.features.cell_size, r.demonstrations.size(),
                r.spec.hasDemonstrations() ? " (from file)" : " (generated from labels)");
  }
  std::printf("  %d features per cell (bias + %zu raw features x %s)\n", training.stack.features(),
              rawFeatureNames(config.features).size(),
              config.features.bins >= 2 ? (std::to_string(config.features.bins) + " soft bins").c_str()
                                        : (config.features.complements ? "2 (value, complement)" : "1"));
  if (const ClassScores* layer = training.stack.classScores()) {
    std::string context;
    for (double r : layer->context_px) {
      char radius[32];
      std::snprintf(radius, sizeof radius, "%g", r);
      context += (context.empty() ? " and their maxima within " : ", ") + std::string(radius);
    }
    std::printf("  + class scores of %zu classes%s (multiclass SVM on the training labels, %.1f %% of its cells right)\n",
                layer->classes.size(), context.empty() ? "" : (context + " px").c_str(),
                100.0 * training.class_score_accuracy);
  }
  const TrainingReport& t = run.trained.report;
  const bool learch = t.hypothesis == CostHypothesis::Learch;
  const bool network = t.hypothesis == CostHypothesis::Network;
  const bool batch = t.learner == LearnerKind::Batch || learch || network;
  std::printf("  learner %s: %ld %ss%s in %.2f s (%.3f s each)%s, %s\n", learnerName(t).c_str(), t.passes,
              t.pass_name.c_str(), network ? " (epoch 0: the start, scored without a step)" : "",
              t.epoch_seconds * static_cast<double>(t.passes), t.epoch_seconds,
              batch ? (", objective " + std::to_string(t.objective)).c_str() : "", t.info.c_str());
  if (learch) {
    std::printf("  LEARCH costs exp(w . f + %zu trees) from %.3g to %.3g on the training images; training prediction "
                "loss per cell %.4f; training %.2f s in all\n",
                run.trained.model.trees().size(), t.cost_range[0], t.cost_range[1], t.training_loss, t.train_seconds);
  } else if (network) {
    const NetworkShape& shape = run.trained.model.network().shape();
    std::printf("  network costs %s, %s; from %.3g to %.3g on the training images; training "
                "prediction loss per cell %.4f; training %.2f s in all\n",
                shape.formula().c_str(), shape.describe().c_str(), t.cost_range[0], t.cost_range[1],
                t.training_loss, t.train_seconds);
  } else if (config.learner.costs == CostForm::Linear) {
    std::printf("  bias weight %.4g (floor %.4g%s), training prediction loss per cell %.4f; training %.2f s in all\n",
                t.bias, t.bias_floor,
                config.learner.calibrate_bias
                    ? (", calibrated on the demonstrations in " + std::to_string(t.calibration_seconds).substr(0, 5) + " s").c_str()
                    : "",
                t.training_loss, t.train_seconds);
  } else {
    std::printf("  exponential costs exp(w . f), costs from %.3g to %.3g on the training images; training prediction "
                "loss per cell %.4f; training %.2f s in all\n",
                t.cost_range[0], t.cost_range[1], t.training_loss, t.train_seconds);
  }
  if (!t.largest_region.empty()) {  // timed for the linear learners and LEARCH, not the network
    std::printf("  largest training image %s (%d cells, %d demonstrations): %.3f s per epoch\n", t.largest_region.c_str(),
                t.largest_cells, t.largest_examples, t.largest_epoch_seconds);
  }
  if (run.classifier) {
    std::printf("  classifier baseline: %d cells, training accuracy %.3f, cost scale %g (chosen on training images)\n",
                run.classifier->samples, run.classifier->training_accuracy, run.classifier->cost_scale);
  } else {
    std::printf("  classifier baseline: skipped (%s)\n",
                config.classifier.enabled ? "a training image has no labels" : "disabled");
  }
}

// Leave one training area out (validateByArea): for choosing settings without touching the holdout
// images; writes validation.json.
void runValidation(const TrainConfig& config) {
  const std::vector<std::string> areas = trainingAreas(config);
  validationFold(config, 0);  // refuses unusable settings before anything is written
  OutputFolder output(config.output_dir);
  std::printf("mmp train --validate %s: behaviour '%s', leaving out each of %zu training areas in turn "
              "(the holdout images are not used)\n",
              config.source.c_str(), config.behaviour.name.c_str(), areas.size());
  Progress progress("");
  const ValidationReport validation = validateByArea(
      config, [&](int fold, const std::string& area, const std::string& stage, long done, long total, const std::string& detail) {
        progress.update("fold " + std::to_string(fold + 1) + "/" + std::to_string(areas.size()) + " " + area + ": " + stage,
                        done, total, detail);
      });
  progress.finish();
  Json folds_json = Json::object();
  for (const ValidationFold& fold : validation.folds) {
    std::printf("\nleft out %s (%d images, %d pairs; trained in %.1f s)\n", fold.area.c_str(), fold.images,
                fold.report.pairs, fold.training.train_seconds);
    folds_json[fold.area] = methodsJson(fold.report);
    printMethodTable(folds_json[fold.area]);
  }
  std::printf("\nall folds pooled\n");
  Json json = {{"behaviour", config.behaviour.name}};
  json["methods"] = methodsJson(validation.pooled);
  json["learned_vs"] = comparisonsJson(validation.pooled);
  printMethodTable(json["methods"]);
  printComparisons(json["learned_vs"]);
  json["folds"] = folds_json;
  writeFileAtomically(output.file("validation.json"), jsonText(json) + "\n");
  writePairRecords(output.file("validation_pairs.csv"), validation.pooled.records);
  output.commit();
  std::printf("\nwrote %s: validation.json validation_pairs.csv\n", output.path().c_str());
}

// A candidate's values, leaving out the keys that change nothing at them (settingApplies).
std::string valuesText(const PipelineSettings& settings, const std::map<std::string, std::string>& values) {
  PipelineSettings s = settings;
  for (const auto& [key, value] : values) applySetting(s, key, value);
  std::string text;
  for (const auto& [key, value] : values) {
    if (settingApplies(s, key)) text += (text.empty() ? "" : ", ") + key + " " + value;
  }
  return text;
}

// One line on how the `select:` search runs.
std::string selectionProcedure(const SelectionSpace& space) {
  std::string text = "coordinate search from each key's first value, keys in order, " + std::to_string(space.sweeps) +
                     " sweep(s)";
  if (space.rungs > 1) {
    text += ", at 1/" + std::to_string(static_cast<long>(std::pow(space.eta, space.rungs - 1))) +
            " of the passes; then successive halving over " + std::to_string(space.rungs) + " rungs (budget x" +
            std::to_string(space.eta) + ", 1/" + std::to_string(space.eta) + " go on) and early stopping";
  }
  for (const SelectionKey& key : space.keys) {
    const SettingKey* k = findSettingKey(key.name);
    if (k != nullptr && k->after_training) text += "; " + key.name + " scored on every trained candidate";
  }
  return text + "; rule " + describe(space.rule) + "; score " + describe(space.score) +
         ": learned cost ratio on the pairs of leave-one-training-area-out folds" +
         (space.score == SelectionScore::AreaMedian ? ", the median of the areas' means" : ", pooled");
}

// Prints the table of the `select:` search (run on the training images only) and returns it as JSON.
Json printSelection(const TrainConfig& config, const SelectionResult& result) {
  const SelectionSpace& space = *config.select;
  std::vector<std::string> texts;
  int width = 9;
  for (const SelectionCandidate& c : result.candidates) {
    texts.push_back(valuesText(config, c.values));
    width = std::max(width, static_cast<int>(texts.back().size()));
  }
  std::printf("%-4s %-*s %6s %10s %10s %9s %9s %8s\n", "", width, "candidate", "passes", "score", "cost ratio", "feasible",
              "MHD (px)", "seconds");
  Json candidates = Json::array();
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    const SelectionCandidate& c = result.candidates[i];
    if (!c.failure.empty()) {
      std::printf("%-4s %-*s %6ld %10s %10s %9s %9s %8.0f  failed: %s\n", "", width, texts[i].c_str(), c.passes, "-", "-",
                  "-", "-", c.seconds, c.failure.c_str());
    } else {
      std::printf("%-4s %-*s %6ld %10.3f %10.3f %9.2f %9.1f %8.0f\n", i == result.chosen ? "*" : "", width,
                  texts[i].c_str(), c.passes, c.score, c.cost_ratio_mean, c.feasible_share, c.mhd_mean_px, c.seconds);
    }
    Json by_area = Json::object();
    for (const auto& [area, ratio] : c.area_cost_ratio) by_area[area] = ratio;
    candidates.push_back({{"values", c.values}, {"passes", c.passes}, {"rung", c.rung}, {"score", c.score}, {"cost_ratio_mean", c.cost_ratio_mean},
                          {"feasible_share", c.feasible_share}, {"mhd_mean_px", c.mhd_mean_px},
                          {"area_cost_ratio", by_area}, {"seconds", c.seconds}});
    if (!c.failure.empty()) candidates.back()["failure"] = c.failure;
  }
  std::printf("chosen (*): %s, %ld passes (selection: %.0f s)\n\n", texts[result.chosen].c_str(),
              result.candidates[result.chosen].passes, result.seconds);
  Json space_json = Json::object();
  for (const SelectionKey& key : space.keys) space_json[key.name] = key.values;
  Json selection = {{"procedure", selectionProcedure(space)},
                    {"rule", describe(space.rule)},
                    {"score", describe(space.score)},
                    {"rungs", space.rungs},
                    {"eta", space.eta},
                    {"areas", trainingAreas(config)},
                    {"space", space_json},
                    {"candidates", candidates},
                    {"chosen", result.candidates[result.chosen].values},
                    {"chosen_passes", result.candidates[result.chosen].passes},
                    {"seconds", result.seconds}};
  if (space.pairs_seed) selection["pairs_seed"] = *space.pairs_seed;
  if (space.pairs) selection["pairs"] = *space.pairs;
  return selection;
}

std::string exactText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// The model's provenance (`mmp info`): what made it -- mmp's version and commit, the effective config,
// the settings selection chose, every data file's fingerprint -- and what it scored on the holdout.
void recordProvenance(CostModel& model, const TrainConfig& config, const TrainingRun& r, const std::string& effective) {
  model.setInfo("mmp_version", provenance());
  model.setInfo("config_effective", effective);
  if (r.selection) {
    const SelectionCandidate& chosen = r.selection->candidates[r.selection->chosen];
    model.setInfo("selected", valuesText(config, chosen.values) + ", passes " + std::to_string(chosen.passes));
  }
  std::string data;
  const auto fingerprint = [&data](const char* role, const std::string& file) {
    if (file.empty()) return;
    data += std::string(role) + " " + std::filesystem::path(file).filename().string() + " fnv1a64:" + fileChecksum(file) + "\n";
  };
  for (const auto* specs : {&config.train, &config.holdout}) {
    const char* role = specs == &config.train ? "train" : "holdout";
    for (const RegionSpec& spec : *specs) {
      fingerprint(role, spec.image);
      fingerprint(role, spec.labels);
      fingerprint(role, spec.demonstrations_file);
    }
  }
  if (!data.empty()) model.setInfo("data", data);
  const TrainingReport& t = r.run.trained.report;
  model.setInfo("training_cost_range", "[" + exactText(t.cost_range[0]) + ", " + exactText(t.cost_range[1]) + "]");
  if (r.report.pairs == 0) return;
  std::string areas;
  for (const RegionSpec& spec : config.holdout) {
    if (areas.find(spec.areaName()) == std::string::npos) areas += (areas.empty() ? "" : ",") + spec.areaName();
  }
  model.setInfo("holdout", std::to_string(config.holdout.size()) + " images (" + areas + "), " + std::to_string(r.report.pairs) +
                               " start/goal pairs, evaluation seed " + std::to_string(config.evaluation.seed));
  std::string per_image;  // what a check of the model on a few holdout images compares with
  for (const auto& [region, summaries] : r.report.region_summaries) {
    const MethodSummary& learned = summaries.at(Method::Learned);
    per_image += region + " " + std::to_string(learned.pairs) + " " + exactText(learned.cost_ratio_mean) + "\n";
  }
  model.setInfo("holdout_per_image", per_image);
  for (Method method : r.report.methodsScored()) {
    if (method == Method::ClassMean) continue;  // a diagnostic that read the labels, not the model's figure
    const MethodSummary m = r.report.summary(method);
    const std::string key = std::string("holdout_") + methodName(method);
    model.setInfo(key + "_cost_ratio", exactText(m.cost_ratio_mean));
    model.setInfo(key + "_feasible_share", exactText(m.feasible_share));
  }
  // What the learned map makes of each class on the holdout (its contrast, CostModel::summary):
  // the geometric mean of the learned costs of each class's cells over the preferred class's.
  const std::map<std::string, double> class_costs = r.report.learnedClassCosts(r.settings.behaviour.preferred_name);
  if (!class_costs.empty()) {
    model.setInfo(std::string(kHoldoutClassCostPreferred), r.settings.behaviour.preferred_name);
    for (const auto& [name, cost] : class_costs) model.setInfo(std::string(kHoldoutClassCostPrefix) + name, exactText(cost));
  }
}

// The `select:` search on the training images, its progress on one line.
SelectionResult selectWithProgress(const TrainConfig& config, Progress& progress) {
  SelectionResult result = selectSettings(
      config, *config.select,
      [&](int candidate, const std::map<std::string, std::string>& values, const std::string& area, const std::string& stage,
          long done, long total) {
        progress.update("selection: candidate " + std::to_string(candidate) + " (" + valuesText(config, values) +
                            "), without " + area + ": " + stage,
                        done, total, "");
      });
  progress.finish();
  return result;
}

// Training from paths alone (no holdout images): the model, folds of the demonstrations held out
// (each scored by the model trained on the others, against uniform costs), and a picture of the
// learned map over each training image with its demonstrations and the model's plans.
void runTrainFromPaths(const TrainConfig& config, const std::string& effective, OutputFolder& output, Progress& progress) {
  PipelineSettings settings = config;
  const bool labelled = std::any_of(config.train.begin(), config.train.end(), [](const RegionSpec& r) { return r.hasLabels(); });
  std::optional<SelectionResult> selection;
  if (config.select && labelled) {
    selection = selectWithProgress(config, progress);
    settings = selection->settings;
  } else if (config.select) {
    std::printf("select: skipped -- choosing settings scores left-out training areas against their labels, and these "
                "images have none; training with the config's settings (set select: null to say so)\n");
  }
  const Json selection_json = selection ? printSelection(config, *selection) : Json();
  const StageCallback callback = [&](const std::string& stage, long done, long total, const std::string& detail) {
    progress.update(stage, done, total, detail);
  };
  TrainingData data = loadTrainingData(settings, callback);
  TrainedCostModel trained = train(data, settings, callback);
  progress.finish();
  TrainingRun r{std::move(selection), settings, RunResult{std::move(data), std::move(trained), std::nullopt, {}},
                reportHoldouts({}, settings.classes), std::nullopt};
  printTraining(r.run, settings);
  CostModel model = r.run.trained.model;
  recordProvenance(model, config, r, effective);
  model.save(output.file("model.mmp"));
  std::vector<std::string> outputs = {"model.mmp"};
  for (const Region& region : r.run.training.regions) {
    const std::string name = "fit_" + region.spec.name + ".png";
    writeImage(output.file(name), fitPicture(regionCosts(model, region), region.demonstrations,
                                             "learned costs of " + region.spec.name + " (in-sample)"));
    outputs.push_back(name);
  }
  writeImage(output.file("training_curve.png"), trainingCurve(r.run.trained.report, settings.behaviour.name));
  outputs.push_back("training_curve.png");
  Json metrics = metricsJson(r, selection_json);
  int files = 0;
  for (const RegionSpec& spec : settings.train) files += static_cast<int>(spec.demonstrations.size());
  if (files >= 2) {
    const HeldOutPathReport h = crossValidateDemonstrations(settings, 5, callback);
    progress.finish();
    std::printf("\nno holdout images: the demonstrations held out in %d folds (each scored by the model trained on the "
                "others), %d demonstrations\n", std::min(5, files), h.demonstrations);
    std::printf("%-8s %22s %10s %28s %10s\n", "costs", "prediction loss/cell", "MHD (px)", "demo cost / plan cost (model)", "unplanned");
    for (const auto& [name, f] : {std::pair<const char*, const HeldOutFit&>{"uniform", h.baseline}, {"learned", h.model}}) {
      std::printf("%-8s %22.4f %10.1f %28.3f %10d\n", name, f.loss, f.mhd_px, f.cost_ratio, f.unplanned);
    }
    std::printf("learned vs uniform: prediction loss %.4f lower, 95 %% paired-bootstrap interval [%.4f, %.4f]: %s\n",
                h.gain.gain, h.gain.low, h.gain.high, verdict(h.gain));
    metrics["held_out"] = heldOutJson(h, "uniform", "learned");
  } else {
    std::printf("\nno holdout images and fewer than 2 demonstration paths: nothing to score the model on\n");
  }
  writeFileAtomically(output.file("metrics.json"), jsonText(metrics) + "\n");
  outputs.push_back("metrics.json");
  output.commit();
  std::printf("\nwrote %s:", output.path().c_str());
  for (const std::string& o : outputs) std::printf(" %s", o.c_str());
  std::printf("\n");
}

void runTrain(const TrainConfig& config, const std::string& effective) {
  OutputFolder output(config.output_dir);
  for (const std::string& stale : output.removedStale()) std::printf("removed '%s', left by a run that was killed\n", stale.c_str());
  if (config.holdout.empty()) {
    std::printf("mmp train %s: %zu training images, no holdout images (the demonstrations held out score the model)\n",
                config.source.c_str(), config.train.size());
    Progress progress("");
    runTrainFromPaths(config, effective, output, progress);
    return;
  }
  std::printf("mmp train %s: behaviour '%s' (preferred class %s), %zu training and %zu holdout images\n",
              config.source.c_str(), config.behaviour.name.c_str(), config.behaviour.preferred_name.c_str(),
              config.train.size(), config.holdout.size());
  if (config.select) {
    std::printf("choosing settings (select:) over %zu settings: %s; each candidate trained %zu times, leaving out "
                "each training area (the holdout images are not read)\n",
                config.select->keys.size(), selectionProcedure(*config.select).c_str(), trainingAreas(config).size());
  }
  Progress progress("");
  // The selection's table is printed as soon as it is chosen, before the long final training.
  std::optional<SelectionResult> selection;
  if (config.select) {
    selection = selectWithProgress(config, progress);
  }
  const Json selection_json = selection ? printSelection(config, *selection) : Json();
  std::fflush(stdout);
  TrainingRun r = trainAndReport(selection ? selection->settings : static_cast<const PipelineSettings&>(config), nullptr, {},
                                 [&](const std::string& stage, long done, long total, const std::string& detail) {
                                   progress.update(stage, done, total, detail);
                                 });
  r.selection = std::move(selection);
  progress.finish();
  const PipelineSettings& settings = r.settings;
  printTraining(r.run, settings);
  CostModel model = r.run.trained.model;
  recordProvenance(model, config, r, effective);
  model.save(output.file("model.mmp"));
  std::vector<std::string> outputs = {"model.mmp"};
  for (const HoldoutResult& holdout : r.run.holdouts) {
    const std::string panel = "panel_" + holdout.region.spec.name + "." + settings.evaluation.panel_format;
    writeImage(output.file(panel), holdoutPanel(r.run.training.regions.front(), holdout, settings));
    outputs.push_back(panel);
  }
  writeImage(output.file("training_curve.png"), trainingCurve(r.run.trained.report, settings.behaviour.name));
  outputs.push_back("training_curve.png");

  std::printf("\nholdout: %zu images, %d start/goal pairs; behaviour '%s', preferred class %s (reference paths: %.3f)\n",
              settings.holdout.size(), r.report.pairs, settings.behaviour.name.c_str(),
              settings.behaviour.preferred_name.c_str(), r.report.referencePreferredShare());
  const Json metrics = metricsJson(r, selection_json);
  printMethodTable(metrics["methods"]);
  printComparisons(metrics["learned_vs"]);
  printMisread(metrics.value("misread_cells", Json()));
  printClassCosts(metrics["learned_class_costs"], settings.behaviour.preferred_name);
  if (r.training_fit) {
    std::printf("\ntraining images (evaluation.training; in-sample, new pairs): %zu images, %d start/goal pairs\n",
                r.training_fit->regions.size(), r.training_fit->pairs);
    printMethodTable(metrics["training_fit"]["methods"]);
    printComparisons(metrics["training_fit"]["learned_vs"]);
    printMisread(metrics["training_fit"].value("misread_cells", Json()));
    printClassCosts(metrics["training_fit"]["learned_class_costs"], settings.behaviour.preferred_name);
    writePairRecords(output.file("training_pairs.csv"), r.training_fit->records);
    outputs.push_back("training_pairs.csv");
  }
  writeFileAtomically(output.file("metrics.json"), jsonText(metrics) + "\n");
  writePairRecords(output.file("pairs.csv"), r.report.records);
  outputs.insert(outputs.end(), {"metrics.json", "pairs.csv"});
  output.commit();
  std::printf("\nwrote %s:", output.path().c_str());
  for (const std::string& o : outputs) std::printf(" %s", o.c_str());
  std::printf("\n");
}

// Runs train or --validate; on failure says that the output folder kept its previous contents.
void runTrainCommand(const TrainOptions& options) {
  if (options.keys) {
    std::printf("%s", settingsReference().c_str());
    return;
  }
  if (options.config.empty()) throw ConfigError("train: give a config file, e.g. mmp train configs/demo.yaml");
  if (options.print_config) {
    std::printf("%s", effectiveTrainConfig(options.config, options.data_root, options.overrides).c_str());
    return;
  }
  TrainConfig config = loadTrainConfig(options.config, options.data_root, options.output_dir, options.overrides);
  for (const std::string& w : config.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  config.threads = options.threads;
  // Under mpirun or srun: the batch learner's examples spread over the processes (processes.hpp).
  config.learner.batch.processes = trainingProcesses(costLearnerName(config.learner),
                                                     config.learner.kind == LearnerKind::Batch &&
                                                         config.learner.hypothesis == CostHypothesis::Linear);
  if (config.learner.batch.processes && config.threads < 0) config.threads = jobThreads();
  config.output_dir = trainingOutputDir(config.output_dir);
  try {
    if (options.validate) runValidation(config);
    else runTrain(config, effectiveTrainConfig(options.config, options.data_root, options.overrides));
  } catch (const std::exception& e) {
    throw Error(describeFailure(e) + "\n(nothing written: '" + config.output_dir + "' keeps its previous contents)");
  }
}

}  // namespace

void addTrainCommand(CLI::App& app) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "train", "Learn a cost map from demonstrations (maximum margin planning), score it on holdout images, draw panels");
  cmd->add_option("config,--config", options->config, "YAML settings (see configs/demo.yaml; every key: docs/config.md)");
  cmd->add_option("--data-root", options->data_root, "folder the config's image paths start from (default: $MMP_DATA_ROOT or the config's data_root)");
  cmd->add_option("--output-dir", options->output_dir, "where to write the model, panels and metrics (default: the config's output_dir)");
  cmd->add_option("--set", options->overrides,
                  "KEY=VALUE: change one setting of the config, e.g. --set features.class_scores=true (repeatable; "
                  "VALUE is YAML, null removes the setting)")
      ->allow_extra_args(false);
  cmd->add_option("--threads", options->threads, "threads for the batch learner's oracle calls (0 = all cores)")
      ->check(CLI::Range(0, 256));
  cmd->add_flag("--validate", options->validate,
                "leave each training area (each image without 'area') out in turn: train on the others, score on it "
                "(holdout images unused); writes validation.json instead of a model");
  cmd->add_flag("--print-config", options->print_config,
                "print the config as it is read -- merged with its bases and --set, every setting at its value -- and stop");
  cmd->add_flag("--keys", options->keys, "print the table of settings (key, valid values, default, meaning), mmp train's and those of mmp adapt, suggest and serve, and stop");
  cmd->footer("Examples:\n  mmp train configs/demo.yaml\n  mmp train configs/follow_road.yaml --set learner.online.epochs=10 "
              "--output-dir out/quick\n  mmp train configs/follow_road.yaml --validate\n  mmp train configs/demo.yaml --print-config");
  cmd->callback([options] { runTrainCommand(*options); });
}

}  // namespace mmp::tools
