// The suite that trains networks in its own process registers the build's libtorch module as the `mmp`
// launcher does (network_backend.hpp, tools/cli/network_module.hpp), at start and without pinning kernels.
#include "network_module.hpp"

#include <mmp/maps/training/network_training.hpp>

#include <string>

namespace {

[[maybe_unused]] const bool registered = [] {
  mmp::setNetworkBackend([](std::string& why) { return mmp::tools::loadTorchModule(MMP_TORCH_MODULE_DIR, why); });
  return true;
}();

}  // namespace
