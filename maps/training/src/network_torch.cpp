// The one translation unit that includes libtorch: network training (network_training.hpp), built as the
// module libmmp_torch.so that maps_training loads on the first network it trains
// (network_torch_module.hpp says why and how).
#include "network_torch_module.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/planning/maxent_planner.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include <torch/torch.h>

namespace mmp {

namespace {

// The network of cost_network.hpp as a torch module, plus the optional label head.
struct Net : torch::nn::Module {
  Net(const NetworkShape& shape, int classes) {
    int in = shape.inputs();
    for (std::size_t l = 0; l < shape.dilations.size(); ++l) {
      const int d = shape.dilations[l];
      convs.push_back(register_module("conv" + std::to_string(l),
                                      torch::nn::Conv2d(torch::nn::Conv2dOptions(in, shape.channels, 3).dilation(d).padding(d))));
      in = shape.channels;
    }
    skip = shape.skip;
    if (skip) in += shape.inputs();  // the cell's inputs beside the dilated layers' output, as networkLayers
    hidden = register_module("hidden", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, shape.channels, 1)));
    segmenter = shape.classes > 0;
    cost_floor = shape.cost_floor;
    out = register_module("out", torch::nn::Conv2d(torch::nn::Conv2dOptions(shape.channels, segmenter ? shape.classes : 1, 1)));
    // The output layer starts at 0: the first network is the start's log-cost exactly (uniform, or
    // the linear model's), and what it learns is measured from there.
    torch::NoGradGuard no_grad;
    out->weight.zero_();
    out->bias.zero_();
    if (classes > 0) labels = register_module("labels", torch::nn::Conv2d(torch::nn::Conv2dOptions(shape.channels, classes, 1)));
  }

  // The bounded log-cost [1, 1, H, W] and, with a label head, the class logits [1, classes, H, W]; a
  // segmenter's class logits, twice.
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    x = features(x);
    if (segmenter) {
      torch::Tensor logits = out->forward(x);
      return {logits, logits};
    }
    return {head(x), labels ? labels->forward(x) : torch::Tensor()};
  }

  // The last hidden layer's output, what the head reads.
  torch::Tensor features(torch::Tensor x) {
    const torch::Tensor inputs = x;
    for (auto& conv : convs) x = torch::relu(conv->forward(x));
    if (skip) x = torch::cat({x, inputs}, 1);
    return torch::relu(hidden->forward(x));
  }

  // A cost network's bounded log-cost from the last hidden layer's output.
  torch::Tensor head(const torch::Tensor& x) {
    const double bound = NetworkShape::kBound;
    return bound * torch::tanh(out->forward(x) / bound);
  }

  std::vector<torch::nn::Conv2d> modules() const {
    std::vector<torch::nn::Conv2d> all = convs;
    all.push_back(hidden);
    all.push_back(out);
    return all;
  }

  void load(const std::vector<ConvLayer>& layers) {
    torch::NoGradGuard no_grad;
    const std::vector<torch::nn::Conv2d> all = modules();
    for (std::size_t l = 0; l < layers.size(); ++l) {
      all[l]->weight.copy_(torch::from_blob(const_cast<float*>(layers[l].weights.data()), all[l]->weight.sizes(), torch::kFloat));
      all[l]->bias.copy_(torch::from_blob(const_cast<float*>(layers[l].bias.data()), all[l]->bias.sizes(), torch::kFloat));
    }
  }

  std::vector<ConvLayer> layers(const NetworkShape& shape) {
    std::vector<ConvLayer> result = networkLayers(shape);
    const std::vector<torch::nn::Conv2d> modules = this->modules();
    for (std::size_t l = 0; l < result.size(); ++l) {
      const torch::Tensor w = modules[l]->weight.detach().contiguous();
      const torch::Tensor b = modules[l]->bias.detach().contiguous();
      result[l].weights.assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
      result[l].bias.assign(b.data_ptr<float>(), b.data_ptr<float>() + b.numel());
    }
    return result;
  }

  std::vector<torch::nn::Conv2d> convs;
  torch::nn::Conv2d hidden{nullptr}, out{nullptr}, labels{nullptr};
  bool skip = false;
  bool segmenter = false;
  double cost_floor = 0.0;  // the model's costs are cost_floor + exp(log-cost)
};

// One of the 8 symmetries of the square grid: `turns` quarter turns, then a mirror.
struct Symmetry {
  int turns = 0;
  bool mirror = false;
  torch::Tensor apply(const torch::Tensor& x) const {
    torch::Tensor y = turns == 0 ? x : torch::rot90(x, turns, {2, 3});
    return mirror ? torch::flip(y, {3}) : y;
  }
  torch::Tensor undo(const torch::Tensor& y) const {
    torch::Tensor x = mirror ? torch::flip(y, {3}) : y;
    return turns == 0 ? x : torch::rot90(x, -turns, {2, 3});
  }
};

torch::Tensor inputTensor(const NetworkImage& image) {
  const long planes = static_cast<long>(image.inputs.size()) / (static_cast<long>(image.rows) * image.cols);
  return torch::from_blob(const_cast<float*>(image.inputs.data()), {1, planes, image.rows, image.cols}, torch::kFloat)
      .clone();
}

// The log-costs the oracle plans on: the network's (a [1, 1, H, W] tensor) plus the linear part.
void addLinear(const torch::Tensor& network, const NetworkImage& image, std::vector<double>& log_costs) {
  const torch::Tensor flat = network.detach().contiguous().to(torch::kDouble).view({-1});
  const double* values = flat.data_ptr<double>();
  log_costs.resize(image.linear.size());
  for (std::size_t s = 0; s < log_costs.size(); ++s) log_costs[s] = image.linear[s] + values[s];
}

void checkImages(const std::vector<NetworkImage>& images, const NetworkTrainingSettings& settings, int classes) {
  bool trainable = false;
  for (const NetworkImage& image : images) {
    const std::size_t cells = static_cast<std::size_t>(image.rows) * image.cols;
    if (image.rows < 1 || image.cols < 1 || image.inputs.size() != cells * static_cast<std::size_t>(settings.shape.inputs()) ||
        image.linear.size() != cells || (!image.labels.empty() && image.labels.size() != cells)) {
      throw InvalidArgument("network training: image '" + image.name + "' has inputs, linear costs or labels of the wrong size for its " +
                            std::to_string(image.rows) + " x " + std::to_string(image.cols) + " cells");
    }
    for (const PathExample* e : image.examples) {
      if (e->map().rows() != image.rows || e->map().cols() != image.cols) {
        throw InvalidArgument("network training: a demonstration of image '" + image.name + "' lies on a map of another size");
      }
    }
    if (!image.validation && (settings.segmenter ? !image.labels.empty() : !image.examples.empty())) trainable = true;
    if (!image.validation && (settings.label_weight > 0.0 || settings.segmenter) && image.labels.empty()) {
      throw InvalidArgument("network training: the label head needs labels, and image '" + image.name + "' has none");
    }
  }
  if (!trainable) throw InvalidArgument("network training: no training image with demonstrations (or labels, for a segmenter)");
  if ((settings.label_weight > 0.0 || settings.segmenter) && classes < 1) {
    throw InvalidArgument("network training: the label head needs classes");
  }
  if (settings.segmenter && settings.shape.classes != classes) {
    throw InvalidArgument("network training: a segmenter's shape needs classes = " + std::to_string(classes));
  }
}

// Subtracts the gradient's mean over the passable cells (finite l): a step then leaves the mean
// log-cost where it is.
void removeUniformComponent(const std::vector<double>& l, std::vector<double>& gradient) {
  double sum = 0.0, cells = 0.0;
  for (std::size_t s = 0; s < gradient.size(); ++s) {
    if (std::isfinite(l[s])) sum += gradient[s], cells += 1.0;
  }
  for (std::size_t s = 0; s < gradient.size(); ++s) {
    if (std::isfinite(l[s])) gradient[s] -= sum / cells;
  }
}

// The oracle on one image: per demonstration, the loss-augmented plan (averaged over the smoothing
// samples); returns the image's share of R and adds beta_i (demonstration - plan visits) / n to gradient.
double oracleGradient(const NetworkImage& image, const std::vector<double>& log_costs,
                      const NetworkTrainingSettings& settings, Random& rng, ThreadPool& pool,
                      std::vector<double>& gradient) {
  const std::size_t n = image.examples.size();
  const int samples = settings.smoothing_samples;
  std::vector<std::vector<double>> perturbed(static_cast<std::size_t>(samples), log_costs);
  if (samples > 1) {
    for (std::vector<double>& costs : perturbed) {
      for (double& c : costs) {
        if (std::isfinite(c)) c += settings.smoothing_sigma * rng.normal();
      }
    }
  }
  std::vector<double> costs(log_costs.size());
  for (std::size_t s = 0; s < costs.size(); ++s) costs[s] = std::exp(log_costs[s]);
  std::vector<std::vector<int>> plans(n * static_cast<std::size_t>(samples));
  std::vector<double> hinges(n, 0.0);
  pool.parallelFor(plans.size(), [&](std::size_t job) {
    const std::size_t k = job / static_cast<std::size_t>(samples), sample = job % static_cast<std::size_t>(samples);
    const PathExample& e = *image.examples[k];
    PlanResult plan = e.planLogCosts(perturbed[sample], 1.0);
    if (plan.status != PlanStatus::Success) {
      throw Error("network training: the loss-augmented plan of demonstration " + std::to_string(k) + " on '" + image.name +
                  "' failed: " + plan.message);
    }
    if (sample == 0) {
      const double demonstrated = pathIntegral(e.demonstration(), image.cols, costs);
      hinges[k] = e.beta() * std::max(0.0, demonstrated - (samples == 1 ? plan.cost : pathIntegral(plan.path, image.cols, costs)));
    }
    plans[job] = std::move(plan.path);
  });
  gradient.assign(log_costs.size(), 0.0);
  double objective = 0.0;
  for (std::size_t k = 0; k < n; ++k) {  // in example order: the same sums with every thread count
    const PathExample& e = *image.examples[k];
    const double weight = e.beta() / static_cast<double>(n);
    addPathVisits(e.demonstration(), image.cols, weight, gradient);
    for (int sample = 0; sample < samples; ++sample) {
      addPathVisits(plans[k * static_cast<std::size_t>(samples) + sample], image.cols, -weight / samples, gradient);
    }
    objective += hinges[k];
  }
  // Scaling every cost alike changes no plan (the loss-augmented costs exp(l - loss) scale with them)
  // but scales R: the gradient's component along the uniform direction only drives every cost towards
  // 0 (and the bounded log-cost into saturation).  It is projected out.
  removeUniformComponent(log_costs, gradient);
  return objective;
}

// The model's cell costs f0 + exp(l) and their logs, +inf where l is (blocked cells); with f0 = 0
// the log-costs are l itself.
void modelCosts(const std::vector<double>& l, double floor, std::vector<double>& log_costs, std::vector<double>& costs) {
  costs.resize(l.size());
  log_costs.resize(l.size());
  for (std::size_t s = 0; s < l.size(); ++s) {
    costs[s] = networkCost(l[s], floor);
    log_costs[s] = floor > 0.0 ? std::log(costs[s]) : l[s];
  }
}

// Maximum Entropy IRL on one image: per demonstration the soft planner's log Z and expected visits
// on the model's costs; returns the image's share of the NLL and sets gradient to its functional
// gradient on l (the file comment of network_training.hpp), in example order.
double maxentGradient(const NetworkImage& image, const std::vector<double>& l, const NetworkTrainingSettings& settings,
                      ThreadPool& pool, std::vector<double>& gradient) {
  const std::size_t n = image.examples.size();
  std::vector<double> log_costs, costs;
  modelCosts(l, settings.shape.cost_floor, log_costs, costs);
  std::vector<std::vector<double>> expected(n);
  std::vector<double> nll(n, 0.0);
  pool.parallelFor(n, [&](std::size_t k) {
    const PathExample& e = *image.examples[k];
    SoftPlanResult soft = e.softPlanLogCosts(log_costs);
    if (soft.status != SoftPlanStatus::Success) {
      throw Error("network training: the maxent planner failed on demonstration " + std::to_string(k) + " of '" +
                  image.name + "' (" + describe(soft.status) + "): " + soft.message);
    }
    // >= 0: the demonstration is one of the walks
    nll[k] = e.beta() * std::max(0.0, pathIntegral(e.demonstration(), image.cols, costs) + soft.log_partition);
    expected[k] = std::move(soft.visits);
  });
  gradient.assign(l.size(), 0.0);
  double objective = 0.0;
  for (std::size_t k = 0; k < n; ++k) {  // in example order: the same sums with every thread count
    const PathExample& e = *image.examples[k];
    const double weight = e.beta() / static_cast<double>(n);
    addPathVisits(e.demonstration(), image.cols, weight, gradient);
    for (std::size_t s = 0; s < expected[k].size(); ++s) gradient[s] -= weight * expected[k][s];
    objective += nll[k];
  }
  return objective;
}

// The validation images' mean relative margin violation under the network's costs: per demonstration
// (C(y_i) - min_y C_aug(y)) / C(y_i), the loss-augmented optimum found by the oracle.  Unlike the
// prediction loss of a plain plan it does not depend on how A* breaks ties between paths of equal
// cost, which decide the plain plan on nearly uniform costs (measured: prediction losses of 0.14 to
// 0.2 from networks whose costs differed by less than 1 %), and unlike R it does not scale with the costs.
torch::Tensor labelTensor(const NetworkImage& image) {
  return torch::from_blob(const_cast<std::uint8_t*>(image.labels.data()), {1, image.rows, image.cols}, torch::kUInt8)
      .to(torch::kLong);
}

torch::Tensor crossEntropy(const torch::Tensor& logits, const NetworkImage& image) {
  return torch::nn::functional::cross_entropy(logits, labelTensor(image),
                                              torch::nn::functional::CrossEntropyFuncOptions().ignore_index(255));
}

// A segmenter's validation loss: the mean cross-entropy of the validation images' labelled cells.
double validationCrossEntropy(Net& net, const std::vector<NetworkImage>& images) {
  torch::NoGradGuard no_grad;
  double sum = 0.0;
  int count = 0;
  for (const NetworkImage& image : images) {
    if (!image.validation || image.labels.empty()) continue;
    sum += crossEntropy(net.forward(inputTensor(image)).second, image).item<double>();
    ++count;
  }
  return count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / count;
}

double validationLoss(Net& net, const std::vector<NetworkImage>& images, ThreadPool& pool) {
  if (net.segmenter) return validationCrossEntropy(net, images);
  torch::NoGradGuard no_grad;
  double sum = 0.0;
  int count = 0;
  for (const NetworkImage& image : images) {
    if (!image.validation || image.examples.empty()) continue;
    std::vector<double> l, log_costs, costs;
    addLinear(net.forward(inputTensor(image)).first, image, l);
    modelCosts(l, net.cost_floor, log_costs, costs);
    std::vector<double> violations(image.examples.size());
    pool.parallelFor(violations.size(), [&](std::size_t k) {
      const PathExample& e = *image.examples[k];
      const PlanResult plan = e.planLogCosts(log_costs, 1.0);
      const double demonstrated = pathIntegral(e.demonstration(), image.cols, costs);
      violations[k] = plan.status == PlanStatus::Success ? std::max(0.0, demonstrated - plan.cost) / demonstrated
                                                         : std::numeric_limits<double>::infinity();
    });
    for (double v : violations) sum += v, ++count;
  }
  return count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / count;
}

// The state of a module's parameters, to keep the best epoch's.
std::vector<torch::Tensor> snapshot(Net& net) {
  std::vector<torch::Tensor> state;
  for (const torch::Tensor& p : net.parameters()) state.push_back(p.detach().clone());
  return state;
}

void restore(Net& net, const std::vector<torch::Tensor>& state) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params = net.parameters();
  for (std::size_t i = 0; i < params.size(); ++i) params[i].copy_(state[i]);
}

}  // namespace

std::vector<double> torchForward(const CostNetwork& network, const std::vector<float>& inputs, int rows, int cols) {
  const std::size_t plane = static_cast<std::size_t>(rows) * cols;
  const int planes = network.shape().inputs();
  if (inputs.size() != plane * static_cast<std::size_t>(planes)) throw InvalidArgument("torchLogCosts: inputs of the wrong size");
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::from_blob(const_cast<float*>(inputs.data()), {1, planes, rows, cols},
                                           torch::kFloat);
  std::vector<double> sum(plane, 0.0), squares(plane, 0.0);
  for (const std::vector<ConvLayer>& member : network.members()) {
    Net net(network.shape(), 0);
    net.load(member);
    torch::Tensor l = net.forward(x).first.to(torch::kDouble);
    if (network.shape().classes > 0) {  // the classifier baseline's cost assignment
      const torch::Tensor p = torch::softmax(l, 1).select(1, network.shape().preferred);
      l = torch::log1p(network.shape().cost_scale * (1.0 - p));
    }
    l = l.contiguous().view({-1});
    const double* values = l.data_ptr<double>();
    for (std::size_t s = 0; s < plane; ++s) sum[s] += values[s], squares[s] += values[s] * values[s];
  }
  const double k = static_cast<double>(network.members().size());
  for (std::size_t s = 0; s < plane; ++s) {
    const double mean = sum[s] / k;
    sum[s] = mean + network.shape().kappa * std::sqrt(std::max(0.0, squares[s] / k - mean * mean));
  }
  return sum;
}

namespace {

// One AdamW step on one image (in a random symmetry and colour jitter if augmenting): the oracle's
// visit gradient on the log-costs, plus the label head's cross-entropy; a segmenter's cross-entropy
// alone.  Returns the step's share of the epoch's objective.
double stepImage(Net& net, torch::optim::AdamW& adam, const NetworkImage& image, const NetworkTrainingSettings& settings,
                 Random& rng, ThreadPool& pool) {
  Symmetry symmetry;
  torch::Tensor x = inputTensor(image);
  if (settings.augment) {
    symmetry.turns = static_cast<int>(rng.below(4));
    symmetry.mirror = rng.below(2) == 1;
    const float jitter = static_cast<float>(settings.jitter);
    for (int ch = 0; ch < 3; ++ch) {  // a colour's mean and spread scale together
      const float a = static_cast<float>(1.0 + jitter * (2.0 * rng.uniform() - 1.0));
      const float b = static_cast<float>(jitter * (2.0 * rng.uniform() - 1.0));
      x[0][ch].mul_(a).add_(b);
      x[0][3 + ch].mul_(a);
    }
  }
  auto [log_cost, logits] = net.forward(symmetry.apply(x));
  adam.zero_grad();
  double objective = 0.0;
  torch::Tensor loss;
  if (settings.segmenter) {
    loss = crossEntropy(symmetry.undo(logits), image);
    objective = loss.item<double>();
  } else {
    log_cost = symmetry.undo(log_cost);
    std::vector<double> log_costs, gradient;
    addLinear(log_cost, image, log_costs);
    objective = settings.objective == TrainingObjective::Likelihood
                    ? maxentGradient(image, log_costs, settings, pool, gradient)
                    : oracleGradient(image, log_costs, settings, rng, pool, gradient);
    const torch::Tensor g =
        torch::from_blob(gradient.data(), {1, 1, image.rows, image.cols}, torch::kDouble).to(torch::kFloat);
    loss = (log_cost * g).sum();  // its gradient with respect to the log-costs is g
    if (settings.label_weight > 0.0) loss = loss + settings.label_weight * crossEntropy(symmetry.undo(logits), image);
  }
  loss.backward();
  adam.step();
  return objective;
}

// One member of the ensemble, trained from `seed`: epochs of one step per image of `order` (shuffled in
// place, each member from where the last left it), the validation score before each, the best epoch's
// network kept.  Returns false if the callback stopped it.
bool trainMember(int member, std::uint64_t seed, const std::vector<NetworkImage>& images, std::vector<std::size_t>& order,
                 bool validating, const NetworkTrainingSettings& settings, int classes, const NetworkCallback& callback,
                 ThreadPool& pool, std::chrono::steady_clock::time_point start, NetworkResult& result,
                 std::vector<std::vector<ConvLayer>>& members) {
  torch::manual_seed(seed);
  Random rng(seed);
  Net net(settings.shape, settings.label_weight > 0.0 && !settings.segmenter ? classes : 0);
  torch::optim::AdamW adam(net.parameters(), torch::optim::AdamWOptions(settings.step).weight_decay(settings.weight_decay));
  double best = std::numeric_limits<double>::infinity();
  int best_epoch = 0, since_best = 0;
  std::vector<torch::Tensor> best_state = snapshot(net);
  std::string ended = "ran " + std::to_string(settings.epochs) + " epochs";
  bool go_on = true;
  for (int epoch = 0; epoch <= settings.epochs && go_on; ++epoch) {
    NetworkEpoch record;
    record.member = member;
    record.epoch = epoch;
    record.objective = std::numeric_limits<double>::quiet_NaN();  // unless the epoch steps
    record.validation_loss = validating ? validationLoss(net, images, pool) : std::numeric_limits<double>::quiet_NaN();
    bool last = epoch == settings.epochs;  // the last network is scored, not stepped
    if (validating && record.validation_loss < best) {
      best = record.validation_loss;
      best_epoch = epoch;
      best_state = snapshot(net);
      since_best = 0;
    } else if (validating && ++since_best >= settings.patience) {
      ended = "stopped after " + std::to_string(epoch) + " epochs: no better validation loss for " +
              std::to_string(settings.patience);
      last = true;
    }
    if (!last) {  // a seeded order of the training images, one step each
      record.objective = 0.0;
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
      for (std::size_t j : order) record.objective += stepImage(net, adam, images[j], settings, rng, pool);
    }
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.epochs.push_back(record);
    if (callback && !callback(record)) {
      go_on = false;
      if (!last) ended = "stopped by the callback after " + std::to_string(epoch + 1) + " epochs";
    }
    if (last) break;
  }
  if (validating) {
    restore(net, best_state);
    ended += "; kept epoch " + std::to_string(best_epoch) + " (validation loss " + numberText(best) + ")";
    if (best_epoch == settings.epochs) {
      ended += ", the last: the validation loss was still falling (learner.network.epochs sets more)";
    }
  } else {
    best_epoch = result.epochs.back().epoch;
  }
  result.kept_epochs.push_back(best_epoch);
  result.message += (result.message.empty() ? "" : "; ") + ("member " + std::to_string(member) + ": " + ended);
  members.push_back(net.layers(settings.shape));
  return go_on;
}

}  // namespace

NetworkResult torchTrainNetwork(const std::vector<NetworkImage>& images, const NetworkTrainingSettings& settings, int classes,
                                const NetworkCallback& callback) {
  if (images.empty()) throw InvalidArgument("network training: no images");
  checkImages(images, settings, classes);
  const int threads = settings.threads == 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                            : settings.threads;
  torch::set_num_threads(threads);
  ThreadPool pool(threads);
  const auto start = std::chrono::steady_clock::now();
  // What an image needs to take part: demonstrations, or labels for a segmenter.
  const auto usable = [&](const NetworkImage& i) { return settings.segmenter ? !i.labels.empty() : !i.examples.empty(); };
  const bool validating = settings.early_stopping &&
                          std::any_of(images.begin(), images.end(), [&](const NetworkImage& i) { return i.validation && usable(i); });
  std::vector<std::size_t> order;
  for (std::size_t j = 0; j < images.size(); ++j) {
    if (!images[j].validation && usable(images[j])) order.push_back(j);
  }
  NetworkResult result;
  std::vector<std::vector<ConvLayer>> members;
  for (int member = 0; member < settings.shape.members; ++member) {
    const std::uint64_t seed = settings.seed + 1000003ULL * static_cast<std::uint64_t>(member);
    if (!trainMember(member, seed, images, order, validating, settings, classes, callback, pool, start, result, members)) break;
  }
  NetworkShape shape = settings.shape;
  shape.members = static_cast<int>(members.size());
  result.network = CostNetwork(shape, std::move(members));
  return result;
}

namespace {

// The passable cells' cost range of one image under log-costs l (+inf: blocked), floor + exp(l), into
// range; false if a passable cell's cost is not finite > 0.
bool costRange(const std::vector<double>& l, double floor, std::array<double, 2>& range) {
  for (double v : l) {
    if (v == std::numeric_limits<double>::infinity()) continue;
    const double c = floor + std::exp(v);
    if (!(c > 0.0) || !std::isfinite(c)) return false;
    range = {std::min(range[0], c), std::max(range[1], c)};
  }
  return true;
}

// The parameters fine-tuning moves: the last 1 x 1 layer alone (the others frozen), or all of them.
std::vector<torch::Tensor> movingParameters(Net& net, bool head_only) {
  if (!head_only) return net.parameters();
  for (torch::Tensor& p : net.parameters()) p.requires_grad_(false);
  std::vector<torch::Tensor> moving = {net.out->weight, net.out->bias};
  for (torch::Tensor& p : moving) p.requires_grad_(true);
  return moving;
}

// The mean hinge term over every demonstration as a function of the images' log-cost tensors (its
// gradient the oracle's, per image); adds the term's value to `objective`.
torch::Tensor meanHingeTerm(const std::vector<NetworkImage>& images, const std::vector<torch::Tensor>& log_cost,
                            const std::vector<std::vector<double>>& log_costs, std::size_t total, ThreadPool& pool, double& objective) {
  NetworkTrainingSettings oracle;  // the margin oracle, exact plans
  oracle.smoothing_samples = 1;
  Random rng(1);                   // unused with exact plans
  torch::Tensor loss = torch::zeros({}, torch::kFloat);
  for (std::size_t j = 0; j < images.size(); ++j) {
    const NetworkImage& image = images[j];
    if (image.examples.empty()) continue;
    std::vector<double> gradient;
    objective += oracleGradient(image, log_costs[j], oracle, rng, pool, gradient);
    // oracleGradient divides by the image's demonstrations: the mean over all of them instead
    const double share = static_cast<double>(image.examples.size()) / static_cast<double>(total);
    for (double& g : gradient) g *= share;
    const torch::Tensor g = torch::from_blob(gradient.data(), {1, 1, image.rows, image.cols}, torch::kDouble).to(torch::kFloat);
    loss = loss + (log_cost[j] * g).sum();
  }
  return loss;
}

// The marks' hinge terms (fineTuneNetwork): each mark's gap, its cells' mean log-cost (linear + network)
// over every demonstration's cells' mean, held at least (avoid) or at most (prefer) its bound -- the
// mark's gap, or the parent's (`parent_gaps`, filled on the first call) where already on its side --
// times the demonstrations' mean length in cells.  Adds its value to `objective`.
torch::Tensor markHingeTerm(const std::vector<NetworkImage>& images, const std::vector<torch::Tensor>& log_cost,
                            std::vector<double>& parent_gaps, double& objective) {
  const auto meanOver = [&](std::size_t j, const std::vector<int>& cells, torch::Tensor& sum, double& linear) {
    std::vector<std::int64_t> index(cells.begin(), cells.end());
    sum = sum + log_cost[j].reshape({-1}).index_select(0, torch::tensor(index, torch::kLong)).sum();
    for (const int s : cells) linear += images[j].linear[static_cast<std::size_t>(s)];
  };
  torch::Tensor taught = torch::zeros({}, torch::kFloat);
  double taught_linear = 0.0;
  std::size_t taught_cells = 0, demonstrations = 0;
  for (std::size_t j = 0; j < images.size(); ++j) {
    for (const PathExample* e : images[j].examples) {
      meanOver(j, e->demonstration(), taught, taught_linear);
      taught_cells += e->demonstration().size();
      ++demonstrations;
    }
  }
  torch::Tensor loss = torch::zeros({}, torch::kFloat);
  if (taught_cells == 0) return loss;
  const torch::Tensor taught_mean = (taught + taught_linear) / static_cast<double>(taught_cells);
  const double weight = static_cast<double>(taught_cells) / static_cast<double>(demonstrations);
  std::size_t m = 0;
  for (std::size_t j = 0; j < images.size(); ++j) {
    for (const NetworkMark& mark : images[j].marks) {
      torch::Tensor sum = torch::zeros({}, torch::kFloat);
      double linear = 0.0;
      meanOver(j, mark.cells, sum, linear);
      const torch::Tensor gap = (sum + linear) / static_cast<double>(mark.cells.size()) - taught_mean;
      if (parent_gaps.size() <= m) parent_gaps.push_back(gap.item<double>());
      const double bound = mark.avoid ? std::max(mark.gap, parent_gaps[m]) : std::min(mark.gap, parent_gaps[m]);
      const torch::Tensor hinge = torch::relu(mark.avoid ? bound - gap : gap - bound) * weight;
      objective += hinge.item<double>();
      loss = loss + hinge;
      ++m;
    }
  }
  return loss;
}

// The proximal step toward the parent, theta -> theta0 + (theta - theta0) shrink; returns |theta - theta0|^2.
double proximalStep(std::vector<torch::Tensor>& moving, const std::vector<torch::Tensor>& anchor, double shrink) {
  torch::NoGradGuard no_grad;
  double moved = 0.0;
  for (std::size_t k = 0; k < moving.size(); ++k) {
    moving[k].sub_(anchor[k]).mul_(shrink).add_(anchor[k]);
    moved += (moving[k] - anchor[k]).to(torch::kDouble).pow(2).sum().item<double>();
  }
  return moved;
}

// One member fine-tuned from its parameters (fineTuneNetwork's contract); appends its epochs to result
// and returns how it ended.
std::string fineTuneMember(Net& net, int member, const std::vector<NetworkImage>& images, const std::vector<torch::Tensor>& inputs,
                           const NetworkAdaptationSettings& settings, ThreadPool& pool,
                           std::chrono::steady_clock::time_point start, NetworkResult& result) {
  const std::size_t total = [&] {
    std::size_t n = 0;
    for (const NetworkImage& image : images) n += image.examples.size();
    return n;
  }();
  std::vector<torch::Tensor> moving = movingParameters(net, settings.head_only);
  std::vector<torch::Tensor> anchor;  // theta0
  for (const torch::Tensor& p : moving) anchor.push_back(p.detach().clone());
  // Head only: the hidden layers do not move, so their output is computed once per image.
  std::vector<torch::Tensor> hidden(images.size());
  if (settings.head_only) {
    torch::NoGradGuard no_grad;
    for (std::size_t j = 0; j < images.size(); ++j) hidden[j] = net.features(inputs[j]);
  }
  torch::optim::Adam adam(moving, torch::optim::AdamOptions(settings.step));
  const double shrink = 1.0 / (1.0 + settings.step * settings.lambda);
  std::vector<torch::Tensor> good = snapshot(net);
  std::vector<double> parent_gaps;  // each mark's gap under the parent (markHingeTerm)
  const auto kept = [](int epoch) {
    return "kept the model of " + (epoch > 1 ? "epoch " + std::to_string(epoch - 1) : std::string("the parent"));
  };
  for (int epoch = 0; epoch <= settings.epochs; ++epoch) {
    NetworkEpoch record;
    record.member = member;
    record.epoch = epoch;
    record.objective = 0.0;
    record.validation_loss = std::numeric_limits<double>::quiet_NaN();
    // the network after `epoch` steps on every image: checked, then stepped from
    const bool stepping = epoch < settings.epochs;
    std::vector<torch::Tensor> log_cost(images.size());
    std::vector<std::vector<double>> log_costs(images.size());
    std::array<double, 2> range = {std::numeric_limits<double>::infinity(), 0.0};
    bool finite = true;
    for (std::size_t j = 0; j < images.size(); ++j) {
      std::optional<torch::NoGradGuard> no_grad;
      if (!stepping || (images[j].examples.empty() && images[j].marks.empty())) no_grad.emplace();
      log_cost[j] = settings.head_only ? net.head(hidden[j]) : net.forward(inputs[j]).first;
      std::vector<double> l, costs;
      addLinear(log_cost[j], images[j], l);
      finite = costRange(l, net.cost_floor, range) && finite;
      modelCosts(l, net.cost_floor, log_costs[j], costs);
    }
    std::string fault = !finite ? std::string("a passable cell's cost is not finite")
                                : (range[0] <= range[1] ? costRangeFault(range) : std::string());
    if (epoch > 0 && !fault.empty()) {
      restore(net, good);
      result.info = Info::NumericalIssue;
      return "the model after epoch " + std::to_string(epoch) + ": on the taught images " + fault + "; " + kept(epoch);
    }
    good = snapshot(net);
    if (!stepping) break;
    torch::Tensor loss;
    try {
      loss = meanHingeTerm(images, log_cost, log_costs, total, pool, record.objective) +
             markHingeTerm(images, log_cost, parent_gaps, record.objective);
    } catch (const Error& e) {
      result.info = Info::NumericalIssue;
      return "epoch " + std::to_string(epoch + 1) + ": " + e.what() + "; " + kept(epoch + 1);
    }
    adam.zero_grad();
    loss.backward();
    adam.step();
    const double moved = proximalStep(moving, anchor, shrink);  // |theta - theta0|^2 after it
    for (const torch::Tensor& p : moving) {
      if (!torch::isfinite(p).all().item<bool>()) {
        restore(net, good);
        result.info = Info::NumericalIssue;
        return "the step of epoch " + std::to_string(epoch + 1) + " is not finite; " + kept(epoch + 1);
      }
    }
    record.objective += 0.5 * settings.lambda * moved;  // the epoch's objective: hinge terms at its start, prior after
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.epochs.push_back(record);
  }
  return "ran " + std::to_string(settings.epochs) + " epochs";
}

}  // namespace

NetworkResult torchFineTune(const CostNetwork& parent, const std::vector<NetworkImage>& images,
                            const NetworkAdaptationSettings& settings) {
  const NetworkShape& shape = parent.shape();
  bool demonstrated = false;
  for (const NetworkImage& image : images) {
    const std::size_t cells = static_cast<std::size_t>(image.rows) * image.cols;
    if (image.rows < 1 || image.cols < 1 || image.inputs.size() != cells * static_cast<std::size_t>(shape.inputs()) ||
        image.linear.size() != cells) {
      throw InvalidArgument("network adaptation: image '" + image.name + "' has inputs or linear costs of the wrong size for its " +
                            std::to_string(image.rows) + " x " + std::to_string(image.cols) + " cells and the network's " +
                            std::to_string(shape.inputs()) + " input planes");
    }
    for (const PathExample* e : image.examples) {
      if (e->map().rows() != image.rows || e->map().cols() != image.cols) {
        throw InvalidArgument("network adaptation: a demonstration of image '" + image.name + "' lies on a map of another size");
      }
    }
    demonstrated = demonstrated || !image.examples.empty();
  }
  if (!demonstrated) throw InvalidArgument("network adaptation: no image has demonstrations");
  const int threads = settings.threads == 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                            : settings.threads;
  torch::set_num_threads(threads);
  ThreadPool pool(threads);
  const auto start = std::chrono::steady_clock::now();
  std::vector<torch::Tensor> inputs;
  for (const NetworkImage& image : images) inputs.push_back(inputTensor(image));
  NetworkResult result;
  std::vector<std::vector<ConvLayer>> members;
  for (int m = 0; m < shape.members; ++m) {
    Net net(shape, 0);
    net.load(parent.members()[static_cast<std::size_t>(m)]);
    const std::string ended = fineTuneMember(net, m, images, inputs, settings, pool, start, result);
    result.message += (result.message.empty() ? "" : "; ") + (shape.members > 1 ? "member " + std::to_string(m) + ": " : "") + ended;
    members.push_back(net.layers(shape));
  }
  result.network = CostNetwork(shape, std::move(members));
  return result;
}

}  // namespace mmp

extern "C" const mmp::NetworkTorchModule* mmp_network_torch_module() {
  static const mmp::NetworkTorchModule module{mmp::kNetworkTorchVersion, mmp::NetworkTorchLayout{}, &mmp::torchTrainNetwork,
                                              &mmp::torchForward, &mmp::torchFineTune};
  return &module;
}
