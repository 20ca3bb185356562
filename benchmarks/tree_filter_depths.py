#!/usr/bin/env python3
"""The HTML-tree filter's claim on one page type: precision, recall and F1 of an
algorithm alone and behind the filter at every grouping depth (1 to 5).

Viveros-Jiménez et al. (2018) found that keeping only the paragraphs under the
ancestor holding the most selected text raises precision, best at depth 2.

    python benchmarks/tree_filter_depths.py ../shared/datasets/wcxb-dev
    python benchmarks/tree_filter_depths.py ../shared/datasets/wcxb-dev --base justext --type forum

Scores are the referee's per-page means (word-level bag-of-words P/R/F1).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thresher import extract
from thresher.algorithms.tree import MAX_DEPTH, MIN_DEPTH, Params
from thresher.evaluation import detect_kind, evaluate_pages, load


def runs(base: str) -> list[tuple[str, str, Params | None]]:
    """(row label, algorithm, params): the base alone, then the filter at each depth."""
    return [(base, base, None)] + [(f"{base}+tree, depth {d}", f"{base}+tree", Params(depth=d))
                                   for d in range(MIN_DEPTH, MAX_DEPTH + 1)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path, help="a WCXB-layout dataset directory")
    ap.add_argument("--base", default="boilerpipe-article", help="the algorithm the filter wraps")
    ap.add_argument("--type", default="article", help="the page type to score (WCXB's primary type)")
    args = ap.parse_args(argv)
    kind = detect_kind(args.dataset)
    if kind != "wcxb":
        ap.error(f"{args.dataset} is a {kind} dataset; page types need the WCXB layout")
    pages = [p for p in load(args.dataset) if p.gold.get("type") == args.type]
    print(f"{len(pages)} {args.type} pages of {args.dataset.name}\n")
    print("| run | P | R | F1 |\n|---|---|---|---|")
    for label, algorithm, params in runs(args.base):
        def run(html: bytes, url: str | None, algorithm=algorithm, params=params) -> str:
            return extract(html, url, algorithm=algorithm, params=params)
        scores = evaluate_pages(pages, kind, run).summary.scores
        print(f"| {label} | {scores.precision:.3f} | {scores.recall:.3f} | {scores.f1:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
