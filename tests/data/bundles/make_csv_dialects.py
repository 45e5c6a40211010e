#!/usr/bin/env python3
"""Writes the CSV-dialect and language fixtures under tests/data/bundles/:

  valid-csv-dialects   item banks as a European Excel writes them: ';' with
                       UTF-8, ';' with Windows-1252 (umlauts, euro sign,
                       typographic quotes), ',' with Latin-1, tab with UTF-16
                       (byte order mark, CRLF), and a ';' Windows-1252
                       explanation source; all declared.
  bad-csv-semicolon    a ';' file without "delimiter": one error.
  bad-csv-1252         a Windows-1252 file without "encoding": one error.
  bad-csv-column       a mapped column missing: the error lists the header.
  valid-lang           "language": "de" with one "ui" override.
  valid-lang-file      "language": "x-test" with "language_file".
  bad-lang             unknown language, unknown key, changed placeholder.

Run from the repository root: python3 tests/data/bundles/make_csv_dialects.py
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

CLASSES = [{"id": "pos", "label": "Positive"}, {"id": "neg", "label": "Negative"}]

ROWS = [
    ("s1", "ein Müller aß Käse für 5 €", "pos", "pos"),
    ("s2", "„schlecht“ – sagte sie; nie wieder", "neg", "neg"),
    ("s3", "très bien, merci", "pos", "neg"),
]


def study(banks, blocks, extra=None, expl=None):
    d = {
        "simlab_study": 1,
        "id": "fixture",
        "title": "CSV dialects",
        "classes": CLASSES,
        "conditions": [{"id": "baseline", "method": None}],
        "blocks": blocks,
        "items": banks,
    }
    if expl:
        d["explanations"] = expl
        d["conditions"].append({"id": "notes", "method": "notes"})
    if extra:
        d.update(extra)
    return d


def csv_text(rows, delim, header=("id", "text", "label", "pred"), eol="\n"):
    def cell(v):
        if any(c in v for c in (delim, '"', "\n")):
            return '"' + v.replace('"', '""') + '"'
        return v

    lines = [delim.join(header)] + [delim.join(cell(v) for v in r) for r in rows]
    return eol.join(lines) + eol


def bank(file, pool, **kw):
    b = {"file": file, "pool": pool, "modality": "text",
         "columns": {"id": "id", "input": "text", "label": "label", "prediction": "pred"}}
    b.update(kw)
    return b


def write(dirname, files):
    path = os.path.join(HERE, dirname)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    for name, data in files.items():
        full = os.path.join(path, name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if isinstance(data, dict):
            data = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        with open(full, "wb") as f:
            f.write(data)


def predict(pool):
    return {"kind": "predict", "id": "p_" + pool, "pool": pool}


def main():
    latin_rows = [(i, "café crème à côté", l, p) for i, _, l, p in ROWS]
    utf16_rows = [(i, t + " 日本 \U0001F600", l, p) for i, t, l, p in ROWS]
    notes = csv_text([("s1", "Größe: +0,6 €"), ("s2", "„nie“: –0,7")], ";",
                     header=("id", "note"))
    write("valid-csv-dialects", {
        "study.json": study(
            [bank("semi.csv", "semi", delimiter=";"),
             bank("w1252.csv", "w1252", delimiter=";", encoding="windows-1252"),
             bank("latin1.csv", "latin1", encoding="latin-1"),
             bank("utf16.csv", "utf16", delimiter="\t", encoding="utf-16")],
            [predict(p) for p in ("semi", "w1252", "latin1", "utf16")],
            expl=[{"method": "notes", "file": "notes.csv", "pool": "w1252",
                   "kind": "text", "delimiter": ";", "encoding": "windows-1252",
                   "columns": {"id": "id", "text": "note"}}]),
        "semi.csv": csv_text(ROWS, ";").encode("utf-8"),
        "w1252.csv": csv_text(ROWS, ";", eol="\r\n").encode("cp1252"),
        "latin1.csv": csv_text(latin_rows, ",").encode("latin-1"),
        "utf16.csv": b"\xff\xfe" + csv_text(utf16_rows, "\t", eol="\r\n").encode("utf-16-le"),
        "notes.csv": notes.encode("cp1252"),
    })
    write("bad-csv-semicolon", {
        "study.json": study(
            [bank("items.csv", "test")], [predict("test")],
            expl=[{"method": "notes", "file": "notes.jsonl", "pool": "test"}]),
        "items.csv": csv_text(ROWS, ";").encode("utf-8"),
        "notes.jsonl": "".join(
            json.dumps({"id": r[0], "explanation": {"kind": "text", "text": "x"}}) + "\n"
            for r in ROWS).encode("utf-8"),
    })
    write("bad-csv-1252", {
        "study.json": study([bank("items.csv", "test")], [predict("test")]),
        "items.csv": csv_text(ROWS, ",").encode("cp1252"),
    })
    bad_col = bank("items.csv", "test")
    bad_col["columns"]["prediction"] = "model"
    write("bad-csv-column", {
        "study.json": study([bad_col], [predict("test")]),
        "items.csv": csv_text(ROWS, ",").encode("utf-8"),
    })
    plain = {"items.csv": csv_text(ROWS, ",").encode("utf-8")}
    write("valid-lang", dict(plain, **{
        "study.json": study([bank("items.csv", "test")], [predict("test")],
                            extra={"language": "de",
                                   "ui": {"continue": "Los geht's",
                                          "progress": "Aufgabe %d/%d"}}),
    }))
    with open(os.path.join(ROOT, "assets", "lang", "en.json"), encoding="utf-8") as f:
        en = json.load(f)
    test_lang = {k: "<" + v + ">" for k, v in en.items()}
    write("valid-lang-file", dict(plain, **{
        "study.json": study([bank("items.csv", "test")], [predict("test")],
                            extra={"language": "x-test",
                                   "language_file": "lang/x-test.json"}),
        "lang/x-test.json": test_lang,
    }))
    write("bad-lang", dict(plain, **{
        "study.json": study([bank("items.csv", "test")], [predict("test")],
                            extra={"language": "fra",
                                   "ui": {"contineu": "Go",
                                          "progress": "%d items left"}}),
    }))


if __name__ == "__main__":
    main()
