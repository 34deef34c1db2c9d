#include <mmp/maps/training/adaptation.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/core/projection.hpp>
#include <mmp/learners/online_greedy_projection.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

namespace mmp {

void AdaptationSettings::validate() const {
  const auto fail = [](const std::string& key, const std::string& what) {
    throw InvalidArgument("adapt." + key + " " + what);
  };
  if (!(lambda > 0.0) || !std::isfinite(lambda)) fail("lambda", "= " + numberText(lambda) + " must be finite and > 0");
  if (epochs < 1) fail("epochs", "= " + std::to_string(epochs) + " must be >= 1");
  if (learch_rounds < 1) fail("learch_rounds", "= " + std::to_string(learch_rounds) + " must be >= 1");
  if (!(learch_step > 0.0) || !std::isfinite(learch_step)) fail("learch_step", "= " + numberText(learch_step) + " must be finite and > 0");
  if (learch_depth < 1 || learch_depth > 16) fail("learch_depth", "= " + std::to_string(learch_depth) + " must be in [1, 16]");
  if (!(loss.radius_px > 0.0) || !std::isfinite(loss.radius_px)) fail("loss.radius_px", "= " + numberText(loss.radius_px) + " must be finite and > 0");
  if (!(loss.scale > 0.0) || !std::isfinite(loss.scale)) fail("loss.scale", "= " + numberText(loss.scale) + " must be finite and > 0");
  if (!(min_cost > 0.0) || !std::isfinite(min_cost)) fail("min_cost", "= " + numberText(min_cost) + " must be finite and > 0");
  if (!(network_lambda > 0.0) || !std::isfinite(network_lambda)) fail("network_lambda", "= " + numberText(network_lambda) + " must be finite and > 0");
  if (!(network_step > 0.0) || !std::isfinite(network_step)) fail("network_step", "= " + numberText(network_step) + " must be finite and > 0");
  if (network_epochs < 1 || network_epochs > 10000) fail("network_epochs", "= " + std::to_string(network_epochs) + " must be in [1, 10000]");
  if (threads < 0) fail("threads", "= " + std::to_string(threads) + " must be >= 0 (0: all cores)");
}

void modelLogCosts(const CostModel& model, const FeatureMap& map, const Eigen::VectorXd& w, const std::vector<double>& steps,
                   std::vector<double>& out) {
  if (model.trees().empty()) {
    map.costs(w, out, model.form());
    for (double& c : out) c = std::log(c) * model.costExponent();
    return;
  }
  TreeEnsemble trees;
  for (std::size_t t = 0; t < steps.size(); ++t) trees.add(model.trees().trees()[t], steps[t]);
  logCosts(map, w, trees, out);
  for (double& c : out) c *= model.costExponent();
}

PathExample::Params adaptationExampleParams(const AdaptationSettings& settings, const CostModel& parent) {
  PathExample::Params params;
  params.connectivity = Connectivity::Eight;
  params.loss.shape = settings.loss.shape;
  params.loss.radius = settings.loss.radius_px / parent.features().settings().cell_size;  // the loss lives on the cell grid
  params.loss.scale = settings.loss.scale;
  params.length_weighting = settings.loss.length_weighting;
  params.q = 1;
  params.cost_form = parent.trees().empty() ? parent.form() : CostForm::Exponential;
  return params;
}

LearchSettings adaptationLearch(const AdaptationSettings& settings) {
  LearchSettings s;
  s.rounds = settings.learch_rounds;
  s.step = settings.learch_step;
  s.depth = settings.learch_depth;
  s.threads = settings.threads;
  return s;
}

std::shared_ptr<const FeatureMap> teachingMap(const CostModel& model, const GeoImage& image) {
  model.checkImage(image.pixels.cols, image.pixels.rows);
  GeoImage framed = image;  // an image given without a frame (a plain array) stays in pixels
  if (framed.frame.rows == 0 && framed.frame.cols == 0) framed.frame = WorldFrame::unlocated(image.pixels.rows, image.pixels.cols);
  FeatureMap map = model.features().map(framed);
  // Cells holding a pixel without data cost +inf under the model: blocked for the planners here too.
  const CostGrid grid = model.costs(framed);
  if (!grid.unknown.empty()) map.setBlocked(grid.unknown);
  return std::make_shared<const FeatureMap>(std::move(map));
}

std::shared_ptr<const std::vector<float>> teachingInputs(const CostModel& model, const GeoImage& image, const FeatureMap& map) {
  if (model.network().empty()) return nullptr;
  const NetworkShape& shape = model.network().shape();
  auto inputs = std::make_shared<std::vector<float>>(networkInputs(
      image.pixels, model.features().settings().cell_size, shape.normalise ? colourStatistics(image.pixels, image.valid) : ColourStatistics{}));
  if (shape.feature_inputs > 0) appendFeatureInputs(map, *inputs);
  return inputs;
}

struct CostModelTeacher::Image {
  std::string name, fingerprint;
  std::shared_ptr<const FeatureMap> map;
  std::shared_ptr<const std::vector<float>> inputs;  ///< a network model's (teachingInputs)
  /// The parent's log-costs, once a step has needed them (a network's forward pass is not free).
  mutable std::vector<double> parent_log_costs;
};

CostModelTeacher::~CostModelTeacher() = default;

CostModelTeacher::CostModelTeacher(CostModel parent, AdaptationSettings settings)
    : parent_(std::move(parent)), settings_(std::move(settings)), model_(parent_) {
  settings_.validate();
  if (!parent_.network().empty() && parent_.network().shape().classes > 0) {
    throw InvalidArgument("adapting " + parent_.source() + ": a segmenter network (trained on labels, its costs a rule of its class "
                          "probabilities) does not adapt to demonstrations; adapt a cost network, a linear or a LEARCH model");
  }
  // a loaded model's source is its file, quoted ('path')
  std::string file = parent_.source();
  if (file.size() >= 2 && file.front() == '\'' && file.back() == '\'') file = file.substr(1, file.size() - 2);
  if (!file.empty() && std::filesystem::is_regular_file(file)) parent_fingerprint_ = fileChecksum(file);
}

int CostModelTeacher::addImage(const GeoImage& image, const std::string& name, const std::string& fingerprint) {
  std::shared_ptr<const FeatureMap> map = teachingMap(parent_, image);
  std::shared_ptr<const std::vector<float>> inputs = teachingInputs(parent_, image, *map);
  return addImage(std::move(map), std::move(inputs), name, fingerprint);
}

int CostModelTeacher::addImage(std::shared_ptr<const FeatureMap> map, const std::string& name, const std::string& fingerprint) {
  return addImage(std::move(map), nullptr, name, fingerprint);
}

int CostModelTeacher::addImage(std::shared_ptr<const FeatureMap> map, std::shared_ptr<const std::vector<float>> inputs,
                               const std::string& name, const std::string& fingerprint) {
  if (!parent_.network().empty()) {
    const std::size_t planes = static_cast<std::size_t>(parent_.network().shape().inputs());
    if (!inputs) {
      throw InvalidArgument("teach: '" + name + "': a network model reads the image's pixels: give the image "
                            "(addImage(GeoImage)) or its inputs (teachingInputs) with the map");
    }
    if (map && inputs->size() != static_cast<std::size_t>(map->cells()) * planes) {
      throw InvalidArgument("teach: '" + name + "': " + std::to_string(inputs->size()) + " network inputs, the network reads " +
                            std::to_string(planes) + " planes of the map's " + std::to_string(map->cells()) + " cells");
    }
  }
  if (!map || map->features() != parent_.weights().size()) {
    throw InvalidArgument("teach: the feature map of '" + name + "' is not one of the parent's feature stack (" +
                          std::to_string(map ? map->features() : 0) + " features, the model " +
                          std::to_string(parent_.weights().size()) + ")");
  }
  auto entry = std::make_unique<Image>();
  entry->name = name;
  entry->fingerprint = fingerprint;
  entry->map = std::move(map);
  if (!parent_.network().empty()) entry->inputs = std::move(inputs);
  images_.push_back(std::move(entry));
  return static_cast<int>(images_.size()) - 1;
}

int CostModelTeacher::images() const { return static_cast<int>(images_.size()); }
int CostModelTeacher::rows(int image) const { return images_.at(static_cast<std::size_t>(image))->map->rows(); }
int CostModelTeacher::cols(int image) const { return images_.at(static_cast<std::size_t>(image))->map->cols(); }

void CostModelTeacher::checkDemonstration(int image, const std::vector<int>& cells) const {
  if (image < 0 || image >= images()) {
    throw InvalidArgument("teach: image " + std::to_string(image) + " is not one of the teacher's " +
                          std::to_string(images()) + " images (addImage gives the index)");
  }
  const Image& entry = *images_[static_cast<std::size_t>(image)];
  const FeatureMap& map = *entry.map;
  if (cells.size() < 2) {
    throw DataError("demonstration on '" + entry.name + "': " + std::to_string(cells.size()) +
                    " cell(s); a path needs a start and a goal (at least 2 cells)");
  }
  try {
    validatePath(cells, map.rows(), map.cols(), Connectivity::Eight, map.blocked());  // unknown cells: blocked
  } catch (const Error& e) {
    throw DataError("demonstration on '" + entry.name + "' (" + std::to_string(map.rows()) + " x " +
                    std::to_string(map.cols()) + " cells of " + std::to_string(cellSize()) + " px): " + e.what());
  }
}

TeachingStep CostModelTeacher::teach(int image, std::vector<int> cells) {
  return teach(std::vector<TaughtDemonstration>{{image, std::move(cells)}});
}

TeachingStep CostModelTeacher::teach(const std::vector<TaughtDemonstration>& demonstrations) {
  for (const TaughtDemonstration& d : demonstrations) checkDemonstration(d.image, d.cells);
  const std::size_t before = demonstrations_.size();
  demonstrations_.insert(demonstrations_.end(), demonstrations.begin(), demonstrations.end());
  try {
    return adapt();
  } catch (...) {
    demonstrations_.resize(before);  // all or nothing: the teacher is as before
    throw;
  }
}

TeachingStep CostModelTeacher::undo() {
  if (demonstrations_.empty()) throw InvalidArgument("undo: no demonstration has been taught");
  TaughtDemonstration last = std::move(demonstrations_.back());
  demonstrations_.pop_back();
  try {
    return adapt();
  } catch (...) {
    demonstrations_.push_back(std::move(last));
    throw;
  }
}

void CostModelTeacher::imageLogCosts(const CostModel& model, int image, std::vector<double>& out) const {
  const Image& entry = *images_[static_cast<std::size_t>(image)];
  if (model.network().empty()) {
    modelLogCosts(model, *entry.map, model.weights(), model.trees().steps(), out);
    return;
  }
  // log(floor + exp(w . f + network)) times the exponent, as CostModel::costs gives the image's cells
  logCosts(*entry.map, model.weights(), {}, out);  // +inf on blocked cells
  std::vector<double> network;
  model.network().logCosts(*entry.inputs, entry.map->rows(), entry.map->cols(), network);
  const double floor = model.network().shape().cost_floor;
  for (std::size_t s = 0; s < out.size(); ++s) {
    if (std::isfinite(out[s])) out[s] = std::log(floor + std::exp(out[s] + network[s])) * model.costExponent();
  }
}

double CostModelTeacher::meanLoss(const CostModel& model, const std::vector<const PathExample*>& examples) const {
  double sum = 0.0;
  std::map<int, std::vector<double>> log_costs;  // per image, computed once
  for (std::size_t k = 0; k < examples.size(); ++k) {
    const PathExample* e = examples[k];
    const int image = demonstrations_[k].image;
    const Image& entry = *images_[static_cast<std::size_t>(image)];
    const bool parent = &model == &parent_;
    if (parent && entry.parent_log_costs.empty()) imageLogCosts(parent_, image, entry.parent_log_costs);
    if (!parent && !log_costs.count(image)) imageLogCosts(model, image, log_costs[image]);
    const PlanResult plan = e->planLogCosts(parent ? entry.parent_log_costs : log_costs[image], 0.0);
    sum += plan.status == PlanStatus::Success ? e->predictionLoss(plan.path) : std::numeric_limits<double>::infinity();
  }
  return examples.empty() ? 0.0 : sum / static_cast<double>(examples.size());
}

TeachingStep CostModelTeacher::adapt() {
  const auto start = std::chrono::steady_clock::now();
  TeachingStep step;
  step.demonstrations = static_cast<int>(demonstrations_.size());
  if (demonstrations_.empty()) {
    model_ = parent_;
    step.message = "no demonstration: the parent model";
    return step;
  }
  const PathExample::Params params = adaptationExampleParams(settings_, parent_);
  std::vector<std::unique_ptr<PathExample>> owned;
  std::vector<const PathExample*> examples;
  ExampleList list;
  for (const TaughtDemonstration& d : demonstrations_) {
    owned.push_back(std::make_unique<PathExample>(images_[static_cast<std::size_t>(d.image)]->map, d.cells, params));
    examples.push_back(owned.back().get());
    list.push_back(owned.back().get());
  }
  CostModel adapted = !parent_.network().empty() ? adaptNetwork(examples, step)
                      : parent_.trees().empty()  ? adaptLinear(list, step)
                                                 : adaptLearch(examples, step);
  adapted.setDomain(parent_.domain());
  if (parent_.trees().empty() && parent_.costExponent() != 1.0) adapted.setCostExponent(parent_.costExponent());
  recordProvenance(adapted);
  step.loss_before = meanLoss(parent_, examples);
  step.loss_after = meanLoss(adapted, examples);
  model_ = std::move(adapted);
  step.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return step;
}

CostModel CostModelTeacher::adaptLinear(const ExampleList& examples, TeachingStep& step) const {
  const Eigen::VectorXd& w0 = parent_.weights();
  const bool linear = parent_.form() == CostForm::Linear;
  // The learner keeps loss-augmented costs positive with the bias floor training used; the parent's
  // calibration (its bias below the floor) is the offset carried back afterwards.
  const ProjectionPtr positive = linear ? positiveCostProjection(w0.size(), kBiasIndex, settings_.loss.scale, settings_.min_cost)
                                        : noProjection();
  Eigen::VectorXd prior = w0;
  positive->project(prior);
  const Eigen::VectorXd offset = w0 - prior;

  // lambda/2 |w - w0|^2 + sum_i h_i(w): the online learner minimises lambda_t/2 |w - w0|^2 + mean_i h_i(w),
  // so lambda_t = lambda / n -- the prior gives way as demonstrations arrive.
  OnlineGreedyProjection::Params p;
  p.lambda = settings_.lambda / static_cast<double>(examples.size());
  p.projection = positive;
  p.stop.max_iterations = settings_.epochs;
  p.threads = settings_.threads;
  p.prior = prior;
  OnlineGreedyProjection learner(p);
  std::vector<const FeatureMap*> maps;
  for (const auto& image : images_) maps.push_back(image->map.get());
  const CostForm form = parent_.form();
  learner.setWeightCheck([&maps, &offset, form](const Eigen::VectorXd& w) {
    return trainingCostFault(maps, w + offset, form);
  });
  Eigen::VectorXd w = learner.train(examples, prior);
  step.info = learner.info();
  step.message = learner.message();
  return CostModel(parent_.features(), w + offset, form, parentInfo());
}

CostModel CostModelTeacher::adaptLearch(const std::vector<const PathExample*>& examples, TeachingStep& step) const {
  // A cost exponent e is a factor on the log-cost: e (w . f + sum_t s_t h_t) is the parent's log-cost
  // with the weights and the tree steps times e, so the new trees fit the costs the parent plans on.
  const double e = parent_.costExponent();
  const Eigen::VectorXd weights = e * parent_.weights();
  TreeEnsemble trees;
  for (std::size_t t = 0; t < parent_.trees().size(); ++t) trees.add(parent_.trees().trees()[t], e * parent_.trees().steps()[t]);
  LearchResult result = learch(examples, weights, adaptationLearch(settings_), {}, trees);
  step.info = result.info;
  step.message = result.message;
  return CostModel(parent_.features(), std::move(result.weights), std::move(result.trees), parentInfo());
}

CostModel CostModelTeacher::adaptNetwork(const std::vector<const PathExample*>& examples, TeachingStep& step) const {
  // Every image the teacher holds: those with demonstrations are stepped on, every one is checked
  // against CostLimits.  The linear part w0 . f is the parent's and stays.
  std::vector<NetworkImage> images(images_.size());
  for (std::size_t i = 0; i < images_.size(); ++i) {
    const Image& entry = *images_[i];
    NetworkImage& image = images[i];
    image.name = entry.name;
    image.rows = entry.map->rows();
    image.cols = entry.map->cols();
    image.inputs = *entry.inputs;
    logCosts(*entry.map, parent_.weights(), {}, image.linear);  // +inf on blocked cells
  }
  for (std::size_t k = 0; k < examples.size(); ++k) images[static_cast<std::size_t>(demonstrations_[k].image)].examples.push_back(examples[k]);
  NetworkAdaptationSettings s;
  s.lambda = settings_.network_lambda;
  s.step = settings_.network_step;
  s.epochs = settings_.network_epochs;
  s.head_only = settings_.network_head_only;
  s.threads = settings_.threads;
  NetworkResult result = fineTuneNetwork(parent_.network(), images, s);
  step.info = result.info;
  step.message = result.message;
  return CostModel(parent_.features(), parent_.weights(), std::move(result.network), parentInfo());
}

std::map<std::string, std::string> CostModelTeacher::parentInfo() const {
  // The parent's holdout figures are the parent's, not the adapted model's: kept as parent_holdout*.
  std::map<std::string, std::string> info;
  for (const auto& [key, value] : parent_.info()) info[key.rfind("holdout", 0) == 0 ? "parent_" + key : key] = value;
  return info;
}

void CostModelTeacher::recordProvenance(CostModel& model) const {
  model.setInfo("adapted_from", (parent_.source().empty() ? std::string("(a model in memory)") : parent_.source()) +
                                    (parent_fingerprint_.empty() ? "" : " " + parent_fingerprint_));
  std::ostringstream images, demos;
  for (const auto& image : images_) {
    images << (images.tellp() > 0 ? "\n" : "") << image->name << (image->fingerprint.empty() ? "" : " " + image->fingerprint);
  }
  for (const TaughtDemonstration& d : demonstrations_) {
    const int cols = images_[static_cast<std::size_t>(d.image)]->map->cols();
    demos << (demos.tellp() > 0 ? "\n" : "") << d.image << ":";
    for (std::size_t k = 0; k < d.cells.size(); ++k) {
      demos << (k ? " " : "") << d.cells[k] / cols << "," << d.cells[k] % cols;
    }
  }
  std::ostringstream how;
  if (!parent_.network().empty()) {
    how << "network fine-tuned" << (settings_.network_head_only ? " (its head only)" : "") << " toward the parent, Adam step "
        << numberText(settings_.network_step) << ", proximal lambda " << numberText(settings_.network_lambda) << ", "
        << settings_.network_epochs << " epochs";
  } else if (parent_.trees().empty()) {
    how << "online greedy projection toward the parent, lambda " << numberText(settings_.lambda) << ", " << settings_.epochs
        << " epochs";
  } else {
    how << "LEARCH, " << settings_.learch_rounds << " new trees, step " << numberText(settings_.learch_step) << " / sqrt(t), depth "
        << settings_.learch_depth;
  }
  how << "; loss radius " << numberText(settings_.loss.radius_px) << " px, scale " << numberText(settings_.loss.scale);
  model.setInfo("adapted_by", how.str());
  model.setInfo("adapted_images", images.str());
  model.setInfo("adapted_demonstrations", demos.str());
}


}  // namespace mmp

