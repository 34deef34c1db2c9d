// The suites that train networks in their own process (test_maps_training, test_cli) register the build's
// libtorch module as the `mmp` launcher does (network_backend.hpp, tools/cli/network_module.hpp), at start
// and without pinning kernels.
#include "network_module.hpp"

#include <mmp/maps/training/network_training.hpp>
#ifdef MMP_TEST_COMMANDS
#include "commands.hpp"
#endif

#include <string>

namespace {

[[maybe_unused]] const bool registered = [] {
  const mmp::NetworkBackendLoader load = [](std::string& why) { return mmp::tools::loadTorchModule(MMP_TORCH_MODULE_DIR, why); };
  mmp::setNetworkBackend(load);
#ifdef MMP_TEST_COMMANDS
  mmp::tools::useNetworkBackend(load);  // libmmp_cli.so's own copy of maps_training, which its commands use
#endif
  return true;
}();

}  // namespace
