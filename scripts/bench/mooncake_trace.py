#!/usr/bin/env python3
"""Writes a mooncake trace shaped like the published ones, as the Go benchmark
BenchmarkMooncake100k does: input lengths log-uniform in [1024, 8192] tokens,
512-token hash blocks whose leading ones come from 2,000 shared prefix chains
(1-8 blocks, picked with a Zipf law of exponent 1.1), the rest fresh; output
lengths 50-500; Poisson arrivals at 100 requests/s.

Usage: mooncake_trace.py ROWS PATH
"""
import bisect
import itertools
import random
import sys


def main(rows: int, path: str) -> None:
    rng = random.Random(42)
    chains, nxt = [], 0
    for _ in range(2000):
        k = 1 + rng.randrange(8)
        chains.append(list(range(nxt, nxt + k)))
        nxt += k
    cum = list(itertools.accumulate((r + 1) ** -1.1 for r in range(len(chains))))
    ts = 0.0
    with open(path, "w") as f:
        for _ in range(rows):
            n = int(1024 * 8 ** rng.random())
            blocks = (n + 511) // 512
            chain = chains[bisect.bisect(cum, rng.random() * cum[-1])]
            shared = min(len(chain), blocks - 1)
            ids = chain[:shared] + list(range(nxt, nxt + blocks - shared))
            nxt += blocks - shared
            f.write('{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [%s]}\n'
                    % (int(ts), n, 50 + rng.randrange(451), ", ".join(map(str, ids))))
            ts += rng.expovariate(1) * 10


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
