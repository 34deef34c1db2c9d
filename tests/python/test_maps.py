"""mmp.CostModel, CostGrid, Frame, load_image, synthetic_scene and write_nav2."""

import os

import numpy as np
import pytest

import mmp
from conftest import SETTINGS, write_png


def test_costs_of_an_array_are_a_float32_map_of_whole_cells(trained, scenes):
    image = scenes[2][0][:250, :243]  # trailing pixels that fill no 4-pixel cell are dropped
    costs = trained.model.costs(image)
    assert costs.dtype == np.float32 and costs.shape == (250 // 4, 243 // 4)
    assert np.all(costs > 0) and np.all(np.isfinite(costs))
    assert len(np.unique(costs)) > 10  # a learned map, not uniform


def test_channel_order_views_and_copies_give_the_same_costs(trained, scenes):
    rgb = scenes[2][0]
    reference = trained.model.costs(rgb)
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    assert np.array_equal(trained.model.costs(bgr, channels="bgr"), reference)  # read in place
    assert np.array_equal(trained.model.costs(rgb[:, :, ::-1], channels="bgr"), reference)  # a strided view: copied
    assert not np.array_equal(trained.model.costs(bgr), reference)  # read as RGB it is another image
    padded = np.zeros((256, 300, 3), np.uint8)
    padded[:, :256] = rgb
    assert np.array_equal(trained.model.costs(padded[:, :256]), reference)  # rows with a stride


def test_cost_grid_holds_the_same_costs_in_double_and_its_frame(trained, scenes):
    image = scenes[2][0]
    grid = trained.model.cost_grid(image, resolution=0.5, origin=(1000.0, 2000.0))
    assert grid.costs.dtype == np.float64 and grid.costs.shape == (64, 64)
    assert np.array_equal(grid.costs.astype(np.float32), trained.model.costs(image))
    assert grid.cell_size == 4 and grid.unknown is None
    frame = grid.frame
    assert frame.has_world and frame.resolution == 2.0 and frame.origin == (1000.0, 2000.0)
    assert (frame.rows, frame.cols) == (64, 64)
    assert not trained.model.cost_grid(image).frame.has_world


def test_a_model_in_metres_resamples_an_image_of_another_resolution(trained, scenes):
    image = scenes[2][0]
    assert trained.model.ground_resolution == 0.0
    metres = trained.model.with_ground_resolution(0.5)
    assert metres.ground_resolution == 0.5 and trained.model.ground_resolution == 0.0  # a copy
    same = metres.cost_grid(image, resolution=0.5, origin=(0.0, 0.0))
    assert np.array_equal(same.costs, trained.model.cost_grid(image).costs)
    # The image as if at 0.25 m: resampled to 0.5 m (half the pixels), every 2 x 2 cells one cost.
    finer = metres.cost_grid(image, resolution=0.25, origin=(0.0, 0.0))
    assert finer.costs.shape == (64, 64)
    assert np.array_equal(finer.costs[0::2, 0::2], finer.costs[1::2, 1::2])
    assert not np.array_equal(finer.costs, same.costs)
    with pytest.raises(mmp.InvalidArgument, match="features.ground_resolution"):
        trained.model.with_ground_resolution(-1.0)
    with pytest.raises(mmp.InvalidArgument, match="within a factor of 8"):
        metres.cost_grid(image, resolution=5.0, origin=(0.0, 0.0))


def test_an_image_file_gives_the_array_costs_and_a_world_file_its_frame(trained, scenes, tmp_path):
    path = str(tmp_path / "scene.png")
    write_png(path, scenes[2][0])
    assert np.array_equal(mmp.load_image(path), scenes[2][0])
    assert np.array_equal(trained.model.cost_grid(path).costs, trained.model.cost_grid(scenes[2][0]).costs)
    # A world file (.pgw): 0.25 m pixels, the upper-left pixel's centre at (500000.125, 4000063.875).
    with open(str(tmp_path / "scene.pgw"), "w") as f:
        f.write("0.25\n0\n0\n-0.25\n500000.125\n4000063.875\n")
    frame = trained.model.cost_grid(path).frame
    assert frame.has_world and frame.resolution == 1.0
    assert frame.origin == pytest.approx((500000.0, 4000000.0))


def test_the_model_file_round_trips_and_says_what_made_it(trained, model_file, scenes):
    model = mmp.CostModel.load(model_file)
    assert np.array_equal(model.costs(scenes[0][0]), trained.model.costs(scenes[0][0]))
    assert np.array_equal(model.weights, trained.model.weights)
    assert model.info["behaviour"] == "follow_road" and model.info["learner"] == "batch"
    assert model.info["trained_on"] == "train[0],train[1]"
    assert model_file in model.source and model.kind == "linear" and model.form == "linear"
    assert model.cell_size == 4 and len(model.feature_names) == len(model.weights)


def test_familiarity_warns_on_an_image_unlike_the_training_images(trained, scenes, tmp_path):
    same = trained.model.familiarity(scenes[2][0])  # a scene of the same kind: colours seen in training
    assert same["known"] and not same["warns"] and same["cells"] == 64 * 64
    assert same["share"] <= same["warn_share"] and same["outside"] == round(same["share"] * same["cells"])
    recoloured = trained.model.familiarity(255 - scenes[2][0])  # the colours inverted: another world
    assert recoloured["warns"] and recoloured["share"] > 0.1 and "unlike" in recoloured["description"]
    bgr = np.ascontiguousarray(scenes[2][0][:, :, ::-1])
    assert trained.model.familiarity(bgr, channels="bgr") == same
    path = str(tmp_path / "inverted.png")
    write_png(path, 255 - scenes[2][0])
    assert trained.model.familiarity(path) == recoloured  # a file, read band by band, as the array
    valid = np.zeros((256, 256), np.uint8)
    valid[:128] = 1  # the upper half has data: its 32 rows of cells are checked
    assert trained.model.familiarity(255 - scenes[2][0], valid=valid)["cells"] == 32 * 64
    with pytest.raises(mmp.InvalidArgument, match=r"valid: expected an H x W array .* 256 x 256"):
        trained.model.familiarity(scenes[2][0], valid=np.ones((4, 4), np.uint8))


def test_summary_lists_what_mmp_info_prints_in_its_order(model_file):
    summary = mmp.CostModel.load(model_file).summary
    keys = list(summary)
    assert keys[:3] == ["format", "behaviour", "cost"] and summary["behaviour"] == "follow_road"
    assert "training_statistics" in summary and keys.index("learner") < keys.index("features")


def test_bad_images_and_files_raise_errors_that_name_them(trained, tmp_path):
    with pytest.raises(mmp.InvalidArgument, match=r"image: expected an H x W x 3 .* shape \(8, 8, 3\) of float64"):
        trained.model.costs(np.zeros((8, 8, 3)))
    with pytest.raises(mmp.InvalidArgument, match=r"channels 'hsv'"):
        trained.model.costs(np.zeros((64, 64, 3), np.uint8), channels="hsv")
    missing = str(tmp_path / "missing.mmp")
    with pytest.raises(mmp.ModelFileError, match="missing.mmp") as error:
        mmp.CostModel.load(missing)
    assert isinstance(error.value, OSError) and isinstance(error.value, mmp.Error)
    with pytest.raises(mmp.DataError, match="nothing.png"):
        trained.model.cost_grid(str(tmp_path / "nothing.png"))
    with pytest.raises(mmp.ConfigError, match="CostModel.cost_grid: resolution: give 'resolution' .* and 'origin'"):
        trained.model.cost_grid(np.zeros((64, 64, 3), np.uint8), origin=(0, 0))


def test_frame_transforms_are_inverse_and_agree_with_cell_at():
    frame = mmp.Frame(40, 30, 0.5, (100.0, 200.0))
    rng = np.random.default_rng(1)
    cells = rng.uniform(-0.5, [39.49, 29.49], size=(200, 2))
    assert np.allclose(frame.to_cell(frame.to_world(cells)), cells)
    assert frame.to_world((39, 0)) == pytest.approx((100.25, 200.25))  # the lower-left cell's centre
    for row, col in np.round(cells).astype(int):
        assert frame.cell_at(*frame.to_world((row, col))) == (row, col)
    assert frame.cell_at(99.0, 200.0) is None
    with pytest.raises(mmp.InvalidArgument):
        mmp.Frame(4, 4).to_world((1, 1))  # no world frame
    with pytest.raises(mmp.InvalidArgument, match="rows and cols"):
        mmp.Frame(0, 4, 1.0)


def test_a_cost_grid_of_an_array_is_a_view_that_the_planner_sees():
    grid = mmp.CostGrid(np.ones((10, 10)))
    before = mmp.plan(grid, (0, 0), (0, 9))
    grid.costs[0, 1:9] = np.inf  # a wall along the straight line
    after = mmp.plan(grid, (0, 0), (0, 9))
    assert before.cost == pytest.approx(9.0) and after.cost > before.cost
    assert all(row != 0 or col in (0, 9) for row, col in after.path)
    with pytest.raises(mmp.InvalidArgument, match="the frame has 3 x 3 cells, the costs 10 x 10"):
        mmp.CostGrid(np.ones((10, 10)), mmp.Frame(3, 3, 1.0))


def test_synthetic_scenes_are_a_function_of_their_seed():
    a, labels = mmp.synthetic_scene(seed=5, rows=128, cols=96)
    assert a.shape == (128, 96, 3) and labels.shape == (128, 96)
    assert set(np.unique(labels)) <= {c["index"] for c in mmp.synthetic_classes()}
    assert np.array_equal(a, mmp.synthetic_scene(seed=5, rows=128, cols=96)[0])
    assert not np.array_equal(a, mmp.synthetic_scene(seed=6, rows=128, cols=96)[0])
    assert np.array_equal(mmp.synthetic_scene(seed=5, rows=128, cols=96, channels="bgr")[0], a[:, :, ::-1])


def test_write_nav2_grades_costs_and_needs_a_world_frame(tmp_path):
    costs = np.array([[1.0, 2.0, 4.0], [8.0, np.inf, 1.0]])
    info = mmp.write_nav2(costs, str(tmp_path), frame=mmp.Frame(2, 3, 0.5, (10.0, 20.0)))
    assert info["passable"] == 5 and info["lethal"] == 1 and (info["lowest"], info["highest"]) == (1.0, 8.0)
    assert os.path.exists(info["yaml"]) and os.path.exists(info["image"]) and os.path.exists(info["levels"])
    yaml = open(info["yaml"]).read()
    assert "resolution: 0.5" in yaml and "origin: [10, 20, 0]" in yaml and "mode: raw" in yaml
    pgm = open(info["image"], "rb").read()
    values = np.frombuffer(pgm[-6:], np.uint8).reshape(2, 3)
    assert values[1, 1] == 100 and values[0, 0] == values[1, 2] == 1 and values[1, 0] == 98
    assert values[0, 0] < values[0, 1] < values[0, 2] < values[1, 0]
    with pytest.raises(mmp.InvalidArgument):
        mmp.write_nav2(costs, str(tmp_path / "no_frame"))


def test_write_nav2_takes_the_command_lines_lethal_rules(tmp_path):
    costs = np.array([[1.0, 2.0, 4.0], [8.0, np.inf, 1.0]])
    frame = mmp.Frame(2, 3, 0.5, (10.0, 20.0))
    above = mmp.write_nav2(costs, str(tmp_path / "a"), frame=frame, lethal_above=3.0)
    assert above["lethal"] == 3 and above["lethal_by_cost"] == 2  # 4 and 8, beside the impassable cell
    quantile = mmp.write_nav2(costs, str(tmp_path / "q"), frame=frame, lethal_quantile=0.5)
    assert quantile["lethal_by_cost"] == 2  # above the passable cells' median, 2
    mask = np.zeros((2, 3), bool)
    mask[0, 0] = True
    masked = mmp.write_nav2(costs, str(tmp_path / "m"), frame=frame, lethal_mask=mask)
    assert masked["lethal_by_mask"] == 1 and masked["lethal"] == 2
    pgm = open(masked["image"], "rb").read()
    assert np.frombuffer(pgm[-6:], np.uint8).reshape(2, 3)[0, 0] == 100
    with pytest.raises(mmp.InvalidArgument, match="not both"):
        mmp.write_nav2(costs, str(tmp_path / "x"), frame=frame, lethal_above=3.0, lethal_quantile=0.5)
    with pytest.raises(mmp.InvalidArgument, match="lethal_mask must be a 2 x 3 array"):
        mmp.write_nav2(costs, str(tmp_path / "x"), frame=frame, lethal_mask=np.zeros((3, 3), bool))
    with pytest.raises(mmp.InvalidArgument, match="0 <= q <= 1|quantile"):
        mmp.write_nav2(costs, str(tmp_path / "x"), frame=frame, lethal_quantile=1.5)


def test_adapt_returns_a_new_model_taught_on_the_paths_and_leaves_this_one(trained, scenes):
    model = trained.model
    image = scenes[2][0]
    before = model.costs(image)
    path = mmp.plan(np.ones(before.shape), (5, 5), (5, 50)).path  # a straight run along row 5
    adapted = model.adapt(image, [path], lambda_=1.0)
    assert np.array_equal(model.costs(image), before)  # this model unchanged
    assert adapted.info["adapted_demonstrations"].startswith("0:5,5 5,6")
    assert not np.array_equal(adapted.costs(image), before)
    again = model.adapt(image, [path], lambda_=1.0)
    assert np.array_equal(again.costs(image), adapted.costs(image))  # reproducible
    with pytest.raises(mmp.InvalidArgument, match=r"paths\[0\]\[1\] = \(5, 900\) is off the image"):
        model.adapt(image, [np.array([[5, 5], [5, 900]])])
    with pytest.raises(mmp.DataError, match="not a neighbour|neighbour"):
        model.adapt(image, [np.array([[5, 5], [5, 9]])])
    # what is not a path from one place to another is refused by name
    with pytest.raises(mmp.InvalidArgument, match="holds 5.5: .row, col. cells are whole numbers"):
        model.adapt(image, [path + 0.5])
    assert np.array_equal(model.adapt(image, [path.astype(float)], lambda_=1.0).costs(image), adapted.costs(image))
    with pytest.raises(mmp.InvalidArgument, match="a bool array"):
        model.adapt(image, [path.astype(bool)])
    loop = np.array([[5, 5], [5, 6], [6, 6], [6, 5], [5, 5]])
    with pytest.raises(mmp.DataError, match="closed loop"):
        model.adapt(image, [loop])
    with pytest.raises(mmp.DataError, match="more than the image's"):
        model.adapt(image, [np.array([[5, 5], [5, 6]] * 500000)])


def test_adapt_learns_from_a_set_and_takes_avoid_and_prefer_marks(trained, scenes):
    model = trained.model
    image = scenes[2][0]
    first = mmp.plan(np.ones(model.costs(image).shape), (5, 5), (5, 50)).path
    second = mmp.plan(np.ones(model.costs(image).shape), (40, 5), (40, 50)).path
    a = model.adapt(image, [first, second], lambda_=1.0)
    b = model.adapt(image, [second, first], lambda_=1.0)
    assert np.array_equal(a.costs(image), b.costs(image))  # the set, not the order
    mark = np.array([[r, c] for r in range(20, 26) for c in range(20, 26)])
    marked = model.adapt(image, [first, second], lambda_=1.0, avoid=[mark])
    assert "adapted_avoid" in marked.info and "adapted_avoid" not in a.info
    track = np.array([[r, 40] for r in range(10, 30)])
    preferred = model.adapt(image, [first, second], lambda_=1.0, prefer=[track])
    assert "adapted_prefer" in preferred.info and "adapted_avoid" not in preferred.info
    taught = np.concatenate([first, second])
    def mean(costs, cells):  # over the passable cells, as a mark holds them
        c = costs[cells[:, 0], cells[:, 1]]
        return c[np.isfinite(c)].mean()
    costs = preferred.costs(image)
    assert mean(costs, track) <= mean(costs, taught) * (1 + 1e-6)  # held no dearer than the paths' ground
    with pytest.raises(mmp.InvalidArgument, match=r"prefer\[0\]\[0\] = \(-1, 0\) is off the image"):
        model.adapt(image, [first], prefer=[np.array([[-1, 0]])])
    with pytest.raises(mmp.InvalidArgument, match=r"avoid\[0\]\[0\] = \(-1, 0\) is off the image"):
        model.adapt(image, [first], avoid=[np.array([[-1, 0]])])


def test_a_network_model_adapts_by_fine_tuning_through_adapt_and_teach(scenes):
    settings = dict(SETTINGS, learner={"kind": "network", "network": {"channels": 4, "dilations": [1, 2], "epochs": 2}})
    try:
        network = mmp.train([{"image": i, "labels": l} for i, l in scenes[:2]], None, settings, threads=1).model
    except mmp.Error as e:  # a build without libtorch, or its module missing: skipped; any other error fails
        if "libtorch" not in str(e):
            raise
        pytest.skip(f"no network training here: {e}")
    image = scenes[2][0]
    path = mmp.plan(np.ones((64, 64)), (5, 5), (5, 50)).path
    adapted = network.adapt(image, [path], network_epochs=3, network_step=0.01, threads=1)
    assert adapted.info["adapted_by"].startswith("network fine-tuned toward the parent")
    assert not np.array_equal(adapted.costs(image), network.costs(image))
    run = mmp.teach(network, [{"image": image, "demonstrations": [path]}],
                    adapt={"network_epochs": 3, "network_step": 0.01, "threads": 1})
    assert np.array_equal(run.model.costs(image), adapted.costs(image))  # the same teaching, bit for bit
    head = network.adapt(image, [path], network_epochs=3, network_step=0.01, network_head_only=True, threads=1)
    assert "its head only" in head.info["adapted_by"]
    with pytest.raises(mmp.ConfigError, match="adapt.network_step"):
        mmp.teach(network, [{"image": image, "demonstrations": [path]}], adapt={"network_step": 0})


def test_suggest_ranks_pairs_by_the_rule_and_refuses_an_unknown_rule(trained, scenes):
    model = trained.model
    image = scenes[2][0]
    pairs = model.suggest(image, n=3, min_separation_px=40, candidates=30)
    assert 1 <= len(pairs) <= 3
    values = [v for _, _, v in pairs]
    assert values == sorted(values, reverse=True)  # the most valuable first
    assert pairs == model.suggest(image, n=3, min_separation_px=40, candidates=30, threads=2)  # reproducible
    committee = model.suggest(image, n=3, min_separation_px=40, candidates=30, rule="committee")
    assert [v for _, _, v in committee] != values  # another rule, other values
    with pytest.raises(mmp.InvalidArgument, match=r"suggest: rule=density: expected one of change, committee \(the setting suggest.rule\)"):
        model.suggest(image, rule="density")


def test_adapt_and_suggest_keywords_take_their_ranges_from_the_settings_table(trained, scenes):
    # Each keyword is a row of the settings table (docs/config.md): refused by name, before any work.
    model = trained.model
    image = scenes[2][0]
    path = mmp.plan(np.ones((64, 64)), (5, 5), (5, 50)).path
    with pytest.raises(mmp.InvalidArgument, match=r"adapt: epochs=2147483647: expected a whole number 1\.\.100000 \(the setting adapt.epochs\)"):
        model.adapt(image, [path], epochs=2**31 - 1)
    with pytest.raises(mmp.InvalidArgument, match=r"adapt: threads=100000: expected a whole number 0\.\.256 \(the setting adapt.threads\)"):
        model.adapt(image, [path], threads=100000)
    with pytest.raises(mmp.InvalidArgument, match=r"adapt: lambda_=nan: expected a number in \(0, "):
        model.adapt(image, [path], lambda_=float("nan"))
    with pytest.raises(mmp.InvalidArgument, match=r"suggest: min_separation_px=nan: expected a number in \(0, 10000000\] "
                                                  r"\(the setting suggest.min_separation_px\)"):
        model.suggest(image, min_separation_px=float("nan"))
    with pytest.raises(mmp.InvalidArgument, match=r"suggest: candidates=1000000000: expected a whole number 1\.\.100000"):
        model.suggest(image, candidates=10**9)
    with pytest.raises(mmp.InvalidArgument, match=r"suggest: seed=-1: expected a whole number 0\.\.2\^63-1"):
        model.suggest(image, seed=-1)
    with pytest.raises(mmp.ConfigError, match=r"adapt.epochs"):
        mmp.teach(model, [{"image": image, "demonstrations": [path]}], adapt={"epochs": 2**31 - 1})
    with pytest.raises(mmp.ConfigError, match=r"adapt: the settings of mmp adapt .*mmp train does not read them"):
        mmp.train([{"image": image, "demonstrations": [path]}], adapt={"lambda": 3})
    keys = {k["key"]: k for k in mmp.setting_keys()}
    assert keys["adapt.epochs"]["valid"] == "a whole number 1..100000" and keys["adapt.epochs"]["command"] == "mmp adapt"
    assert keys["suggest.rule"]["default"] == "change" and keys["suggest.rule"]["command"] == "mmp suggest"


def test_teach_is_mmp_adapt_with_a_config_paths_alone_or_labels_with_a_holdout(trained, scenes):
    model = trained.model
    image, labels = scenes[2]
    paths = [mmp.plan(np.ones((64, 64)), (5, 5), (5, 50)).path, mmp.plan(np.ones((64, 64)), (50, 5), (10, 40)).path]
    run = mmp.teach(model, [{"image": image, "demonstrations": paths}])
    assert run.metrics["demonstrations"] == 2
    assert run.metrics["held_out"]["demonstrations"] == 2
    assert run.methods == {}  # no holdout
    direct = model.adapt(image, paths)
    assert np.array_equal(run.model.costs(image), direct.costs(image))  # the same teaching as CostModel.adapt
    scored = mmp.teach(model, [{"image": image, "labels": labels}], [{"image": scenes[0][0], "labels": scenes[0][1]}],
                       classes=SETTINGS["classes"], behaviour=SETTINGS["behaviour"], demonstrations={"per_region": 2, "min_separation_px": 60},
                       evaluation={"pairs": 3, "min_separation_px": 60})
    assert set(scored.methods) >= {"learned", "uniform", "parent"}
    assert "parent" in scored.metrics["learned_vs"]
    with pytest.raises(mmp.ConfigError, match="need classes and a behaviour"):
        mmp.teach(model, [{"image": image, "labels": labels}])
    with pytest.raises(mmp.ConfigError, match="adapt.lambda"):
        mmp.teach(model, [{"image": image, "demonstrations": paths}], adapt={"lambda": -1})
