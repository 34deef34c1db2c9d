// Loading libtorch's module for a program (network_module.hpp).
#include "network_module.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

namespace mmp::tools {
namespace {

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

/// "" if libtorch fits under the process's address-space limit, else why not.
std::string addressSpaceShortfall() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "";
  const long long limit_mib = static_cast<long long>(limit.rlim_cur / (1024 * 1024));
  const long long in_use = addressSpaceInUseMiB();
  if (in_use + kTorchAddressSpaceMiB <= limit_mib) return "";
  return "needs more memory: libtorch needs about " + std::to_string(kTorchAddressSpaceMiB) +
         " MiB of address space beyond the " + std::to_string(in_use) + " MiB in use, and this process is limited to " +
         std::to_string(limit_mib) + " MiB (ulimit -v): raise the limit to " + std::to_string(in_use + kTorchAddressSpaceMiB) +
         " MiB or more";
}

}  // namespace

void pinNetworkKernels() {
  const char* native = std::getenv("MMP_NATIVE_KERNELS");
  if ((native != nullptr && *native != '\0' && std::string(native) != "0") || !__builtin_cpu_supports("avx2") ||
      !__builtin_cpu_supports("fma")) {
    return;
  }
  for (const KernelPin& pin : kNetworkKernelPins) {
    const char* value = std::getenv(pin.variable);
    if (value == nullptr || *value == '\0') ::setenv(pin.variable, pin.value, 1);
  }
}

const NetworkTorchModule* loadTorchModule(const std::string& folder, std::string& why) {
  why = addressSpaceShortfall();
  if (!why.empty()) return nullptr;
  const char* given = std::getenv("MMP_TORCH_MODULE");
  const std::string path = given != nullptr && *given != '\0' ? given : folder + "/libmmp_torch.so";
  const std::string advice = "\n(reinstall mmp, or set MMP_TORCH_MODULE to the module's path)";
  if (access(path.c_str(), R_OK) != 0) {
    why = "cannot find mmp's libtorch module: no readable file " + path + advice;
    return nullptr;
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: libtorch cannot unload
  if (handle == nullptr) {
    const char* error = dlerror();
    why = "cannot load mmp's libtorch module " + path + ": " + (error != nullptr ? error : "dlopen failed") + advice;
    return nullptr;
  }
  using Entry = const NetworkTorchModule* (*)();
  const auto entry = reinterpret_cast<Entry>(dlsym(handle, "mmp_network_torch_module"));
  if (entry == nullptr) {
    why = path + " is not mmp's libtorch module (no mmp_network_torch_module)" + advice;
    dlclose(handle);
    return nullptr;
  }
  return entry();
}

}  // namespace mmp::tools
