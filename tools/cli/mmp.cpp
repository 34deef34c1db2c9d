// `mmp`: the command line of the mmp library, as a launcher.  The commands live in libmmp_cli.so
// (command_line.cpp and the *_command.cpp files), which links GDAL, OpenCV, OMPL and what they pull in
// (about 100 shared libraries); this program links none of them, so that it can answer `--version` at
// once and, before anything is loaded, check that the process may map what the commands need: under an
// address-space limit (ulimit -v, as batch schedulers set) too tight for them, OpenBLAS (which GDAL
// brings) would otherwise spin forever in its start-up allocation, or the dynamic loader fail before
// any `main` could say why.  libmmp_cli.so is found at the same place relative to this program in the
// build tree and in an install: <bin>/../<libdir>/mmp (MMP_CLI_DIRS).
//
// It is also the command line's one runtime seam (network_backend.hpp): before it loads the commands
// it pins libtorch's kernels (OpenBLAS reads its pin when it loads, and the commands' libraries load
// it), and it hands them the loader of libtorch's module, libmmp_torch.so, which sits beside
// libmmp_cli.so; the module is loaded only when a network is trained.
#include "network_module.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <dlfcn.h>
#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

/// Address space libmmp_cli.so's libraries take when they load, with a margin: measured on 2 cores,
/// `mmp info` on a shipped model ran under `ulimit -v` 530 MiB (with OPENBLAS_NUM_THREADS 1, 8 or 32
/// alike), aborted on std::bad_alloc in a library's start-up at 510 and hung in OpenBLAS's start-up
/// allocation (a 128 MiB buffer it retries forever) from 300 to 490.  A command's own work needs more,
/// and says "out of memory" when it cannot get it.
constexpr unsigned long long kLoadMiB = 600;

int fail(const std::string& message) {
  std::fprintf(stderr, "mmp: error: %s\n", message.c_str());
  return 1;
}

std::string exeFolder() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  const std::string exe(path, static_cast<std::size_t>(n));
  const std::size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "." : exe.substr(0, slash);
}

/// "under a limit of 300 MiB (ulimit -v)", or "" without a limit.
std::string addressSpaceLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "";
  return std::to_string(limit.rlim_cur / (1024 * 1024)) + " MiB";
}

std::string module_folder;  // where libmmp_cli.so, and so libmmp_torch.so, was found

const mmp::NetworkTorchModule* loadTorch(std::string& why) { return mmp::tools::loadTorchModule(module_folder, why); }

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("mmp %s\n", MMP_VERSION);
    return std::fflush(stdout) == 0 ? 0 : fail(std::string("writing to standard output failed: ") + std::strerror(errno));
  }
  const std::string limit = addressSpaceLimit();
  rlimit current{};
  if (!limit.empty() && getrlimit(RLIMIT_AS, &current) == 0 && current.rlim_cur / (1024 * 1024) < kLoadMiB) {
    return fail("mmp needs more memory: its libraries need about " + std::to_string(kLoadMiB) +
                " MiB of address space to load, and this process is limited to " + limit +
                " (ulimit -v): raise the limit to " + std::to_string(kLoadMiB) + " MiB or more");
  }
  mmp::tools::pinNetworkKernels();
  // The folder relative to this program, as installed and as built (the same with the default bin/).
  std::string tried;
  for (const char* relative : {MMP_CLI_INSTALL_DIR, MMP_CLI_BUILD_DIR}) {
    module_folder = exeFolder() + "/" + relative;
    const std::string path = module_folder + "/libmmp_cli.so";
    if (tried.find(path) != std::string::npos) continue;
    if (access(path.c_str(), R_OK) != 0) {
      tried += "\n  " + path + ": " + std::strerror(errno);
      continue;
    }
    char resolved[PATH_MAX];  // /usr/lib/mmp, not /usr/bin/../lib/mmp, in what the commands say
    if (realpath(module_folder.c_str(), resolved) != nullptr) module_folder = resolved;
    void* cli = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (cli == nullptr) {
      const char* why = dlerror();
      return fail("cannot load " + path + ": " + (why != nullptr ? why : "dlopen failed") +
                  (limit.empty() ? "" : " (the process is limited to " + limit + " of address space, ulimit -v: raise it)"));
    }
    using Version = const char* (*)();
    using Main = int (*)(int, char**, const char*, const mmp::NetworkTorchModule* (*)(std::string&));
    const auto version = reinterpret_cast<Version>(dlsym(cli, "mmp_cli_version"));
    const auto cli_main = reinterpret_cast<Main>(dlsym(cli, "mmp_cli_main"));
    if (version == nullptr || cli_main == nullptr) return fail(path + " is not mmp's command library (reinstall mmp)");
    if (std::strcmp(version(), MMP_VERSION) != 0) {
      return fail(path + " is mmp " + version() + ", this program mmp " + MMP_VERSION + ": reinstall mmp");
    }
    return cli_main(argc, argv, exeFolder().c_str(), &loadTorch);
  }
  return fail("cannot find mmp's command library, libmmp_cli.so; looked at:" + tried + "\n(reinstall mmp)");
}
