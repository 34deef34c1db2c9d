// `mmp train CONFIG.yaml`: maximum margin planning from imagery and demonstrations, end to end.
// Trains on the config's training images, writes the model, scores the learned planner and two
// baselines (uniform cost, per-pixel classifier) on the holdout images, and draws a Figure-2-style
// panel per holdout image, a training curve and metrics.json (sec. 6.2 of the subgradient paper).
#include "commands.hpp"
#include "failure.hpp"
#include "json_output.hpp"
#include "output_folder.hpp"
#include "pipeline.hpp"
#include "progress.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/render.hpp>
#include <mmp/planning/path.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>

namespace mmp::tools {
namespace {

struct TrainOptions {
  std::string config;
  std::string data_root;
  std::string output_dir;
  int threads = -1;
  bool validate = false;
};

const cv::Scalar kDemoColour(255, 255, 0);       // cyan: demonstrations and reference paths
const cv::Scalar kLearnedColour(40, 40, 255);    // red: the learned plans

std::string fixed(double x, int digits = 3) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, x);
  return buffer;
}

Json summaryJson(const MethodSummary& m) {
  Json o = Json::object();
  o["cost_ratio_mean"] = m.cost_ratio_mean;
  o["cost_ratio_p95"] = m.cost_ratio_p95;
  o["dist_mean_px"] = m.dist_mean_px;
  o["dist_p95_px"] = m.dist_p95_px;
  o["preferred_share"] = m.preferred_share;
  o["feasible_share"] = m.feasible_share;
  o["pairs"] = m.pairs;
  return o;
}

// Training image with its demonstrations | learned cost map of the holdout | holdout image with the
// learned plans and the reference paths.
cv::Mat figurePanel(const Region& train, const HoldoutResult& holdout, const TrainConfig& config) {
  const int height = config.evaluation.panel_height;
  cv::Mat left = resizeToHeight(train.image(cv::Rect(0, 0, train.cols() * config.features.cell_size,
                                                     train.rows() * config.features.cell_size)), height);
  const double left_scale = static_cast<double>(height) / train.rows();
  for (const auto& demo : train.demonstrations) drawPath(left, demo, train.cols(), left_scale, kDemoColour, 2);

  const Region& region = holdout.region;
  CostMapStyle style;
  style.pixels_per_cell = static_cast<double>(height) / region.rows();
  style.caption = "cost";
  const cv::Mat middle = renderCostMap(holdout.learned_costs, region.rows(), region.cols(), style);

  cv::Mat right = resizeToHeight(region.image(cv::Rect(0, 0, region.cols() * config.features.cell_size,
                                                       region.rows() * config.features.cell_size)), height);
  const double right_scale = static_cast<double>(height) / region.rows();
  const std::size_t shown = std::min<std::size_t>(static_cast<std::size_t>(config.evaluation.panel_paths),
                                                  holdout.references.size());
  for (std::size_t k = 0; k < shown; ++k) {
    drawPath(right, holdout.references[k], region.cols(), right_scale, kDemoColour, 2);
    drawPath(right, holdout.plans.at("learned")[k], region.cols(), right_scale, kLearnedColour, 2);
  }
  return makePanel({{"training: " + train.spec.name + " (" + std::to_string(train.demonstrations.size()) +
                         " demonstrations, cyan)", left},
                    {"learned cost on holdout " + region.spec.name, middle},
                    {"learned plan (red) vs reference (cyan)", right}},
                   height);
}

// Length of the paths on each class (summed over the paths, trapezoid rule as for costs).
void addClassLengths(const Region& region, const std::vector<std::vector<int>>& paths,
                     const std::vector<LabelClass>& classes, std::map<std::string, double>& lengths) {
  for (const LabelClass& c : classes) {
    std::vector<double> indicator(region.cell_labels.size());
    for (std::size_t s = 0; s < indicator.size(); ++s) indicator[s] = region.cell_labels[s] == c.index ? 1.0 : 0.0;
    for (const auto& path : paths) lengths[c.name] += pathIntegral(path, region.cols(), indicator);
  }
}

Json sharesJson(const std::map<std::string, double>& lengths, const std::vector<LabelClass>& classes) {
  double total = 0.0;
  for (const auto& [name, length] : lengths) total += length;
  Json o = Json::object();
  for (const LabelClass& c : classes) o[c.name] = total > 0.0 ? lengths.at(c.name) / total : 0.0;
  return o;
}

// The training curve's numbers: one record per batch iteration or online epoch (iteration = the
// batch iteration or the online round at the epoch's end), as TraceRecord has them.
Json traceJson(const TrainedPlanner& planner) {
  Json records = Json::array();
  for (const TraceRecord& r : planner.trace) {
    Json record = Json::object();
    record["iteration"] = r.iteration;
    record["value"] = r.value;
    record["weight_norm"] = r.weight_norm;
    record["elapsed_seconds"] = r.elapsed_seconds;
    records.push_back(std::move(record));
  }
  return records;
}

// What TraceRecord::value is for the planner's learner.
const char* traceValueName(const TrainedPlanner& planner) {
  return planner.learner == "batch" ? "objective c(w), eq. 4" : "mean prediction loss";
}

cv::Mat trainingCurve(const TrainedPlanner& planner, const std::string& behaviour) {
  ChartSeries series;
  series.name = traceValueName(planner);
  for (const TraceRecord& r : planner.trace) {
    series.x.push_back(static_cast<double>(planner.learner == "batch" ? r.iteration : series.x.size() + 1));
    series.y.push_back(r.value);
  }
  ChartStyle style;
  style.title = "training curve: " + behaviour + " (" + planner.learner + " learner)";
  style.x_label = planner.learner == "batch" ? "iteration" : "epoch";
  style.y_label = series.name;
  style.log_y = true;
  return lineChart({series}, style);
}

// Prints the table of methods (in report order) and returns their summaries as JSON.
Json printMethodTable(const std::map<std::string, std::vector<PlanScore>>& scores) {
  std::printf("%-11s %16s %15s %15s %14s %16s %9s\n", "method", "cost ratio mean", "cost ratio p95", "dist mean (px)",
              "dist p95 (px)", "preferred share", "feasible");
  Json o = Json::object();
  for (const std::string& method : methodNames()) {
    if (scores.count(method) == 0) continue;
    const MethodSummary m = summarise(scores.at(method));
    std::printf("%-11s %16s %15s %15s %14s %16s %9s\n", method.c_str(), fixed(m.cost_ratio_mean).c_str(),
                fixed(m.cost_ratio_p95).c_str(), fixed(m.dist_mean_px, 1).c_str(), fixed(m.dist_p95_px, 1).c_str(),
                fixed(m.preferred_share).c_str(), fixed(m.feasible_share, 2).c_str());
    o[method] = summaryJson(m);
  }
  return o;
}

// Prints and returns, for each baseline, how much lower the learned mean cost ratio is on the same
// pairs, with its 95 % paired-bootstrap interval.
Json printComparisons(const std::map<std::string, std::vector<PlanScore>>& scores) {
  Json o = Json::object();
  if (scores.count("learned") == 0) return o;
  for (const std::string& method : methodNames()) {
    if (method == "learned" || scores.count(method) == 0) continue;
    const PairedComparison c = comparePaired(scores.at("learned"), scores.at(method));
    std::printf("learned vs %-10s mean cost ratio %.3f lower, 95 %% paired-bootstrap interval [%.3f, %.3f]%s\n",
                method.c_str(), c.gain, c.low, c.high, c.low > 0.0 ? "" : " (contains 0: could be chance)");
    o[method] = {{"gain", c.gain}, {"ci95_low", c.low}, {"ci95_high", c.high}};
  }
  return o;
}

// Leave one training image out: for each training image, train on the others and score on it as on
// a holdout image.  For choosing settings without touching the holdout images; writes validation.json.
void runValidation(const TrainConfig& config, const TrainOptions& options) {
  if (config.train.size() < 2) throw InvalidArgument(config.file + ": --validate needs at least two training images");
  for (const RegionSpec& spec : config.train) {
    if (!spec.hasLabels()) {
      throw InvalidArgument(config.file + ": " + spec.where + ": --validate scores each training image against its "
                            "labels; this one has none");
    }
  }
  OutputFolder output(config.output_dir);
  std::printf("mmp train --validate %s: behaviour '%s', leaving out each of %zu training images in turn "
              "(the holdout images are not used)\n",
              config.file.c_str(), config.behaviour.name.c_str(), config.train.size());
  std::map<std::string, std::vector<PlanScore>> pooled;
  std::vector<PairRecord> records;
  Json folds = Json::object();
  for (std::size_t i = 0; i < config.train.size(); ++i) {
    TrainConfig fold = config;
    fold.train.erase(fold.train.begin() + static_cast<std::ptrdiff_t>(i));
    fold.holdout = {config.train[i]};
    Progress progress("fold " + std::to_string(i + 1) + "/" + std::to_string(config.train.size()) + ": " +
                      config.train[i].name);
    const Training training = loadTrainingRegions(fold);
    long demonstrations = 0;
    for (const Region& r : training.regions) demonstrations += static_cast<long>(r.demonstrations.size());
    const long steps = config.learner.kind == "batch" ? config.learner.batch.stop.max_iterations
                                                      : config.learner.online.stop.max_iterations * demonstrations;
    const TrainedPlanner planner = trainPlanner(training, fold, options.threads, [&](const TraceRecord& r) {
      progress.update(std::min(r.iteration, steps), steps);
      return true;
    });
    const std::optional<LinearClassifier> classifier = trainBaseline(training, fold, options.threads);
    const HoldoutResult holdout =
        evaluateHoldout(fold, 0, training.stack, planner.weights, classifier ? &*classifier : nullptr);
    progress.finish();
    std::printf("\nleft out %s (%zu pairs; trained in %.1f s)\n", config.train[i].name.c_str(),
                holdout.references.size(), planner.train_seconds);
    for (const auto& [method, scores] : holdout.scores) {
      pooled[method].insert(pooled[method].end(), scores.begin(), scores.end());
    }
    addPairRecords(config.train[i].name, holdout.region.cols(), holdout.references, holdout.scores, records);
    folds[config.train[i].name] = printMethodTable(holdout.scores);
    std::fflush(stdout);
  }
  std::printf("\nall folds pooled\n");
  const Json methods = printMethodTable(pooled);
  const Json comparisons = printComparisons(pooled);
  Json validation = Json::object();
  validation["behaviour"] = config.behaviour.name;
  validation["methods"] = methods;
  validation["learned_vs"] = comparisons;
  validation["folds"] = folds;
  writeFileAtomically(output.file("validation.json"), jsonText(validation) + "\n");
  writePairRecords(output.file("validation_pairs.csv"), records);
  output.commit();
  std::printf("\nwrote %s: validation.json validation_pairs.csv\n", output.path().c_str());
}

void runTrain(const TrainConfig& config, const TrainOptions& options) {
  OutputFolder output(config.output_dir);
  std::printf("mmp train %s: behaviour '%s' (preferred class %s), %zu training and %zu holdout images\n",
              config.file.c_str(), config.behaviour.name.c_str(), config.behaviour.preferred_name.c_str(),
              config.train.size(), config.holdout.size());

  std::unique_ptr<Progress> progress;
  std::string stage_shown;
  const StageCallback stage = [&](const std::string& name, long done, long total) {
    if (name != stage_shown) {
      if (progress) progress->finish();
      progress = std::make_unique<Progress>(name);
      stage_shown = name;
    }
    progress->update(done, total);
  };

  const Training training = loadTrainingRegions(config, stage);
  if (progress) progress->finish();
  int demonstrations = 0;
  for (const Region& r : training.regions) {
    demonstrations += static_cast<int>(r.demonstrations.size());
    std::printf("  train %-24s %5d x %-5d cells of %d px, %zu demonstrations%s\n", r.spec.name.c_str(), r.rows(),
                r.cols(), config.features.cell_size, r.demonstrations.size(),
                r.spec.demonstrations.empty() ? " (generated from labels)" : " (from file)");
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

  // Learning.
  const long total = config.learner.kind == "batch"
                         ? config.learner.batch.stop.max_iterations
                         : config.learner.online.stop.max_iterations * static_cast<long>(demonstrations);
  Progress learning("training (" + config.learner.kind + ")");
  const TrainedPlanner planner = trainPlanner(training, config, options.threads, [&](const TraceRecord& r) {
    std::ostringstream status;
    status << (config.learner.kind == "batch" ? "objective " : "mean loss ") << r.value;
    learning.update(r.iteration, total, status.str());
    return true;
  });
  learning.finish();
  std::printf("  learner %s: %ld %s in %.2f s (%.3f s each)%s, %s\n", planner.learner.c_str(), planner.epochs,
              planner.learner == "batch" ? "iterations" : "epochs", planner.epoch_seconds * planner.epochs,
              planner.epoch_seconds,
              planner.learner == "batch" ? (", objective " + std::to_string(planner.objective)).c_str() : "",
              planner.info.c_str());
  if (config.learner.costs == CostForm::Linear) {
    std::printf("  bias weight %.4g (floor %.4g%s), training prediction loss per cell %.4f; training %.2f s in all\n",
                planner.bias, planner.bias_floor,
                config.learner.calibrate_bias ? (", calibrated on the demonstrations in " +
                                                 std::to_string(planner.calibration_seconds).substr(0, 5) + " s").c_str()
                                              : "",
                planner.training_loss, planner.train_seconds);
  } else {
    std::printf("  exponential costs exp(w . f), costs from %.3g to %.3g on the training images; training prediction "
                "loss per cell %.4f; training %.2f s in all\n",
                planner.cost_range[0], planner.cost_range[1], planner.training_loss, planner.train_seconds);
  }
  std::printf("  largest training image %s (%d cells, %d demonstrations): %.3f s per epoch\n",
              planner.largest_region.c_str(), planner.largest_cells, planner.largest_examples,
              planner.largest_epoch_seconds);

  Model model;
  model.weights = planner.weights;
  training.stack.store(model);
  model.settings["behaviour"] = config.behaviour.name;
  model.settings["learner"] = config.learner.kind;
  model.settings["costs"] = describe(config.learner.costs);
  model.settings["bias_floor"] = std::to_string(planner.bias_floor);
  model.settings["config"] = config.file;
  std::string trained_on;
  for (const Region& r : training.regions) trained_on += (trained_on.empty() ? "" : ",") + r.spec.name;
  model.settings["trained_on"] = trained_on;
  saveModel(output.file("model.mmp"), model);

  const std::optional<LinearClassifier> classifier = trainBaseline(training, config, options.threads);
  if (classifier) {
    std::printf("  classifier baseline: %d cells, training accuracy %.3f, cost scale %g (chosen on training images)\n",
                classifier->samples, classifier->training_accuracy, classifier->cost_scale);
  } else {
    std::printf("  classifier baseline: skipped (%s)\n",
                config.classifier.enabled ? "a training image has no labels" : "disabled");
  }

  // Holdout evaluation.
  std::map<std::string, std::vector<PlanScore>> pooled;
  std::vector<PairRecord> records;
  std::map<std::string, double> learned_lengths, reference_lengths;
  Json regions_json = Json::object();
  double reference_share = 0.0;
  int reference_pairs = 0;
  std::vector<std::string> outputs = {"model.mmp"};
  for (std::size_t i = 0; i < config.holdout.size(); ++i) {
    const HoldoutResult holdout = evaluateHoldout(config, static_cast<int>(i), training.stack, planner.weights,
                                                  classifier ? &*classifier : nullptr, stage);
    if (progress) progress->finish();
    Json region_json = Json::object();
    for (const auto& [method, scores] : holdout.scores) {
      pooled[method].insert(pooled[method].end(), scores.begin(), scores.end());
      region_json[method] = summaryJson(summarise(scores));
    }
    addPairRecords(holdout.region.spec.name, holdout.region.cols(), holdout.references, holdout.scores, records);
    region_json["reference_preferred_share"] = holdout.reference_preferred_share;
    addClassLengths(holdout.region, holdout.plans.at("learned"), config.classes, learned_lengths);
    addClassLengths(holdout.region, holdout.references, config.classes, reference_lengths);
    regions_json[holdout.region.spec.name] = region_json;
    reference_share += holdout.reference_preferred_share * static_cast<double>(holdout.references.size());
    reference_pairs += static_cast<int>(holdout.references.size());
    const std::string panel = "panel_" + holdout.region.spec.name + "." + config.evaluation.panel_format;
    writeImage(output.file(panel), figurePanel(training.regions.front(), holdout, config));
    outputs.push_back(panel);
  }
  writeImage(output.file("training_curve.png"), trainingCurve(planner, config.behaviour.name));
  outputs.push_back("training_curve.png");

  std::printf("\nholdout: %zu images, %d start/goal pairs; behaviour '%s', preferred class %s (reference paths: %.3f)\n",
              config.holdout.size(), reference_pairs, config.behaviour.name.c_str(),
              config.behaviour.preferred_name.c_str(), reference_share / std::max(1, reference_pairs));
  const Json methods = printMethodTable(pooled);
  const Json comparisons = printComparisons(pooled);

  Json metrics = Json::object();
  metrics["behaviour"] = config.behaviour.name;
  metrics["train_seconds"] = planner.train_seconds;
  metrics["epoch_seconds"] = planner.epoch_seconds;
  metrics["methods"] = methods;
  metrics["learned_vs"] = comparisons;
  metrics["learner"] = planner.learner;
  metrics["epochs"] = planner.epochs;
  metrics["objective"] = planner.objective;  // NaN for the online learner: written as null
  metrics["bias_floor"] = planner.bias_floor;
  metrics["bias"] = planner.bias;
  metrics["calibration_seconds"] = planner.calibration_seconds;
  metrics["training_prediction_loss"] = planner.training_loss;
  metrics["examples"] = planner.examples;
  metrics["features"] = training.stack.features();
  metrics["cell_size_px"] = config.features.cell_size;
  metrics["largest_training_image"] = {{"name", planner.largest_region},
                                       {"cells", planner.largest_cells},
                                       {"demonstrations", planner.largest_examples},
                                       {"epoch_seconds", planner.largest_epoch_seconds}};
  metrics["holdout_pairs"] = reference_pairs;
  metrics["reference_preferred_share"] = reference_share / std::max(1, reference_pairs);
  metrics["learned_class_shares"] = sharesJson(learned_lengths, config.classes);
  metrics["reference_class_shares"] = sharesJson(reference_lengths, config.classes);
  metrics["impassable_cost"] = impassableCost(config);
  metrics["classifier_cost_scale"] = classifier ? classifier->cost_scale : std::numeric_limits<double>::quiet_NaN();
  metrics["regions"] = regions_json;
  metrics["trace_value"] = traceValueName(planner);
  metrics["trace"] = traceJson(planner);
  writeFileAtomically(output.file("metrics.json"), jsonText(metrics) + "\n");
  outputs.push_back("metrics.json");
  writePairRecords(output.file("pairs.csv"), records);
  outputs.push_back("pairs.csv");
  output.commit();
  std::printf("\nwrote %s:", output.path().c_str());
  for (const std::string& o : outputs) std::printf(" %s", o.c_str());
  std::printf("\n");
}

// Runs train or --validate; on failure says that the output folder kept its previous contents.
void runTrainCommand(const TrainOptions& options) {
  const TrainConfig config = loadTrainConfig(options.config, options.data_root, options.output_dir);
  try {
    if (options.validate) runValidation(config, options);
    else runTrain(config, options);
  } catch (const std::exception& e) {
    throw Error(describeFailure(e) + "\n(nothing written: '" + config.output_dir + "' keeps its previous contents)");
  }
}

}  // namespace

void addTrainCommand(CLI::App& app) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "train", "Learn a cost map from demonstrations (maximum margin planning), score it on holdout images, draw panels");
  cmd->add_option("config", options->config, "YAML settings (see configs/demo.yaml)")->required();
  cmd->add_option("--data-root", options->data_root, "folder the config's image paths start from (default: $MMP_DATA_ROOT or the config's data_root)");
  cmd->add_option("--output-dir", options->output_dir, "where to write the model, panels and metrics (default: the config's output_dir)");
  cmd->add_option("--threads", options->threads, "threads for the batch learner's oracle calls (0 = all cores)")
      ->check(CLI::Range(0, 256));
  cmd->add_flag("--validate", options->validate,
                "leave each training image out in turn: train on the others, score on it (holdout images unused); "
                "writes validation.json instead of a model");
  cmd->callback([options] { runTrainCommand(*options); });
}

}  // namespace mmp::tools
