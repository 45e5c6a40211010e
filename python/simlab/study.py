"""A study bundle built from Python: Study(**fields) takes study.json's
top-level keys, add_item() adds items with their explanations (arrays are
checked and encoded at once), write(DIR) writes study.json, items.jsonl,
media/ and pages/ and runs `simlab check --json` on the result.

Bad input raises StudyError naming the item and the field before anything
is written; a bundle check refuses raises CheckError with check's located
errors.
"""
import difflib
import hashlib
import json
import os
import re
import shutil
import warnings

from . import jsonfmt, mediafiles as mediafile, pages as default_pages
from .errors import CheckError, CheckWarning, StudyError
from .payloads import (MAP_MAX, ItemContext, Media, check as check_payload,
                       is_array)

MODALITIES = ("image", "text", "text_pair", "tabular")
IMAGE_EXT = (".png", ".jpg", ".jpeg")
_ID = re.compile(r"^[A-Za-z0-9._-]+$")
# study.json's top-level keys (docs/study-format.md); others are passed on
# to simlab check, which knows every key of the simlab it is
KNOWN = ("simlab_study", "id", "title", "domain", "classes", "conditions",
         "baseline", "protocol", "blocks", "assignment", "screening",
         "pages", "quiz", "rating", "items", "explanations", "simulation",
         "language", "language_file", "ui", "online", "analysis", "notes")


def _near(name, names):
    m = difflib.get_close_matches(str(name), [str(n) for n in names], 1, 0.6)
    return " (did you mean '%s'?)" % m[0] if m else ""


def _text(v):
    """A class value or id as simlab reads it (numbers as their text)."""
    if hasattr(v, "item") and not isinstance(v, str):
        v = v.item()
    if isinstance(v, bool):
        raise TypeError("a boolean is not a class")
    return str(v)


class _File:
    """A file of the bundle: bytes, or a file to copy."""

    def __init__(self, data=None, source=None):
        self.data = data
        self.source = source

    def same(self, other):
        if self.source and other.source:
            return os.path.realpath(self.source) == \
                os.path.realpath(other.source)
        return self.digest() == other.digest()

    def digest(self):
        if self.data is None:
            with open(self.source, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        return hashlib.sha256(self.data).hexdigest()


class Study:
    """A study bundle in the making. The keyword arguments are study.json's
    top-level keys with their values (docs/study-format.md); conditions
    may also be a dict {id: method} (None: no explanation). Without
    "pages", simlab's own consent, instructions and debrief pages are
    written (the consent and debrief say they are placeholders)."""

    def __init__(self, **fields):
        conds = fields.get("conditions")
        if isinstance(conds, dict):
            fields["conditions"] = [{"id": k, "method": m}
                                    for k, m in conds.items()]
        self.fields = dict(fields)
        self._check_fields()
        self.items = []  # the records of items.jsonl, in order
        self._keys = {}  # item key -> index
        self.files = {}  # bundle path -> _File
        self._by_source = {}  # (kind, source, name) -> bundle path
        self._modalities = set()

    # ------------------------------------------------------------ fields

    def _check_fields(self):
        f = self.fields
        for key in ("id", "title", "classes", "conditions"):
            if key not in f:
                raise StudyError("missing (required)", None, key)
        if f.get("simlab_study", 1) != 1:
            raise StudyError("must be 1", None, "simlab_study")
        if not isinstance(f["id"], str) or not _ID.match(f["id"]):
            raise StudyError("%r: use letters, digits, '-', '_', '.'"
                             % (f["id"],), None, "id")
        classes = f["classes"]
        if not isinstance(classes, (list, tuple)) or len(classes) < 2:
            raise StudyError("give 2 or more classes", None, "classes")
        ids = []
        for c in classes:
            cid = c.get("id") if isinstance(c, dict) else c
            if cid is None:
                raise StudyError("a class needs an id", None, "classes")
            if _text(cid) in ids:
                raise StudyError("class '%s' is given twice" % cid, None,
                                 "classes")
            ids.append(_text(cid))
        self.classes = ids
        conds = f["conditions"]
        if not isinstance(conds, (list, tuple)) or not conds:
            raise StudyError("give at least one condition", None,
                             "conditions")
        cids = []
        for c in conds:
            if not isinstance(c, dict) or "id" not in c:
                raise StudyError("a condition is {\"id\", \"method\"}", None,
                                 "conditions")
            if str(c["id"]) in cids:
                raise StudyError("condition '%s' is given twice" % c["id"],
                                 None, "conditions")
            cids.append(str(c["id"]))
        self.conditions = cids
        base = f.get("baseline")
        if base is not None and str(base) not in cids:
            raise StudyError("'%s' is not a condition (conditions: %s)%s"
                             % (base, ", ".join("'%s'" % c for c in cids),
                                _near(base, cids)), None, "baseline")

    def _item_key(self, pool, id):
        return "%s:%s" % (pool, id)

    # ------------------------------------------------------------- items

    def add_item(self, id, pool, input, label=None, prediction=None,
                 explanations=None, modality=None, counterfactual=None,
                 domain=None):
        """Adds an item: id (text or integer), pool, input (image: a path
        of a PNG or JPEG file or an H x W x 3 uint8 array, written as PNG;
        text: a string; text_pair: (a, b) or {"a", "b", "a_title",
        "b_title"}; tabular: {name: value} or [(name, value), ...]), label
        and prediction (class ids), explanations {method: payload}.
        modality is inferred from input when not given (arrays, Paths and
        strings naming an existing .png/.jpg file are images, dicts and
        lists tabular, tuples text pairs, other strings text). Raises
        StudyError naming the item and field; the study is unchanged
        then."""
        if isinstance(id, bool) or not isinstance(id, (str, int)) \
                and not hasattr(id, "item"):
            raise StudyError("an item id is a text or an integer, not %r"
                             % (id,), None, "items")
        id = id.item() if hasattr(id, "item") else id
        pool = _text(pool) if pool is not None else None
        if not pool:
            raise StudyError("missing (required)", "?:%s" % id, "pool")
        key = self._item_key(pool, id)
        if key in self._keys:
            raise StudyError("item '%s' is added twice" % key, key, "id")
        modality = modality or self._infer_modality(input, key)
        if modality not in MODALITIES:
            raise StudyError("%r is not %s" % (modality,
                                               ", ".join(MODALITIES)),
                             key, "modality")
        # the item's files are staged, and kept when the whole item is
        staged, sources = {}, {}
        rec = {"id": id, "pool": pool, "modality": modality}
        image_size = None
        register = self._registrar(key, id, pool, staged, sources)
        if modality == "image":
            rec["input"], w, h = register(Media(input), "image", "input",
                                          _stem=True)
            image_size = (w, h)
        else:
            rec["input"] = self._input(input, modality, key, "input")
        for field, value in (("label", label), ("prediction", prediction)):
            if value is None:
                if field == "prediction":
                    raise StudyError("missing (required)", key, field)
                continue
            rec[field] = self._class(value, key, field)
        ctx = ItemContext(key, modality, self.classes, image_size, register)
        if counterfactual is not None:
            rec["counterfactual"] = self._counterfactual(
                counterfactual, modality, ctx, register)
        if domain is not None:
            rec["domain"] = str(domain)
        if explanations:
            if not isinstance(explanations, dict):
                raise StudyError("a dict {method: payload}", key,
                                 "explanations")
            rec["explanations"] = {
                str(m): check_payload(p, ctx, "explanations.%s" % m)
                for m, p in explanations.items()}
        self.files.update(staged)
        self._by_source.update(sources)
        self._keys[key] = len(self.items)
        self.items.append(rec)
        self._modalities.add(modality)
        return rec

    def _class(self, value, key, field):
        try:
            v = _text(value)
        except TypeError as e:
            raise StudyError(str(e), key, field)
        if v not in self.classes:
            raise StudyError("'%s' is not a class (classes: %s)%s"
                             % (v, ", ".join("'%s'" % c
                                             for c in self.classes),
                                _near(v, self.classes)), key, field)
        return v

    @staticmethod
    def _infer_modality(v, key):
        if is_array(v) or isinstance(v, (os.PathLike, Media)):
            return "image"
        if isinstance(v, str):
            if v.lower().endswith(IMAGE_EXT) and os.path.isfile(v):
                return "image"
            return "text"
        if isinstance(v, tuple):
            return "text_pair"
        if isinstance(v, (dict, list)):
            if isinstance(v, dict) and set(v) <= {"a", "b", "a_title",
                                                  "b_title"} and "a" in v:
                return "text_pair"
            return "tabular"
        raise StudyError("cannot tell the modality of a %s input: give "
                         "modality=" % type(v).__name__, key, "input")

    def _input(self, v, modality, key, field):
        if modality == "text":
            if not isinstance(v, str) or not v:
                raise StudyError("a text input is a non-empty string", key,
                                 field)
            return v
        if modality == "text_pair":
            if isinstance(v, dict):
                if not v.get("a") or not v.get("b"):
                    raise StudyError("a text pair needs \"a\" and \"b\"",
                                     key, field)
                return dict(v)
            if isinstance(v, (tuple, list)) and len(v) == 2 and all(
                    isinstance(x, str) and x for x in v):
                return list(v)
            raise StudyError("a text pair is (a, b) or {\"a\", \"b\"}", key,
                             field)
        # tabular
        rows = v.items() if isinstance(v, dict) else v
        out = []
        try:
            for r in rows:
                if isinstance(r, dict):
                    name, value = r.get("name"), r.get("value")
                else:
                    name, value = r
                out.append({"name": str(name), "value": _feature(value)})
        except (TypeError, ValueError):
            raise StudyError("a tabular input is {name: value} or a list "
                             "of (name, value)", key, field)
        if not out:
            raise StudyError("no features", key, field)
        return out

    def _counterfactual(self, cf, modality, ctx, register):
        if not isinstance(cf, dict):
            raise StudyError("a counterfactual is {\"input\", "
                             "\"prediction\", \"edits\"}", ctx.key,
                             "counterfactual")
        out = {}
        if cf.get("input") is not None:
            if modality == "image":
                out["input"] = register(Media(cf["input"]), "image",
                                        "counterfactual.input")[0]
            elif modality == "text" and isinstance(cf["input"], str):
                out["input"] = cf["input"]
            else:
                out["input"] = self._input(cf["input"], modality, ctx.key,
                                           "counterfactual.input")
        if cf.get("prediction") is None:
            raise StudyError("missing (required)", ctx.key,
                             "counterfactual.prediction")
        out["prediction"] = self._class(cf["prediction"], ctx.key,
                                        "counterfactual.prediction")
        if cf.get("edits") is not None:
            out["edits"] = [dict(e) for e in cf["edits"]]
        if cf.get("region") is not None:
            out["region"] = register(Media(cf["region"]), "image",
                                     "counterfactual.region")[0]
        return out

    # ------------------------------------------------------------- files

    def add_file(self, path, source=None, text=None, data=None):
        """Puts a file into the bundle at path (relative, e.g.
        "pages/consent.md"): a copy of source, or text (UTF-8), or
        bytes."""
        path = _bundle_path(path, None, "file")
        if sum(x is not None for x in (source, text, data)) != 1:
            raise ValueError("give one of source, text and data")
        if source is not None:
            if not os.path.isfile(source):
                raise StudyError("'%s': no such file" % source, None, path)
            f = _File(source=os.fspath(source))
        else:
            f = _File(data=text.encode("utf-8") if text is not None
                      else bytes(data))
        old = self.files.get(path)
        if old and not old.same(f):
            raise StudyError("the bundle has another file '%s' already"
                             % path, None, "file")
        self.files[path] = f
        return path

    def add_page(self, path, text):
        """A page (UTF-8 Markdown-ish text) at path, e.g.
        "pages/instructions.md"; name it in pages= or a block's pages."""
        return self.add_file(path, text=text)

    def _registrar(self, key, id, pool, staged, sources):
        """register(media, role, field) for the item key: the file's bundle
        path and the size of its picture or map. Files go to staged (and
        what they were made from to sources) until the item is complete."""
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", str(id)).lstrip(".") or "item"

        def taken(path):
            return path in self.files or path in staged

        def register(m, role, field, _stem=False):
            f, ext, w, h = self._encode(m, role, key, field)
            if m.name:
                path = _bundle_path(m.name, key, field)
            else:
                path = None
            skey = (role, f.source and os.path.realpath(f.source)
                    or f.digest(), path)
            known = sources.get(skey) or self._by_source.get(skey)
            if known:
                return known, w, h
            if path is None:
                method = field.split(".")[1] if field.startswith(
                    "explanations.") else None
                base = stem if _stem or not method else "%s-%s" % (
                    stem, re.sub(r"[^A-Za-z0-9._-]", "_", method))
                if f.source:  # a file keeps its name
                    base = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.splitext(
                        os.path.basename(f.source))[0]).lstrip(".") or base
                path = "media/%s%s" % (base, ext)
                if taken(path):
                    path = "media/%s-%s%s" % (
                        re.sub(r"[^A-Za-z0-9._-]", "_", pool), base, ext)
                n = 2
                root = path[:-len(ext)]
                while taken(path):
                    path = "%s-%d%s" % (root, n, ext)
                    n += 1
            elif taken(path):
                old = self.files.get(path) or staged.get(path)
                if not old.same(f):
                    raise StudyError("'%s' is the name of another file of "
                                     "the bundle" % path, key, field)
            staged[path] = f
            sources[skey] = path
            return path, w, h
        return register

    def _encode(self, m, role, key, field):
        """(the _File, its extension, width, height) of media m as a
        picture (role "image") or a heatmap ("map")."""
        src = m.source
        if isinstance(src, Media):
            src = src.source
        if is_array(src):
            return self._encode_array(src, role, key, field)
        if not isinstance(src, (str, os.PathLike)):
            raise StudyError("must be an array or a file path, not %s"
                             % type(src).__name__, key, field)
        src = os.fspath(src)
        low = src.lower()
        if not os.path.isfile(src):
            raise StudyError("'%s': no such file" % src, key, field)
        if role == "map":
            if low.endswith(".npy"):
                shape, ok = _npy_header(src, key, field)
                if len(shape) != 2:
                    raise StudyError("'%s' holds a %s array: a heatmap is "
                                     "2-D (H x W)" % (src, "x".join(
                                         map(str, shape)) or "0-D"), key,
                                     field)
                if not ok:  # another dtype or order: written as float32
                    import numpy
                    return self._encode_array(numpy.load(src), role, key,
                                              field)
                return _File(source=src), ".npy", shape[1], shape[0]
            if not low.endswith(".png"):
                raise StudyError("'%s': a heatmap is an array, a .npy or a "
                                 ".png file" % src, key, field)
        elif not low.endswith(IMAGE_EXT):
            raise StudyError("'%s': an image is an array or a .png or .jpg "
                             "file" % src, key, field)
        size = mediafile.image_size(src)
        if size is None:
            raise StudyError("'%s': not a PNG or JPEG file" % src, key,
                             field)
        return _File(source=src), os.path.splitext(low)[1], size[0], size[1]

    def _encode_array(self, a, role, key, field):
        import numpy as np
        shape = "x".join(str(n) for n in a.shape)
        if role == "image":
            if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] not in
                                         (3, 4)):
                raise StudyError("an image array is H x W x 3 (RGB), "
                                 "H x W x 4 or H x W; this one is %s"
                                 % shape, key, field)
            if a.dtype != np.uint8:
                raise StudyError("an image array is uint8 (0..255), not %s: "
                                 "convert it, e.g. (x * 255).round()."
                                 "astype(numpy.uint8) for values in [0, 1]"
                                 % a.dtype, key, field)
            h, w = a.shape[:2]
            _sides(w, h, key, field)
            return _File(data=mediafile.png_bytes(a)), ".png", w, h
        if a.ndim != 2:
            hint = ""
            if a.ndim == 3:
                hint = (": reduce the channels first, e.g. a.sum(axis=0) "
                        "for C x H x W or a.sum(axis=-1) for H x W x C")
            elif a.ndim > 3:
                hint = ": take one input of the batch and reduce channels"
            raise StudyError("a heatmap is 2-D (H x W); this array is %s%s"
                             % (shape, hint), key, field)
        if a.dtype.kind not in "fiu":
            raise StudyError("a heatmap holds real numbers, not %s"
                             % a.dtype, key, field)
        h, w = a.shape
        _sides(w, h, key, field)
        with np.errstate(over="ignore", invalid="ignore"):
            m = np.asarray(a, dtype=np.float32)
        bad = ~np.isfinite(m)
        if bad.any():
            r, c = (int(x) for x in np.argwhere(bad)[0])
            what = "NaN" if np.isnan(m[r, c]) else (
                "infinite" if np.isinf(np.asarray(a, dtype=float)[r, c])
                else "too large for float32")
            raise StudyError("heatmap value at row %d, column %d is %s (%d "
                             "of %d values are not finite)"
                             % (r, c, what, int(bad.sum()), m.size), key,
                             field)
        return _File(data=mediafile.npy_bytes(m)), ".npy", w, h

    # ------------------------------------------------------------- write

    def _default_pages(self):
        """{kind: (bundle path, text)} of simlab's own pages that the study
        needs: all three for a preset without "pages", else those of page
        blocks that name no page and no text."""
        if "pages" in self.fields:
            return {}
        texts, paths = default_pages.defaults(self.fields,
                                              self._one_modality())
        kinds = set()
        if "protocol" in self.fields:
            kinds = set(paths)
        for b in self.fields.get("blocks") or []:
            if isinstance(b, dict) and b.get("kind") in paths and \
                    "pages" not in b and "text" not in b:
                kinds.add(b["kind"])
        return {k: (paths[k], texts[paths[k]]) for k in paths if k in kinds}

    def study_json(self):
        """study.json's content as a dict (in the order it is written)."""
        out = {"simlab_study": 1}
        pages = {k: v[0] for k, v in self._default_pages().items()}
        for k, v in self.fields.items():
            if k == "items" and pages:
                out["pages"] = pages  # before the items, as simlab new does
            out[k] = v
        if pages and "pages" not in out:
            out["pages"] = pages
        if self.items:
            banks = list(out.get("items") or [])
            out["items"] = banks + [{"file": "items.jsonl",
                                     "format": "jsonl"}]
        return out

    def _one_modality(self):
        return next(iter(self._modalities)) if len(self._modalities) == 1 \
            else None

    def write(self, dir, overwrite=False, check=True):
        """Writes the bundle into dir (created; an existing folder with
        files in it only with overwrite, which replaces the files the
        study writes and leaves others) and runs `simlab check --json` on
        it. Returns check's report (a dict; {} without check); raises
        CheckError with check's errors when the bundle is invalid, and
        warns (CheckWarning) with its warnings."""
        if not self.items and not self.fields.get("items"):
            raise StudyError("the study has no items (Study.add_item)",
                             None, "items")
        dir = os.fspath(dir)
        if os.path.isdir(dir) and os.listdir(dir) and not overwrite:
            raise FileExistsError("%s is not empty: write(..., "
                                  "overwrite=True) replaces the study's "
                                  "files there" % dir)
        files = dict(self.files)
        defaults = self._default_pages()
        for path, text in defaults.values():
            files.setdefault(path, _File(data=text.encode("utf-8")))
        lang = str(self.fields.get("language") or "en")
        if defaults and not lang.lower().startswith("en"):
            warnings.warn("simlab's own pages (%s) are in English and the "
                          "study's language is '%s': give pages= in it"
                          % (", ".join(sorted(defaults)), lang),
                          UserWarning, stacklevel=2)
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n"
                        for r in self.items)
        files["items.jsonl"] = _File(data=lines.encode("utf-8"))
        files["study.json"] = _File(
            data=jsonfmt.dumps(self.study_json()).encode("utf-8"))
        os.makedirs(dir, exist_ok=True)
        for path in sorted(files):
            f = files[path]
            dest = os.path.join(dir, path)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if f.source:
                if os.path.exists(dest) and os.path.samefile(f.source, dest):
                    continue
                shutil.copyfile(f.source, dest)
            else:
                with open(dest, "wb") as out:
                    out.write(f.data)
        if not check:
            return {}
        from .programs import check as run_check
        report = run_check(dir)
        lines_of = {i + 1: "%s:%s" % (r["pool"], r["id"])
                    for i, r in enumerate(self.items)}
        if not report.get("valid"):
            raise CheckError(dir, report, lines_of)
        if report.get("warnings"):
            from .errors import format_diag
            warnings.warn("simlab check: %d warning%s on %s:\n%s" % (
                len(report["warnings"]),
                "" if len(report["warnings"]) == 1 else "s", dir,
                "\n".join("  " + format_diag(d, lines_of)
                          for d in report["warnings"])), CheckWarning,
                stacklevel=2)
        return report


def _feature(v):
    """A tabular value as simlab reads it: a string or an integer."""
    if hasattr(v, "dtype") and getattr(v, "shape", None) == ():
        if v.dtype.kind == "f" and v.dtype.itemsize < 8:
            v = float(str(v))
        else:
            v = v.item()
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return int(v) if v.is_integer() and abs(v) < 2 ** 53 else repr(v)
    if isinstance(v, (str, int)):
        return v
    raise ValueError(v)


def _sides(w, h, key, field):
    if not (1 <= w <= MAP_MAX and 1 <= h <= MAP_MAX):
        raise StudyError("%dx%d pixels: 1 to %d per side" % (w, h, MAP_MAX),
                         key, field)


def _bundle_path(name, key, field):
    """A file name as a path inside the bundle: a bare name goes to
    media/."""
    name = os.fspath(name).replace(os.sep, "/")
    if "/" not in name:
        name = "media/" + name
    parts = name.split("/")
    if name.startswith("/") or ".." in parts or "" in parts:
        raise StudyError("'%s': a path inside the bundle (no '..', not "
                         "absolute)" % name, key, field)
    return name


def _npy_header(path, key, field):
    """(shape, whether the file is little-endian float32 in C order) of an
    .npy file."""
    try:
        d = mediafile.npy_header(path)
    except ValueError as e:
        raise StudyError(str(e), key, field)
    return d["shape"], d.get("descr") == "<f4" and not d.get("fortran_order")
