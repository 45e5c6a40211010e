// Colour maps as the desktop runner draws them (app/gfx.c): anchor colours
// of the published maps at equal steps, interpolated in CIELAB; the
// diverging blue-white-orange scale of signed weights; heatmaps scaled
// from their minimum to their 99.5th percentile; .npy float32 maps read.

// prettier-ignore
const ANCHORS = {
  viridis: [
    [0x44, 0x01, 0x54], [0x48, 0x24, 0x75], [0x41, 0x44, 0x87], [0x35, 0x5f, 0x8d],
    [0x2a, 0x78, 0x8e], [0x21, 0x91, 0x8c], [0x22, 0xa8, 0x84], [0x44, 0xbf, 0x70],
    [0x7a, 0xd1, 0x51], [0xbd, 0xdf, 0x26], [0xfd, 0xe7, 0x25],
  ],
  magma: [
    [0x00, 0x00, 0x04], [0x14, 0x0e, 0x36], [0x3b, 0x0f, 0x70], [0x64, 0x1a, 0x80],
    [0x8c, 0x29, 0x81], [0xb7, 0x37, 0x79], [0xde, 0x49, 0x68], [0xf7, 0x70, 0x5c],
    [0xfe, 0x9f, 0x6d], [0xfe, 0xcf, 0x92], [0xfc, 0xfd, 0xbf],
  ],
  cividis: [
    [0x00, 0x20, 0x4d], [0x00, 0x33, 0x6f], [0x39, 0x48, 0x6b], [0x57, 0x5c, 0x6d],
    [0x70, 0x71, 0x73], [0x8a, 0x87, 0x79], [0xa6, 0x9d, 0x75], [0xc4, 0xb5, 0x6c],
    [0xe4, 0xcf, 0x5b], [0xff, 0xea, 0x46],
  ],
  gray: [[0, 0, 0], [255, 255, 255]],
  diverging: [
    [0x21, 0x66, 0xac], [0x43, 0x93, 0xc3], [0x92, 0xc5, 0xde], [0xd1, 0xe5, 0xf0],
    [0xf7, 0xf7, 0xf7], [0xfe, 0xe0, 0xb6], [0xfd, 0xb8, 0x63], [0xe0, 0x82, 0x14],
    [0xb3, 0x58, 0x06],
  ],
};

const XN = 0.95047,
  YN = 1.0,
  ZN = 1.08883;

function toLinear(c) {
  c /= 255;
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

function toSrgb(c) {
  c = Math.min(1, Math.max(0, c));
  c = c <= 0.0031308 ? c * 12.92 : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
  return Math.round(c * 255);
}

function labF(t) {
  const d = 6 / 29;
  return t > d * d * d ? Math.cbrt(t) : t / (3 * d * d) + 4 / 29;
}

function labFinv(t) {
  const d = 6 / 29;
  return t > d ? t * t * t : 3 * d * d * (t - 4 / 29);
}

function rgbToLab([r8, g8, b8]) {
  const r = toLinear(r8),
    g = toLinear(g8),
    b = toLinear(b8);
  const x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
  const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
  const z = 0.0193339 * r + 0.119192 * g + 0.9503041 * b;
  const fx = labF(x / XN),
    fy = labF(y / YN),
    fz = labF(z / ZN);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

function labToRgb([L, A, B]) {
  const fy = (L + 16) / 116,
    fx = fy + A / 500,
    fz = fy - B / 200;
  const x = XN * labFinv(fx),
    y = YN * labFinv(fy),
    z = ZN * labFinv(fz);
  return [toSrgb(3.2404542 * x - 1.5371385 * y - 0.4985314 * z), toSrgb(-0.969266 * x + 1.8760108 * y + 0.041556 * z), toSrgb(0.0556434 * x - 0.2040259 * y + 1.0572252 * z)];
}

const LUTS = {};

// 256 colours of map name (unknown names: viridis), as [r, g, b] lists.
export function lut(name) {
  const key = ANCHORS[name] ? name : name === "grey" ? "gray" : "viridis";
  if (LUTS[key]) return LUTS[key];
  const a = ANCHORS[key].map(rgbToLab);
  const out = [];
  for (let i = 0; i < 256; i++) {
    const pos = (i / 255) * (a.length - 1);
    const k = Math.min(Math.floor(pos), a.length - 2);
    const f = pos - k;
    out.push(labToRgb([0, 1, 2].map((c) => a[k][c] + (a[k + 1][c] - a[k][c]) * f)));
  }
  LUTS[key] = out;
  return out;
}

// The diverging colour of t in [-1, 1] as a CSS colour.
export function diverging(t) {
  t = Math.max(-1, Math.min(1, Number.isFinite(t) ? t : 0));
  const [r, g, b] = lut("diverging")[Math.round(((t + 1) / 2) * 255)];
  return `rgb(${r},${g},${b})`;
}

// Whether text on the diverging colour of t should be white.
export function darkOn(t) {
  t = Math.max(-1, Math.min(1, t));
  const c = lut("diverging")[Math.round(((t + 1) / 2) * 255)];
  return rgbToLab(c)[0] < 58;
}

// A CSS linear-gradient of map name.
export function gradient(name) {
  const l = lut(name);
  const stops = [];
  for (let i = 0; i <= 16; i++) {
    const [r, g, b] = l[Math.round((i / 16) * 255)];
    stops.push(`rgb(${r},${g},${b}) ${(i / 16) * 100}%`);
  }
  return `linear-gradient(to right, ${stops.join(", ")})`;
}

// Values mapped to [0, 1]: minimum -> 0, 99.5th percentile -> 1 (clamped);
// NaN -> 0. In place.
export function normalize(v) {
  let lo = Infinity,
    hi = -Infinity;
  const finite = [];
  for (const x of v) {
    if (Number.isFinite(x)) {
      finite.push(x);
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
  }
  if (finite.length) {
    finite.sort((a, b) => a - b);
    const p = finite[Math.floor(0.995 * (finite.length - 1))];
    if (p > lo) hi = p;
  }
  const span = hi - lo;
  for (let i = 0; i < v.length; i++) {
    const t = Number.isFinite(v[i]) && span > 0 ? (v[i] - lo) / span : 0;
    v[i] = Math.max(0, Math.min(1, t));
  }
  return v;
}

// A float32 (little-endian, C order) .npy file: {h, w, data}.
export function parseNpy(buf) {
  const u8 = new Uint8Array(buf);
  if (u8[0] !== 0x93 || String.fromCharCode(...u8.slice(1, 6)) !== "NUMPY") {
    throw new Error("not a .npy file");
  }
  const major = u8[6];
  const dv = new DataView(buf);
  const hlen = major >= 2 ? dv.getUint32(8, true) : dv.getUint16(8, true);
  const start = major >= 2 ? 12 : 10;
  const header = new TextDecoder().decode(u8.slice(start, start + hlen));
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  const dims = shape
    ? shape[1]
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .map(Number)
    : [];
  const h = dims[0] || 1,
    w = dims[1] || dims[0] || 1;
  const off = start + hlen;
  const data = new Float32Array(h * w);
  for (let i = 0; i < h * w; i++) data[i] = dv.getFloat32(off + 4 * i, true);
  return { h, w, data };
}

// Colours normalised values v (w x h) with map name into an ImageData.
export function colorize(v, w, h, name) {
  const l = lut(name);
  const img = new ImageData(w, h);
  for (let i = 0; i < w * h; i++) {
    const [r, g, b] = l[Math.round(v[i] * 255)];
    img.data[4 * i] = r;
    img.data[4 * i + 1] = g;
    img.data[4 * i + 2] = b;
    img.data[4 * i + 3] = 255;
  }
  return img;
}
