"""Extract every HTML response of some WARC files on a Dask cluster, into JSON-lines files.

    python examples/warc_dask.py OUT_DIR FILE.warc.gz ...                 # a local cluster
    python examples/warc_dask.py OUT_DIR FILE.warc.gz ... --scheduler tcp://host:8786

One output file per WARC partition (``OUT_DIR/part-*.jsonl.gz``), one line per HTML
response: ``{record_id, url, ok, output}`` or ``{..., ok: false, error: {type, message}}``.
The local cluster has one single-threaded worker process per core. Each worker loads the
models once (the ``PreloadModels`` worker plugin) and extracts in its own process, each page
within ``--timeout`` seconds. Needs ``pip install 'thresher[scale]'``. See docs/scale.md.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path


def run(warcs: list[str], out_dir: Path, client, output: str = "text", timeout: float | None = 60.0,
        algorithm: str | None = None) -> tuple[int, int]:
    """Extract ``warcs`` on ``client``'s cluster (one task per WARC); (pages ok, errors)."""
    from thresher.algorithms import DEFAULT
    from thresher.batch import to_dask_bag
    from thresher.batch.cluster import PreloadModels

    algorithm = algorithm or DEFAULT
    client.register_plugin(PreloadModels(algorithm))
    out_dir.mkdir(parents=True, exist_ok=True)
    bag = to_dask_bag(warcs, algorithm=algorithm, output=output, npartitions=len(warcs), timeout=timeout)
    written = bag.map(json.dumps).to_textfiles(str(out_dir / "part-*.jsonl.gz"), compute=False)
    client.compute(written, sync=True)
    ok = errors = 0
    for part in sorted(out_dir.glob("part-*.jsonl.gz")):
        with gzip.open(part, "rt", encoding="utf-8") as lines:
            for line in lines:
                if json.loads(line)["ok"]:
                    ok += 1
                else:
                    errors += 1
    return ok, errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("warcs", nargs="+")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    ap.add_argument("--format", default="text", choices=("text", "markdown", "html", "json"))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="local cluster: worker processes")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per page (default: 60; 0: no budget)")
    args = ap.parse_args(argv)
    from distributed import Client, LocalCluster

    if args.scheduler:
        with Client(args.scheduler) as client:
            ok, errors = run(args.warcs, args.out_dir, client, args.format, args.timeout or None)
    else:
        with LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            ok, errors = run(args.warcs, args.out_dir, client, args.format, args.timeout or None)
    print(f"{ok} pages extracted, {errors} errors; outputs in {args.out_dir}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":  # the workers are started with "spawn": they import this file again
    sys.exit(main())
