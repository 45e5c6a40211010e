"""Bad input raises StudyError naming the item and the field before
anything is written, and leaves the study as it was; a bundle that Python
accepts and `simlab check` refuses raises CheckError with check's located
errors."""
import os
import unittest

from support import Scratch, fill, image_study, np, simlab

PIC = np.zeros((40, 40, 3), np.uint8)


class Errors(Scratch):
    def refused(self, field, message, item="test:t1", input=PIC,
                label="cat", explanations=None, **kw):
        """add_item(...) raises StudyError at item and field with message
        in its text; the study keeps no item and no file of it."""
        study = image_study()
        before = dict(study.files)
        with self.assertRaises(simlab.StudyError) as e:
            study.add_item("t1", pool="test", input=input, label=label,
                           prediction="dog", explanations=explanations, **kw)
        self.assertEqual(e.exception.item, item)
        self.assertEqual(e.exception.field, field)
        self.assertIn(message, str(e.exception))
        self.assertIn("item '%s'" % item, str(e.exception))
        self.assertEqual(study.items, [])
        self.assertEqual(study.files, before)
        return e.exception

    def test_heatmap_arrays(self):
        f = "explanations.sal.file"
        self.refused(f, "a heatmap is 2-D (H x W); this array is 3x40x40: "
                     "reduce the channels first",
                     explanations={"sal": simlab.heatmap(np.ones((3, 40,
                                                                  40)))})
        nan = np.ones((20, 20))
        nan[3, 5] = np.nan
        nan[7, 1] = np.inf
        self.refused(f, "heatmap value at row 3, column 5 is NaN (2 of 400 "
                     "values are not finite)",
                     explanations={"sal": simlab.heatmap(nan)})
        self.refused(f, "too large for float32",
                     explanations={"sal": simlab.heatmap(
                         np.full((4, 4), 1e300))})
        self.refused(f, "a heatmap holds real numbers, not complex128",
                     explanations={"sal": simlab.heatmap(
                         np.ones((4, 4), complex))})
        self.refused(f, "the map is 20x10 (WxH) but the image is 40x40: "
                     "neither the same size nor the same aspect ratio",
                     explanations={"sal": simlab.heatmap(np.ones((10, 20)))})
        self.refused(f, "no such file", explanations={
            "sal": simlab.heatmap("no/such/map.npy")})
        # a smaller map of the same aspect ratio is upsampled: accepted
        study = image_study()
        study.add_item("t1", pool="test", input=PIC, prediction="dog",
                       explanations={"sal": simlab.heatmap(np.ones((5, 5)))})

    def test_image_arrays(self):
        self.refused("input", "an image array is uint8 (0..255), not "
                     "float64", input=np.zeros((8, 8, 3)))
        self.refused("input", "an image array is H x W x 3 (RGB), H x W x "
                     "4 or H x W; this one is 8x8x5",
                     input=np.zeros((8, 8, 5), np.uint8))
        self.refused("input", "no such file", input="gone.png",
                     modality="image")
        self.refused("explanations.p.parts.0.overlay.file",
                      "the map is 10x20 (WxH) but the image is 40x40",
                      explanations={"p": simlab.layout("row", [
                          simlab.image(overlay=np.ones((20, 10)))])})
        self.refused("explanations.p.parts.0.overlay.file",
                     "but 'media/t1-p.png' is 16x8",
                     explanations={"p": simlab.layout("row", [
                         simlab.image(np.zeros((8, 16, 3), np.uint8),
                                      overlay=np.ones((16, 16)))])})

    def test_classes_and_fields(self):
        self.refused("label", "'kat' is not a class (classes: 'cat', "
                     "'dog') (did you mean 'cat'?)", label="kat")
        self.refused("explanations.t.tokens", "3 words but 2 weights",
                     input="a b c", explanations={
                         "t": simlab.tokens(["a", "b", "c"], [1, 2])})
        self.refused("explanations.r.predicted", "'cow' is not a class",
                     explanations={"r": simlab.rules([["x"]],
                                                     predicted="cow")})
        self.refused("explanations.m.kind", "unknown explanation kind "
                     "'barz' (did you mean 'bars'?)",
                     explanations={"m": {"kind": "barz", "bars": []}})
        self.refused("explanations.m.parts.0.reveal", "a part is revealed "
                     "with its explanation",
                     explanations={"m": simlab.layout("row", [
                         simlab.markdown("x", reveal="on_request")])})
        self.refused("explanations.m.reveal", "'hover' shows values on "
                     "hover: a markdown explanation has none",
                     explanations={"m": simlab.markdown("x",
                                                        reveal="hover")})
        self.refused("explanations.m.colourmap", "unknown field of a "
                     "heatmap explanation",
                     explanations={"m": {"kind": "heatmap",
                                         "file": np.ones((4, 4)),
                                         "colourmap": "magma"}})
        self.refused("explanations.m.bars.1.value", "must be a finite "
                     "number", explanations={
                         "m": simlab.bars(["a", "b"], [1.0, float("nan")])})
        self.refused("explanations.m.file", "a heatmap needs an image item",
                     input="a text", explanations={
                         "m": simlab.heatmap(np.ones((4, 4)))})

    def test_study_fields(self):
        with self.assertRaises(simlab.StudyError) as e:
            image_study(baseline="basline")
        self.assertIsNone(e.exception.item)
        self.assertEqual(e.exception.field, "baseline")
        self.assertIn("'basline' is not a condition (conditions: "
                      "'baseline', 'sal') (did you mean 'baseline'?)",
                      str(e.exception))
        with self.assertRaises(simlab.StudyError) as e:
            image_study(classes=["cat"])
        self.assertEqual(e.exception.field, "classes")
        study = image_study()
        study.add_item("t1", pool="test", input=PIC, prediction="dog")
        with self.assertRaises(simlab.StudyError) as e:
            study.add_item("t1", pool="test", input=PIC, prediction="dog")
        self.assertIn("added twice", str(e.exception))
        self.assertFalse(os.path.exists(self.path("never")))

    def test_check_error(self):
        rng = np.random.default_rng(2)
        # n_test 32 for a test pool of 8: Python cannot know, check can
        study = fill(image_study(protocol={"preset": "hase-forward",
                                           "n_learn": 4, "n_test": 32}), rng)
        with self.assertRaises(simlab.CheckError) as e:
            study.write(self.path("b"))
        err = e.exception
        self.assertTrue(err.errors)
        self.assertEqual(err.errors[0]["file"], "study.json")
        self.assertIn("n_test", err.errors[0]["pointer"])
        self.assertIn("field 'n_test'", str(err))
        # an items.jsonl line names its item
        study = fill(image_study(conditions={"baseline": None,
                                             "sal": "sal", "other": "gone"}),
                     rng)
        with self.assertRaises(simlab.CheckError) as e:
            study.write(self.path("c"))
        self.assertIn("no item has a 'gone' explanation", str(e.exception))
        # check's warnings come back as one CheckWarning, items named
        study = fill(image_study(), rng, explain=lambda k, pic: {
            "sal": simlab.heatmap(np.ones((8, 8))),
            "f": simlab.features(["a"], [0.5], intercept=0, sum=0.5,
                                 output=0.9 if k == 1 else 0.5)})
        import warnings
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            report = study.write(self.path("d"))
        self.assertTrue(report["valid"])
        texts = [str(w.message) for w in got
                 if issubclass(w.category, simlab.CheckWarning)]
        self.assertEqual(len(texts), 1)
        self.assertIn("items.jsonl:2 (item 'learn:learn1'): field "
                      "'explanations.f.output': output 0.9 differs from "
                      "intercept + sum = 0.5", texts[0])


if __name__ == "__main__":
    unittest.main()
