// The seam between maps_training and its libtorch module.  Network training (network_training.hpp) is
// the only code of mmp that needs libtorch, and libtorch with what it pulls in (oneDNN, OpenBLAS: about
// 200 shared libraries, 150 MB resident and 600 MB of address space) would otherwise load into every
// program that links maps_training, `mmp --version` included.  So src/network_torch.cpp is built as a
// module of its own, libmmp_torch.so (a CMake MODULE beside libmmp_cli.so, in <libdir>/mmp), that the
// program's registered backend loads the first time a network is trained (network_backend.hpp).  The
// module links mmp's static libraries privately (their symbols hidden) and exports one C function,
// mmp_network_torch_module(), that returns this table; network_training.cpp refuses a table whose
// signature is not its own (a module of another mmp build, whose structures may be laid out otherwise).
#pragma once

#include <mmp/maps/training/network_training.hpp>

#include <cstddef>
#include <vector>

namespace mmp {

/// The sizes of what crosses the seam, as the including build lays it out.
struct NetworkTorchLayout {
  std::size_t sizes[9] = {sizeof(NetworkImage), sizeof(NetworkTrainingSettings), sizeof(NetworkShape), sizeof(NetworkResult),
                          sizeof(NetworkEpoch), sizeof(CostNetwork), sizeof(PathExample), sizeof(NetworkCallback),
                          sizeof(NetworkAdaptationSettings)};
  bool operator==(const NetworkTorchLayout& other) const {
    for (std::size_t i = 0; i < 9; ++i) {
      if (sizes[i] != other.sizes[i]) return false;
    }
    return true;
  }
};

/// The interface's version: raised whenever a function below changes its meaning (2: fineTune added;
/// 3: it holds the images' marks).
inline constexpr int kNetworkTorchVersion = 3;

/// The module's functions: trainNetwork after the settings were validated, torchLogCosts, and
/// fineTuneNetwork after its settings were validated.
struct NetworkTorchModule {
  int version;                ///< kNetworkTorchVersion of the module's build
  NetworkTorchLayout layout;  ///< the module's sizes
  NetworkResult (*train)(const std::vector<NetworkImage>& images, const NetworkTrainingSettings& settings, int classes,
                         const NetworkCallback& callback);
  std::vector<double> (*logCosts)(const CostNetwork& network, const std::vector<float>& inputs, int rows, int cols);
  NetworkResult (*fineTune)(const CostNetwork& parent, const std::vector<NetworkImage>& images,
                            const NetworkAdaptationSettings& settings);
};

}  // namespace mmp

