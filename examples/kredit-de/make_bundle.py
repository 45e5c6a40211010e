#!/usr/bin/env python3
"""Writes the German credit example with simlab's Python package: made-up
applicants, a small linear scoring model, its feature weights ("balken")
and a German prose rationale ("begruendung"), in a within-subject study
whose conditions are each one run of blocks (assignment.repeat).
Deterministic: run it again to get the same files.

Usage: make_bundle.py [OUT]  (default: this folder; the outputs are
committed, and the tests check that this script writes them byte for
byte)."""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import simlab  # noqa: E402

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

STUDY = dict(
    id="kredit-de",
    title="Kreditentscheidungen vorhersagen: Balken, Begründung oder nichts?",
    notes="A within-subject study in German: every participant sees all "
          "three conditions (latin square). Each condition is one run of "
          "blocks (assignment.repeat): examples, a timed test with "
          "confidence, an attention check made of catch trials only, a "
          "trust questionnaire and a pause. The baseline is the condition "
          "without explanations, named 'ohne' and listed last. The closing "
          "questionnaire 'person' is asked once, after all conditions "
          "(\"once\": true). make_bundle.py writes this bundle.",
    language="de",
    domain="tabular",
    classes=[{"id": "gut", "label": "Guter Kredit", "key": "g"},
             {"id": "schlecht", "label": "Schlechter Kredit", "key": "s"}],
    conditions={"balken": "balken", "begruendung": "begruendung",
                "ohne": None},
    baseline="ohne",
    assignment={"mode": "within", "order": "latin-square",
                "repeat": ["lernen", "test", "achtung", "vertrauen",
                           "pause"]},
    screening={"max_catch_failures": 2},
    blocks=[
        {"kind": "consent", "pages": ["pages/einwilligung.md"]},
        {"kind": "instructions", "pages": ["pages/anleitung.md"]},
        {"kind": "learn", "id": "lernen", "pool": "lernen", "n": 4,
         "title": "Beispiele",
         "show": {"label": False, "prediction": True, "explanation": True}},
        {"kind": "predict", "id": "test", "pool": "test", "n": 8,
         "phase": "post", "title": "Was sagt das Modell?",
         "time_limit_ms": 15000,
         "timeout_message": "Die Zeit ist abgelaufen.",
         "deadline_display": "countdown",
         "confidence": {"points": 5, "question": "Wie sicher sind Sie?",
                        "low": "Gar nicht", "high": "Sehr sicher"}},
        {"kind": "predict", "id": "achtung", "n": 0, "catch": 1,
         "reservoir": "lernen", "phase": "post",
         "title": "Kurze Aufmerksamkeitsprüfung"},
        {"kind": "questionnaire", "id": "vertrauen", "title": "Ihr Eindruck",
         "questions": [
             {"id": "vertrauen", "type": "likert",
              "text": "Ich vertraue den Entscheidungen des Modells.",
              "points": 7, "low": "Stimme gar nicht zu",
              "high": "Stimme voll zu"},
             {"id": "aufwand", "type": "number",
              "text": "Wie anstrengend war dieser Teil, von 0 (leicht) bis "
                      "10 (sehr schwer)?",
              "min": 0, "max": 10}]},
        {"kind": "break", "id": "pause",
         "text": "Dieser Teil ist geschafft. Der nächste funktioniert "
                 "genauso, mit anderen Anträgen und einer anderen Art von "
                 "Hilfe."},
        {"kind": "questionnaire", "id": "person", "title": "Zum Schluss",
         "once": True,
         "questions": [
             {"id": "erfahrung", "type": "choice",
              "text": "Wie viel wissen Sie über maschinelles Lernen?",
              "options": ["Nichts", "Ein wenig", "Ich nutze es beruflich",
                          "Ich entwickle Modelle"]}]},
        {"kind": "debrief", "pages": ["pages/abschluss.md"]},
    ],
    simulation={"p": 0.6,
                "cells": [
                    {"condition": "balken", "phase": "post", "p": 0.8},
                    {"condition": "begruendung", "phase": "post", "p": 0.7}],
                "participant_sd": 0.4, "item_sd": 0.4,
                "rt_median_ms": 5000},
)

PAGES = {
    "pages/einwilligung.md": """# Einwilligung

In dieser Studie sehen Sie Kreditanträge und sagen voraus, wie ein Computermodell über sie
entscheidet. Die Teilnahme dauert etwa 20 Minuten und ist freiwillig. Ihre Antworten werden
pseudonym gespeichert.

Wenn Sie teilnehmen möchten, stimmen Sie bitte zu.
""",
    "pages/anleitung.md": """# Anleitung

Sie durchlaufen drei Teile. In jedem Teil sehen Sie zuerst einige **Beispiele**: einen Antrag
und die Entscheidung des Modells, manchmal mit einer Erklärung. Danach sagen Sie für neue
Anträge voraus, **was das Modell entscheidet** – nicht, ob der Kredit tatsächlich gut ist.

Drücken Sie **G** für „Guter Kredit“ und **S** für „Schlechter Kredit“. Für jede Antwort haben
Sie 15 Sekunden.
""",
    "pages/abschluss.md": """# Vielen Dank

Das Modell war ein einfaches lineares Punktesystem über fünf Merkmale. Die Anträge sind
erfunden.
""",
}


def add_applicant(study, pool, k):
    vals = [rng.randrange(3) for _ in FEATURES]
    ws = [f[2][v] for f, v in zip(FEATURES, vals)]
    total = INTERCEPT + sum(ws)
    pred = "gut" if total >= 0 else "schlecht"
    # the true outcome agrees with the model three times in four
    label = pred if rng.random() < 0.75 else (
        "schlecht" if pred == "gut" else "gut")
    feats = sorted(((f[0], f[1][v], round(w, 2))
                    for f, v, w in zip(FEATURES, vals, ws)),
                   key=lambda x: -abs(x[2]))
    s = round(sum(x[2] for x in feats), 2)

    def phrase(x):
        d = "spricht für" if x[2] > 0 else "spricht gegen"
        return "**%s: %s** %s einen guten Kredit" % (x[0], x[1], d)
    text = ("Das Modell stuft den Antrag als **%s** ein.\n\n%s, und %s. "
            "Die übrigen Angaben fallen weniger ins Gewicht."
            % (pred, phrase(feats[0]), phrase(feats[1])))
    study.add_item(
        "%s%02d" % (pool[0], k), pool=pool,
        input={f[0]: f[1][v] for f, v in zip(FEATURES, vals)},
        label=label, prediction=pred,
        explanations={
            "balken": simlab.features(
                [x[0] for x in feats], [x[2] for x in feats],
                values=[x[1] for x in feats], intercept=INTERCEPT, sum=s,
                output=round(INTERCEPT + s, 2),
                title="Gewichte der Merkmale"),
            "begruendung": simlab.text(text),
        })


def main(out):
    study = simlab.Study(**STUDY)
    for pool, n in (("lernen", 12), ("test", 24)):
        for k in range(1, n + 1):
            add_applicant(study, pool, k)
    for path, text in PAGES.items():
        study.add_page(path, text)
    return study.write(out, overwrite=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE)
