// web/screens.js: each body kind of the screen model drawn from the model
// alone; Continue as the model's rule says; the item card in the same place
// whether the explanation area holds an explanation or is kept empty.

import { test } from "node:test";
import assert from "node:assert/strict";
import { install, visibleText } from "./fakedom.mjs";
import { words } from "./words.mjs";

install();
const { draw, tick, continueEnabled, inputView } = await import("../../../web/screens.js");

const ctx = () => ({ act() {}, completion: null, pending: [], after: [] });
const card = { section: "Input", draws_input: true, input: { modality: "text", runs: [{ text: "A fine film", edit: false }] }, pills: [{ label: "Model output", value: "Positive", strong: true }] };
const base = {
  screen: "predict",
  body: "item",
  serial: 1,
  lang: "en",
  rtl: false,
  title: "Predict the model",
  progress: "3 of 40",
  progress_done: 2,
  progress_total: 40,
  scroll: { required: false, value_fits: 0, value_more: 1, value_end: 3 },
  keys: [],
};

function drawn(m, now = 0, onset = 0) {
  const doc = install();
  draw(m, ctx());
  tick(m, now, onset);
  return { doc, words: words(["head", "body", "foot"].flatMap((id) => visibleText(doc.getElementById(id)))) };
}

test("every body kind of the model is drawn", () => {
  const bodies = {
    message: { ...base, screen: "done", body: "message", message_head: "Thank you!", message_text: "You may close this page." },
    page: {
      ...base,
      screen: "page",
      body: "page",
      page: [
        { kind: "heading", level: 1, text: "Instructions" },
        { kind: "paragraph", runs: [{ text: "Read this." }] },
      ],
    },
    note: { ...base, screen: "break", body: "note", message_head: "Break", message_text: "Rest a minute." },
    line: { ...base, screen: "timeout", body: "line", message_text: "Time is up.", show_ms: 1000 },
    quiz: { ...base, screen: "quiz", body: "quiz", quiz: { text: "What do you predict?", options: [{ label: "The model's answer", key: "1" }], value: -1, ends: true } },
    feedback: { ...base, screen: "feedback", body: "feedback", feedback: { correct: false, final: true, head: "Not quite", detail: "The model's output was **Positive**." } },
    item: { ...base, cards: [card] },
    questionnaire: {
      ...base,
      screen: "questionnaire",
      body: "questionnaire",
      questionnaire: { questions: [{ question: { id: "age", type: "number", text: "Your age", required: true }, answer: "", range: "18 \u2013 99", problem: "Please answer this question." }], focus: -1, complete: false },
    },
  };
  const expect = { message: "close", page: "instructions", note: "rest", line: "time", quiz: "predict", feedback: "quite", item: "fine", questionnaire: "age" };
  for (const [body, m] of Object.entries(bodies)) {
    const { doc, words: w } = drawn(m);
    assert.ok(w.has(expect[body]), `${body}: drawn`);
    assert.equal(doc.getElementById("head").hidden, body === "message", `${body}: a header unless a message alone`);
  }
});

test("Continue: the model's rule, its reading time, its format", () => {
  const m = { ...base, screen: "page", body: "page", page: [], continue: { label: "Continue", key: "Enter", ready: true, ends: true, wait_ms: 5000, at_ms: 0, wait_format: "%s (%d s)" } };
  assert.equal(continueEnabled(m, 1000, 0), false, "within the reading time from the onset");
  assert.equal(continueEnabled(m, 5000, 0), true);
  assert.equal(continueEnabled({ ...m, continue: { ...m.continue, at_ms: 9000 } }, 6000, 0), false, "the server's time when known");
  assert.equal(continueEnabled({ ...m, continue: { ...m.continue, ready: false } }, 99999, 0), false, "not ready: never");
  const { doc } = drawn(m, 1200, 0);
  const btn = doc.querySelector("button.continue");
  assert.equal(btn.disabled, true);
  assert.equal(btn.querySelector(".label").textContent, "Continue (4 s)");
  tick(m, 6000, 0);
  assert.equal(btn.disabled, false);
  assert.equal(btn.querySelector(".label").textContent, "Continue");
});

test("the deadline's countdown in the model's words", () => {
  const m = { ...base, cards: [card], choice: { question: "What will the model output?", options: [{ label: "Positive", key: "f" }], value: -1, ends: true }, deadline: { limit_ms: 15000, at_ms: 0, countdown: true, format: "Noch %d s" } };
  const { doc } = drawn(m, 2500, 0);
  assert.equal(doc.querySelector(".countdown").textContent, "Noch 13 s");
});

test("the item card is the first thing in the same place whatever the area holds", () => {
  const kept = { ...base, cards: [card], area: { kept: true, across: false, section: "Explanation", reveal: { mode: "always" } } };
  const shown = { ...kept, area: { ...kept.area, explanation: { kind: "text", payload: { text: "because" } } } };
  for (const m of [kept, shown]) {
    const doc = install();
    draw(m, ctx());
    const grid = doc.querySelector(".two-col");
    assert.ok(grid, "two columns in both");
    assert.ok(grid.children[0].classList.contains("item-card"));
    assert.equal(grid.children.length, 2, "the area's column in both");
  }
  const { words: w } = drawn(kept);
  assert.ok(!w.has("explanation"), "an empty area draws nothing");
});

test("a tabular row's edit with the model's arrow", () => {
  install();
  const e = inputView({ modality: "tabular", rows: [{ name: "Age", value: "50", from: "40", arrow: "\u2190", edit: true }] });
  assert.equal(e.textContent, "Age40 \u2190 50");
});
