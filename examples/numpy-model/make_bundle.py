#!/usr/bin/env python3
"""From a model trained in this script to a study, with numpy only (no
download): a logistic regression is trained to tell vertical from
horizontal stripes on 48x48 pictures whose corner badge (red or blue) went
with the class in 85 % of its training pictures. Stripes at random
positions are beyond a linear model, so it learned the badge: it answers
"vertical" for red and "horizontal" for blue, whatever the stripes. Two
attribution methods of its answers become the study's conditions:

  gradient_x_input  each pixel's weight times its difference from the mean
                    training picture, summed over the colour channels, as
                    evidence for the model's answer (a 48x48 map as
                    float64, which simlab.heatmap() writes as float32)
  occlusion         how much the model's evidence for its answer drops when
                    each 8x8 patch is greyed out (a 6x6 map, shown
                    upsampled over the picture)

The study is a Hase & Bansal forward test (hase-forward): 8 learning
examples and 16 test pictures with as many true and false positives and
negatives; simlab's own consent, instructions and debrief pages (no
"pages" given); simulated participants are assumed to predict the model
better with the maps.

Usage: make_bundle.py [OUT]  (default: this folder). Needs numpy; run
`simlab simulate OUT --db sim.db --participants 40 --policy mixed`, then
`simlab-analyze sim.db --include-simulated --out report` to try it.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import simlab  # noqa: E402

SIDE = 48
CLASSES = ["vertical", "horizontal"]


def picture(rng, cls, badge):
    """A 48x48 RGB picture: stripes of the class with noise, and a red
    (badge 0) or blue (badge 1) square in the upper left corner."""
    period = rng.integers(6, 10)
    phase = rng.integers(0, period)
    t = np.arange(SIDE)
    wave = ((t + phase) % period < period // 2).astype(float)
    stripes = np.tile(wave, (SIDE, 1)) if cls == 0 else \
        np.tile(wave[:, None], (1, SIDE))
    grey = 0.35 + 0.4 * stripes + rng.normal(0, 0.12, (SIDE, SIDE))
    img = np.repeat(grey[:, :, None], 3, axis=2)
    img[2:12, 2:12] = (0.9, 0.15, 0.1) if badge == 0 else (0.1, 0.25, 0.9)
    return (np.clip(img, 0, 1) * 255).round().astype(np.uint8)


def features(img):
    return img.reshape(-1).astype(float) / 255.0 - 0.5


def train(X, y, steps=300, rate=0.5, l2=0.5):
    """Logistic regression by gradient descent: weights and intercept."""
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(X @ w + b)))
        g = p - y
        w -= rate * (X.T @ g / len(y) + l2 * w)
        b -= rate * g.mean()
    return w, b


def logit(w, b, img):
    return float(features(img) @ w + b)


def gradient_x_input(w, b, img, mean):
    """w_i * (x_i - mean_i) summed over the channels, signed toward the
    model's answer: a 48x48 float64 map."""
    sign = 1 if logit(w, b, img) >= 0 else -1
    return sign * (w * (features(img) - mean)).reshape(SIDE, SIDE,
                                                       3).sum(axis=2)


def occlusion(w, b, img, patch=8):
    """The drop of the evidence for the model's answer when each patch is
    grey: a (48/patch) x (48/patch) map."""
    z = logit(w, b, img)
    sign = 1 if z >= 0 else -1
    n = SIDE // patch
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            grey = img.copy()
            grey[i * patch:(i + 1) * patch, j * patch:(j + 1) * patch] = 128
            out[i, j] = sign * (z - logit(w, b, grey))
    return out


def main(out):
    rng = np.random.default_rng(7)
    # training data: the badge goes with the class 85 % of the time
    ys = rng.integers(0, 2, 400)
    badges = np.where(rng.random(400) < 0.85, ys, 1 - ys)
    X = np.stack([features(picture(rng, c, k)) for c, k in zip(ys, badges)])
    # class 0 (vertical) is the model's positive answer: y = 1 - class
    w, b = train(X, 1.0 - ys)
    mean = X.mean(axis=0)

    study = simlab.Study(
        id="numpy-model",
        title="Stripes or badge? Attribution maps of a small model",
        notes="Written by make_bundle.py: a logistic regression trained "
              "there with numpy, and two attribution maps of its answers.",
        domain="image",
        classes=[{"id": "vertical", "label": "Vertical stripes", "key": "f"},
                 {"id": "horizontal", "label": "Horizontal stripes",
                  "key": "j"}],
        conditions={"baseline": None, "gradient_x_input": "gradient_x_input",
                    "occlusion": "occlusion"},
        baseline="baseline",
        protocol={"preset": "hase-forward", "n_learn": 8, "n_test": 16},
        simulation={"p": 0.6, "cells": [
            {"condition": "gradient_x_input", "phase": "post", "p": 0.72},
            {"condition": "occlusion", "phase": "post", "p": 0.68}]},
    )
    # new pictures until the pools are full: learning examples of any
    # kind, test pictures as many of each prediction type (TP, FP, TN, FN)
    want = {"learn": {None: 8}, "test": {t: 4 for t in
                                         ("TP", "FP", "TN", "FN")}}
    counts = {"learn": {None: 0}, "test": {t: 0 for t in want["test"]}}
    n = 0
    while any(counts[p][t] < want[p][t] for p in want for t in want[p]):
        cls = int(rng.integers(0, 2))
        badge = int(rng.integers(0, 2))
        img = picture(rng, cls, badge)
        pred = 0 if logit(w, b, img) >= 0 else 1
        kind = ("T" if pred == cls else "F") + ("P" if pred == 0 else "N")
        pool = "learn" if counts["learn"][None] < 8 else "test"
        slot = None if pool == "learn" else kind
        if counts[pool][slot] >= want[pool][slot]:
            continue
        counts[pool][slot] += 1
        n += 1
        study.add_item(
            "%s%02d" % (pool[0], counts[pool][slot] if pool == "learn"
                        else n - 8), pool=pool, input=img,
            label=CLASSES[cls], prediction=CLASSES[pred],
            explanations={
                "gradient_x_input": simlab.heatmap(
                    gradient_x_input(w, b, img, mean), colormap="cividis"),
                "occlusion": simlab.heatmap(occlusion(w, b, img),
                                            colormap="magma", opacity=0.6),
            })
    return study.write(out, overwrite=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE)
