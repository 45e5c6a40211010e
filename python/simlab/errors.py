"""The exceptions of simlab's Python package: bad input found in Python
(StudyError, before anything is written) and a bundle that `simlab check`
refuses (CheckError, with check's located errors)."""


class StudyError(ValueError):
    """Bad input for a study, found before anything is written: names the
    item (its key "<pool>:<id>", or None for the study itself) and the
    field as `simlab check` would ("explanations.saliency.file")."""

    def __init__(self, message, item=None, field=None):
        self.item = item
        self.field = field
        self.message = message
        where = "study.json" if item is None else "item '%s'" % item
        if field:
            where += ": field '%s'" % field
        super().__init__("%s: %s" % (where, message))


class CheckError(Exception):
    """`simlab check` found the written bundle invalid. errors and warnings
    are check's located problems (dicts with file, line, pointer, field,
    message, more), report its whole --json answer."""

    def __init__(self, bundle, report, items=None):
        self.bundle = bundle
        self.report = report
        self.errors = report.get("errors", [])
        self.warnings = report.get("warnings", [])
        lines = ["simlab check: %s is invalid (%d error%s)"
                 % (bundle, len(self.errors),
                    "" if len(self.errors) == 1 else "s")]
        for d in self.errors:
            lines.append("  " + format_diag(d, items))
        super().__init__("\n".join(lines))


class CheckWarning(UserWarning):
    """A warning of `simlab check` on a bundle that is valid."""


def format_diag(d, items=None):
    """One of check's problems as check prints it: "FILE:LINE: field 'F':
    message"; items maps an items.jsonl line to the item's key, which is
    added after the line."""
    where = d.get("file") or ""
    line = d.get("line") or 0
    if line > 0:
        where += ":%d" % line
        if items and d.get("file") == "items.jsonl" and line in items:
            where += " (item '%s')" % items[line]
    elif d.get("pointer"):
        where += ":" + d["pointer"]
    text = where + ": " if where else ""
    if d.get("field"):
        text += "field '%s': " % d["field"]
    return text + d.get("message", "")
