// Helpers of the browser tests of `simlab serve` (tests/web/run.sh starts
// them): the server as a child process, Debian's chromium through
// playwright-core with a fresh profile each, and a participant who answers
// whatever screen is shown with the keys and clicks a person would use.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const SIMLAB = process.env.SIMLAB;
export const CHROMIUM = process.env.SIMLAB_CHROMIUM || "/usr/bin/chromium";

let passed = 0,
  failed = 0;

export function check(cond, what) {
  if (cond) passed++;
  else {
    failed++;
    console.error("FAIL: " + what);
  }
}

export function report() {
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

export function tempDir(name) {
  return mkdtempSync(join(tmpdir(), `simlab-web-${name}-`));
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A copy of a bundle with study.json changed by edit(json).
export function bundleCopy(src, dir, edit) {
  cpSync(src, dir, { recursive: true });
  const p = join(dir, "study.json");
  const j = JSON.parse(readFileSync(p, "utf8"));
  edit(j);
  writeFileSync(p, JSON.stringify(j, null, 2));
  return dir;
}

// Starts `simlab serve` and resolves with {proc, base, stop(), kill()} once
// it printed its link.
export function startServer(study, db, extra = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(SIMLAB, ["serve", study, "--db", db, "--port", "0", ...extra], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "",
      err = "";
    const timer = setTimeout(() => reject(new Error("simlab serve did not start: " + err)), 20000);
    proc.stderr.on("data", (d) => (err += d));
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /listening on [^\n]*:(\d+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        const base = `http://127.0.0.1:${m[1]}/`;
        resolve({
          proc,
          base,
          out: () => out,
          err: () => err,
          stop: () =>
            new Promise((r) => {
              if (proc.exitCode !== null) return r(proc.exitCode);
              proc.on("exit", (c) => r(c));
              proc.kill("SIGTERM");
            }),
          kill: () =>
            new Promise((r) => {
              proc.on("exit", () => r());
              proc.kill("SIGKILL");
            }),
        });
      }
    });
    proc.on("exit", (c) => {
      clearTimeout(timer);
      reject(new Error(`simlab serve exited ${c}: ${err}`));
    });
  });
}

// A fresh browser profile: {context, page, close()}.
export async function browser(name, opts = {}) {
  const dir = tempDir("profile-" + name);
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    bypassCSP: true, // the tests read window.simlab with evaluate()
    ignoreHTTPSErrors: !!opts.ignoreHTTPSErrors,
    viewport: opts.viewport || { width: 1280, height: 800 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on("pageerror", (e) => console.error(`[${name}] page error: ${e.message}`));
  return {
    context,
    page,
    dir,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function link(base, id, prolific = true) {
  return prolific ? `${base}?PROLIFIC_PID=${id}&STUDY_ID=study1&SESSION_ID=sess-${id}` : `${base}?participant=${id}`;
}

// The screen shown once it is ready for input: {view, pos, applied}.
export async function screen(page, timeout = 20000) {
  await page.waitForFunction(() => window.simlab && window.simlab.ready() && window.simlab.view(), null, { timeout });
  return page.evaluate(() => ({ view: window.simlab.view(), pos: window.simlab.pos(), applied: window.simlab.applied() }));
}

// Waits until the shown screen differs from before (another position or
// serial) and is ready.
export async function changed(page, before, timeout = 20000) {
  await page.waitForFunction(
    ([pos, serial]) => {
      const s = window.simlab;
      if (!s || !s.ready() || !s.view()) return false;
      const p = s.pos();
      return p.join(".") !== pos.join(".") || s.view().serial !== serial;
    },
    [before.pos, before.view.serial],
    { timeout }
  );
  return screen(page);
}

// How long an answer may take to show: the page's view changes when the
// server has applied the input, and a page whose server was down retries
// with a backoff of up to 8 s (a restart under a sanitizer takes seconds).
const SETTLE_MS = 60000;

// Answers the screen shown as a person would: keys where the desktop has
// keys, clicks elsewhere. policy(view) may choose a class index. Returns the
// screen before the answer.
export async function answer(page, policy = () => 0) {
  const s = await screen(page);
  const v = s.view;
  if (v.scroll && v.scroll.required && v.continue) {
    // scrolled to the end as a reader would, also when the view read above
    // predates the server's answer to the page's scroll report (which may
    // hold Continue until the end was seen)
    await page.evaluate(() => {
      const b = document.getElementById("body");
      b.scrollTop = b.scrollHeight;
    });
    await page.waitForFunction(() => !window.simlab.view().continue.scroll_hint, null, { timeout: SETTLE_MS });
  }
  if (v.continue && (v.continue.at_ms || v.continue.wait_ms)) {
    await page
      .waitForFunction(() => !document.querySelector("button.continue").disabled, null, { timeout: SETTLE_MS })
      .catch(async (e) => {
        // what the page shows, to find out why Continue stayed disabled
        const state = await page.evaluate(() => JSON.stringify({ view: window.simlab.view(), button: document.querySelector("button.continue")?.outerHTML, now: performance.timeOrigin + performance.now() }));
        throw new Error(`Continue never enabled: ${state}\n${e.message}`);
      });
  }
  if (v.questionnaire) {
    for (const [i, mq] of v.questionnaire.questions.entries()) {
      const q = mq.question;
      const box = page.locator(`.question[data-q="${i}"]`);
      if (q.type === "number") {
        await box.locator("input").fill(String(Number.isFinite(q.min) ? Math.max(q.min, Math.min(q.max ?? 40, 40)) : 40));
        await box.locator("input").press("Tab");
      } else if (q.type === "text") {
        await box.locator("textarea").fill("Mostly the highlighted words.");
        await box.locator("textarea").press("Tab");
      } else if (q.type === "choice") {
        await box
          .locator(".radio")
          .nth(1 % q.options.length)
          .click();
      } else if (q.type === "likert") {
        await box
          .locator(".point")
          .nth(Math.min(3, q.points - 1))
          .click();
      }
    }
    await page.waitForFunction(() => window.simlab.view().questionnaire.complete, null, { timeout: SETTLE_MS });
    await page.locator("button.continue").click();
    return s;
  }
  if (v.quiz) {
    // the first option on the first try, then the next ones
    const k = (v.quiz.retry ? s.pos[1] - 1 : 0) % v.quiz.options.length;
    await page.keyboard.press(String(k + 1));
    return s;
  }
  if (v.choice && v.choice.value < 0) {
    // another class on each retry of a practice question
    const c = (policy(v) + s.pos[1] - 1) % v.choice.options.length;
    await page.keyboard.press(v.choice.options[c].key);
    if (v.confidence || v.rating) await page.waitForFunction(() => window.simlab.view().choice.value >= 0, null, { timeout: SETTLE_MS });
    if (!v.confidence && !v.rating) return s;
  }
  const cur = await page.evaluate(() => window.simlab.view());
  if (cur.confidence && cur.confidence.value <= 0) {
    await page.keyboard.press(String(Math.min(3, cur.confidence.points)));
    if (!cur.rating) return s;
    await page.waitForFunction(() => window.simlab.view().confidence.value > 0, null, { timeout: SETTLE_MS });
  }
  if (cur.rating && cur.rating.value <= 0) {
    await page.keyboard.press(String(Math.min(5, cur.rating.points)));
    await page.waitForFunction(() => window.simlab.view().rating.value > 0, null, { timeout: SETTLE_MS });
  }
  if (cur.screen === "timeout") return s;
  if (cur.continue) {
    // read to the end (a screen taller than the window holds Continue)
    await page.evaluate(() => {
      const b = document.getElementById("body");
      b.scrollTop = b.scrollHeight;
    });
    await page.waitForFunction(
      () => {
        const b = document.querySelector("button.continue");
        return b && !b.disabled;
      },
      null,
      { timeout: 60000 }
    );
    await page.keyboard.press("Enter");
  }
  return s;
}

// Answers screens until the run is over (done or screened out) or stop(s)
// says so; returns the last screen.
export async function walk(page, { policy, stop, max = 400, delay = 0 } = {}) {
  for (let i = 0; i < max; i++) {
    const s = await screen(page, 60000);
    if (delay) await sleep(delay);
    if (s.view.screen === "done" || s.view.screen === "screened_out") return s;
    if (stop && stop(s)) return s;
    const before = await answer(page, policy);
    await changed(page, before, 60000);
  }
  throw new Error("walk: too many screens");
}

export function sqlite(db, sql) {
  return execFileSync("sqlite3", ["-readonly", db, sql], { encoding: "utf8" }).trim();
}
