// The Python module `mmp` (pybind11): what the binding files share.  module.cpp makes the module and
// calls each bind* function; each binds one part of the library:
//   maps_bindings.cpp        CostModel, CostGrid, Frame, load_image, synthetic_scene, write_nav2
//   planning_bindings.cpp    plan (grid A* and OMPL's planners)
//   training_bindings.cpp    train, evaluate, setting_keys (the maps_training pipeline)
//   structured_bindings.cpp  the chain and multilabel models behind mmp.ChainSSVM / MultilabelSSVM
//   bench_bindings.cpp       the wrapped calls timed in C++, for tools/python/bench_overhead.py
// The module is a front end like the command line: settings arrive as Python dicts with the keys of
// the YAML configs and go through the same readers (configNode below), so a key is parsed and
// range-checked in one place.  Long calls release the GIL; their callbacks take it back to call
// Python and to honour Ctrl-C (Interrupts).
#pragma once

#include <mmp/frontend/config.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/world_frame.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/planning/cost_grid.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <opencv2/core.hpp>

#include <chrono>
#include <climits>
#include <memory>
#include <optional>
#include <string>

namespace mmp::python {

namespace py = pybind11;

void bindMaps(py::module_& m);
void bindPlanning(py::module_& m);
void bindTraining(py::module_& m);
void bindStructured(py::module_& m);
void bindBench(py::module_& m);

/// The dict `settings` (None: empty) as the ConfigNode of the key path `path` ("" at the top, "train[0]"
/// for an image entry), whose messages start with `caller` ("mmp.train: loss.scale: ...").  Dicts become
/// maps; lists, tuples and 1-D arrays sequences; bools, numbers and strings scalars (a float in the
/// shortest text that reads back as the same double); None null.  Throws mmp::ConfigError naming the key
/// path for any other value (an image array in a settings dict).
tools::ConfigNode configNode(const py::handle& settings, const std::string& caller, const std::string& path = "");

/// `value` converted by NumPy (np.asarray with dtype T, C order; copied only when it must be), or, when
/// that fails: mmp::InvalidArgument naming `name` -- "`name`: `expected`" with NumPy's reason for a
/// value that is no array of numbers, or the shape and bytes of a copy that cannot be made (a huge
/// broadcast view, whose stride-0 axes hold no memory until copied).  Also refuses an axis longer
/// than INT_MAX, which the library's sizes (int rows and cols) cannot hold.  Never returns a null
/// array (pybind11's array_t::ensure does, and reading one crashed the interpreter).
template <class T>
py::array_t<T, py::array::c_style | py::array::forcecast> denseArray(const py::handle& value, const std::string& name,
                                                                    const std::string& expected);
/// The error text of denseArray for the Python error just raised (and cleared) converting `value`.
std::string conversionFailure(const py::handle& value, const std::string& name, const std::string& expected,
                              py::error_already_set& error, std::size_t element_bytes);
/// Throws mmp::InvalidArgument if an axis of `a` is longer than INT_MAX.
void checkAxes(const py::array& a, const std::string& name);

template <class T>
py::array_t<T, py::array::c_style | py::array::forcecast> denseArray(const py::handle& value, const std::string& name,
                                                                    const std::string& expected) {
  using Dense = py::array_t<T, py::array::c_style | py::array::forcecast>;
  if (py::isinstance<py::array>(value)) checkAxes(py::reinterpret_borrow<py::array>(value), name);
  try {
    Dense dense(py::reinterpret_borrow<py::object>(value));  // throws error_already_set where ensure() returns null
    checkAxes(dense, name);
    return dense;
  } catch (py::error_already_set& e) {
    throw InvalidArgument(conversionFailure(value, name, expected, e, sizeof(T)));
  }
}

/// An image array (H x W x 3 uint8 in `channels` order "rgb" or "bgr", or H x W grey) as the 8-bit BGR
/// cv::Mat the library takes: a view of the array's memory when it is BGR with contiguous pixels, else a
/// converted copy.  The view lives as long as `array`.  Throws mmp::InvalidArgument naming `name`, the
/// shape and the dtype otherwise.
cv::Mat bgrImage(const py::array& array, const std::string& channels, const std::string& name);
/// A BGR cv::Mat as an H x W x 3 uint8 array in `channels` order.
py::array imageArray(const cv::Mat& bgr, const std::string& channels);
/// A frame for a plain image from the keyword arguments resolution, origin (x, y) and crs (None, None,
/// "": no frame), read as a config entry's keys are (tools::readFrame); messages start with `caller`.
FrameSettings frameSettings(const py::object& resolution, const py::object& origin, const std::string& crs,
                            const std::string& caller);

/// A CostGrid (shared, no copy) or a 2-D cost array (copied to a new grid), in `frame` when one is
/// given (its cells must match); throws mmp::InvalidArgument naming what does not fit.
std::shared_ptr<CostGrid> costGrid(const py::object& costs, const std::optional<WorldFrame>& frame);

/// Ctrl-C and the progress callback of a long call that has released the GIL.  Each poll() takes the
/// GIL, runs Python's pending signal handlers (KeyboardInterrupt stops the call by throwing it on as
/// py::error_already_set, which the module re-raises) and calls `progress` if one was given -- at the
/// start of each stage, at its end and otherwise at most every 0.2 s, so that a per-round learner
/// callback does not run Python code per round.  The progress object is shared through a shared_ptr:
/// copies of the callbacks made by the library never touch Python reference counts without the GIL.
/// Make it before releasing the GIL and let it die after taking it back.
class Interrupts {
 public:
  explicit Interrupts(py::object progress = py::none());
  /// Polls; arguments as the pipeline's StageCallback.
  void poll(const std::string& stage, long done, long total, const std::string& detail) const;

 private:
  struct State {
    py::object progress;
    std::string last_stage;
    std::chrono::steady_clock::time_point last_call{};
  };
  std::shared_ptr<State> state_;
};

}  // namespace mmp::python
