"""Training and scoring cost models from arrays or files: the maps_training pipeline of `mmp train`."""

import json
from dataclasses import dataclass

import numpy as np

from . import _mmp


def _merged(base, over):
    """`over` laid over `base` as a config's `base:` is: maps merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def _settings(settings, sections):
    if settings is not None and not isinstance(settings, dict):
        raise _mmp.ConfigError(f"the settings must be a dict, got {type(settings).__name__}")
    return _merged(settings or {}, sections)


def _records(columns):
    """Columns (a dict of equal-length lists) as a NumPy record array; None without rows."""
    names = list(columns)
    if not names or len(columns[names[0]]) == 0:
        return None
    return np.rec.fromarrays([np.asarray(columns[n]) for n in names], names=names)


@dataclass
class TrainingRun:
    """What mmp.train returns.

    model:   the trained mmp.CostModel (model.save(path) writes the file `mmp train` writes)
    metrics: the dict `mmp train` writes to metrics.json (null figures as None): the learner's report
             (learner, epochs, objective, learner_info, bias, training_prediction_loss, train_seconds,
             epoch_seconds, trace, ...) and, with holdout images, the holdout table (methods: per method
             cost_ratio_mean, cost_ratio_p95, dist_mean_px, dist_p95_px, mhd_mean_px, mhd_p95_px,
             preferred_share, feasible_share, pairs), learned_vs (paired-bootstrap comparisons), class
             shares and per-image summaries (regions)
    pairs:   pairs.csv as a record array (region, pair, start/goal cells, method, cost_ratio, feasible,
             preferred_share, mhd_px, impassable_px), None without holdout images
    """

    model: object
    metrics: dict
    pairs: object = None

    @property
    def methods(self):
        """The holdout table: {method: {cost_ratio_mean, ...}}, empty without holdout images."""
        return self.metrics.get("methods", {})

    @property
    def table(self):
        """The holdout table as a record array, one row per method (in report order), or None."""
        rows = self.methods
        if not rows:
            return None
        columns = {"method": list(rows)}
        for key in next(iter(rows.values())):
            columns[key] = [rows[m][key] for m in rows]
        return _records(columns)

    @property
    def trace(self):
        """The learner's trace as a record array (iteration, value, weight_norm, elapsed_seconds)."""
        records = self.metrics.get("trace", [])
        if not records:
            return None
        return _records({key: [r.get(key) for r in records] for key in records[0]})


def train(train, holdout=None, settings=None, *, progress=None, threads=None, **sections):
    """Trains a cost model as `mmp train` does, from image arrays or files, and scores it on holdout images.

    train, holdout: lists of image entries, each a dict: either what a config's entry holds (image and
        labels files, images: a file pattern with labels: "masks/{stem}.png", demonstrations: a CSV
        file, synthetic: {seed: 1}; paths relative to data_root or $MMP_DATA_ROOT), or arrays:
        {"image": H x W x 3 uint8 (channels "rgb" by default, or "bgr"), "labels": H x W uint8 class
        indices, "demonstrations": [N x 2 arrays], "points": "cells" (row, col of the feature grid,
        the default) | "pixels" (row, col) | "world" (x, y in the image's frame), "name", "area",
        "resolution", "origin", "crs"}.  A training image needs labels or demonstrations; a holdout
        image needs labels.
    settings, **sections: the settings of a `mmp train` config (docs/config.md): classes, behaviour
        (required), features, demonstrations, loss, learner (with its online and batch sections),
        evaluation, classifier, data_root -- a dict, and/or keyword arguments for its top-level keys,
        laid over the dict key by key.  Keys are checked as in a config file.
    progress: called as progress(stage, done, total, detail) at each stage's start and end and at most
        every 0.2 s between; raising in it stops training.  Ctrl-C stops training (KeyboardInterrupt).
    threads: for the learners' oracle calls (0: every core; default: the learner's setting).

    Returns a TrainingRun (model, metrics, pairs).  The GIL is released while the pipeline runs.
    """
    model, metrics, pairs = _mmp._train(train, holdout, _settings(settings, sections), progress,
                                        -1 if threads is None else threads)
    return TrainingRun(model, json.loads(metrics), _records(pairs))


def evaluate(model, holdout, settings=None, *, progress=None, **sections):
    """Scores a trained model on holdout images with labels, as `mmp train` scores its holdout images
    (reference paths planned on the labels under the behaviour; the learned map against uniform costs).

    holdout: image entries as for train; settings: classes, behaviour (required) and evaluation (the
    features come from the model).  Returns (metrics, pairs): {behaviour, methods, learned_vs,
    holdout_pairs, reference_preferred_share, impassable_cost, and with evaluation.class_mean the
    misread_cells: {gap, ci95_low, ci95_high}} and the pairs as a record array.
    """
    metrics, pairs = _mmp._evaluate(model, holdout, _settings(settings, sections), progress)
    return json.loads(metrics), _records(pairs)


def teach(model, teach, holdout=None, settings=None, *, progress=None, **sections):
    """Teaches a trained model on a new site as `mmp adapt MODEL CONFIG` does (docs/teaching.md).

    model: a CostModel (linear, LEARCH or a cost network), never modified.
    teach: image entries as for train, each with demonstrations (a CSV file, or arrays) -- paths alone
        need no labels -- or with labels to generate demonstrations from (then a behaviour is needed).
    holdout: image entries with labels, scored as `mmp train` scores a holdout (optional).
    settings, **sections: adapt (lambda, epochs, learch_rounds, learch_step, learch_depth, network_lambda,
        network_step, network_epochs, network_head_only, min_cost,
        threads, held_out, loss: {radius_px, scale}), and for labels: classes, behaviour,
        demonstrations, evaluation; data_root.
    progress: as for train.

    Returns a TrainingRun: the adapted model, the metrics `mmp adapt` writes (teaching, held_out:
    each demonstration scored by the model taught on the others; with a holdout, methods and
    learned_vs with the parent), and the holdout's pairs.
    """
    adapted, metrics, pairs = _mmp._teach(model, teach, holdout, _settings(settings, sections), progress)
    return TrainingRun(adapted, json.loads(metrics), _records(pairs))

