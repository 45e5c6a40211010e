"""Every explanation kind and primitive built in Python round-trips
through `simlab check`: written as docs/study-format.md defines it,
accepted, counted per method; arrays come back as written (pictures as
PNG, maps as float32 .npy)."""
import json
import os
import unittest
import warnings

from support import Scratch, image_study, np, read_items, simlab

# One payload of each kind per modality (the item's input), as method name
# -> (builder call, the JSON expected in items.jsonl or None to skip the
# comparison).


def image_payloads(rng, pic, tmp, iid="x"):
    grad = rng.normal(size=(16, 16))  # float64, numpy's default
    npy = os.path.join(tmp, "given.npy")
    np.save(npy, rng.random((32, 32)).astype(np.float64))
    patch = pic[:8, :8]
    return {
        "heatmap": simlab.heatmap(grad, colormap="magma", opacity=0.7,
                                  display="side_by_side"),
        "heatmap_npy": simlab.heatmap(npy),
        "image": simlab.image(caption="the picture", overlay=grad),
        "gallery": simlab.gallery([(patch, "corner", 0.4),
                                   simlab.media(pic[8:16, 8:16], iid + "-mid.png"),
                                   {"file": patch, "caption": "again"}],
                                  columns=2, title="Patches",
                                  reveal="hover"),
        "markdown": simlab.markdown("The model saw **stripes**.\n\n- one",
                                    reveal="on-request"),
        "bars": simlab.bars(["sky", "grass"], np.array([0.25, -0.5],
                                                       dtype=np.float32),
                            unit=" %", decimals=1, sum=True),
        "layout": simlab.layout("row", [
            simlab.image(patch, caption="a patch"),
            simlab.layout("column", [simlab.markdown("*why*"),
                                     simlab.bars(["a"], [1])])],
            title="Side by side"),
        "composite": simlab.composite([simlab.text("LIME said so"),
                                       simlab.markdown("and **this**")]),
        "features": simlab.features(["x", "y"], [0.5, -0.25],
                                    values=["1", 2], intercept=0.1,
                                    sum=0.25, output=0.35),
        "rules": simlab.rules([["x > 1", "y < 2"],
                               {"conditions": ["z"], "precision": 0.9,
                                "coverage": 0.2}], predicted="cat"),
        "prototype": simlab.prototype([("colour", "red", "blue")],
                                      label="dog", evidence=1.5,
                                      important={"colour": 0.75}),
        "path": simlab.path([(0.5, [("colour", "red", "blue")]),
                             (-0.25, [])], start_margin=1.0, target="dog"),
        "text": simlab.text("a text payload"),
    }


EXPECTED = {
    "tokens": {"kind": "tokens", "tokens": [
        {"text": "good", "weight": 0.5}, {"text": "film", "weight": -0.25}]},
    "markdown": {"kind": "markdown", "text": "The model saw **stripes**."
                 "\n\n- one", "reveal": "on_request"},
    "bars": {"kind": "bars", "bars": [{"label": "sky", "value": 0.25},
                                      {"label": "grass", "value": -0.5}],
             "unit": " %", "sum": True, "decimals": 1},
    "features": {"kind": "features", "features": [
        {"name": "x", "value": "1", "weight": 0.5},
        {"name": "y", "value": 2, "weight": -0.25}],
        "intercept": 0.1, "sum": 0.25, "output": 0.35},
    "rules": {"kind": "rules", "predicted": "cat", "rules": [
        ["x > 1", "y < 2"],
        {"conditions": ["z"], "precision": 0.9, "coverage": 0.2}]},
    "prototype": {"kind": "prototype", "label": "dog", "evidence": 1.5,
                  "rows": [{"name": "colour", "prototype": "red",
                            "input": "blue"}],
                  "important": [{"name": "colour", "weight": 0.75}]},
    "path": {"kind": "path", "start_margin": 1.0, "target": "dog",
             "steps": [{"margin": 0.5, "edits": [
                 {"feature": "colour", "from": "red", "to": "blue"}]},
                 {"margin": -0.25, "edits": []}]},
}


class Kinds(Scratch):
    def test_every_kind_through_check(self):
        rng = np.random.default_rng(3)
        study = simlab.Study(
            id="kinds", title="Every kind", classes=["cat", "dog"],
            conditions={"baseline": None, "layout": "layout"},
            protocol={"preset": "hase-forward", "n_learn": 4, "n_test": 8})
        pictures = {}

        def image_item(pool, k):
            pic = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
            pictures["%s%d" % (pool, k)] = pic
            study.add_item("%s%d" % (pool, k), pool=pool, input=pic,
                           label=["cat", "dog"][k % 2],
                           prediction=["cat", "dog"][k // 2 % 2],
                           explanations=image_payloads(rng, pic, self.tmp,
                                                       "%s%d" % (pool, k)))
        for pool, n in (("learn", 4), ("test", 8)):
            for k in range(n):
                image_item(pool, k)
        # text, text pairs and records in other pools
        study.add_item("s1", pool="texts", input="good film",
                       prediction="cat", explanations={
                           "tokens": simlab.tokens(["good", "film"],
                                                   np.array([0.5, -0.25])),
                           "tokens_hover": simlab.tokens(
                               ["good", "film"], [1, 2], reveal="hover")})
        study.add_item("p1", pool="pairs", input=("A man sleeps.",
                                                  "A person rests."),
                       prediction="dog", explanations={
                           "token_pairs": simlab.token_pairs(
                               ["man", "person"], [0.5, 0.25],
                               [(0, 1, 0.75)], segments=[0, 1]),
                           "span_pairs": simlab.span_pairs(
                               ["a", "man", "a", "person"],
                               [0.1, 0.5, 0.1, 0.25],
                               [((0, 2), (2, 4), 0.5)],
                               segments=[0, 0, 1, 1])})
        study.add_item(7, pool="records", input={"Age": 37, "Job": "cook"},
                       label="dog", prediction="cat", explanations={
                           "image": simlab.image(pictures["learn0"],
                                                 caption="a prototype"),
                           "features": simlab.features(["Age"], [0.5])})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", simlab.CheckWarning)
            report = study.write(self.path("b"))
        self.assertTrue(report["valid"], report["errors"])
        per_method = report["study"]["explanations"]
        for m in list(image_payloads(rng, pictures["learn0"], self.tmp)):
            # the record explains itself with an image and features too
            want = 13 if m in ("image", "features") else 12
            self.assertEqual(per_method.get(m), want, m)
        for m in ("tokens", "tokens_hover", "token_pairs", "span_pairs"):
            self.assertEqual(per_method.get(m), 1, m)
        items = {"%s:%s" % (r["pool"], r["id"]): r
                 for r in read_items(self.path("b"))}
        got = dict(items["learn:learn1"]["explanations"])
        got.update(items["texts:s1"]["explanations"])
        for m, want in EXPECTED.items():
            self.assertEqual(got[m], want, m)
        # the arrays as written
        b = self.path("b")
        rec = items["learn:learn1"]
        self.assertTrue((simlab.read_png(os.path.join(b, rec["input"]))
                         == pictures["learn1"]).all())
        hm = rec["explanations"]["heatmap"]
        self.assertEqual(list(hm), ["kind", "file", "colormap", "opacity",
                                    "display"])
        m = np.load(os.path.join(b, hm["file"]))
        self.assertEqual(m.dtype, np.dtype("<f4"))
        self.assertEqual(m.shape, (16, 16))
        given = rec["explanations"]["heatmap_npy"]["file"]
        self.assertEqual(np.load(os.path.join(b, given)).dtype,
                         np.dtype("<f4"))  # float64 .npy converted
        gal = rec["explanations"]["gallery"]
        self.assertEqual(gal["images"][0]["weight"], 0.4)
        self.assertEqual(gal["images"][1]["file"], "media/learn1-mid.png")
        # the same patch array is one file
        self.assertEqual(gal["images"][0]["file"], gal["images"][2]["file"])
        self.assertEqual(items["records:7"]["input"],
                         [{"name": "Age", "value": 37},
                          {"name": "Job", "value": "cook"}])
        self.assertEqual(items["pairs:p1"]["input"],
                         ["A man sleeps.", "A person rests."])
        # a prototype picture of a record: the learn0 picture, stored once
        self.assertEqual(items["records:7"]["explanations"]["image"]["file"],
                         items["learn:learn0"]["input"])

    def test_pages_default_and_given(self):
        rng = np.random.default_rng(4)
        study = image_study()
        study.add_item("t", pool="extra", input=np.zeros((4, 4, 3),
                                                         np.uint8),
                       prediction="cat")
        with self.assertRaises(simlab.CheckError):
            study.write(self.path("few"))  # no learn and test pools
        study = __import__("support").fill(image_study(), rng)
        report = study.write(self.path("b"))
        self.assertTrue(report["valid"])
        with open(self.path("b", "study.json"), encoding="utf-8") as f:
            sj = json.load(f)
        self.assertEqual(sj["pages"]["consent"], "pages/consent.md")
        with open(self.path("b", "pages", "instructions.md"),
                  encoding="utf-8") as f:
            text = f.read()
        self.assertIn("**cat** or **dog**", text)
        self.assertIn("The four parts", text)
        kinds = [b["kind"] for b in report["blocks"]]
        self.assertEqual(kinds[:2], ["consent", "instructions"])
        self.assertEqual(kinds[-1], "debrief")
        # in another language: a warning that the pages are English
        study = __import__("support").fill(image_study(language="de"), rng)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            study.write(self.path("de"))
        self.assertTrue(any("are in English and the study's language is "
                            "'de'" in str(w.message) for w in got))
        # pages given: the lab's files, no defaults
        study = __import__("support").fill(image_study(
            pages={"consent": "pages/c.md", "instructions": "pages/i.md",
                   "debrief": "pages/d.md"}), rng)
        for p in ("c", "i", "d"):
            study.add_page("pages/%s.md" % p, "# Page %s\n\nText.\n" % p)
        study.write(self.path("g"))
        self.assertEqual(sorted(os.listdir(self.path("g", "pages"))),
                         ["c.md", "d.md", "i.md"])

    def test_overwrite_and_refusal(self):
        rng = np.random.default_rng(5)
        study = __import__("support").fill(image_study(), rng)
        os.makedirs(self.path("b"))
        with open(self.path("b", "notes.txt"), "w") as f:
            f.write("mine\n")
        with self.assertRaises(FileExistsError):
            study.write(self.path("b"))
        self.assertEqual(os.listdir(self.path("b")), ["notes.txt"])
        study.write(self.path("b"), overwrite=True)
        self.assertTrue(os.path.exists(self.path("b", "notes.txt")))
        self.assertTrue(os.path.exists(self.path("b", "study.json")))


if __name__ == "__main__":
    unittest.main()
