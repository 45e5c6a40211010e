#!/usr/bin/env python3
"""Writes the small media files of the test bundles (PNG, JPEG, .npy).

Run from tests/data/bundles/ after changing it; the outputs are committed.
Standard library only.
"""
import os
import struct
import zlib


def png(path, w, h, gray=128):
    def chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = b"".join(b"\x00" + bytes([gray]) * w for _ in range(h))
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    write(path, data)


def jpeg_header(path, w, h):
    # SOI, an APP0 segment, SOF0 with the size, EOI: enough for a header reader.
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\x00"
    write(path, b"\xff\xd8" + app0 + sof + b"\xff\xd9")


def npy(path, shape, descr="<f4", fortran=False, data_items=None):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    n = 1
    for s in shape:
        n *= s
    if data_items is not None:
        n = data_items
    size = 4 if descr.endswith("4") else 8
    body = bytes(size * n)
    write(path, b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + body)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    v = "valid-all/media/"
    png(v + "cat.png", 8, 6)
    png(v + "cat-saliency.png", 8, 6, 200)
    jpeg_header(v + "dog.jpg", 16, 12)
    npy(v + "dog-ig.npy", (6, 8))          # half size, same aspect ratio
    npy(v + "cat-ig.npy", (6, 8))
    png(v + "page.png", 4, 4)
    m = "valid-meta/media/"
    for i in range(4):
        png(m + "img%d.png" % i, 10, 10, 40 * i)
    npy(m + "map.npy", (10, 10))
    npy(m + "small.npy", (5, 5))
    b = "bad-media/media/"
    png(b + "ok.png", 8, 6)
    with open(v + "cat.png", "rb") as f:
        write(b + "truncated.png", f.read()[:20])
    write(b + "notpng.png", b"this is a text file, not an image\n")
    npy(b + "wrong-shape.npy", (5, 5))
    npy(b + "wrong-dtype.npy", (6, 8), descr="<f8")
    npy(b + "three-d.npy", (2, 6, 8))
    npy(b + "fortran.npy", (6, 8), fortran=True)
    npy(b + "short.npy", (6, 8), data_items=10)
    p = "bad-paths/media/"
    png(p + "ok.png", 4, 4)
