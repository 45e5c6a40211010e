// The item is in the same place in every condition, in the browser: one
// participant per condition of the image study (no explanation, a heatmap;
// a reservoir of examples on its tests), of the German credit study (bars,
// a rationale, none) and of the tabular counterfactual study, at 1280x720,
// 1920x1080 and a 390x844 phone; the item card's box (getBoundingClientRect)
// on every item screen must be where the first condition's was, of the
// same size, for the same kind of screen and input.

import { join, basename } from "node:path";
import { check, report, tempDir, bundleCopy, startServer, browser, link, screen, answer, changed, sqlite } from "./lib.mjs";

const src = process.env.STUDY_IMAGE;
const studies = [
  {
    dir: src,
    keep: ["baseline", "gradcam"],
    edit: (p) => Object.assign(p, { sessions: 1, n_train: 2, n_test: 2, n_catch: 0, n_practice: 1 }),
  },
  { dir: process.env.STUDY_KREDIT, keep: ["balken", "begruendung", "ohne"] },
  { dir: process.env.STUDY_CF, keep: ["LIME", "Composite"], edit: (p) => Object.assign(p, { n_test: 2 }) },
].filter((s) => s.dir);
const viewports = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
  { width: 390, height: 844 },
];

// What an item screen shows, as far as the item's box may depend on it.
function kindOf(v) {
  const c = v.cards[0];
  const i = c.input;
  const sig = i.modality === "image" ? `${i.w}x${i.h}` : JSON.stringify(i.runs || i.rows || "");
  return `${v.screen}|${v.title}|${v.cards.length}|${v.reservoir ? "res" : ""}|${sig}`;
}

let compared = 0;
for (const st of studies) {
  const name = basename(st.dir);
  const study = bundleCopy(st.dir, join(tempDir("bundle"), name), (j) => {
    j.conditions = j.conditions.filter((c) => st.keep.includes(c.id));
    delete j.baseline;
    delete j.simulation;
    delete j.screening;
    delete j.metrics; // they name the conditions left out
    if (st.edit) st.edit(j.protocol);
  });
  const db = join(tempDir("db"), "layout.db");
  const srv = await startServer(study, db);
  for (const vp of viewports) {
    const first = new Map(); // kind -> {rect, cond}
    for (let p = 0; p < st.keep.length; p++) {
      const id = `lay-${vp.width}-${p}`;
      const b = await browser(`${name}-${id}`, { viewport: vp });
      await b.page.goto(link(srv.base, id, false));
      let cond = null; // known once the consent is passed (nothing is stored before)
      let s = await screen(b.page);
      let items = 0;
      for (let i = 0; i < 200 && items < 12; i++) {
        const v = s.view;
        if (v.body === "message") break;
        if (v.body === "item" && v.cards && v.cards.length) {
          items++;
          if (cond === null) cond = sqlite(db, `SELECT condition FROM participant WHERE code='${id}'`);
          const rect = await b.page.evaluate(() => {
            const r = document.querySelector("#body .item-card").getBoundingClientRect();
            return { x: r.x, y: r.y, w: r.width, h: r.height };
          });
          const k = kindOf(v);
          const was = first.get(k);
          if (!was) first.set(k, { rect, cond });
          else if (was.cond !== cond) {
            compared++;
            const same = ["x", "y", "w", "h"].every((f) => Math.abs(was.rect[f] - rect[f]) < 1);
            check(same, `${name} ${vp.width}x${vp.height} ${v.screen} "${v.title}": the item at ${JSON.stringify(rect)} in ${cond}, at ${JSON.stringify(was.rect)} in ${was.cond}`);
          }
        }
        const before = await answer(b.page, () => 0);
        s = await changed(b.page, before, 60000);
      }
      await b.close();
    }
  }
  await srv.stop();
}
console.log(`${compared} item screens compared across conditions`);
check(compared >= 12, "item screens were compared");
process.exit(report());
