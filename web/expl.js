// Explanations as the screen model gives them (experiment/screen_model.h,
// ScreenExpl): a tree of nodes {"kind", "payload": {the kind's data},
// texts ("title", "head", "legend_lo", ...), "values", "lines", "parts"}.
// Every text comes from the model, in the study's language with its
// numbers formatted; this file draws. One drawing per kind in KINDS, as
// the desktop has one per kind (app/render_expl.c's table); a node of a
// kind this page does not know shows its title and parts.

import { el, marked, runs, imageReady } from "./dom.js";
import { mark, onRequest, hoverable } from "./reveal.js";
import { diverging, darkOn, gradient, normalize, parseNpy, colorize } from "./colormap.js";

function finite(x) {
  return typeof x === "number" && Number.isFinite(x);
}

function sectionLabel(text) {
  return text ? el("div", { class: "section-label" }, text) : null;
}

// A colour bar with the node's captions at its ends; nothing without them.
function legend(node, name) {
  if (!node.legend_lo) return null;
  return el("div", { class: "legend" }, el("bdi", { class: "legend-end" }, node.legend_lo), el("span", { class: "legend-bar", style: { background: gradient(name) } }), el("bdi", { class: "legend-end" }, node.legend_hi || ""));
}

// ---------------------------------------------------------------- heatmap

async function loadMap(p) {
  if (!p.map) throw new Error("no map");
  const res = await fetch(p.map, { credentials: "same-origin" });
  if (!res.ok) throw new Error(`map: HTTP ${res.status}`);
  if (p.map_format === "npy") {
    const { h, w, data } = parseNpy(await res.arrayBuffer());
    return colorize(normalize(Array.from(data)), w, h, p.colormap);
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
  return colorize(normalize(v), bmp.width, bmp.height, p.colormap);
}

// The map over the image (or beside it), drawn into canvases at the
// image's size: the map scaled up with linear filtering, at the payload's
// opacity, as the desktop runner draws it.
function heatmap(node, ctx, imageUrl) {
  const p = node.payload;
  const side = !!p.side_by_side;
  const main = el("canvas", { class: "hm-canvas" });
  const other = side ? el("canvas", { class: "hm-canvas" }) : null;
  const wrap = el("div", { class: "heatmap" + (side ? " side" : "") }, main, other);
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
        map = await loadMap(p);
      } catch (e) {
        wrap.append(el("div", { class: "bad" }, String(e.message || e)));
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
        target.globalAlpha = side || !img ? 1 : finite(p.opacity) && p.opacity > 0 ? p.opacity : 0.5;
        target.drawImage(src, 0, 0, main.width, main.height);
      }
    })()
  );
  return el("div", {}, wrap, legend(node, p.colormap || "viridis"));
}

function caption(text) {
  return text ? el("div", { class: "muted small center caption", dir: "auto" }, text) : null;
}

// One image (a bundle image, or the item's) with its caption; with an
// overlay, the map over it as a heatmap's.
function image(node, ctx) {
  const im = (node.payload.images || [])[0] || {};
  const src = im.src || node.image;
  if (node.payload.map) return el("div", {}, heatmap(node, ctx, src), caption(im.caption));
  if (!src) return el("div", { class: "bad" }, "?");
  const img = el("img", { src, alt: im.caption || "", class: "expl-img" });
  ctx.pending.push(imageReady(img));
  return el("figure", { class: "expl-figure" }, img, caption(im.caption));
}

function heatmapKind(node, ctx) {
  return heatmap(node, ctx, node.image);
}

// Images in a grid of one cell size, each with its caption and its weight
// (a small bar and the model's number); the cells are the hover values.
function gallery(node, ctx) {
  const list = node.payload.images || [];
  const vals = node.values || [];
  const cols = node.payload.columns > 0 ? node.payload.columns : Math.min(4, Math.max(1, list.length));
  const m = Math.max(1e-12, ...vals.map((v) => (finite(v.weight) ? Math.abs(v.weight) : 0)));
  return el(
    "div",
    { class: "gallery", style: { gridTemplateColumns: `repeat(${cols}, minmax(0, 1fr))` } },
    ...list.map((im, i) => {
      const v = vals[i] || {};
      const img = el("img", { src: im.src || "", alt: im.caption || "" });
      ctx.pending.push(imageReady(img));
      const weight =
        v.text === undefined
          ? null
          : el(
              "div",
              { class: "gal-weight" },
              el("span", { class: "bar-track small" }, el("span", { class: "bar-fill", style: { width: `${(Math.abs(v.weight) / m) * 100}%`, background: diverging(v.weight >= 0 ? 0.8 : -0.85) } })),
              el("span", { class: "num" }, v.text)
            );
      return mark(el("div", { class: "gal-cell" }, el("div", { class: "gal-img" }, img), caption(im.caption), weight), v.hover);
    })
  );
}

// ----------------------------------------------------------------- tokens

function maxAbs(tokens) {
  let m = 0;
  for (const tk of tokens || []) if (finite(tk.weight)) m = Math.max(m, Math.abs(tk.weight));
  return m > 0 ? m : 1;
}

// A token highlighted by its weight; its value (the model's text) in a
// tooltip shown on hover.
function tokenSpan(node, i, maxabs) {
  const tok = node.payload.tokens[i];
  const v = (node.values || [])[i] || {};
  const w = finite(tok.weight) ? tok.weight / maxabs : 0;
  const s = el("span", { class: "tok", "data-i": String(i) }, tok.text, v.text ? el("span", { class: "tip", dir: "ltr" }, v.text) : null);
  if (Math.abs(w) >= 0.02) {
    s.style.background = diverging(w * 0.8);
    if (darkOn(w * 0.8)) s.style.color = "#fff";
  }
  return mark(s, v.hover);
}

function segmentRow(node, seg, maxabs) {
  const row = el("div", { class: "tokens", dir: "auto" });
  (node.payload.tokens || []).forEach((tk, i) => {
    if ((tk.segment || 0) === seg) row.append(tokenSpan(node, i, maxabs), " ");
  });
  return row;
}

function tokens(node) {
  // the screen model's scale (shared by a per-option payload's parts)
  const m = node.scale > 0 ? node.scale : maxAbs(node.payload.tokens);
  const box = el("div", {});
  const pair = !!node.name_a;
  for (let s = 0; s <= (pair ? 1 : 0); s++) {
    if (pair) box.append(sectionLabel(s === 0 ? node.name_a : node.name_b));
    box.append(segmentRow(node, s, m));
  }
  box.append(legend(node, "diverging"));
  return box;
}

function pairs(node, ctx) {
  const p = node.payload;
  const m = maxAbs(p.tokens);
  const lines = node.lines || [];
  const pm = Math.max(1e-12, ...(p.pairs || []).map((q) => Math.abs(q.weight || 0)));
  const rowA = segmentRow(node, 0, m);
  const rowB = segmentRow(node, 1, m);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "pair-lines");
  const grid = el("div", { class: "pair-grid" }, el("div", { class: "pair-name" }, sectionLabel(node.name_a)), rowA, el("div", {}), el("div", { class: "pair-gap" }), el("div", { class: "pair-name" }, sectionLabel(node.name_b)), rowB);
  const holder = el("div", { class: "pair-holder" }, grid, svg);
  // the strongest pairs joined by lines once laid out
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
      const left = Math.min(...rs.map((q) => q.left)),
        right = Math.max(...rs.map((q) => q.right));
      return { x: (left + right) / 2 - box.left, top: rs[0].top - box.top, bottom: rs[0].bottom - box.top };
    };
    for (const l of [...lines].reverse()) {
      const pr = p.pairs[l.pair];
      const ra = rect(rowA, pr.a),
        rb = rect(rowB, pr.b);
      if (!ra || !rb) continue;
      const v = pr.weight / pm;
      const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("x1", ra.x);
      line.setAttribute("y1", ra.bottom);
      line.setAttribute("x2", rb.x);
      line.setAttribute("y2", rb.top - 2);
      line.setAttribute("stroke", diverging(v > 0 ? 0.35 + 0.65 * v : -0.35 + 0.65 * v));
      line.setAttribute("stroke-width", Math.max(1.5, Math.abs(v) * 5));
      line.setAttribute("stroke-linecap", "round");
      line.dataset.a = `${pr.a[0]}:${pr.a[1]}`;
      line.dataset.b = `${pr.b[0]}:${pr.b[1]}`;
      svg.append(line);
    }
  });
  const box = el("div", {}, holder);
  if (node.section) {
    box.append(
      sectionLabel(node.section),
      ...lines.map((l) => {
        const v = l.weight / pm;
        return el(
          "div",
          { class: "pair-row" },
          el("span", { class: "pair-text", dir: "auto" }, l.label || ""),
          el("span", { class: "bar-track small" }, el("span", { class: "bar-fill", style: { width: `${Math.abs(v) * 100}%`, background: diverging(v > 0 ? 0.7 : -0.7) } })),
          el("span", { class: "num" }, l.text || "")
        );
      })
    );
  }
  return box;
}

// ------------------------------------------------------------------ bars

// Horizontal bars of the model's values ("name = value", its number),
// from an axis at 0 when signed.
function bars(values, signedAxis) {
  const m = Math.max(1e-12, ...values.map((f) => Math.abs(f.weight || 0)));
  const anyNeg = signedAxis && values.some((f) => f.weight < 0);
  return el(
    "div",
    { class: "bars" + (anyNeg ? " signed" : "") },
    ...values.map((f) => {
      const v = (f.weight || 0) / m;
      const fill = el("span", {
        class: "bar-fill " + (v >= 0 ? "pos" : "neg"),
        style: { width: `${(Math.abs(v) * (anyNeg ? 50 : 100)).toFixed(2)}%`, background: v >= 0 || !signedAxis ? diverging(0.8) : diverging(-0.85) },
      });
      const row = el(
        "div",
        { class: "bar-row" },
        el("span", { class: "bar-label", dir: "auto" }, f.label || ""),
        el("span", { class: "bar-track" }, anyNeg ? el("span", { class: "bar-axis" }) : null, fill),
        el("span", { class: "num" }, f.text || "")
      );
      return mark(row, f.hover);
    })
  );
}

// The lines under a chart: a label and a number, a rule above the last.
function sumLines(node) {
  const lines = node.lines || [];
  if (!lines.length) return null;
  return el("table", { class: "totals" }, ...lines.map((l, i) => el("tr", { class: node.line_rule && i === lines.length - 1 ? "strong" : "" }, el("td", {}, l.label || ""), el("td", { class: "num" }, l.text || ""))));
}

function features(node) {
  return el("div", {}, bars(node.values || [], true), sumLines(node));
}

function barsKind(node) {
  return el("div", {}, bars(node.values || [], !!node.payload.signed), sumLines(node));
}

// ----------------------------------------------------------------- rules

function rules(node) {
  return el(
    "div",
    { class: "rules" },
    ...(node.payload.rules || []).map((conds, r) => {
      const v = (node.values || [])[r] || {};
      return el(
        "div",
        { class: "rule" },
        ...conds.map((c, i) => el("div", { class: "rule-cond" }, el("span", { class: "kw" }, i === 0 ? node.word_if : node.word_and), " ", el("bdi", {}, c))),
        el("div", { class: "rule-then" }, ...marked(v.label || "")),
        v.text ? el("div", { class: "muted small" }, v.text) : null
      );
    })
  );
}

// ------------------------------------------------------------- prototype

function prototype(node) {
  const rows = node.payload.rows || [];
  const box = el("div", {}, el("p", {}, ...marked(node.head || "")));
  if (node.columns) {
    box.append(
      el(
        "table",
        { class: "proto" },
        el("tr", {}, ...node.columns.map((c) => el("th", {}, c))),
        ...rows.map((r) => el("tr", { class: r.prototype !== r.input ? "differ" : "" }, el("td", {}, r.name), el("td", {}, r.prototype || ""), el("td", {}, r.input || "")))
      )
    );
  }
  if (node.note) box.append(el("div", { class: "muted small" }, node.note));
  if (node.section) box.append(sectionLabel(node.section), bars(node.values || [], true));
  return box;
}

// ------------------------------------------------------------------ path

function path(node) {
  const lines = node.lines || [];
  const m = Math.max(1e-12, ...lines.map((l) => Math.abs(l.weight || 0)));
  return el(
    "div",
    { class: "path" },
    el("p", { class: "muted small" }, ...marked(node.head || "")),
    ...lines.map((l) => {
      const v = (l.weight || 0) / m;
      return el(
        "div",
        { class: "path-row" },
        el("span", { class: "path-label" }, l.label || ""),
        el("span", { class: "bar-track" }, el("span", { class: "bar-axis" }), el("span", { class: "bar-fill " + (v >= 0 ? "pos" : "neg"), style: { width: `${Math.abs(v) * 50}%`, background: diverging(v >= 0 ? 0.8 : -0.85) } })),
        el("span", { class: "num" }, l.text || ""),
        el("span", { class: "path-edits", dir: "auto" }, ...(l.note || "").split("\n").flatMap((part, i) => (i ? [el("br", {}), ...marked(part)] : marked(part))))
      );
    })
  );
}

// ------------------------------------------------------------------ text

function text(node) {
  return el("pre", { class: "pretext", dir: "auto" }, ...marked(node.payload.text || ""));
}

// Prose: paragraphs, bold, italic, lists and line breaks.
function markdown(node) {
  return el(
    "div",
    { class: "md", dir: "auto" },
    ...(node.payload.doc || []).map((b) => {
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

// ------------------------------------------------------- composite, layout

function part(node, ctx) {
  return render(node, ctx, true);
}

function composite(node, ctx) {
  return el("div", { class: "composite" }, ...(node.parts || []).map((p) => part(p, ctx)));
}

function layout(node, ctx) {
  const cls = "layout " + (node.payload.row ? "row" : "column") + (node.per_option ? " options" : "");
  return el("div", { class: cls }, ...(node.parts || []).map((p) => part(p, ctx)));
}

// One row per kind of experiment/screen_model.h's explanation nodes.
export const KINDS = {
  heatmap: heatmapKind,
  image,
  gallery,
  markdown,
  bars: barsKind,
  layout,
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

// The node (and its parts) as an element; a part's title is a section
// label. ctx: {pending (promises the onset waits for), after (callbacks
// once laid out)}.
export function render(node, ctx, isPart = false) {
  if (!node) return null;
  const fn = KINDS[node.kind];
  const body = fn ? fn(node, ctx) : el("div", {}, ...(node.parts || []).map((p) => part(p, ctx)));
  const box = el("div", { class: `expl expl-${node.kind}` });
  if (node.title) box.append(isPart ? sectionLabel(node.title) : el("div", { class: "expl-title" }, node.title));
  box.append(body);
  return box;
}

// An explanation as its area (or reservoir card) gives it, with its
// "reveal" (the model's ScreenReveal): behind a button on request, its
// values on hover.
export function renderTop(node, reveal, ctx) {
  const body = render(node, ctx);
  if (!body || !reveal) return body;
  if (reveal.mode === "on_request") return onRequest(body, reveal, ctx);
  if (reveal.mode === "hover" && reveal.hides_values) return hoverable(body, reveal, ctx);
  return body;
}
