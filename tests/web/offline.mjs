// Offline for a while: answers given while the connection is down stay in
// the browser's journal (IndexedDB) and are sent when it is back, with the
// times of the key presses, not of the sending; meanwhile the pressed
// answer shows that it is being saved, and a press after it that it is not
// taken; a tab closed while offline
// sends its journalled answer when the study is opened again in the same
// profile.

import { join } from "node:path";
import { check, report, tempDir, startServer, browser, link, walk, screen, changed, sqlite, sleep } from "./lib.mjs";

const db = join(tempDir("db"), "web.db");
const srv = await startServer(process.env.STUDY_FORWARD, db);
const id = "offline01";
const b = await browser("offline");
await b.page.goto(link(srv.base, id));
// up to a prediction
let s = await walk(b.page, { stop: (x) => x.view.screen === "predict" });
const pid = sqlite(db, `SELECT id FROM participant WHERE code='${id}'`);

// 1. offline, answer, wait, online
await b.context.setOffline(true);
await sleep(300);
const key = s.view.choice.options[0].key;
await b.page.keyboard.press(key);
await b.page.waitForFunction(() => window.simlab.offline(), null, { timeout: 15000 });
const shownBanner = await b.page.isVisible("#banner");
check(shownBanner, "the participant is told that the connection is lost");
// the pressed answer says it is being saved; another class pressed now is
// not taken, and says so
await b.page.waitForSelector("button.choice.pending", { timeout: 5000 });
const pending = await b.page.evaluate(() => {
  const p = document.querySelector("button.choice.pending");
  return { status: p.dataset.status, index: [...document.querySelectorAll("button.choice")].indexOf(p) };
});
check(pending.index === 0 && pending.status.length > 0, `the pressed answer shows "${pending.status}"`);
const other = s.view.choice.options[1 % s.view.choice.options.length].key;
await b.page.keyboard.press(other);
await sleep(100);
check(await b.page.evaluate(() => !!document.querySelector("button.choice.not-taken")), "a later press is shown as not taken");
await b.page.locator("button.choice").nth(1).click();
check(await b.page.evaluate(() => document.querySelectorAll("button.choice")[1].classList.contains("not-taken")), "a later click too");
await sleep(3000);
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND seq=${s.pos[0]}`) === "0", "nothing arrived while offline");
const journalled = await b.page.evaluate(
  () =>
    new Promise((res) => {
      const r = indexedDB.open("simlab-journal");
      r.onsuccess = () => {
        const q = r.result.transaction("inputs").objectStore("inputs").getAll();
        q.onsuccess = () => res(q.result.length);
      };
    })
);
check(journalled === 1, `the answer is in the journal, and the later presses are not (${journalled})`);
await b.context.setOffline(false);
s = await changed(b.page, s, 30000);
const rt = Number(sqlite(db, `SELECT (response_ns - onset_ns) / 1e6 FROM response WHERE participant='${pid}' AND seq=${s.pos[0] - 1}`));
check(rt > 0 && rt < 2500, `the response time is the key press's, not the sending's (${rt} ms)`);

// 2. a tab closed while offline
s = await walk(b.page, { stop: (x) => x.view.screen === "predict" });
const seq = s.pos[0];
await b.context.setOffline(true);
await sleep(300);
await b.page.keyboard.press(s.view.choice.options[1 % s.view.choice.options.length].key);
await sleep(500);
await b.page.close();
await b.context.setOffline(false);
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND seq=${seq}`) === "0", "the closed tab's answer is not on the server yet");
const p2 = await b.context.newPage();
await p2.goto(link(srv.base, id));
const after = await screen(p2);
await p2.waitForFunction((q) => window.simlab.pos()[0] > q, seq, { timeout: 20000 });
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND seq=${seq} AND done=1`) === "1", "the journalled answer arrived after reopening");
check(sqlite(db, `SELECT choice FROM response WHERE participant='${pid}' AND seq=${seq}`) === String(1 % s.view.choice.options.length), "with the class that was pressed");
const last = await walk(p2);
check(last.view.screen === "done", "finished");
const steps = Number(sqlite(db, `SELECT count(*) FROM trial WHERE participant='${pid}'`));
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`) === String(steps), "every step answered once");
void after;
await b.close();
await srv.stop();
process.exit(report());
