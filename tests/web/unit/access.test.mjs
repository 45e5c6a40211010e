// web/access.js: the page that asks for the resume code of an id started in
// another browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { install, visibleText } from "./fakedom.mjs";

install();
const { resumePage } = await import("../../../web/access.js");
const { setStrings } = await import("../../../web/i18n.js");

setStrings({
  "web.resume_title": "This study was started in another browser",
  "web.resume_ask": "Enter the resume code you were shown.",
  "web.resume_other": "Please continue in the browser you started in.",
  "web.resume_label": "Resume code",
  "web.resume_go": "Continue",
  "web.resume_wrong": "This code does not continue this study.",
});

function page(mode, wrong, tried) {
  const doc = install();
  const tries = [];
  doc.getElementById("body").replaceChildren(resumePage(mode, wrong, (c) => tries.push(c), tried));
  return { doc, tries, input: doc.getElementById("resume-code"), text: visibleText(doc.getElementById("body")).join(" ") };
}

test("the code is asked for, and a code typed is tried, trimmed", () => {
  const { doc, tries, input, text } = page("code", false);
  assert.ok(text.includes("Enter the resume code"));
  assert.ok(!text.includes("does not continue"));
  assert.equal(input.value, "");
  input.value = "  v9ns-aa1j ";
  doc.querySelector("form").dispatch("submit");
  assert.deepEqual(tries, ["v9ns-aa1j"]);
  input.value = "   ";
  doc.querySelector("form").dispatch("submit");
  assert.equal(tries.length, 1, "an empty field tries nothing");
});

test("a refused code stays in the field to be mended", () => {
  const { input, text } = page("code", true, "V9NS-AAIJ");
  assert.ok(text.includes("does not continue"));
  assert.equal(input.value, "V9NS-AAIJ");
  const first = page("code", false, "V9NS-AAIJ");
  assert.equal(first.input.value, "", "only a refused code is kept");
});

test("without codes the page says where to continue and asks nothing", () => {
  const { input, text } = page("session", false);
  assert.equal(input, null);
  assert.ok(text.includes("continue in the browser you started in"));
});
