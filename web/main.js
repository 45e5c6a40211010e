// simlab's browser front end: starts (or resumes) the participant named by
// the link, draws the screen the server sends, measures its onset, and
// sends every input -- journalled in IndexedDB first -- until the server
// has committed it. The server decides every screen; this file only keeps
// the protocol (serve/serve_live.h) and the clock.

import * as journal from "./journal.js";
import { draw, patch, tick, continueEnabled, contentBottom } from "./screens.js";
import { setStrings, t } from "./i18n.js";
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
  notice: null, // the resume code's notice on this screen, or null
  title: "", // the participant_title, "" none: the screen's heading
  ending: null, // the pressed element whose input answers the screen
  pendingTimer: null,
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

// The tab's title: the study's participant_title, else the screen's
// heading (never the study's own title, which is the experimenter's).
function tabTitle(v) {
  document.title = S.title || (v && v.title) || "\u200b";
}

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
  banner(t("web.offline"));
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
function resumeNeeded(json, tried) {
  S.superseded = true;
  document.getElementById("head").hidden = true;
  document.getElementById("foot").hidden = true;
  document.getElementById("body").replaceChildren(resumePage(json.mode || "code", !!json.wrong, (code) => start(code), tried));
  const input = document.getElementById("resume-code");
  input?.focus();
  if (input?.value) input.select();
}

// The study's strings and direction, from the page's own server, before
// anything is shown: the page has no texts of its own.
async function loadStrings() {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch("web/strings.json", { cache: "no-store" });
      if (res.ok) {
        const j = await res.json();
        setStrings(j.strings);
        document.documentElement.lang = j.lang || "en";
        document.documentElement.dir = j.dir || "ltr";
        return;
      }
    } catch (e) {
      // not reached: try again
    }
    await new Promise((res) => setTimeout(res, Math.min(8000, 500 * 2 ** i)));
  }
}

async function start(code) {
  if (!ext) {
    fullMessage(t("web.no_id_title"), t("web.no_id_text"));
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
      setStrings(r.json.strings);
      document.documentElement.lang = r.json.lang || "en";
      document.documentElement.dir = r.json.dir || "ltr";
      S.title = r.json.participant_title || "";
      S.superseded = false;
      await accept(r.json);
      return true;
    }
    if (r.status === 400 && r.json && r.json.error === "no_id") {
      fullMessage(t("web.no_id_title"), t("web.no_id_text"));
      return false;
    }
    if (r.status === 409 && r.json && r.json.error === "resume") {
      resumeNeeded(r.json, code);
      return false;
    }
    if (r.status === 429 && code) {
      resumeNeeded({ mode: "code", wrong: true }, code); // too many codes tried
      return false;
    }
    if (r.status >= 400 && r.status < 500 && (r.status !== 429 || (r.json && r.json.error === "browsers"))) {
      fullMessage(t("web.error_title"), (r.json && r.json.message) || String(r.status));
      return false;
    }
    if (r.status === 429 || r.status === 503) {
      banner(t("web.wait_server"));
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
  if (fresh) {
    S.ending = null;
    clearTimeout(S.pendingTimer);
    await show(v);
  } else {
    patch(v, ctx());
    tick(v, now(), onsetT());
    settlePending();
  }
}

function ctx() {
  // settled: the server has applied every input of this screen, so what it
  // says is shown is what the participant last asked for
  return { act, completion: S.completion, pending: [], after: [], settled: S.applied >= S.nextN };
}

// The screen's onset in this page's clock, null before it is known.
function onsetT() {
  return S.onset ? S.onset.t : null;
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
  tabTitle(v);
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
  tick(v, now(), onsetT());
  scheduleClock(v);
  reportScroll();
  document.querySelector(".screen-questionnaire .field")?.focus({ preventScroll: true });
  if (v.body === "message") return;
  flush(); // inputs journalled before a reload
}

// The display's frame interval: the median of the frames measured (one
// long or short frame does not move it).
const frames = [];
function frameInterval(d) {
  if (d >= 4 && d < 100) {
    frames.push(d);
    if (frames.length > 31) frames.shift();
  }
  const sorted = [...frames].sort((a, b) => a - b);
  return sorted.length ? sorted[sorted.length >> 1] : 1000 / 60;
}

// The onset: the frame that presents the screen. The first
// requestAnimationFrame after the screen was made visible starts the frame
// that paints it (t1); the next one starts the frame after it (t2), by
// when it has been presented. The page is not told when within that frame
// the pixels changed, so the onset is its middle: t2 less half the
// display's frame interval (the median of the frames measured, so that a
// long frame does not move it) -- at most half a frame off either way,
// nothing on average (measured beside the desktop's and jsPsych's:
// bench/app/compare_peers.sh, docs/online.md). When the page is hidden (no
// frames), a timer's time. The method is stored with the onset
// (onset_method events).
function paintedOnset() {
  return new Promise((resolve) => {
    let done = false;
    const fallback = setTimeout(() => {
      if (!done) {
        done = true;
        resolve({ t: now(), method: "timer (page hidden)" });
      }
    }, 1000);
    requestAnimationFrame((t1) =>
      requestAnimationFrame((t2) => {
        if (done) return;
        done = true;
        clearTimeout(fallback);
        const f = frameInterval(t2 - t1);
        resolve({ t: performance.timeOrigin + t2 - f / 2, method: `frame middle: second requestAnimationFrame less half of ${f.toFixed(1)} ms` });
      })
    );
  });
}

// Ticks for the clock of the screen: its deadline, the timeout screen's
// second, Continue's waiting time and the countdown shown.
function scheduleClock(v) {
  const at = (t, f) => S.timers.push(setTimeout(f, Math.max(0, t - now())));
  const due = v.deadline && (v.deadline.at_ms || S.onset.t + v.deadline.limit_ms);
  if (due && v.choice && v.choice.value < 0) {
    at(due + 5, () => act("tick", {}, null, due + 5));
  }
  if (v.show_ms > 0) {
    // the model's time for a screen that moves on by itself
    at(S.onset.t + v.show_ms + 5, () => act("tick", {}, null, now()));
  }
  if ((v.continue && (v.continue.at_ms || v.continue.wait_ms)) || (v.deadline && v.deadline.countdown)) {
    const id = setInterval(() => tick(S.view, now(), onsetT()), 200);
    S.timers.push(id);
  }
}

// Tells the session whether the screen's content fits the window and
// whether it was scrolled to its end, with the model's values; an
// explanation hidden behind its button is no content to scroll over.
function reportScroll() {
  const v = S.view;
  if (!v || !v.scroll || !v.scroll.required || !v.continue || !S.ready) return;
  const main = document.getElementById("body");
  const end = contentBottom(main);
  const overflow = end > main.clientHeight + 2;
  const atEnd = main.scrollTop + main.clientHeight >= end - 4;
  const value = !overflow ? v.scroll.value_fits : atEnd ? v.scroll.value_end : v.scroll.value_more;
  if (value === S.scrollSent) return;
  if (!overflow && S.scrollSent < 0) {
    S.scrollSent = value; // nothing to scroll: the session holds nothing
    return;
  }
  S.scrollSent = value;
  act("scroll", { value }, null, now());
}

// --------------------------------------------------------------- inputs

// The pressed element of an input that answers the screen shows that it
// is being saved until the server has it; a press after it is not taken
// (the server would drop it) and says so.
function pendingOn(target) {
  S.ending = target || document.body;
  if (!target) return;
  // shown only when saving takes long (offline, a slow server): a screen
  // that follows at once is not disturbed
  clearTimeout(S.pendingTimer);
  S.pendingTimer = setTimeout(() => {
    if (S.ending !== target) return;
    target.classList.add("pending");
    target.setAttribute("aria-busy", "true");
    target.dataset.status = t("web.saving");
  }, 400);
}

function notTaken(target) {
  if (!target) return;
  target.classList.remove("not-taken");
  void target.offsetWidth; // restart its animation
  target.classList.add("not-taken");
  target.dataset.status = t("web.not_taken");
  setTimeout(() => target.classList.remove("not-taken"), 2500);
}

// The server has applied every input of the screen: nothing is pending
// (an answer it did not take, on a screen that stays, is no answer).
function settlePending() {
  if (S.applied < S.nextN) return;
  S.ending = null;
  clearTimeout(S.pendingTimer);
  for (const e of document.querySelectorAll(".pending")) {
    e.classList.remove("pending");
    e.removeAttribute("aria-busy");
  }
}

// One input of the participant: journalled, then sent. Inputs before the
// screen's onset do not count (as on the desktop).
async function act(kind, fields, ev, tOverride) {
  if (!S.ready || !S.pos || S.superseded) return;
  const tIn = tOverride !== undefined ? tOverride : eventTime(ev);
  const target = ev && ev.currentTarget && ev.currentTarget.classList ? ev.currentTarget : null;
  if (kind === "continue" && !continueEnabled(S.view, now(), onsetT())) return;
  if (S.ending && kind !== "tick" && kind !== "scroll") {
    notTaken(target || (kind === "key" ? keyTarget(fields.key) : null));
    return;
  }
  const input = { n: S.nextN++, kind, t: tIn, ...fields };
  if (target) target.classList.add("pressed");
  if (target && target.dataset.ends === "1") pendingOn(target);
  else if (kind === "continue" && S.view.continue && S.view.continue.ends) pendingOn(document.querySelector("button.continue"));
  else if (kind === "key" && keyEnds(fields.key)) pendingOn(keyTarget(fields.key));
  await journal.put(ext, S.pos, input);
  flush();
}

// Whether a key answers the screen (a class's key, a quiz digit, Continue),
// as the model says of the button it stands for.
function keyTarget(k) {
  const v = S.view;
  if (v.continue && (k === "return" || k === "space")) return document.querySelector("button.continue");
  if (v.choice) {
    const i = v.choice.options.findIndex((o) => o.key === k);
    if (i >= 0) return document.querySelectorAll("button.choice")[i];
  }
  if (v.quiz) {
    const i = v.quiz.options.findIndex((o) => o.key === k);
    if (i >= 0) return document.querySelectorAll("button.option")[i];
  }
  const s = v.confidence && v.choice && v.choice.value >= 0 && !(v.confidence.value > 0) ? "confidence" : null;
  if (s && /^[0-9]$/.test(k)) return document.querySelectorAll(".scale-box button.point")[(Number(k) || 10) - 1];
  return null;
}

function keyEnds(k) {
  const e = keyTarget(k);
  return !!(e && e.dataset.ends === "1" && !e.disabled && (!e.classList.contains("continue") || continueEnabled(S.view, now(), onsetT())));
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
        settlePending();
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
        fullMessage(t("web.other_title"), t("web.other_text"), el("button", { class: "primary", onclick: () => start() }, t("web.continue_here")));
        return;
      }
      if (r.status === 503 || r.status === 429) {
        banner(t("web.wait_server"));
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
  if (k && S.ready && revealKey(k, e)) {
    e.preventDefault();
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

loadStrings().then(() => {
  document.getElementById("body").replaceChildren(el("div", { class: "content message" }, el("p", { class: "muted" }, t("web.loading"))));
  start();
});
