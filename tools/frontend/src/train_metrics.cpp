#include <mmp/frontend/train_metrics.hpp>

#include <cmath>
#include <limits>

namespace mmp::tools {
namespace {

Json traceJson(const TrainingReport& report) {
  Json records = Json::array();
  for (std::size_t i = 0; i < report.trace.size(); ++i) {
    const TraceRecord& r = report.trace[i];
    records.push_back({{"iteration", r.iteration}, {"value", r.value}, {"weight_norm", r.weight_norm},
                       {"elapsed_seconds", r.elapsed_seconds}});
    if (report.validation.size() == report.trace.size()) records.back()["validation"] = report.validation[i];
  }
  return records;
}

Json sharesJson(const std::map<std::string, double>& lengths, const std::vector<LabelClass>& classes) {
  Json o = Json::object();
  for (const auto& [name, share] : HoldoutReport::shares(lengths, classes)) o[name] = share;
  return o;
}

}  // namespace

Json summaryJson(const MethodSummary& m) {
  return {{"cost_ratio_mean", m.cost_ratio_mean}, {"cost_ratio_p95", m.cost_ratio_p95},
          {"dist_mean_px", m.dist_mean_px},       {"dist_p95_px", m.dist_p95_px},
          {"mhd_mean_px", m.mhd_mean_px},         {"mhd_p95_px", m.mhd_p95_px},
          {"preferred_share", m.preferred_share}, {"feasible_share", m.feasible_share},
          {"pairs", m.pairs}};
}

Json methodsJson(const HoldoutReport& report) {
  Json o = Json::object();
  for (const Method method : report.methodsScored()) o[methodName(method)] = summaryJson(report.summary(method));
  return o;
}

Json comparisonsJson(const HoldoutReport& report) {
  Json o = Json::object();
  if (report.scores.count(Method::Learned) == 0) return o;
  for (const Method method : report.methodsScored()) {
    if (method == Method::Learned || method == Method::ClassMean) continue;
    const PairedComparison c = report.learnedVersus(method);
    o[methodName(method)] = {{"gain", c.gain}, {"ci95_low", c.low}, {"ci95_high", c.high}, {"verdict", verdict(c)}};
  }
  return o;
}

Json misreadJson(const HoldoutReport& report) {
  if (report.scores.count(Method::Learned) == 0 || report.scores.count(Method::ClassMean) == 0) return nullptr;
  const PairedComparison c = report.learnedVersus(Method::ClassMean);  // class_mean minus learned
  return {{"gap", -c.gain}, {"ci95_low", -c.high}, {"ci95_high", -c.low}};
}

std::string learnerName(const TrainingReport& report) {
  if (report.hypothesis == CostHypothesis::Learch) return "learch";
  if (report.hypothesis == CostHypothesis::Network) return "network";
  return describe(report.learner);
}

Json metricsJson(const TrainingRun& r, const Json& selection) {
  const PipelineSettings& config = r.settings;
  const TrainingReport& report = r.run.trained.report;
  Json regions_json = Json::object();
  for (const auto& [name, summaries] : r.report.region_summaries) {
    Json region_json = Json::object();
    for (const Method method : methodsByName()) {
      if (summaries.count(method) != 0) region_json[methodName(method)] = summaryJson(summaries.at(method));
    }
    region_json["reference_preferred_share"] = r.report.region_reference_preferred_share.at(name);
    regions_json[name] = region_json;
  }
  Json metrics = {{"behaviour", config.behaviour.name},
                  {"train_seconds", report.train_seconds},
                  {"epoch_seconds", report.epoch_seconds}};
  metrics["methods"] = methodsJson(r.report);
  metrics["learned_vs"] = comparisonsJson(r.report);
  if (r.settings.evaluation.class_mean) metrics["misread_cells"] = misreadJson(r.report);
  metrics["learner"] = learnerName(report);
  metrics["epochs"] = report.passes;
  metrics["objective"] = report.objective;  // NaN for the online learner: written as null
  metrics["learner_info"] = report.info;     // why it stopped (LEARCH: also an early stop to keep costs bounded)
  metrics["training_cost_range"] = {report.cost_range[0], report.cost_range[1]};
  metrics["bias_floor"] = report.bias_floor;
  metrics["bias"] = report.bias;
  metrics["calibration_seconds"] = report.calibration_seconds;
  metrics["training_prediction_loss"] = report.training_loss;
  metrics["examples"] = report.examples;
  metrics["features"] = r.run.training.stack.features();
  metrics["cell_size_px"] = config.features.cell_size;
  metrics["largest_training_image"] = {{"name", report.largest_region},
                                       {"cells", report.largest_cells},
                                       {"demonstrations", report.largest_examples},
                                       {"epoch_seconds", report.largest_epoch_seconds}};
  metrics["holdout_pairs"] = r.report.pairs;
  metrics["reference_preferred_share"] = r.report.referencePreferredShare();
  metrics["learned_class_shares"] = sharesJson(r.report.learned_lengths, config.classes);
  metrics["reference_class_shares"] = sharesJson(r.report.reference_lengths, config.classes);
  metrics["learned_class_costs"] = r.report.learnedClassCosts(config.behaviour.preferred_name);
  metrics["impassable_cost"] = impassableCost(config);
  metrics["classifier_cost_scale"] = r.run.classifier ? r.run.classifier->cost_scale : std::numeric_limits<double>::quiet_NaN();
  metrics["regions"] = regions_json;
  if (r.selection) metrics["selection"] = selection;
  if (r.training_fit) {
    metrics["training_fit"] = {{"images", r.training_fit->regions.size()},
                               {"pairs", r.training_fit->pairs},
                               {"methods", methodsJson(*r.training_fit)},
                               {"learned_class_costs", r.training_fit->learnedClassCosts(config.behaviour.preferred_name)},
                               {"learned_vs", comparisonsJson(*r.training_fit)}};
    if (config.evaluation.class_mean) metrics["training_fit"]["misread_cells"] = misreadJson(*r.training_fit);
  }
  metrics["trace_value"] = report.trace_value;
  if (!report.validation_value.empty()) metrics["validation_value"] = report.validation_value;
  metrics["trace"] = traceJson(report);
  return metrics;
}

namespace {

Json fitJson(const HeldOutFit& f) {
  return {{"loss", f.loss}, {"mhd_px", f.mhd_px}, {"cost_ratio", f.cost_ratio}, {"unplanned", f.unplanned}};
}

Json gainJson(const PairedComparison& c) {
  return {{"gain", c.gain}, {"ci95_low", c.low}, {"ci95_high", c.high}, {"verdict", verdict(c)}};
}

}  // namespace

Json heldOutJson(const HeldOutPathReport& h, const char* baseline, const char* model) {
  return {{"demonstrations", h.demonstrations}, {baseline, fitJson(h.baseline)}, {model, fitJson(h.model)},
          {std::string(model) + "_vs_" + baseline + "_loss", gainJson(h.gain)}};
}

Json adaptationMetricsJson(const AdaptationRun& run, const AdaptationRunSettings& settings, const std::string& parent_name) {
  Json metrics = {{"parent", parent_name}, {"demonstrations", run.taught.size()}, {"teach_images", settings.train.size()}};
  if (settings.behaviour.preferred >= 0) metrics["behaviour"] = settings.behaviour.name;
  Json teaching = Json::array();
  for (const TeachingRecord& r : run.taught) {
    teaching.push_back({{"name", r.name}, {"image", settings.train[static_cast<std::size_t>(r.image)].name},
                        {"loss_before", r.step.loss_before}, {"loss_after", r.step.loss_after}, {"seconds", r.step.seconds},
                        {"info", r.step.info == Info::Success ? "success" : r.step.message}, {"warnings", r.step.warnings}});
  }
  metrics["teaching"] = teaching;
  if (!run.marks.empty()) {
    Json marks = Json::array();
    for (std::size_t m = 0; m < run.marks.size(); ++m) {
      marks.push_back({{"from", run.mark_files[m]}, {"kind", markKindName(run.marks[m].kind)},
                       {"image", settings.train[static_cast<std::size_t>(run.marks[m].image)].name}, {"cells", run.marks[m].cells.size()}});
    }
    metrics["marks"] = marks;
  }
  if (!run.lambda_selection.empty() || !run.selection_note.empty()) {
    Json candidates = Json::array();
    for (const LambdaCandidate& c : run.lambda_selection) {
      candidates.push_back({{"lambda", c.lambda}, {"held_out_loss", std::isfinite(c.held_out_loss) ? Json(c.held_out_loss) : Json()}});
    }
    metrics["lambda_selection"] = {{"candidates", candidates}, {"chosen", run.lambda}, {"note", run.selection_note}};
  }
  const HeldOutPathReport& h = run.held_out;
  if (h.demonstrations > 0) {
    metrics["held_out"] = heldOutJson(h, "parent", "adapted");
  }
  if (run.report.pairs > 0) {
    Json methods = methodsJson(run.report);
    methods["parent"] = summaryJson(run.parent_report.summary(Method::Learned));
    Json versus = comparisonsJson(run.report);
    versus["parent"] = gainJson(run.versus_parent);
    metrics["methods"] = methods;
    metrics["learned_vs"] = versus;
    metrics["holdout_pairs"] = run.report.pairs;
    if (Json misread = misreadJson(run.report); !misread.is_null()) metrics["misread_cells"] = misread;
  }
  return metrics;
}

}  // namespace mmp::tools
