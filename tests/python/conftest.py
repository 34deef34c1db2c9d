"""Shared fixtures of the Python module's tests (run by CTest: tests/CMakeLists.txt sets PYTHONPATH to
<build>/python, MMP_EXECUTABLE to the mmp command and MMP_SOURCE_DIR to the checkout)."""

import os
import struct
import zlib

import numpy as np
import pytest

import mmp

SOURCE_DIR = os.environ.get("MMP_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

# follow_road on the synthetic scene's classes, as configs/demo.yaml.
BEHAVIOUR = {"name": "follow_road", "preferred": "Road",
             "costs": {"Road": 1, "Land": 5, "Vegetation": 5, "Building": 10, "Water": "inf"}}
# Small and fast: 256 x 256 px scenes, cells of 4 px, a few demonstrations and pairs, no classifier baseline.
SETTINGS = {"classes": mmp.synthetic_classes(), "behaviour": BEHAVIOUR,
            "features": {"cell_size": 4, "bins": 9},
            "demonstrations": {"per_region": 4, "min_separation_px": 100},
            "learner": {"kind": "batch", "batch": {"iterations": 20}},
            "evaluation": {"pairs": 8, "min_separation_px": 100},
            "classifier": {"enabled": False}}


def data_root():
    """$MMP_DATA_ROOT, else ../shared/data beside the checkout."""
    return os.environ.get("MMP_DATA_ROOT") or os.path.abspath(os.path.join(SOURCE_DIR, "..", "shared", "data"))


def need_data(*parts):
    """The path of a shared data file, or a skip saying where to put it."""
    path = os.path.join(data_root(), *parts)
    if not os.path.exists(path):
        pytest.skip(f"needs {os.path.join(*parts)} under the data root ({data_root()}): put the shared data sets in "
                    "../shared/data beside the checkout or set MMP_DATA_ROOT")
    return path


def mmp_executable():
    exe = os.environ.get("MMP_EXECUTABLE") or os.path.join(SOURCE_DIR, "build", "bin", "mmp")
    if not os.path.exists(exe):
        pytest.skip(f"needs the mmp command ({exe}): build it, or run the tests through CTest")
    return exe


def write_png(path, image):
    """An H x W x 3 (RGB) or H x W uint8 array as a PNG, with zlib alone."""
    image = np.ascontiguousarray(image, dtype=np.uint8)
    colour = 2 if image.ndim == 3 else 0
    rows = b"".join(b"\x00" + row.tobytes() for row in image)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", image.shape[1], image.shape[0], 8, colour, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@pytest.fixture(scope="session")
def scenes():
    """Three synthetic scenes of 256 x 256 px: [(image, labels)] for seeds 1, 2, 3."""
    return [mmp.synthetic_scene(seed=seed, rows=256, cols=256) for seed in (1, 2, 3)]


@pytest.fixture(scope="session")
def trained(scenes):
    """A run trained on scenes 1 and 2 and scored on scene 3."""
    return mmp.train([{"image": i, "labels": l} for i, l in scenes[:2]], [{"image": scenes[2][0], "labels": scenes[2][1]}],
                     SETTINGS)


@pytest.fixture(scope="session")
def model_file(trained, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("model") / "model.mmp")
    trained.model.save(path)
    return path
