// bench_mpi: mmp on many processes (docs/mpi.md).  Builds a mosaic VRT of the shared Dubai parts,
// repeated (in a temporary folder, with GDAL's VRT API; nothing is copied), and runs
//   1) `mpirun -np R mmp costmap --model M --image mosaic.vrt --raw DIR/` at R = 1 and 2: wall time,
//      throughput per process, the peak memory of the largest process (wait4 of mpirun: the most any
//      process of the job held), windows;
//   2) `mpirun -np R mmp train configs/demo.yaml` with the batch learner at R = 1 and 2: seconds per
//      iteration as mmp train reports them;
//   3) `mpirun -np 2 bench_mpi --allreduce-worker D`: the time of one MpiProcessGroup::sum of D doubles
//      (the batch learner's one collective an iteration);
// and projects both to 100 nodes from those measured costs.  Prints a table and, last, one JSON line.
//   bench_mpi [--mpx 1000] [--compute-mpx 1000] [--window-cells 256] [--data DIR] [--model FILE] [--keep]
// --compute-mpx (default: all of --mpx; 64 for a quick run): when below --mpx, the cost maps are computed on a mosaic of that size (the same parts
// and windows) and the --mpx mosaic's time is the calculation windows x seconds per window, said so.
#include <mmp/core/mpi_processes.hpp>

#include <CLI/CLI.hpp>
#include <gdal.h>
#include <nlohmann/json.hpp>
#include <ogr_srs_api.h>
#include <gdal_vrt.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Run {
  double seconds = 0.0;
  long peak_kib = 0;  // the largest process of the job
  double cpu = 0.0;   // user + system seconds of every process of the job
  std::string output;
  int status = 0;
};

// Runs argv (mpirun ...) with its output captured in a file; wait4 gives the job's largest resident set.
Run runJob(const std::vector<std::string>& args, const std::string& log) {
  Run run;
  std::fflush(stdout);  // else the child's copy of the buffer is printed again
  const double start = now();
  const pid_t child = fork();
  if (child == 0) {
    std::FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr || dup2(fileno(stdout), 2) < 0) _exit(127);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(child, &status, 0, &usage);
  run.seconds = now() - start;
  run.peak_kib = usage.ru_maxrss;
  run.cpu = usage.ru_utime.tv_sec + 1e-6 * usage.ru_utime.tv_usec + usage.ru_stime.tv_sec + 1e-6 * usage.ru_stime.tv_usec;
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  run.output = text.str();
  if (run.status != 0) {
    std::fprintf(stderr, "bench_mpi: '%s ...' failed (%d):\n%s\n", args[0].c_str(), run.status, run.output.c_str());
    std::exit(1);
  }
  return run;
}

// A mosaic of about `mpx` megapixels: the Dubai parts (each cut to the smallest part's size) on a
// square grid, repeated in order, georeferenced at 0.5 m in EPSG:32640.  Returns its pixel size.
std::pair<int, int> buildMosaic(const std::vector<std::string>& parts, double mpx, const std::string& vrt_path) {
  std::vector<GDALDatasetH> sources;
  int w = 1 << 30, h = 1 << 30;
  for (const std::string& p : parts) {
    GDALDatasetH d = GDALOpenShared(p.c_str(), GA_ReadOnly);
    if (d == nullptr) {
      std::fprintf(stderr, "bench_mpi: cannot open '%s'\n", p.c_str());
      std::exit(1);
    }
    sources.push_back(d);
    w = std::min(w, GDALGetRasterXSize(d));
    h = std::min(h, GDALGetRasterYSize(d));
  }
  const int side = static_cast<int>(std::ceil(std::sqrt(mpx * 1e6 / (static_cast<double>(w) * h))));
  const int cols = side * w, rows = side * h;
  GDALDatasetH vrt = GDALCreate(GDALGetDriverByName("VRT"), vrt_path.c_str(), cols, rows, 0, GDT_Byte, nullptr);
  for (int b = 1; b <= 3; ++b) {
    GDALAddBand(vrt, GDT_Byte, nullptr);
    GDALSetRasterColorInterpretation(GDALGetRasterBand(vrt, b), static_cast<GDALColorInterp>(GCI_RedBand + b - 1));
  }
  double gt[6] = {300000.0, 0.5, 0.0, 2800000.0, 0.0, -0.5};
  GDALSetGeoTransform(vrt, gt);
  OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
  OSRImportFromEPSG(srs, 32640);
  GDALSetSpatialRef(vrt, srs);
  OSRDestroySpatialReference(srs);
  for (int slot = 0; slot < side * side; ++slot) {
    GDALDatasetH src = sources[static_cast<std::size_t>(slot) % sources.size()];
    for (int b = 1; b <= 3; ++b) {
      VRTAddSimpleSource(GDALGetRasterBand(vrt, b), GDALGetRasterBand(src, b), 0, 0, w, h, (slot % side) * w,
                         (slot / side) * h, w, h, nullptr, VRT_NODATA_UNSET);
    }
  }
  GDALClose(vrt);
  for (GDALDatasetH d : sources) GDALClose(d);
  return {cols, rows};
}

double firstNumber(const std::string& text, const std::string& pattern, const std::string& what) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) {
    std::fprintf(stderr, "bench_mpi: no %s in:\n%s\n", what.c_str(), text.c_str());
    std::exit(1);
  }
  return std::stod(m[1]);
}

// Under mpirun: the mean seconds of one MpiProcessGroup::sum of `count` doubles (after a warm-up).
int allreduceWorker(int count, int repeats) {
  mmp::MpiSession mpi;
  mmp::MpiProcessGroup processes;
  std::vector<double> values(static_cast<std::size_t>(count), 1.0);
  for (int i = 0; i < 20; ++i) processes.sum(values.data(), values.size());
  const double start = now();
  for (int i = 0; i < repeats; ++i) processes.sum(values.data(), values.size());
  const double each = (now() - start) / repeats;
  if (processes.rank() == 0) std::printf("allreduce_seconds %.9g\n", each);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_mpi: region cost maps and batch training on 1 and 2 MPI processes, projected to 100 nodes"};
  double mpx = 1000.0, compute_mpx = 1000.0;
  std::string source_dir = MMP_SOURCE_DIR;
  std::string data = source_dir + "/../shared/data/aerial/dubai_hitl/images";
  std::string model = source_dir + "/models/hide_in_vegetation.mmp";
  std::string mmp = MMP_EXECUTABLE, mpirun = "mpirun";
  int window_cells = 256, allreduce_worker = 0, train_iterations = 30, dimension = 0;
  int gdal_cache_mb = 64;
  bool keep = false;
  app.add_option("--mpx", mpx, "mosaic size, megapixels (the figure projected)")->capture_default_str();
  app.add_option("--compute-mpx", compute_mpx, "mosaic size computed on this machine, megapixels (<= --mpx)")->capture_default_str();
  app.add_option("--data", data, "the Dubai parts (*.jpg)")->capture_default_str();
  app.add_option("--model", model, "cost model")->capture_default_str();
  app.add_option("--window-cells", window_cells, "mmp costmap --window-cells")->capture_default_str();
  app.add_option("--train-iterations", train_iterations, "batch iterations of the training runs")->capture_default_str();
  app.add_option("--allreduce-worker", allreduce_worker, "(internal) time sums of this many doubles under mpirun");
  app.add_option("--gdal-cache-mb", gdal_cache_mb, "GDAL_CACHEMAX of the cost-map processes (MB): part of their memory")
      ->capture_default_str();
  app.add_flag("--keep", keep, "keep the temporary folder (mosaics, tiles)");
  CLI11_PARSE(app, argc, argv);
  if (allreduce_worker > 0) return allreduceWorker(allreduce_worker, 2000);
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);

  std::vector<std::string> parts;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(data, ec)) {
    if (e.path().extension() == ".jpg") parts.push_back(e.path().string());
  }
  std::sort(parts.begin(), parts.end());
  if (parts.empty()) {
    std::fprintf(stderr, "bench_mpi: no Dubai parts (*.jpg) in '%s' (the shared data): nothing to measure\n", data.c_str());
    return 1;
  }
  GDALAllRegister();
  const fs::path tmp = fs::temp_directory_path() / ("bench_mpi_" + std::to_string(getpid()));
  fs::create_directories(tmp);
  const auto [full_cols, full_rows] = buildMosaic(parts, mpx, (tmp / "mosaic.vrt").string());
  compute_mpx = std::min(compute_mpx, mpx);
  const auto [cols, rows] = buildMosaic(parts, compute_mpx, (tmp / "computed.vrt").string());
  const auto [small_cols, small_rows] = buildMosaic(parts, compute_mpx / 16.0, (tmp / "small.vrt").string());
  std::printf("bench_mpi: mosaic of %zu Dubai parts, repeated: %d x %d px (%.0f Mpx); computed here: %d x %d px (%.1f Mpx)\n",
              parts.size(), full_cols, full_rows, full_cols * 1e-6 * full_rows, cols, rows, cols * 1e-6 * rows);
  std::fflush(stdout);

  // 1) cost maps at 1 and 2 processes, one thread each (2 cores)
  nlohmann::json json;
  json["bench"] = "bench_mpi";
  json["mosaic_px"] = {full_cols, full_rows};
  json["computed_px"] = {cols, rows};
  std::printf("\n%-10s %8s %9s %9s %10s %14s %13s %14s\n", "costmap", "windows", "seconds", "CPU s", "Mpx/s",
              "Mpx/s/process", "CPU s/window", "peak MiB/proc");
  double window_seconds = 0.0;  // CPU seconds per window, at 1 process
  int windows = 0;
  for (int ranks : {1, 2}) {
    const std::string out = (tmp / ("region_" + std::to_string(ranks) + "/")).string();
    const Run run = runJob({mpirun, "-np", std::to_string(ranks), "--oversubscribe", "-x", "GDAL_CACHEMAX=" + std::to_string(gdal_cache_mb),
                            mmp, "costmap", "--model", model, "--image", (tmp / "computed.vrt").string(), "--raw", out, "--threads", "1", "--window-cells",
                            std::to_string(window_cells)},
                           (tmp / ("costmap_" + std::to_string(ranks) + ".log")).string());
    windows = static_cast<int>(firstNumber(run.output, "cells of [0-9]+ px, ([0-9]+) windows", "window count"));
    const double rate = cols * 1e-6 * rows / run.seconds;
    // CPU time, not wall time x processes: on a machine shared with other work the wall time measures the others too
    const double per_window = run.cpu / windows;
    if (ranks == 1) window_seconds = per_window;
    std::printf("%-10s %8d %9.1f %9.1f %10.2f %14.2f %13.4f %14.0f\n", (std::to_string(ranks) + " proc").c_str(), windows,
                run.seconds, run.cpu, rate, rate / ranks, per_window, run.peak_kib / 1024.0);
    json["costmap"][std::to_string(ranks)] = {{"seconds", run.seconds}, {"mpx_per_s", rate}, {"mpx_per_s_per_process", rate / ranks},
                                              {"cpu_seconds", run.cpu}, {"cpu_seconds_per_window", per_window}, {"peak_mib_largest_process", run.peak_kib / 1024.0},
                                              {"windows", windows}};
    if (ranks == 2) {  // the two outputs agree value for value (tiles byte for byte)
      const std::string one = (tmp / "region_1").string(), two = (tmp / "region_2").string();
      bool same = true;
      for (const fs::directory_entry& e : fs::directory_iterator(one + "/tiles")) {
        std::ifstream a(e.path(), std::ios::binary), b(two + "/tiles/" + e.path().filename().string(), std::ios::binary);
        same = same && std::equal(std::istreambuf_iterator<char>(a), {}, std::istreambuf_iterator<char>(b));
      }
      std::printf("           tiles of 1 and 2 processes byte for byte equal: %s\n", same ? "yes" : "NO");
      json["costmap"]["tiles_equal"] = same;
    }
    std::fflush(stdout);
  }
  // The memory of a process does not grow with the raster: one process on a mosaic 1/16 the size.
  {
    const Run small = runJob({mpirun, "-np", "1", "-x", "GDAL_CACHEMAX=" + std::to_string(gdal_cache_mb), mmp, "costmap", "--model",
                              model, "--image", (tmp / "small.vrt").string(), "--raw", (tmp / "region_small/").string(), "--threads",
                              "1", "--window-cells", std::to_string(window_cells)},
                             (tmp / "costmap_small.log").string());
    std::printf("%-10s %8s %9.1f %9.1f %10.2f %14s %13s %14.0f   (a mosaic of %.1f Mpx)\n", "1 proc", "", small.seconds,
                small.cpu, small_cols * 1e-6 * small_rows / small.seconds, "", "", small.peak_kib / 1024.0, small_cols * 1e-6 * small_rows);
    json["costmap"]["small"] = {{"px", {small_cols, small_rows}}, {"seconds", small.seconds}, {"peak_mib_largest_process", small.peak_kib / 1024.0}};
    json["gdal_cache_mb"] = gdal_cache_mb;
  }
  const int k = 4;  // the shipped models' cell size (px)
  const double full_windows = std::ceil(full_cols / k / static_cast<double>(window_cells)) *
                              std::ceil(full_rows / k / static_cast<double>(window_cells));

  // 2) batch training at 1 and 2 processes (mmp train, the demo config, the batch learner)
  std::printf("\n%-10s %10s %12s %14s\n", "train", "iterations", "s/iteration", "wall seconds");
  double iteration_seconds = 0.0;
  for (int ranks : {1, 2}) {
    const Run run = runJob({mpirun, "-np", std::to_string(ranks), "--oversubscribe", mmp, "train", source_dir + "/configs/demo.yaml",
                            "--set", "learner.kind=batch", "--set", "learner.costs=linear", "--set",
                            "learner.batch.iterations=" + std::to_string(train_iterations), "--set", "demonstrations.per_region=40",
                            "--set", "evaluation.pairs=5", "--threads", "1", "--output-dir", (tmp / ("train_" + std::to_string(ranks))).string()},
                           (tmp / ("train_" + std::to_string(ranks) + ".log")).string());
    const double each = firstNumber(run.output, "iterations in [0-9.]+ s \\(([0-9.]+) s each\\)", "seconds per iteration");
    if (ranks == 1) {
      iteration_seconds = each;
      dimension = static_cast<int>(firstNumber(run.output, "([0-9]+) features per cell", "feature count"));
    }
    std::printf("%-10s %10d %12.4f %14.1f\n", (std::to_string(ranks) + " proc").c_str(), train_iterations, each, run.seconds);
    json["train"][std::to_string(ranks)] = {{"seconds_per_iteration", each}, {"wall_seconds", run.seconds}};
  }
  // 3) one sum of the subgradient (d doubles + 4) on 2 processes
  const Run reduce = runJob({mpirun, "-np", "2", "--oversubscribe", argv[0], "--allreduce-worker", std::to_string(dimension + 4)},
                            (tmp / "allreduce.log").string());
  const double allreduce = firstNumber(reduce.output, "allreduce_seconds ([0-9.eE+-]+)", "allreduce time");
  std::printf("allreduce of %d doubles on 2 processes: %.1f us\n", dimension + 4, allreduce * 1e6);
  json["allreduce"] = {{"doubles", dimension + 4}, {"seconds", allreduce}};

  // 4) projections: 100 nodes of 2 processes (one per core, as here)
  const int nodes = 100, per_node = 2, processes = nodes * per_node;
  const double full_one = full_windows * window_seconds;
  const double full_cluster = std::ceil(full_windows / processes) * window_seconds;
  std::printf("\nprojection (a calculation from the figures above, not a measurement):\n");
  std::printf("  %.0f Mpx mosaic = %.0f windows of %d cells; at %.4f CPU s per window (1 process):\n", full_cols * 1e-6 * full_rows,
              full_windows, window_cells, window_seconds);
  std::printf("    1 process: %.0f s; 2 processes: %.0f s; %d nodes x %d processes: ceil(%.0f / %d) x %.4f = %.1f s\n", full_one,
              std::ceil(full_windows / 2) * window_seconds, nodes, per_node, full_windows, processes, window_seconds, full_cluster);
  // Training: the oracle work of one iteration spreads over the processes; the sum costs ~log2(P) latencies.
  const double oracle = iteration_seconds;
  const double cluster_iteration = oracle / processes + std::ceil(std::log2(processes)) * allreduce;
  std::printf("  training: %.4f s per iteration on 1 process -> %d processes: %.4f / %d + ceil(log2 %d) x %.1f us = %.5f s "
              "(an allreduce latency per tree level; between nodes the latency is the network's, not this machine's)\n",
              oracle, processes, oracle, processes, processes, allreduce * 1e6, cluster_iteration);
  json["projection"] = {{"nodes", nodes}, {"processes_per_node", per_node}, {"full_windows", full_windows},
                        {"costmap_seconds_1_process", full_one}, {"costmap_seconds_cluster", full_cluster},
                        {"training_seconds_per_iteration_cluster", cluster_iteration}};
  if (!keep) fs::remove_all(tmp, ec);
  else std::printf("kept %s\n", tmp.c_str());
  std::printf("%s\n", json.dump().c_str());
  return 0;
}
