// Neither front end decides a text: for every screen of the bundled and
// example studies in en, de, ar and ja (the lines test_screen_texts writes:
// the browser's JSON of the screen model and the texts the desktop drew of
// the same screen), web/screens.js draws the JSON here (a document of
// tests/web/unit/fakedom.mjs, no browser) at the same moment as the
// desktop did, and the words each front end shows must be words of the
// model, and the same words on both.
//   node tests/web/texts.mjs BUILD/screen-texts.jsonl

import { readFileSync } from "node:fs";
import { install, visibleText } from "./unit/fakedom.mjs";
import { words, modelWords } from "./unit/words.mjs";

const file = process.argv[2];
const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
const { draw, tick } = await import("../../web/screens.js");

let passed = 0,
  failed = 0;
const fail = (what) => {
  failed++;
  if (failed <= 40) console.error("FAIL: " + what);
};

for (const line of lines) {
  const rec = JSON.parse(line);
  const m = rec.model;
  const doc = install();
  const ctx = { act() {}, completion: null, pending: [], after: [] };
  draw(m, ctx);
  tick(m, rec.onset_ms, rec.onset_ms);
  const shown = ["head", "body", "foot"].flatMap((id) => visibleText(doc.getElementById(id)));
  // the end page speaks to its runner's participant (online: no
  // experimenter to tell): the desktop's own text is its model's
  const own = words([rec.desktop_message_text || ""]);
  const online = words([m.message_text || ""]);
  const model = new Set([...modelWords(m), ...own]);
  const runnerOwn = new Set([...own, ...online].filter((w) => !(own.has(w) && online.has(w))));
  // the reservoir's place (above the item, or below it with its note) is
  // the page's to measure in its own window: its note is left out
  const note = m.reservoir ? words([m.reservoir.note]) : new Set();
  const browser = words(shown);
  const desktop = words(rec.desktop);
  const outside = (set) => [...set].filter((w) => !model.has(w));
  const b = outside(browser),
    d = outside(desktop);
  if (b.length) fail(`${rec.where}: the browser shows words not in the model: ${b.slice(0, 8).join(" | ")}`);
  else passed++;
  if (d.length) fail(`${rec.where}: the desktop shows words not in the model: ${d.slice(0, 8).join(" | ")}`);
  else passed++;
  const same = (w) => note.has(w) || runnerOwn.has(w);
  const onlyB = [...browser].filter((w) => !desktop.has(w) && !same(w));
  const onlyD = [...desktop].filter((w) => !browser.has(w) && !same(w));
  if (onlyB.length || onlyD.length) fail(`${rec.where}: only the browser: ${onlyB.slice(0, 8).join(" | ")}; only the desktop: ${onlyD.slice(0, 8).join(" | ")}`);
  else passed++;
}
console.log(`${lines.length} screens compared`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || lines.length === 0 ? 1 : 0);
