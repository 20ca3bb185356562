"""Extract every HTML response of some WARC files on a Dask cluster, into JSON-lines files.

    python examples/warc_dask.py OUT_DIR FILE.warc.gz ...                 # a local cluster
    python examples/warc_dask.py OUT_DIR FILE.warc.gz ... --scheduler tcp://host:8786

One output file per WARC partition (``OUT_DIR/part-*.jsonl.gz``), one line per HTML
response: ``{record_id, url, ok, output}`` or ``{..., ok: false, error: {type, message}}``.
Needs ``pip install 'thresher[scale]'``. See docs/scale.md.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path


def run(warcs: list[str], out_dir: Path, client, output: str = "text") -> tuple[int, int]:
    """Extract ``warcs`` on ``client``'s cluster (one task per WARC); (pages ok, errors)."""
    from thresher.batch import to_dask_bag

    out_dir.mkdir(parents=True, exist_ok=True)
    bag = to_dask_bag(warcs, output=output, npartitions=len(warcs))
    written = bag.map(json.dumps).to_textfiles(str(out_dir / "part-*.jsonl.gz"), compute=False)
    client.compute(written, sync=True)
    ok = errors = 0
    for part in sorted(out_dir.glob("part-*.jsonl.gz")):
        for line in gzip.open(part, "rt", encoding="utf-8"):
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
    args = ap.parse_args(argv)
    from distributed import Client, LocalCluster

    if args.scheduler:
        with Client(args.scheduler) as client:
            ok, errors = run(args.warcs, args.out_dir, client, args.format)
    else:
        with LocalCluster(threads_per_worker=1) as cluster, Client(cluster) as client:
            ok, errors = run(args.warcs, args.out_dir, client, args.format)
    print(f"{ok} pages extracted, {errors} errors; outputs in {args.out_dir}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
