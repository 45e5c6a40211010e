"""Writes the ground-truth fixtures of tests/data/metrics (relevance.npy, a
heatmap with ties; mask.png, its 32 x 32 region; tokens.txt, token weights
and a gold rationale) and the scores numpy computes for them
(relevance_goldens.txt), read by tests/test_stimuli_metrics.c. Only for
regenerating them: ctest never runs Python. Run from this folder:
    /usr/bin/python3 make_relevance.py   (Debian python3-numpy)
Seeded, so the same numpy rewrites the same files.
"""
import struct
import zlib

import numpy as np

TOP_SHARE = 0.2


def write_png(path, grey):
    """An 8-bit greyscale PNG of the 2-D uint8 array grey."""
    h, w = grey.shape
    raw = b"".join(b"\x00" + bytes(grey[y]) for y in range(h))

    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9))
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def expected_top_hits(rel, region, k):
    """Region cells among the k most relevant, ties broken at random (mean)."""
    if k <= 0:
        return 0.0
    t = np.sort(rel)[::-1][min(k, rel.size) - 1]
    above = rel > t
    at = rel == t
    p = np.where(above, 1.0, np.where(at, (k - above.sum()) / at.sum(), 0.0))
    return float((p * region).sum())


def scores(rel, inside):
    """mass_in_mask, rank_accuracy, pointing_game, iou_top20."""
    rel = rel.ravel().astype(np.float64)
    inside = inside.ravel().astype(np.float64)
    pos = np.clip(rel, 0, None)
    mass = (pos * inside).sum() / pos.sum() if pos.sum() > 0 else np.nan
    region = inside >= 0.5
    K = int(region.sum())
    if K == 0:
        return [mass, np.nan, np.nan, np.nan]
    rank = expected_top_hits(rel, region, K) / K
    top = rel == rel.max()
    pointing = (top & region).sum() / top.sum()
    k = int(np.ceil(TOP_SHARE * rel.size - 1e-9))
    inter = expected_top_hits(rel, region, k)
    return [mass, rank, pointing, inter / (k + K - inter)]


rng = np.random.default_rng(35)
# an 8 x 8 map over a 32 x 32 picture: values on a coarse grid, so ties
rel = np.round(rng.normal(0.2, 0.5, (8, 8)) * 4) / 4
rel[1, 2] = rel[5, 6] = rel.max()  # two maxima
rel = rel.astype(np.float32)
with open("relevance.npy", "wb") as f:
    np.save(f, rel)
yy, xx = np.mgrid[0:32, 0:32]
mask = ((yy - 12) ** 2 / 90 + (xx - 14) ** 2 / 60) <= 1  # an ellipse
write_png("mask.png", np.where(mask, 255, 0).astype(np.uint8))
# the pixel-level region laid on the map's cells: each cell's share inside
inside = mask.reshape(8, 4, 8, 4).mean(axis=(1, 3))
# the same for mass at pixel level: the map upsampled by nearest neighbour
up = np.kron(rel.astype(np.float64), np.ones((4, 4)))
mass_px = np.clip(up, 0, None)[mask].sum() / np.clip(up, 0, None).sum()

tokens = np.round(rng.normal(0, 1, 12), 2)
tokens[3] = tokens[7] = 1.5  # tied maxima, one in the rationale
rationale = [1, 3, 4, 9]
gold = np.zeros(12)
gold[rationale] = 1

with open("tokens.txt", "w") as f:
    f.write(" ".join("%.2f" % t for t in tokens) + "\n")
    f.write(" ".join(str(i) for i in rationale) + "\n")
with open("relevance_goldens.txt", "w") as f:
    f.write("heatmap %s\n" % " ".join("%.12g" % v for v in scores(rel, inside)))
    f.write("heatmap_mass_pixels %.12g\n" % mass_px)
    f.write("tokens %s\n" % " ".join("%.12g" % v for v in scores(tokens, gold)))
