"""simlab's results in Python: an export (simlab long format v1 with its
JSON sidecar, and its questionnaire and interaction side files) as a pandas
DataFrame with the sidecar's types, or, without pandas, as a dict of
columns; report.json of simlab-analyze with its tables.

Types: "0/1" columns are booleans, "0/1/empty" nullable booleans,
"integer" integers ("integer/empty" nullable), "number/empty" floats
(times in ms), strings stay strings (an empty cell is missing); condition
is an ordered categorical with the study's baseline first. A cell the
export guarded against spreadsheet formulas ('=x) is read as it was
recorded (=x).
"""
import csv
import hashlib
import json
import math
import os
import warnings

_GUARDED = ("=", "+", "-", "@", "\t", "\r")


class Columns(dict):
    """Without pandas: column name -> list of values, with the study's
    baseline, the conditions in order (baseline first) and the sidecar."""

    baseline = None
    conditions = ()
    sidecar = None

    @property
    def n_rows(self):
        return len(next(iter(self.values()))) if self else 0

    @property
    def columns(self):
        return list(self.keys())


def _use_pandas(pandas):
    if pandas is False:
        return None
    try:
        import pandas as pd
        return pd
    except ImportError:
        if pandas:
            raise
        return None


def _sidecar(csv_path):
    side = csv_path + ".json"
    if not os.path.isfile(side):
        raise FileNotFoundError(
            "%s has no sidecar %s: an unfinished export (or one written to "
            "standard output); export again with simlab export"
            % (csv_path, side))
    with open(side, encoding="utf-8") as f:
        return json.load(f)


def _verify(path, want, what):
    if not want:
        return
    with open(path, "rb") as f:
        got = hashlib.sha256(f.read()).hexdigest()
    if got != want:
        warnings.warn("%s: its SHA-256 is not the one the export's sidecar "
                      "gives for the %s: the file was changed after the "
                      "export" % (path, what), stacklevel=3)


def _rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        r = csv.reader(f)
        header = next(r, [])
        return header, [row for row in r if row]


def baseline_and_conditions(sidecar):
    """(baseline, conditions in order with the baseline first) of the
    studies an export's sidecar describes."""
    conds, base = [], None
    for s in (sidecar or {}).get("studies") or []:
        d = s.get("definition") or {}
        for c in d.get("conditions") or []:
            cid = str(c.get("id")) if isinstance(c, dict) else str(c)
            if cid not in conds:
                conds.append(cid)
        b = d.get("baseline")
        if base is None and b is not None:
            base = str(b)
    if base is None and "baseline" in conds:
        base = "baseline"
    if base in conds:
        conds.remove(base)
        conds.insert(0, base)
    return base, conds


def _unguard(v, safe):
    if safe and len(v) > 1 and v[0] == "'" and v[1] in _GUARDED:
        return v[1:]
    return v


def _convert(cells, kind, safe):
    """A column's cells as Python values of its sidecar type."""
    out = []
    for v in cells:
        if v == "" and kind != "string":
            out.append(None)
        elif kind in ("0/1", "0/1/empty"):
            out.append(v == "1")
        elif kind.startswith("integer"):
            out.append(int(v))
        elif kind.startswith("number"):
            out.append(float(v))
        else:
            out.append(_unguard(v, safe) if v != "" else None)
    return out


def _frame(header, rows, types, safe, sidecar, pandas):
    cols = {}
    for i, name in enumerate(header):
        cells = [r[i] if i < len(r) else "" for r in rows]
        cols[name] = _convert(cells, types.get(name, "string"), safe)
    base, conds = baseline_and_conditions(sidecar)
    for c in cols.get("condition", []):
        if c is not None and c not in conds:
            conds.append(c)
    pd = _use_pandas(pandas)
    if pd is None:
        out = Columns(cols)
        out.baseline, out.conditions, out.sidecar = base, conds, sidecar
        return out
    data = {}
    for name, vals in cols.items():
        kind = types.get(name, "string")
        if name == "condition":
            data[name] = pd.Categorical(vals, categories=conds, ordered=True)
        elif kind == "0/1":
            data[name] = pd.array(vals, dtype="bool")
        elif kind == "0/1/empty":
            data[name] = pd.array(vals, dtype="boolean")
        elif kind == "integer":
            data[name] = pd.array(vals, dtype="int64")
        elif kind == "integer/empty":
            data[name] = pd.array(vals, dtype="Int64")
        elif kind.startswith("number"):
            data[name] = pd.array([math.nan if v is None else v
                                   for v in vals], dtype="float64")
        else:
            data[name] = pd.array(vals, dtype="object")
    df = pd.DataFrame(data, columns=header)
    df.attrs["baseline"] = base
    df.attrs["conditions"] = conds
    df.attrs["sidecar"] = sidecar
    return df


def read_export(csv_path, pandas=None):
    """An export (`simlab export --db DB --csv CSV`) as a DataFrame with
    its sidecar's types (pandas=False: a dict of columns, Columns); its
    attrs (or attributes) give the baseline, the conditions and the
    sidecar."""
    csv_path = os.fspath(csv_path)
    side = _sidecar(csv_path)
    _verify(csv_path, side.get("sha256"), "long format")
    header, rows = _rows(csv_path)
    types = {c["name"]: c.get("type", "string")
             for c in side.get("columns") or []}
    return _frame(header, rows, types, side.get("spreadsheet_safe", False),
                  side, pandas)


def _side_file(path, suffix, key, types, pandas):
    """A side file of an export: path is X.csv (the export) or the side
    file itself (X.questionnaire.csv)."""
    path = os.fspath(path)
    if path.endswith(suffix):
        base = path[:-len(suffix)]
    else:
        base = path[:-4] if path.endswith(".csv") else path
        path = base + suffix
    main = base + ".csv"
    side = None
    if os.path.isfile(main + ".json"):
        side = _sidecar(main)
        entry = side.get(key)
        if entry:
            _verify(path, entry.get("sha256"), key)
    if not os.path.isfile(path):
        raise FileNotFoundError("%s: no such file (the export has no %s)"
                                % (path, key))
    header, rows = _rows(path)
    safe = side.get("spreadsheet_safe", True) if side else True
    return _frame(header, rows, types, safe, side, pandas)


def read_questionnaire(path, pandas=None):
    """The questionnaire answers of an export (X.questionnaire.csv, given
    as it or as X.csv): participant, condition (categorical, baseline
    first), station, block, question, type, value (text as answered),
    rt_ms (float)."""
    return _side_file(path, ".questionnaire.csv", "questionnaire",
                      {"rt_ms": "number/empty"}, pandas)


def read_interactions(path, pandas=None):
    """The interactions with explanations of an export
    (X.interactions.csv, given as it or as X.csv): participant, condition,
    block, trial, item, attempt, n, event, target, t_ms (float), station."""
    return _side_file(path, ".interactions.csv", "interactions",
                      {"trial": "integer", "attempt": "integer",
                       "n": "integer", "t_ms": "number/empty"}, pandas)


class Report(dict):
    """report.json of simlab-analyze as Python objects, with primary: the
    primary test's table (report.json's primary.rows) as a DataFrame (a
    dict of columns without pandas), or None when the report has none."""

    primary = None

    def table(self, key, pandas=None):
        """The rows at key ("change", "glmm.terms", "primary.rows") as a
        DataFrame (a dict of columns without pandas)."""
        v = self
        for part in key.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        if isinstance(v, dict) and "rows" in v:
            v = v["rows"]
        if not isinstance(v, list):
            raise KeyError("%s is not a table of this report" % key)
        return rows_frame(v, pandas)


def rows_frame(rows, pandas=None):
    """A list of row dicts as a DataFrame (null -> NaN for numbers), or a
    dict of columns."""
    names = []
    for r in rows:
        for k in r:
            if k not in names:
                names.append(k)
    pd = _use_pandas(pandas)
    if pd is None:
        return Columns({k: [r.get(k) for r in rows] for k in names})
    return pd.DataFrame([{k: r.get(k) for k in names} for r in rows],
                        columns=names)


def read_report(dir, pandas=None):
    """DIR/report.json (simlab-analyze --out DIR) as a Report."""
    path = os.path.join(os.fspath(dir), "report.json")
    with open(path, encoding="utf-8") as f:
        rep = Report(json.load(f))
    prim = rep.get("primary")
    if isinstance(prim, dict) and isinstance(prim.get("rows"), list):
        rep.primary = rows_frame(prim["rows"], pandas)
    return rep
