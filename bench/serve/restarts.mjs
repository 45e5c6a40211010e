// Restart spam against `simlab serve` (bench/serve/restarts.sh starts it):
// IDS participants pass the consent, then each of them restarts its link
// as fast as the per-participant rate allows (RATE starts a second), each
// start from "another browser" (a new client description of 4,000
// characters) with the participant's key; beside them strangers restart
// the same ids without the key, and made-up ids arrive as fast as the
// arrival limit lets them. Every 10 s the server's resident memory and the
// database's size (file and WAL) are sampled. Prints one JSON line.
// usage: node restarts.mjs BASE PID DB SECONDS IDS RATE
// Only node's built-in modules.

import { readFileSync, statSync } from "node:fs";
import { requester } from "./client.mjs";

const [base, pid, db, seconds, ids, rate] = [process.argv[2], process.argv[3], process.argv[4], Number(process.argv[5]), Number(process.argv[6]), Number(process.argv[7])];
const { request, close } = requester(base, 64);
const post = (path, body, token) => request("POST", path, body, token);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
const bytes = (p) => {
  try {
    return statSync(p).size;
  } catch (e) {
    return 0;
  }
};
const dbBytes = () => bytes(db) + bytes(db + "-wal");
const client = (k) => ({ ua: `Mozilla/5.0 (restart ${k}) ` + "x".repeat(3960), screen: "1280x800", dpr: 1, lang: "en" });

let starts = 0,
  refused = 0,
  strangers = 0,
  madeUp = 0;
const keys = [];
// the participants pass the consent
for (let i = 0; i < ids; i++) {
  const id = `restarter-${i}`;
  const r = await post("/api/start", { PROLIFIC_PID: id, SESSION_ID: "s" + i, client: client(0) });
  const t = Date.now();
  const c = await post("/api/input", { pos: r.json.pos, onset: t, inputs: [{ n: 0, kind: "continue", t: t + 1 }] }, r.json.token);
  if (c.status !== 200) throw new Error(`consent ${c.status}`);
  keys.push([id, r.json.key, "s" + i]);
}
const samples = [{ s: 0, rss_kib: rss(), db_bytes: dbBytes() }];
const t0 = Date.now();
const end = t0 + seconds * 1000;

async function restarter([id, key, session]) {
  let k = 1;
  while (Date.now() < end) {
    const r = await post("/api/start", { PROLIFIC_PID: id, SESSION_ID: session, key, client: client(k++) });
    starts++;
    if (r.status !== 200) refused++;
    await sleep(1000 / rate);
  }
}

async function stranger([id]) {
  while (Date.now() < end) {
    const r = await post("/api/start", { PROLIFIC_PID: id, SESSION_ID: "forged", client: client(-1) });
    strangers += r.status === 200;
    await sleep(1000 / rate);
  }
}

async function madeUpIds() {
  let k = 0;
  while (Date.now() < end) {
    const r = await post("/api/start", { PROLIFIC_PID: `made-up-${k++}`, SESSION_ID: "x", client: client(-2) });
    madeUp += r.status === 200;
    if (r.status === 429) await sleep(50);
  }
}

async function sampler() {
  while (Date.now() < end) {
    await sleep(10000);
    samples.push({ s: Math.round((Date.now() - t0) / 1000), rss_kib: rss(), db_bytes: dbBytes() });
  }
}

await Promise.all([...keys.map(restarter), ...keys.map(stranger), madeUpIds(), sampler()]);
const first = samples[Math.min(6, samples.length - 1)]; // after a minute
const last = samples[samples.length - 1];
console.log(
  JSON.stringify({
    seconds,
    ids,
    rate_per_id: rate,
    starts_with_key: starts,
    refused,
    stranger_starts: strangers,
    made_up_starts: madeUp,
    rss_kib: { start: samples[0].rss_kib, at_1min: first.rss_kib, end: last.rss_kib, max: Math.max(...samples.map((x) => x.rss_kib)) },
    db_bytes: { start: samples[0].db_bytes, at_1min: first.db_bytes, end: last.db_bytes },
    samples,
  })
);
close();
