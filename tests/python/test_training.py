"""mmp.train and mmp.evaluate: the pipeline of `mmp train` from arrays and from config-style entries."""

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import mmp
from conftest import SETTINGS, mmp_executable

SYNTHETIC_TRAIN = [{"synthetic": {"seed": 1, "rows": 256, "cols": 256}}, {"synthetic": {"seed": 2, "rows": 256, "cols": 256}}]
SYNTHETIC_HOLDOUT = [{"synthetic": {"seed": 3, "rows": 256, "cols": 256}}]


def without_timings(metrics):
    """metrics.json without wall-clock figures and image names."""
    out = {k: v for k, v in metrics.items() if "seconds" not in k and k not in ("largest_training_image", "regions")}
    out["trace"] = [{k: v for k, v in r.items() if k != "elapsed_seconds"} for r in metrics["trace"]]
    return out


def test_train_returns_what_mmp_train_writes_for_the_same_config(tmp_path):
    run = mmp.train(SYNTHETIC_TRAIN, SYNTHETIC_HOLDOUT, SETTINGS)
    config = dict(SETTINGS, train=SYNTHETIC_TRAIN, holdout=SYNTHETIC_HOLDOUT)
    config_path = tmp_path / "synthetic.yaml"
    config_path.write_text(json.dumps(config))  # JSON is YAML
    out = tmp_path / "out"
    subprocess.run([mmp_executable(), "train", str(config_path), "--output-dir", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    written = json.loads((out / "metrics.json").read_text())
    assert list(run.metrics) == list(written)
    assert without_timings(run.metrics) == without_timings(written)
    assert run.metrics["regions"].keys() == written["regions"].keys() == {"synthetic-3"}
    assert np.array_equal(mmp.CostModel.load(str(out / "model.mmp")).weights, run.model.weights)
    pairs = (out / "pairs.csv").read_text().splitlines()
    assert len(pairs) == len(run.pairs) + 1 and pairs[1].startswith("synthetic-3,0,")


def test_arrays_train_the_model_their_files_train(scenes, trained):
    from_files = mmp.train(SYNTHETIC_TRAIN, SYNTHETIC_HOLDOUT, SETTINGS)
    assert np.array_equal(trained.model.weights, from_files.model.weights)
    assert trained.methods == from_files.methods and trained.metrics["learned_vs"] == from_files.metrics["learned_vs"]
    assert trained.methods["learned"]["cost_ratio_mean"] < trained.methods["uniform"]["cost_ratio_mean"]


def test_the_holdout_table_and_pairs_as_record_arrays(trained):
    table = trained.table
    assert list(table.method) == ["learned", "uniform"] and table.pairs[0] == SETTINGS["evaluation"]["pairs"]
    assert table.cost_ratio_mean[0] == trained.methods["learned"]["cost_ratio_mean"]
    pairs = trained.pairs
    assert len(pairs) == 2 * SETTINGS["evaluation"]["pairs"] and set(pairs.method) == {"learned", "uniform"}
    learned = pairs[pairs.method == "learned"]
    assert np.mean(learned.cost_ratio) == pytest.approx(trained.methods["learned"]["cost_ratio_mean"], rel=1e-12)
    assert np.all(learned.cost_ratio >= 1.0 - 1e-12)
    trace = trained.trace
    assert len(trace) == trained.metrics["epochs"] and np.all(np.diff(trace.iteration) == 1)


def test_demonstrations_in_cells_pixels_and_world_points_train_the_same_model(scenes):
    image, labels = scenes[0]
    costs = np.array([[1, 5, 1, 5, 5][c] if c != 4 else np.inf for c in labels[2::4, 2::4].ravel()]).reshape(64, 64)
    passable = np.argwhere(np.isfinite(costs))
    ends = [(passable[len(passable) // 20], passable[-len(passable) // 20]), (passable[len(passable) // 3], passable[-1])]
    paths = [mmp.plan(costs, start, goal).path for start, goal in ends]
    settings = dict(SETTINGS, learner={"kind": "batch", "batch": {"iterations": 5}})
    frame = {"resolution": 0.5, "origin": [100.0, 200.0]}
    world = mmp.Frame(256, 256, 0.5, (100.0, 200.0))  # per pixel
    by_cells = mmp.train([{"image": image, "demonstrations": paths}], settings=settings)
    by_pixels = mmp.train([{"image": image, "demonstrations": [p * 4 + 1 for p in paths], "points": "pixels"}],
                          settings=settings)
    by_world = mmp.train([dict(frame, image=image, points="world",
                               demonstrations=[world.to_world(p * 4 + 1.5) for p in paths])], settings=settings)
    assert by_cells.metrics["examples"] == 2 and by_cells.methods == {}
    assert np.array_equal(by_cells.model.weights, by_pixels.model.weights)
    assert np.array_equal(by_cells.model.weights, by_world.model.weights)


def test_evaluate_scores_a_model_as_training_scored_it(trained, scenes):
    metrics, pairs = mmp.evaluate(trained.model, [{"image": scenes[2][0], "labels": scenes[2][1]}],
                                  classes=SETTINGS["classes"], behaviour=SETTINGS["behaviour"],
                                  evaluation=SETTINGS["evaluation"])
    assert metrics["methods"] == trained.methods and metrics["learned_vs"] == trained.metrics["learned_vs"]
    assert np.array_equal(pairs.cost_ratio, trained.pairs.cost_ratio)
    # The class-mean diagnostic: one more method, the learned figures unchanged.
    means, _ = mmp.evaluate(trained.model, [{"image": scenes[2][0], "labels": scenes[2][1]}],
                            classes=SETTINGS["classes"], behaviour=SETTINGS["behaviour"],
                            evaluation=dict(SETTINGS["evaluation"], class_mean=True))
    assert set(means["methods"]) == set(metrics["methods"]) | {"class_mean"}
    assert means["methods"]["learned"] == metrics["methods"]["learned"]
    assert "class_mean" not in means["learned_vs"] and "misread_cells" not in metrics
    assert means["misread_cells"]["gap"] == pytest.approx(
        means["methods"]["learned"]["cost_ratio_mean"] - means["methods"]["class_mean"]["cost_ratio_mean"])
    with pytest.raises(mmp.ConfigError, match="features: the model brings its own"):
        mmp.evaluate(trained.model, [{"image": scenes[2][0], "labels": scenes[2][1]}], SETTINGS)


def test_settings_errors_name_the_key_and_what_is_valid(scenes):
    image, labels = scenes[0]
    train = [{"image": image, "labels": labels}]
    with pytest.raises(mmp.ConfigError, match="mmp.train: loss.scale: expected a finite number >= 1e-09, got '-1'"):
        mmp.train(train, settings=SETTINGS, loss={"scale": -1})
    with pytest.raises(mmp.ConfigError, match="featurs: unknown key; did you mean 'features'"):
        mmp.train(train, settings=SETTINGS, featurs={"cell_size": 4})
    with pytest.raises(mmp.ConfigError, match="learner.batch.iteration: unknown key; did you mean 'learner.batch.iterations'"):
        mmp.train(train, settings=SETTINGS, learner={"batch": {"iteration": 3}})
    with pytest.raises(mmp.ConfigError, match="behaviour.costs.Rod: unknown class; did you mean 'Road'"):
        mmp.train(train, settings=SETTINGS, behaviour={"costs": {"Rod": 1}})
    with pytest.raises(mmp.ConfigError, match=r"train\[0\]: a training image needs 'labels'"):
        mmp.train([{"image": image}], settings=SETTINGS)
    with pytest.raises(mmp.ConfigError, match=r"train\[0\].label: unknown key; did you mean 'train\[0\].labels'"):
        mmp.train([{"image": image, "label": labels}], settings=SETTINGS)
    with pytest.raises(mmp.ConfigError, match=r"train: the list is empty"):
        mmp.train([], settings=SETTINGS)


def test_bad_arrays_are_refused_naming_the_entry_pixel_and_valid_values(scenes):
    image, labels = scenes[0]
    wrong = labels.copy()
    wrong[7, 9] = 9
    with pytest.raises(mmp.DataError, match=r"train\[0\].labels: pixel \(row 7, col 9\) holds index 9, which is not a "
                                            r"declared class \(declared indices: 0, 1, 2, 3, 4\)"):
        mmp.train([{"image": image, "labels": wrong}], settings=SETTINGS)
    with pytest.raises(mmp.DataError, match=r"train\[0\].labels is 128 x 256 pixels, the image 256 x 256"):
        mmp.train([{"image": image, "labels": labels[:, :128]}], settings=SETTINGS)
    with pytest.raises(mmp.ConfigError, match=r"train\[0\].labels: expected an H x W array of uint8"):
        mmp.train([{"image": image, "labels": labels.astype(np.int32)}], settings=SETTINGS)
    with pytest.raises(mmp.InvalidArgument, match=r"train\[0\].image: expected an H x W x 3"):
        mmp.train([{"image": image[:, :, :2], "labels": labels}], settings=SETTINGS)
    with pytest.raises(mmp.DataError, match=r"train\[0\].demonstrations: path 1, point 2 \(x 1002, y 10\) lies outside "
                                            r"the image's whole cells \(0 <= x < 256, 0 <= y < 256\)"):
        mmp.train([{"image": image, "demonstrations": [np.array([[2, 2], [2, 250]])]}], settings=SETTINGS)


def test_progress_reports_the_stages_and_an_exception_in_it_stops_training(scenes):
    image, labels = scenes[0]
    seen = []
    mmp.train([{"image": image, "labels": labels}], settings=SETTINGS, progress=lambda *a: seen.append(a))
    stages = [s for s, *_ in seen]
    assert stages[0] == "loading training images" and "training (batch)" in stages
    assert all(0 <= done <= total for _, done, total, _ in seen)

    def stop(stage, done, total, detail):
        if stage.startswith("training"):
            raise RuntimeError("stopped by the caller")

    with pytest.raises(RuntimeError, match="stopped by the caller"):
        mmp.train([{"image": image, "labels": labels}], settings=SETTINGS, progress=stop)
    with pytest.raises(mmp.InvalidArgument, match="progress: expected a callable"):
        mmp.train([{"image": image, "labels": labels}], settings=SETTINGS, progress=3)


def test_ctrl_c_stops_training_with_keyboard_interrupt(scenes):
    image, labels = scenes[0]
    long_run = dict(SETTINGS, learner={"kind": "online", "online": {"epochs": 3000}})  # a minute or more
    seen = []
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)  # SIGALRM raises KeyboardInterrupt
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(KeyboardInterrupt):
            mmp.train([{"image": image, "labels": labels}], settings=long_run, progress=lambda *a: seen.append(a))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    training = [(done, total) for stage, done, total, _ in seen if stage.startswith("training")]
    assert training and training[-1][0] < training[-1][1]  # stopped inside the learner, long before its end


def test_setting_keys_list_the_config_table():
    keys = {k["key"]: k for k in mmp.setting_keys()}
    assert keys["loss.scale"]["default"] == "1" and keys["loss.scale"]["valid"] == "a number > 0"
    assert "learner.kind" in keys and "features.cell_size" in keys
    assert os.path.basename(__file__)  # the table is the library's: docs/config.md checks the same keys


def torch_module_or_skip():
    """The package's path of libtorch's module (mmp/_runtime.py), or a skip for a build without libtorch."""
    path = os.path.normpath(os.path.join(os.path.dirname(mmp._runtime.__file__), mmp._runtime.MODULE_DIR, "libmmp_torch.so"))
    if not os.path.exists(path):
        pytest.skip(f"no libtorch module at {path}: a build without libtorch (MMP_WITH_TORCH=OFF) trains no network")
    return path


def test_import_registers_libtorch_and_a_network_trains_on_the_kernels_it_names():
    torch_module_or_skip()
    assert mmp._mmp._kernel_pins == mmp._runtime.KERNEL_PINS  # set before the extension loads, so kept twice
    settings = dict(SETTINGS, learner={"kind": "network", "network": {"epochs": 1, "channels": 2, "dilations": [1]}})
    run = mmp.train(SYNTHETIC_TRAIN, [], settings, threads=1)
    assert run.model.info["learner"] == "network"
    assert "kernels " in run.metrics["learner_info"]


def test_import_pins_the_kernels_as_the_mmp_command_does_but_not_openblas_once_numpy_loaded_it():
    torch_module_or_skip()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "ONEDNN_MAX_CPU_ISA", "MMP_NATIVE_KERNELS")}
    show = "import os; print(os.environ.get('OPENBLAS_CORETYPE'), os.environ.get('ONEDNN_MAX_CPU_ISA'))"
    first = subprocess.run([sys.executable, "-c", "import mmp; " + show], env=env, capture_output=True, text=True, check=True)
    after_numpy = subprocess.run([sys.executable, "-c", "import numpy, mmp; " + show], env=env, capture_output=True, text=True,
                                 check=True)
    native = subprocess.run([sys.executable, "-c", "import mmp; " + show], env=dict(env, MMP_NATIVE_KERNELS="1"),
                            capture_output=True, text=True, check=True)
    if {"avx2", "fma"} <= mmp._runtime._cpu_flags():
        assert first.stdout.split() == ["Haswell", "AVX2"]
        assert after_numpy.stdout.split() == ["None", "AVX2"]  # OpenBLAS read its (absent) pin when numpy loaded it
    else:
        assert first.stdout.split() == ["None", "None"]
    assert native.stdout.split() == ["None", "None"]


def test_a_libtorch_module_that_cannot_be_loaded_is_an_error_naming_it():
    torch_module_or_skip()
    code = ("import mmp\n"
            "try:\n"
            f"    mmp.train({SYNTHETIC_TRAIN!r}, [], dict({SETTINGS!r}, learner={{'kind': 'network'}}))\n"
            "except mmp.Error as e:\n"
            "    print(e)\n")
    env = dict(os.environ, MMP_TORCH_MODULE="/nonexistent/libmmp_torch.so")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "network training: cannot find mmp's libtorch module: no readable file /nonexistent/libmmp_torch.so" in result.stdout
