"""Explanation payloads: one function per kind of docs/study-format.md
("Payload kinds"), each returning the payload's JSON as a dict (a Payload)
whose files may still be arrays or paths. A payload is checked, and its
arrays written, when it is given to Study.add_item: a problem raises
StudyError naming the item and the field.

Every function takes title= (shown above the payload) and reveal=
("always", "on_request" -- also spelled "on-request" -- or "hover", on the
top-level payload only).
"""
import math
import os

from .errors import StudyError

KINDS = ("heatmap", "tokens", "token_pairs", "span_pairs", "features",
         "rules", "prototype", "path", "text", "composite", "image",
         "gallery", "markdown", "bars", "layout")
HOVER_KINDS = ("tokens", "token_pairs", "span_pairs", "features",
               "prototype", "bars", "gallery")
COLORMAPS = ("viridis", "cividis", "magma", "gray")
REVEALS = ("always", "on_request", "hover")
MAX_DEPTH = 4  # layouts nest at most this deep
GALLERY_MAX = 64
BARS_MAX = 200
MAP_MAX = 8192  # pixels per side of a map or an image

# The fields of each kind (besides kind, title, reveal), in the order a
# payload is written.
FIELDS = {
    "heatmap": ("file", "colormap", "opacity", "display"),
    "tokens": ("tokens",),
    "token_pairs": ("tokens", "pairs"),
    "span_pairs": ("tokens", "pairs"),
    "features": ("features", "intercept", "sum", "output"),
    "rules": ("predicted", "rules"),
    "prototype": ("label", "evidence", "rows", "important", "text"),
    "path": ("start_margin", "target", "steps"),
    "text": ("text",),
    "composite": ("parts",),
    "image": ("file", "caption", "overlay"),
    "gallery": ("columns", "images"),
    "markdown": ("text",),
    "bars": ("bars", "signed", "unit", "sum", "decimals"),
    "layout": ("direction", "parts"),
}
COMMON = ("kind", "title", "reveal", "id", "pool", "method")


class Payload(dict):
    """An explanation payload: its JSON as a dict. Files may be numpy
    arrays, paths or media() objects until the study writes them."""

    def __init__(self, kind, fields, title=None, reveal=None, problem=None):
        super().__init__()
        self["kind"] = kind
        if kind == "layout" and fields.get("direction") is not None:
            self["direction"] = fields.pop("direction")
        if title is not None:
            self["title"] = title
        for k, v in fields.items():
            if v is not None:
                self[k] = v
        if reveal is not None:
            self["reveal"] = reveal
        # a problem of the arguments, raised with the item's name
        self.problem = problem


class Media:
    """A file for the bundle: a numpy array (an image: H x W x 3 or
    H x W x 4 uint8, or H x W grey, written as PNG; a heatmap: any 2-D real
    array, written as float32 .npy) or the path of a file to copy. name is
    its file name in the bundle's media/ folder (or a path inside the
    bundle); without it the study names it after the item and method."""

    def __init__(self, source, name=None):
        if isinstance(source, Media):
            name = name or source.name
            source = source.source
        self.source = source
        self.name = name

    def __repr__(self):
        src = ("array %s" % (getattr(self.source, "shape", "?"),)
               if is_array(self.source) else repr(str(self.source)))
        return "media(%s%s)" % (src, ", name=%r" % self.name
                                if self.name else "")


def media(source, name=None):
    """A file for the bundle from an array or a path, under the given name
    (e.g. media(proto, "prototype-bird.png")): see Media."""
    return Media(source, name)


def is_array(v):
    return hasattr(v, "__array_interface__") and hasattr(v, "shape")


def _is_file(v):
    return isinstance(v, (Media, str, os.PathLike)) or is_array(v)


def _seq(v):
    """A list from a list, tuple or 1-D array (None stays None)."""
    if v is None:
        return None
    if is_array(v):
        return list(v.tolist()) if v.ndim == 1 else [v]
    return list(v)


# ------------------------------------------------------------ the kinds

def heatmap(values, colormap=None, opacity=None, display=None, title=None,
            reveal=None):
    """An attribution map over the item's image: values is a 2-D array
    (any real dtype; written as float32 .npy), a .npy or .png path, or a
    media(). colormap viridis (default), cividis, magma or gray; opacity
    0..1 (0.5); display "overlay" (default) or "side_by_side"."""
    return Payload("heatmap", {"file": values, "colormap": colormap,
                               "opacity": opacity, "display": display},
                   title, reveal)


def tokens(words, weights, segments=None, title=None, reveal=None):
    """Signed weights of the words of a text: one weight per word;
    segments (0 or 1 per word) for a text_pair item."""
    words, weights, segments = _seq(words), _seq(weights), _seq(segments)
    return Payload("tokens", {"tokens": _token_list(words, weights,
                                                    segments)},
                   title, reveal, _token_problem(words, weights, segments))


def token_pairs(words, weights, pairs, segments=None, title=None,
                reveal=None):
    """Token weights and interactions between a token of the first text
    (segment 0) and one of the second: pairs of (a, b, weight)."""
    words, weights, segments = _seq(words), _seq(weights), _seq(segments)
    plist = [p if isinstance(p, dict)
             else {"a": p[0], "b": p[1], "weight": p[2]} for p in pairs]
    return Payload("token_pairs",
                   {"tokens": _token_list(words, weights, segments),
                    "pairs": plist}, title, reveal,
                   _token_problem(words, weights, segments))


def span_pairs(words, weights, pairs, segments=None, title=None,
               reveal=None):
    """Token weights and interactions between spans: pairs of
    ((a_start, a_end), (b_start, b_end), weight), token ranges."""
    words, weights, segments = _seq(words), _seq(weights), _seq(segments)
    plist = [p if isinstance(p, dict)
             else {"a": list(p[0]), "b": list(p[1]), "weight": p[2]}
             for p in pairs]
    return Payload("span_pairs",
                   {"tokens": _token_list(words, weights, segments),
                    "pairs": plist}, title, reveal,
                   _token_problem(words, weights, segments))


def _token_list(words, weights, segments):
    out = []
    for i, w in enumerate(words):
        t = {"text": w, "weight": weights[i] if i < len(weights) else None}
        if segments is not None and i < len(segments):
            t["segment"] = segments[i]
        out.append(t)
    return out


def _token_problem(words, weights, segments):
    if len(words) != len(weights):
        return ("tokens", "%d words but %d weights" % (len(words),
                                                       len(weights)))
    if segments is not None and len(segments) != len(words):
        return ("tokens", "%d words but %d segments" % (len(words),
                                                        len(segments)))
    return None


def features(names, weights, values=None, intercept=None, sum=None,
             output=None, title=None, reveal=None):
    """Feature weights (LIME, SHAP): names, their weights and optionally
    each feature's value; intercept, sum and output as the published
    format shows them."""
    names, weights, values = _seq(names), _seq(weights), _seq(values)
    out = []
    for i, n in enumerate(names):
        f = {"name": n}
        if values is not None and i < len(values):
            f["value"] = values[i]
        f["weight"] = weights[i] if i < len(weights) else None
        out.append(f)
    problem = None
    if len(names) != len(weights):
        problem = ("features", "%d names but %d weights"
                   % (len(names), len(weights)))
    elif values is not None and len(values) != len(names):
        problem = ("features", "%d names but %d values"
                   % (len(names), len(values)))
    return Payload("features", {"features": out, "intercept": intercept,
                                "sum": sum, "output": output},
                   title, reveal, problem)


def rules(rules, predicted=None, title=None, reveal=None):
    """Anchor-style rules: each a list of condition texts, a dict
    {"conditions", "precision", "coverage"} or a tuple (conditions,
    precision, coverage); predicted is a class id."""
    out = []
    for r in rules:
        if isinstance(r, tuple) and len(r) == 3 and not isinstance(r[0],
                                                                   str):
            out.append({"conditions": list(r[0]), "precision": r[1],
                        "coverage": r[2]})
        else:
            out.append(r if isinstance(r, dict) else list(r))
    return Payload("rules", {"predicted": predicted, "rules": out},
                   title, reveal)


def prototype(rows=None, label=None, evidence=None, important=None,
              text=None, title=None, reveal=None):
    """The most similar prototype: rows of (name, prototype value, input
    value), or its text for a text item; label (a class id or any text),
    evidence, and important features as (name, weight) pairs."""
    rlist = None if rows is None else [
        r if isinstance(r, dict)
        else {"name": r[0], "prototype": r[1], "input": r[2]} for r in rows]
    ilist = None
    if important is not None:
        items = important.items() if isinstance(important, dict) \
            else important
        ilist = [i if isinstance(i, dict) else {"name": i[0],
                                                "weight": i[1]}
                 for i in items]
    return Payload("prototype", {"label": label, "evidence": evidence,
                                 "rows": rlist, "important": ilist,
                                 "text": text}, title, reveal)


def path(steps, start_margin=None, target=None, title=None, reveal=None):
    """Edits toward the decision boundary: steps of (margin, edits) or
    dicts, each edit (feature, from, to) or a dict; target is a class
    id."""
    out = []
    for s in steps:
        if isinstance(s, dict):
            out.append(s)
            continue
        margin, edits = s
        out.append({"margin": margin, "edits": [
            e if isinstance(e, dict)
            else {"feature": e[0], "from": e[1], "to": e[2]}
            for e in edits]})
    return Payload("path", {"start_margin": start_margin, "target": target,
                            "steps": out}, title, reveal)


def text(text, title=None, reveal=None):
    """Pre-formatted text (kept in a monospace panel, as LIME's printouts
    need); prose goes in markdown()."""
    return Payload("text", {"text": text}, title, reveal)


def composite(parts, title=None, reveal=None):
    """Several payloads shown together (not nested)."""
    return Payload("composite", {"parts": list(parts)}, title, reveal)


def image(file=None, caption=None, overlay=None, title=None, reveal=None):
    """A picture: an array, path or media(); without file the item's own
    picture. overlay: a heatmap over it (a heatmap() payload or an
    array)."""
    return Payload("image", {"file": file, "caption": caption,
                             "overlay": overlay}, title, reveal)


def gallery(images, columns=None, title=None, reveal=None):
    """Pictures with captions and weights (concept patches, prototypes):
    each an array, path or media(), a tuple (file, caption) or (file,
    caption, weight), or a dict; columns 1..12."""
    out = []
    for im in images:
        if isinstance(im, tuple):
            d = {"file": im[0]}
            if len(im) > 1 and im[1] is not None:
                d["caption"] = im[1]
            if len(im) > 2 and im[2] is not None:
                d["weight"] = im[2]
            out.append(d)
        elif isinstance(im, Payload) and im.get("kind") == "image":
            out.append({k: im[k] for k in ("file", "caption") if k in im})
        else:
            out.append(im)
    return Payload("gallery", {"columns": columns, "images": out},
                   title, reveal)


def markdown(text, title=None, reveal=None):
    """Prose: paragraphs, **bold**, *italic*, lists and headings."""
    return Payload("markdown", {"text": text}, title, reveal)


def bars(labels, values, signed=None, unit=None, decimals=None, sum=None,
         title=None, reveal=None):
    """Labelled values as bars: unit after each value (" %"), decimals
    0..6, sum True for a line with their sum."""
    labels, values = _seq(labels), _seq(values)
    out = [{"label": lab, "value": values[i] if i < len(values) else None}
           for i, lab in enumerate(labels)]
    problem = None
    if len(labels) != len(values):
        problem = ("bars", "%d labels but %d values" % (len(labels),
                                                        len(values)))
    return Payload("bars", {"bars": out, "signed": signed, "unit": unit,
                            "sum": sum, "decimals": decimals},
                   title, reveal, problem)


def layout(direction, parts, title=None, reveal=None):
    """Payloads (or layouts) in a "row" or a "column"."""
    return Payload("layout", {"direction": direction, "parts": list(parts)},
                   title, reveal)


# ------------------------------------------------------------ checking

class ItemContext:
    """What checking a payload needs of its item and study."""

    def __init__(self, key, modality, classes, image_size, register):
        self.key = key
        self.modality = modality
        self.classes = classes
        self.image_size = image_size  # (w, h) of an image item, else None
        self.register = register  # (Media, role, field) -> (path, w, h)

    def fail(self, field, message):
        raise StudyError(message, self.key, field)


def number(v, ctx, field, allow_none=False):
    """A finite JSON number from an int, float or numpy scalar; float32
    values are written with their shortest decimal ("0.9", not
    0.8999999761581421)."""
    if v is None and allow_none:
        return None
    if hasattr(v, "dtype") and getattr(v, "shape", None) == ():
        if v.dtype.kind == "f" and v.dtype.itemsize < 8:
            v = float(str(v))
        else:
            v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        ctx.fail(field, "must be a number, not %r" % (v,))
    if isinstance(v, float) and not math.isfinite(v):
        ctx.fail(field, "must be a finite number, not %r" % v)
    return v


def string(v, ctx, field, allow_none=False):
    if v is None and allow_none:
        return None
    if hasattr(v, "dtype") and getattr(v, "shape", None) == ():
        v = v.item()
    if not isinstance(v, str) or not v:
        ctx.fail(field, "must be a non-empty string, not %r" % (v,))
    return v


def class_id(v, ctx, field):
    s = str(v.item() if hasattr(v, "item") and not isinstance(v, str)
            else v)
    if s not in ctx.classes:
        ctx.fail(field, "'%s' is not a class (classes: %s)"
                 % (s, ", ".join("'%s'" % c for c in ctx.classes)))
    return s


def check(payload, ctx, field, depth=0):
    """The payload as JSON for the bundle, its files registered: raises
    StudyError at the first problem. field is where it sits in the item
    ("explanations.saliency")."""
    if isinstance(payload, str):
        if not payload:
            ctx.fail(field, "empty explanation text")
        return payload
    if not isinstance(payload, dict):
        ctx.fail(field, "an explanation is a payload (simlab.heatmap(), "
                 "simlab.markdown(), ...), a dict with a \"kind\" or a "
                 "text, not %s" % type(payload).__name__)
    problem = getattr(payload, "problem", None)
    if problem:
        ctx.fail(field + "." + problem[0], problem[1])
    kind = payload.get("kind")
    if kind not in KINDS:
        import difflib
        near = difflib.get_close_matches(str(kind), KINDS, 1, 0.6)
        ctx.fail(field + ".kind", "unknown explanation kind %r%s"
                 % (kind, " (did you mean '%s'?)" % near[0] if near
                    else " (kinds: %s)" % ", ".join(KINDS)))
    for k in payload:
        if k not in COMMON and k not in FIELDS[kind] and k != "notes" \
                and not k.startswith(("x-", "_")):
            ctx.fail(field + "." + k, "unknown field of a %s explanation "
                     "(its fields: %s)" % (kind, ", ".join(FIELDS[kind])))
    out = {}
    for k, v in payload.items():
        if k == "title":
            out[k] = string(v, ctx, field + ".title")
        elif k == "reveal":
            out[k] = _reveal(v, payload, ctx, field, depth)
        elif k not in FIELDS[kind]:
            out[k] = v
    body = _CHECKS[kind](payload, ctx, field, depth)
    # the payload's own order, with the checked values
    return {k: (body[k] if k in body else out[k])
            for k in payload if k in body or k in out}


def _reveal(v, payload, ctx, field, depth):
    r = str(v).replace("-", "_")
    if r not in REVEALS:
        ctx.fail(field + ".reveal", "%r is not always, on_request or hover"
                 % (v,))
    if depth > 0 and r != "always":
        ctx.fail(field + ".reveal", "a part is revealed with its "
                 "explanation: set reveal on the top-level payload")
    if r == "hover" and not _has_hover(payload):
        ctx.fail(field + ".reveal", "'hover' shows values on hover: a %s "
                 "explanation has none (%s have)" % (payload.get("kind"),
                                                     ", ".join(HOVER_KINDS)))
    return r


def _has_hover(p):
    if not isinstance(p, dict):
        return False
    return p.get("kind") in HOVER_KINDS or any(
        _has_hover(q) for q in p.get("parts") or [])


def _list(p, key, ctx, field, empty_ok=False, most=None):
    v = p.get(key)
    if v is None:
        ctx.fail(field + "." + key, "missing (required)")
    v = _seq(v) if not isinstance(v, (str, dict)) else v
    if not isinstance(v, list):
        ctx.fail(field + "." + key, "must be a list")
    if not v and not empty_ok:
        ctx.fail(field + "." + key, "must not be empty")
    if most is not None and len(v) > most:
        ctx.fail(field + "." + key, "%d entries; at most %d are shown"
                 % (len(v), most))
    return v


def _map_style(p, ctx, field, out):
    cmap = p.get("colormap")
    if cmap is not None:
        if cmap not in COLORMAPS:
            ctx.fail(field + ".colormap", "%r is not one of %s"
                     % (cmap, ", ".join(COLORMAPS)))
        out["colormap"] = cmap
    if p.get("opacity") is not None:
        o = number(p["opacity"], ctx, field + ".opacity")
        if not 0 <= o <= 1:
            ctx.fail(field + ".opacity", "%g is outside [0, 1]" % o)
        out["opacity"] = o


def _map_fits(ctx, field, map_size, image_size, what):
    (mw, mh), (w, h) = map_size, image_size
    if (mw, mh) == (w, h):
        return
    if abs(mw * h - mh * w) > 0.01 * mh * w:
        ctx.fail(field, "the map is %dx%d (WxH) but %s is %dx%d: neither "
                 "the same size nor the same aspect ratio"
                 % (mw, mh, what, w, h))


def _check_heatmap(p, ctx, field, depth):
    if ctx.modality != "image":
        ctx.fail(field + ".file", "a heatmap needs an image item (this "
                 "one is %s)" % ctx.modality)
    out = {}
    out["file"], size = _map_file(p.get("file"), ctx, field + ".file")
    if ctx.image_size:
        _map_fits(ctx, field + ".file", size, ctx.image_size, "the image")
    _map_style(p, ctx, field, out)
    if p.get("display") is not None:
        if p["display"] not in ("overlay", "side_by_side"):
            ctx.fail(field + ".display", "%r is not overlay or side_by_side"
                     % (p["display"],))
        out["display"] = p["display"]
    return out


def _map_file(v, ctx, field):
    if v is None:
        ctx.fail(field, "missing (required): an array or a .npy/.png file")
    if not _is_file(v):
        v = _maybe_array(v, ctx, field)
    path, w, h = ctx.register(Media(v), "map", field)
    return path, (w, h)


def _maybe_array(v, ctx, field):
    """A nested list as a numpy array (for maps and images)."""
    try:
        import numpy
        return numpy.asarray(v)
    except Exception:
        ctx.fail(field, "must be an array or a file, not %s"
                 % type(v).__name__)


def _check_tokens(p, ctx, field, depth):
    toks = _list(p, "tokens", ctx, field)
    out = []
    for i, t in enumerate(toks):
        f = "%s.tokens.%d" % (field, i)
        if isinstance(t, (list, tuple)) and 2 <= len(t) <= 3:
            t = {"text": t[0], "weight": t[1],
                 **({"segment": t[2]} if len(t) == 3 else {})}
        if not isinstance(t, dict):
            ctx.fail(f, "a token is {\"text\", \"weight\"} or "
                     "[text, weight]")
        d = {"text": string(t.get("text"), ctx, f + ".text"),
             "weight": number(t.get("weight"), ctx, f + ".weight")}
        if t.get("segment") is not None:
            s = number(t["segment"], ctx, f + ".segment")
            if s not in (0, 1):
                ctx.fail(f + ".segment", "must be 0 or 1")
            if s == 1 and ctx.modality != "text_pair":
                ctx.fail(f + ".segment", "segment 1 needs a text_pair item")
            d["segment"] = int(s)
        out.append(d)
    return {"tokens": out}


def _check_pairs(p, ctx, field, depth, spans):
    body = _check_tokens(p, ctx, field, depth)
    toks = body["tokens"]
    pairs = []
    for i, q in enumerate(_list(p, "pairs", ctx, field)):
        f = "%s.pairs.%d" % (field, i)
        if not isinstance(q, dict):
            ctx.fail(f, "a pair is {\"a\", \"b\", \"weight\"}")
        d = {}
        for side, seg in (("a", 0), ("b", 1)):
            v = q.get(side)
            if spans:
                v = _seq(v)
                if not v or len(v) != 2:
                    ctx.fail(f + "." + side, "must be a token range "
                             "[start, end]")
                lo, hi = (int(number(x, ctx, f + "." + side)) for x in v)
                if lo >= hi:
                    ctx.fail(f + "." + side, "empty range [%d, %d]"
                             % (lo, hi))
                d[side] = [lo, hi]
            else:
                lo = int(number(v, ctx, f + "." + side))
                hi = lo + 1
                d[side] = lo
            if lo < 0 or hi > len(toks):
                ctx.fail(f + "." + side, "token %s out of range (%d tokens)"
                         % ("range" if spans else "index", len(toks)))
            for k in range(lo, hi):
                if toks[k].get("segment", 0) != seg:
                    ctx.fail(f + "." + side, "token %d is in segment %d, "
                             "expected %d" % (k, toks[k].get("segment", 0),
                                              seg))
        d["weight"] = number(q.get("weight"), ctx, f + ".weight")
        pairs.append(d)
    body["pairs"] = pairs
    return body


def _check_feature_list(lst, ctx, f0, with_value=True):
    out = []
    for i, x in enumerate(lst):
        f = "%s.%d" % (f0, i)
        if isinstance(x, (list, tuple)) and len(x) == 2:
            x = {"name": x[0], "weight": x[1]}
        if not isinstance(x, dict):
            ctx.fail(f, "a feature is {\"name\", \"weight\"} or "
                     "[name, weight]")
        d = {"name": string(_scalar(x.get("name")), ctx, f + ".name")}
        if with_value and x.get("value") is not None:
            v = _scalar(x["value"])
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                ctx.fail(f + ".value", "must be a string or a number")
            d["value"] = v
        d["weight"] = number(x.get("weight"), ctx, f + ".weight")
        out.append(d)
    return out


def _scalar(v):
    if hasattr(v, "dtype") and getattr(v, "shape", None) == ():
        if v.dtype.kind == "f" and v.dtype.itemsize < 8:
            return float(str(v))
        return v.item()
    return v


def _whole(lo, hi):
    """A check of a whole number from lo to hi (for _optional)."""
    def check_whole(v, ctx, field):
        x = number(v, ctx, field)
        if x != int(x) or not lo <= x <= hi:
            ctx.fail(field, "must be a whole number from %d to %d"
                     % (lo, hi))
        return int(x)
    return check_whole


def _known(d, names, what, ctx, field):
    """Refuses a member of d that is not one of names."""
    for k in d:
        if k not in names:
            ctx.fail(field + "." + k, "unknown field of %s (its fields: %s)"
                     % (what, ", ".join(names)))


def _optional(p, out, ctx, field, **checks):
    """out with p's members that are given, each through its check
    (number, class_id, ...): key=check."""
    for key, check_value in checks.items():
        if p.get(key) is not None:
            out[key] = check_value(p[key], ctx, field + "." + key)
    return out


def _check_features(p, ctx, field, depth):
    out = {"features": _check_feature_list(_list(p, "features", ctx, field),
                                           ctx, field + ".features")}
    return _optional(p, out, ctx, field, intercept=number, sum=number,
                     output=number)


def _check_rules(p, ctx, field, depth):
    out = _optional(p, {}, ctx, field, predicted=class_id)
    rl = []
    for i, r in enumerate(_list(p, "rules", ctx, field)):
        f = "%s.rules.%d" % (field, i)
        d = r if isinstance(r, dict) else {"conditions": r}
        conds = _list(d, "conditions", ctx, f)
        nd = {"conditions": [string(c, ctx, "%s.conditions.%d" % (f, k))
                             for k, c in enumerate(conds)]}
        for k in ("precision", "coverage"):
            if d.get(k) is not None:
                x = number(d[k], ctx, f + "." + k)
                if not 0 <= x <= 1:
                    ctx.fail(f + "." + k, "%g is outside [0, 1]" % x)
                nd[k] = x
        rl.append(nd if isinstance(r, dict) else nd["conditions"])
    out["rules"] = rl
    return out


def _check_prototype(p, ctx, field, depth):
    out = {}
    if p.get("label") is not None:
        out["label"] = str(_scalar(p["label"]))
    _optional(p, out, ctx, field, evidence=number)
    if p.get("rows") is not None or p.get("text") is None:
        rows = []
        for i, r in enumerate(_list(p, "rows", ctx, field)):
            f = "%s.rows.%d" % (field, i)
            if not isinstance(r, dict):
                ctx.fail(f, "a row is {\"name\", \"prototype\", \"input\"}")
            d = {"name": string(_scalar(r.get("name")), ctx, f + ".name")}
            for k in ("prototype", "input"):
                if r.get(k) is not None:
                    d[k] = str(_scalar(r[k]))
            rows.append(d)
        out["rows"] = rows
    if p.get("important") is not None:
        out["important"] = _check_feature_list(
            _list(p, "important", ctx, field, empty_ok=True), ctx,
            field + ".important", with_value=False)
    if p.get("text") is not None:
        out["text"] = string(p["text"], ctx, field + ".text")
    return out


def _check_path(p, ctx, field, depth):
    out = _optional(p, {}, ctx, field, start_margin=number, target=class_id)
    steps = []
    for i, s in enumerate(_list(p, "steps", ctx, field)):
        f = "%s.steps.%d" % (field, i)
        if not isinstance(s, dict):
            ctx.fail(f, "a step is {\"margin\", \"edits\"}")
        d = {"margin": number(s.get("margin"), ctx, f + ".margin")}
        if s.get("edits") is not None:
            edits = []
            for k, e in enumerate(_list(s, "edits", ctx, f, empty_ok=True)):
                ef = "%s.edits.%d" % (f, k)
                if not isinstance(e, dict):
                    ctx.fail(ef, "an edit is {\"feature\", \"from\", "
                             "\"to\"}")
                nd = {}
                for key in ("feature", "from", "to"):
                    if e.get(key) is not None:
                        nd[key] = str(_scalar(e[key]))
                if "to" not in nd:
                    ctx.fail(ef + ".to", "missing (required)")
                edits.append(nd)
            d["edits"] = edits
        steps.append(d)
    out["steps"] = steps
    return out


def _check_text(p, ctx, field, depth):
    return {"text": string(p.get("text"), ctx, field + ".text")}


def _check_markdown(p, ctx, field, depth):
    t = string(p.get("text"), ctx, field + ".text")
    for line in t.split("\n"):
        if line.lstrip().startswith("!["):
            ctx.fail(field + ".text", "an image line ![...](...) in a "
                     "markdown explanation: show images as image parts of "
                     "a layout beside it")
    return {"text": t}


def _check_parts(p, ctx, field, depth):
    parts = _list(p, "parts", ctx, field)
    return [check(q, ctx, "%s.parts.%d" % (field, i), depth + 1)
            for i, q in enumerate(parts)]


def _check_composite(p, ctx, field, depth):
    if depth > 0:
        ctx.fail(field + ".kind", "composites may not be nested")
    return {"parts": _check_parts(p, ctx, field, depth)}


def _check_layout(p, ctx, field, depth):
    out = {}
    if p.get("direction") is not None:
        if p["direction"] not in ("row", "column"):
            ctx.fail(field + ".direction", "%r is not row or column"
                     % (p["direction"],))
        out["direction"] = p["direction"]
    if depth + 1 > MAX_DEPTH:
        ctx.fail(field + ".parts", "layouts nest at most %d deep"
                 % MAX_DEPTH)
    out["parts"] = _check_parts(p, ctx, field, depth)
    return out


def _image_file(v, ctx, field):
    if not _is_file(v):
        v = _maybe_array(v, ctx, field)
    path, w, h = ctx.register(Media(v), "image", field)
    return path, (w, h)


def _check_image(p, ctx, field, depth):
    out = {}
    size, what = ctx.image_size, "the image"
    if p.get("file") is not None:
        out["file"], size = _image_file(p["file"], ctx, field + ".file")
        what = "'%s'" % out["file"]
    elif ctx.modality != "image":
        ctx.fail(field + ".file", "missing: an image explanation of a %s "
                 "item needs a file (only image items show their own "
                 "image)" % ctx.modality)
    _optional(p, out, ctx, field, caption=string)
    ov = p.get("overlay")
    if ov is not None:
        of = field + ".overlay"
        if isinstance(ov, Payload) and ov.get("kind") == "heatmap":
            ov = {k: ov[k] for k in ("file", "colormap", "opacity")
                  if k in ov}
        elif not isinstance(ov, dict):
            ov = {"file": ov}
        _known(ov, ("file", "colormap", "opacity"), "an overlay", ctx, of)
        o = {}
        o["file"], msize = _map_file(ov.get("file"), ctx, of + ".file")
        if size:
            _map_fits(ctx, of + ".file", msize, size, what)
        _map_style(ov, ctx, of, o)
        out["overlay"] = o
    return out


def _check_gallery(p, ctx, field, depth):
    out = _optional(p, {}, ctx, field, columns=_whole(1, 12))
    ims = []
    for i, im in enumerate(_list(p, "images", ctx, field,
                                 most=GALLERY_MAX)):
        f = "%s.images.%d" % (field, i)
        if not isinstance(im, dict):
            im = {"file": im}
        _known(im, ("file", "caption", "weight"), "a gallery image", ctx, f)
        if im.get("file") is None:
            ctx.fail(f + ".file", "missing (required)")
        d = {"file": _image_file(im["file"], ctx, f + ".file")[0]}
        ims.append(_optional(im, d, ctx, f, caption=string, weight=number))
    out["images"] = ims
    return out


def _check_bars(p, ctx, field, depth):
    bl = []
    for i, b in enumerate(_list(p, "bars", ctx, field, most=BARS_MAX)):
        f = "%s.bars.%d" % (field, i)
        if isinstance(b, (list, tuple)) and len(b) == 2:
            b = {"label": b[0], "value": b[1]}
        if not isinstance(b, dict):
            ctx.fail(f, "a bar is {\"label\", \"value\"} or [label, value]")
        bl.append({"label": string(_scalar(b.get("label")), ctx,
                                   f + ".label"),
                   "value": number(b.get("value"), ctx, f + ".value")})
    out = {"bars": bl}
    for k in ("signed", "sum"):
        if p.get(k) is not None:
            if not isinstance(p[k], bool):
                ctx.fail(field + "." + k, "must be true or false")
            out[k] = p[k]
    if p.get("unit") is not None:
        u = string(p["unit"], ctx, field + ".unit")
        if len(u.encode()) > 16:
            ctx.fail(field + ".unit", "%r: at most 16 bytes" % u)
        out["unit"] = u
    return _optional(p, out, ctx, field, decimals=_whole(0, 6))


_CHECKS = {
    "heatmap": _check_heatmap,
    "tokens": _check_tokens,
    "token_pairs": lambda p, c, f, d: _check_pairs(p, c, f, d, False),
    "span_pairs": lambda p, c, f, d: _check_pairs(p, c, f, d, True),
    "features": _check_features,
    "rules": _check_rules,
    "prototype": _check_prototype,
    "path": _check_path,
    "text": _check_text,
    "composite": _check_composite,
    "image": _check_image,
    "gallery": _check_gallery,
    "markdown": _check_markdown,
    "bars": _check_bars,
    "layout": _check_layout,
}
