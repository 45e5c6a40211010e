// Explanation payloads as the server sends them: a tree of nodes
// {"kind", "title", fields..., "parts"} (serve/serve_view.c). One renderer
// per kind in KINDS below, as the desktop runner has one per kind
// (app/render.c); a node of a kind this front end does not know shows its
// title and any "text" or "parts" it has, so new kinds degrade gently.

import { el, marked, runs, imageReady } from "./dom.js";
import { mark, onRequest, hoverable } from "./reveal.js";
import { diverging, darkOn, gradient, normalize, parseNpy, colorize } from "./colormap.js";
import { t, fmt } from "./i18n.js";

function finite(x) {
  return typeof x === "number" && Number.isFinite(x);
}

// A number in the study's language: its decimal mark (number.decimal), one
// minus sign (U+2212), "+" before positive values when plus is set.
export function num(x, digits = 2, plus = false) {
  if (!finite(x)) return "";
  const body = Math.abs(x).toFixed(digits).replace(".", t("number.decimal") || ".");
  const neg = x < 0 && Number(Math.abs(x).toFixed(digits)) !== 0;
  return (neg ? "\u2212" : plus ? "+" : "") + body;
}

function signed(x, digits = 2) {
  return num(x, digits, true);
}

function sectionLabel(text) {
  return el("div", { class: "section-label" }, text);
}

// A colour bar with captions at its ends.
function legend(name, lo, hi) {
  return el(
    "div",
    { class: "legend" },
    el("span", { class: "legend-end" }, lo),
    el("span", { class: "legend-bar", style: { background: gradient(name) } }),
    el("span", { class: "legend-end" }, hi)
  );
}

function weightLegend(maxabs, ctx) {
  const m = num(maxabs, 2);
  const lo = el("span", { class: "num" }, `\u2212${m}`);
  const hi = el("span", { class: "num" }, `+${m}`);
  if (ctx.classes && ctx.classes.length === 2) {
    return legend("diverging", el("span", {}, lo, "  ", el("bdi", {}, fmt(t("expl.toward"), ctx.classes[1]))), el("span", {}, el("bdi", {}, fmt(t("expl.toward"), ctx.classes[0])), "  ", hi));
  }
  return legend("diverging", lo, hi);
}

// ---------------------------------------------------------------- heatmap

async function loadMap(node) {
  if (!node.map) throw new Error("no map");
  const res = await fetch(node.map, { credentials: "same-origin" });
  if (!res.ok) throw new Error(`map: HTTP ${res.status}`);
  if (node.format === "npy") {
    const { h, w, data } = parseNpy(await res.arrayBuffer());
    return colorize(normalize(Array.from(data)), w, h, node.colormap);
  }
  const blob = await res.blob();
  const bmp = await createImageBitmap(blob);
  const c = new OffscreenCanvas(bmp.width, bmp.height);
  const g = c.getContext("2d");
  g.drawImage(bmp, 0, 0);
  const img = g.getImageData(0, 0, bmp.width, bmp.height);
  const d = img.data;
  let grey = true;
  for (let i = 0; i < d.length && grey; i += 4) grey = d[i] === d[i + 1] && d[i] === d[i + 2];
  if (!grey) return img; // colour PNGs are shown as they are
  const v = new Array(bmp.width * bmp.height);
  for (let i = 0; i < v.length; i++) v[i] = d[4 * i];
  return colorize(normalize(v), bmp.width, bmp.height, node.colormap);
}

// The map over the image (or beside it), drawn into canvases at the
// image's size: the map scaled up with linear filtering, at the payload's
// opacity, as the desktop runner draws it.
function heatmap(node, ctx, imageUrl = node.image) {
  const side = !!node.side_by_side;
  const main = el("canvas", { class: "hm-canvas" });
  const other = side ? el("canvas", { class: "hm-canvas" }) : null;
  const wrap = el("div", { class: "heatmap" + (side ? " side" : "") }, main, other);
  const box = el("div", {}, wrap, legend(node.colormap || "viridis", t("expl.less_important"), t("expl.more_important")));
  ctx.pending.push(
    (async () => {
      let img = null;
      if (imageUrl) {
        img = new Image();
        img.src = imageUrl;
        try {
          await img.decode();
        } catch (e) {
          img = null;
        }
      }
      let map = null;
      try {
        map = await loadMap(node);
      } catch (e) {
        wrap.append(el("div", { class: "bad" }, fmt(t("image_missing"), String(e.message || e))));
      }
      // at least 384 px on the long side, so the map is filtered, not blocky
      const w0 = img ? img.naturalWidth : map ? map.width : 1;
      const h0 = img ? img.naturalHeight : map ? map.height : 1;
      const k = Math.max(1, Math.ceil(384 / Math.max(w0, h0)));
      for (const c of [main, other]) {
        if (!c) continue;
        c.width = w0 * k;
        c.height = h0 * k;
      }
      const g = main.getContext("2d");
      g.imageSmoothingEnabled = true;
      g.imageSmoothingQuality = "high";
      if (img) g.drawImage(img, 0, 0, main.width, main.height);
      if (map) {
        const src = new OffscreenCanvas(map.width, map.height);
        src.getContext("2d").putImageData(map, 0, 0);
        const target = side ? other.getContext("2d") : g;
        target.imageSmoothingEnabled = true;
        target.imageSmoothingQuality = "high";
        target.globalAlpha = side || !img ? 1 : finite(node.opacity) ? node.opacity : 0.5;
        target.drawImage(src, 0, 0, main.width, main.height);
      }
    })()
  );
  return box;
}

// ----------------------------------------------------------------- tokens

function tokenSpan(tok, maxabs, index, node) {
  const v = finite(tok.weight) ? tok.weight / maxabs : 0;
  const s = el("span", { class: "tok", "data-i": String(index) }, tok.text);
  if (Math.abs(v) >= 0.02) {
    s.style.background = diverging(v * 0.8);
    if (darkOn(v * 0.8)) s.style.color = "#fff";
  }
  return mark(s, node, index);
}

function maxAbs(tokens) {
  let m = 0;
  for (const tk of tokens || []) if (finite(tk.weight)) m = Math.max(m, Math.abs(tk.weight));
  return m > 0 ? m : 1;
}

function segmentRow(node, seg, maxabs) {
  const row = el("div", { class: "tokens", dir: "auto" });
  (node.tokens || []).forEach((tk, i) => {
    if ((tk.segment || 0) === seg) row.append(tokenSpan(tk, maxabs, i, node), " ");
  });
  return row;
}

function tokens(node, ctx) {
  const m = maxAbs(node.tokens);
  const pair = (node.tokens || []).some((tk) => tk.segment === 1);
  const box = el("div", {});
  for (let s = 0; s <= (pair ? 1 : 0); s++) {
    if (pair) box.append(sectionLabel(s === 0 ? t("expl.text_a") : t("expl.text_b")));
    box.append(segmentRow(node, s, m));
  }
  box.append(weightLegend(m, ctx));
  return box;
}

function rangeText(node, [a, b]) {
  return (node.tokens || []).slice(a, b).map((tk) => tk.text).join(" ");
}

function pairs(node, ctx) {
  const m = maxAbs(node.tokens);
  const list = [...(node.pairs || [])].sort((x, y) => Math.abs(y.weight) - Math.abs(x.weight));
  const shown = list.slice(0, 8);
  const pm = Math.max(1e-12, ...list.map((p) => Math.abs(p.weight)));
  const rowA = segmentRow(node, 0, m);
  const rowB = segmentRow(node, 1, m);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "pair-lines");
  const grid = el(
    "div",
    { class: "pair-grid" },
    el("div", { class: "pair-name" }, sectionLabel(ctx.titleA || t("expl.first"))),
    rowA,
    el("div", {}),
    el("div", { class: "pair-gap" }),
    el("div", { class: "pair-name" }, sectionLabel(ctx.titleB || t("expl.second"))),
    rowB
  );
  const holder = el("div", { class: "pair-holder" }, grid, svg);
  // lines between the tokens once laid out
  ctx.after.push(() => {
    const box = holder.getBoundingClientRect();
    svg.setAttribute("width", box.width);
    svg.setAttribute("height", box.height);
    svg.replaceChildren();
    const rect = (row, [a, b]) => {
      const r = [...row.querySelectorAll(".tok")].filter((s) => {
        const i = Number(s.dataset.i);
        return i >= a && i < b;
      });
      if (!r.length) return null;
      const rs = r.map((s) => s.getBoundingClientRect());
      const left = Math.min(...rs.map((q) => q.left)), right = Math.max(...rs.map((q) => q.right));
      return { x: (left + right) / 2 - box.left, top: rs[0].top - box.top, bottom: rs[0].bottom - box.top };
    };
    for (const p of [...shown].reverse()) {
      const ra = rect(rowA, p.a), rb = rect(rowB, p.b);
      if (!ra || !rb) continue;
      const v = p.weight / pm;
      const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("x1", ra.x);
      line.setAttribute("y1", ra.bottom);
      line.setAttribute("x2", rb.x);
      line.setAttribute("y2", rb.top - 2);
      line.setAttribute("stroke", diverging(v > 0 ? 0.35 + 0.65 * v : -0.35 + 0.65 * v));
      line.setAttribute("stroke-width", Math.max(1.5, Math.abs(v) * 5));
      line.setAttribute("stroke-linecap", "round");
      svg.append(line);
    }
  });
  const rows = shown.map((p) => {
    const v = p.weight / pm;
    return el(
      "div",
      { class: "pair-row" },
      el("span", { class: "pair-text", dir: "auto" }, `\u201c${rangeText(node, p.a)}\u201d  \u2194  \u201c${rangeText(node, p.b)}\u201d`),
      el("span", { class: "bar-track small" }, el("span", { class: "bar-fill", style: { width: `${Math.abs(v) * 100}%`, background: diverging(v > 0 ? 0.7 : -0.7) } })),
      el("span", { class: "num" }, signed(p.weight))
    );
  });
  return el("div", {}, holder, weightLegend(m, ctx), sectionLabel(t("expl.interactions")), ...rows);
}

// ------------------------------------------------------------------ bars

// Horizontal bars of signed weights from a zero axis: "name = value".
// node (may be null) numbers the rows as hover values; opts: decimals,
// unit, plus (a "+" before positive values).
function bars(features, signedAxis = true, node = null, opts = {}) {
  const m = Math.max(1e-12, ...features.map((f) => Math.abs(f.weight || 0)));
  const anyNeg = signedAxis && features.some((f) => f.weight < 0);
  const digits = typeof opts.decimals === "number" ? opts.decimals : 3;
  const plus = opts.plus !== undefined ? opts.plus : true;
  return el(
    "div",
    { class: "bars" + (anyNeg ? " signed" : "") },
    ...features.map((f, i) => {
      const v = (f.weight || 0) / m;
      const fill = el("span", {
        class: "bar-fill " + (v >= 0 ? "pos" : "neg"),
        style: { width: `${(Math.abs(v) * (anyNeg ? 50 : 100)).toFixed(2)}%`, background: v >= 0 || !signedAxis ? diverging(0.8) : diverging(-0.85) },
      });
      const row = el(
        "div",
        { class: "bar-row" },
        el("span", { class: "bar-label", dir: "auto" }, f.value ? `${f.name} = ${f.value}` : f.name),
        el("span", { class: "bar-track" }, anyNeg ? el("span", { class: "bar-axis" }) : null, fill),
        el("span", { class: "num" }, finite(f.weight) ? num(f.weight, digits, plus) + (opts.unit || "") : "")
      );
      return node ? mark(row, node, i) : row;
    })
  );
}

function features(node) {
  const box = el("div", {}, bars(node.features || [], true, node));
  const rows = [
    ["expl.baseline", node.intercept],
    ["expl.sum", node.sum],
    ["expl.total", node.output],
  ].filter(([, v]) => finite(v));
  if (rows.length) {
    box.append(
      el(
        "table",
        { class: "totals" },
        ...rows.map(([k, v], i) => el("tr", { class: i === rows.length - 1 ? "strong" : "" }, el("td", {}, t(k)), el("td", { class: "num" }, num(v, 3))))
      )
    );
  }
  return box;
}

// ----------------------------------------------------------------- rules

function rules(node) {
  const then = node.predicted ? fmt(t("expl.then"), node.predicted) : fmt(t("expl.then"), t("expl.this_class"));
  return el(
    "div",
    { class: "rules" },
    ...(node.rules || []).map((r) => {
      const conds = r.conditions.map((c, i) => el("div", { class: "rule-cond" }, el("span", { class: "kw" }, i === 0 ? t("expl.if") : t("expl.and")), " ", el("bdi", {}, c)));
      const stats = [];
      if (finite(r.precision)) stats.push(fmt(t("expl.precision"), r.precision * 100).replace(".", t("number.decimal") || "."));
      if (finite(r.coverage)) stats.push(fmt(t("expl.coverage"), r.coverage * 100).replace(".", t("number.decimal") || "."));
      return el("div", { class: "rule" }, ...conds, el("div", { class: "rule-then" }, ...marked(then)), stats.length ? el("div", { class: "muted small" }, stats.join(" \u00b7 ")) : null);
    })
  );
}

// ------------------------------------------------------------- prototype

function prototype(node) {
  const head = finite(node.prototype_evidence)
    ? fmt(t("expl.prototype_evidence"), node.prototype_label || "?", node.prototype_evidence)
    : fmt(t("expl.prototype"), node.prototype_label || "?");
  const table = el(
    "table",
    { class: "proto" },
    el("tr", {}, el("th", {}, t("expl.column_feature")), el("th", {}, t("expl.column_prototype")), el("th", {}, t("expl.column_input"))),
    ...(node.rows || []).map((r) => el("tr", { class: r.prototype !== r.input ? "differ" : "" }, el("td", {}, r.name), el("td", {}, r.prototype || ""), el("td", {}, r.input || "")))
  );
  const box = el("div", {}, el("p", {}, ...marked(head)), table);
  if ((node.rows || []).some((r) => r.prototype !== r.input)) box.append(el("div", { class: "muted small" }, t("expl.differ")));
  const feats = (node.features || []).slice(0, 6);
  if (feats.length) box.append(sectionLabel(t("expl.important")), bars(feats, false, node));
  return box;
}

// ------------------------------------------------------------------ path

function path(node) {
  const head = node.predicted ? fmt(t("expl.path_toward"), node.predicted) : t("expl.path");
  const steps = [];
  if (finite(node.start_margin)) steps.push({ label: t("expl.start"), margin: node.start_margin, edits: null });
  (node.steps || []).forEach((s, i) => steps.push({ label: fmt(t("expl.step"), i + 1), margin: s.margin, edits: s.edits }));
  const m = Math.max(1e-12, ...steps.map((s) => Math.abs(s.margin || 0)));
  return el(
    "div",
    { class: "path" },
    el("p", { class: "muted small" }, ...marked(head)),
    ...steps.map((s) => {
      const v = (s.margin || 0) / m;
      const edits = s.edits === null ? "" : s.edits.length ? null : t("expl.as_is");
      const editNodes = s.edits && s.edits.length ? s.edits.map((e) => el("span", { class: "path-edit" }, e.feature ? `${e.feature}: ` : "", e.from ? el("s", {}, e.from) : "", e.from ? " \u2192 " : "", el("strong", {}, e.to || ""))) : [];
      return el(
        "div",
        { class: "path-row" },
        el("span", { class: "path-label" }, s.label),
        el("span", { class: "bar-track" }, el("span", { class: "bar-axis" }), el("span", { class: "bar-fill " + (v >= 0 ? "pos" : "neg"), style: { width: `${Math.abs(v) * 50}%`, background: diverging(v >= 0 ? 0.8 : -0.85) } })),
        el("span", { class: "num" }, finite(s.margin) ? signed(s.margin) : ""),
        el("span", { class: "path-edits" }, edits, ...editNodes)
      );
    })
  );
}

// ------------------------------------------------------------------ text

function text(node) {
  return el("pre", { class: "pretext", dir: "auto" }, ...marked(node.text || ""));
}

function composite(node, ctx) {
  return el("div", { class: "composite" }, ...(node.parts || []).map((p) => render(p, ctx)));
}

// ---------------------------------------------------------- primitives

function caption(text) {
  return text ? el("div", { class: "muted small center caption", dir: "auto" }, text) : null;
}

// One image (a bundle image, or the item's) with its caption; with an
// overlay, the map over it as a heatmap's.
function image(node, ctx) {
  const im = (node.images || [])[0] || {};
  if (node.map) return el("div", {}, heatmap(node, ctx, im.src), caption(im.caption));
  if (!im.src) return el("div", { class: "bad" }, fmt(t("image_missing"), "?"));
  const img = el("img", { src: im.src, alt: im.caption || "", class: "expl-img" });
  ctx.pending.push(imageReady(img));
  return el("figure", { class: "expl-figure" }, img, caption(im.caption));
}

// Images in a grid of one cell size, each with its caption and weight (a
// small bar and number); the cells are the hover values.
function gallery(node, ctx) {
  const list = node.images || [];
  const cols = node.columns > 0 ? node.columns : Math.min(4, Math.max(1, list.length));
  const m = Math.max(1e-12, ...list.map((im) => (finite(im.weight) ? Math.abs(im.weight) : 0)));
  return el(
    "div",
    { class: "gallery", style: { gridTemplateColumns: `repeat(${cols}, minmax(0, 1fr))` } },
    ...list.map((im, i) => {
      const img = el("img", { src: im.src || "", alt: im.caption || "" });
      ctx.pending.push(imageReady(img));
      const v = finite(im.weight) ? im.weight / m : null;
      const weight =
        v === null
          ? null
          : el(
              "div",
              { class: "gal-weight" },
              el("span", { class: "bar-track small" }, el("span", { class: "bar-fill", style: { width: `${Math.abs(v) * 100}%`, background: diverging(v >= 0 ? 0.8 : -0.85) } })),
              el("span", { class: "num" }, num(im.weight, 2))
            );
      return mark(el("div", { class: "gal-cell" }, el("div", { class: "gal-img" }, img), caption(im.caption), weight), node, i);
    })
  );
}

// Prose: paragraphs, bold, italic, lists and line breaks.
function markdown(node) {
  return el(
    "div",
    { class: "md", dir: "auto" },
    ...(node.doc || []).map((b) => {
      switch (b.kind) {
        case "heading":
          return el(b.level === 1 ? "h3" : "h4", { dir: "auto" }, b.text);
        case "bullet":
          return el("ul", {}, el("li", { dir: "auto" }, ...runs(b.runs)));
        case "numbered":
          return el("div", { class: "numbered" }, el("span", { class: "num-label" }, b.label), el("span", { dir: "auto" }, ...runs(b.runs)));
        default:
          return el("p", { dir: "auto" }, ...runs(b.runs));
      }
    })
  );
}

// Labelled values as bars (signed from an axis at 0, or from 0), the
// study's decimals and unit, and the sum when asked.
function barsKind(node) {
  const f = node.features || [];
  const d = typeof node.decimals === "number" ? node.decimals : 2;
  const box = el("div", {}, bars(f, !!node.signed, node, { decimals: d, unit: node.unit || "", plus: !!node.signed }));
  if (node.show_sum) {
    const sum = f.reduce((a, x) => a + (finite(x.weight) ? x.weight : 0), 0);
    box.append(el("div", { class: "bars-sum" }, el("span", {}, t("expl.sum")), el("span", { class: "num" }, num(sum, d, !!node.signed) + (node.unit || ""))));
  }
  return box;
}

function layout(node, ctx) {
  return el("div", { class: "layout " + (node.row ? "row" : "column") }, ...(node.parts || []).map((p) => render(p, ctx)));
}

const KINDS = {
  image,
  gallery,
  markdown,
  bars: barsKind,
  layout,
  heatmap,
  tokens,
  token_pairs: pairs,
  span_pairs: pairs,
  features,
  rules,
  prototype,
  path,
  text,
  composite,
};

// The node (and its children) as an element. ctx: {classes, pending
// (promises the onset waits for), after (callbacks once laid out)}.
export function render(node, ctx) {
  if (!node) return null;
  const fn = KINDS[node.kind];
  const body = fn ? fn(node, ctx) : el("div", {}, node.text ? text(node) : null, node.parts ? composite(node, ctx) : null);
  const box = el("div", { class: `expl expl-${node.kind}` });
  if (node.title) box.append(el("div", { class: "expl-title" }, node.title));
  box.append(body);
  return box;
}

// The item's explanation (card -1) or reservoir card k's, with its
// "reveal": behind a button on request, its values on hover (the item's
// only: a reservoir card shows them). ctx.reveal: {shown, hover} as the
// server last said.
export function renderTop(node, ctx, card = -1, shown = false) {
  const body = render(node, ctx);
  if (!body) return null;
  if (node.reveal === "on_request") return onRequest(body, card, shown, ctx);
  if (node.reveal === "hover" && card < 0) return hoverable(body, ctx.reveal ? ctx.reveal.hover : -1, ctx);
  return body;
}

// Whether the node draws an item's image itself (heatmaps, an image of the
// item's own).
export function embedsImage(node) {
  return !!node && (node.kind === "heatmap" || (node.parts || []).some((p) => embedsImage(p)));
}
