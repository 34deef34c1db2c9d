#include "bindings.hpp"

#include <mmp/frontend/train_config.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace mmp::python {

namespace {

std::string shapeText(const py::array& a) {
  std::string out = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) out += (i == 0 ? "" : ", ") + std::to_string(a.shape(i));
  return out + (a.ndim() == 1 ? ",)" : ")");
}

// A Python value as YAML (dicts as maps, lists, tuples and 1-D arrays as sequences, bools, numbers,
// strings and paths; None as null) under the key path `path`; throws mmp::ConfigError naming the path for any other
// type (an image array in a settings dict).
YAML::Node yamlOf(const py::handle& value, const std::string& path) {
  const auto where = [&] { return path.empty() ? std::string("the settings") : path; };
  if (value.is_none()) return YAML::Node(YAML::NodeType::Null);
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, py::module_::import("numpy").attr("bool_"))) {
    return YAML::Node(value.cast<bool>() ? "true" : "false");
  }
  if (py::isinstance<py::str>(value)) return YAML::Node(value.cast<std::string>());
  if (py::hasattr(value, "__fspath__")) {  // a pathlib.Path
    return YAML::Node(py::str(py::module_::import("os").attr("fspath")(value)).cast<std::string>());
  }
  if (py::isinstance<py::dict>(value)) {
    YAML::Node map(YAML::NodeType::Map);
    for (const auto& [key, item] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key)) {
        throw ConfigError(where() + ": a key must be a string, got " + py::repr(key).cast<std::string>());
      }
      const std::string name = key.cast<std::string>();
      map[name] = yamlOf(item, path.empty() ? name : path + "." + name);
    }
    return map;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
      (py::isinstance<py::array>(value) && value.cast<py::array>().ndim() == 1)) {
    YAML::Node list(YAML::NodeType::Sequence);
    long i = 0;
    for (const py::handle item : value) list.push_back(yamlOf(item, path + "[" + std::to_string(i++) + "]"));
    return list;
  }
  if (py::isinstance<py::array>(value)) {
    throw ConfigError(where() + ": an array of " + std::to_string(value.cast<py::array>().ndim()) +
                      " dimensions; expected a number, string, bool, list or dict here");
  }
  // Numbers, Python's or NumPy's: integers as they are, others in the shortest text that reads back as
  // the same double (Python's repr).
  if (PyIndex_Check(value.ptr()) != 0) return YAML::Node(py::str(py::int_(py::reinterpret_borrow<py::object>(value))).cast<std::string>());
  if (PyFloat_Check(value.ptr()) != 0 || py::hasattr(value, "__float__")) {
    return YAML::Node(py::repr(py::float_(py::reinterpret_borrow<py::object>(value))).cast<std::string>());
  }
  throw ConfigError(where() + ": expected a number, string, bool, list or dict, got " +
                    py::str(value.get_type().attr("__name__")).cast<std::string>());
}

}  // namespace

void checkAxes(const py::array& a, const std::string& name) {
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (a.shape(i) > INT_MAX) {
      throw InvalidArgument(name + ": an array of shape " + shapeText(a) + ": an axis of more than " + std::to_string(INT_MAX) +
                            " entries is beyond any grid or data set mmp holds");
    }
  }
}

std::string conversionFailure(const py::handle& value, const std::string& name, const std::string& expected,
                              py::error_already_set& error, std::size_t element_bytes) {
  const std::string reason = error.what();
  if (error.matches(PyExc_MemoryError) && py::isinstance<py::array>(value)) {
    const auto a = py::reinterpret_borrow<py::array>(value);
    double bytes = static_cast<double>(element_bytes);
    for (py::ssize_t i = 0; i < a.ndim(); ++i) bytes *= static_cast<double>(a.shape(i));
    bool broadcast = false;
    for (py::ssize_t i = 0; i < a.ndim(); ++i) broadcast |= a.strides(i) == 0 && a.shape(i) > 1;
    return name + ": an array of shape " + shapeText(a) + " needs " + numberText(bytes) +
           " bytes as the contiguous copy mmp reads, more than can be allocated" +
           (broadcast ? " (a broadcast view: its stride-0 axes hold no memory until copied)" : "") + "; give a smaller array";
  }
  return name + ": " + expected + " (" + reason + ")";
}

tools::ConfigNode configNode(const py::handle& settings, const std::string& caller, const std::string& path) {
  if (!settings.is_none() && !py::isinstance<py::dict>(settings)) {
    throw ConfigError(caller + ": " + (path.empty() ? "the settings" : path) + ": expected a dict, got " +
                      py::str(settings.get_type().attr("__name__")).cast<std::string>());
  }
  try {
    return tools::ConfigNode(settings.is_none() ? YAML::Node(YAML::NodeType::Map) : yamlOf(settings, path), caller, path);
  } catch (const ConfigError& e) {
    throw ConfigError(caller + ": " + e.what());
  }
}


cv::Mat bgrImage(const py::array& array, const std::string& channels, const std::string& name) {
  if (channels != "rgb" && channels != "bgr") {
    throw InvalidArgument(name + ": channels '" + channels + "': expected 'rgb' or 'bgr'");
  }
  const bool grey = array.ndim() == 2;
  if (!array.dtype().is(py::dtype::of<std::uint8_t>()) || !(grey || (array.ndim() == 3 && array.shape(2) == 3)) ||
      array.size() == 0) {
    throw InvalidArgument(name + ": expected an H x W x 3 (or H x W grey) array of uint8, got shape " + shapeText(array) +
                          " of " + py::str(array.dtype()).cast<std::string>());
  }
  checkAxes(array, name);
  const int rows = static_cast<int>(array.shape(0)), cols = static_cast<int>(array.shape(1));
  const int pixel = grey ? 1 : 3;
  const bool packed = array.strides(1) == pixel && (grey || array.strides(2) == 1) && array.strides(0) >= cols * pixel;
  cv::Mat view;
  if (packed) {
    view = cv::Mat(rows, cols, grey ? CV_8UC1 : CV_8UC3, const_cast<void*>(array.data()), static_cast<std::size_t>(array.strides(0)));
  } else {  // a strided view (a crop with a step, a transposed array): one contiguous copy
    const auto dense = denseArray<std::uint8_t>(array, name, "expected an H x W x 3 (or H x W grey) array of uint8");
    view = cv::Mat(rows, cols, grey ? CV_8UC1 : CV_8UC3, const_cast<std::uint8_t*>(dense.data())).clone();
  }
  if (grey) {
    cv::Mat out;
    cv::cvtColor(view, out, cv::COLOR_GRAY2BGR);
    return out;
  }
  if (channels == "bgr") return view;
  cv::Mat out;
  cv::cvtColor(view, out, cv::COLOR_RGB2BGR);
  return out;
}

py::array imageArray(const cv::Mat& bgr, const std::string& channels) {
  if (channels != "rgb" && channels != "bgr") throw InvalidArgument("channels '" + channels + "': expected 'rgb' or 'bgr'");
  py::array_t<std::uint8_t> out({bgr.rows, bgr.cols, 3});
  cv::Mat target(bgr.rows, bgr.cols, CV_8UC3, out.mutable_data());
  if (channels == "rgb") {
    cv::cvtColor(bgr, target, cv::COLOR_BGR2RGB);
  } else {
    bgr.copyTo(target);
  }
  return out;
}

FrameSettings frameSettings(const py::object& resolution, const py::object& origin, const std::string& crs,
                            const std::string& caller) {
  py::dict keys;
  if (!resolution.is_none()) keys["resolution"] = resolution;
  if (!origin.is_none()) keys["origin"] = origin;
  if (!crs.empty()) keys["crs"] = crs;
  return tools::readFrame(configNode(keys, caller));
}

Interrupts::Interrupts(py::object progress) : state_(std::make_shared<State>()) {
  if (!progress.is_none() && !PyCallable_Check(progress.ptr())) {
    throw InvalidArgument("progress: expected a callable progress(stage, done, total, detail), got " +
                          py::str(progress.get_type().attr("__name__")).cast<std::string>());
  }
  state_->progress = std::move(progress);
}

void Interrupts::poll(const std::string& stage, long done, long total, const std::string& detail) const {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // KeyboardInterrupt, or a handler's exception
  State& s = *state_;
  if (s.progress.is_none()) return;
  const auto now = std::chrono::steady_clock::now();
  if (stage == s.last_stage && done != total && done != 0 && now - s.last_call < std::chrono::milliseconds(200)) return;
  s.last_stage = stage;
  s.last_call = now;
  s.progress(stage, done, total, detail);
}

}  // namespace mmp::python
