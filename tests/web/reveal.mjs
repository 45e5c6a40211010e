// An explanation given on request ("reveal": "on_request") in the browser:
// hidden behind its button at onset, shown with the study's key and
// hidden and shown again with the buttons; shown as the server says after a
// reload (the inputs journalled first, applied once) and after the server
// was killed and started again before the answer; the events (offer,
// reveal, hide, reveal) stored with the step's response in the interaction
// table and exported in NAME.interactions.csv beside the CSV. Also draws the worked
// examples' primitives (markdown here).

import { join } from "node:path";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { check, report, tempDir, bundleCopy, startServer, browser, link, screen, walk, answer, changed, sqlite, sleep, SIMLAB } from "./lib.mjs";

const dir = tempDir("reveal");
const study = bundleCopy(process.env.STUDY_EXPLANATIONS, join(dir, "study"), (j) => {
  j.conditions = j.conditions.filter((c) => c.id === "on_request");
  j.baseline = "on_request";
  j.simulation.cells = j.simulation.cells.filter((c) => (c.condition === null || c.condition === "on_request") && c.phase !== "practice");
  j.protocol = { ...j.protocol, sessions: 1, n_train: 2, n_test: 2, n_practice: 0 };
});
const db = join(dir, "web.db");
let srv = await startServer(study, db);
const port = /:(\d+)\/$/.exec(srv.base)[1];
const b = await browser("reveal");
const page = b.page;
await page.goto(link(srv.base, "revealer"));
const isOnRequest = (s) => !!(s.view.area && s.view.area.explanation && s.view.area.reveal.mode === "on_request");
let s = await walk(page, { stop: isOnRequest });
check(isOnRequest(s), "an item screen with an explanation on request");
const state = () =>
  page.evaluate(() => {
    const box = document.querySelector(".reveal[data-key]");
    const body = box && box.querySelector(".reveal-body");
    return {
      box: !!box,
      shown: !!box && box.classList.contains("shown"),
      visible: !!body && getComputedStyle(body).visibility === "visible",
      md: !!document.querySelector(".reveal-body .md strong"),
      server: window.simlab.view().area.reveal,
      settled: window.simlab.applied(),
    };
  });
let st = await state();
check(st.box && !st.shown && !st.visible, "hidden at onset, behind its button");
check(st.md, "the markdown payload is drawn (bold run)");
check(st.server && st.server.key === "e" && !st.server.shown, "the server says hidden, key e");
await page.keyboard.press("e");
await page.waitForFunction(() => window.simlab.view().area.reveal.shown === true, null, { timeout: 10000 });
st = await state();
check(st.shown && st.visible, "the key shows it, and the server agrees");
await page.locator(".reveal-hide").click();
await page.waitForFunction(() => window.simlab.view().area.reveal.shown === false, null, { timeout: 10000 });
check(!(await state()).visible, "the hide button hides it");
await page.locator(".reveal-show").click();
await page.waitForFunction(() => window.simlab.view().area.reveal.shown === true, null, { timeout: 10000 });
// a reload: the server still holds what is shown; nothing is applied twice
await page.reload();
s = await screen(page);
// the server may have reopened the session: the journal's inputs of the
// step are then sent again and applied once
await page.waitForFunction(() => window.simlab.view().area.reveal.shown && document.querySelector(".reveal[data-key].shown"), null, { timeout: 10000 }).catch(() => {});
st = await state();
check(st.shown && st.visible && st.server.shown, "shown again after a reload, as the server says");
const seq = s.pos[0];
// the server killed and started again before the answer: the step's inputs
// stay in the journal until it is answered and are applied again, once
await srv.kill();
await sleep(300);
srv = await startServer(study, db, ["--port", port]);
const before = await answer(page);
await changed(page, before);
const last = await walk(page);
check(last.view.screen === "done", "the participant finished");
await b.close();
await srv.stop();

const pid = sqlite(db, "SELECT id FROM participant WHERE code = 'revealer'");
const events = sqlite(db, `SELECT event FROM interaction WHERE participant = '${pid}' AND seq = ${seq} ORDER BY n`).split("\n");
check(events.join(",") === "offer,reveal,hide,reveal", `the step's events stored once each, in order (${events.join(",")})`);
const times = sqlite(db, `SELECT t_ms FROM interaction WHERE participant = '${pid}' AND seq = ${seq} ORDER BY n`).split("\n").map(Number);
check(
  times.every((t, i) => t >= 0 && (i === 0 || t >= times[i - 1])),
  "event times from the onset, in order"
);
const station = sqlite(db, `SELECT DISTINCT station FROM interaction WHERE participant = '${pid}'`);
check(station.length > 0 && station !== "desk", `the web station recorded them (${station})`);
execFileSync(SIMLAB, ["export", "--db", db, "--csv", join(dir, "web.csv")]);
const rows = readFileSync(join(dir, "web.interactions.csv"), "utf8").trim().split(/\r?\n/);
const head = rows[0].split(",");
const ev = head.indexOf("event");
check(ev >= 0, "the interactions export has an event column");
const exported = rows.slice(1).map((r) => r.split(",")[ev]);
check(exported.filter((e) => e === "reveal").length >= 2 && exported.includes("hide"), "reveal and hide exported");
process.exit(report());
