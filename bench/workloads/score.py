#!/usr/bin/env python3
"""Scores profiles against the truth for bench/accuracy.sh and prints one table row per tool.

score.py TRUTH LABEL PROFILE...
TRUTH: lines "FUNCTION INSTRUCTIONS" (callgrind's counts): the functions whose split is measured.
PROFILE: tool_profile's output for one repetition ("total N", then "FUNCTION SAMPLES ERROR").
Shares are taken among the truth's functions only (start-up code, libc and the kernel left out),
for the truth and for every tool alike. A tool's error is its stated standard error (ppe's, in
points of its in-range samples, rescaled to these functions' share) or else the binomial
sqrt(p(1-p)/n) of the share it measured; a function a tool never sampled gets the error of one
sample, so that a miss is not an infinite deviation."""
import math
import sys


def read_truth(path):
    truth = {}
    for line in open(path):
        name, ir = line.split()
        truth[name] = truth.get(name, 0) + float(ir)
    total = sum(truth.values())
    return {name: ir / total for name, ir in truth.items()}


def read_profile(path, truth):
    hits, stated, total = {}, {}, 0.0
    for line in open(path):
        f = line.split()
        if f[0] == "total":
            total = float(f[1])
        elif f[0] in truth and len(f) >= 3:
            hits[f[0]] = hits.get(f[0], 0) + float(f[1])
            if f[2] != "-":
                stated[f[0]] = float(f[2]) / 100
    return hits, stated, total


def score(truth, path):
    """(largest deviation in points, largest deviation in errors, rows within 2 errors, rows, n)"""
    hits, stated, total = read_profile(path, truth)
    n = sum(hits.values())
    if n == 0:
        return None
    # ppe's percentages are of all its in-range samples; ours of the measured functions' samples.
    in_range_share = n / total if total else 1
    worst_pp = worst_z = 0.0
    within = 0
    for name, p_true in truth.items():
        p = hits.get(name, 0) / n
        if name in stated:
            err = stated[name] / in_range_share
        else:
            q = max(p, 1 / n)
            err = math.sqrt(q * (1 - q) / n)
        dev = abs(p - p_true)
        worst_pp = max(worst_pp, 100 * dev)
        worst_z = max(worst_z, dev / err if err > 0 else math.inf)
        within += dev <= 2 * err
    return worst_pp, worst_z, within, len(truth), total


def main():
    truth = read_truth(sys.argv[1])
    label = sys.argv[2]
    scores = [s for s in (score(truth, p) for p in sys.argv[3:]) if s]
    if not scores:
        print(f"{label:<34} {'(no samples in the measured functions)':>40}")
        return
    worst_pp = max(s[0] for s in scores)
    worst_z = max(s[1] for s in scores)
    within = sum(s[2] for s in scores) / sum(s[3] for s in scores)
    samples = sum(s[4] for s in scores) / len(scores)
    print(f"{label:<34} {samples:>8.0f} {worst_pp:>9.2f} {worst_z:>9.1f} {100 * within:>7.0f}% {len(scores):>5}")


if __name__ == "__main__":
    main()
