// Explanations on request and on hover ("reveal" of a payload): the Show /
// Hide explanation button around an explanation, and the values that show
// only while pointed at or focused. What is shown changes here at once; the
// same change goes to the server as a "reveal" or "hover" input (journalled
// first, like every input), whose session records the interaction events
// with the step's response, as on the desktop (experiment/session_reveal.h).

import { el } from "./dom.js";
import { t } from "./i18n.js";

// SESSION_REVEAL(card, show) of experiment/session_view.h: card -1 is the
// item's explanation, k the reservoir card k.
function revealValue(card, show) {
  return (card + 1) * 2 + (show ? 1 : 0);
}

function eventTime(ev) {
  return performance.timeOrigin + (ev && ev.timeStamp > 0 ? ev.timeStamp : performance.now());
}

// The explanation element body of a payload with "reveal": "on_request",
// behind a button; card as in revealValue. The area keeps the size of the
// shown explanation, the button in its middle while hidden.
export function onRequest(body, card, shown, ctx) {
  const key = ctx.revealKey && card < 0 ? ctx.revealKey : null;
  const kbd = () => (key ? el("kbd", {}, key.toUpperCase()) : null);
  const box = el("div", { class: "reveal" + (shown ? " shown" : ""), "data-card": String(card) });
  const set = (show, ev) => {
    if (box.classList.contains("shown") === show) return;
    box.classList.toggle("shown", show);
    ctx.act("reveal", { value: revealValue(card, show) }, null, eventTime(ev));
    ctx.relayout && ctx.relayout();
  };
  box.append(
    el("button", { class: "reveal-show primary", type: "button", onclick: (ev) => set(true, ev) }, kbd(), el("span", {}, t("expl.show"))),
    el("button", { class: "reveal-hide quiet", type: "button", onclick: (ev) => set(false, ev) }, kbd(), el("span", {}, t("expl.hide"))),
    el("div", { class: "reveal-body" }, body)
  );
  box.simlabSet = set;
  return box;
}

// The item's explanation box on the screen, or null.
function itemBox() {
  return document.querySelector('.reveal[data-card="-1"]');
}

// The study's reveal key pressed: shows or hides the item's explanation.
// Returns whether it applied.
export function revealKey(ev) {
  const box = itemBox();
  if (!box) return false;
  box.simlabSet(!box.classList.contains("shown"), ev);
  return true;
}

// A payload with "reveal": "hover": the hint above it; its values (the
// elements marked with data-hv by the renderers) show while one is pointed
// at or focused (Tab moves through them).
export function hoverable(body, hover, ctx) {
  const box = el("div", { class: "hover-mode" }, el("p", { class: "muted small hover-hint" }, t("expl.hover_hint")), body);
  let current = -1;
  const set = (k, ev) => {
    if (k === current) return;
    current = k;
    box.querySelectorAll(".hv").forEach((e) => e.classList.toggle("hv-on", Number(e.dataset.hv) === k));
    ctx.act("hover", { value: k }, null, eventTime(ev));
  };
  box.querySelectorAll(".hv").forEach((e) => {
    const k = Number(e.dataset.hv);
    e.tabIndex = 0;
    e.addEventListener("pointerenter", (ev) => set(k, ev));
    e.addEventListener("focus", (ev) => set(k, ev));
    e.addEventListener("pointerleave", (ev) => {
      if (document.activeElement !== e) set(-1, ev);
    });
    e.addEventListener("blur", (ev) => set(-1, ev));
  });
  if (hover >= 0) {
    current = hover;
    box.querySelectorAll(".hv").forEach((e) => e.classList.toggle("hv-on", Number(e.dataset.hv) === hover));
  }
  return box;
}

// After the server acknowledged every input of the screen: what it says is
// shown (a reload, or a resend after a lost connection).
export function settle(v) {
  const box = itemBox();
  if (box && v.reveal) box.classList.toggle("shown", !!v.reveal.shown);
  document.querySelectorAll(".reveal[data-card]").forEach((b) => {
    const k = Number(b.dataset.card);
    if (k >= 0 && v.reservoir && v.reservoir[k]) b.classList.toggle("shown", !!v.reservoir[k].revealed);
  });
}

// Marks e as hover value number k (when the node numbers its values).
export function mark(e, node, k) {
  if (typeof node.hover_base === "number") {
    e.classList.add("hv");
    e.dataset.hv = String(node.hover_base + k);
  }
  return e;
}
