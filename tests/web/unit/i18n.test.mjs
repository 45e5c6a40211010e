// web/i18n.js: the study's strings and the fill of the model's formats.

import { test } from "node:test";
import assert from "node:assert/strict";
import { setStrings, t, fill } from "../../../web/i18n.js";

test("texts come from the study's table only", () => {
  setStrings({ "web.offline": "Die Verbindung ist unterbrochen." });
  assert.equal(t("web.offline"), "Die Verbindung ist unterbrochen.");
  assert.equal(t("web.loading"), ""); // no text of the page's own
  setStrings(null);
  assert.equal(t("web.offline"), "");
});

test("a format is filled as the desktop's screen_fill fills it", () => {
  assert.equal(fill("%s (%d s)", "Weiter", 4), "Weiter (4 s)");
  assert.equal(fill("%s（%d 秒）", "次へ", 12.7), "次へ（12 秒）");
  assert.equal(fill("%d s left", "", 3), "3 s left");
  assert.equal(fill("100%% %s", "sure", 0), "100% sure");
  assert.equal(fill(undefined, "x", 1), "");
});
