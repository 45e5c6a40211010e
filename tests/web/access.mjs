// Who may continue, in chromium (docs/online.md "Who may continue"): a
// link without a platform session shows its resume code after the consent
// (kept by the browser); a fresh profile with the same id passes the
// consent, is asked for the code, refused a wrong one and continues with
// the right one where the participant was; a stranger with a Prolific id
// and another SESSION_ID is told to continue where the id started, and the
// participant's own browser goes on untouched. Screenshots of the notice
// and both pages in English, German and Arabic (BUILD/web-shots).

import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { check, report, tempDir, bundleCopy, startServer, browser, link, walk, screen, sqlite, answer, changed } from "./lib.mjs";

const shots = process.env.SIMLAB_WEB_SHOTS || tempDir("shots");
mkdirSync(shots, { recursive: true });

for (const lang of ["en", "de", "ar"]) {
  const study = bundleCopy(process.env.STUDY_FORWARD, join(tempDir("bundle-" + lang), "s"), (j) => {
    j.language = lang;
  });
  const db = join(tempDir("db-" + lang), "web.db");
  const srv = await startServer(study, db);
  const id = "coder-" + lang;

  // the first browser: the code after the consent
  const a = await browser("first-" + lang);
  await a.page.goto(link(srv.base, id, false));
  const consent = await screen(a.page);
  await answer(a.page);
  await changed(a.page, consent);
  await a.page.waitForSelector(".resume-code .resume-value");
  const code = await a.page.textContent(".resume-code .resume-value");
  check(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/.test(code), `${lang}: a resume code is shown after the consent: ${code}`);
  check((await a.page.evaluate((k) => JSON.parse(localStorage.getItem(k)).code, "simlab:" + id)) === code, `${lang}: and kept by the browser`);
  await a.page.screenshot({ path: join(shots, `web-${lang}-resume-code.png`) });
  const half = await walk(a.page, { stop: (s) => s.pos[0] >= 4 });
  await a.close();

  // a fresh profile: the consent, then the code is asked for
  const b = await browser("second-" + lang);
  await b.page.goto(link(srv.base, id, false));
  const c2 = await screen(b.page);
  check(c2.view.screen === "consent", `${lang}: a fresh profile sees the consent first`);
  await answer(b.page);
  await b.page.waitForSelector("#resume-code");
  await b.page.screenshot({ path: join(shots, `web-${lang}-resume-ask.png`) });
  await b.page.fill("#resume-code", "0000-0000");
  await b.page.press("#resume-code", "Enter");
  await b.page.waitForSelector(".resume-wrong");
  await b.page.screenshot({ path: join(shots, `web-${lang}-resume-wrong.png`) });
  check(true, `${lang}: a wrong code is refused`);
  await b.page.fill("#resume-code", code.toLowerCase().replace("-", " "));
  await b.page.press("#resume-code", "Enter");
  await b.page.waitForFunction(() => window.simlab.pos() && window.simlab.pos()[0] > 0 && window.simlab.ready(), null, { timeout: 20000 });
  const back = await screen(b.page);
  check(back.pos[0] === half.pos[0], `${lang}: the right code continues at step ${back.pos[0]} (was ${half.pos[0]})`);
  const last = await walk(b.page);
  check(last.view.screen === "done", `${lang}: finished in the second profile`);
  await b.close();
  const pid = sqlite(db, `SELECT id FROM participant WHERE code='${id}'`);
  const steps = sqlite(db, `SELECT count(*) FROM trial WHERE participant='${pid}'`);
  check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`) === steps, `${lang}: every step once`);

  // a stranger with a Prolific id that is taking part, another SESSION_ID
  const p = await browser("prolific-" + lang);
  await p.page.goto(`${srv.base}?PROLIFIC_PID=pp-${lang}&STUDY_ID=s&SESSION_ID=real`);
  const pc = await screen(p.page);
  await answer(p.page);
  await changed(p.page, pc);
  const before = await screen(p.page);
  const s = await browser("stranger-" + lang);
  await s.page.goto(`${srv.base}?PROLIFIC_PID=pp-${lang}&STUDY_ID=s&SESSION_ID=forged`);
  const sc = await screen(s.page);
  check(sc.view.screen === "consent" && sc.pos[0] === 0, `${lang}: the stranger sees what a new id sees`);
  await answer(s.page);
  await s.page.waitForSelector(".content.message h1");
  check(!(await s.page.$("#resume-code")), `${lang}: no code is asked for a platform session`);
  await s.page.screenshot({ path: join(shots, `web-${lang}-resume-elsewhere.png`) });
  await s.close();
  await answer(p.page);
  const after = await changed(p.page, before);
  check(after.pos[0] > before.pos[0], `${lang}: the participant's own browser goes on`);
  await p.close();
  check((await srv.stop()) === 0, `${lang}: simlab serve stops cleanly`);
}
process.exit(report());
