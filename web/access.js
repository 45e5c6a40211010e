// Who may continue a run in this browser (docs/online.md "Who may
// continue"): the key the server gave this browser and the resume code it
// showed, kept in localStorage per participant id; the code shown after the
// consent; the page that asks for the code when the id was started in
// another browser. Its texts are strings of the study's table (web.resume_*).

import { el } from "./dom.js";
import { t } from "./i18n.js";

// The texts are the study's strings (web.resume_*), in its language.
const TEXT = {
  code_title: "web.resume_code_title",
  code_keep: "web.resume_code_keep",
  resume_title: "web.resume_title",
  resume_code: "web.resume_ask",
  resume_other: "web.resume_other",
  code_label: "web.resume_label",
  go: "web.resume_go",
  wrong: "web.resume_wrong",
};

function text(key) {
  return t(TEXT[key]);
}

function storageKey(ext) {
  return "simlab:" + ext;
}

// What this browser keeps for participant id ext: {key, code}.
export function kept(ext) {
  try {
    return JSON.parse(localStorage.getItem(storageKey(ext)) || "{}") || {};
  } catch (e) {
    return {};
  }
}

// Keeps the key and code of a reply (those it carries).
export function keep(ext, reply) {
  if (!reply || (!reply.key && !reply.resume_code)) return;
  const k = kept(ext);
  if (reply.key) k.key = reply.key;
  if (reply.resume_code) k.code = reply.resume_code;
  try {
    localStorage.setItem(storageKey(ext), JSON.stringify(k));
  } catch (e) {
    // private modes: kept for this page only
  }
}

// The notice of the resume code, shown above the screen after the consent.
export function codeNotice(code) {
  return el("div", { class: "resume-code", role: "note" }, el("span", { class: "muted" }, text("code_title")), el("strong", { class: "resume-value", dir: "ltr" }, code), el("span", {}, text("code_keep")));
}

// The page of an id started in another browser: mode "code" asks for the
// resume code (go(code) tries it), the others say where to continue. A code
// that was refused stays in the field, selected, so that a typo can be
// mended rather than typed again.
export function resumePage(mode, wrong, go, tried = "") {
  const body = [el("h1", {}, text("resume_title"))];
  if (mode !== "code") {
    body.push(el("p", { class: "muted" }, text("resume_other")));
    return el("div", { class: "content message" }, body);
  }
  const input = el("input", { type: "text", class: "resume-input", id: "resume-code", autocomplete: "off", spellcheck: "false", dir: "ltr", maxlength: "20" });
  if (wrong && tried) input.value = tried;
  const submit = (ev) => {
    ev.preventDefault();
    if (input.value.trim()) go(input.value.trim());
  };
  body.push(el("p", { class: "muted" }, text("resume_code")));
  if (wrong) body.push(el("p", { class: "resume-wrong", role: "alert" }, text("wrong")));
  body.push(el("form", { class: "resume-form", onsubmit: submit }, el("label", { for: "resume-code" }, text("code_label")), input, el("button", { class: "primary", type: "submit" }, text("go"))));
  return el("div", { class: "content message" }, body);
}
