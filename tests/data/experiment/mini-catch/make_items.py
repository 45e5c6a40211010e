#!/usr/bin/env python3
"""Writes items.jsonl of the mini-catch fixture: 70 learn items (a reservoir
larger than any fixed limit) and 8 test items with counterfactuals."""
import json

with open("items.jsonl", "w") as f:
    for k in range(70):
        pred = "pos" if k % 2 == 0 else "neg"
        f.write(json.dumps({"id": "l%02d" % k, "pool": "learn", "modality": "text",
                            "input": "review number %d" % k, "label": pred,
                            "prediction": pred}) + "\n")
    for k in range(8):
        pred = "pos" if k % 2 == 0 else "neg"
        flip = "neg" if k % 4 < 2 else "pos"
        f.write(json.dumps({"id": "t%d" % k, "pool": "test", "modality": "text",
                            "input": "test review %d" % k, "label": pred,
                            "prediction": pred,
                            "counterfactual": {"input": "test review %d **changed**" % k,
                                               "prediction": flip}}) + "\n")
