// Screenshots of every screen of the demo and fixture studies in the
// browser, in English, German and Arabic (right to left): one participant
// per condition (or more, until each condition had one), a PNG of each screen the first time it is shown for its
// block and condition, into $SIMLAB_WEB_SHOTS (default: a temporary
// folder). Checks what a person would notice: the page's direction and
// language, no text cut off sideways, every image decoded. With
// COVER_ALL=1 (CI's subset, web_shots), every body kind of the screen model
// and every explanation kind must have been shot in every language. A study
// given as DIR@en,de,ar,ja is shot in those languages instead of LANGS;
// mini-protocols with one trial per block: its verify, decide (with and
// without advice) and distinction screens must have been shot in each.

import { join, basename } from "node:path";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { check, report, tempDir, bundleCopy, startServer, browser, link, screen, answer, changed, sqlite } from "./lib.mjs";

const out = process.env.SIMLAB_WEB_SHOTS || tempDir("shots");
mkdirSync(out, { recursive: true });
const studies = (process.env.STUDIES || "").split(":").filter(Boolean);
const langs = (process.env.LANGS || "en:de:ar").split(":");
let shots = 0;

// An explanation's kinds, parts and reveal: screens differ by these.
const shape = (e) => (e ? `${e.kind}${e.payload.reveal && e.payload.reveal !== "always" ? ":" + e.payload.reveal : ""}(${(e.parts || []).map(shape).join(",")})` : "");
const explOf = (v) => (v.area && v.area.explanation) || null;
// what was shot, per language: body kinds and explanation kinds
const shotKinds = {};
const kindsOf = (e, into) => {
  if (!e) return;
  into.add(e.kind);
  for (const p of e.parts || []) kindsOf(p, into);
};

// valid-all's items hold an explanation of every kind, most under methods
// no condition uses: for the subset, the condition's method shows all of an
// item's explanations, as parts of a composite.
function showEveryMethod(dir) {
  const p = join(dir, "items.jsonl");
  const lines = readFileSync(p, "utf8").split("\n").filter(Boolean);
  const all = lines.map((line) => {
    const it = JSON.parse(line);
    const ex = Object.values(it.explanations || {});
    if (ex.length > 1) it.explanations.mix = { kind: "composite", title: "Every method", parts: ex };
    return JSON.stringify(it);
  });
  writeFileSync(p, all.join("\n") + "\n");
}

// mini-protocols' screens shot, per language
const protocols = {};
const protocolScreen = (v) => {
  const e = explOf(v);
  if (v.screen === "verify") return "verify";
  if (v.screen === "decide") return v.cards && v.cards[0] && v.cards[0].pills && v.cards[0].pills.some((p) => p.hidden) ? "decide-alone" : "decide-advice";
  if (v.screen === "predict" && e && e.per_option) return "distinction";
  return null;
};

for (const entry of studies) {
  const [src, only] = entry.split("@");
  const name = basename(src);
  for (const lang of only ? only.split(",") : langs) {
    const study = bundleCopy(src, join(tempDir("bundle"), name), (j) => {
      j.language = lang;
      // one trial per block: each screen comes once
      if (name === "mini-protocols") for (const b of j.blocks) if (b.n) b.n = 1;
      delete j.screening; // every participant counts: one per condition
      // fewer items: every screen still comes, sooner
      const p = j.protocol || {};
      if (p.preset === "meta-predictor") Object.assign(p, { sessions: 2, n_train: 2, n_test: 2, n_catch: 1, n_practice: 1 });
      else if (p.preset) Object.assign(p, p.preset === "hase-forward" ? { n_learn: 2, n_test: 4 } : { n_test: 4 });
      delete j.language_file;
      delete j.ui;
    });
    if (process.env.COVER_ALL === "1" && name === "valid-all") showEveryMethod(study);
    const db = join(tempDir("db"), "shots.db");
    const srv = await startServer(study, db);
    const n = JSON.parse((await import("node:fs")).readFileSync(join(study, "study.json"), "utf8")).conditions.length;
    const seen = new Set();
    // assignment is random within balance: participants until every
    // condition has had one (at most three per condition)
    const covered = () => Number(sqlite(db, "SELECT COUNT(DISTINCT condition) FROM participant"));
    for (let p = 0; p < n || (covered() < n && p < 3 * n); p++) {
      const b = await browser(`${name}-${lang}-${p}`, { viewport: { width: 1280, height: 800 } });
      await b.page.goto(link(srv.base, `shot${p}`, false));
      let s = await screen(b.page);
      check((await b.page.getAttribute("html", "dir")) === (lang === "ar" ? "rtl" : "ltr"), `${name} ${lang}: direction`);
      check((await b.page.getAttribute("html", "lang")) === lang, `${name} ${lang}: language`);
      for (let i = 0; i < 300; i++) {
        const v = s.view;
        const key = `${v.screen}|${v.title}|${shape(explOf(v))}|${v.cards && v.cards.length === 2 ? "cf" : ""}|${v.reservoir ? "res" : ""}`;
        const ps = name === "mini-protocols" && protocolScreen(v);
        if (ps) (protocols[lang] = protocols[lang] || new Set()).add(ps);
        if (!seen.has(key)) {
          seen.add(key);
          const c = (shotKinds[lang] = shotKinds[lang] || { bodies: new Set(), kinds: new Set() });
          c.bodies.add(v.body);
          kindsOf(explOf(v), c.kinds);
          for (const r of (v.reservoir && v.reservoir.cards) || []) kindsOf(r.explanation, c.kinds);
          const kinds = explOf(v)
            ? "-" +
              shape(explOf(v))
                .replace(/[^a-z_]+/g, "-")
                .replace(/-+$/, "")
            : "";
          const file = join(out, `${name}-${lang}-${String(shots).padStart(3, "0")}-${v.screen}${kinds}.png`);
          await b.page.screenshot({ path: file });
          shots++;
          const wide = await b.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
          check(!wide, `${file}: nothing sticks out sideways`);
          const broken = await b.page.evaluate(() => [...document.images].filter((im) => !im.complete || im.naturalWidth === 0).length);
          check(broken === 0, `${file}: every image decoded`);
        }
        const rv = explOf(v) && v.area.reveal.mode;
        if (rv === "on_request" && !v.area.reveal.shown && !seen.has(key + "|revealed")) {
          // the explanation shown as well (the study's key)
          seen.add(key + "|revealed");
          await b.page.keyboard.press(v.area.reveal.key);
          await b.page.waitForFunction(() => window.simlab.view().area.reveal.shown, null, { timeout: 10000 });
          await b.page.screenshot({ path: join(out, `${name}-${lang}-${String(shots).padStart(3, "0")}-${v.screen}-revealed.png`) });
          shots++;
        }
        if (rv === "hover" && !seen.has(key + "|hovered")) {
          seen.add(key + "|hovered");
          await b.page.locator(".hv").first().hover();
          await b.page.waitForFunction(() => window.simlab.view().area.reveal.hover >= 0, null, { timeout: 10000 });
          await b.page.screenshot({ path: join(out, `${name}-${lang}-${String(shots).padStart(3, "0")}-${v.screen}-hovered.png`) });
          shots++;
        }
        if (v.screen === "done" || v.screen === "screened_out") break;
        if (v.deadline && !seen.has("deadline-passed")) {
          // the first trial with a deadline is let run out: the timeout screen
          seen.add("deadline-passed");
          s = await changed(b.page, s, 60000);
          continue;
        }
        const before = await answer(b.page, () => 0);
        s = await changed(b.page, before, 30000);
      }
      await b.close();
    }
    await srv.stop();
  }
}
console.log(`${shots} screenshots in ${out}`);
if (process.env.COVER_ALL === "1") {
  const bodies = ["message", "page", "note", "line", "quiz", "feedback", "item", "questionnaire"];
  const kinds = ["heatmap", "image", "gallery", "markdown", "bars", "layout", "tokens", "token_pairs", "span_pairs", "features", "rules", "prototype", "path", "text", "composite"];
  for (const lang of langs) {
    const c = shotKinds[lang] || { bodies: new Set(), kinds: new Set() };
    for (const b of bodies) check(c.bodies.has(b), `${lang}: a screen of body kind ${b} was shot`);
    for (const k of kinds) check(c.kinds.has(k), `${lang}: a ${k} explanation was shot`);
  }
}
for (const entry of studies) {
  const [src, only] = entry.split("@");
  if (basename(src) !== "mini-protocols") continue;
  for (const lang of only ? only.split(",") : langs) for (const k of ["verify", "decide-advice", "decide-alone", "distinction"]) check(protocols[lang] && protocols[lang].has(k), `mini-protocols ${lang}: a ${k} screen was shot`);
}
check(shots > 0, "screenshots taken");
process.exit(report());
