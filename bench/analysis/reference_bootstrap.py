#!/usr/bin/env python3
"""Reference implementation for the analysis benchmark: a vectorised numpy
crossed (users x items) bootstrap of Change = Post - Pre per condition on a
long-format CSV (participant, condition, phase, item, correct), with raw
(pooled) Pre -- no random-effects fit, which only makes it cheaper.

usage: reference_bootstrap.py FILE.csv REPLICATES [BATCH]
Prints the load time, the bootstrap time (wall and process CPU) and seconds
per replicate.
"""
import csv
import sys
import time

import numpy as np


def load(path):
    users, items, conds = {}, {}, {}
    rows = []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        for r in reader:
            if r["phase"] not in ("pre", "post") or r["correct"] == "":
                continue
            c = conds.setdefault(r["condition"], len(conds))
            u = users.setdefault((r["participant"], c), len(users))
            j = items.setdefault(r["item"], len(items))
            rows.append((u, j, r["phase"] == "post", int(r["correct"])))
    arr = np.array(rows, dtype=np.int64)
    n_users, n_items = len(users), len(items)
    cond_of = np.zeros(n_users, dtype=np.int64)
    for (p, c), u in users.items():
        cond_of[u] = c
    pre = np.zeros((n_users, n_items))
    post = np.zeros((n_users, n_items))
    has_pre = np.zeros((n_users, n_items), dtype=bool)
    has_post = np.zeros((n_users, n_items), dtype=bool)
    ph = arr[:, 2] == 1
    pre[arr[~ph, 0], arr[~ph, 1]] = arr[~ph, 3]
    has_pre[arr[~ph, 0], arr[~ph, 1]] = True
    post[arr[ph, 0], arr[ph, 1]] = arr[ph, 3]
    has_post[arr[ph, 0], arr[ph, 1]] = True
    both = (has_pre & has_post).astype(float)  # items answered in both
    return pre * both, post * both, both, cond_of, len(conds)


def bootstrap(pre, post, both, cond_of, n_conds, B, batch, seed=1):
    n_users, n_items = pre.shape
    order = np.argsort(cond_of, kind="stable")
    sizes = np.bincount(cond_of, minlength=n_conds)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    # indicator matrix: condition x user
    G = np.zeros((n_conds, n_users))
    G[cond_of, np.arange(n_users)] = 1.0
    out = np.empty((B, n_conds))
    rng = np.random.default_rng(seed)
    for b0 in range(0, B, batch):
        bb = min(batch, B - b0)
        # users within condition: n_c draws from the n_c users of each c
        draws = []
        for c in range(n_conds):
            idx = rng.integers(0, sizes[c], size=(bb, sizes[c])) + offsets[c]
            draws.append(idx)
        idx = np.concatenate(draws, axis=1)  # bb x n_users (sorted order)
        flat = (idx + (np.arange(bb) * n_users)[:, None]).ravel()
        U = np.bincount(flat, minlength=bb * n_users).reshape(bb, n_users)
        Uo = np.empty_like(U)
        Uo[:, order] = U  # back to user numbering
        # items: |I| draws shared by all conditions
        jdx = rng.integers(0, n_items, size=(bb, n_items))
        jflat = (jdx + (np.arange(bb) * n_items)[:, None]).ravel()
        V = np.bincount(jflat, minlength=bb * n_items).reshape(bb, n_items)
        Vt = V.T.astype(float)
        s_pre = G @ (Uo.T * (pre @ Vt))
        s_post = G @ (Uo.T * (post @ Vt))
        n = G @ (Uo.T * (both @ Vt))
        out[b0:b0 + bb] = ((s_post - s_pre) / n).T
    return out


def main():
    path, B = sys.argv[1], int(sys.argv[2])
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    t0 = time.perf_counter()
    pre, post, both, cond_of, n_conds = load(path)
    t1 = time.perf_counter()
    c1 = time.process_time()
    reps = bootstrap(pre, post, both, cond_of, n_conds, B, batch)
    t2 = time.perf_counter()
    c2 = time.process_time()
    lo, hi = np.percentile(reps, [2.5, 97.5], axis=0)
    print(f"load_s {t1 - t0:.3f}")
    print(f"bootstrap_s {t2 - t1:.4f}")
    print(f"per_replicate_s {(t2 - t1) / B:.3e}")
    print(f"per_replicate_cpu_s {(c2 - c1) / B:.3e}")
    print(f"ci_condition0 {lo[0]:.4f} {hi[0]:.4f}")


if __name__ == "__main__":
    main()
