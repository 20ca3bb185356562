"""Pages per core-second of one algorithm: CPU time of the extraction calls alone, one process,
one BLAS thread. CPU time, unlike wall time, barely moves when other processes share the
machine, so it projects to core-hours on a cluster.

    OPENBLAS_NUM_THREADS=1 python benchmarks/core_rate.py ../shared/datasets/wcxb-dev [--every K]
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import sys
import time
from pathlib import Path

import thresher

BILLION = 1_000_000_000


def pages(root: Path, every: int) -> list[bytes]:
    files = sorted((root / "html").glob("*.html*"))[::every]
    return [gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes() for f in files]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--algorithm", default="thresher")
    ap.add_argument("--every", type=int, default=1)
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    htmls = pages(args.dataset, args.every)
    thresher.preload(args.algorithm)
    cpu = wall = 0.0
    with threadpool_limits(1):
        for html in htmls:
            c0, w0 = time.process_time(), time.perf_counter()
            with contextlib.suppress(thresher.InputError):
                thresher.extract(html, algorithm=args.algorithm)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
    rate = len(htmls) / cpu
    print(f"{args.algorithm}: {len(htmls)} pages, {cpu:.1f} CPU s ({wall:.1f} s wall): {rate:.1f} pages per "
          f"core-second, {BILLION / rate / 3600:,.0f} core-hours per billion pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
