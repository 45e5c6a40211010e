// Load client of `simlab serve` (bench/serve/run.sh starts it): K simulated
// web participants speak the browser's protocol (/api/start, /api/input
// with positions, input numbers, onsets) over keep-alive HTTP, each
// answering a screen every INTERVAL ms (with jitter); a participant who
// finishes is replaced by a new one, so K stay active. Measures the time
// from sending an input to its acknowledgement (the response committed),
// and, as the same run's reference, GET /health round trips (the HTTP path
// without the session and the commit). Prints one JSON line.
// usage: node load.mjs BASE K SECONDS INTERVAL_MS
// Only node's built-in modules.

import { requester } from "./client.mjs";

const [base, K, seconds, interval] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const { request, close } = requester(base, K + 8);

const ack = []; // ms from sending an answer to its acknowledgement
const health = [];
let committed = 0,
  errors = 0,
  enrolled = 0,
  finished = 0,
  refused = 0;
const t_end = Date.now() + seconds * 1000;
let clock = performance.timeOrigin + performance.now();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The inputs a participant gives on a screen (as tests/test_serve_live.c).
function answer(p, v) {
  const now = () => (clock = Math.max(clock + 1, performance.timeOrigin + performance.now()));
  const ins = [];
  const add = (kind, extra) => ins.push({ n: p.n++, kind, t: now(), ...extra });
  if (v.quiz) add("key", { key: String(p.pos[1] === 1 ? 1 : 2) });
  else if (v.choice && v.choice.value < 0) add("key", { key: v.choice.options[(p.pos[1] + (Math.random() < 0.5 ? 0 : 1)) % v.choice.options.length].key });
  if (v.confidence) add("confidence", { value: 3 });
  if (v.rating) add("key", { key: "4" });
  if (v.questionnaire) {
    v.questionnaire.questions.forEach((q, i) => {
      const text = q.type === "number" ? "40" : q.type === "choice" ? q.options[0] : q.type === "likert" ? "3" : "fine";
      add("answer", { value: i, text });
    });
  }
  if (v.continue && !v.quiz && (!v.choice || v.rating || v.confidence)) add("continue");
  if (v.screen === "timeout") add("tick");
  return ins;
}

async function participant(id) {
  let r = await request("POST", "/api/start", { participant: id });
  while (r.status === 429 && Date.now() < t_end) {
    await sleep(200 + Math.random() * 300);
    r = await request("POST", "/api/start", { participant: id });
  }
  if (r.status !== 200) {
    refused++;
    return;
  }
  enrolled++;
  const p = { token: r.json.token, pos: r.json.pos, n: r.json.applied, view: r.json.view };
  let onset = performance.timeOrigin + performance.now();
  while (Date.now() < t_end) {
    await sleep(interval * (0.5 + Math.random()));
    if (Date.now() >= t_end) break;
    if (p.view.screen === "done" || p.view.screen === "screened_out") {
      finished++;
      return;
    }
    const inputs = answer(p, p.view);
    const sent = p.pos;
    const res = await request("POST", "/api/input", { pos: sent, onset, inputs }, p.token);
    if (res.status !== 200) {
      errors++;
      p.n = p.pos ? p.n : 0;
      continue;
    }
    const moved = res.json.pos.join(".") !== sent.join(".");
    if (res.json.pos[0] > sent[0]) committed++;
    ack.push(res.ms);
    p.pos = res.json.pos;
    p.view = res.json.view;
    if (moved) {
      p.n = res.json.applied;
      onset = performance.timeOrigin + performance.now();
    }
  }
}

async function slot(k) {
  let gen = 0;
  while (Date.now() < t_end) {
    await participant(`load-${process.pid}-${k}-${gen++}`);
  }
}

async function probe() {
  while (Date.now() < t_end) {
    const r = await request("GET", "/health");
    if (r.status === 200) health.push(r.ms);
    await sleep(50);
  }
}

function q(a, p) {
  if (!a.length) return null;
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

const t0 = Date.now();
const slots = [];
for (let k = 0; k < K; k++) {
  slots.push(slot(k));
  await sleep(Math.min(20, (interval / K) * 2)); // spread the starts
}
await Promise.all([...slots, probe()]);
const secs = (Date.now() - t0) / 1000;
console.log(
  JSON.stringify({
    participants: K,
    interval_ms: interval,
    seconds: Number(secs.toFixed(1)),
    enrolled,
    finished,
    refused,
    errors,
    answers: ack.length,
    steps_committed: committed,
    answers_per_s: Number((ack.length / secs).toFixed(1)),
    ack_ms: { p50: q(ack, 0.5), p90: q(ack, 0.9), p99: q(ack, 0.99), max: q(ack, 1) },
    health_ms: { p50: q(health, 0.5), p99: q(health, 0.99), n: health.length },
  })
);
close();
