// web/reveal.js: explanations on request and on hover send the model's
// values (ScreenReveal), show what the server says once it has every input.

import { test } from "node:test";
import assert from "node:assert/strict";
import { install } from "./fakedom.mjs";
import { onRequest, hoverable, revealKey, settle, mark } from "../../../web/reveal.js";

const reveal = { mode: "on_request", shown: false, show_value: 1, hide_value: 0, show_label: "Show explanation", hide_label: "Hide explanation", key: "e" };

function recorder() {
  const sent = [];
  return { sent, ctx: { act: (kind, fields) => sent.push([kind, fields.value]), after: [] } };
}

test("on request: the buttons send the model's show and hide values", () => {
  const doc = install();
  const { sent, ctx } = recorder();
  const box = onRequest(document.createElement("div"), reveal, ctx);
  doc.getElementById("body").append(box);
  assert.equal(box.classList.contains("shown"), false);
  box.querySelector(".reveal-show").click();
  assert.equal(box.classList.contains("shown"), true);
  box.querySelector(".reveal-show").click(); // already shown: nothing sent
  box.querySelector(".reveal-hide").click();
  assert.deepEqual(sent, [
    ["reveal", 1],
    ["reveal", 0],
  ]);
});

test("the reveal key toggles the explanation it belongs to", () => {
  const doc = install();
  const { sent, ctx } = recorder();
  const card = { ...reveal, key: null, show_value: 3, hide_value: 2 };
  doc.getElementById("body").append(onRequest(document.createElement("div"), reveal, ctx), onRequest(document.createElement("div"), card, ctx));
  assert.equal(revealKey("e"), true);
  assert.equal(revealKey("x"), false);
  assert.equal(revealKey("e"), true);
  assert.deepEqual(sent, [
    ["reveal", 1],
    ["reveal", 0],
  ]);
});

test("settle: what the server says is shown", () => {
  const doc = install();
  const { ctx } = recorder();
  const card = { ...reveal, key: null, show_value: 3, hide_value: 2 };
  const a = onRequest(document.createElement("div"), reveal, ctx);
  const b = onRequest(document.createElement("div"), card, ctx);
  doc.getElementById("body").append(a, b);
  settle({ area: { reveal: { ...reveal, shown: true } }, reservoir: { cards: [{ reveal: { ...card, shown: false } }] } });
  assert.equal(a.classList.contains("shown"), true);
  assert.equal(b.classList.contains("shown"), false);
});

test("hover: the model's numbers go to the server, one value shown at a time", () => {
  const doc = install();
  const { sent, ctx } = recorder();
  const body = document.createElement("div");
  const v0 = mark(document.createElement("span"), 4);
  const v1 = mark(document.createElement("span"), 5);
  body.append(v0, v1, mark(document.createElement("span"), -1));
  const box = hoverable(body, { mode: "hover", hint: "Point at a value", hover: -1, hides_values: true }, ctx);
  doc.getElementById("body").append(box);
  assert.equal(box.querySelectorAll(".hv").length, 2);
  v1.dispatch("pointerenter");
  assert.equal(v1.classList.contains("hv-on"), true);
  assert.equal(v0.classList.contains("hv-on"), false);
  v1.dispatch("pointerleave");
  v0.dispatch("focus");
  assert.deepEqual(sent, [
    ["hover", 5],
    ["hover", -1],
    ["hover", 4],
  ]);
  assert.equal(box.querySelector(".hover-hint").textContent, "Point at a value");
});
