#!/usr/bin/env python3
"""A bench bundle of 40 image predictions, each showing its explanation,
alternating two kinds: the 1st, 3rd, ... a six-image gallery with a markdown
paragraph (a column layout), the 2nd, 4th, ... a heatmap over the picture --
so both are measured in the same run, trial by trial. Every trial has files
of its own (copies of the image fixture), decoded as a new trial's would be.
Usage: expl_bundles.py FIXTURE_DIR OUT_DIR  (writes OUT_DIR/mixed)
"""
import json
import os
import shutil
import sys

N = 40
TEXT = ("The model answers **{p}** mainly because of the *snow* behind the "
        "animal, not because of the animal itself.\n\n- the background takes "
        "up most of the picture\n- the ears and the muzzle count for little\n\n"
        "Expect the same answer for any animal in front of snow.")


def bundle(fix, out, method, payloads):
    media = os.path.join(out, "media")
    os.makedirs(media)
    items = []
    for k in range(N):
        src = os.path.join(fix, "media", "img%d.png" % (k % 6))
        shutil.copy(src, os.path.join(media, "in-%d.png" % k))
        label = "husky" if k % 2 == 0 else "wolf"
        pred = label if k % 3 else ("wolf" if label == "husky" else "husky")
        items.append({"id": "t%d" % k, "pool": "test", "modality": "image",
                      "input": "media/in-%d.png" % k, "label": label,
                      "prediction": pred,
                      "explanations": {method: payloads[k % 2](fix, media, k,
                                                               pred)}})
    with open(os.path.join(out, "items.jsonl"), "w") as f:
        for it in items:
            f.write(json.dumps(it) + "\n")
    study = {
        "simlab_study": 1, "id": "bench-" + method,
        "title": "Benchmark: " + method, "domain": "images",
        "classes": [{"id": "husky", "label": "Husky", "key": "f"},
                    {"id": "wolf", "label": "Wolf", "key": "j"}],
        "conditions": [{"id": method, "method": method}],
        "blocks": [{"kind": "predict", "id": "test", "pool": "test",
                    "order": "fixed", "show": {"explanation": True,
                                               "prediction": True}}],
        "items": [{"file": "items.jsonl"}]}
    with open(os.path.join(out, "study.json"), "w") as f:
        json.dump(study, f, indent=1)


def gallery(fix, media, k, pred):
    images = []
    for j in range(6):
        name = "g-%d-%d.png" % (k, j)
        shutil.copy(os.path.join(fix, "media", "img%d.png" % ((k + j) % 6)),
                    os.path.join(media, name))
        images.append({"file": "media/" + name, "caption": "concept %d" % (j + 1),
                       "weight": round(0.4 - 0.07 * j, 2)})
    return {"kind": "layout", "direction": "column",
            "parts": [{"kind": "gallery", "columns": 3, "images": images},
                      {"kind": "markdown", "text": TEXT.format(p=pred.title())}]}


def heatmap(fix, media, k, pred):
    name = "map-%d.npy" % k
    shutil.copy(os.path.join(fix, "media", "map%d.npy" % (k % 6)),
                os.path.join(media, name))
    return {"kind": "heatmap", "file": "media/" + name, "opacity": 0.55}


def main():
    fix, out = sys.argv[1], sys.argv[2]
    bundle(fix, os.path.join(out, "mixed"), "mixed", (gallery, heatmap))


if __name__ == "__main__":
    main()
