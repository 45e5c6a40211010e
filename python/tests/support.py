"""What the tests of simlab's Python package share: the source tree, the
programs under test ($SIMLAB, $SIMLAB_ANALYZE, as ctest sets them), a
scratch folder per test, a small valid study."""
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import simlab  # noqa: E402

EXAMPLES = os.path.join(ROOT, "examples")
ASSETS = os.path.join(ROOT, "assets", "studies")


class Scratch(unittest.TestCase):
    """A test with a fresh folder self.tmp, removed afterwards."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="simlab-py-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)


def image_study(**extra):
    """A hase-forward image study with two conditions, no items yet."""
    fields = dict(id="py-test", title="Python package test",
                  classes=["cat", "dog"],
                  conditions={"baseline": None, "sal": "sal"},
                  protocol={"preset": "hase-forward", "n_learn": 4,
                            "n_test": 8})
    fields.update(extra)
    return simlab.Study(**fields)


def fill(study, rng, explain=None, size=(32, 32)):
    """Balanced learn (4) and test (8) pools of random pictures; explain(k,
    picture) gives an item's explanations (default: a heatmap)."""
    for pool, n in (("learn", 4), ("test", 8)):
        for k in range(n):
            pic = rng.integers(0, 256, size + (3,), dtype=np.uint8)
            expl = explain(k, pic) if explain else {
                "sal": simlab.heatmap(rng.random(size))}
            study.add_item("%s%d" % (pool, k), pool=pool, input=pic,
                           label=["cat", "dog"][k % 2],
                           prediction=["cat", "dog"][k // 2 % 2],
                           explanations=expl)
    return study


def read_items(bundle):
    import json
    with open(os.path.join(bundle, "items.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]
