// Two participants at once in two browsers: both finish, each in their own
// condition (balanced assignment), their responses apart.

import { join } from "node:path";
import { check, report, tempDir, startServer, browser, link, walk, sqlite } from "./lib.mjs";

const db = join(tempDir("db"), "web.db");
const srv = await startServer(process.env.STUDY_FORWARD, db);
const a = await browser("a");
const b = await browser("b");
await a.page.goto(link(srv.base, "alpha", false));
await b.page.goto(link(srv.base, "beta", false));
const [ra, rb] = await Promise.all([walk(a.page, { policy: () => 0 }), walk(b.page, { policy: () => 1 })]);
check(ra.view.screen === "done" && rb.view.screen === "done", "both finished");
const conds = sqlite(db, "SELECT group_concat(condition) FROM (SELECT condition FROM participant ORDER BY condition)");
check(conds === "LIME,baseline", `one participant per condition (${conds})`);
for (const [code, pol] of [
  ["alpha", 0],
  ["beta", 1],
]) {
  const pid = sqlite(db, `SELECT id FROM participant WHERE code='${code}'`);
  const steps = Number(sqlite(db, `SELECT count(*) FROM trial WHERE participant='${pid}'`));
  check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`) === String(steps), `${code}: every step once`);
  const other = sqlite(db, `SELECT count(*) FROM response r JOIN trial t ON t.participant=r.participant AND t.seq=r.seq WHERE r.participant='${pid}' AND t.expects='choice' AND r.choice != ${pol} AND r.choice >= 0`);
  check(other === "0", `${code}: only their own answers`);
}
await a.close();
await b.close();
await srv.stop();
process.exit(report());
