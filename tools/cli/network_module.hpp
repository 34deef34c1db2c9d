// Loading libtorch's module, libmmp_torch.so, for a program (network_backend.hpp): the `mmp` launcher
// (mmp.cpp), and the test suite and benchmarks that train networks in their own process.  Program code:
// no library of mmp's loads a module, reads /proc or asks for its limits.  Needs only the C++ runtime
// and libdl, as the launcher does.
#pragma once

#include <mmp/maps/training/network_backend.hpp>

#include <string>

namespace mmp::tools {

/// Sets the kernel pins (kNetworkKernelPins) the environment does not hold, unless MMP_NATIVE_KERNELS is
/// set (not "0") or the CPU lacks AVX2 or FMA.  Call it before anything loads OpenBLAS.
void pinNetworkKernels();

/// Loads <folder>/libmmp_torch.so, or $MMP_TORCH_MODULE if that is set, and returns its table; nullptr
/// with `why` saying what it tried, if the file is missing or will not load, and "needs more memory"
/// (naming the ulimit -v to set) before trying, if the address-space limit leaves too little room for
/// libtorch.  The table's version is checked by network training, not here.
const NetworkTorchModule* loadTorchModule(const std::string& folder, std::string& why);

}  // namespace mmp::tools
