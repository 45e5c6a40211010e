// web/expl.js: each kind of explanation drawn from a node of the screen
// model, with the model's texts (numbers as the model formats them) and
// nothing of its own; one drawing per kind stimuli/expl.c knows.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { install, visibleText } from "./fakedom.mjs";
import { words } from "./words.mjs";

install();
const { render, renderTop, KINDS } = await import("../../../web/expl.js");

const ctx = () => ({ act() {}, pending: [], after: [] });
const val = (label, text, weight, hover = -1) => ({ label, text, weight, hover });

// Draws node; returns the words shown.
function shown(node, reveal) {
  const doc = install();
  const e = reveal ? renderTop(node, reveal, ctx()) : render(node, ctx());
  doc.getElementById("body").append(e);
  return words(visibleText(doc.getElementById("body")));
}

const pairNode = (kind) => ({
  kind,
  payload: {
    tokens: [
      { text: "a", weight: 0, segment: 0 },
      { text: "dog", weight: 0, segment: 1 },
    ],
    pairs: [{ a: [0, 1], b: [1, 2], weight: 0.4 }],
  },
  values: [val("a", "0.00", 0, 0), val("dog", "0.00", 0, 1)],
  name_a: "Premise",
  name_b: "Hypothesis",
  section: "Strongest interactions",
  lines: [{ label: "\u201ca\u201d  \u2194  \u201cdog\u201d", text: "+0.40", weight: 0.4, pair: 0 }],
});

const nodes = {
  heatmap: { kind: "heatmap", payload: { map: "m/1", map_format: "png", colormap: "viridis", opacity: 0.5 }, image: "m/0", legend_lo: "weniger wichtig", legend_hi: "wichtiger", draws_input: true },
  image: { kind: "image", payload: { images: [{ src: "m/2", caption: "Ein Vogel", weight: null }] } },
  gallery: {
    kind: "gallery",
    payload: {
      images: [
        { src: "m/3", caption: "Streifen" },
        { src: "m/4", caption: "Fell" },
      ],
      columns: 0,
    },
    values: [val("Streifen", "+0,77", 0.77, 0), val("Fell", "\u22120,20", -0.2, 1)],
  },
  markdown: {
    kind: "markdown",
    payload: {
      doc: [
        {
          kind: "paragraph",
          runs: [
            { text: "Das Modell ", strong: false },
            { text: "achtet", strong: true },
          ],
        },
      ],
    },
  },
  bars: { kind: "bars", payload: { signed: true, decimals: 1 }, values: [val("Einkommen", "+1,5 %", 1.5, 0), val("Alter", "\u22120,5 %", -0.5, 1)], lines: [{ label: "Summe", text: "+1,0 %", weight: 1, pair: -1 }], line_rule: true },
  layout: {
    kind: "layout",
    payload: { row: true },
    parts: [
      { kind: "text", title: "Teil A", payload: { text: "links" } },
      { kind: "text", title: "Teil B", payload: { text: "rechts" } },
    ],
  },
  tokens: {
    kind: "tokens",
    payload: {
      tokens: [
        { text: "great", weight: 0.8, segment: 0 },
        { text: "film", weight: -0.1, segment: 0 },
      ],
    },
    values: [val("great", "+0.80", 0.8, 0), val("film", "\u22120.10", -0.1, 1)],
    legend_lo: "\u22120.80  toward Negative",
    legend_hi: "toward Positive  +0.80",
  },
  token_pairs: pairNode("token_pairs"),
  span_pairs: pairNode("span_pairs"),
  features: {
    kind: "features",
    payload: {},
    values: [val("Age = 39", "+0.12", 0.12, 0)],
    lines: [
      { label: "Baseline (intercept)", text: "+0.30", weight: 0.3, pair: -1 },
      { label: "Model output (total evidence)", text: "+0.42", weight: 0.42, pair: -1 },
    ],
    line_rule: true,
  },
  rules: { kind: "rules", payload: { rules: [["age > 30", "hours > 40"]] }, word_if: "IF", word_and: "AND", values: [val("THEN the model predicts **>50K**", "Precision 93%   \u00b7   Coverage 12%", null)] },
  prototype: {
    kind: "prototype",
    payload: { rows: [{ name: "Age", input: "39", prototype: "41" }] },
    head: "Most similar prototype: label **>50K**",
    columns: ["Feature", "Prototype", "This input"],
    note: "Highlighted rows: the prototype and the input differ.",
    section: "Important features",
    values: [val("Age = 39", "+0.20", 0.2, 0)],
  },
  path: {
    kind: "path",
    payload: {},
    head: "Edits that move the model toward **Bird**",
    lines: [
      { label: "Start", text: "\u22120.50", note: "the input as it is", weight: -0.5, pair: -1 },
      { label: "Step 1", text: "+0.25", note: "sky: blue \u2192 **grey**", weight: 0.25, pair: -1 },
    ],
  },
  text: { kind: "text", payload: { text: "The **sky** decided." } },
  composite: { kind: "composite", parts: [{ kind: "text", title: "LIME", payload: { text: "weights" } }] },
};

test("every kind of stimuli/expl.c has its drawing", () => {
  const c = readFileSync(new URL("../../../stimuli/expl.c", import.meta.url), "utf8");
  const names = [...c.matchAll(/\[EXPL_[A-Z_]+\] = \{"([a-z_]+)"/g)].map((m) => m[1]);
  assert.ok(names.length >= 15);
  assert.deepEqual(Object.keys(KINDS).sort(), [...names].sort());
  assert.deepEqual(Object.keys(nodes).sort(), [...names].sort());
});

for (const [kind, node] of Object.entries(nodes)) {
  test(`${kind}: the model's texts and no others`, () => {
    const got = shown(node);
    const texts = [];
    const collect = (n) => {
      for (const k of ["title", "head", "legend_lo", "legend_hi", "section", "name_a", "name_b", "note", "word_if", "word_and"]) if (n[k]) texts.push(n[k]);
      for (const c of n.columns || []) texts.push(c);
      // a token's number is its tooltip, shown only while it is hovered
      const tooltips = /^(tokens|token_pairs|span_pairs)$/.test(n.kind);
      for (const v of n.values || []) texts.push(v.label, tooltips ? null : v.text);
      for (const l of n.lines || []) texts.push(l.label, l.text, l.note);
      const p = n.payload || {};
      for (const im of p.images || []) texts.push(im.caption);
      for (const r of p.rules || []) texts.push(...r);
      for (const r of p.rows || []) texts.push(r.name, r.input, r.prototype);
      for (const tk of p.tokens || []) texts.push(tk.text);
      for (const b of p.doc || []) for (const r of b.runs || []) texts.push(r.text);
      if (p.text) texts.push(p.text);
      for (const c of n.parts || []) collect(c);
    };
    collect(node);
    const want = words(texts.filter(Boolean));
    assert.deepEqual([...got].sort(), [...want].sort());
  });
}

test("the numbers are the model's: signs and decimal marks as written", () => {
  const got = shown(nodes.gallery);
  assert.ok(got.has("+0,77") && got.has("\u22120,20"));
  assert.ok(!got.has("0.77"));
});

test("hover: a value's number shows only while it is hovered", () => {
  const reveal = { mode: "hover", hint: "Point at a bar", hover: 1, hides_values: true };
  const got = shown(nodes.bars, reveal);
  assert.ok(got.has("\u22120,5"), "the hovered value");
  assert.ok(!got.has("+1,5"), "not the others");
  assert.ok(got.has("einkommen") && got.has("alter"), "every label");
});

test("on request: hidden behind the model's button, shown with the hide button", () => {
  const reveal = { mode: "on_request", shown: false, show_value: 1, hide_value: 0, show_label: "Show explanation", hide_label: "Hide explanation", key: "e" };
  let got = shown(nodes.text, reveal);
  assert.deepEqual([...got].sort(), ["e", "explanation", "show"]);
  got = shown(nodes.text, { ...reveal, shown: true });
  assert.ok(got.has("hide") && got.has("sky") && !got.has("show"));
});
