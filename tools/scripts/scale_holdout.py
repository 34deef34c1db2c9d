#!/usr/bin/env python3
"""Today's shipped models on the whole-area holdout resampled to other ground resolutions (issue 53, Scale).

    PYTHONPATH=build/python /usr/bin/python3 tools/scripts/scale_holdout.py \
        [--behaviours follow_road,...] [--scales 1,0.5,2] [--upsample repeat|bilinear] \
        [--separation pixels|ground] [--reseed N] [--in-metres R [--upsample-features linear|cubic|none]]
        [--areas holdout|train] [--data-root DIR] [--bootstrap 2000]

A user's imagery comes at its own ground resolution, and features in pixels (cells of 4 px, texture
windows of 7..95 px, blurs in px) then see other ground than in training.  The Dubai parts look alike
in scale, so this measures the effect by resampling the holdout: for each behaviour, the shipped model
models/<behaviour>.mmp is scored with mmp.evaluate on the holdout of configs/<behaviour>.yaml (its
classes, behaviour and evaluation settings, unchanged: 20 seeded pairs per image, seed 7,
min_separation_px 250) with every part

- as it is (scale 1);
- at 0.5x: the image by the area average of each 2 x 2 block of pixels (rounded to the nearest integer),
  the label mask by the majority of the block's four labels, a 2-2 tie going to the block's top-left
  label (the nearest-neighbour rule); an odd last row or column is dropped;
- at 2x: each pixel repeated 2 x 2 (`--upsample repeat`, the default) or bilinear interpolation with
  pixel centres aligned (`--upsample bilinear`); the label mask always by nearest (each label repeated).

Nothing is trained and nothing chosen: this is the baseline before any fix.  The evaluation settings are
those of the config, in pixels: at 0.5x a part has a quarter of the pixels and `min_separation_px: 250`
is twice the ground distance, so fewer pairs fit (the table gives the count; a part on which none fits
is left out and named); at 2x the reverse.  `--separation ground` multiplies min_separation_px by the
scale instead (the same ground distance).  Each image is scored by its own mmp.evaluate call with seed
evaluation.seed + its index, which are the pairs one call over the whole list draws (mmp train's holdout
figures are reproduced at scale 1).  `--reseed N` adds a control row: scale 1 with every seed plus N
(other pairs on the same images), to show how far the by-image comparison moves with the pairs alone.

Per behaviour and scale it reports the holdout's mean cost ratio (learned map, and uniform costs), the
feasible share, the learned-vs-uniform gain within the scale (paired by pair, bootstrap over pairs),
and a bootstrap interval of the learned mean over pairs (seed 1).  The start/goal pairs differ between
scales (the grids differ), so no pair-by-pair comparison across scales exists; the comparison with
scale 1 is paired by image instead: the difference of each image's mean learned cost ratio (scale s
minus 1), averaged over images, with a bootstrap interval over the images (images without a pair at
either scale left out).  The classifier baseline needs training, so mmp.evaluate does not give it; the
model file's own holdout figure (holdout_classifier_cost_ratio, scale 1) is printed for reference.

`--in-metres R`: features in metres.  Each model is declared trained on imagery of R metres per pixel
(CostModel.with_ground_resolution(R): the parts' own resolution, which the data's README does not give,
so R is a nominal unit) and every part at scale s is given its resolution, R / s (an entry's
`resolution`); mmp then resamples each part to R before computing its features and reads each cell's
cost under its centre.  At scale 1 nothing changes.  `--upsample-features` says how a coarser part is
brought to R (features.upsample: linear, cubic, or none = taken as it comes).

`--areas train` scores the config's training areas instead of its holdout (the shipped models were
trained on them at scale 1): to choose a setting such as --upsample-features inside the training data.

Prints a table and one JSON line.  Exits 0 with a "skipped:" line when the data or the Python module
is absent.  Standard library and NumPy (the configs are read by a small reader of the YAML subset they
use: block maps and lists, flow maps and lists, plain and quoted scalars, comments, `base:`).
"""
import argparse
import glob
import json
import os
import re
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEHAVIOURS = ["follow_road", "hide_in_vegetation", "cross_country", "amphibious"]


# ---- the configs' YAML subset ----------------------------------------------------------------------

def _strip_comment(line):
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text in ("null", "~", ""):
        return None
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", text):
        return float(text)
    return text  # "inf" stays a string: mmp's settings reader takes it as infinity


def _flow(text, i=0):
    """Parses a flow value at text[i:]; returns (value, next index)."""
    while text[i] == " ":
        i += 1
    if text[i] in "[{":
        closing = "]" if text[i] == "[" else "}"
        items, mapping, i = [], {}, i + 1
        while True:
            while text[i] in " ,":
                i += 1
            if text[i] == closing:
                return (items if closing == "]" else mapping), i + 1
            if closing == "]":
                value, i = _flow(text, i)
                items.append(value)
            else:
                colon = text.index(":", i)
                key = _scalar(text[i:colon])
                value, i = _flow(text, colon + 1)
                mapping[key] = value
    if text[i] in "\"'":
        end = text.index(text[i], i + 1)
        return text[i + 1:end], end + 1
    j = i
    while j < len(text) and text[j] not in ",]}":
        j += 1
    return _scalar(text[i:j]), j


def _value(text):
    text = text.strip()
    return _flow(text)[0] if text[:1] in "[{" else _scalar(text)


def _block(lines, i, indent):
    """Parses the block starting at lines[i] (all at `indent`); returns (value, next line index)."""
    if lines[i][1].startswith("- ") or lines[i][1] == "-":
        items = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("-"):
            rest = lines[i][1][1:].strip()
            if rest and rest[0] not in "[{\"'" and re.match(r"[^:]+:( |$)", rest):  # "- key: value ..." opens a map
                lines[i] = (indent + 2, rest)
                value, i = _block(lines, i, indent + 2)
                items.append(value)
                continue
            i += 1
            if rest:
                items.append(_value(rest))
            else:
                value, i = _block(lines, i, lines[i][0])
                items.append(value)
        return items, i
    mapping = {}
    while i < len(lines) and lines[i][0] == indent:
        text = lines[i][1]
        key, _, rest = text.partition(":")
        i += 1
        if rest.strip():
            mapping[_scalar(key)] = _value(rest)
        elif i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("-"))):
            mapping[_scalar(key)], i = _block(lines, i, lines[i][0])
        else:
            mapping[_scalar(key)] = None
    return mapping, i


def read_yaml(path):
    lines = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            text = _strip_comment(raw.rstrip("\n"))
            if text.strip():
                lines.append((len(text) - len(text.lstrip(" ")), text.strip()))
    return _block(lines, 0, lines[0][0])[0] if lines else {}


def merged(base, over):
    out = dict(base)
    for key, value in over.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def read_config(path):
    """A config with its `base:` chain merged in, as mmp train reads it; data_root made absolute."""
    config = read_yaml(path)
    folder = os.path.dirname(os.path.abspath(path))
    if "data_root" in config:
        config["data_root"] = os.path.normpath(os.path.join(folder, config["data_root"]))
    base = config.pop("base", None)
    if base:
        config = merged(read_config(os.path.join(folder, base)), config)
    return config


# ---- resampling ------------------------------------------------------------------------------------

def half_image(image):
    h, w = image.shape[0] // 2 * 2, image.shape[1] // 2 * 2
    blocks = image[:h, :w].reshape(h // 2, 2, w // 2, 2, 3).astype(np.uint16)
    return ((blocks.sum(axis=(1, 3)) + 2) // 4).astype(np.uint8)


def half_labels(labels, classes):
    """Majority of each 2 x 2 block; a 2-2 tie goes to the block's top-left label."""
    h, w = labels.shape[0] // 2 * 2, labels.shape[1] // 2 * 2
    blocks = labels[:h, :w].reshape(h // 2, 2, w // 2, 2)
    counts = np.stack([(blocks == c).sum(axis=(1, 3)) for c in range(classes)], axis=-1)
    top_left = blocks[:, 0, :, 0]
    best = counts.max(axis=-1)
    tied = (counts == best[..., None]).sum(axis=-1) > 1
    majority = counts.argmax(axis=-1).astype(np.uint8)
    return np.where(tied, top_left, majority).astype(np.uint8)


def double_image(image, mode):
    if mode == "repeat":
        return np.repeat(np.repeat(image, 2, axis=0), 2, axis=1)
    # bilinear, pixel centres aligned: output pixel y samples input position (y + 0.5) / 2 - 0.5
    def axis(n):
        pos = np.clip((np.arange(2 * n) + 0.5) / 2 - 0.5, 0, n - 1)
        low = np.floor(pos).astype(int)
        high = np.minimum(low + 1, n - 1)
        return low, high, (pos - low).astype(np.float32)
    y0, y1, fy = axis(image.shape[0])
    x0, x1, fx = axis(image.shape[1])
    f = image.astype(np.float32)
    rows = f[y0] * (1 - fy)[:, None, None] + f[y1] * fy[:, None, None]
    out = rows[:, x0] * (1 - fx)[None, :, None] + rows[:, x1] * fx[None, :, None]
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def double_labels(labels):
    return np.repeat(np.repeat(labels, 2, axis=0), 2, axis=1)


def resampled(entry, scale, upsample, classes):
    if scale == 1:
        return entry
    if scale == 0.5:
        return dict(entry, image=half_image(entry["image"]), labels=half_labels(entry["labels"], classes))
    return dict(entry, image=double_image(entry["image"], upsample), labels=double_labels(entry["labels"]))


# ---- statistics ------------------------------------------------------------------------------------

def bootstrap_mean(values, reps, rng):
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return None, None
    means = values[rng.integers(0, len(values), size=(reps, len(values)))].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def per_image_means(pairs, method="learned"):
    out = {}
    if pairs is None:
        return out
    for region in sorted(set(pairs.region)):
        rows = pairs[(pairs.region == region) & (pairs.method == method)]
        if len(rows):
            out[str(region)] = float(np.mean(rows.cost_ratio))
    return out


def evaluate_per_image(mmp, model, entries, config, evaluation):
    """Scores each image alone with seed evaluation.seed + its index in the list: the pairs mmp.evaluate (and
    mmp train) draws for it in one call over the whole list, so at scale 1 the figures are the joint call's.
    An image on which no pair fits the separation is left out (named in the second value)."""
    tables, skipped = [], []
    for index, entry in enumerate(entries):
        settings = dict(evaluation, seed=evaluation["seed"] + index)
        try:
            _, pairs = mmp.evaluate(model, [entry], classes=config["classes"], behaviour=config["behaviour"],
                                    evaluation=settings)
        except mmp.DataError as error:
            if "no reference path could be planned" not in str(error):
                raise
            skipped.append(entry["name"])
            continue
        tables.append(pairs)
    return np.concatenate(tables).view(np.recarray), skipped


# ---- main ------------------------------------------------------------------------------------------

def holdout_entries(config, areas="holdout"):
    """[(entry dict with image/labels arrays, name, area)] of the config's list `areas` (holdout or train), or raises
    FileNotFoundError."""
    import mmp
    root = os.environ.get("MMP_DATA_ROOT") or config.get("data_root")
    entries = []
    for item in config.get(areas) or []:
        images = sorted(glob.glob(os.path.join(root, item["images"])))
        if not images:
            raise FileNotFoundError(f"no image matches {os.path.join(root, item['images'])}")
        for path in images:
            stem = os.path.splitext(os.path.basename(path))[0]
            label_path = os.path.join(root, item["labels"].format(stem=stem))
            if not os.path.exists(label_path):
                raise FileNotFoundError(f"label mask {label_path} is missing")
            labels = mmp.load_image(label_path)[..., 0].copy()  # an index PNG: the class index in every channel
            entries.append({"image": mmp.load_image(path), "labels": labels, "name": stem, "area": item["area"]})
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--behaviours", default=",".join(BEHAVIOURS))
    parser.add_argument("--scales", default="1,0.5,2", help="any of 1, 0.5, 2 (comma-separated)")
    parser.add_argument("--upsample", choices=["repeat", "bilinear"], default="repeat", help="the image at 2x")
    parser.add_argument("--separation", choices=["pixels", "ground"], default="pixels",
                        help="evaluation.min_separation_px as the config has it (pixels), "
                             "or times the scale (the same ground)")
    parser.add_argument("--reseed", type=int, default=0,
                        help="also score scale 1 with every evaluation seed plus this "
                             "(a control: new pairs, same images)")
    parser.add_argument("--in-metres", type=float, default=0.0, metavar="R",
                        help="declare each model's imagery at R m per pixel and each part at R / scale: mmp resamples "
                             "the parts to R (features in metres); 0: off")
    parser.add_argument("--upsample-features", choices=["cubic", "linear", "none"], default="cubic",
                        help="with --in-metres: how a coarser part is brought to R (features.upsample)")
    parser.add_argument("--areas", choices=["holdout", "train"], default="holdout",
                        help="score the config's holdout (final figures) or its training areas (to choose settings)")
    parser.add_argument("--data-root", help="folder holding aerial/dubai_hitl/ (default: the config's data_root)")
    parser.add_argument("--configs", default=os.path.join(REPO, "configs"))
    parser.add_argument("--models", default=os.path.join(REPO, "models"))
    parser.add_argument("--bootstrap", type=int, default=2000, help="resamples of each interval (seed 1)")
    args = parser.parse_args()
    behaviours = [b for b in args.behaviours.split(",") if b]
    scales = [float(s) for s in args.scales.split(",") if s]
    for s in scales:
        if s not in (0.5, 1, 2):
            parser.error(f"--scales: {s} is not one of 1, 0.5, 2")
    for b in behaviours:
        for path in (os.path.join(args.configs, f"{b}.yaml"), os.path.join(args.models, f"{b}.mmp")):
            if not os.path.exists(path):
                parser.error(f"--behaviours: {b}: {path} does not exist")
    try:
        import mmp
    except ImportError as error:
        print(f"skipped: the Python module mmp is not importable ({error}); set PYTHONPATH=build/python")
        return 0
    if args.data_root:
        os.environ["MMP_DATA_ROOT"] = os.path.abspath(args.data_root)

    configs = {b: read_config(os.path.join(args.configs, f"{b}.yaml")) for b in behaviours}
    # Every behaviour's config shares the holdout (dubai_whole_area.yaml); images are read once per holdout list.
    loaded, resampled_sets = {}, {}
    rows = []
    for b in behaviours:
        config = configs[b]
        key = json.dumps([config.get(args.areas), os.environ.get("MMP_DATA_ROOT") or config.get("data_root")])
        if key not in loaded:
            try:
                loaded[key] = holdout_entries(config, args.areas)
            except FileNotFoundError as error:
                print(f"skipped: the holdout data is absent ({error}); see ../shared/data/aerial/dubai_hitl/README.md")
                return 0
        classes = max(c["index"] for c in config["classes"]) + 1
        model = mmp.CostModel.load(os.path.join(args.models, f"{b}.mmp"))
        if args.in_metres:
            model = model.with_ground_resolution(args.in_metres, args.upsample_features)
        info = model.info
        by_scale = {}
        for scale, offset in [(s, 0) for s in scales] + ([(1.0, args.reseed)] if args.reseed else []):
            label = f"{scale:g}" + (f" seed+{offset}" if offset else "")
            if (key, scale) not in resampled_sets:
                resampled_sets[(key, scale)] = [resampled(e, scale, args.upsample, classes) for e in loaded[key]]
            entries = resampled_sets[(key, scale)]
            if args.in_metres:
                entries = [dict(e, resolution=args.in_metres / scale, origin=[0.0, 0.0]) for e in entries]
            evaluation = dict(config["evaluation"])
            if args.separation == "ground":
                evaluation["min_separation_px"] = config["evaluation"]["min_separation_px"] * scale
            evaluation["seed"] = evaluation["seed"] + offset
            started = time.time()
            pairs, skipped = evaluate_per_image(mmp, model, entries, config, evaluation)
            seconds = time.time() - started
            learned = pairs[pairs.method == "learned"]
            uniform = pairs[pairs.method == "uniform"]
            assert np.array_equal(learned.region, uniform.region) and np.array_equal(learned.pair, uniform.pair)
            low, high = bootstrap_mean(learned.cost_ratio, args.bootstrap, np.random.default_rng(1))
            gain = uniform.cost_ratio - learned.cost_ratio
            gain_low, gain_high = bootstrap_mean(gain, args.bootstrap, np.random.default_rng(1))
            row = {
                "behaviour": b, "scale": scale, "label": label, "seed_offset": offset,
                "min_separation_px": evaluation["min_separation_px"],
                "pixels": int(sum(e["image"].shape[0] * e["image"].shape[1] for e in entries)),
                "images": len(entries) - len(skipped), "images_without_pairs": skipped, "pairs": int(len(learned)),
                "learned_cost_ratio": float(np.mean(learned.cost_ratio)),
                "learned_ci95": [low, high],
                "learned_feasible": float(np.mean(learned.feasible)),
                "uniform_cost_ratio": float(np.mean(uniform.cost_ratio)),
                "uniform_feasible": float(np.mean(uniform.feasible)),
                "learned_vs_uniform": {"gain": float(np.mean(gain)), "ci95_low": gain_low, "ci95_high": gain_high},
                "seconds": round(seconds, 1),
            }
            by_scale[label] = per_image_means(pairs)
            rows.append(row)
            print(f"  {b} at {label}: {row['pairs']} pairs, learned {row['learned_cost_ratio']:.3f}, "
                  f"{seconds:.1f} s" + (f"; no pair fits on {', '.join(skipped)}" if skipped else ""),
                  file=sys.stderr, flush=True)
        # Paired by image against scale 1.
        for row in rows:
            if row["behaviour"] != b:
                continue
            row["classifier_cost_ratio_model_file"] = (float(info["holdout_classifier_cost_ratio"])
                                                       if "holdout_classifier_cost_ratio" in info else None)
            if row["label"] == "1" or "1" not in by_scale:
                continue
            base, other = by_scale["1"], by_scale[row["label"]]
            common = sorted(set(base) & set(other))
            diffs = [other[n] - base[n] for n in common]
            rng = np.random.default_rng(1)
            low, high = bootstrap_mean(diffs, args.bootstrap, rng)
            row["vs_1x_by_image"] = {"images": len(common), "mean_difference": float(np.mean(diffs)) if diffs else None,
                                     "ci95": [low, high]}

    print(f"\nholdout of configs/<behaviour>.yaml resampled; image at 0.5x: 2x2 area mean, labels majority "
          f"(tie: top-left); at 2x: image {args.upsample}, labels nearest; evaluation settings of the config, "
          f"min_separation_px {'as in the config' if args.separation == 'pixels' else 'times the scale'}")
    header = (f"{'behaviour':19} {'scale':>11} {'images':>6} {'pairs':>5} {'learned':>8} {'[95 % over pairs]':>18} "
              f"{'feasible':>8} "
              f"{'uniform':>8} {'feasible':>8} {'learned vs uniform [95 %]':>28} {'minus 1x, by image [95 %]':>30}")
    print(header)
    for row in rows:
        low, high = row["learned_ci95"]
        ci = f"[{low:.3f}, {high:.3f}]" if low is not None else "-"
        vs = row["learned_vs_uniform"]
        gain = (f"{vs['gain']:+.3f} [{vs['ci95_low']:+.3f}, {vs['ci95_high']:+.3f}]"
                if vs.get("gain") is not None else "-")
        paired = "-"
        if row.get("vs_1x_by_image") and row["vs_1x_by_image"]["mean_difference"] is not None:
            p = row["vs_1x_by_image"]
            lo, hi = p["ci95"]
            paired = (f"{p['mean_difference']:+.3f} [{lo:+.3f}, {hi:+.3f}] ({p['images']})" if lo is not None
                      else f"{p['mean_difference']:+.3f} ({p['images']})")
        print(f"{row['behaviour']:19} {row['label']:>11} {row['images']:>6} {row['pairs']:>5} "
              f"{row['learned_cost_ratio']:8.3f} {ci:>18} "
              f"{row['learned_feasible']:8.2f} {row['uniform_cost_ratio']:8.3f} {row['uniform_feasible']:8.2f} "
              f"{gain:>28} {paired:>30}")
    print("learned vs uniform: mean over pairs of (uniform - learned cost ratio) within the scale, > 0: learned "
          "better, bootstrap over pairs; minus 1x: mean over images of (image's mean learned cost ratio at the scale "
          "- at 1x), "
          "> 0: worse than at 1x, (n) images with pairs at both scales")
    for b in behaviours:
        c = next((r["classifier_cost_ratio_model_file"] for r in rows if r["behaviour"] == b), None)
        if c is not None:
            print(f"classifier (model file's holdout figure, 1x only): {b} {c:.3f}")
    print(json.dumps({"benchmark": "scale_holdout", "upsample": args.upsample, "label_downsample": "majority",
                      "separation": args.separation, "reseed": args.reseed, "in_metres": args.in_metres,
                      "upsample_features": args.upsample_features, "areas": args.areas,
                      "bootstrap": args.bootstrap,
                      "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
