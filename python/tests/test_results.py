"""The results come back typed: read_export equals the exported CSV cell
for cell on simulated demo data (with pandas and without), condition is
categorical with the baseline first (kredit-de's 'ohne', listed last in
the study), a guarded cell comes back as recorded; the questionnaire and
interaction side files; read_report with and without the primary test's
table."""
import csv
import json
import math
import os
import shutil
import tempfile
import unittest
import warnings

from support import ASSETS, EXAMPLES, fill, image_study, np, simlab

try:
    import pandas as pd
except ImportError:  # pragma: no cover - CI has python3-pandas
    pd = None

TMP = None


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="simlab-py-results-")


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def export(bundle, name, participants, seed=1):
    db = os.path.join(TMP, name + ".db")
    out = os.path.join(TMP, name + ".csv")
    simlab.simulate(bundle, db, participants=participants, seed=seed)
    simlab.program("simlab")
    from simlab.programs import run
    run("simlab", "export", "--db", db, "--csv", out)
    return db, out


def raw(path):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def cell(v):
    """A typed value as the export writes it."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if pd is not None and v is pd.NA:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


class Results(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kredit_db, cls.kredit = export(
            os.path.join(EXAMPLES, "kredit-de"), "kredit", 6)
        cls.methods_db, cls.methods = export(
            os.path.join(EXAMPLES, "explanation-methods"), "methods", 6)
        cls.demo_db, cls.demo = export(
            os.path.join(ASSETS, "text-forward"), "demo", 8)

    def compare(self, csv_path, got, columns_of):
        header, rows = raw(csv_path)
        self.assertEqual(list(columns_of(got)), header)
        for j, name in enumerate(header):
            vals = list(got[name])
            self.assertEqual(len(vals), len(rows), name)
            for i, v in enumerate(vals):
                text = cell(v)
                want = rows[i][j]
                if want.startswith("'") and text == want[1:]:
                    continue  # a guarded cell, read as recorded
                if isinstance(v, (float, np.floating)) and want:
                    self.assertEqual(float(want), float(v), (name, i))
                else:
                    self.assertEqual(text, want, (name, i))

    def test_export_with_pandas(self):
        if pd is None:
            self.skipTest("pandas is not installed")
        df = simlab.read_export(self.kredit)
        self.compare(self.kredit, df, lambda d: d.columns)
        self.assertEqual(str(df["condition"].dtype), "category")
        self.assertEqual(list(df["condition"].cat.categories),
                         ["ohne", "balken", "begruendung"])
        self.assertEqual(df.attrs["baseline"], "ohne")
        self.assertEqual(str(df["simulated"].dtype), "bool")
        self.assertEqual(str(df["correct"].dtype), "boolean")
        self.assertEqual(str(df["trial"].dtype), "int64")
        self.assertEqual(str(df["confidence"].dtype), "Int64")
        self.assertEqual(str(df["rt_ms"].dtype), "float64")
        self.assertTrue(df["timed_out"].dtype == bool)
        # the analysis a lab writes next
        acc = df[df.phase == "post"].groupby("condition",
                                              observed=True).correct.mean()
        self.assertEqual(list(acc.index), ["ohne", "balken", "begruendung"])

    def test_demo_study(self):
        """The demo study of the README (text-forward): ratings, pre and
        post; no baseline condition: the study's order."""
        for pandas in ([False] if pd is None else [False, None]):
            got = simlab.read_export(self.demo, pandas=pandas)
            self.compare(self.demo, got, (lambda d: d.keys())
                         if pandas is False else (lambda d: d.columns))
        if pd is not None:
            self.assertIsNone(got.attrs["baseline"])
            self.assertEqual(list(got["condition"].cat.categories),
                             ["LIME", "Anchor", "Omission", "Composite"])
            self.assertEqual(str(got["rating"].dtype), "Int64")
            self.assertTrue(got["rating"].notna().any())

    def test_export_without_pandas(self):
        cols = simlab.read_export(self.kredit, pandas=False)
        self.assertIsInstance(cols, simlab.Columns)
        self.compare(self.kredit, cols, lambda d: d.keys())
        self.assertEqual(cols.baseline, "ohne")
        self.assertEqual(cols.conditions, ["ohne", "balken", "begruendung"])
        self.assertIsInstance(cols["simulated"][0], bool)
        self.assertIsInstance(cols["rt_ms"][0], float)
        self.assertIn(None, cols["correct"])  # learn rows ask nothing

    def test_side_files(self):
        for pandas in ([False] if pd is None else [False, None]):
            q = simlab.read_questionnaire(self.kredit, pandas=pandas)
            self.compare(self.kredit[:-4] + ".questionnaire.csv", q,
                         (lambda d: d.keys()) if pandas is False
                         else (lambda d: d.columns))
            it = simlab.read_interactions(self.methods, pandas=pandas)
            self.compare(self.methods[:-4] + ".interactions.csv", it,
                         (lambda d: d.keys()) if pandas is False
                         else (lambda d: d.columns))
        if pd is not None:
            it = simlab.read_interactions(self.methods[:-4]
                                          + ".interactions.csv")
            self.assertEqual(str(it["trial"].dtype), "int64")
            self.assertEqual(list(it["condition"].cat.categories)[0],
                             "baseline")
            self.assertIn("reveal", set(it["event"]))
        with self.assertRaises(FileNotFoundError):
            simlab.read_interactions(self.kredit)  # kredit-de has none

    def test_guarded_cells_and_edits(self):
        rng = np.random.default_rng(8)
        bundle = os.path.join(TMP, "guard")
        study = fill(image_study(conditions={"baseline": None,
                                             "-sal": "sal"}), rng)
        study.write(bundle)
        db, out = export(bundle, "guard", 4)
        header, rows = raw(out)
        col = header.index("condition")
        self.assertIn("'-sal", {r[col] for r in rows})
        got = simlab.read_export(out, pandas=False)
        self.assertIn("-sal", set(got["condition"]))
        self.assertEqual(got.conditions, ["baseline", "-sal"])
        # a CSV edited after the export is read, with a warning
        with open(out, "a", encoding="utf-8", newline="") as f:
            f.write(",".join(rows[0]) + "\r\n")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            simlab.read_export(out, pandas=False)
        self.assertTrue(any("changed after the export" in str(x.message)
                            for x in w))
        os.remove(out + ".json")
        with self.assertRaises(FileNotFoundError) as e:
            simlab.read_export(out)
        self.assertIn("export again", str(e.exception))

    def test_report(self):
        out = os.path.join(TMP, "report")
        report = simlab.analyze(self.kredit_db, out, include_simulated=True,
                                replicates=50, extra=["--no-glmm"])
        self.assertIsInstance(report, simlab.Report)
        self.assertEqual(report["settings"]["baseline"], "ohne")
        change = report.table("paired", pandas=False)
        self.assertEqual(set(change["a"]), {"ohne"})
        if "primary" not in report:
            self.assertIsNone(report.primary)
        # the primary test's table, as report.json gives it
        rows = [{"condition": "balken", "contrast": "balken - ohne",
                 "estimate": 0.12, "scale": "proportion", "ci_low": 0.02,
                 "ci_high": 0.22, "p": 0.018, "p_adjusted": 0.036,
                 "decision": "reject"},
                {"condition": "begruendung", "contrast": "begruendung - ohne",
                 "estimate": 0.03, "scale": "proportion", "ci_low": None,
                 "ci_high": None, "p": 0.41, "p_adjusted": 0.41,
                 "decision": "retain"}]
        syn = os.path.join(TMP, "synthetic")
        os.makedirs(syn, exist_ok=True)
        with open(os.path.join(syn, "report.json"), "w") as f:
            json.dump({"settings": {"baseline": "ohne"},
                       "primary": {"test": "paired", "rows": rows}}, f)
        rep = simlab.read_report(syn, pandas=False)
        self.assertEqual(rep.primary["decision"], ["reject", "retain"])
        self.assertEqual(rep["primary"]["test"], "paired")
        if pd is not None:
            prim = simlab.read_report(syn).primary
            self.assertEqual(list(prim.columns),
                             ["condition", "contrast", "estimate", "scale",
                              "ci_low", "ci_high", "p", "p_adjusted",
                              "decision"])
            self.assertTrue(math.isnan(prim.loc[1, "ci_low"]))
            self.assertAlmostEqual(prim.loc[0, "p_adjusted"], 0.036)
        with open(os.path.join(syn, "report.json"), "w") as f:
            json.dump({"settings": {}}, f)
        self.assertIsNone(simlab.read_report(syn).primary)


if __name__ == "__main__":
    unittest.main()
