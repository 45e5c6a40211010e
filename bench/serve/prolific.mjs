// A Prolific launch against `simlab serve` behind nginx (bench/serve/
// prolific.sh starts it): N participants arrive evenly over LAUNCH
// seconds, each through the study link nginx redirects to one server
// (/s1/ or /s2/), over TLS, as a browser does: the start, the consent
// (which enrols them: the condition is the PostgreSQL server's), then a
// screen every INTERVAL ms (with jitter) to the end. Every input is kept in
// a journal until the server has moved past its screen; a lost reply, a
// 502 of nginx while a server restarts, a 401 of a restarted server (start
// again with the key, send the journal again) are retried. /health of both
// servers through nginx every 50 ms is the reference. Latencies are split
// at the first SIGKILL (KILL_AT seconds after the start). Prints one JSON
// line with per-participant the steps acknowledged (for the database
// check). usage: node prolific.mjs BASE N LAUNCH INTERVAL_MS KILL_AT
// Only node's built-in modules.

import { requester } from "./client.mjs";

const [base, N, launch, interval, killAt] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6])];
const { request, close } = requester(base, N + 16);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const t0 = Date.now();
const phase = () => (Date.now() - t0 < killAt * 1000 ? "launch" : "kills");

const lat = { launch: { start: [], enrol: [], answer: [], health: [] }, kills: { start: [], enrol: [], answer: [], health: [] } };
const counts = { retried: 0, restarted: 0, refused: 0, errors: {} };
const people = [];

function note(status) {
  counts.errors[status] = (counts.errors[status] || 0) + 1;
}

async function start(p) {
  for (let i = 0; ; i++) {
    const body = { PROLIFIC_PID: p.id, STUDY_ID: "launch", SESSION_ID: p.session, client: { ua: "bench", screen: "1280x800", dpr: 1, lang: "en" } };
    if (p.key) body.key = p.key;
    const r = await request("POST", p.prefix + "api/start", body);
    if (r.status === 200 && r.json) {
      lat[phase()].start.push(r.ms);
      p.token = r.json.token;
      if (r.json.key) p.key = r.json.key;
      take(p, r.json);
      return;
    }
    note(r.status);
    counts.retried++;
    if (i > 200) throw new Error(`${p.id}: start ${r.status}`);
    await sleep(Math.min(500 * 2 ** Math.min(i, 4), 8000));
  }
}

function take(p, reply) {
  const moved = !p.pos || reply.pos.join(".") !== p.pos.join(".");
  if (moved) {
    if (p.pos && reply.pos[0] > p.pos[0]) p.acked = Math.max(p.acked, reply.pos[0]);
    p.pos = reply.pos;
    p.onset = now();
    p.journal = p.journal.filter((x) => x.pos === reply.pos.join("."));
    p.n = Math.max(reply.applied, ...p.journal.map((x) => x.n + 1));
  } else {
    p.n = Math.max(p.n, reply.applied);
  }
  p.applied = reply.applied;
  p.view = reply.view;
}

// The inputs a participant gives on a screen (as bench/serve/load.mjs). The
// quiz of the default study (mini-forward) is right with its second option;
// one participant in 20 answers it wrong first (then right) and is screened
// out at the end, as some of a real launch are: the assignment balances the
// included participants, and that balance is what the script reports.
function inputs(p) {
  const v = p.view;
  const t = now();
  const pos = p.pos.join(".");
  const add = (kind, extra) => p.journal.push({ pos, n: p.n++, kind, t, ...extra });
  if (v.quiz) {
    add("key", { key: p.k % 20 === 7 && !p.quizzed ? "1" : "2" });
    p.quizzed = true;
  } else if (v.choice && v.choice.value < 0) add("key", { key: v.choice.options[(p.pos[1] + (Math.random() < 0.5 ? 0 : 1)) % v.choice.options.length].key });
  if (v.rating) add("key", { key: "4" });
  if (v.continue && !v.quiz && (!v.choice || v.rating)) add("continue");
  if (v.screen === "timeout") add("tick");
}

async function flush(p, kind) {
  for (let i = 0; ; i++) {
    const pos = p.pos.join(".");
    const ins = p.journal.filter((x) => x.pos === pos && x.n >= p.applied).map(({ n, kind, t, key, value }) => ({ n, kind, t, key, value }));
    const r = await request("POST", p.prefix + "api/input", { pos: p.pos, onset: p.onset, inputs: ins }, p.token);
    if (r.status === 200 && r.json) {
      lat[phase()][kind].push(r.ms);
      take(p, r.json);
      return;
    }
    note(r.status);
    counts.retried++;
    if (r.status === 401 || r.status === 409) {
      counts.restarted++;
      await start(p); // a restarted server: the key, then the journal
      continue;
    }
    if (i > 200) throw new Error(`${p.id}: input ${r.status}`);
    await sleep(r.status === 429 || r.status === 503 ? 1000 : Math.min(500 * 2 ** Math.min(i, 4), 8000));
  }
}

async function participant(k) {
  const p = { id: `${(0x5f000000 + k).toString(16)}${"a".repeat(16)}`, session: `sess${k}`, k, journal: [], acked: 0, n: 0 };
  people.push(p);
  // the study link: nginx sends the id to its server
  for (let i = 0; !p.prefix; i++) {
    const r = await request("GET", `/?PROLIFIC_PID=${p.id}&STUDY_ID=launch&SESSION_ID=${p.session}`);
    if (r.status === 302 && r.location) p.prefix = new URL(r.location, base).pathname;
    else await sleep(500);
    if (i > 50) throw new Error("no redirect");
  }
  p.server = p.prefix.replaceAll("/", "");
  await start(p);
  p.started = (Date.now() - t0) / 1000;
  await sleep(1000 + Math.random() * 2000); // reads the consent
  inputs(p);
  await flush(p, "enrol");
  while (p.view.screen !== "done" && p.view.screen !== "screened_out") {
    await sleep(interval * (0.5 + Math.random()));
    inputs(p);
    await flush(p, "answer");
  }
  p.done = true;
}

let probing = true;
async function probe() {
  while (probing) {
    for (const s of ["s1", "s2"]) {
      const r = await request("GET", `/${s}/health`);
      if (r.status === 200) lat[phase()].health.push(r.ms);
    }
    await sleep(50);
  }
}

function q(a, p) {
  if (!a.length) return null;
  const s = [...a].sort((x, y) => x - y);
  return Number(s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2));
}
const sum = (a) => ({ n: a.length, p50: q(a, 0.5), p90: q(a, 0.9), p99: q(a, 0.99), max: q(a, 1) });

const pr = probe();
const all = [];
// arrivals on a fixed timetable (a timer that fires late does not push
// the later ones back), the k-th at k * LAUNCH / N seconds
for (let k = 0; k < N; k++) {
  const due = t0 + (k * launch * 1000) / N;
  if (due > Date.now()) await sleep(due - Date.now());
  all.push(participant(k).catch((e) => console.error(e.message)));
}
await Promise.all(all);
probing = false;
await pr;
const out = {
  participants: N,
  launch_s: launch,
  interval_ms: interval,
  kill_at_s: killAt,
  seconds: (Date.now() - t0) / 1000,
  finished: people.filter((p) => p.done).length,
  last_started_s: Math.max(...people.map((p) => p.started || Infinity)),
  ...counts,
};
for (const ph of ["launch", "kills"]) out[ph] = Object.fromEntries(Object.entries(lat[ph]).map(([k, a]) => [k, sum(a)]));
out.acked = Object.fromEntries(people.map((p) => [p.id, [p.server, p.acked]]));
console.log(JSON.stringify(out));
close();
