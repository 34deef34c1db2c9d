// The extension module mmp._mmp; the package mmp (tools/python/mmp/__init__.py) re-exports it and adds
// the scikit-learn face of the structured learners.
//
// mmp::Error's hierarchy becomes Python exceptions of the same names, each carrying the library's
// message: mmp.Error (a RuntimeError) <- InvalidArgument and ConfigError (also ValueError), DataError,
// NumericalError (also ArithmeticError), ModelFileError (also OSError), ValidationFailure.
#include "bindings.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/training/holdout_report.hpp>

namespace mmp::python {
namespace {

// The Python classes of the hierarchy, made once at import and kept for the life of the process (the
// translator below must be a plain function).
struct ErrorTypes {
  PyObject *error, *invalid, *data, *config, *numerical, *model_file, *validation;
};
ErrorTypes types{};

// A new exception class mmp.<name> with the given bases, added to the module.
PyObject* exceptionClass(py::module_& m, const char* name, const py::tuple& bases, const char* doc) {
  const std::string full = std::string("mmp.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases.ptr(), nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.attr(name) = py::handle(type);  // the module holds a reference, and `types` keeps its own
  return type;
}

void translate(std::exception_ptr thrown) {
  const auto raise = [](PyObject* type, const std::exception& e) { PyErr_SetString(type, e.what()); };
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const ValidationFailure& e) {  // most derived first: each class of the hierarchy gets its own
    raise(types.validation, e);
  } catch (const InvalidArgument& e) {
    raise(types.invalid, e);
  } catch (const DataError& e) {
    raise(types.data, e);
  } catch (const ConfigError& e) {
    raise(types.config, e);
  } catch (const NumericalError& e) {
    raise(types.numerical, e);
  } catch (const ModelFileError& e) {
    raise(types.model_file, e);
  } catch (const Error& e) {
    raise(types.error, e);
  }
}

}  // namespace

PYBIND11_MODULE(_mmp, m) {
  m.doc() = "mmp: maximum margin planning and structured max-margin learning (the C++ library's Python module)";
#ifdef MMP_VERSION
  m.attr("__version__") = MMP_VERSION;
#endif

  const py::handle runtime_error(PyExc_RuntimeError), value_error(PyExc_ValueError);
  types.error = exceptionClass(m, "Error", py::make_tuple(runtime_error),
                               "Every error mmp raises: misuse and bad input, with a message naming the file, key, row "
                               "or cell at fault (mmp::Error).");
  const py::handle error(types.error);
  types.invalid = exceptionClass(m, "InvalidArgument", py::make_tuple(error, value_error),
                                 "A call outside its documented contract (mmp::InvalidArgument).");
  types.data = exceptionClass(m, "DataError", py::make_tuple(error),
                              "A malformed data file or in-memory data set (mmp::DataError).");
  types.config = exceptionClass(m, "ConfigError", py::make_tuple(error, value_error),
                                "A setting missing, unknown, of the wrong type or out of range (mmp::ConfigError).");
  types.numerical = exceptionClass(m, "NumericalError", py::make_tuple(error, py::handle(PyExc_ArithmeticError)),
                                   "A computation left the range of doubles (mmp::NumericalError).");
  types.model_file = exceptionClass(m, "ModelFileError", py::make_tuple(error, py::handle(PyExc_OSError)),
                                    "A model file that cannot be read or written (mmp::ModelFileError).");
  types.validation = exceptionClass(m, "ValidationFailure", py::make_tuple(error),
                                    "A fold of leave-one-area-out validation failed (mmp::ValidationFailure).");
  py::register_exception_translator(&translate);

  bindMaps(m);
  bindPlanning(m);
  bindTraining(m);
  bindStructured(m);
  bindBench(m);
}

}  // namespace mmp::python
