// A whole participant in chromium: consent to the completion code, with
// Prolific's parameters; every step answered once in the database; the
// completion code only after the last response; returning after completion
// shows the code again and enrols no one; a declined consent ends the run
// without a code and stores nothing (it is counted in the log); a link
// without an id is refused.

import { join } from "node:path";
import { check, report, tempDir, bundleCopy, startServer, browser, link, walk, screen, sqlite, answer, changed } from "./lib.mjs";

const study = bundleCopy(process.env.STUDY_FORWARD, join(tempDir("bundle"), "s"), (j) => {
  j.online = { completion_code: "C0DE42" };
});
const db = join(tempDir("db"), "web.db");
const srv = await startServer(study, db, ["--station", "web1"]);
check(/PROLIFIC_PID=\{\{%PROLIFIC_PID%\}\}/.test(srv.out()), "the link for Prolific is printed");

const b = await browser("whole");
await b.page.goto(link(srv.base, "5f1a2b3c4d5e6f7a8b9c0d1e"));
const first = await screen(b.page);
check(first.view.screen === "consent", "the first screen is the consent");
check(await b.page.evaluate(() => !document.getElementById("completion-code")), "no code before the end");
const last = await walk(b.page, { policy: (v) => v.title.length % 2 });
check(last.view.screen === "done", "the run ends on the thank-you screen");
await b.page.waitForSelector("#completion-code");
const code = await b.page.textContent("#completion-code");
check(code === "C0DE42", "the completion code is shown: " + code);
const href = await b.page.getAttribute("#completion-link", "href");
check(href === "https://app.prolific.com/submissions/complete?cc=C0DE42", "Prolific's completion link: " + href);

const pid = sqlite(db, "SELECT id FROM participant WHERE code='5f1a2b3c4d5e6f7a8b9c0d1e'");
check(pid.length === 36, "the participant is enrolled under the Prolific id");
check(sqlite(db, `SELECT status FROM participant WHERE id='${pid}'`) === "completed", "status completed");
const steps = Number(sqlite(db, `SELECT count(*) FROM trial WHERE participant='${pid}'`));
const answered = Number(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`));
check(steps > 10 && answered === steps, `every step answered once (${answered} of ${steps})`);
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND station='web1'`) === String(steps), "responses recorded as the station");
const started = sqlite(db, `SELECT detail FROM event WHERE participant='${pid}' AND kind='online_start'`);
check(/study1/.test(started) && /requestAnimationFrame/.test(started), "the start is logged with the study id and the timing method");
const methods = sqlite(db, `SELECT detail FROM event WHERE participant='${pid}' AND kind='onset_method'`);
check(/frame middle: second requestAnimationFrame less half of \d+\.\d ms/.test(methods), "how the onsets were taken is stored: " + methods);
const rts = sqlite(db, `SELECT min(response_ns - onset_ns) FROM response WHERE participant='${pid}' AND onset_ns > 0 AND response_ns > 0`);
check(Number(rts) > 0, "response times are positive: " + rts);

// back after completion: the code again, nobody new
await b.page.reload();
const again = await screen(b.page);
check(again.view.screen === "done", "returning after completion shows the end");
await b.page.waitForSelector("#completion-code");
check(sqlite(db, "SELECT count(*) FROM participant") === "1", "returning enrols no one");
await b.close();

// a declined consent: the run ends without a code
const d = await browser("decline");
await d.page.goto(link(srv.base, "decliner", false));
await screen(d.page);
await d.page.click("button.decline");
await d.page.waitForFunction(() => window.simlab.view() && window.simlab.view().screen === "done");
check(await d.page.evaluate(() => !document.getElementById("completion-code")), "no code after declining");
check(sqlite(db, "SELECT count(*) FROM participant WHERE code='decliner'") === "0", "a declined consent stores nothing");
await d.close();

// a link without an id
const n = await browser("noid");
await n.page.goto(srv.base);
await n.page.waitForSelector("h1");
check(sqlite(db, "SELECT count(*) FROM participant") === "1", "no participant without an id");
await n.close();

check((await srv.stop()) === 0, "simlab serve stops cleanly on SIGTERM");
check(/1 declined before enrolment/.test(srv.err()), "the declined consent is counted in the log");
process.exit(report());
