// mmp._mmp._bench: the library calls the module wraps, timed in C++ on the same data in the same process,
// for tools/python/bench_overhead.py to measure what the Python layer adds.  Each function runs the call
// as a C++ program would write it and returns the wall seconds of each repeat.
#include "bindings.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <pybind11/stl.h>

#include <chrono>
#include <vector>

namespace mmp::python {

void bindBench(py::module_& m) {
  py::module_ bench = m.def_submodule("_bench", "C++ timings of the calls the module wraps (tools/python/bench_overhead.py)");
  bench.def("costs_seconds", [](const CostModel& model, const py::array& bgr, int repeats) {
    const cv::Mat image = bgrImage(bgr, "bgr", "image");  // a view: the C++ caller's cv::Mat
    std::vector<double> seconds;
    py::gil_scoped_release release;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const CostGrid grid = model.costs(image);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
  }, py::arg("model"), py::arg("bgr"), py::arg("repeats"), "seconds of each model.costs(cv::Mat) on a BGR image");
  bench.def("plan_seconds", [](const CostGrid& grid, int start, int goal, int repeats) {
    std::vector<double> seconds;
    py::gil_scoped_release release;
    for (int r = 0; r < repeats; ++r) {
      const auto begin = std::chrono::steady_clock::now();
      GridPlanner planner(grid.rows, grid.cols);
      const PlanResult plan = planner.plan(grid.costs, start, goal);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
      if (plan.status != PlanStatus::Success) throw InvalidArgument("plan_seconds: " + plan.message);
    }
    return seconds;
  }, py::arg("grid"), py::arg("start"), py::arg("goal"), py::arg("repeats"),
        "seconds of each GridPlanner(rows, cols).plan(grid.costs, start, goal), cells r * cols + c");
}

}  // namespace mmp::python
