#include "processes.hpp"
#include "progress.hpp"

#include <mmp/core/error.hpp>
#ifdef MMP_WITH_MPI
#include <mmp/core/mpi_processes.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <unistd.h>

namespace mmp::tools {
namespace {

// How many processes mpirun or srun started (they say so in the environment); 0 when none did.
int launchedProcesses() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') return std::max(1, std::atoi(value));
  }
  return 0;
}

// The refusal of a job of many processes by an mmp built without MPI.
[[maybe_unused]] InvalidArgument withoutMpi(int processes, const std::string& what) {
  return InvalidArgument("this mmp is built without MPI (MMP_WITH_MPI=OFF, or CMake found no MPI), but it was started "
                         "as " + std::to_string(processes) + " processes (mpirun or srun): each would " + what +
                         " alone; rebuild with -DMMP_WITH_MPI=ON (Debian: libopenmpi-dev openmpi-bin), or run one process");
}

#ifdef MMP_WITH_MPI
// MPI, started once for the program's life (ended when it exits).
MpiProcessGroup& mpiProcesses() {
  static MpiSession session;
  static MpiProcessGroup processes;
  return processes;
}
#endif

// The processes of this job: MPI's if a launcher started it (MPI build), else this one alone.
ProcessGroup& jobProcesses(const std::string& what) {
  static SingleProcess alone;
  const int launched = launchedProcesses();
  if (launched == 0) return alone;
#ifdef MMP_WITH_MPI
  (void)what;
  return mpiProcesses();
#else
  if (launched > 1) throw withoutMpi(launched, what);
  return alone;
#endif
}

bool first_process = true;

// The job's other processes print nothing on standard output: the first speaks for all.
void quietUnlessFirst(const ProcessGroup& processes) {
  first_process = processes.rank() == 0;
  if (!first_process && std::freopen("/dev/null", "w", stdout) == nullptr) {
    throw Error("cannot silence standard output of process " + std::to_string(processes.rank()));
  }
}

// Threads per process: the machine's cores shared among the job's processes on it.
int threadsPerProcess(const ProcessGroup& processes) {
  int local = 1;
#ifdef MMP_WITH_MPI
  if (processes.size() > 1) local = static_cast<const MpiProcessGroup&>(processes).localSize();
#else
  (void)processes;
#endif
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / std::max(1, local));
}

[[noreturn]] void endJob(const ProcessGroup& processes, const std::string& message) {
  std::fprintf(stderr, "mmp: error: process %d of %d: %s\n", processes.rank(), processes.size(), message.c_str());
  std::fflush(stderr);
#ifdef MMP_WITH_MPI
  if (processes.size() > 1) MpiSession::abortJob(1);
#endif
  std::exit(1);
}

}  // namespace

void addRegionOptions(CLI::App* cmd, RegionOptions& options) {
  cmd->add_option("--window-cells", options.window_cells,
                  "with --raw DIR/ (a region): cells per window side, a multiple of --tile-cells; each process "
                  "computes whole windows, one tile file each")
      ->check(CLI::Range(1, TileSettings::kMaxTileCells))
      ->capture_default_str();
}

bool isRegionOutput(const std::string& raw) {
  std::error_code ec;
  return !raw.empty() && (raw.back() == '/' || std::filesystem::is_directory(raw, ec));
}

void runRegionCostmap(const RegionRequest& request) {
  ProcessGroup& processes = jobProcesses("compute the whole cost map");
  quietUnlessFirst(processes);
  try {
    RegionSettings settings;
    settings.tiles = request.tiles;
    settings.window_cells = request.region.window_cells;
    if (settings.tiles.threads == 0) settings.tiles.threads = threadsPerProcess(processes);
    const RegionCostMap region(request.model, request.image, request.folder, settings, request.frame);
    if (request.png || request.nav2) {
      const double cells = static_cast<double>(region.cellRows()) * region.cellCols();
      char size[96];
      std::snprintf(size, sizeof size, "%.3g million cells, %.3g MiB as Nav2's 8-bit PGM", cells / 1e6, cells / (1 << 20));
      throw InvalidArgument(
          std::string(request.nav2 ? "--nav2" : "--png") + " with --raw DIR/ (a region): the region's map is " +
          std::to_string(region.cellCols()) + " x " + std::to_string(region.cellRows()) + " cells (" + size +
          ", which map_server holds whole, the lethal rules and a picture over all of it); cut the imagery of the area "
          "a robot drives (gdal_translate -projwin ULX ULY LRX LRY '" + request.image + "' part.tif) and run mmp "
          "costmap --nav2 on that, or use the region's costs (" + region.vrtPath() + ") in a GIS");
    }
    int stop_after = -1, computed_here = 0;
    if (const char* stop = std::getenv("MMP_REGION_STOP_AFTER"); stop != nullptr && *stop != '\0') stop_after = std::atoi(stop);
    const ExampleShare share = exampleShare(static_cast<std::size_t>(region.windows()), processes.rank(), processes.size());
    const int mine = static_cast<int>(share.end - share.begin);
    if (processes.rank() == 0) {
      std::printf("region: %d x %d cells of %d px, %d windows of %d cells a side on %d process(es), %d thread(s) each\n",
                  region.cellCols(), region.cellRows(), region.model().features().settings().cell_size, region.windows(),
                  settings.window_cells, processes.size(), settings.tiles.threads);
      std::fflush(stdout);
    }
    Progress progress("region cost map");
    int done = 0;
    RegionRun run;
    try {
      run = computeRegion(region, processes, [&](const RegionWindow&, bool computed) {
        if (processes.rank() == 0) progress.update(++done, mine, "this process's windows");
        if (computed && ++computed_here == stop_after) {
          std::fflush(stdout);
          std::raise(SIGKILL);  // MMP_REGION_STOP_AFTER: as a scheduler ends a job
        }
      });
    } catch (const RegionWindowError& e) {
      endJob(processes, std::string(e.what()) + "; ending the job (complete tiles are kept: run it again to resume)");
    }
    progress.finish();
    if (processes.rank() != 0) return;
    region.writeVrt();
    std::printf("windows: %d computed now, %d complete before (kept)\n", run.computed, run.skipped);
    if (run.computed > 0 && run.lowest <= run.highest) {
      std::printf("costs in [%.4g, %.4g] over the windows computed now\n", run.lowest, run.highest);
    }
    if (run.unknown > 0) {
      std::printf("%lld cells computed now hold pixels without data in the image: +inf (nodata), impassable\n", run.unknown);
    }
    std::printf("wrote %s over %s/tiles/ (%d tiled, DEFLATE-compressed 32-bit float GeoTIFFs, +inf nodata)\n",
                region.vrtPath().c_str(), region.folder().c_str(), region.windows());
  } catch (const std::exception&) {
    // Every process meets the same refusal (the settings, the folder): the first says it.
    if (processes.rank() != 0) std::exit(1);
    throw;
  }
}

std::shared_ptr<ProcessGroup> trainingProcesses(const std::string& learner, bool batch) {
  const int launched = launchedProcesses();
  if (launched <= 1) return nullptr;
#ifdef MMP_WITH_MPI
  if (!batch) {
    throw InvalidArgument("started as " + std::to_string(launched) + " processes (mpirun or srun), but the learner '" +
                          learner + "' trains in one process (the online learner's steps are sequential, each on the "
                          "weights of the one before); data-parallel training is the batch learner's: "
                          "--set learner.kind=batch, or run one process");
  }
  MpiProcessGroup& processes = mpiProcesses();
  quietUnlessFirst(processes);
  return std::shared_ptr<ProcessGroup>(&processes, [](ProcessGroup*) {});  // lives as long as the program
#else
  (void)learner;
  (void)batch;
  throw withoutMpi(launched, "train the whole model");
#endif
}


std::string trainingOutputDir(const std::string& wanted) {
  if (first_process) return wanted;
  struct Removed {  // the follower's copy of the outputs, gone when the program ends
    std::string path;
    ~Removed() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
  };
  static Removed folder;
  folder.path = (std::filesystem::temp_directory_path() / ("mmp-train-process-" + std::to_string(::getpid()))).string();
  return folder.path;
}

int jobThreads() { return threadsPerProcess(jobProcesses("train")); }

}  // namespace mmp::tools
