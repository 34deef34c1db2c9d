// Many processes for `mmp costmap` and `mmp train` (docs/mpi.md): the region cost map (a --raw
// folder: tiles and a VRT, computed window by window, over MPI's processes when mmp is built with
// MMP_WITH_MPI and started by mpirun or srun) and data-parallel batch training.  The commands call
// these few functions; everything MPI is here and in mmp::core_mpi.
#pragma once

#include <mmp/core/process_group.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/region_costmap.hpp>

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace mmp::tools {

/// The region options of `mmp costmap` (with --raw DIR/).
struct RegionOptions {
  int window_cells = RegionSettings().window_cells;
};
void addRegionOptions(CLI::App* cmd, RegionOptions& options);

/// Whether --raw names a folder (ends with '/' or is one): the region cost map.
bool isRegionOutput(const std::string& raw);

/// What runRegionCostmap needs of `mmp costmap`'s options.
struct RegionRequest {
  std::string model, image, folder;
  FrameSettings frame;
  TileSettings tiles;
  RegionOptions region;
  bool png = false, nav2 = false;  ///< asked for too: refused, with the map's size
};
/// `mmp costmap --raw DIR/`: on every process of the job (one without MPI).  Environment
/// MMP_REGION_STOP_AFTER=N: each process kills itself (SIGKILL) after computing N windows, a
/// rehearsal of a job the scheduler ends (the rerun resumes).
void runRegionCostmap(const RegionRequest& request);

/// For `mmp train`: the processes of the job when it was started by mpirun or srun with more than
/// one (MPI's, for the batch learner; a refusal naming the learner otherwise, and when mmp is built
/// without MPI); null for one process.  Processes other than the first print nothing.
std::shared_ptr<ProcessGroup> trainingProcesses(const std::string& learner, bool batch);
/// The output folder of a training process: `wanted` for the first, for the others a private
/// temporary folder (removed when the program ends), so that one process writes the outputs.
std::string trainingOutputDir(const std::string& wanted);
/// Threads for each process of the job on this machine: its cores over the job's processes on it.
int jobThreads();

}  // namespace mmp::tools
