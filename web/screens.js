// Draws the screen model the server sends (experiment/screen_model.h,
// serialised by serve/serve_view.c) as the desktop runner draws it
// (app/screens.c): a header with the title and progress, a scrolling
// body drawn by the model's body kind, a response bar at the bottom. It
// decides nothing: every text, rule and time comes from the model, and
// every click or key becomes an input for the server, through ctx.act().

import { el, marked, runs, imageReady } from "./dom.js";
import { renderTop } from "./expl.js";
import { settle } from "./reveal.js";
import { t, fill } from "./i18n.js";

// ---------------------------------------------------------------- inputs

// An input as a card shows it (ScreenInput): its image, its text in runs
// (the edits highlighted), its rows.
export function inputView(input, opts = {}) {
  if (!input) return null;
  switch (input.modality) {
    case "image": {
      if (!input.src) return el("div", { class: "bad" }, "?");
      const img = el("img", { src: input.src, alt: "", class: "item-image" + (opts.small ? " small" : "") });
      return el("div", { class: "center" }, img);
    }
    case "text":
      return el("p", { class: "item-text", dir: "auto" }, ...runs(input.runs));
    case "text_pair":
      return el(
        "div",
        {},
        el("div", { class: "section-label" }, input.title_a),
        el("p", { class: "item-text", dir: "auto" }, ...runs(input.runs)),
        el("div", { class: "section-label" }, input.title_b),
        el("p", { class: "item-text", dir: "auto" }, ...runs(input.runs_b))
      );
    case "tabular":
      return el(
        "table",
        { class: "features" },
        ...(input.rows || []).map((r) =>
          el("tr", { class: r.edit ? "edited" : "" }, el("th", { dir: "auto" }, r.name), el("td", { dir: "auto" }, r.edit && r.from ? el("s", {}, r.from) : null, r.edit && r.from ? ` ${r.arrow} ` : null, r.edit ? el("strong", {}, r.value) : r.value))
        )
      );
  }
  return null;
}

function pill(p) {
  // a hidden pill keeps its place (the model's output on a decide screen without advice)
  return el("span", { class: "pill" + (p.strong ? " strong" : "") + (p.hidden ? " held" : ""), "aria-hidden": p.hidden ? "true" : null }, el("span", { class: "pill-label" }, p.label), el("bdi", { class: "pill-value" }, p.value));
}

function section(text) {
  return text ? el("div", { class: "section-label" }, text) : null;
}

// An item card (ScreenCard): its section label, input, pills.
function cardView(c) {
  const pills = (c.pills || []).length ? el("div", { class: "pills" }, ...c.pills.map(pill)) : null;
  return el("div", { class: "card item-card" }, section(c.section), c.draws_input ? inputView(c.input) : null, pills);
}

// The explanation area (ScreenArea): kept in every condition of a block
// that shows explanations, empty in a condition without one.
function areaView(a, ctx) {
  // kept empty: its room only, nothing drawn (as on the desktop)
  if (!a.explanation) return el("div", { class: "area-card empty", "aria-hidden": "true" });
  return el("div", { class: "card area-card" }, section(a.section), renderTop(a.explanation, a.reveal, ctx));
}

// The reservoir (ScreenReservoir): every card as tall as the study's
// tallest (card_h, in em of the card's text), so that it takes the same
// room in every condition; above the item when it fits in top_share of
// the view, else below it with the model's note.
function reservoirView(r, ctx) {
  const images = r.cards.length && r.cards[0].input && r.cards[0].input.modality === "image";
  const grid = el(
    "div",
    { class: "res-grid" + (images ? " images" : "") },
    ...r.cards.map((c) => {
      const card = el(
        "div",
        { class: "card res-card" },
        c.draws_input ? inputView(c.input, { small: true }) : null,
        c.explanation ? renderTop(c.explanation, c.reveal, { ...ctx, compact: true }) : null,
        el("div", { class: "pills center" }, pill(c.pill))
      );
      if (r.card_h > 0) card.style.height = `${r.card_h}em`;
      return card;
    })
  );
  return el("div", { class: "reservoir" }, section(r.title), grid);
}

function itemBody(m, ctx) {
  const cards = m.cards || [];
  if (!cards.length) return [];
  let main;
  if (cards.length === 2) {
    main = [el("div", { class: "two-col even" }, cardView(cards[0]), cardView(cards[1]))];
    if (m.area) main.push(areaView(m.area, ctx));
  } else if (m.area) {
    main = [el("div", { class: "two-col" }, cardView(cards[0]), areaView(m.area, ctx))];
  } else {
    main = [el("div", { class: "single " + ((cards[0].input && cards[0].input.modality) || "") }, cardView(cards[0]))];
  }
  if (!m.reservoir) return main;
  const res = reservoirView(m.reservoir, ctx);
  const r = m.reservoir;
  ctx.after.push(() => {
    // the model's rule, in this window: above the item when it takes at
    // most top_share of the view
    const body = document.getElementById("body");
    if (!r.top || res.offsetHeight > body.clientHeight * r.top_share) {
      body.querySelector(".content").append(el("p", { class: "muted small center res-note" }, r.note), res);
    }
  });
  return [res, ...main];
}

function pageBody(blocks) {
  return (blocks || []).map((b) => {
    switch (b.kind) {
      case "heading":
        return el(b.level === 1 ? "h1" : "h2", { dir: "auto" }, b.text);
      case "paragraph":
        return el("p", { dir: "auto" }, ...runs(b.runs));
      case "bullet":
        return el("ul", {}, el("li", { dir: "auto" }, ...runs(b.runs)));
      case "numbered":
        return el("div", { class: "numbered" }, el("span", { class: "num-label" }, b.label), el("span", { dir: "auto" }, ...runs(b.runs)));
      case "image":
        return el("figure", {}, b.src ? el("img", { src: b.src, alt: b.caption || "" }) : el("div", { class: "bad" }, b.alt || "?"), b.caption ? el("figcaption", {}, b.caption) : null);
    }
    return null;
  });
}

function quizBody(m, ctx) {
  const q = m.quiz;
  return [
    q.retry ? el("p", { class: "muted small" }, q.retry) : null,
    el("h2", { dir: "auto" }, ...marked(q.text)),
    el(
      "div",
      { class: "options" },
      ...q.options.map((o, i) =>
        el("button", { class: "option" + (q.value === i ? " selected" : ""), "data-ends": q.ends ? "1" : null, onclick: (ev) => ctx.act("choose", { value: i }, ev) }, el("kbd", {}, o.key), el("span", { dir: "auto" }, o.label))
      )
    ),
  ];
}

function feedbackBody(m) {
  const f = m.feedback;
  return [el("div", { class: "feedback " + (f.correct ? "ok" : "bad") }, el("h1", {}, f.head), el("p", {}, ...marked(f.detail))), f.card ? cardView(f.card) : null];
}

// ---------------------------------------------------------- questionnaire

function questionField(mq, i, ctx) {
  const q = mq.question;
  const send = (text, ev) => ctx.act("answer", { value: i, text }, ev);
  switch (q.type) {
    case "number": {
      const inp = el("input", { type: "text", inputmode: "decimal", class: "field short", value: mq.answer, "aria-label": q.text });
      inp.addEventListener("change", (ev) => send(inp.value, ev));
      inp.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") inp.blur();
      });
      return el("div", {}, inp, mq.range ? el("div", { class: "muted small", dir: "ltr" }, mq.range) : null);
    }
    case "text": {
      const ta = el("textarea", { class: "field", rows: "4", maxlength: String(q.max_length || 1000), "aria-label": q.text });
      ta.value = mq.answer || "";
      const count = el("div", { class: "muted small end" }, `${[...ta.value].length} / ${q.max_length}`);
      let timer = null;
      ta.addEventListener("input", (ev) => {
        count.textContent = `${[...ta.value].length} / ${q.max_length}`;
        clearTimeout(timer);
        timer = setTimeout(() => send(ta.value, ev), 600);
      });
      ta.addEventListener("change", (ev) => {
        clearTimeout(timer);
        send(ta.value, ev);
      });
      return el("div", {}, ta, count);
    }
    case "choice":
      return el(
        "div",
        { class: "radios", role: "radiogroup" },
        ...q.options.map((o, k) =>
          el(
            "button",
            { class: "radio" + (mq.answer === o ? " selected" : ""), role: "radio", "aria-checked": mq.answer === o ? "true" : "false", onclick: (ev) => ctx.act("pick", { value: i * 256 + k }, ev) },
            el("span", { class: "dot" }),
            el("span", { dir: "auto" }, o)
          )
        )
      );
    case "likert":
      return scaleRow({ points: q.points, value: Number(mq.answer) || 0, low: q.low, high: q.high, enabled: true }, (p, ev) => ctx.act("pick", { value: i * 256 + p }, ev));
  }
  return null;
}

function questionnaireBody(m, ctx) {
  const qs = m.questionnaire;
  const intro = qs.intro ? [el("p", { dir: "auto" }, ...marked(qs.intro))] : [];
  return intro.concat(
    qs.questions.map((mq, i) =>
      el(
        "div",
        { class: "question" + (mq.problem ? " invalid" : ""), "data-q": String(i) },
        el("div", { class: "q-text", dir: "auto" }, ...marked(mq.question.text), mq.optional ? el("span", { class: "muted small" }, " " + mq.optional) : null),
        questionField(mq, i, ctx),
        el("div", { class: "problem" }, mq.problem || "")
      )
    )
  );
}

// Updates a questionnaire in place (the fields keep what is being typed).
function patchQuestionnaire(m) {
  m.questionnaire.questions.forEach((mq, i) => {
    const box = document.querySelector(`.question[data-q="${i}"]`);
    if (!box) return;
    box.querySelector(".problem").textContent = mq.problem || "";
    box.classList.toggle("invalid", !!mq.problem);
    const opts = mq.question.options || [];
    box.querySelectorAll(".radio").forEach((b, k) => {
      const on = mq.answer === opts[k];
      b.classList.toggle("selected", on);
      b.setAttribute("aria-checked", on ? "true" : "false");
    });
    box.querySelectorAll(".point").forEach((b, k) => b.classList.toggle("selected", Number(mq.answer) === k + 1));
  });
}

// ------------------------------------------------------------ the footer

function scaleRow(s, onPick, ends) {
  const row = el("div", { class: "scale" });
  row.append(el("span", { class: "scale-end", dir: "auto" }, s.low || ""));
  for (let p = 1; p <= s.points; p++) {
    row.append(el("button", { class: "point" + (s.value === p ? " selected" : ""), disabled: !s.enabled, "data-ends": ends ? "1" : null, onclick: (ev) => onPick(p, ev) }, String(p)));
  }
  row.append(el("span", { class: "scale-end", dir: "auto" }, s.high || ""));
  return row;
}

function scale(s, kind, ctx) {
  return el(
    "div",
    { class: "scale-box" },
    el("div", { class: "scale-q", dir: "auto" }, s.question),
    scaleRow(s, (p, ev) => ctx.act(kind, { value: p }, ev), s.ends)
  );
}

// A key cap as the desktop draws it: one letter in capitals, a longer name
// in title case ("Enter").
function keycap(k) {
  return el("kbd", {}, k.length > 1 ? k[0].toUpperCase() + k.slice(1).toLowerCase() : k.toUpperCase());
}

// When Continue may be pressed: the model's time, or its reading time from
// the onset this page took (before the server knows the onset).
export function continueAt(m, onset) {
  const c = m.continue;
  if (!c) return 0;
  if (c.at_ms > 0) return c.at_ms;
  return c.wait_ms > 0 && typeof onset === "number" ? onset + c.wait_ms : 0;
}

// The model's rule for Continue, at time now (the server checks again).
export function continueEnabled(m, now, onset) {
  const c = m.continue;
  if (!c || !c.ready) return false;
  const at = continueAt(m, onset);
  return !(at && now < at);
}

function continueRow(m, ctx) {
  const c = m.continue;
  const btn = el("button", { class: "primary continue", "data-ends": c.ends ? "1" : null, onclick: (ev) => ctx.act("continue", {}, ev) }, keycap(c.key), el("span", { class: "label" }, c.label));
  const row = el("div", { class: "continue-row" + (c.decline ? " consent" : "") });
  if (c.decline) row.append(el("button", { class: "quiet decline", "data-ends": "1", onclick: (ev) => ctx.act("decline", {}, ev) }, c.decline));
  row.append(btn);
  return row;
}

export function footer(m, ctx) {
  const parts = [];
  if (m.choice) {
    parts.push(el("div", { class: "ask", dir: "auto" }, m.choice.question));
    parts.push(
      el(
        "div",
        { class: "choices" },
        ...m.choice.options.map((o, i) =>
          el("button", { class: "choice" + (m.choice.value === i ? " selected" : ""), "data-ends": m.choice.ends ? "1" : null, onclick: (ev) => ctx.act("choose", { value: i }, ev) }, o.key ? keycap(o.key) : null, el("bdi", {}, o.label))
        )
      )
    );
    if (m.deadline && m.deadline.countdown && m.choice.value < 0) parts.push(el("div", { class: "countdown muted small" }));
  }
  if (m.confidence) parts.push(scale(m.confidence, "confidence", ctx));
  if (m.rating) parts.push(scale(m.rating, "rate", ctx));
  if (m.continue) {
    if (m.continue.scroll_hint) parts.push(el("div", { class: "scroll-hint" }, m.continue.scroll_hint));
    parts.push(continueRow(m, ctx));
  }
  return parts;
}

// Refreshes what changes with the clock: Continue and its waiting time,
// the deadline's countdown. onset: the screen's onset in this page's clock.
export function tick(m, now, onset) {
  const btn = document.querySelector("button.continue");
  if (btn && m.continue) {
    btn.disabled = !continueEnabled(m, now, onset);
    const at = continueAt(m, onset);
    const label = btn.querySelector(".label");
    label.textContent = at && now < at ? fill(m.continue.wait_format, m.continue.label, Math.ceil((at - now) / 1000)) : m.continue.label;
  }
  const cd = document.querySelector(".countdown");
  if (cd && m.deadline) {
    const at = m.deadline.at_ms || (typeof onset === "number" ? onset + m.deadline.limit_ms : 0);
    const left = at ? Math.max(0, Math.ceil((at - now) / 1000)) : Math.ceil(m.deadline.limit_ms / 1000);
    cd.textContent = fill(m.deadline.format, "", left);
  }
}

// ------------------------------------------------------------- assembly

// One row per body kind of the model (experiment/screen_model.h,
// ScreenBody): how it is drawn. A message alone has no header or bar.
const BODIES = {
  message: () => [],
  page: (m) => pageBody(m.page),
  note: (m) => [el("h1", {}, m.message_head || ""), el("p", { dir: "auto" }, ...marked(m.message_text || ""))],
  line: (m) => [el("h1", { class: "center", dir: "auto" }, m.message_text || "")],
  quiz: quizBody,
  feedback: feedbackBody,
  item: itemBody,
  questionnaire: questionnaireBody,
};

// The page's own boxes: what the content that must be scrolled to ends
// with (an explanation hidden behind its button keeps its room, but is no
// content to scroll to).
export function contentBottom(main) {
  let bottom = 0;
  const walk = (e) => {
    if (e.matches && e.matches(".reveal:not(.shown) > .reveal-body")) return;
    const r = e.getBoundingClientRect();
    if (!e.children.length || e.matches(".tok, button, img, canvas, p, h1, h2, li, tr")) {
      bottom = Math.max(bottom, r.bottom);
      return;
    }
    for (const c of e.children) walk(c);
  };
  walk(main.querySelector(".content") || main);
  return bottom - main.getBoundingClientRect().top + main.scrollTop;
}

// Draws model m into the page. ctx: {act(kind, fields, event), completion,
// pending, after}. Images and heatmaps still loading are in ctx.pending.
export function draw(m, ctx) {
  const app = document.getElementById("app");
  const head = document.getElementById("head");
  const main = document.getElementById("body");
  const foot = document.getElementById("foot");
  app.className = "app screen-" + m.screen + " body-" + m.body;
  main.scrollTop = 0;
  if (m.body === "message") {
    head.hidden = foot.hidden = true;
    const content = [el("h1", {}, m.message_head || ""), el("p", { class: "muted" }, ...marked(m.message_text || ""))];
    if (ctx.completion) content.push(completionBox(ctx.completion));
    main.replaceChildren(el("div", { class: "content message" }, ...content));
    return;
  }
  head.hidden = false;
  const progress = m.progress ? el("div", { class: "progress" }, el("span", { class: "progress-bar" }, el("span", { style: { width: `${(100 * m.progress_done) / m.progress_total}%` } })), el("span", {}, m.progress)) : null;
  head.replaceChildren(...[el("div", { class: "title" }, m.title || ""), progress].filter(Boolean));
  const body = (BODIES[m.body] || (() => []))(m, ctx);
  main.replaceChildren(el("div", { class: "content" + (m.body === "item" ? " wide" : "") + (m.reservoir ? " has-res" : "") }, ...body));
  for (const img of main.querySelectorAll("img")) ctx.pending.push(imageReady(img));
  const f = footer(m, ctx);
  foot.hidden = f.length === 0;
  foot.replaceChildren(el("div", { class: "foot-inner" }, ...f));
}

// Updates the parts of the same screen that change with an answer (the
// selection, the questionnaire's problems, Continue), keeping the rest.
export function patch(m, ctx) {
  const foot = document.getElementById("foot");
  const f = footer(m, ctx);
  foot.hidden = f.length === 0;
  foot.replaceChildren(el("div", { class: "foot-inner" }, ...f));
  if (m.questionnaire) patchQuestionnaire(m);
  if (ctx.settled) settle(m);
  if (m.quiz) {
    document.querySelectorAll(".option").forEach((b, i) => b.classList.toggle("selected", m.quiz.value === i));
  }
}

export function completionBox(c) {
  const box = el("div", { class: "completion" });
  if (c.code) {
    const code = el("div", { class: "code", id: "completion-code" }, c.code);
    const copy = el("button", { class: "quiet" }, t("web.copy"));
    copy.addEventListener("click", () => {
      if (navigator.clipboard)
        navigator.clipboard.writeText(c.code).then(
          () => (copy.textContent = t("web.copied")),
          () => {}
        );
    });
    box.append(el("div", { class: "section-label" }, t("web.code_title")), el("div", { class: "code-row" }, code, copy));
  }
  if (c.url) box.append(el("a", { class: "button primary", id: "completion-link", href: c.url, rel: "noopener noreferrer" }, t("web.code_link")));
  return box;
}
