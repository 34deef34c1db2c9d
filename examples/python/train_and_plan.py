#!/usr/bin/env python3
"""Train a cost model on two Dubai image parts from Python, score it and plan on a third part.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_and_plan.py [--data-root DIR] [--out DIR]

The images and label masks are read from <data root>/aerial/dubai_hitl (the data root: --data-root,
$MMP_DATA_ROOT, or ../shared/data beside the checkout) into NumPy arrays; mmp.train learns "follow the
road" from demonstrations generated on the labels of tile 1's parts 8 and 9 -- the features, loss and
demonstrations of configs/dubai_whole_area.yaml, the learner at the library's defaults (batch
subgradient, linear costs), nothing tuned on part 7 -- and scores it on part 7, a neighbouring piece of
the same district (not an unseen area: see docs/results-cost-maps.md for that protocol).  Then the
model's cost map of part 7, in a local metric frame of 0.5 m pixels, plans between two road cells with
exact A* and with OMPL's RRT*, and is written as a Nav2 map.  With matplotlib (Debian
python3-matplotlib) it draws <out>/train_and_plan.png.
"""

import argparse
import os
import sys
import time

import numpy as np

import mmp

CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TRAIN, PLAN = ["tile1_image_part_008", "tile1_image_part_009"], "tile1_image_part_007"

SETTINGS = {
    # The data set's classes (labels_index/*.png hold the indices) and configs/follow_road.yaml's behaviour.
    "classes": [{"name": "Building", "index": 0}, {"name": "Land", "index": 1}, {"name": "Road", "index": 2},
                {"name": "Vegetation", "index": 3}, {"name": "Water", "index": 4}, {"name": "Unlabeled", "index": 5}],
    "behaviour": {"name": "follow_road", "preferred": "Road",
                  "costs": {"Road": 1, "Land": 5, "Vegetation": 5, "Unlabeled": 5, "Building": 10, "Water": "inf"}},
    # configs/dubai_whole_area.yaml's features, demonstrations and loss.
    "features": {"cell_size": 4, "blur_sigmas": [0, 4, 12], "colour_spaces": ["rgb", "hsv", "lab"], "gradient": True,
                 "texture_windows": [7], "bins": 9},
    "demonstrations": {"per_region": 6, "min_separation_px": 250, "seed": 1},
    "loss": {"shape": "linear", "radius_px": 96},
    "learner": {"kind": "batch"},  # the library's defaults: lambda 1e-4, constant step 10, 100 iterations, linear costs
    "evaluation": {"pairs": 20, "min_separation_px": 250, "seed": 7},
}


def read_part(root, name):
    folder = os.path.join(root, "aerial", "dubai_hitl")
    image = mmp.load_image(os.path.join(folder, "images", name + ".jpg"))
    labels = mmp.load_image(os.path.join(folder, "labels_index", name + ".png"))[:, :, 0]  # grey: three equal channels
    return image, labels


def progress(stage, done, total, detail):
    print(f"\r  {stage}: {done}/{total} {detail}".ljust(78), end="" if done < total else "\n", flush=True)


def farthest_road_cells(labels, cell_size):
    """Two road cells far apart: the road cells nearest the top-left and the bottom-right corners."""
    road = np.argwhere(labels[cell_size // 2::cell_size, cell_size // 2::cell_size] == 2)
    return tuple(road[np.argmin(road.sum(axis=1))]), tuple(road[np.argmax(road.sum(axis=1))])


def road_share(path, labels, cell_size):
    """The share of the path's length on road: its polyline sampled every tenth of a cell."""
    points = np.concatenate([np.linspace(a, b, max(2, int(np.ceil(10 * np.hypot(*(b - a))))), endpoint=False)
                             for a, b in zip(path[:-1].astype(float), path[1:].astype(float))])
    pixels = np.round((points + 0.5) * cell_size - 0.5).astype(int)
    return np.mean(labels[pixels[:, 0], pixels[:, 1]] == 2)


def draw(path, image, grid, plans):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: python3-matplotlib): no picture")
        return
    k = grid.cell_size
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.6))
    axes[0].imshow(image)
    axes[0].set_title(f"{PLAN}: plans on the learned costs")
    shown = axes[1].imshow(np.log10(grid.costs), cmap="magma")
    axes[1].set_title("learned cost per cell (log10)")
    fig.colorbar(shown, ax=axes[1], fraction=0.04)
    for (name, plan), colour in zip(plans.items(), ("cyan", "lime")):
        axes[0].plot((plan.path[:, 1] + 0.5) * k, (plan.path[:, 0] + 0.5) * k, color=colour, lw=2, label=name)
        axes[1].plot(plan.path[:, 1], plan.path[:, 0], color=colour, lw=1.5, label=name)
    axes[0].legend(loc="lower left")
    for ax in axes:
        ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print(f"wrote {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-root", default="", help="folder holding aerial/dubai_hitl")
    parser.add_argument("--out", default="out/python_example", help="folder for the model, the Nav2 map and the picture")
    args = parser.parse_args()
    root = args.data_root or os.environ.get("MMP_DATA_ROOT") or os.path.join(CHECKOUT, "..", "shared", "data")
    if not os.path.isdir(os.path.join(root, "aerial", "dubai_hitl")):
        sys.exit(f"no aerial/dubai_hitl under '{root}': put the shared data sets in ../shared/data beside the "
                 "checkout, set MMP_DATA_ROOT or pass --data-root")
    os.makedirs(args.out, exist_ok=True)

    train = [dict(zip(("image", "labels"), read_part(root, name)), name=name, area="tile1") for name in TRAIN]
    image, labels = read_part(root, PLAN)
    print(f"training on {', '.join(TRAIN)}; scoring and planning on {PLAN} ({image.shape[1]} x {image.shape[0]} px)")
    started = time.monotonic()
    run = mmp.train(train, [{"image": image, "labels": labels, "name": PLAN}], SETTINGS, progress=progress)
    m = run.metrics
    print(f"trained in {time.monotonic() - started:.1f} s: {m['learner']} learner, {m['epochs']} passes, {m['learner_info']}")
    print(f"\n{'method':11} {'cost ratio mean':>16} {'p95':>7} {'MHD mean (px)':>14} {'preferred share':>16} {'feasible':>9}")
    for method, s in run.methods.items():
        print(f"{method:11} {s['cost_ratio_mean']:16.3f} {s['cost_ratio_p95']:7.3f} {s['mhd_mean_px']:14.1f} "
              f"{s['preferred_share']:16.3f} {s['feasible_share']:9.2f}")
    for baseline, c in m["learned_vs"].items():
        print(f"learned vs {baseline}: mean cost ratio {c['gain']:.3f} lower, 95 % interval "
              f"[{c['ci95_low']:.3f}, {c['ci95_high']:.3f}]: {c['verdict']}")
    run.model.save(os.path.join(args.out, "model.mmp"))

    grid = run.model.cost_grid(image, resolution=0.5, origin=(0.0, 0.0))  # a local metric frame, 0.5 m pixels
    start, goal = farthest_road_cells(labels, grid.cell_size)
    plans = {"A*": mmp.plan(grid, start, goal),
             "RRT* (1 s)": mmp.plan(grid, start, goal, planner="rrtstar", budget=1.0)}
    print(f"\ncost map {grid.rows} x {grid.cols} cells of {grid.frame.resolution:g} m; plans from cell {start} to {goal}:")
    for name, plan in plans.items():
        length = np.sum(np.hypot(*np.diff(plan.path, axis=0).T)) * grid.frame.resolution
        print(f"  {name:11} {plan.status}, cost {plan.cost:.1f}, {length:.0f} m, "
              f"{100 * road_share(plan.path, labels, grid.cell_size):.0f} % of its length on road, {plan.seconds:.3f} s")
    nav2 = mmp.write_nav2(grid, os.path.join(args.out, "nav2"))
    print(f"wrote {nav2['yaml']} ({nav2['levels_used']} of 98 graded levels used)")
    draw(os.path.join(args.out, "train_and_plan.png"), image, grid, plans)


if __name__ == "__main__":
    main()
