// Small DOM helpers shared by the screens and the explanation renderers.
// Text always goes in as text nodes (never as HTML).

export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "style" && typeof v === "object") Object.assign(e.style, v);
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// Text with **emphasis** markers as a list of nodes (strong for marked runs).
export function marked(text) {
  const out = [];
  const parts = String(text || "").split("**");
  parts.forEach((p, i) => {
    if (!p) return;
    out.push(i % 2 ? el("strong", {}, p) : document.createTextNode(p));
  });
  return out;
}

// Runs of a page or input ({text, strong} or {text, edit}) as nodes.
export function runs(list, markClass) {
  return (list || []).map((r) =>
    r.strong && r.em ? el("strong", {}, el("em", {}, r.text)) : r.strong ? el("strong", {}, r.text) : r.em ? el("em", {}, r.text) : r.edit ? el("mark", { class: markClass || "edit" }, r.text) : document.createTextNode(r.text)
  );
}

// Waits until an image has loaded and decoded (or failed).
export function imageReady(img) {
  if (img.decode) return img.decode().catch(() => {});
  return new Promise((resolve) => {
    if (img.complete) resolve();
    img.onload = img.onerror = () => resolve();
  });
}
