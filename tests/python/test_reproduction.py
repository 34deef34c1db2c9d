"""The OCR and Yeast figures of `mmp ocr` and `mmp multilabel`, reproduced from Python bit for bit (the quick
version of tools/python/reproduce_structured.py: OCR fold 0, Yeast at lambda 0.1).  Needs the shared data."""

import os
import sys

import pytest

from conftest import SOURCE_DIR, data_root, mmp_executable, need_data

sys.path.insert(0, os.path.join(SOURCE_DIR, "tools", "python"))
import reproduce_structured  # noqa: E402  (a script of tools/python)


def test_ocr_words_fold_0_equal_the_command_line(tmp_path):
    need_data("ocr", "letter.data.gz")
    rows = reproduce_structured.ocr_figures(mmp_executable(), data_root(), [0], str(tmp_path))
    assert len(rows) == 3
    for name, cpp, python in rows:
        assert cpp == python, name
    assert 0.1 < rows[-1][1] < 0.3  # a letter error, not a degenerate figure


def test_yeast_at_lambda_0_1_equals_the_command_line(tmp_path):
    need_data("multilabel", "yeast", "yeast_train.svm")
    rows = reproduce_structured.yeast_figures(mmp_executable(), data_root(), [0.1], str(tmp_path))
    assert [name for name, _, _ in rows][-1] == "Yeast: test subset error"
    for name, cpp, python in rows:
        assert cpp == python, name
    assert 0.15 < dict((n, c) for n, c, _ in rows)["Yeast: test Hamming loss"] < 0.25
