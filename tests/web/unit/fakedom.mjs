// A small document for the browser modules' tests under node (no package):
// elements with attributes, classes, style, dataset, children, events and
// the simple selectors the front end uses (tag, #id, .class, [attr],
// [attr="v"], descendants), and text nodes. install() makes it the global
// document (with Node, Image and a fetch that never answers); visibleText()
// reads what a participant would see, as web/style.css hides it.

class Node {
  constructor() {
    this.parentNode = null;
  }
  remove() {
    if (this.parentNode) this.parentNode.removeChild(this);
  }
}

class Text extends Node {
  constructor(text) {
    super();
    this.nodeType = 3;
    this.data = String(text);
  }
  get textContent() {
    return this.data;
  }
}

function kebab(s) {
  return s.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

class Element extends Node {
  constructor(tag) {
    super();
    this.nodeType = 1;
    this.tagName = tag.toUpperCase();
    this.localName = tag.toLowerCase();
    this.attributes = new Map();
    this.childNodes = [];
    this.listeners = {};
    this.style = {};
    this.scrollTop = 0;
    this.value = "";
    const el = this;
    this.dataset = new Proxy(
      {},
      {
        get: (t, k) => el.getAttribute("data-" + kebab(String(k))) ?? undefined,
        set: (t, k, v) => {
          el.setAttribute("data-" + kebab(String(k)), String(v));
          return true;
        },
      }
    );
    this.classList = {
      add: (...c) => c.forEach((x) => this.classes().includes(x) || this.setAttribute("class", [...this.classes(), x].join(" "))),
      remove: (...c) =>
        this.setAttribute(
          "class",
          this.classes()
            .filter((x) => !c.includes(x))
            .join(" ")
        ),
      contains: (c) => this.classes().includes(c),
      toggle: (c, force) => {
        const on = force === undefined ? !this.classList.contains(c) : !!force;
        if (on) this.classList.add(c);
        else this.classList.remove(c);
        return on;
      },
    };
  }
  classes() {
    return (this.getAttribute("class") || "").split(/\s+/).filter(Boolean);
  }
  get className() {
    return this.getAttribute("class") || "";
  }
  set className(v) {
    this.setAttribute("class", String(v));
  }
  get id() {
    return this.getAttribute("id") || "";
  }
  get hidden() {
    return this.hasAttribute("hidden");
  }
  set hidden(v) {
    if (v) this.setAttribute("hidden", "");
    else this.removeAttribute("hidden");
  }
  get disabled() {
    return this.hasAttribute("disabled");
  }
  set disabled(v) {
    if (v) this.setAttribute("disabled", "");
    else this.removeAttribute("disabled");
  }
  setAttribute(k, v) {
    this.attributes.set(k, String(v));
    if (k === "value") this.value = String(v);
  }
  getAttribute(k) {
    return this.attributes.has(k) ? this.attributes.get(k) : null;
  }
  hasAttribute(k) {
    return this.attributes.has(k);
  }
  removeAttribute(k) {
    this.attributes.delete(k);
  }
  get children() {
    return this.childNodes.filter((c) => c.nodeType === 1);
  }
  get firstChild() {
    return this.childNodes[0] || null;
  }
  appendChild(c) {
    if (c.parentNode) c.parentNode.removeChild(c);
    c.parentNode = this;
    this.childNodes.push(c);
    return c;
  }
  removeChild(c) {
    this.childNodes = this.childNodes.filter((x) => x !== c);
    c.parentNode = null;
    return c;
  }
  append(...cs) {
    for (const c of cs) this.appendChild(c instanceof Node ? c : new Text(c));
  }
  prepend(...cs) {
    const old = this.childNodes;
    this.childNodes = [];
    this.append(...cs);
    for (const c of old) this.childNodes.push(c);
  }
  replaceChildren(...cs) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    this.append(...cs);
  }
  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }
  set textContent(v) {
    this.replaceChildren(String(v));
  }
  addEventListener(type, fn) {
    (this.listeners[type] = this.listeners[type] || []).push(fn);
  }
  removeEventListener(type, fn) {
    this.listeners[type] = (this.listeners[type] || []).filter((f) => f !== fn);
  }
  // Runs the listeners of type with an event whose currentTarget is this.
  dispatch(type, init = {}) {
    const ev = { type, currentTarget: this, target: this, timeStamp: 0, preventDefault() {}, ...init };
    for (const f of this.listeners[type] || []) f(ev);
    return ev;
  }
  click() {
    return this.dispatch("click");
  }
  focus() {
    document.activeElement = this;
  }
  blur() {
    if (document.activeElement === this) document.activeElement = null;
  }
  getBoundingClientRect() {
    return { left: 0, top: 0, right: 0, bottom: 0, width: 0, height: 0, x: 0, y: 0 };
  }
  get offsetHeight() {
    return 0;
  }
  get offsetWidth() {
    return 0;
  }
  get clientHeight() {
    return 0;
  }
  get scrollHeight() {
    return 0;
  }
  getContext() {
    return null;
  }
  decode() {
    return Promise.resolve();
  }
  matches(sel) {
    return matches(this, parse(sel));
  }
  querySelectorAll(sel) {
    const groups = sel.split(",").map((s) => parse(s.trim()));
    const out = [];
    const walk = (e) => {
      for (const c of e.children) {
        if (groups.some((g) => matches(c, g, this))) out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }
  querySelector(sel) {
    return this.querySelectorAll(sel)[0] || null;
  }
}

// A selector as a list of compound parts (descendant combinators).
function parse(sel) {
  return sel
    .trim()
    .split(/\s+/)
    .map((part) => {
      const c = { tag: null, id: null, classes: [], attrs: [] };
      const re = /([a-zA-Z][\w-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:="([^"]*)")?\]|(\*)/g;
      let m;
      while ((m = re.exec(part))) {
        if (m[1]) c.tag = m[1].toLowerCase();
        else if (m[2]) c.id = m[2];
        else if (m[3]) c.classes.push(m[3]);
        else if (m[4]) c.attrs.push([m[4], m[5]]);
      }
      return c;
    });
}

function one(e, c) {
  if (!e || e.nodeType !== 1) return false;
  if (c.tag && e.localName !== c.tag) return false;
  if (c.id && e.id !== c.id) return false;
  for (const k of c.classes) if (!e.classList.contains(k)) return false;
  for (const [k, v] of c.attrs) {
    if (!e.hasAttribute(k)) return false;
    if (v !== undefined && e.getAttribute(k) !== v) return false;
  }
  return true;
}

function matches(e, parts, root = null) {
  if (!one(e, parts[parts.length - 1])) return false;
  let i = parts.length - 2;
  let p = e.parentNode;
  while (i >= 0 && p && p !== root) {
    if (one(p, parts[i])) i--;
    p = p.parentNode;
  }
  return i < 0;
}

class Document {
  constructor() {
    this.activeElement = null;
    this.documentElement = new Element("html");
    this.body = new Element("body");
    this.documentElement.appendChild(this.body);
    this.title = "";
  }
  createElement(tag) {
    return new Element(tag);
  }
  createElementNS(ns, tag) {
    return new Element(tag);
  }
  createTextNode(text) {
    return new Text(text);
  }
  getElementById(id) {
    return this.documentElement.querySelector("#" + id);
  }
  querySelector(sel) {
    return this.documentElement.querySelector(sel);
  }
  querySelectorAll(sel) {
    return this.documentElement.querySelectorAll(sel);
  }
}

// A fresh document with the page's frame (web/index.html) as the global
// one; returns it.
export function install() {
  const doc = new Document();
  const app = new Element("div");
  app.setAttribute("id", "app");
  for (const [id, tag] of [
    ["head", "header"],
    ["body", "main"],
    ["foot", "footer"],
    ["banner", "div"],
  ]) {
    const e = new Element(tag);
    e.setAttribute("id", id);
    app.appendChild(e);
  }
  doc.body.appendChild(app);
  globalThis.document = doc;
  globalThis.Node = Node;
  globalThis.Image = class extends Element {
    constructor() {
      super("img");
    }
  };
  globalThis.fetch = () => new Promise(() => {}); // never answers
  globalThis.OffscreenCanvas = class {
    getContext() {
      return null;
    }
  };
  return doc;
}

// Whether e shows (web/style.css): not hidden, not the hidden half of an
// explanation on request, a hover value's number only while hovered.
function shows(e) {
  const has = (x, c) => x && x.nodeType === 1 && x.classList.contains(c);
  if (e.hidden) return false;
  const p = e.parentNode;
  if (has(p, "reveal")) {
    const shown = has(p, "shown");
    if (has(e, "reveal-body") || has(e, "reveal-hide")) return shown;
    if (has(e, "reveal-show")) return !shown;
  }
  if (has(e, "area-card") && has(e, "empty")) return false;
  let hover = false;
  for (let a = e; a && a.nodeType === 1; a = a.parentNode) hover = hover || has(a, "hover-mode");
  if (has(e, "tip")) return hover && has(p, "hv-on");
  if (hover) {
    let hv = null;
    for (let a = e; a && a.nodeType === 1; a = a.parentNode) if (!hv && has(a, "hv")) hv = a;
    if (hv && !has(hv, "hv-on") && (has(e, "bar-fill") || has(e, "gal-weight") || (has(e, "num") && e.parentNode === hv))) return false;
    if (has(e, "bars-sum")) return false;
  }
  return true;
}

// The texts of root a participant sees, in document order (a field's value
// counts as text).
export function visibleText(root) {
  const out = [];
  const walk = (e) => {
    if (e.nodeType === 3) {
      if (e.data.trim()) out.push(e.data);
      return;
    }
    if (!shows(e)) return;
    if ((e.localName === "input" || e.localName === "textarea") && e.value) out.push(e.value);
    for (const c of e.childNodes) walk(c);
  };
  walk(root);
  return out;
}
