// Draws the screen the server sends (serve/serve_view.c) as the desktop
// runner draws it (app/screens.c): a header with the title and progress, a
// scrolling body, a response bar at the bottom. It never decides anything:
// every click or key becomes an input for the server, through act().

import { el, marked, runs, imageReady } from "./dom.js";
import { renderTop, embedsImage } from "./expl.js";
import { settle } from "./reveal.js";
import { t, w, fmt } from "./i18n.js";

// ---------------------------------------------------------------- inputs

function inputView(input, opts = {}) {
  if (!input) return null;
  switch (input.modality) {
    case "image": {
      if (!input.src) return el("div", { class: "bad" }, fmt(t("image_missing"), "?"));
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
        ...(input.features || []).map((f) =>
           el("tr", { class: f.edit ? "edited" : "" }, el("th", { dir: "auto" }, f.name), el("td", { dir: "auto" }, f.edit && f.from ? el("s", {}, f.from) : null, f.edit && f.from ? " \u2192 " : null, f.edit ? el("strong", {}, f.value) : f.value))
        )
      );
  }
  return null;
}

function pill(label, value, strong) {
  return el("span", { class: "pill" + (strong ? " strong" : "") }, el("span", { class: "pill-label" }, label), el("bdi", { class: "pill-value" }, value));
}

function card(...children) {
  return el("div", { class: "card" }, ...children);
}

function section(text) {
  return el("div", { class: "section-label" }, text);
}

// The item of an item screen, its perturbation, explanation and reservoir.
function itemBody(v, ctx) {
  const out = [];
  const item = v.item;
  const e = v.explanation;
  ctx.reveal = v.reveal || null;
  ctx.revealKey = v.reveal ? v.reveal.key : null;
  const renderExpl = (node) => renderTop(node, ctx, -1, !!(v.reveal && v.reveal.shown));
  const pills = (it, unknown) => {
    const p = [];
    if (it.label !== undefined) p.push(pill(t("item.true_label"), it.label, false));
    if (unknown) p.push(pill(t("item.model_output"), "?", false));
    else if (it.output !== undefined) p.push(pill(t("item.model_output"), it.output, true));
    return p.length ? el("div", { class: "pills" }, ...p) : null;
  };
  if (v.counterfactual) {
    const orig = card(section(t("item.original")), inputView(item.input), pills(item));
    const pert = card(section(v.counterfactual.unchanged ? t("item.unchanged") : t("item.changed")), inputView(v.counterfactual.input), pills({}, true));
    out.push(el("div", { class: "two-col even" }, orig, pert));
    if (e) out.push(card(section(t("item.explanation_original")), renderExpl(e)));
  } else if (e && !item.embedded) {
    out.push(el("div", { class: "two-col" }, card(section(t("item.input")), inputView(item.input), pills(item)), card(section(t("item.explanation")), renderExpl(e))));
  } else {
    const kind = item.input.modality;
    out.push(el("div", { class: "single " + kind }, card(e ? renderExpl(e) : inputView(item.input), pills(item))));
  }
  if (v.reservoir) {
    const res = el(
      "div",
      { class: "reservoir" },
      section(t("reservoir.title")),
      el(
        "div",
        { class: "res-grid" + (v.reservoir[0] && v.reservoir[0].input.modality === "image" ? " images" : "") },
        ...v.reservoir.map((r, k) => {
          const tokens = r.explanation && /tokens|pairs/.test(r.explanation.kind);
          return el(
            "div",
            { class: "card res-card" },
            !r.embedded && !tokens ? inputView(r.input, { small: true }) : null,
            r.explanation ? renderTop(r.explanation, { ...ctx, compact: true }, k, !!r.revealed) : null,
            el("div", { class: "pills center" }, pill(t("item.model"), r.output, true))
          );
        })
      )
    );
    // on top when it takes at most 55 % of the view, else below with a note
    out.unshift(res);
    ctx.after.push(() => {
      const main = document.getElementById("body");
      if (res.offsetHeight > main.clientHeight * 0.55) {
        const note = el("p", { class: "muted small center" }, t("reservoir.scroll"));
        main.querySelector(".content").append(note, res);
      }
    });
  }
  return out;
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
        return el("figure", {}, b.src ? el("img", { src: b.src, alt: b.caption || "" }) : el("div", { class: "bad" }, fmt(t("image_missing"), b.alt || "")), b.caption ? el("figcaption", {}, b.caption) : null);
    }
    return null;
  });
}

function quizBody(v, ctx) {
  const q = v.quiz;
  return [
    q.retry ? el("p", { class: "muted small" }, q.retry) : null,
    el("h2", { dir: "auto" }, ...marked(q.text)),
    el(
      "div",
      { class: "options" },
      ...q.options.map((o, i) =>
        el("button", { class: "option" + (q.choice === i ? " selected" : ""), onclick: (ev) => ctx.act("choose", { value: i }, ev) }, el("kbd", {}, String((i + 1) % 100)), el("span", { dir: "auto" }, o))
      )
    ),
  ];
}

function feedbackBody(v) {
  const f = v.feedback;
  return [
    el("div", { class: "feedback " + (f.correct ? "ok" : "bad") }, el("h1", {}, f.head), el("p", {}, ...marked(f.detail))),
    f.input ? card(inputView(f.input)) : null,
  ];
}

// ---------------------------------------------------------- questionnaire

function questionField(q, i, ctx) {
  const send = (text, ev) => ctx.act("answer", { value: i, text }, ev);
  switch (q.type) {
    case "number": {
      const inp = el("input", { type: "text", inputmode: "decimal", class: "field short", value: q.answer, "aria-label": q.text });
      inp.addEventListener("change", (ev) => send(inp.value, ev));
      inp.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") inp.blur();
      });
      const range = Number.isFinite(q.min) && Number.isFinite(q.max) ? el("div", { class: "muted small", dir: "ltr" }, `${q.min} \u2013 ${q.max}`) : null;
      return el("div", {}, inp, range);
    }
    case "text": {
      const ta = el("textarea", { class: "field", rows: "4", maxlength: String(q.max_length || 1000), "aria-label": q.text });
      ta.value = q.answer || "";
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
          el("button", { class: "radio" + (q.answer === o ? " selected" : ""), role: "radio", "aria-checked": q.answer === o ? "true" : "false", onclick: (ev) => ctx.act("pick", { value: i * 256 + k }, ev) }, el("span", { class: "dot" }), el("span", { dir: "auto" }, o))
        )
      );
    case "likert":
      return scaleRow(q.points, Number(q.answer) || 0, q.low, q.high, true, (p, ev) => ctx.act("pick", { value: i * 256 + p }, ev));
  }
  return null;
}

function questionnaireBody(v, ctx) {
  const intro = v.questionnaire.intro ? [el("p", { dir: "auto" }, ...marked(v.questionnaire.intro))] : [];
  return intro.concat(v.questionnaire.questions.map((q, i) =>
    el(
      "div",
      { class: "question", "data-q": String(i) },
      el("div", { class: "q-text", dir: "auto" }, ...marked(q.text), q.required ? null : el("span", { class: "muted small" }, " " + t("questionnaire.optional"))),
      questionField(q, i, ctx),
      el("div", { class: "problem" }, q.problem || "")
    )
  ));
}

// Updates a questionnaire in place (the fields keep what is being typed).
function patchQuestionnaire(v) {
  v.questionnaire.questions.forEach((q, i) => {
    const box = document.querySelector(`.question[data-q="${i}"]`);
    if (!box) return;
    box.querySelector(".problem").textContent = q.problem || "";
    box.classList.toggle("invalid", !!q.problem);
    box.querySelectorAll(".radio").forEach((b, k) => {
      const on = q.answer === q.options[k];
      b.classList.toggle("selected", on);
      b.setAttribute("aria-checked", on ? "true" : "false");
    });
    box.querySelectorAll(".point").forEach((b, k) => b.classList.toggle("selected", Number(q.answer) === k + 1));
  });
}

// ------------------------------------------------------------ the footer

function scaleRow(points, value, low, high, enabled, onPick) {
  const row = el("div", { class: "scale" });
  row.append(el("span", { class: "scale-end", dir: "auto" }, low || ""));
  for (let p = 1; p <= points; p++) {
    row.append(el("button", { class: "point" + (value === p ? " selected" : ""), disabled: !enabled, onclick: (ev) => onPick(p, ev) }, String(p)));
  }
  row.append(el("span", { class: "scale-end", dir: "auto" }, high || ""));
  return row;
}

function scale(spec, kind, enabled, ctx) {
  return el("div", { class: "scale-box" }, el("div", { class: "scale-q", dir: "auto" }, spec.question), scaleRow(spec.points, spec.value, spec.low, spec.high, enabled, (p, ev) => ctx.act(kind, { value: p }, ev)));
}

function keycap(k) {
  const names = { return: "Enter", space: "Space", left: "\u2190", right: "\u2192", up: "\u2191", down: "\u2193" };
  return el("kbd", {}, names[k] || String(k).toUpperCase());
}

// Whether Continue may be pressed now (the server checks again).
export function continueReady(v, now) {
  const c = v.continue;
  if (!c || c.gate) return false;
  if (c.after_ms && now < c.after_ms) return false;
  if (c.wait_until && now < c.wait_until) return false;
  if (v.choice && v.choice.value < 0) return false;
  if (v.rating && v.rating.value <= 0) return false;
  if (v.confidence && v.confidence.value <= 0) return false;
  return true;
}

function continueRow(v, ctx) {
  const c = v.continue;
  const btn = el("button", { class: "primary continue", onclick: (ev) => ctx.act("continue", {}, ev) }, keycap("return"), el("span", { class: "label" }, c.label));
  const row = el("div", { class: "continue-row" + (c.decline ? " consent" : "") });
  if (c.decline) row.append(el("button", { class: "quiet decline", onclick: (ev) => ctx.act("decline", {}, ev) }, c.decline_label));
  row.append(btn);
  return row;
}

export function footer(v, ctx) {
  const parts = [];
  if (v.choice) {
    parts.push(el("div", { class: "ask", dir: "auto" }, v.choice.question));
    parts.push(
      el(
        "div",
        { class: "choices" },
        ...v.choice.classes.map((c, i) => el("button", { class: "choice" + (v.choice.value === i ? " selected" : ""), onclick: (ev) => ctx.act("choose", { value: i }, ev) }, c.key ? keycap(c.key) : null, el("bdi", {}, c.label)))
      )
    );
    if (v.deadline && v.deadline.countdown && v.choice.value < 0) parts.push(el("div", { class: "countdown muted small" }));
  }
  if (v.confidence) parts.push(scale(v.confidence, "confidence", v.confidence.enabled, ctx));
  if (v.rating) parts.push(scale(v.rating, "rate", true, ctx));
  if (v.continue) {
    if (v.continue.gate) parts.push(el("div", { class: "scroll-hint" }, t("scroll.hint")));
    parts.push(continueRow(v, ctx));
  }
  return parts;
}

// Refreshes what changes with the clock: Continue's waiting time, the
// deadline's countdown.
export function tick(v, now) {
  const btn = document.querySelector("button.continue");
  if (btn && v.continue) {
    const ready = continueReady(v, now);
    btn.disabled = !ready;
    const until = v.continue.after_ms || v.continue.wait_until;
    const label = btn.querySelector(".label");
    if (until && now < until) label.textContent = fmt(t("continue.wait"), v.continue.label, Math.ceil((until - now) / 1000));
    else label.textContent = v.continue.label;
  }
  const cd = document.querySelector(".countdown");
  if (cd && v.deadline) {
    const at = v.deadline.at_local;
    const left = at ? Math.max(0, Math.ceil((at - now) / 1000)) : Math.ceil(v.deadline.limit_ms / 1000);
    cd.textContent = fmt(t("deadline.left"), left);
  }
}

// ------------------------------------------------------------- assembly

// Draws view v into the page. ctx: {act(kind, fields, event), classes,
// completion, pending, after}. Returns nothing; images and heatmaps still
// loading are in ctx.pending.
export function draw(v, ctx) {
  const app = document.getElementById("app");
  const head = document.getElementById("head");
  const main = document.getElementById("body");
  const foot = document.getElementById("foot");
  app.className = "app screen-" + v.screen;
  main.scrollTop = 0;
  if (v.message) {
    head.hidden = foot.hidden = true;
    const content = [el("h1", {}, v.message.title), el("p", { class: "muted" }, ...marked(v.message.text))];
    if (ctx.completion) content.push(completionBox(ctx.completion));
    main.replaceChildren(el("div", { class: "content message" }, ...content));
    return;
  }
  head.hidden = false;
  head.replaceChildren(...[el("div", { class: "title" }, v.title || ""), v.progress ? el("div", { class: "progress" }, el("span", { class: "progress-bar" }, el("span", { style: { width: `${(100 * v.progress.done) / v.progress.total}%` } })), el("span", {}, v.progress.text)) : null].filter(Boolean));
  let body = [];
  if (v.page) body = pageBody(v.page);
  else if (v.screen === "break") body = [el("h1", {}, v.heading || ""), el("p", { dir: "auto" }, ...marked(v.text || ""))];
  else if (v.screen === "timeout") body = [el("h1", { class: "center", dir: "auto" }, v.text || "")];
  else if (v.quiz) body = quizBody(v, ctx);
  else if (v.feedback) body = feedbackBody(v);
  else if (v.questionnaire) body = questionnaireBody(v, ctx);
  else if (v.item) body = itemBody(v, ctx);
  main.replaceChildren(el("div", { class: "content" + (v.item ? " wide" : "") + (v.reservoir ? " has-res" : "") }, ...body));
  for (const img of main.querySelectorAll("img")) ctx.pending.push(imageReady(img));
  const f = footer(v, ctx);
  foot.hidden = f.length === 0;
  foot.replaceChildren(el("div", { class: "foot-inner" }, ...f));
}

// Updates the parts of the same screen that change with an answer (the
// selection, the questionnaire's problems, Continue), keeping the rest.
export function patch(v, ctx) {
  const foot = document.getElementById("foot");
  const f = footer(v, ctx);
  foot.hidden = f.length === 0;
  foot.replaceChildren(el("div", { class: "foot-inner" }, ...f));
  if (v.questionnaire) patchQuestionnaire(v);
  if (ctx.settled) settle(v);
  if (v.quiz) {
    document.querySelectorAll(".option").forEach((b, i) => b.classList.toggle("selected", v.quiz.choice === i));
  }
}

export function completionBox(c) {
  const box = el("div", { class: "completion" });
  if (c.code) {
    const code = el("div", { class: "code", id: "completion-code" }, c.code);
    const copy = el("button", { class: "quiet" }, w("copy"));
    copy.addEventListener("click", () => {
      navigator.clipboard && navigator.clipboard.writeText(c.code).then(() => (copy.textContent = w("copied")), () => {});
    });
    box.append(el("div", { class: "section-label" }, w("code_title")), el("div", { class: "code-row" }, code, copy));
  }
  if (c.url) box.append(el("a", { class: "button primary", id: "completion-link", href: c.url, rel: "noopener noreferrer" }, w("code_link")));
  return box;
}

export { embedsImage };
