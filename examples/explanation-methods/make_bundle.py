#!/usr/bin/env python3
"""Writes the worked examples of docs/study-format.md "Showing a new
explanation method": one meta-predictor study whose conditions show five
explanation methods built from simlab's primitives, on pictures of the demo
image study (assets/studies/image-meta, whose model reads the background):

  concepts      labelled concept patches (a gallery with weights)
  prototype     "this looks like that": the region the model used beside a
                training picture of the class it answered (a row layout)
  counterfactual the picture and the same picture on the other ground, with
                the model's answers (a row layout of two images)
  rationale     a prose rationale written as a language model would
                (markdown)
  on_request    the rationale behind a "Show explanation" button

Run from this folder after changing it; the outputs are committed.
Standard library only (PNG read and written with zlib).
"""
import json
import os
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "..", "assets", "studies", "image-meta")

# Items taken from the demo: pool -> ids (balanced per pool as the
# meta-predictor preset asks: as many TP, FP, TN and FN).
PICK = {
    "practice_train": ["pe01", "pe02", "pe03", "pe04"],
    "practice": ["pq01", "pq02", "pq03", "pq04"],
    "train": ["tr01", "tr02", "tr03", "tr12", "tr04", "tr05", "tr10", "tr13"],
    "test": ["te01", "te02", "te08", "te04", "te06", "te03", "te10", "te05"],
}


# ---------------------------------------------------------------- PNG

def png_read(path):
    """An 8-bit RGB, non-interlaced PNG as (w, h, rows of bytes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if tag == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype == 2, path
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride, rows, prev = w * 3, [], bytearray(w * 3)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, rows


def png_write(path, w, h, rows):
    def chunk(tag, body):
        return (struct.pack(">I", len(body)) + tag + body
                + struct.pack(">I", zlib.crc32(tag + body)))
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n"
                + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def crop(rows, x0, y0, x1, y1):
    return [bytearray(r[x0 * 3:x1 * 3]) for r in rows[y0:y1]]


def npy_read(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode()
    shape = tuple(int(s) for s in header.split("(")[1].split(")")[0].split(",")
                  if s.strip())
    vals = struct.unpack("<%df" % (shape[0] * shape[1]), data[10 + hlen:])
    return shape, vals


# ------------------------------------------------------------- the ground

def snowy(rows):
    """Whether the ground (bottom quarter) is snow: bright and grey."""
    h = len(rows)
    n = bright = 0
    for r in rows[h * 3 // 4:]:
        for i in range(0, len(r), 3):
            red, green, blue = r[i], r[i + 1], r[i + 2]
            n += 1
            bright += min(red, green, blue) > 170
    return bright > n // 2


def other_ground(rows, snow):
    """The same picture on the other ground: on snow, the snow-like pixels
    of the lower half become grass; on grass, the grass-like ones snow (the
    animal, neither, is kept)."""
    h = len(rows)
    out = [bytearray(r) for r in rows]
    for y in range(h // 2, h):
        r = out[y]
        for i in range(0, len(r), 3):
            red, green, blue = r[i], r[i + 1], r[i + 2]
            if snow and min(red, green, blue) > 170 and blue >= red:
                r[i:i + 3] = bytes((86 + (y * 7 + i) % 17, 158, 70))
            elif not snow and green > red + 40 and green > blue + 40:
                r[i:i + 3] = bytes((236, 238, 246 - (y + i) % 9))
    return out


# ------------------------------------------------------------- the texts

def label(cls):
    return {"rabbit": "Rabbit", "bird": "Bird"}[cls]


def other(cls):
    return "bird" if cls == "rabbit" else "rabbit"


def rationale(pred, snow):
    ground = "snow" if snow else "grass"
    return (
        "The model answers **%s** mainly because of the *%s* on the "
        "ground, not because of the animal.\n\n"
        "- the ground takes up a quarter of the picture, and the model "
        "relies on it most\n"
        "- the animal's ears, beak and tail count for little\n\n"
        "Expect the same answer for any animal on %s.  \n"
        "(written by a language model from the model's attribution map)"
        % (label(pred), ground, ground))


def main():
    media = os.path.join(HERE, "media")
    pages = os.path.join(HERE, "pages")
    for d in (media, pages):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    demo = {}
    for line in open(os.path.join(DEMO, "items.jsonl")):
        item = json.loads(line)
        demo[item["id"]] = item
    # the prototypes: the first training picture of each answer
    protos = {}
    for iid in PICK["train"]:
        protos.setdefault(demo[iid]["prediction"], iid)
    out_items = []
    for pool, ids in PICK.items():
        for iid in ids:
            d = demo[iid]
            src = os.path.join(DEMO, d["input"])
            shutil.copy(src, os.path.join(media, iid + ".png"))
            item = {"id": iid, "pool": pool, "modality": "image",
                    "input": "media/%s.png" % iid, "label": d["label"],
                    "prediction": d["prediction"]}
            out_items.append(item)
            if pool not in ("practice_train", "train"):
                continue  # only examples are shown with explanations
            gradcam = "media/%s-gradcam.npy" % iid
            shutil.copy(os.path.join(DEMO, gradcam),
                        os.path.join(media, iid + "-gradcam.npy"))
            w, h, rows = png_read(src)
            snow = snowy(rows)
            pred = d["prediction"]
            # concept patches: sky, animal, ground, with the share of the
            # attribution map inside each
            (mh, mw), vals = npy_read(os.path.join(DEMO, gradcam))
            regions = {"sky": (0, 0, w, h // 4),
                       "animal": (w // 4, h // 4, 3 * w // 4, 3 * h // 4),
                       "ground": (0, 3 * h // 4, w, h)}
            heat = {}
            for name, (x0, y0, x1, y1) in regions.items():
                s = 0.0
                for my in range(mh):
                    for mx in range(mw):
                        px, py = (mx + 0.5) * w / mw, (my + 0.5) * h / mh
                        if x0 <= px < x1 and y0 <= py < y1:
                            s += max(vals[my * mw + mx], 0.0)
                heat[name] = s
            total = sum(heat.values()) or 1.0
            captions = {"sky": "the sky",
                        "animal": "the animal",
                        "ground": "snow on the ground" if snow
                        else "grass on the ground"}
            patches = []
            for name in ("ground", "animal", "sky"):
                x0, y0, x1, y1 = regions[name]
                f = "%s-%s.png" % (iid, name)
                png_write(os.path.join(media, f), x1 - x0, y1 - y0,
                          crop(rows, x0, y0, x1, y1))
                patches.append({"file": "media/" + f,
                                "caption": captions[name],
                                "weight": round(heat[name] / total, 2)})
            # the counterfactual: the other ground
            cf = iid + "-other-ground.png"
            png_write(os.path.join(media, cf), w, h, other_ground(rows, snow))
            proto = protos[pred]
            shutil.copy(os.path.join(DEMO, demo[proto]["input"]),
                        os.path.join(media, "prototype-%s.png" % pred))
            text = rationale(pred, snow)
            expl = {
                "concepts": {
                    "kind": "gallery",
                    "title": "Concepts the model found, and how much each "
                             "counted",
                    "columns": 3, "images": patches},
                "prototype": {
                    "kind": "layout", "direction": "row",
                    "title": "This looks like that",
                    "parts": [
                        {"kind": "image",
                         "caption": "The region the model used in this "
                                    "picture",
                         "overlay": {"file": "media/" + iid + "-gradcam.npy",
                                     "colormap": "magma", "opacity": 0.55}},
                        {"kind": "image",
                         "file": "media/prototype-%s.png" % pred,
                         "caption": "looks like this prototype of %s"
                                    % label(pred)}]},
                "counterfactual": {
                    "kind": "layout", "direction": "row",
                    "title": "The smallest change that flips the answer",
                    "parts": [
                        {"kind": "image", "file": "media/%s.png" % iid,
                         "caption": "As it is: the model says %s"
                                    % label(pred)},
                        {"kind": "image", "file": "media/" + cf,
                         "caption": "On %s: the model says %s"
                                    % ("grass" if snow else "snow",
                                       label(other(pred)))}]},
                "rationale": {"kind": "markdown", "text": text},
                "on_request": {"kind": "markdown", "text": text,
                               "reveal": "on_request"},
            }
            item["explanations"] = expl
    with open(os.path.join(HERE, "items.jsonl"), "w") as f:
        for item in out_items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    for page in ("consent.md", "debrief.md"):
        shutil.copy(os.path.join(DEMO, "pages", page), os.path.join(pages, page))
    with open(os.path.join(pages, "instructions.md"), "w") as f:
        f.write(INSTRUCTIONS)


INSTRUCTIONS = """# Your task

A computer program, **the model**, looks at a picture and decides whether it shows a **rabbit** or a **bird**. It is **often wrong**.

**Predict the model's answer, not which animal is really in the picture.** To do that, find out what the model pays attention to.

# How the study works

- **Practice.** A few example pictures with the answers of a model that is nearly always right, then 4 pictures to predict, with feedback.
- **Quiz.** Two questions about these instructions.
- **Two rounds.** Each round: 4 training pictures with the model's answers (and, depending on your group, an explanation of each answer), then 4 new pictures whose answer you predict: press **F** for Rabbit or **J** for Bird. The training pictures stay at the top of the screen.

# Explanations

Depending on your group, an explanation shows how the model came to its answer: parts of the picture it relied on, a training picture the answer resembles, a change that would flip the answer, or a short text. In one group the explanation is hidden until you press **Show explanation** (or the E key); look at it as often as you like.
"""

if __name__ == "__main__":
    main()
