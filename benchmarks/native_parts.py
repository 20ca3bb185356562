"""The native parts of the flagship, page by page: the parse and walk (``build_document``) and the
one-call scoring (``Page.score``), timed apart from the rest of the extraction.

Run it under ``valgrind --tool=callgrind`` for instruction counts (repeatable on a shared machine;
``callgrind_annotate --inclusive=yes`` then names ``thresher_core::learned::LearnedModel::score``,
``thresher_core::parse::parse`` and ``thresher_core::document::build``), or alone for wall clock::

    python benchmarks/native_parts.py /path/to/wcxb-dev --every 15
    valgrind --tool=callgrind python benchmarks/native_parts.py /path/to/wcxb-dev --every 15 --repeat 1

``--dump FILE`` writes, per page, a digest of every step's scores and of the labels, to compare two
builds of the core exactly (``diff`` the files)."""
from __future__ import annotations

import argparse
import gzip
import hashlib
import sys
import time
from pathlib import Path

import numpy as np


def _pages(dataset: Path, every: int, limit: int | None) -> list[tuple[str, bytes]]:
    html = dataset / "html"
    files = sorted(html.glob("*.html.gz")) or sorted(html.glob("*.html"))
    files = files[::every][:limit]
    return [(f.name, gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()) for f in files]


def _digest(*arrays: object) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(b"-" if a is None else np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="a dataset folder holding html/*.html.gz")
    parser.add_argument("--every", type=int, default=1, help="take every Nth page")
    parser.add_argument("--limit", type=int, help="at most this many pages")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes (the best is reported)")
    parser.add_argument("--dump", type=Path, help="write each page's score and label digests here")
    args = parser.parse_args(argv)

    import thresher
    from thresher.algorithms import flagship
    from thresher.algorithms.base import Context
    from thresher.document.blocks import document_of
    from thresher.document.decode import decode
    from thresher.document.language import page_language
    from thresher.errors import InputError

    thresher.preload()
    pages = []
    for name, raw in _pages(args.dataset, args.every, args.limit):
        decoded = decode(raw)
        try:
            doc = document_of(decoded)
        except InputError:
            continue
        pages.append((name, decoded, Context(language=page_language(doc), explain=False)))
    dump = []
    best_build = best_score = float("inf")
    for _ in range(max(args.repeat, 1)):
        build_s = score_s = 0.0
        for name, decoded, context in pages:
            t0 = time.perf_counter()
            doc = document_of(decoded)
            t1 = time.perf_counter()
            scores = flagship.scores(doc, context)
            t2 = time.perf_counter()
            build_s += t1 - t0
            score_s += t2 - t1
            if args.dump and len(dump) < len(pages):  # the first pass
                s = scores.stages
                dump.append(f"{name} {len(doc.blocks)} {_digest(np.array(scores.labels))} "
                            f"{_digest(s.own, s.context, s.guarded, s.network, s.final)} {scores.cut!r}")
        best_build, best_score = min(best_build, build_s), min(best_score, score_s)
    n = max(len(pages), 1)
    print(f"{len(pages)} pages; per page, best of {args.repeat}: build_document {best_build / n * 1e3:.3f} ms, "
          f"flagship scores {best_score / n * 1e3:.3f} ms")
    if args.dump:
        args.dump.write_text("\n".join(dump) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
