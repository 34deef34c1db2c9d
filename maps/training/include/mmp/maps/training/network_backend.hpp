// The one runtime seam of network training.  Training a network needs libtorch, which lives in mmp's
// module libmmp_torch.so (src/network_torch_module.hpp says why a module): this library never loads it.
// A program registers, at start, what gives network training the module: the `mmp` command's launcher
// (tools/cli/mmp.cpp) and Python's package (mmp/__init__.py) register a loader that finds and loads it
// on the first network trained; a C++ program that trains networks links the module and registers its
// table:
//
//     target_link_libraries(app PRIVATE mmp::maps_training <libdir>/mmp/libmmp_torch.so)
//     mmp::setNetworkBackend(mmp_network_torch_module());
//
// The program also sets the kernel pins (kNetworkKernelPins) before anything loads OpenBLAS, if it
// wants the documented figures' bits.  This header includes nothing of mmp's, so that the launcher,
// which links no library, reads it too.
#pragma once

#include <functional>
#include <string>

namespace mmp {

struct NetworkTorchModule;  // the module's table of functions (src/network_torch_module.hpp)

/// What loads the module: returns its table, or nullptr with `why` saying what was tried and why it
/// failed (where it looked, a missing file, too small an address-space limit).  Called once, on the
/// first network trained, fine-tuned or checked (torchLogCosts), under a lock.
using NetworkBackendLoader = std::function<const NetworkTorchModule*(std::string& why)>;

/// Registers the loader (replacing an earlier one that has not loaded yet).  Without one, network
/// training throws mmp::Error saying how to register.  The table the loader returns is checked against
/// this build's (kNetworkTorchVersion and its structure sizes): a module of another mmp build is refused.
void setNetworkBackend(NetworkBackendLoader load);
/// Registers a module already loaded, e.g. setNetworkBackend(mmp_network_torch_module()) in a program
/// that links libmmp_torch.so.
void setNetworkBackend(const NetworkTorchModule* module);

/// The environment that pins libtorch's convolution kernels to those the documented figures were
/// trained on (any x86-64 CPU with AVX2 and FMA runs them): OpenBLAS's core type (its GEMM; read when
/// the library loads, so it must be set before anything loads OpenBLAS) and oneDNN's instruction set.
/// A user's own value of either is respected.  Measured: this project's AVX-512 CPU, pinned, reproduced
/// the figures an earlier machine made, bit for bit; oneDNN also sizes its blocks by the CPU's caches,
/// so a CPU unlike both is not guaranteed the same bits.  The `mmp` launcher and Python's package set
/// them at start unless MMP_NATIVE_KERNELS is set (not "0") or the CPU lacks AVX2 or FMA.
struct KernelPin {
  const char* variable;
  const char* value;
};
inline constexpr KernelPin kNetworkKernelPins[] = {{"OPENBLAS_CORETYPE", "Haswell"}, {"ONEDNN_MAX_CPU_ISA", "AVX2"}};

}  // namespace mmp

/// The module's one exported function: its table (defined in libmmp_torch.so only).
extern "C" __attribute__((visibility("default"))) const mmp::NetworkTorchModule* mmp_network_torch_module();
