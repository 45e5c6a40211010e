// The server SIGKILLed mid-session, again and again, and started again on
// the same port: the participant goes on to the end; every step has
// exactly one response (nothing lost, nothing doubled).

import { join } from "node:path";
import { check, report, tempDir, startServer, browser, link, walk, sqlite, sleep } from "./lib.mjs";

const dir = tempDir("db");
const db = join(dir, "web.db");
let srv = await startServer(process.env.STUDY_FORWARD, db);
const port = /:(\d+)\/$/.exec(srv.base)[1];
const id = "killed01";
const b = await browser("kill");
await b.page.goto(link(srv.base, id));
// killed while the participant looks at a prediction; the key pressed while
// the server is down reaches it once it is back
let s = await walk(b.page, { stop: (x) => x.view.screen === "predict" });
await srv.kill();
await b.page.keyboard.press(s.view.choice.options[0].key);
await sleep(1000);
srv = await startServer(process.env.STUDY_FORWARD, db, ["--port", port]);
await b.page.waitForFunction((q) => window.simlab.pos()[0] > q, s.pos[0], { timeout: 30000 });
const pid0 = sqlite(db, `SELECT id FROM participant WHERE code='${id}'`);
check(sqlite(db, `SELECT choice FROM response WHERE participant='${pid0}' AND seq=${s.pos[0]}`) === "0", "the key pressed while the server was down is recorded");
// then killed at random moments, requests under way or not
let finished = false;
const walking = walk(b.page, { max: 600, delay: 250 }).then((s) => {
  finished = true;
  return s;
});
let kills = 0;
while (!finished && kills < 6) {
  await sleep(700 + Math.random() * 1100);
  if (finished) break;
  await srv.kill();
  kills++;
  await sleep(400 + Math.random() * 1200);
  srv = await startServer(process.env.STUDY_FORWARD, db, ["--port", port]);
}
const last = await walking;
check(kills >= 3, `the server was killed ${kills} times mid-session`);
check(last.view.screen === "done", "the participant finished");
const pid = sqlite(db, `SELECT id FROM participant WHERE code='${id}'`);
const steps = Number(sqlite(db, `SELECT count(*) FROM trial WHERE participant='${pid}'`));
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`) === String(steps), "every step has its response");
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}'`) === String(steps), "no step twice");
check(sqlite(db, "SELECT count(*) FROM participant") === "1", "one participant");
check(sqlite(db, `SELECT status FROM participant WHERE id='${pid}'`) === "completed", "completed");
await b.close();
await srv.stop();
process.exit(report());
