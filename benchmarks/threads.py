"""Threads against one thread: the same pages extracted by 1 and by N threads of one process.

The native core releases the GIL while it parses, walks the tree, computes the feature
columns, runs the models, filters the labels and writes the text, so threads overlap there;
the Python glue around those calls (decoding the bytes, the element columns, the head's JSON-LD,
the options and the result) still holds it. This script measures how much that buys::

    python benchmarks/threads.py ../shared/datasets/wcxb-dev --every 5 --threads 2
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import thresher
from thresher.evaluation import load


def run(pages: list[tuple[bytes, str | None]], threads: int, algorithm: str) -> float:
    """Seconds to extract every page once with ``threads`` threads."""
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda page: thresher.extract(page[0], page[1], algorithm=algorithm), pages))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--every", type=int, default=5, help="use every K-th page")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--algorithm", default="thresher")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of 1 and N threads")
    args = parser.parse_args(argv)
    pages = [(p.html, p.url) for i, p in enumerate(load(args.dataset)) if i % args.every == 0]
    thresher.preload(args.algorithm)
    run(pages[:20], 1, args.algorithm)  # warm-up
    for _ in range(args.rounds):
        one = run(pages, 1, args.algorithm)
        many = run(pages, args.threads, args.algorithm)
        print(f"{len(pages)} pages: 1 thread {len(pages) / one:.1f} pages/s, {args.threads} threads "
              f"{len(pages) / many:.1f} pages/s ({one / many:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
