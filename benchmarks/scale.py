"""Throughput and memory of the engines docs/scale.md describes, on one machine.

Writes a labelled dataset's pages (wcxb-dev by default) into WARC files, then extracts them
with each engine and prints, per run, the pages, the wall-clock seconds from start to the last
result (start-up included: starting workers and loading models is part of a job), pages/s, the
CPU seconds of every process of the run (this one's included) and pages per CPU-second, and
the peak resident memory of each worker process (the run's largest processes, sampled every
50 ms with psutil)::

    python benchmarks/scale.py ../shared/datasets/wcxb-dev --every 2

Runs:
- ``cli-jobs1``, ``cli-jobs2``: ``thresher extract --warc`` with ``--jobs 1`` / ``--jobs 2`` (the
  batch process pool), one WARC file at a time;
- ``dask-2x1``: a ``LocalCluster`` of 2 worker processes with 1 thread each (the recommended
  layout), ``dask-1x1`` and ``dask-1x2``: 1 worker process with 1 and 2 threads;
- ``datatrove-2``: ``WarcReader → ThresherExtractor → JsonlWriter`` under
  ``LocalPipelineExecutor(tasks=N files, workers=2)``.

Needs ``thresher[scale,datatrove]`` and psutil (which distributed brings). The load average
before and after each run is printed: on a shared machine, read the figures with it.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from thresher.evaluation import load


def write_warcs(dataset: Path, every: int, files: int, out: Path) -> tuple[list[Path], int]:
    """The dataset's every ``every``-th page as HTML responses, dealt over ``files`` WARC files."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    pages = [p for i, p in enumerate(load(dataset)) if i % every == 0]
    paths = [out / f"part{n}.warc.gz" for n in range(files)]
    handles = [path.open("wb") for path in paths]
    writers = [WARCWriter(handle, gzip=True) for handle in handles]
    for n, page in enumerate(pages):
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        writer = writers[n % files]
        writer.write_record(writer.create_warc_record(
            page.url or f"https://bench.example/{page.id}", "response", payload=io.BytesIO(page.html),
            http_headers=headers, warc_headers_dict={"WARC-Identified-Payload-Type": "text/html"}))
    for handle in handles:
        handle.close()
    return paths, len(pages)


class Sampler:
    """Samples this process's descendants until stopped: per pid, the peak resident memory and
    the last CPU time seen (user + system; a process's last 50 ms can be missed)."""

    def __init__(self, interval: float = 0.05):
        self.interval, self._stop = interval, threading.Event()
        self.peaks: dict[int, int] = {}
        self.cpu: dict[int, float] = {}
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            for proc in me.children(recursive=True):
                try:
                    rss, times = proc.memory_info().rss, proc.cpu_times()
                except psutil.Error:
                    continue
                self.peaks[proc.pid] = max(self.peaks.get(proc.pid, 0), rss)
                self.cpu[proc.pid] = times.user + times.system
            self._stop.wait(self.interval)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def cli(jobs: int) -> Callable[[list[Path], Path], int]:
    def run(warcs: list[Path], out: Path) -> int:
        ok = 0
        for n, warc in enumerate(warcs):
            target = out / f"cli-{n}.jsonl"
            subprocess.run([sys.executable, "-m", "thresher", "extract", "--warc", str(warc), "-o", str(target),
                            "--jobs", str(jobs)], check=False, capture_output=True)
            ok += sum(json.loads(line)["ok"] for line in target.read_text(encoding="utf-8").splitlines())
        return ok
    return run


def dask(workers: int, threads: int) -> Callable[[list[Path], Path], int]:
    def run(warcs: list[Path], out: Path) -> int:
        from distributed import Client, LocalCluster

        from thresher.batch import to_dask_bag
        from thresher.batch.cluster import PreloadModels

        with LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.register_plugin(PreloadModels())
            results = client.compute(to_dask_bag([str(w) for w in warcs], npartitions=len(warcs))).result()
        return sum(r["ok"] for r in results)
    return run


def datatrove(workers: int) -> Callable[[list[Path], Path], int]:
    def run(warcs: list[Path], out: Path) -> int:
        from datatrove.executor import LocalPipelineExecutor
        from datatrove.pipeline.readers import WarcReader
        from datatrove.pipeline.writers import JsonlWriter

        from thresher.integrations.datatrove import ThresherExtractor

        LocalPipelineExecutor(pipeline=[WarcReader(str(warcs[0].parent), glob_pattern="*.warc.gz"),
                                        ThresherExtractor(), JsonlWriter(str(out / "datatrove"))],
                              tasks=len(warcs), workers=workers, logging_dir=str(out / "dt-logs")).run()
        return sum(len(gzip.decompress(path.read_bytes()).splitlines())
                   for path in (out / "datatrove").glob("*.jsonl.gz"))
    return run


# name: (run, its worker processes)
RUNS: dict[str, tuple[Callable[[list[Path], Path], int], int]] = {
    "cli-jobs1": (cli(1), 1), "cli-jobs2": (cli(2), 2),
    "dask-2x1": (dask(2, 1), 2), "dask-1x1": (dask(1, 1), 1), "dask-1x2": (dask(1, 2), 1),
    "datatrove-2": (datatrove(2), 2),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--every", type=int, default=2, help="use every K-th page")
    parser.add_argument("--files", type=int, default=4, help="WARC files the pages are dealt over")
    parser.add_argument("--runs", nargs="+", default=list(RUNS), choices=list(RUNS))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        warcs, pages = write_warcs(args.dataset, args.every, args.files, Path(tmp))
        print(f"{pages} pages in {len(warcs)} WARC files; {os.cpu_count()} CPUs", flush=True)
        for name in args.runs:
            out = Path(tmp) / name
            out.mkdir()
            load_before = os.getloadavg()[0]
            own_cpu = sum(psutil.Process().cpu_times()[:2])
            with Sampler() as sampled:
                start = time.perf_counter()
                run, workers = RUNS[name]
                ok = run(warcs, out)
                seconds = time.perf_counter() - start
            cpu = sum(sampled.cpu.values()) + sum(psutil.Process().cpu_times()[:2]) - own_cpu
            # the workers are the largest processes: they hold the models and the pages
            peaks = sorted(sampled.peaks.values(), reverse=True)[:workers]
            print(json.dumps({
                "run": name, "pages_ok": ok, "seconds": round(seconds, 1), "pages_per_s": round(ok / seconds, 1),
                "cpu_seconds": round(cpu, 1), "pages_per_cpu_s": round(ok / cpu, 1),
                "worker_peak_rss_mb": [round(peak / 2 ** 20) for peak in peaks],
                "load": [round(load_before, 1), round(os.getloadavg()[0], 1)]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
