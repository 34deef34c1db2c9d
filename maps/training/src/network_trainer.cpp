#include "trainer.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/planning/path.hpp>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace mmp {

namespace {

// A step's warning for each mark the fine-tuned network leaves on the wrong side of its bound (the
// mean log-cost gap of NetworkMark, measured on the model's log-costs, exponent included).
void warnOfUnmetMarks(const AdaptationInput& in, const CostModel& parent, const CostModel& adapted, TeachingStep& step) {
  if (in.marks.empty()) return;
  std::set<int> images(in.example_images.begin(), in.example_images.end());  // with a path or a mark
  for (const MarkMeans& m : in.marks) images.insert(m.image);
  std::map<int, std::vector<double>> before, after;
  for (const int i : images) {
    teachingLogCosts(parent, in.images[static_cast<std::size_t>(i)], before[i]);
    teachingLogCosts(adapted, in.images[static_cast<std::size_t>(i)], after[i]);
  }
  const auto gap = [&](const std::map<int, std::vector<double>>& costs, const MarkMeans& m) {
    double taught = 0.0, marked = 0.0;
    std::size_t cells = 0;
    for (std::size_t k = 0; k < in.examples.size(); ++k) {
      for (const int s : in.examples[k]->demonstration()) taught += costs.at(in.example_images[k])[static_cast<std::size_t>(s)];
      cells += in.examples[k]->demonstration().size();
    }
    for (const int s : m.cells) marked += costs.at(m.image)[static_cast<std::size_t>(s)];
    return marked / static_cast<double>(m.cells.size()) - taught / static_cast<double>(cells);
  };
  for (const MarkMeans& m : in.marks) {
    const bool avoid = m.kind == MarkKind::Avoid;
    const double margin = std::log(avoid ? kAvoidMargin : kPreferMargin), was = gap(before, m), now = gap(after, m);
    const double bound = avoid ? std::max(margin, was) : std::min(margin, was);
    if (avoid ? now >= bound - 1e-6 : now <= bound + 1e-6) continue;
    step.warnings.push_back(std::string("the ") + markKindName(m.kind) + " mark of " + std::to_string(m.cells.size()) + " cells on image " +
                            std::to_string(m.image) + " ('" + in.images[static_cast<std::size_t>(m.image)].name +
                            "') is not kept after " + std::to_string(in.settings.network_epochs) + " epochs (its mean cost " +
                            numberText(std::exp(now)) + " times the paths', held " + (avoid ? "at least " : "at most ") +
                            numberText(std::exp(bound)) + "): raise adapt.network_epochs (--network-epochs)");
  }
}

// A segmenter with the classifier baseline's cost scale (trainBaseline): the one of
// config.classifier.cost_scales whose plans between the training demonstrations' ends have the lowest
// mean cost ratio (training data only).
CostNetwork withCostScale(const TrainingData& training, const PipelineSettings& config, const CostNetwork& network) {
  double best = std::numeric_limits<double>::infinity();
  CostNetwork chosen = network;
  for (double scale : config.classifier.cost_scales) {
    NetworkShape shape = network.shape();
    shape.cost_scale = scale;
    const CostNetwork candidate(shape, network.members());
    const double mean = demonstrationCostRatio(training, config, [&](const Region& r) {
      std::vector<double> costs;
      std::vector<float> inputs =
          networkInputs(r.image, config.features.cell_size, shape.normalise ? colourStatistics(r.image) : ColourStatistics{});
      if (shape.feature_inputs > 0) appendFeatureInputs(*r.map, inputs);
      candidate.logCosts(inputs, r.rows(), r.cols(), costs);
      for (double& c : costs) c = std::exp(c);
      return costs;
    });
    if (mean < best) best = mean, chosen = candidate;
  }
  return chosen;
}

// The training images as the network trains on them: its inputs, the start's log-cost, the labels
// (by class position) where label or segmenter training reads them, and the validation flag of the
// images of `validation_area` ("" : none).
std::vector<NetworkImage> networkImages(const TrainerInput& in, const NetworkTrainingSettings& settings,
                                        const Eigen::VectorXd& initial, const std::string& validation_area) {
  const PipelineSettings& config = in.settings;
  std::vector<NetworkImage> images(in.training.regions.size());
  for (std::size_t i = 0; i < in.training.regions.size(); ++i) {
    const Region& r = in.training.regions[i];
    if (!r.cell_sources.empty()) {
      throw ConfigError(prefix(config) + r.spec.where + ": its resolution differs from features.ground_resolution (" +
                        numberText(config.features.ground_resolution) + " m per pixel), and a network reads the image's "
                        "pixels, which mmp does not resample for it: give the network images at that resolution");
    }
    NetworkImage& image = images[i];
    image.name = r.spec.name;
    image.rows = r.rows();
    image.cols = r.cols();
    const ColourStatistics colours = settings.shape.normalise ? colourStatistics(r.image) : ColourStatistics{};
    image.inputs = networkInputs(r.image, config.features.cell_size, colours);
    if (settings.features) appendFeatureInputs(*r.map, image.inputs);
    logCosts(*r.map, initial, {}, image.linear);
    image.validation = !validation_area.empty() && r.spec.areaName() == validation_area;
    if ((settings.label_weight > 0.0 || settings.segmenter) && !r.cell_labels.empty()) {
      image.labels.assign(r.cell_labels.size(), 255);
      for (std::size_t s = 0; s < r.cell_labels.size(); ++s) {
        for (std::size_t c = 0; c < config.classes.size(); ++c) {
          if (config.classes[c].index == r.cell_labels[s]) image.labels[s] = static_cast<std::uint8_t>(c);
        }
      }
    }
  }
  return images;
}

// The training images' cost range and mean prediction loss under the model itself (CostModel's own
// forward pass: what a user of the model gets).
void modelFigures(const TrainerInput& in, const CostModel& model, const std::vector<NetworkImage>& images,
                  TrainingReport& report) {
  report.cost_range = {std::numeric_limits<double>::infinity(), 0.0};
  double loss = 0.0;
  for (std::size_t i = 0; i < in.training.regions.size(); ++i) {
    const std::vector<double> costs = model.costs(in.training.regions[i].image).costs;
    std::vector<double> log_costs(costs.size());
    for (std::size_t s = 0; s < costs.size(); ++s) {
      if (in.training.regions[i].map->isBlocked(static_cast<int>(s))) {
        log_costs[s] = std::numeric_limits<double>::infinity();
        continue;
      }
      log_costs[s] = std::log(costs[s]);
      report.cost_range = {std::min(report.cost_range[0], costs[s]), std::max(report.cost_range[1], costs[s])};
    }
    for (const PathExample* e : images[i].examples) {
      const PlanResult plan = e->planLogCosts(log_costs, 0.0);
      loss += plan.status == PlanStatus::Success
                  ? e->predictionLoss(plan.path)
                  : std::numeric_limits<double>::infinity();
    }
  }
  report.training_loss = loss / static_cast<double>(std::max<std::size_t>(1, in.examples.size()));
}

class NetworkTrainer final : public CostModelTrainer {
 public:
  CostModel fit(const TrainerInput& in, std::map<std::string, std::string> info, TrainingReport& report) override;
  CostModel adapt(const AdaptationInput& in, std::map<std::string, std::string> info, TeachingStep& step) const override;
  std::string describeAdaptation(const AdaptationSettings& s) const override {
    return "network fine-tuned" + std::string(s.network_head_only ? " (its head only)" : "") + " toward the parent, Adam step " +
           numberText(s.network_step) + ", proximal lambda " + numberText(s.network_lambda) + ", " + std::to_string(s.network_epochs) +
           " epochs";
  }
  const char* adaptationStrength() const override { return "adapt.network_lambda"; }
  std::string cannotAdapt(const CostModel& parent) const override {
    if (parent.network().shape().classes == 0) return "";
    return "a segmenter network (trained on labels, its costs a rule of its class probabilities) does not adapt to "
           "demonstrations; adapt a cost network, a linear or a LEARCH model";
  }
};

// The network fine-tuned from the parent's parameters (fineTuneNetwork); the linear part w0 . f, the
// cost floor and the exponent are the parent's and stay.  Marks (NetworkMark) are held on the mean
// log-costs against the paths', as LEARCH holds them: with marks alone the model stays the parent, and
// a mark the epochs did not bring to its side is a warning.
CostModel NetworkTrainer::adapt(const AdaptationInput& in, std::map<std::string, std::string> info, TeachingStep& step) const {
  const CostModel& parent = in.parent;
  if (in.examples.empty()) {
    step.message = "marks alone: a network model holds them against the taught paths, so the model stays the parent until a path is taught";
    CostModel same = parent;
    for (const auto& [key, value] : info) same.setInfo(key, value);
    return same;
  }
  std::vector<NetworkImage> images(in.images.size());
  for (std::size_t i = 0; i < in.images.size(); ++i) {
    const TeachingImage& entry = in.images[i];
    NetworkImage& image = images[i];
    image.name = entry.name;
    image.rows = entry.map->rows();
    image.cols = entry.map->cols();
    image.inputs = *entry.inputs;
    entry.map->costs(parent.weights(), image.linear);  // w0 . f, +inf on blocked cells
  }
  for (std::size_t k = 0; k < in.examples.size(); ++k) images[static_cast<std::size_t>(in.example_images[k])].examples.push_back(in.examples[k]);
  for (const MarkMeans& m : in.marks) {  // the margins on the log-costs before the exponent
    const bool avoid = m.kind == MarkKind::Avoid;
    images[static_cast<std::size_t>(m.image)].marks.push_back({m.cells, avoid, std::log(avoid ? kAvoidMargin : kPreferMargin) / parent.costExponent()});
  }
  NetworkAdaptationSettings s;
  s.lambda = in.settings.network_lambda;
  s.step = in.settings.network_step;
  s.epochs = in.settings.network_epochs;
  s.head_only = in.settings.network_head_only;
  s.threads = in.settings.threads;
  NetworkResult result = fineTuneNetwork(parent.network(), images, s);
  step.info = result.info;
  step.message = result.message;
  CostModel adapted(parent.features(), parent.weights(), std::move(result.network), std::move(info));
  if (parent.costExponent() != 1.0) adapted.setCostExponent(parent.costExponent());
  warnOfUnmetMarks(in, parent, adapted, step);
  return adapted;
}

CostModel NetworkTrainer::fit(const TrainerInput& in, std::map<std::string, std::string> info, TrainingReport& report) {
  const TrainingData& training = in.training;
  const PipelineSettings& config = in.settings;
  const StageCallback& progress = in.progress;
  const auto start = std::chrono::steady_clock::now();
  NetworkTrainingSettings settings = config.learner.network;
  if (config.threads >= 0) settings.threads = config.threads;
  // MaxEnt: costs f0 + exp(l) with f0 the training floor of the linear and LEARCH models (twice the
  // normalisability bound: maxent_planner.hpp, docs/maxent.md)
  const bool maxent = config.learner.objective == TrainingObjective::Likelihood;
  settings.objective = config.learner.objective;
  settings.shape.cost_floor = maxent ? kMaxEntTrainingFloor : 0.0;
  if (settings.segmenter) {  // the label-trained baseline: class logits, the preferred class cheap
    settings.shape.classes = static_cast<int>(config.classes.size());
    for (std::size_t c = 0; c < config.classes.size(); ++c) {
      if (config.classes[c].index == config.behaviour.preferred) settings.shape.preferred = static_cast<int>(c);
    }
  }
  if (settings.features) settings.shape.feature_inputs = training.stack.channels();
  Eigen::VectorXd initial = Eigen::VectorXd::Zero(training.stack.features());  // the network alone
  std::string linear_start;  // how the linear start's learner stopped
  if (settings.from_linear) {
    const TrainedCostModel start = linearStart(training, config, progress);
    initial = start.model.weights();
    linear_start = start.report.info;
  }

  // Early stopping scores the images of the last training area, which then take no step.
  const std::vector<std::string> areas = trainingAreas(config);
  const bool hold_out_area = settings.early_stopping && areas.size() > 1;
  std::vector<NetworkImage> images = networkImages(in, settings, initial, hold_out_area ? areas.back() : std::string());
  for (std::size_t k = 0; k < in.examples.size(); ++k) images[in.owner[k]].examples.push_back(in.examples[k].get());

  const long total = static_cast<long>(settings.shape.members) * settings.epochs;
  NetworkResult result = trainNetwork(images, settings, static_cast<int>(config.classes.size()), [&](const NetworkEpoch& e) {
    report.trace.push_back({e.member * (settings.epochs + 1) + e.epoch, e.objective, std::numeric_limits<double>::quiet_NaN(), e.seconds});
    if (!std::isnan(e.validation_loss)) report.validation.push_back(e.validation_loss);
    if (progress) {
      progress("training (network)", static_cast<long>(e.member) * settings.epochs + e.epoch, total,
               (std::isnan(e.objective) ? std::string("scored") : "objective " + numberText(e.objective)) +
                   (std::isnan(e.validation_loss) ? "" : ", validation loss " + numberText(e.validation_loss)));
    }
    return true;
  });
  if (settings.segmenter) result.network = withCostScale(training, config, result.network);
  report.trace_value = settings.segmenter ? "cross-entropy of the training labels over the epoch's steps"
                       : maxent           ? "MaxEnt objective sum_i beta_i [C(y_i) + log Z_i] over the epoch's steps"
                                          : "MMP objective sum_i beta_i [C(y_i) - min_y C_aug(y)] over the epoch's steps";
  report.pass_name = "epoch";
  if (!report.validation.empty()) {
    report.validation_value = settings.segmenter ? "validation area: cross-entropy of the labels"
                                                 : "validation area: mean (C(y) - min C_aug) / C(y)";
  }
  report.info = result.message + (linear_start.empty() ? "" : "; linear start: " + linear_start);
  report.passes = static_cast<long>(result.epochs.size());
  report.objective = std::numeric_limits<double>::quiet_NaN();  // of the last epoch that stepped
  for (const NetworkEpoch& e : result.epochs) {
    if (!std::isnan(e.objective)) report.objective = e.objective;
  }
  report.bias_floor = report.bias = initial[kBiasIndex];
  report.epoch_seconds = secondsSince(start) / static_cast<double>(std::max(1L, report.passes));

  info["learner"] = "network";
  info["network_training"] = settings.describe();
  info["network_stop"] = report.info;
  if (hold_out_area) info["network_validation_area"] = areas.back();
  if (!linear_start.empty()) info["network_start"] = linear_start;
  if (settings.segmenter) info["segmenter_cost_scale"] = numberText(result.network.shape().cost_scale);
  CostModel model(training.stack, std::move(initial), result.network, std::move(info));

  modelFigures(in, model, images, report);
  return model;
}

}  // namespace

std::unique_ptr<CostModelTrainer> makeNetworkTrainer() { return std::make_unique<NetworkTrainer>(); }

}  // namespace mmp
