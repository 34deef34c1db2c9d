"""A property test of every NumPy entry point of the module: on any array -- random shapes, strides (steps,
reversed axes, transposes, stride-0 broadcast views of 10^12 elements), dtypes and sizes -- a call
returns or raises a Python exception (mmp.Error, ValueError, TypeError, OverflowError); it never crashes
the interpreter.  pybind11's array_t::ensure returns a null array when NumPy cannot convert or copy (a
huge broadcast view), and reading it crashed before (issue 57: py-broadcast-huge, py-familiarity-broadcast,
py-broadcast-rows).  Seeded; a few hundred small calls, a few seconds.  A long run (docs/fuzzing.md):
MMP_ARRAY_SOAK_SECONDS=S runs each test on further seeds until S seconds have passed."""

import os
import time

import numpy as np
import pytest

import mmp
from conftest import SOURCE_DIR

ALLOWED = (mmp.Error, ValueError, TypeError, OverflowError)
pytestmark = pytest.mark.filterwarnings("ignore::numpy.ComplexWarning")  # complex arrays are among the dtypes tried
DTYPES = [np.uint8, np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64, np.bool_, np.complex64, object, "U3"]


def random_array(rng, ndim=None, max_elements=600):
    """An array of a random dtype and shape, often a view: stepped, reversed, transposed or broadcast."""
    ndim = int(rng.integers(0, 5)) if ndim is None else ndim
    shape = [int(rng.choice([0, 1, 2, 3, 5, 8, 17])) for _ in range(ndim)]
    while np.prod(shape, dtype=np.int64) > max_elements:
        shape[int(rng.integers(0, ndim))] //= 2
    dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
    base = rng.integers(0, 255, size=[2 * s for s in shape]).astype(dtype) if ndim else np.array(rng.integers(0, 9), dtype)
    kind = int(rng.integers(0, 5))
    if ndim == 0 or kind == 0:
        return base[tuple(slice(None, s) for s in shape)] if ndim else base
    if kind == 1:  # every other entry: non-contiguous
        return base[tuple(slice(None, None, 2) for _ in shape)]
    if kind == 2:  # reversed axes: negative strides
        return base[tuple(slice(s - 1 if s else None, None, -1) for s in shape)]
    if kind == 3:  # transposed
        return base[tuple(slice(None, s) for s in shape)].T
    # broadcast, stride 0: small, or two axes of 10^6 (10^12 elements: no copy can be made)
    big = [int(rng.choice([1, 2, 7])) for _ in range(ndim)]
    if ndim >= 2 and rng.random() < 0.5:
        for axis in rng.choice(ndim, size=2, replace=False):
            big[int(axis)] = 10**6
    one = base.reshape(-1)[:1] if base.size else np.zeros(1, base.dtype)
    return np.broadcast_to(one.reshape([1] * ndim), big)


def image_like(rng):
    """Mostly images' shapes (H x W x 3, H x W), random otherwise."""
    r = rng.random()
    if r < 0.4:
        return random_array(rng, ndim=3)
    if r < 0.6:
        return random_array(rng, ndim=2)
    if r < 0.7:
        return np.broadcast_to(np.zeros(3, np.uint8), (10**6, 10**6, 3))  # py-broadcast-huge
    return random_array(rng)


def generators(seed):
    """The test's seeded generator, then (MMP_ARRAY_SOAK_SECONDS) generators of further seeds until the time is up."""
    yield np.random.default_rng(seed)
    deadline = time.monotonic() + float(os.environ.get("MMP_ARRAY_SOAK_SECONDS", "0"))
    extra = 0
    while time.monotonic() < deadline:
        extra += 1
        yield np.random.default_rng([seed, extra])
    if extra:
        print(f"seed {seed}: {extra} further seeds without a crash")


def call(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except ALLOWED:
        pass


@pytest.fixture(scope="module")
def model():
    return mmp.CostModel.load(os.path.join(SOURCE_DIR, "models", "follow_road.mmp"))


def test_the_image_entry_points_return_or_raise_on_any_array(model):
    small = np.zeros((8, 8, 3), np.uint8)
    for rng in generators(57):
        for _ in range(120):
            call(model.costs, image_like(rng))
            call(model.familiarity, image_like(rng))
            call(model.familiarity, small, valid=random_array(rng, ndim=int(rng.integers(0, 4))))
            call(model.adapt, small, [random_array(rng, ndim=int(rng.integers(0, 4)))], epochs=1, learch_rounds=1)


def test_the_grid_entry_points_return_or_raise_on_any_array():
    frame = mmp.Frame(4, 4, 1.0, (0.0, 0.0))
    for rng in generators(58):
        for _ in range(150):
            costs = random_array(rng, ndim=int(rng.integers(0, 4)))
            call(mmp.CostGrid, costs)
            call(mmp.CostGrid, np.ones((3, 5)), unknown=random_array(rng))
            call(mmp.plan, costs, (0, 0), (1, 1))
            call(frame.to_world, random_array(rng))
            call(frame.to_cell, random_array(rng))


def test_the_structured_entry_points_return_or_raise_on_any_array():
    X = [np.eye(3, 4), np.eye(2, 4)]
    Y = [np.array([0, 1, 2]), np.array([1, 0])]
    chain = mmp.ChainSSVM(passes=1).fit(X, Y)
    multilabel = mmp.MultilabelSSVM(learner="batch", passes=1).fit(np.eye(4, 3), np.array([[0, 1], [1, 0], [1, 1], [0, 0]]))
    for rng in generators(59):
        for _ in range(100):
            a, b = random_array(rng), random_array(rng)
            call(chain.fit, [a], [b])
            call(chain.predict, [a])
            call(chain.errors, [a], [b])
            call(multilabel.fit, a, b)
            call(multilabel.predict, a)
            call(mmp.ChainSSVM(passes=1).fit, [np.eye(3, 4)], [random_array(rng)])
