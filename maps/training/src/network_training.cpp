// Network training's settings, and the registered backend that gives it the libtorch module
// (network_backend.hpp; network_torch_module.hpp says why a module; src/network_torch.cpp is the training).
#include <mmp/maps/training/network_training.hpp>

#include "network_torch_module.hpp"

#include <mmp/core/error.hpp>

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>

namespace mmp {

void NetworkTrainingSettings::validate() const {
  shape.validate();
  auto fail = [](const std::string& key, const std::string& value, const std::string& valid) {
    throw InvalidArgument("network." + key + " = " + value + " is out of range: use " + valid);
  };
  if (epochs < 1 || epochs > 10000) fail("epochs", std::to_string(epochs), "1 to 10000");
  if (!(step > 0.0) || !std::isfinite(step)) fail("step", numberText(step), "a number > 0");
  if (!(weight_decay >= 0.0) || !std::isfinite(weight_decay)) fail("weight_decay", numberText(weight_decay), "a number >= 0");
  if (!(jitter >= 0.0 && jitter < 1.0)) fail("jitter", numberText(jitter), "0 <= jitter < 1");
  if (patience < 1) fail("patience", std::to_string(patience), "1 or more");
  if (smoothing_samples < 1 || smoothing_samples > 32) fail("smoothing_samples", std::to_string(smoothing_samples), "1 to 32");
  if (!(smoothing_sigma >= 0.0) || !std::isfinite(smoothing_sigma)) fail("smoothing_sigma", numberText(smoothing_sigma), "a number >= 0");
  if (!(label_weight >= 0.0) || !std::isfinite(label_weight)) fail("label_weight", numberText(label_weight), "a number >= 0");
  if (threads < 0 || threads > 256) fail("threads", std::to_string(threads), "0 (every core) to 256");
  if (objective == TrainingObjective::Margin && shape.cost_floor != 0.0) {
    fail("cost_floor", numberText(shape.cost_floor), "0 with the margin objective (the floor is the maxent objective's)");
  }
  if (objective == TrainingObjective::Likelihood) {
    if (shape.cost_floor < kMaxEntSafeCost) {
      fail("cost_floor", numberText(shape.cost_floor), ">= " + numberText(kMaxEntSafeCost) + " with the maxent objective (below it a path distribution may not be normalisable)");
    }
    if (smoothing_samples != 1) fail("smoothing_samples", std::to_string(smoothing_samples), "1 with the maxent objective (its expectation is already smooth)");
    if (segmenter) throw InvalidArgument("network.segmenter = true trains on the labels alone: the maxent objective does not apply");
  }
}

std::string NetworkTrainingSettings::describe() const {
  std::ostringstream text;
  text << (from_linear ? "on the linear model's log-cost, " : "") << shape.describe() << ", " << epochs << " epochs, AdamW " << numberText(step) << ", weight decay "
       << numberText(weight_decay) << (augment ? ", augmented (jitter " + numberText(jitter) + ")" : ", no augmentation")
       << (early_stopping ? ", early stopping (patience " + std::to_string(patience) + ")" : "");
  if (smoothing_samples > 1) text << ", " << smoothing_samples << " smoothed plans (sigma " << numberText(smoothing_sigma) << ")";
  if (label_weight > 0.0) text << ", label head " << numberText(label_weight);
  if (segmenter) text << ", a segmenter trained on the labels alone";
  if (objective == TrainingObjective::Likelihood) text << ", Maximum Entropy IRL";
  return text.str();
}

std::string networkKernels() {
  std::string set, own;
  bool pinned = true;
  for (const KernelPin& pin : kNetworkKernelPins) {
    const char* value = std::getenv(pin.variable);
    if (value == nullptr || *value == '\0') {
      own += std::string(own.empty() ? "" : ", ") + pin.variable;
      pinned = false;
      continue;
    }
    pinned = pinned && std::string(value) == pin.value;
    set += std::string(set.empty() ? "" : ", ") + pin.variable + "=" + value;
  }
  if (pinned) return "kernels pinned (" + set + "), those the documented figures were trained on";
  return "kernels " + set + (set.empty() || own.empty() ? "" : ", ") + (own.empty() ? "" : "this CPU's own for " + own) +
         ": results can differ from another CPU's (docs/results-network.md; the mmp command and Python's mmp pin them)";
}

bool networkTrainingAvailable() {
#ifdef MMP_WITH_TORCH
  return true;
#else
  return false;
#endif
}

namespace {

struct Backend {
  std::mutex mutex;
  NetworkBackendLoader load;
  const NetworkTorchModule* module = nullptr;  // once loaded, kept for the process: libtorch cannot unload
};

Backend& backend() {
  static Backend registered;
  return registered;
}

/// The registered backend's module, loaded on first use; throws mmp::Error saying why it has none.
const NetworkTorchModule& torchModule() {
  if (!networkTrainingAvailable()) {
    throw Error("network training: this build of mmp has no libtorch (configure with -DMMP_WITH_TORCH=ON and "
                "Debian's libtorch-dev); network models still load and compute costs");
  }
  Backend& b = backend();
  const std::lock_guard<std::mutex> lock(b.mutex);
  if (b.module != nullptr) return *b.module;
  if (!b.load) {
    throw Error("network training: this program registered no libtorch backend (the mmp command and Python's mmp "
                "register theirs at start; a C++ program links <libdir>/mmp/libmmp_torch.so and calls "
                "mmp::setNetworkBackend(mmp_network_torch_module()), network_backend.hpp)");
  }
  std::string why;
  const NetworkTorchModule* module = b.load(why);
  if (module == nullptr) throw Error("network training: " + why);
  if (module->version != kNetworkTorchVersion || !(module->layout == NetworkTorchLayout{})) {
    throw Error("network training: the libtorch module was made by another build of mmp (interface " +
                std::to_string(module->version) + ", this build's " + std::to_string(kNetworkTorchVersion) +
                ", or other structure sizes): reinstall mmp");
  }
  b.module = module;
  return *module;
}

}  // namespace

void setNetworkBackend(NetworkBackendLoader load) {
  Backend& b = backend();
  const std::lock_guard<std::mutex> lock(b.mutex);
  if (b.module == nullptr) b.load = std::move(load);
}

void setNetworkBackend(const NetworkTorchModule* module) {
  setNetworkBackend([module](std::string& why) {
    if (module == nullptr) why = "the registered libtorch module is null";
    return module;
  });
}

NetworkResult trainNetwork(const std::vector<NetworkImage>& images, const NetworkTrainingSettings& settings, int classes,
                           const NetworkCallback& callback) {
  settings.validate();
  NetworkResult result = torchModule().train(images, settings, classes, callback);
  result.message = networkKernels() + (result.message.empty() ? "" : "; " + result.message);
  return result;
}

NetworkResult fineTuneNetwork(const CostNetwork& parent, const std::vector<NetworkImage>& images,
                              const NetworkAdaptationSettings& settings) {
  const auto fail = [](const std::string& key, const std::string& value, const std::string& valid) {
    throw InvalidArgument("adapt.network_" + key + " = " + value + " is out of range: use " + valid);
  };
  if (!(settings.lambda > 0.0) || !std::isfinite(settings.lambda)) fail("lambda", numberText(settings.lambda), "a number > 0");
  if (!(settings.step > 0.0) || !std::isfinite(settings.step)) fail("step", numberText(settings.step), "a number > 0");
  if (settings.epochs < 1 || settings.epochs > 10000) fail("epochs", std::to_string(settings.epochs), "1 to 10000");
  if (settings.threads < 0 || settings.threads > 256) fail("threads", std::to_string(settings.threads), "0 (every core) to 256");
  if (parent.empty()) throw InvalidArgument("network adaptation: the parent has no network");
  if (parent.shape().classes > 0) {
    throw InvalidArgument("network adaptation: the parent is a segmenter (trained on labels, its costs a rule of its "
                          "class probabilities); only a cost network adapts to demonstrations");
  }
  return torchModule().fineTune(parent, images, settings);
}

std::vector<double> torchLogCosts(const CostNetwork& network, const std::vector<float>& inputs, int rows, int cols) {
  return torchModule().logCosts(network, inputs, rows, cols);
}

}  // namespace mmp
