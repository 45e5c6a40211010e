"""The worked examples written by their make_bundle.py equal the committed
bundles byte for byte (examples/explanation-methods, examples/kredit-de);
examples/numpy-model trains its model and writes a valid, balanced
study; the smallest complete script of docs/python.md (and the README)
runs as written."""
import filecmp
import os
import re
import subprocess
import sys
import unittest
import warnings

from support import EXAMPLES, ROOT, Scratch, simlab


def bundle_files(d):
    out = []
    for root, _, files in os.walk(d):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), d)
            if rel != "make_bundle.py" and "__pycache__" not in rel:
                out.append(rel)
    return sorted(out)


def run_script(path, *args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    p = subprocess.run([sys.executable, path, *args], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.returncode, p.stdout


class Examples(Scratch):
    def same_as_committed(self, name):
        ex = os.path.join(EXAMPLES, name)
        out = self.path(name)
        rc, log = run_script(os.path.join(ex, "make_bundle.py"), out)
        self.assertEqual(rc, 0, log)
        self.assertEqual(bundle_files(out), bundle_files(ex))
        for rel in bundle_files(ex):
            self.assertTrue(filecmp.cmp(os.path.join(ex, rel),
                                        os.path.join(out, rel),
                                        shallow=False),
                            "%s/%s differs from the committed file"
                            % (name, rel))

    def test_explanation_methods(self):
        self.same_as_committed("explanation-methods")

    def test_kredit_de(self):
        self.same_as_committed("kredit-de")

    def test_numpy_model(self):
        ex = os.path.join(EXAMPLES, "numpy-model")
        out = self.path("nm")
        rc, log = run_script(os.path.join(ex, "make_bundle.py"), out)
        self.assertEqual(rc, 0, log)
        report = simlab.check(out)
        self.assertTrue(report["valid"], report["errors"])
        self.assertEqual(report["warnings"], [])
        pools = {p["pool"]: p for p in report["pools"]}
        self.assertEqual(pools["learn"]["n"], 8)
        self.assertEqual([pools["test"][t] for t in ("TP", "FP", "TN",
                                                     "FN")], [4, 4, 4, 4])
        self.assertEqual(report["study"]["explanations"],
                         {"gradient_x_input": 24, "occlusion": 24})
        # the committed bundle is one such run
        self.assertEqual(bundle_files(out), bundle_files(ex))

    def test_docs_script(self):
        with open(os.path.join(ROOT, "docs", "python.md"),
                  encoding="utf-8") as f:
            doc = f.read()
        m = re.search(r"```python\n(.*?)```", doc, re.S)
        self.assertIsNotNone(m, "docs/python.md has no python block")
        code = m.group(1)
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = re.search(r"```python\n(.*?)```", f.read(), re.S)
        self.assertEqual(readme.group(1) if readme else None, code,
                         "the README's script is not docs/python.md's")
        lines = [x for x in code.splitlines() if x.strip()]
        self.assertLessEqual(len(lines), 16, "the smallest script grew")
        script = self.path("first.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(code)
        with warnings.catch_warnings():
            rc, log = run_script(script, cwd=self.tmp)
        self.assertEqual(rc, 0, log)
        report = simlab.read_report(self.path("report"))
        self.assertIn("change", report)
        self.assertTrue(os.path.isfile(self.path("quickstart", "study.json")))


if __name__ == "__main__":
    unittest.main()
