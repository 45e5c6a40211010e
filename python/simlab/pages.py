"""simlab's own consent, instructions and debrief pages, for a study that
names none: the texts `simlab new` starts a study with, with the study's
classes and keys. The consent and debrief pages say that they are to be
replaced by the lab's approved texts."""

CONSENT = """# Consent

**Placeholder: replace this page with your ethics board's approved consent text.**

This study is about how people understand a computer program that makes predictions. You may stop at any time without giving a reason. Your answers are stored without your name.

Press Continue if you agree to take part.
"""

DEBRIEF = """# Thank you

**Placeholder: say what the study was about and whom to contact.**

The study compared explanations of a model's predictions. Your answers help us learn which explanations let people predict a model.
"""

_PARTS = {
    "hase-forward": """# The four parts

- **Learning:** examples with the true answer and the model's answer.
- **First test:** predict the model's answer on new items.
- **Learning again:** the same examples, some with an explanation of the model's answer; rate each explanation.
- **Second test:** the same test items again.
""",
    "hase-counterfactual": """# The two tests

Each item is shown with the model's answer and then **changed a little**. Predict the model's answer on the changed item.

- **First test:** without explanations.
- **Second test:** the same items, some with an explanation of the model's answer; rate each explanation.
""",
    "meta-predictor": """# Sessions

- **Practice:** a few items with feedback.
- Then, in each session, **training** items with the model's answer (and, for some participants, an explanation), followed by **test** items where you predict the model's answer.
""",
}

_WHAT = {"image": "a picture", "text": "a text", "text_pair": "two texts",
         "tabular": "a record"}


def _classes(fields):
    out = []
    for i, c in enumerate(fields.get("classes") or []):
        if isinstance(c, dict):
            cid = str(c.get("id"))
            out.append((c.get("label") or cid, c.get("key") or str(i + 1)))
        else:
            out.append((str(c), str(i + 1)))
    return out


def instructions(fields, modality=None):
    """The instructions page for a study of these fields (its preset and
    classes); modality is the items' ("image", "text", ...)."""
    classes = _classes(fields)
    labels = [c[0] for c in classes]
    answers = (", ".join("**%s**" % x for x in labels[:-1])
               + " or **%s**" % labels[-1]) if len(labels) > 1 else ""
    what = _WHAT.get(modality or fields.get("domain"), "an item")
    text = ("# Your task\n\n"
            "A computer program, **the model**, looks at %s and answers "
            "%s. It is often right, but **not always**. Your task is to "
            "predict **the model's answer**, not the true one.\n\n"
            % (what, answers))
    preset = (fields.get("protocol") or {}).get("preset")
    if preset in _PARTS:
        text += _PARTS[preset]
    keys = ", ".join("**%s** for %s" % (k.upper(), lab)
                     for lab, k in classes)
    return text + "\nPress %s.\n" % keys


def defaults(fields, modality=None):
    """{bundle path: text} of the three pages and study.json's "pages"."""
    files = {"pages/consent.md": CONSENT,
             "pages/instructions.md": instructions(fields, modality),
             "pages/debrief.md": DEBRIEF}
    pages = {"consent": "pages/consent.md",
             "instructions": "pages/instructions.md",
             "debrief": "pages/debrief.md"}
    return files, pages
