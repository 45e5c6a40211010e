// A tab closed halfway through, the same link opened in a fresh browser
// profile: the participant continues at the first unanswered step and
// finishes; every step is answered exactly once and the resume is logged.

import { join } from "node:path";
import { check, report, tempDir, startServer, browser, link, walk, screen, sqlite } from "./lib.mjs";

const db = join(tempDir("db"), "web.db");
const srv = await startServer(process.env.STUDY_FORWARD, db);
const id = "resumer01";

const a = await browser("first");
await a.page.goto(link(srv.base, id));
const half = await walk(a.page, { stop: (s) => s.view.progress && s.view.progress_done * 2 > s.view.progress_total });
await a.close(); // the tab (and the whole browser) closed mid-run
const pid = sqlite(db, `SELECT id FROM participant WHERE code='${id}'`);
const doneBefore = Number(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`));
check(doneBefore === half.pos[0], `steps answered before closing: ${doneBefore} = the step shown ${half.pos[0]}`);

const b = await browser("second"); // another profile: nothing in its journal
await b.page.goto(link(srv.base, id));
const back = await screen(b.page);
check(back.pos[0] === half.pos[0], `resumed at the first unanswered step (${back.pos[0]})`);
const last = await walk(b.page);
check(last.view.screen === "done", "finished in the second profile");
await b.close();

const steps = Number(sqlite(db, `SELECT count(*) FROM trial WHERE participant='${pid}'`));
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`) === String(steps), "every step answered once");
check(sqlite(db, "SELECT count(*) FROM participant") === "1", "one participant");
check(Number(sqlite(db, `SELECT count(*) FROM event WHERE participant='${pid}' AND kind='resume'`)) >= 1, "the resume is logged");
await srv.stop();
process.exit(report());
