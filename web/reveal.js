// Explanations on request and on hover, as the screen model says
// (ScreenReveal): the Show / Hide explanation button around an
// explanation, and the values that show only while pointed at or focused.
// What is shown changes here at once; the same change goes to the server
// as a "reveal" or "hover" input -- its value is the model's (show_value,
// hide_value, a value's hover number) -- journalled first, like every
// input, whose session records the interaction events with the step's
// response, as on the desktop (experiment/session_reveal.h).

import { el } from "./dom.js";

function eventTime(ev) {
  return performance.timeOrigin + (ev && ev.timeStamp > 0 ? ev.timeStamp : performance.now());
}

// The explanation element body behind a button (reveal.mode "on_request").
// The area keeps the size of the shown explanation, the button in its
// middle while hidden; reveal.key (the item's only) toggles it.
export function onRequest(body, reveal, ctx) {
  const key = reveal.key || null;
  const kbd = () => (key ? el("kbd", {}, key.toUpperCase()) : null);
  const box = el("div", { class: "reveal" + (reveal.shown ? " shown" : ""), "data-show": String(reveal.show_value), "data-hide": String(reveal.hide_value) });
  if (key) box.dataset.key = key;
  const set = (show, ev) => {
    if (box.classList.contains("shown") === show) return;
    box.classList.toggle("shown", show);
    ctx.act("reveal", { value: show ? reveal.show_value : reveal.hide_value }, null, eventTime(ev));
  };
  box.append(
    el("button", { class: "reveal-show primary", type: "button", onclick: (ev) => set(true, ev) }, kbd(), el("span", {}, reveal.show_label)),
    el("button", { class: "reveal-hide quiet", type: "button", onclick: (ev) => set(false, ev) }, kbd(), el("span", {}, reveal.hide_label)),
    el("div", { class: "reveal-body" }, body)
  );
  box.simlabSet = set;
  return box;
}

// The study's reveal key pressed (key as keyName gives it): shows or hides
// the explanation it belongs to. Returns whether it applied.
export function revealKey(key, ev) {
  const box = [...document.querySelectorAll(".reveal[data-key]")].find((b) => b.dataset.key === key);
  if (!box) return false;
  box.simlabSet(!box.classList.contains("shown"), ev);
  return true;
}

// An explanation whose values show on hover (reveal.mode "hover"): the
// model's hint above it; its values (marked by mark()) show while one is
// pointed at or focused (Tab moves through them).
export function hoverable(body, reveal, ctx) {
  const box = el("div", { class: "hover-mode" }, reveal.hint ? el("p", { class: "muted small hover-hint" }, reveal.hint) : null, body);
  let current = -1;
  // the value hovered, and the interaction lines that join its token
  const show = (k) => {
    let tok = -1;
    box.querySelectorAll(".hv").forEach((e) => {
      const on = Number(e.dataset.hv) === k;
      e.classList.toggle("hv-on", on);
      if (on && e.dataset.i !== undefined) tok = Number(e.dataset.i);
    });
    const inside = (range) => {
      const [a, b] = range.split(":").map(Number);
      return tok >= a && tok < b;
    };
    box.querySelectorAll(".pair-lines line").forEach((l) => l.classList.toggle("on", inside(l.dataset.a) || inside(l.dataset.b)));
  };
  const set = (k, ev) => {
    if (k === current) return;
    current = k;
    show(k);
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
  if (reveal.hover >= 0) current = reveal.hover;
  show(current);
  if (ctx.after) ctx.after.push(() => show(current)); // once the lines are drawn
  return box;
}

// After the server acknowledged every input of the screen: what it says is
// shown (a reload, or a resend after a lost connection).
export function settle(m) {
  const shown = (box) => {
    const v = Number(box.dataset.show);
    if (m.area && m.area.reveal && m.area.reveal.show_value === v) return !!m.area.reveal.shown;
    const card = ((m.reservoir && m.reservoir.cards) || []).find((c) => c.reveal && c.reveal.show_value === v);
    return card ? !!card.reveal.shown : box.classList.contains("shown");
  };
  document.querySelectorAll(".reveal[data-show]").forEach((b) => b.classList.toggle("shown", shown(b)));
}

// Marks e as the hover value numbered hover (>= 0; the model's number).
export function mark(e, hover) {
  if (typeof hover === "number" && hover >= 0) {
    e.classList.add("hv");
    e.dataset.hv = String(hover);
  }
  return e;
}
