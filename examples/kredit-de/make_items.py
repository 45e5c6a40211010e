#!/usr/bin/env python3
"""Writes items.jsonl of the German credit example: made-up applicants, a
small linear scoring model, its feature weights ("balken") and a German
prose rationale ("begruendung"). Deterministic: run it again to get the
same file."""
import json
import random

rng = random.Random(20)
FEATURES = [
    # name, values, weight per value (the model's evidence)
    ("Alter", ["unter 25", "25 bis 40", "über 40"], [-0.4, 0.1, 0.3]),
    ("Einkommen", ["niedrig", "mittel", "hoch"], [-0.8, 0.1, 0.9]),
    ("Laufzeit", ["12 Monate", "36 Monate", "60 Monate"], [0.4, 0.0, -0.5]),
    ("Bestehende Schulden", ["keine", "wenige", "viele"], [0.5, -0.1, -0.9]),
    ("Beschäftigt seit", ["unter 1 Jahr", "1 bis 5 Jahre", "über 5 Jahre"],
     [-0.5, 0.1, 0.4]),
]
INTERCEPT = 0.05


def item(pool, k):
    vals = [rng.randrange(3) for _ in FEATURES]
    ws = [f[2][v] for f, v in zip(FEATURES, vals)]
    total = INTERCEPT + sum(ws)
    pred = "gut" if total >= 0 else "schlecht"
    # the true outcome agrees with the model three times in four
    label = pred if rng.random() < 0.75 else ("schlecht" if pred == "gut" else "gut")
    feats = [{"name": f[0], "value": f[1][v], "weight": round(w, 2)}
             for f, v, w in zip(FEATURES, vals, ws)]
    feats.sort(key=lambda x: -abs(x["weight"]))
    s = round(sum(x["weight"] for x in feats), 2)
    top = feats[:2]
    def phrase(x):
        d = "spricht für" if x["weight"] > 0 else "spricht gegen"
        return "**%s: %s** %s einen guten Kredit" % (x["name"], x["value"], d)
    text = ("Das Modell stuft den Antrag als **%s** ein.\n\n%s, und %s. "
            "Die übrigen Angaben fallen weniger ins Gewicht." %
            ("gut" if pred == "gut" else "schlecht", phrase(top[0]), phrase(top[1])))
    return {
        "id": "%s%02d" % (pool[0], k), "pool": pool, "modality": "tabular",
        "input": [{"name": f[0], "value": f[1][v]} for f, v in zip(FEATURES, vals)],
        "label": label, "prediction": pred,
        "explanations": {
            "balken": {"kind": "features", "title": "Gewichte der Merkmale",
                       "features": feats, "intercept": INTERCEPT, "sum": s,
                       "output": round(INTERCEPT + s, 2)},
            "begruendung": {"kind": "text", "text": text},
        },
    }


with open("items.jsonl", "w", encoding="utf-8") as f:
    for pool, n in (("lernen", 12), ("test", 24)):
        for k in range(1, n + 1):
            f.write(json.dumps(item(pool, k), ensure_ascii=False) + "\n")
