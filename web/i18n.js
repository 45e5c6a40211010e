// The study's strings: the desktop's table (stimuli/uistrings.h) in the
// study's language, as the server serves it (web/strings.json, and with
// every start), overrides included. The page has no texts of its own. Also
// the printf subset that fills the model's formats as time passes (%s, %d,
// %%), as the desktop's screen_fill does.

let strings = {};

// Sets the study's strings (an object: key name -> text).
export function setStrings(table) {
  strings = table || {};
}

// A text of the table ("web.offline", ...); "" for a key it lacks.
export function t(key) {
  return typeof strings[key] === "string" ? strings[key] : "";
}

// format with its %s replaced by s, its %d by d and "%%" by "%".
export function fill(format, s, d) {
  return String(format || "").replace(/%([sd%])/g, (m, c) => (c === "s" ? String(s) : c === "d" ? String(Math.trunc(Number(d))) : "%"));
}
