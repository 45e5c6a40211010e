// The words of texts, for comparing what two front ends show: split at
// spaces and hyphens (where lines may break), punctuation around a word
// dropped (signs and symbols stay: "+0.77"
// is not "0.77"), CJK characters one word each, lower case; whole numbers
// and marks alone do not count (point numbers, counters, arrows).

const CJK = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

export function words(texts) {
  const out = new Set();
  for (const text of texts) {
    for (let w of String(text || "")
      .replace(/\*\*/g, "")
      .split(/[\s\-\u2010-\u2014]+/)) {
      w = w.replace(/^\p{P}+|\p{P}+$/gu, "");
      const parts = CJK.test(w) ? w.split(/([\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef])/u) : [w];
      for (let p of parts) {
        p = p.replace(/^\p{P}+|\p{P}+$/gu, "").toLowerCase();
        if (!p || /^\d+$/.test(p) || /^[\p{P}\p{S}]+$/u.test(p)) continue;
        out.add(p);
      }
    }
  }
  return out;
}

// Keys of the model's JSON whose strings are names, files or kinds, not
// texts shown.
const NAMES = new Set(["screen", "body", "kind", "mode", "lang", "src", "image", "map", "map_format", "colormap", "modality", "type", "id", "alt", "reveal", "keys"]);

// The words of every text of a model (its formats without their %s, %d).
export function modelWords(model) {
  const texts = [];
  const walk = (v, key) => {
    if (typeof v === "string") {
      if (!NAMES.has(key)) texts.push(v.replace(/%[sd]/g, " "));
    } else if (Array.isArray(v)) {
      v.forEach((x) => walk(x, key));
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(model, "");
  return words(texts);
}
