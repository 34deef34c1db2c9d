#include <mmp/maps/training/pipeline.hpp>

#include "trainer.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/ground_scale.hpp>
#include <mmp/planning/demonstrations.hpp>
#include <mmp/planning/loss.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/path_example.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <memory>

namespace mmp {

std::unique_ptr<CostModelTrainer> makeTrainer(CostHypothesis hypothesis) {
  switch (hypothesis) {
    case CostHypothesis::Learch: return makeLearchTrainer();
    case CostHypothesis::Network: return makeNetworkTrainer();
    case CostHypothesis::Linear: break;
  }
  return makeLinearTrainer();
}


PathExample::Params exampleParams(const PipelineSettings& config) {
  PathExample::Params p;
  p.connectivity = Connectivity::Eight;
  p.loss.shape = config.loss.shape;
  p.loss.radius = config.loss.radius_px / config.features.cell_size;  // the loss lives on the cell grid
  p.loss.scale = config.loss.scale;
  p.length_weighting = config.loss.length_weighting;
  p.q = config.learner.q();
  p.cost_form = config.learner.costs;
  p.maxent.region_margin = config.learner.maxent_margin;
  return p;
}

std::shared_ptr<const std::vector<double>> classLossWeights(const Region& region, const PipelineSettings& config) {
  if (!config.loss.by_class) return nullptr;
  if (region.true_costs.empty()) throw Error("loss.by_class: " + region.spec.where + " has no labels");  // config checks
  double cheapest = std::numeric_limits<double>::infinity(), dearest = 0.0;
  for (const LabelClass& c : config.classes) {
    const double cost = config.classCost(c.index);
    if (std::isnan(cost)) continue;
    cheapest = std::min(cheapest, cost);
    if (std::isfinite(cost)) dearest = std::max(dearest, cost);
  }
  auto weights = std::make_shared<std::vector<double>>(region.true_costs.size(), 1.0);
  if (dearest > cheapest) {
    for (std::size_t s = 0; s < weights->size(); ++s) {
      const double cost = region.true_costs[s];
      (*weights)[s] = std::isfinite(cost) ? (cost - cheapest) / (dearest - cheapest) / config.loss.impassable_factor : 1.0;
    }
  }
  return weights;
}

double impassableCost(const PipelineSettings& config) {
  if (!std::isnan(config.evaluation.impassable_cost)) return config.evaluation.impassable_cost;
  double dearest = 0.0;
  for (const LabelClass& c : config.classes) {
    const double cost = config.classCost(c.index);
    if (std::isfinite(cost)) dearest = std::max(dearest, cost);
  }
  return 10.0 * dearest;
}

TrainingData loadTrainingData(const PipelineSettings& config, const StageCallback& progress) {
  validate(config);
  TrainingData training;
  const long n = static_cast<long>(config.train.size());
  for (long i = 0; i < n; ++i) {
    if (progress) progress("loading training images", i, n, "");
    training.regions.push_back(loadRegion(config.train[static_cast<std::size_t>(i)], config));
  }
  std::vector<const RawFeatures*> raws;
  for (const Region& r : training.regions) raws.push_back(&r.raw);
  training.stack = FeatureStack::fit(config.features, raws);
  if (config.class_scores) {
    if (progress) progress("fitting the class scores", 0, 1, "");
    std::vector<const Region*> regions;
    std::vector<const FeatureMap*> maps;
    for (Region& r : training.regions) {
      r.map = regionMap(training.stack, r);
      regions.push_back(&r);
      maps.push_back(r.map.get());
    }
    ClassScorer scorer = trainClassScorer(regions, config.classes, config.classifier, config.threads < 0 ? 0 : config.threads);
    training.class_score_accuracy = scorer.training_accuracy;
    training.stack = training.stack.withClassScores(std::move(scorer.classes), std::move(scorer.weights), maps,
                                                    config.class_context_px);
    if (progress) progress("fitting the class scores", 1, 1, "");
  }
  for (std::size_t i = 0; i < training.regions.size(); ++i) {
    Region& r = training.regions[i];
    r.map = regionMap(training.stack, r);
    std::vector<float>().swap(r.raw.values);  // 4 bytes per raw feature and cell; the coded map holds them now
    addDemonstrations(r, config, static_cast<int>(i));
  }
  if (progress) progress("loading training images", n, n, "");
  return training;
}

namespace {

// One PathExample per demonstration, with the region (index in training.regions) that owns each.
void makeExamples(const TrainingData& training, const PipelineSettings& config, const PathExample::Params& params,
                  std::vector<std::unique_ptr<PathExample>>& examples, std::vector<std::size_t>& owner) {
  for (std::size_t i = 0; i < training.regions.size(); ++i) {
    const Region& r = training.regions[i];
    PathExample::Params region_params = params;
    region_params.loss_weights = classLossWeights(r, config);
    for (const std::vector<int>& demo : r.demonstrations) {
      examples.push_back(std::make_unique<PathExample>(r.map, demo, region_params));
      owner.push_back(i);
    }
  }
}

// The statistics of the training images' cells (cost_model.hpp: familiarity), kept in the model.
TrainingDomain trainingDomain(const TrainingData& training) {
  TrainingDomain domain(training.stack.settings().cell_size);
  for (const Region& r : training.regions) domain.add(r.image);
  return domain;
}

// train() without the training statistics: the examples, the hypothesis' trainer (trainer.hpp), and
// what every kind reports.
TrainedCostModel trainHypothesis(const TrainingData& training, const PipelineSettings& config, const StageCallback& progress) {
  std::vector<std::unique_ptr<PathExample>> examples;
  std::vector<std::size_t> owner;  // region of each example
  makeExamples(training, config, exampleParams(config), examples, owner);
  const TrainerInput in{training, config, examples, owner, progress};
  const std::unique_ptr<CostModelTrainer> trainer = makeTrainer(config.learner.hypothesis);
  std::string trained_on;
  for (const Region& r : training.regions) trained_on += (trained_on.empty() ? "" : ",") + r.spec.name;
  std::map<std::string, std::string> info = {{"behaviour", config.behaviour.name}, {"trained_on", trained_on}};
  if (!config.source.empty()) info["config"] = config.source;

  TrainingReport report;
  report.hypothesis = config.learner.hypothesis;
  report.learner = config.learner.kind;
  report.examples = static_cast<int>(examples.size());
  const auto start = std::chrono::steady_clock::now();
  CostModel model = trainer->fit(in, std::move(info), report);
  report.train_seconds = secondsSince(start);

  // One pass of oracle calls over the examples of the largest training image, timed.
  std::size_t largest = 0;
  for (std::size_t i = 1; i < training.regions.size(); ++i) {
    if (training.regions[i].cells() > training.regions[largest].cells()) largest = i;
  }
  std::vector<const PathExample*> largest_list;
  for (std::size_t k = 0; k < examples.size(); ++k) {
    if (owner[k] == largest) largest_list.push_back(examples[k].get());
  }
  report.largest_region = training.regions[largest].spec.name;
  report.largest_cells = training.regions[largest].cells();
  report.largest_examples = static_cast<int>(largest_list.size());
  const auto pass_start = std::chrono::steady_clock::now();
  if (!largest_list.empty() && trainer->oraclePass(in, model, largest_list)) report.largest_epoch_seconds = secondsSince(pass_start);
  return {std::move(model), std::move(report)};
}

}  // namespace

TrainedCostModel train(const TrainingData& training, const PipelineSettings& config, const StageCallback& progress) {
  TrainedCostModel trained = trainLearned(training, config, progress);
  applyAfterTraining(trained, config);
  return trained;
}

TrainedCostModel trainLearned(const TrainingData& training, const PipelineSettings& config, const StageCallback& progress) {
  TrainedCostModel trained = trainHypothesis(training, config, progress);
  trained.model.setDomain(trainingDomain(training));
  return trained;
}

void applyAfterTraining(TrainedCostModel& trained, const PipelineSettings& config) {
  const double exponent = config.learner.cost_exponent;
  if (exponent != 1.0) {
    trained.model.setCostExponent(exponent);
    std::array<double, 2>& range = trained.report.cost_range;
    range = {std::pow(range[0], exponent), std::pow(range[1], exponent)};
    const std::string fault = std::isfinite(range[0]) && std::isfinite(range[1]) ? costRangeFault(range) : "";
    if (!fault.empty()) {
      throw Error((config.source.empty() ? "" : config.source + ": ") + "learner.cost_exponent " + numberText(exponent) + ": on the training cells " + fault +
                  "; a smaller exponent keeps them inside");
    }
  }
}

std::optional<LinearClassifier> trainBaseline(const TrainingData& training, const PipelineSettings& config) {
  if (!config.classifier.enabled) return std::nullopt;
  std::vector<const Region*> regions;
  for (const Region& r : training.regions) {
    if (r.true_costs.empty()) return std::nullopt;  // every training image needs labels
    regions.push_back(&r);
  }
  LinearClassifier classifier =
      trainPreferredClassifier(regions, config.behaviour.preferred, training.stack.baseFeatures(), config.classifier,
                               config.threads < 0 ? 0 : config.threads);
  // The cost scale: lowest mean cost ratio of the training demonstrations (training data only).
  double best = std::numeric_limits<double>::infinity();
  for (double scale : config.classifier.cost_scales) {
    const double mean = demonstrationCostRatio(training, config, [&](const Region& r) {
      return classifierCosts(*r.map, classifier, scale);
    });
    if (mean < best) best = mean, classifier.cost_scale = scale;
  }
  return classifier;
}

double demonstrationCostRatio(const TrainingData& training, const PipelineSettings& config,
                              const std::function<std::vector<double>(const Region&)>& costs) {
  const double impassable = impassableCost(config);
  double sum = 0.0;
  int count = 0;
  for (const Region& r : training.regions) {
    const std::vector<double> region_costs = costs(r);
    PlanScorer scorer(r, config.behaviour.preferred, impassable, config.features.cell_size);
    GridPlanner planner(r.rows(), r.cols());
    for (const std::vector<int>& demo : r.demonstrations) {
      scorer.setReference(demo);
      const PlanResult plan = planner.plan(region_costs, demo.front(), demo.back());
      if (plan.status != PlanStatus::Success) continue;
      sum += scorer.score(plan.path).cost_ratio;
      ++count;
    }
  }
  return count > 0 ? sum / count : std::numeric_limits<double>::infinity();
}

HoldoutImage loadHoldout(const PipelineSettings& config, int index, const FeatureStack& features) {
  HoldoutImage image;
  // The image's features as the model computes them: a selected feature setting (select: may choose
  // one) is in the model, not in a config read back from `mmp info --config`.
  PipelineSettings as_trained = config;
  as_trained.features = features.settings();
  image.region = loadRegion(config.holdout[static_cast<std::size_t>(index)], as_trained);
  Region& region = image.region;
  region.map = regionMap(features, region);
  std::vector<float>().swap(region.raw.values);  // the coded map holds them now
  image.references = plannedPaths(region, config.evaluation.pairs, config.evaluation.min_separation_px,
                                  config.features.cell_size, config.evaluation.seed + static_cast<std::uint64_t>(index),
                                  prefix(config) + "evaluation.pairs");
  if (image.references.empty()) {
    throw DataError(prefix(config) + region.spec.where + ": no reference path could be planned; lower "
                    "evaluation.min_separation_px");
  }
  return image;
}

HoldoutResult scoreHoldout(const PipelineSettings& config, const HoldoutImage& image, const CostModel& model,
                           const LinearClassifier* classifier, const StageCallback& progress) {
  HoldoutResult result;
  const Region& region = image.region;
  const std::string stage = "holdout " + region.spec.name;
  result.references = image.references;

  std::map<Method, std::vector<double>> costs;
  result.learned_costs = regionCosts(model, region).costs;
  costs[Method::Learned] = result.learned_costs;
  costs[Method::Uniform] = std::vector<double>(static_cast<std::size_t>(region.cells()), 1.0);
  if (classifier) costs[Method::Classifier] = classifierCosts(*region.map, *classifier, classifier->cost_scale);
  if (config.evaluation.class_mean) costs[Method::ClassMean] = classMeanCosts(region, result.learned_costs);

  PlanScorer scorer(region, config.behaviour.preferred, impassableCost(config), config.features.cell_size);
  GridPlanner planner(region.rows(), region.cols());
  double reference_share = 0.0;
  for (std::size_t k = 0; k < result.references.size(); ++k) {
    const std::vector<int>& reference = result.references[k];
    scorer.setReference(reference);
    reference_share += scorer.score(reference).preferred_share;
    for (const auto& [method, method_costs] : costs) {
      PlanResult plan = planner.plan(method_costs, reference.front(), reference.back());
      if (plan.status != PlanStatus::Success) {
        throw Error("evaluation: the " + std::string(methodName(method)) + " planner failed on " + region.spec.name + ": " + plan.message);
      }
      result.scores[method].push_back(scorer.score(plan.path));
      result.plans[method].push_back(std::move(plan.path));
    }
    if (progress) progress(stage, static_cast<long>(k + 1), static_cast<long>(result.references.size()), "");
  }
  result.reference_preferred_share = reference_share / static_cast<double>(result.references.size());
  result.region = region;
  result.region.map.reset();  // scored: the features are no longer needed
  return result;
}

HoldoutResult evaluateHoldout(const PipelineSettings& config, int index, const CostModel& model,
                              const LinearClassifier* classifier, const StageCallback& progress) {
  if (progress) {
    progress("holdout " + config.holdout[static_cast<std::size_t>(index)].name, 0, config.evaluation.pairs, "");
  }
  return scoreHoldout(config, loadHoldout(config, index, model.features()), model, classifier, progress);
}

RunResult trainAndEvaluate(const PipelineSettings& settings, const StageCallback& progress) {
  TrainingData training = loadTrainingData(settings, progress);
  TrainedCostModel trained = train(training, settings, progress);
  RunResult run{std::move(training), std::move(trained), std::nullopt, {}};
  run.classifier = trainBaseline(run.training, settings);
  for (std::size_t i = 0; i < settings.holdout.size(); ++i) {
    run.holdouts.push_back(evaluateHoldout(settings, static_cast<int>(i), run.trained.model,
                                           run.classifier ? &*run.classifier : nullptr, progress));
  }
  return run;
}

std::vector<std::string> trainingAreas(const PipelineSettings& settings) {
  std::vector<std::string> areas;
  for (const RegionSpec& spec : settings.train) {
    if (std::find(areas.begin(), areas.end(), spec.areaName()) == areas.end()) areas.push_back(spec.areaName());
  }
  return areas;
}

PipelineSettings validationFold(const PipelineSettings& settings, int index) {
  const std::vector<std::string> areas = trainingAreas(settings);
  if (areas.size() < 2) {
    throw InvalidArgument(prefix(settings) + "validation needs training images of at least two areas");
  }
  for (const RegionSpec& spec : settings.train) {
    if (!spec.hasLabels()) {
      throw InvalidArgument(prefix(settings) + spec.where + ": validation scores each training image against its "
                            "labels; this one has none");
    }
  }
  PipelineSettings fold = settings;
  fold.train.clear();
  fold.holdout.clear();
  for (const RegionSpec& spec : settings.train) {
    (spec.areaName() == areas.at(static_cast<std::size_t>(index)) ? fold.holdout : fold.train).push_back(spec);
  }
  return fold;
}

}  // namespace mmp
