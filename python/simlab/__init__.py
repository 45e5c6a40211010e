"""simlab from Python: build a study bundle from arrays and texts, check it
with `simlab check`, simulate and analyse it, and read the results into
pandas. Standard library and numpy; pandas when it is installed.

    import numpy as np, simlab
    study = simlab.Study(id="demo", title="Saliency or not?",
                         classes=["cat", "dog"],
                         conditions={"baseline": None, "saliency": "saliency"},
                         protocol={"preset": "hase-forward", "n_learn": 4,
                                   "n_test": 8})
    study.add_item("t1", pool="test", input=picture, label="cat",
                   prediction="dog",
                   explanations={"saliency": simlab.heatmap(attribution)})
    study.write("demo")

docs/python.md has the whole walk: write, check, simulate, analyse, read.
"""
from .errors import CheckError, CheckWarning, StudyError
from .mediafiles import read_png, write_png
from .payloads import (Media, Payload, bars, composite, features, gallery,
                       heatmap, image, layout, markdown, media, path,
                       prototype, rules, span_pairs, text, token_pairs,
                       tokens)
from .programs import (CommandError, analyze, check, export, program,
                       simulate)
from .results import (Columns, Report, read_export, read_interactions,
                      read_questionnaire, read_report)
from .study import Study

__version__ = "0.1.0"

__all__ = [
    "Study", "StudyError", "CheckError", "CheckWarning", "CommandError",
    "Media", "Payload", "media",
    "heatmap", "tokens", "token_pairs", "span_pairs", "features", "rules",
    "prototype", "path", "text", "composite", "image", "gallery",
    "markdown", "bars", "layout",
    "check", "simulate", "export", "analyze", "program",
    "read_export", "read_questionnaire", "read_interactions", "read_report",
    "Columns", "Report", "read_png", "write_png",
]
