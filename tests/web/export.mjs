// The export of a web participant equals a desktop one's in columns and in
// trials: the same study run once through `simlab serve` in chromium and
// once through the session state machine without a window (`simlab
// simulate`), both exported with `simlab export`.

import { join } from "node:path";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { check, report, tempDir, startServer, browser, link, walk, SIMLAB } from "./lib.mjs";

const dir = tempDir("export");
const webDb = join(dir, "web.db");
const deskDb = join(dir, "desk.db");
const srv = await startServer(process.env.STUDY_FORWARD, webDb);
const b = await browser("export");
await b.page.goto(link(srv.base, "exported"));
await walk(b.page);
await b.close();
await srv.stop();
execFileSync(SIMLAB, ["simulate", process.env.STUDY_FORWARD, "--db", deskDb, "--participants", "1", "--policy", "model", "--station", "desk"]);
execFileSync(SIMLAB, ["export", "--db", webDb, "--csv", join(dir, "web.csv")]);
execFileSync(SIMLAB, ["export", "--db", deskDb, "--csv", join(dir, "desk.csv")]);
const rows = (f) => readFileSync(f, "utf8").trim().split(/\r\n/);
const web = rows(join(dir, "web.csv"));
const desk = rows(join(dir, "desk.csv"));
check(web[0] === desk[0], "the same columns");
check(web.length === desk.length && web.length > 10, `the same number of trials (${web.length - 1} and ${desk.length - 1})`);
const side = JSON.parse(readFileSync(join(dir, "web.csv.json"), "utf8"));
check(side.rows === web.length - 1, "the sidecar describes the web export");
const col = web[0].split(",").indexOf("station");
check(
  web.slice(1).every((r) => r.split(",")[col] !== "desk"),
  "the web rows carry the web station"
);
const rtCol = web[0].split(",").indexOf("rt_ms");
const rts = web
  .slice(1)
  .map((r) => r.split(",")[rtCol])
  .filter((x) => x !== "")
  .map(Number);
check(rts.length > 5 && rts.every((x) => x > 0), "web response times are positive");
process.exit(report());
