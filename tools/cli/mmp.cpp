// `mmp`: the command line of the mmp library, as a launcher.  The commands live in libmmp_cli.so
// (command_line.cpp and the *_command.cpp files), which links GDAL, OpenCV, OMPL and what they pull in
// (about 100 shared libraries); this program links none of them, so that it can answer `--version` at
// once and, before anything is loaded, check that the process may map what the commands need: under an
// address-space limit (ulimit -v, as batch schedulers set) too tight for them, OpenBLAS (which GDAL
// brings) would otherwise spin forever in its start-up allocation, or the dynamic loader fail before
// any `main` could say why.  libmmp_cli.so is found at the same place relative to this program in the
// build tree and in an install: <bin>/../<libdir>/mmp (MMP_CLI_DIRS).
#include <cerrno>
#include <cstdio>
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
  // The folder relative to this program, as installed and as built (the same with the default bin/).
  std::string tried;
  for (const char* relative : {MMP_CLI_INSTALL_DIR, MMP_CLI_BUILD_DIR}) {
    const std::string path = exeFolder() + "/" + relative + "/libmmp_cli.so";
    if (tried.find(path) != std::string::npos) continue;
    if (access(path.c_str(), R_OK) != 0) {
      tried += "\n  " + path + ": " + std::strerror(errno);
      continue;
    }
    void* cli = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (cli == nullptr) {
      const char* why = dlerror();
      return fail("cannot load " + path + ": " + (why != nullptr ? why : "dlopen failed") +
                  (limit.empty() ? "" : " (the process is limited to " + limit + " of address space, ulimit -v: raise it)"));
    }
    using Version = const char* (*)();
    using Main = int (*)(int, char**);
    const auto version = reinterpret_cast<Version>(dlsym(cli, "mmp_cli_version"));
    const auto cli_main = reinterpret_cast<Main>(dlsym(cli, "mmp_cli_main"));
    if (version == nullptr || cli_main == nullptr) return fail(path + " is not mmp's command library (reinstall mmp)");
    if (std::strcmp(version(), MMP_VERSION) != 0) {
      return fail(path + " is mmp " + version() + ", this program mmp " + MMP_VERSION + ": reinstall mmp");
    }
    return cli_main(argc, argv);
  }
  return fail("cannot find mmp's command library, libmmp_cli.so; looked at:" + tried + "\n(reinstall mmp)");
}
