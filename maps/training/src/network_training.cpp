// Network training's settings, and the loader of the libtorch module that trains (network_torch_module.hpp
// says why it is a module; src/network_torch.cpp is the training).
#include <mmp/maps/training/network_training.hpp>

#include "network_torch_module.hpp"

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <sys/resource.h>

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
         ": results can differ from another CPU's (docs/results-network.md; mmp train pins them)";
}

bool networkTrainingAvailable() {
#ifdef MMP_WITH_TORCH
  return true;
#else
  return false;
#endif
}

namespace {

#ifdef MMP_WITH_TORCH
/// Address space that loading libtorch and training a small network adds to a process, with a margin.
/// Measured with tests/maps/training's "network training follows the demonstrations" under `ulimit -v`
/// (577 MiB in use when the module loaded): it trained at 900 MiB, hung at 850 (a start-up allocation
/// retried forever) and could not map libtorch at 800 and below; so about 330 MiB beyond what is in use.
constexpr long long kTorchAddressSpaceMiB = 512;

long long addressSpaceInUseMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoll(line.substr(7)) / 1024;  // kB
  }
  return 0;
}

void checkAddressSpace() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  const long long limit_mib = static_cast<long long>(limit.rlim_cur / (1024 * 1024));
  const long long in_use = addressSpaceInUseMiB();
  if (in_use + kTorchAddressSpaceMiB > limit_mib) {
    throw Error("network training needs more memory: libtorch needs about " + std::to_string(kTorchAddressSpaceMiB) +
                " MiB of address space beyond the " + std::to_string(in_use) + " MiB in use, and this process is limited to " +
                std::to_string(limit_mib) + " MiB (ulimit -v): raise the limit to " +
                std::to_string(in_use + kTorchAddressSpaceMiB) + " MiB or more");
  }
}

/// The folders of a ':'-separated list.
std::vector<std::string> splitFolders(const std::string& list) {
  std::vector<std::string> folders;
  std::stringstream stream(list);
  for (std::string folder; std::getline(stream, folder, ':');) folders.push_back(folder);
  return folders;
}

/// Where the module may be: $MMP_TORCH_MODULE if set; else relative to the program or library that holds
/// this code (MMP_TORCH_RELATIVE_DIRS: beside it, as the mmp command's libmmp_cli.so is, and <libdir>/mmp
/// as the Python package and a program in <bindir> see it, in whatever prefix they were installed), then
/// MMP_TORCH_DIRS (the build tree's folder and the configured install folder).
std::vector<std::string> moduleCandidates() {
  const char* given = std::getenv("MMP_TORCH_MODULE");
  if (given != nullptr && *given != '\0') return {given};
  std::vector<std::string> paths;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&addressSpaceInUseMiB), &self) != 0 && self.dli_fname != nullptr) {
    const std::filesystem::path holder = std::filesystem::path(self.dli_fname).parent_path();
    for (const std::string& relative : splitFolders(MMP_TORCH_RELATIVE_DIRS)) {
      paths.push_back((holder / relative / "libmmp_torch.so").lexically_normal().string());
    }
  }
  for (const std::string& folder : splitFolders(MMP_TORCH_DIRS)) paths.push_back(folder + "/libmmp_torch.so");
  std::vector<std::string> unique;
  for (const std::string& path : paths) {
    if (std::find(unique.begin(), unique.end(), path) == unique.end()) unique.push_back(path);
  }
  return unique;
}
#endif

/// The module, loaded on first use (then kept for the process); throws mmp::Error saying where it
/// looked and what each place held.
const NetworkTorchModule& torchModule() {
#ifndef MMP_WITH_TORCH
  throw Error("network training: this build of mmp has no libtorch (configure with -DMMP_WITH_TORCH=ON and "
              "Debian's libtorch-dev); network models still load and compute costs");
#else
  static std::mutex mutex;
  static const NetworkTorchModule* loaded = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (loaded != nullptr) return *loaded;
  checkAddressSpace();
  std::string tried;
  for (const std::string& path : moduleCandidates()) {
    tried += "\n  " + path + ": ";
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      tried += "no such file";
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += why != nullptr ? why : "dlopen failed";
      continue;
    }
    using Entry = const NetworkTorchModule* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, "mmp_network_torch_module"));
    const NetworkTorchModule* module = entry != nullptr ? entry() : nullptr;
    if (module == nullptr) {
      tried += "not mmp's libtorch module (no mmp_network_torch_module)";
    } else if (module->version != kNetworkTorchVersion || !(module->layout == NetworkTorchLayout{})) {
      tried += "made by another build of mmp (interface " + std::to_string(module->version) + ", this build's " +
               std::to_string(kNetworkTorchVersion) + ", or other structure sizes)";
    } else {
      loaded = module;  // never unloaded: libtorch does not support it
      return *loaded;
    }
    dlclose(handle);
  }
  throw Error("network training: cannot load mmp's libtorch module, libmmp_torch.so; looked at:" + tried +
              "\n(reinstall mmp, or set MMP_TORCH_MODULE to the module's path)");
#endif
}

}  // namespace

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
