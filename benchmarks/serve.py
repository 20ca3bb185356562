"""``thresher serve`` under load: requests/s, p50/p99 latency and the server's RSS.

Starts ``thresher serve`` in a subprocess on 127.0.0.1 (never another address), then for each
concurrency level sends ``--requests`` raw-HTML ``POST /extract?output=markdown`` requests, the
dataset's pages in turn (cycled when there are fewer pages than requests), from that many
concurrent clients. The server's RSS (``/proc/PID/status``) is sampled every 0.2 s. Bounded:
each level stops after ``--requests`` requests or ``--max-seconds``, whichever comes first::

    python benchmarks/serve.py ../shared/datasets/wcxb-dev --requests 2000 --concurrency 1 4 16

Every request must get 200: the server is started with ``--max-concurrency`` at least the
highest level, so no request is refused as busy. The client runs on the same machine and takes
its share of the CPU: the figures are for the pair, not for the server alone.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import httpx

from thresher.evaluation import load

HOST = "127.0.0.1"  # loopback only, by design


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class RssSampler:
    """The server's RSS every ``interval`` seconds, in a thread, until stopped."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self.pid, self.interval, self.samples = pid, interval, [rss_mb(pid)]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.samples.append(rss_mb(self.pid))

    def stop(self) -> list[float]:
        self._stop.set()
        self._thread.join()
        self.samples.append(rss_mb(self.pid))
        return self.samples


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def level(base: str, pages: list[tuple[bytes, str | None]], requests: int, concurrency: int,
                max_seconds: float, pid: int) -> dict[str, object]:
    """Send ``requests`` requests from ``concurrency`` clients; latencies, failures, and the
    server's RSS after each tenth of the requests."""
    work = itertools.islice(itertools.cycle(pages), requests)
    step = max(1, requests // 10)
    trace: list[float] = []
    latencies: list[float] = []
    failures: list[str] = []
    deadline = time.monotonic() + max_seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        async def worker() -> None:
            for html, url in work:
                if time.monotonic() > deadline:
                    return
                target = "/extract?output=markdown" + (f"&url={quote(url, safe='')}" if url else "")
                start = time.perf_counter()
                try:
                    response = await client.post(target, content=html)
                    ok = response.status_code == 200
                    detail = f"{response.status_code} {response.text[:200]}"
                except httpx.HTTPError as exc:
                    ok, detail = False, f"{type(exc).__name__}: {exc}"
                latencies.append(time.perf_counter() - start)
                if len(latencies) % step == 0:
                    trace.append(round(rss_mb(pid)))
                if not ok:
                    failures.append(detail)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    return {"concurrency": concurrency, "requests": len(latencies), "errors": len(failures),
            "first_errors": failures[:3], "seconds": elapsed, "rps": len(latencies) / elapsed,
            "p50_ms": 1000 * statistics.median(latencies), "p99_ms": 1000 * percentile(latencies, 0.99),
            "rss_trace_mb": trace}


def first_errors(result: dict[str, object]) -> list[str]:
    errors = result["first_errors"]
    return [str(e) for e in errors] if isinstance(errors, list) else []


def wait_healthy(base: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}")
        try:
            if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise SystemExit("the server did not become healthy")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--requests", type=int, default=2000, help="requests per concurrency level (default: 2000)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--threads", type=int, default=0, help="the server's extraction threads (0: one per CPU)")
    parser.add_argument("--max-seconds", type=float, default=600, help="time cap per level (default: 600)")
    parser.add_argument("--warmup", type=int, default=50, help="untimed requests first (default: 50)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    pages = [(page.html, page.url) for page in load(args.dataset)]
    port = free_port()
    base = f"http://{HOST}:{port}"
    command = [sys.executable, "-m", "thresher", "serve", "--host", HOST, "--port", str(port),
               "--threads", str(args.threads), "--max-concurrency", str(max(args.concurrency) * 2),
               "--log-level", "warning"]
    process = subprocess.Popen(command)
    try:
        wait_healthy(base, process)
        asyncio.run(level(base, pages, args.warmup, 1, args.max_seconds, process.pid))
        results, rss_start = [], rss_mb(process.pid)
        for concurrency in args.concurrency:
            sampler = RssSampler(process.pid)
            result = asyncio.run(level(base, pages, args.requests, concurrency, args.max_seconds, process.pid))
            samples = sampler.stop()
            result.update(rss_start_mb=samples[0], rss_end_mb=samples[-1], rss_max_mb=max(samples))
            results.append(result)
            print(f"concurrency {concurrency:>2}: {result['requests']} requests in {result['seconds']:.1f} s, "
                  f"{result['rps']:.1f} req/s, p50 {result['p50_ms']:.0f} ms, p99 {result['p99_ms']:.0f} ms, "
                  f"errors {result['errors']}, RSS {samples[0]:.0f} -> {samples[-1]:.0f} MB "
                  f"(max {max(samples):.0f})", flush=True)
            print(f"  RSS after each tenth of the requests (MB): {result['rss_trace_mb']}", flush=True)
            for failure in first_errors(result):
                print(f"  error: {failure}", flush=True)
        threads = httpx.get(f"{base}/health", timeout=5).json()["threads"]
    finally:
        process.terminate()
        process.wait(30)
    print(f"{len(pages)} distinct pages, server threads {threads}; RSS after warm-up {rss_start:.0f} MB, "
          f"at the end {results[-1]['rss_end_mb']:.0f} MB")
    if args.json:
        args.json.write_text(json.dumps({"pages": len(pages), "threads": threads, "rss_after_warmup_mb": rss_start,
                                         "levels": results}, indent=2) + "\n")
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
