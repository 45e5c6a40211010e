// simlab's browser front end: starts (or resumes) the participant named by
// the link, draws the screen the server sends, measures its onset, and
// sends every input -- journalled in IndexedDB first -- until the server
// has committed it. The server decides every screen; this file only keeps
// the protocol (serve/serve_live.h) and the clock.

import * as journal from "./journal.js";
import { draw, patch, tick, continueReady } from "./screens.js";
import { setLanguage, w } from "./i18n.js";
import { el } from "./dom.js";
import { revealKey } from "./reveal.js";
import { kept, keep, codeNotice, resumePage } from "./access.js";

const params = new URLSearchParams(location.search);
const ext = params.get("PROLIFIC_PID") || params.get("workerId") || params.get("participant") || "";

const S = {
  token: null,
  pos: null, // [seq, attempt, phase] of the server's screen
  applied: 0, // inputs the server applied at pos
  view: null,
  serial: -1,
  completion: null,
  onset: null, // {t, method} of the screen shown (pos)
  ready: false, // the screen is shown and its onset known: inputs count
  sending: false,
  again: false,
  offline: false,
  retryTimer: null,
  timers: [],
  nextN: 0,
  superseded: false,
  scrollSent: -1,
  classes: [],
  notice: null, // the resume code's notice on this screen, or null
};

// The clock of onsets and inputs: ms since 1970 at the resolution of
// performance.now(), the same across reloads of the page.
function now() {
  return performance.timeOrigin + performance.now();
}

function eventTime(ev) {
  return ev && typeof ev.timeStamp === "number" && ev.timeStamp > 0 ? performance.timeOrigin + ev.timeStamp : now();
}

// ------------------------------------------------------------- messages

function banner(text) {
  const b = document.getElementById("banner");
  b.hidden = !text;
  b.textContent = text || "";
}

function fullMessage(title, text, button) {
  document.getElementById("head").hidden = true;
  document.getElementById("foot").hidden = true;
  document.getElementById("body").replaceChildren(el("div", { class: "content message" }, el("h1", {}, title), el("p", { class: "muted" }, text), button || null));
}

// -------------------------------------------------------------- network

async function post(path, body) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 20000);
  try {
    const headers = { "Content-Type": "application/json" };
    if (S.token) headers.Authorization = "Bearer " + S.token;
    const res = await fetch(path, { method: "POST", headers, body: JSON.stringify(body), signal: ctl.signal, cache: "no-store" });
    let json = null;
    try {
      json = await res.json();
    } catch (e) {
      json = null;
    }
    const after = Number(res.headers.get("Retry-After"));
    return { status: res.status, json, retryMs: after > 0 ? after * 1000 : (json && json.retry_ms) || 1000 };
  } catch (e) {
    return { status: 0, json: null };
  } finally {
    clearTimeout(timer);
  }
}

function retryLater(ms) {
  clearTimeout(S.retryTimer);
  S.retryTimer = setTimeout(() => {
    S.retryTimer = null;
    flush();
  }, ms);
}

let backoff = 500;

function wentOffline() {
  S.offline = true;
  banner(w("offline"));
  retryLater(backoff);
  backoff = Math.min(backoff * 2, 8000);
}

function backOnline() {
  banner("");
  S.offline = false;
  backoff = 500;
}

// ---------------------------------------------------------------- start

// The page of an id started in another browser (a 409 "resume").
function resumeNeeded(json) {
  S.superseded = true;
  document.getElementById("head").hidden = true;
  document.getElementById("foot").hidden = true;
  document.getElementById("body").replaceChildren(resumePage(json.mode || "code", !!json.wrong, (code) => start(code)));
  document.getElementById("resume-code")?.focus();
}

async function start(code) {
  if (!ext) {
    fullMessage(w("no_id_title"), w("no_id_text"));
    return false;
  }
  const body = {
    client: {
      ua: navigator.userAgent.slice(0, 300),
      screen: `${screen.width}x${screen.height}`,
      dpr: window.devicePixelRatio,
      lang: navigator.language,
    },
  };
  for (const k of ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "participant", "workerId", "assignmentId", "hitId", "pilot"]) {
    if (params.get(k)) body[k] = params.get(k);
  }
  if (kept(ext).key) body.key = kept(ext).key;
  if (code) body.code = code;
  S.token = null;
  for (;;) {
    const r = await post("api/start", body);
    if (r.status === 200 && r.json) {
      backOnline();
      keep(ext, r.json);
      S.token = r.json.token;
      S.classes = r.json.classes || [];
      setLanguage(r.json.lang, r.json.strings);
      document.documentElement.lang = r.json.lang || "en";
      document.documentElement.dir = r.json.dir || "ltr";
      document.title = r.json.study_title || "simlab";
      S.superseded = false;
      await accept(r.json);
      return true;
    }
    if (r.status === 400 && r.json && r.json.error === "no_id") {
      fullMessage(w("no_id_title"), w("no_id_text"));
      return false;
    }
    if (r.status === 409 && r.json && r.json.error === "resume") {
      resumeNeeded(r.json);
      return false;
    }
    if (r.status === 429 && code) {
      resumeNeeded({ mode: "code", wrong: true }); // too many codes tried
      return false;
    }
    if (r.status >= 400 && r.status < 500 && (r.status !== 429 || (r.json && r.json.error === "browsers"))) {
      fullMessage(w("error_title"), (r.json && r.json.message) || String(r.status));
      return false;
    }
    if (r.status === 429 || r.status === 503) {
      banner(w("wait_server"));
      await new Promise((res) => setTimeout(res, r.retryMs));
      continue;
    }
    wentOffline();
    clearTimeout(S.retryTimer);
    await new Promise((res) => setTimeout(res, backoff));
  }
}

// ----------------------------------------------------------- the screen

function samePos(a, b) {
  return a && b && a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

// Takes a reply of the server: its position, the inputs applied there and
// the screen.
async function accept(reply) {
  const moved = !samePos(reply.pos, S.pos);
  const fresh = moved || !S.view || reply.view.serial !== S.serial || reply.view.screen !== S.view.screen;
  if (fresh) S.ready = false; // no input counts until the new screen is shown
  S.pos = reply.pos;
  S.applied = reply.applied;
  S.completion = reply.completion || null;
  const v = reply.view;
  if (moved) S.notice = null;
  if (reply.resume_code && kept(ext).code !== reply.resume_code) {
    // a new code: shown on this screen, kept for this browser
    keep(ext, reply);
    S.notice = codeNotice(reply.resume_code);
    document.getElementById("body").prepend(S.notice);
  }
  if (moved) {
    await journal.prune(ext, S.pos);
    const stored = await journal.getOnset(ext, S.pos);
    S.onset = stored ? { t: stored.t, method: stored.method } : null;
    const pending = (await journal.all(ext)).filter((r) => samePos(r.pos, S.pos));
    S.nextN = Math.max(S.applied, ...pending.map((r) => r.n + 1));
  } else {
    S.nextN = Math.max(S.nextN, S.applied);
  }
  S.view = v;
  S.serial = v.serial;
  if (fresh) await show(v);
  else {
    localTimes(v);
    patch(v, ctx());
    tick(v, now());
  }
}

function ctx() {
  // settled: the server has applied every input of this screen, so what it
  // says is shown is what the participant last asked for
  return { act, classes: S.classes, completion: S.completion, pending: [], after: [], settled: S.applied >= S.nextN };
}

// Deadlines and waiting times in this page's clock.
function localTimes(v) {
  if (v.deadline && S.onset) v.deadline.at_local = v.deadline.at_ms || S.onset.t + v.deadline.limit_ms;
  if (v.continue && v.continue.wait_s && S.onset) v.continue.wait_until = S.onset.t + 1000 * v.continue.wait_s;
}

function clearTimers() {
  for (const id of S.timers) clearTimeout(id);
  S.timers = [];
}

// Draws a new screen, waits until its images are decoded, shows it and
// takes the onset from the frame after the one that painted it.
async function show(v) {
  clearTimers();
  S.ready = false;
  S.scrollSent = -1;
  const main = document.getElementById("body");
  const c = ctx();
  main.style.visibility = "hidden";
  draw(v, c);
  if (S.notice) main.prepend(S.notice);
  await Promise.all(c.pending);
  if (S.view !== v) return; // a newer screen came meanwhile
  main.style.visibility = "visible";
  for (const f of c.after) f();
  if (!S.onset) {
    S.onset = await paintedOnset();
    if (S.view !== v) return;
    await journal.putOnset(ext, S.pos, S.onset);
  }
  S.ready = true;
  localTimes(v);
  tick(v, now());
  scheduleClock(v);
  reportScroll();
  document.querySelector(".screen-questionnaire .field")?.focus({ preventScroll: true });
  if (v.screen === "done" || v.screen === "screened_out") return;
  flush(); // inputs journalled before a reload
}

// The onset: the second requestAnimationFrame after the screen was made
// visible -- the frame that painted it has then been presented. When the
// page is hidden (no frames), a timer's time, said so in the method.
function paintedOnset() {
  return new Promise((resolve) => {
    let done = false;
    const fallback = setTimeout(() => {
      if (!done) {
        done = true;
        resolve({ t: now(), method: "timer (page hidden)" });
      }
    }, 1000);
    requestAnimationFrame(() =>
      requestAnimationFrame((ts) => {
        if (done) return;
        done = true;
        clearTimeout(fallback);
        resolve({ t: performance.timeOrigin + ts, method: "requestAnimationFrame after paint" });
      })
    );
  });
}

// Ticks for the clock of the screen: its deadline, the timeout screen's
// second, Continue's waiting time and the countdown shown.
function scheduleClock(v) {
  const at = (t, f) => S.timers.push(setTimeout(f, Math.max(0, t - now())));
  if (v.deadline && v.choice && v.choice.value < 0 && v.deadline.at_local) {
    at(v.deadline.at_local + 5, () => act("tick", {}, null, v.deadline.at_local + 5));
  }
  if (v.screen === "timeout") {
    at(S.onset.t + 1005, () => act("tick", {}, null, now()));
  }
  if ((v.continue && (v.continue.after_ms || v.continue.wait_until)) || (v.deadline && v.deadline.countdown)) {
    const id = setInterval(() => tick(S.view, now()), 200);
    S.timers.push(id);
  }
}

function reportScroll() {
  const v = S.view;
  if (!v || !v.require_scroll || !v.continue || !S.ready) return;
  const main = document.getElementById("body");
  const overflow = main.scrollHeight > main.clientHeight + 2 ? 1 : 0;
  const atEnd = main.scrollTop + main.clientHeight >= main.scrollHeight - 4 ? 1 : 0;
  const value = overflow | (atEnd << 1);
  if (value === S.scrollSent) return;
  if (!overflow && S.scrollSent <= 0) {
    S.scrollSent = value; // nothing to scroll: the session holds nothing
    return;
  }
  S.scrollSent = value;
  act("scroll", { value }, null, now());
}

// --------------------------------------------------------------- inputs

// One input of the participant: journalled, then sent. Inputs before the
// screen's onset do not count (as on the desktop).
async function act(kind, fields, ev, tOverride) {
  if (!S.ready || !S.pos || S.superseded) return;
  const t = tOverride !== undefined ? tOverride : eventTime(ev);
  if (kind === "continue" && !continueReady(S.view, now())) return;
  const input = { n: S.nextN++, kind, t, ...fields };
  if (ev && ev.currentTarget && ev.currentTarget.classList) ev.currentTarget.classList.add("pressed");
  await journal.put(ext, S.pos, input);
  flush();
}

// Sends what the journal holds for the current screen from the first input
// the server has not applied; one request at a time.
async function flush() {
  if (!S.token || !S.pos) return;
  if (S.sending) {
    S.again = true;
    return;
  }
  S.sending = true;
  try {
    for (;;) {
      S.again = false;
      const pos = S.pos;
      const inputs = (await journal.all(ext)).filter((r) => samePos(r.pos, pos) && r.n >= S.applied).sort((a, b) => a.n - b.n);
      const body = { pos, onset: S.onset ? S.onset.t : null, onset_method: S.onset ? S.onset.method : null, inputs: inputs.slice(0, 64).map(({ n, kind, t, value, key, text }) => ({ n, kind, t, value, key, text })) };
      if (!inputs.length) break;
      const r = await post("api/input", body);
      if (r.status === 200 && r.json) {
        backOnline();
        await accept(r.json);
        continue;
      }
      if (r.status === 401) {
        if (!(await start())) return;
        continue;
      }
      if (r.status === 409 && r.json && r.json.error === "resume") {
        resumeNeeded(r.json);
        return;
      }
      if (r.status === 409 && r.json && r.json.error === "superseded") {
        S.superseded = true;
        fullMessage(w("other_title"), w("other_text"), el("button", { class: "primary", onclick: () => start() }, w("continue_here")));
        return;
      }
      if (r.status === 503 || r.status === 429) {
        banner(w("wait_server"));
        retryLater(r.retryMs);
        return;
      }
      if (r.status === 400) {
        // inputs the server cannot read: never sent again
        console.error("simlab: input refused", r.json);
        await journal.prune(ext, [-1, -1, -1]);
        return;
      }
      wentOffline();
      return;
    }
  } finally {
    S.sending = false;
    if (S.again && !S.retryTimer) setTimeout(flush, 0);
  }
}

// ------------------------------------------------------------ keyboard

function keyName(e) {
  const map = { Enter: "return", " ": "space", ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down", Backspace: "backspace", Tab: "tab", Escape: "escape" };
  if (map[e.key]) return map[e.key];
  return e.key && e.key.length === 1 ? e.key.toLowerCase() : null;
}

window.addEventListener("keydown", (e) => {
  if (e.repeat || e.ctrlKey || e.altKey || e.metaKey || !S.view) return;
  const target = e.target;
  const typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA");
  const v = S.view;
  if (v.questionnaire) {
    if (e.key === "Enter" && !(target && target.tagName === "TEXTAREA")) {
      if (target && target.tagName === "INPUT") target.blur();
      e.preventDefault();
      setTimeout(() => act("continue", {}, null, eventTime(e)), 0);
    }
    return;
  }
  if (typing) return;
  const k = keyName(e);
  if (k && v.reveal && v.reveal.key === k && v.explanation && v.explanation.reveal === "on_request") {
    e.preventDefault();
    if (S.ready) revealKey(e);
    return;
  }
  if (!k || !(v.keys || []).includes(k)) return;
  e.preventDefault();
  act("key", { key: k }, e);
});

document.getElementById("body").addEventListener("scroll", () => reportScroll(), { passive: true });
window.addEventListener("resize", () => reportScroll());
window.addEventListener("online", () => flush());

// No way back: the history holds this page only.
history.pushState(null, "", location.href);
window.addEventListener("popstate", () => history.pushState(null, "", location.href));

// What the page shows, for the browser tests (the participant's own screen;
// nothing else).
window.simlab = {
  view: () => S.view,
  pos: () => S.pos,
  applied: () => S.applied,
  ready: () => S.ready,
  offline: () => S.offline,
  completion: () => S.completion,
};

document.getElementById("body").replaceChildren(el("div", { class: "content message" }, el("p", { class: "muted" }, w("loading"))));
start();
