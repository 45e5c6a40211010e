#!/usr/bin/env python3
"""Writes the worked examples of docs/study-format.md "Showing a new
explanation method" with simlab's Python package: one meta-predictor study
whose conditions show five explanation methods built from simlab's
primitives, on pictures of the demo image study (assets/studies/image-meta,
whose model reads the background):

  concepts      labelled concept patches (a gallery with weights)
  prototype     "this looks like that": the region the model used beside a
                training picture of the class it answered (a row layout)
  counterfactual the picture and the same picture on the other ground, with
                the model's answers (a row layout of two images)
  rationale     a prose rationale written as a language model would
                (markdown)
  on_request    the rationale behind a "Show explanation" button

Usage: make_bundle.py [OUT]  (default: this folder; the outputs are
committed, and the tests check that this script writes them byte for
byte). Needs numpy.
"""
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import simlab  # noqa: E402

# the demo study: in the source tree, or installed beside these examples
# (/usr/share/doc/simlab/examples -> /usr/share/simlab/studies)
DEMO = next(d for d in (
    os.path.join(HERE, "..", "..", "assets", "studies", "image-meta"),
    os.path.join(HERE, "..", "..", "..", "..", "simlab", "studies",
                 "image-meta"))
    if os.path.isdir(d))

# Items taken from the demo: pool -> ids (balanced per pool as the
# meta-predictor preset asks: as many TP, FP, TN and FN).
PICK = {
    "practice_train": ["pe01", "pe02", "pe03", "pe04"],
    "practice": ["pq01", "pq02", "pq03", "pq04"],
    "train": ["tr01", "tr02", "tr03", "tr12", "tr04", "tr05", "tr10", "tr13"],
    "test": ["te01", "te02", "te08", "te04", "te06", "te03", "te10", "te05"],
}

STUDY = dict(
    id="explanation-methods",
    title="Worked examples: five explanation methods built from primitives",
    notes="docs/study-format.md, \"Showing a new explanation method\". The "
          "pictures and attribution maps are the demo image study's "
          "(assets/studies/image-meta); make_bundle.py writes this bundle "
          "from them with simlab's Python package.",
    domain="image",
    classes=[{"id": "rabbit", "label": "Rabbit", "key": "f"},
             {"id": "bird", "label": "Bird", "key": "j"}],
    conditions={"baseline": None, "concepts": "concepts",
                "prototype": "prototype", "counterfactual": "counterfactual",
                "rationale": "rationale", "on_request": "on_request"},
    baseline="baseline",
    protocol={"preset": "meta-predictor", "sessions": 2, "n_train": 4,
              "n_test": 4, "n_catch": 0, "n_practice": 4},
    pages={"consent": "pages/consent.md",
           "instructions": "pages/instructions.md",
           "debrief": "pages/debrief.md"},
    quiz={"questions": [
        {"text": "In the test, what do you predict?",
         "options": ["Which animal is really in the picture",
                     "What the model answers for the picture"],
         "answer": 1},
        {"text": "Is the model always right?",
         "options": ["No, it is often wrong", "Yes, it is always right"],
         "answer": 0}]},
    simulation={
        "_about": "Assumed accuracies of simulated participants; reveal_p: "
                  "how often a simulated participant opens an explanation "
                  "given on request.",
        "p": 0.6,
        "cells": [
            {"condition": None, "phase": "test", "p": 0.55},
            {"condition": "concepts", "phase": "test", "p": 0.7},
            {"condition": "prototype", "phase": "test", "p": 0.62},
            {"condition": "counterfactual", "phase": "test", "p": 0.74},
            {"condition": "rationale", "phase": "test", "p": 0.72},
            {"condition": "on_request", "phase": "test", "p": 0.68},
            {"condition": None, "phase": "practice", "p": 0.85}],
        "reveal_p": 0.7},
)


# ------------------------------------------------------------- the ground

def snowy(rgb):
    """Whether the ground (bottom quarter) is snow: bright and grey."""
    h = rgb.shape[0]
    bright = rgb[h * 3 // 4:].min(axis=2) > 170
    return int(bright.sum()) > bright.size // 2


def other_ground(rgb, snow):
    """The same picture on the other ground: on snow, the snow-like pixels
    of the lower half become grass; on grass, the grass-like ones snow (the
    animal, neither, is kept)."""
    out = rgb.copy()
    h, w = rgb.shape[:2]
    y, x = np.mgrid[0:h, 0:w]
    i = x * 3  # the byte of the pixel in its row
    r, g, b = (rgb[..., k].astype(int) for k in range(3))
    lower = y >= h // 2
    if snow:
        m = lower & (rgb.min(axis=2) > 170) & (b >= r)
        out[m] = np.stack([86 + (y * 7 + i) % 17, np.full_like(y, 158),
                           np.full_like(y, 70)], axis=-1)[m]
    else:
        m = lower & (g > r + 40) & (g > b + 40)
        out[m] = np.stack([np.full_like(y, 236), np.full_like(y, 238),
                           246 - (y + i) % 9], axis=-1)[m]
    return out


# ------------------------------------------------------------- the texts

def label(cls):
    return {"rabbit": "Rabbit", "bird": "Bird"}[cls]


def other(cls):
    return "bird" if cls == "rabbit" else "rabbit"


def rationale(pred, snow):
    ground = "snow" if snow else "grass"
    return (
        "The model answers **%s** mainly because of the *%s* on the "
        "ground, not because of the animal.\n\n"
        "- the ground takes up a quarter of the picture, and the model "
        "relies on it most\n"
        "- the animal's ears, beak and tail count for little\n\n"
        "Expect the same answer for any animal on %s.  \n"
        "(written by a language model from the model's attribution map)"
        % (label(pred), ground, ground))


def concept_weights(gradcam, w, h, regions):
    """The share of the attribution map's positive mass whose cell centres
    lie inside each region."""
    mh, mw = gradcam.shape
    cy, cx = np.mgrid[0:mh, 0:mw]
    px, py = (cx + 0.5) * w / mw, (cy + 0.5) * h / mh
    heat = {}
    for name, (x0, y0, x1, y1) in regions.items():
        inside = (x0 <= px) & (px < x1) & (y0 <= py) & (py < y1)
        heat[name] = sum(max(v, 0.0) for v in gradcam[inside].tolist())
    total = sum(heat.values()) or 1.0
    return {name: round(v / total, 2) for name, v in heat.items()}


def explanations(iid, src, pred, protos):
    rgb = simlab.read_png(src)
    h, w = rgb.shape[:2]
    snow = snowy(rgb)
    gradcam_file = os.path.join(DEMO, "media", iid + "-gradcam.npy")
    regions = {"sky": (0, 0, w, h // 4),
               "animal": (w // 4, h // 4, 3 * w // 4, 3 * h // 4),
               "ground": (0, 3 * h // 4, w, h)}
    weight = concept_weights(np.load(gradcam_file), w, h, regions)
    captions = {"sky": "the sky", "animal": "the animal",
                "ground": "snow on the ground" if snow
                else "grass on the ground"}
    patches = []
    for name in ("ground", "animal", "sky"):
        x0, y0, x1, y1 = regions[name]
        patches.append({"file": simlab.media(rgb[y0:y1, x0:x1],
                                             "%s-%s.png" % (iid, name)),
                        "caption": captions[name], "weight": weight[name]})
    text = rationale(pred, snow)
    return {
        "concepts": simlab.gallery(
            patches, columns=3,
            title="Concepts the model found, and how much each counted"),
        "prototype": simlab.layout("row", [
            simlab.image(caption="The region the model used in this picture",
                         overlay=simlab.heatmap(gradcam_file,
                                                colormap="magma",
                                                opacity=0.55)),
            simlab.image(simlab.media(protos[pred],
                                      "prototype-%s.png" % pred),
                         caption="looks like this prototype of %s"
                                 % label(pred))],
            title="This looks like that"),
        "counterfactual": simlab.layout("row", [
            simlab.image(src, caption="As it is: the model says %s"
                                      % label(pred)),
            simlab.image(simlab.media(other_ground(rgb, snow),
                                      iid + "-other-ground.png"),
                         caption="On %s: the model says %s"
                                 % ("grass" if snow else "snow",
                                    label(other(pred))))],
            title="The smallest change that flips the answer"),
        "rationale": simlab.markdown(text),
        "on_request": simlab.markdown(text, reveal="on_request"),
    }


INSTRUCTIONS = """# Your task

A computer program, **the model**, looks at a picture and decides whether it shows a **rabbit** or a **bird**. It is **often wrong**.

**Predict the model's answer, not which animal is really in the picture.** To do that, find out what the model pays attention to.

# How the study works

- **Practice.** A few example pictures with the answers of a model that is nearly always right, then 4 pictures to predict, with feedback.
- **Quiz.** Two questions about these instructions.
- **Two rounds.** Each round: 4 training pictures with the model's answers (and, depending on your group, an explanation of each answer), then 4 new pictures whose answer you predict: press **F** for Rabbit or **J** for Bird. The training pictures stay at the top of the screen.

# Explanations

Depending on your group, an explanation shows how the model came to its answer: parts of the picture it relied on, a training picture the answer resembles, a change that would flip the answer, or a short text. In one group the explanation is hidden until you press **Show explanation** (or the E key); look at it as often as you like.
"""


def main(out):
    demo = {}
    for line in open(os.path.join(DEMO, "items.jsonl")):
        item = json.loads(line)
        demo[item["id"]] = item
    # the prototypes: the first training picture of each answer
    protos = {}
    for iid in PICK["train"]:
        protos.setdefault(demo[iid]["prediction"],
                          os.path.join(DEMO, demo[iid]["input"]))
    study = simlab.Study(**STUDY)
    for pool, ids in PICK.items():
        for iid in ids:
            d = demo[iid]
            src = os.path.join(DEMO, d["input"])
            # only examples are shown with explanations
            expl = (explanations(iid, src, d["prediction"], protos)
                    if pool in ("practice_train", "train") else None)
            study.add_item(iid, pool=pool, input=src, label=d["label"],
                           prediction=d["prediction"], explanations=expl)
    for page in ("consent.md", "debrief.md"):
        study.add_file("pages/" + page,
                       source=os.path.join(DEMO, "pages", page))
    study.add_page("pages/instructions.md", INSTRUCTIONS)
    for d in ("media", "pages"):
        shutil.rmtree(os.path.join(out, d), ignore_errors=True)
    return study.write(out, overwrite=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE)
