"""mmp: maximum margin planning and structured max-margin learning, from Python.

The C++ library's Python module (docs/python.md):

    import mmp
    model = mmp.CostModel.load("out/demo/model.mmp")
    costs = model.costs(image)                    # H x W x 3 uint8 -> rows x cols float32
    plan = mmp.plan(costs, (20, 20), (120, 110))  # (row, col) cells; plan.path, plan.cost, plan.status

    run = mmp.train([{"image": image, "labels": labels}], behaviour={...}, features={"cell_size": 4})
    run.model, run.metrics                         # a CostModel and what `mmp train` writes to metrics.json

    clf = mmp.ChainSSVM(learner="online", lam=0.01, passes=15).fit(X, Y)   # scikit-learn's fit/predict/score

Errors raise mmp.Error and its subclasses (InvalidArgument, DataError, ConfigError, NumericalError,
ModelFileError, ValidationFailure) with the library's messages.
"""

from . import _runtime

_runtime.pin_kernels()  # before the extension loads OpenBLAS (network_backend.hpp)

from ._mmp import (  # noqa: F401,E402  (the module's public names)
    ConfigError,
    CostGrid,
    CostModel,
    DataError,
    Error,
    Frame,
    InvalidArgument,
    ModelFileError,
    NumericalError,
    Plan,
    ValidationFailure,
    __version__,
    load_image,
    plan,
    setting_keys,
    synthetic_classes,
    synthetic_scene,
    validation_folds,
    write_nav2,
)
from ._mmp import _set_network_backend  # noqa: E402
from .estimators import ChainSSVM, MultilabelSSVM  # noqa: F401,E402
from .training import TrainingRun, evaluate, teach, train  # noqa: F401,E402

_set_network_backend(_runtime.load_torch_module)  # loads libtorch's module on the first network trained

__all__ = [
    "ChainSSVM", "ConfigError", "CostGrid", "CostModel", "DataError", "Error", "Frame", "InvalidArgument",
    "ModelFileError", "MultilabelSSVM", "NumericalError", "Plan", "TrainingRun", "ValidationFailure", "evaluate",
    "load_image", "plan", "setting_keys", "synthetic_classes", "synthetic_scene", "teach", "train", "validation_folds",
    "write_nav2",
]
