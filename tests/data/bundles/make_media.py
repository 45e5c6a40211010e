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


def jpeg_bytes(w, h):
    # A complete baseline greyscale JPEG of uniform mid-grey: every 8x8 block
    # has DC difference 0 and ends at once (EOB). One-symbol Huffman tables
    # (code "0") for both, so each block is the two bits "00".
    seg = lambda m, body: b"\xff" + bytes([m]) + struct.pack(">H", len(body) + 2) + body
    app0 = seg(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    dqt = seg(0xDB, b"\x00" + bytes([1] * 64))
    sof = seg(0xC0, struct.pack(">BHHB", 8, h, w, 1) + b"\x01\x11\x00")
    one = bytes([1] + [0] * 15) + b"\x00"  # one code of length 1: symbol 0
    dht = seg(0xC4, b"\x00" + one + b"\x10" + one)
    sos = seg(0xDA, b"\x01\x01\x00\x00\x3f\x00")
    blocks = ((w + 7) // 8) * ((h + 7) // 8)
    bits = "00" * blocks
    bits += "1" * (-len(bits) % 8)  # pad with ones
    data = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
    return b"\xff\xd8" + app0 + dqt + sof + dht + sos + data + b"\xff\xd9"


def jpeg(path, w, h):
    write(path, jpeg_bytes(w, h))


def png_huge_header(path, w, h):
    # A valid signature and IHDR claiming w x h pixels, one empty IDAT.
    def chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    write(path, b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
          + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def png_short_data(path, w, h):
    # Every chunk well formed (lengths, CRCs), but the compressed pixel data
    # stops halfway: the header is fine, the image cannot be decoded.
    def chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = b"".join(b"\x00" + bytes((x * 7 + y * 13) % 256 for x in range(w)) for y in range(h))
    z = zlib.compress(raw)
    write(path, b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
          + chunk(b"IDAT", z[:len(z) // 2]) + chunk(b"IEND", b""))


def npy(path, shape, descr="<f4", fortran=False, data_items=None, nan_at=None):
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
    body = bytearray(size * n)
    if nan_at is not None:
        body[4 * nan_at:4 * nan_at + 4] = struct.pack("<f", float("nan"))
    write(path, b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + bytes(body))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    v = "valid-all/media/"
    png(v + "cat.png", 8, 6)
    png(v + "cat-saliency.png", 8, 6, 200)
    jpeg(v + "dog.jpg", 16, 12)
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
    png_short_data(b + "short-data.png", 8, 6)
    png_huge_header(b + "huge.png", 100000, 100000)
    j = jpeg_bytes(64, 48)
    write(b + "corrupt.jpg", j[:len(j) - 11])  # scan data cut short, no EOI
    npy(b + "nan.npy", (6, 8), nan_at=2 * 8 + 3)
    npy(b + "long.npy", (6, 8), data_items=6 * 8 + 4)
    p = "bad-paths/media/"
    png(p + "ok.png", 4, 4)
