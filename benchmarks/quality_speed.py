#!/usr/bin/env python3
"""Quality and speed of thresher's algorithms and of peer libraries, side by side.

Every extractor runs in a worker process of its own, as the referee runs one
extractor per process, over the same pages in the same order, interleaved in
chunks of pages (``--chunk``) so that a machine whose speed drifts during the
run treats them alike. Only one worker extracts at a time: each times its own
calls, and this process scores them with :mod:`thresher.evaluation` (the
referee's metrics and its speed measure: pages / summed extraction time).
``--one-process`` runs every extractor in this process instead; there each
one's calls also pay for the others' heaps (the garbage collector walks them,
and caches are shared), unevenly: see benchmarks/README.md.
Before the timed pass each extractor extracts the first chunk of pages once,
untimed, so that one-off imports and lazy loading are not charged to it (trafilatura
loads a resource on wcxb-dev's 10th page, 0.13 s), and thresher's algorithms are
preloaded (:func:`thresher.preload`: their models, and py3langid's, which takes
0.5 s and is otherwise read on the first page whose language is not plainly
English: wcxb-dev's 52nd).

    python benchmarks/quality_speed.py                       # defaults: see --help
    python benchmarks/quality_speed.py --datasets ../shared/datasets/wcxb-dev --every 5
    python benchmarks/quality_speed.py --algorithms justext,declutter --peers none --out bench.json

Peers (``pip install -e .[peers]``), each used as its documentation shows:

- ``trafilatura``: ``trafilatura.extract(html, url=url)``;
- ``justext``: the jusText package with its English stop list, non-boilerplate
  paragraphs joined by blank lines;
- ``boilerpy3``: ``ArticleExtractor().get_content(text)`` (the page decoded
  with thresher's decoder first; that time is charged to boilerpy3);
- ``readability``: readability-lxml ``Document(html).summary()``, the summary's
  markup reduced to text as the referee reduces ``expected.html``;
- ``resiliparse``: ``extract_plain_text(HTMLTree.parse_from_bytes(html, detect_encoding(html)),
  main_content=True)``, its documented main-content extraction.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import multiprocessing
import platform
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from importlib import metadata
from pathlib import Path

from thresher import preload
from thresher.algorithms import names as algorithm_names
from thresher.evaluation import (
    EvaluationResult,
    Page,
    ThresherExtractor,
    detect_kind,
    error_text,
    html_to_text,
    load,
    page_row,
    select,
    summarize,
    timed_call,
)

Extractor = Callable[[bytes, "str | None"], str]
DEFAULT_ALGORITHMS = ("thresher", "justext", "declutter", "boilerpipe-article")
PEERS = ("trafilatura", "resiliparse", "justext", "boilerpy3", "readability")
_PEER_DISTRIBUTIONS = {"trafilatura": "trafilatura", "justext": "jusText", "boilerpy3": "boilerpy3",
                       "readability": "readability-lxml", "resiliparse": "Resiliparse"}
SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DEFAULT_DATASETS = (SHARED / "wcxb-dev", SHARED / "readability")


@dataclass(frozen=True)
class Contender:
    label: str  # "thresher:NAME" or "peer:NAME"
    make: Callable[[], Extractor]  # builds the extractor; picklable, to be sent to a worker process


# -------------------------------------------------------------------- peers

def _trafilatura() -> Extractor:
    import trafilatura

    def extract(html: bytes, url: str | None) -> str:
        return trafilatura.extract(html, url=url) or ""

    return extract


def _justext() -> Extractor:
    import justext

    stoplist = justext.get_stoplist("English")

    def extract(html: bytes, url: str | None) -> str:
        paragraphs = justext.justext(html, stoplist)
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return extract


def _boilerpy3() -> Extractor:
    from boilerpy3 import extractors

    from thresher.document.decode import decode

    article = extractors.ArticleExtractor()

    def extract(html: bytes, url: str | None) -> str:
        return article.get_content(decode(html).text)

    return extract


def _readability() -> Extractor:
    from readability import Document

    def extract(html: bytes, url: str | None) -> str:
        return html_to_text(Document(html, url=url).summary())

    return extract


def _resiliparse() -> Extractor:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    def extract(html: bytes, url: str | None) -> str:
        return extract_plain_text(HTMLTree.parse_from_bytes(html, detect_encoding(html)), main_content=True)

    return extract


_PEER_FACTORIES: dict[str, Callable[[], Extractor]] = {
    "trafilatura": _trafilatura, "justext": _justext, "boilerpy3": _boilerpy3, "readability": _readability,
    "resiliparse": _resiliparse}


def peer(name: str) -> Contender | None:
    """The peer's extractor, or None when its package is not installed."""
    try:
        _PEER_FACTORIES[name]()  # imports the package
        return Contender(f"peer:{name}", _PEER_FACTORIES[name])
    except ImportError as exc:
        print(f"skipping peer {name}: {exc}", file=sys.stderr)
        return None


def peer_version(name: str) -> str | None:
    try:
        return metadata.version(_PEER_DISTRIBUTIONS[name])
    except metadata.PackageNotFoundError:
        return None


def _thresher(name: str, preloaded: bool) -> Extractor:
    """The algorithm ``name`` as the evaluation runs it; with ``preloaded``, its models loaded
    first (:func:`thresher.preload`)."""
    if preloaded:
        preload(name)
    return ThresherExtractor(name)


def contenders(algorithms: list[str], peers: list[str], preloaded: bool = True) -> list[Contender]:
    known = set(algorithm_names())
    chosen = []
    for name in algorithms:
        if name in known:
            chosen.append(Contender(f"thresher:{name}", partial(_thresher, name, preloaded)))
        else:
            print(f"skipping algorithm {name}: not registered", file=sys.stderr)
    chosen.extend(c for c in map(peer, peers) if c is not None)
    return chosen


# -------------------------------------------------------------------- run

def warm_up(extract: Extractor, jobs: list[tuple[bytes, str | None]]) -> None:
    for html, url in jobs:
        with contextlib.suppress(Exception):  # the timed pass records failures
            extract(html, url)


Call = tuple[str, float, "str | None"]  # (extraction, seconds, error text)


def timed_calls(extract: Extractor, jobs: list[tuple[bytes, str | None]]) -> list[Call]:
    calls = []
    for html, url in jobs:
        pred, seconds, exc = timed_call(extract, html, url)
        calls.append((pred, seconds, error_text(exc)))
    return calls


class InProcess:
    """A contender run in this process."""

    def __init__(self, make: Callable[[], Extractor]):
        self._extract = make()

    def warm_up(self, jobs: list[tuple[bytes, str | None]]) -> None:
        warm_up(self._extract, jobs)

    def calls(self, jobs: list[tuple[bytes, str | None]]) -> list[Call]:
        return timed_calls(self._extract, jobs)

    def close(self) -> None:
        pass


# A worker process's extractor, built once by its initializer (:func:`_start_worker`).
_WORKER_EXTRACTOR: list[Extractor] = []


def _start_worker(make: Callable[[], Extractor]) -> None:
    logging.disable(logging.WARNING)
    _WORKER_EXTRACTOR.append(make())


def _worker_warm_up(jobs: list[tuple[bytes, str | None]]) -> None:
    warm_up(_WORKER_EXTRACTOR[0], jobs)


def _worker_calls(jobs: list[tuple[bytes, str | None]]) -> list[Call]:
    return timed_calls(_WORKER_EXTRACTOR[0], jobs)


class Isolated:
    """A contender run in a worker process of its own (started fresh, not forked), which times
    its calls itself: sending the pages there and the texts back is not charged to it."""

    def __init__(self, make: Callable[[], Extractor]):
        self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_start_worker, initargs=(make,))

    def warm_up(self, jobs: list[tuple[bytes, str | None]]) -> None:
        self._pool.submit(_worker_warm_up, jobs).result()

    def calls(self, jobs: list[tuple[bytes, str | None]]) -> list[Call]:
        return self._pool.submit(_worker_calls, jobs).result()

    def close(self) -> None:
        self._pool.shutdown()


# Pages of each dataset extracted untimed before the timed pass (at most one chunk).
WARM_PAGES = 25


def run(datasets: list[Path], chosen: list[Contender], every: int, limit: int | None,
        warm: bool = True, chunk: int = 25, isolate: bool = True) -> list[tuple[str, str, EvaluationResult]]:
    """Every contender over every page, interleaved: the pages go in chunks of ``chunk`` and
    each contender takes its turn on a chunk before the next chunk starts, so that a machine
    whose speed drifts during a long run (other tenants, clocks) treats every contender alike.
    ``chunk=0`` runs each contender over all pages in one go instead. With ``isolate`` each
    contender runs in a process of its own (:class:`Isolated`), else all in this one."""
    runners = [(c.label, (Isolated if isolate else InProcess)(c.make)) for c in chosen]
    try:
        return [result for root in datasets for result in _run_dataset(root, runners, every, limit, warm, chunk)]
    finally:
        for _, runner in runners:
            runner.close()


def _run_dataset(root: Path, runners: list, every: int, limit: int | None, warm: bool,
                 chunk: int) -> list[tuple[str, str, EvaluationResult]]:
    kind = detect_kind(root)
    pages = list(select(load(root), every, limit))
    print(f"{root.name} [{kind}]: {len(pages)} pages", file=sys.stderr)
    step = chunk or max(1, len(pages))
    if warm and pages:
        for _, runner in runners:
            runner.warm_up([(page.html, page.url) for page in pages[:min(step, WARM_PAGES)]])
    rows: dict[str, list] = {label: [] for label, _ in runners}
    for start in range(0, len(pages), step):
        part: list[Page] = pages[start:start + step]
        for label, runner in runners:
            calls = runner.calls([(page.html, page.url) for page in part])
            rows[label] += [page_row(page, kind, *call) for page, call in zip(part, calls)]
    results = []
    for label, _ in runners:
        result = summarize(rows[label], kind, root.name)
        print(f"  {label:<28} {result.lines()[0]}", file=sys.stderr)
        results.append((label, root.name, result))
    return results


def _cell(result: EvaluationResult | None) -> str:
    if result is None:
        return f"{'-':>6} {'-':>8}"
    speed = result.summary.pages_per_s
    return f"{result.summary.f1:6.3f} {speed:8.1f}" if speed else f"{result.summary.f1:6.3f} {'-':>8}"


def table(results: list[tuple[str, str, EvaluationResult]]) -> str:
    """Extractors down, datasets across, F1 and pages/s in each cell."""
    labels = list(dict.fromkeys(label for label, _, _ in results))
    datasets = list(dict.fromkeys(name for _, name, _ in results))
    by_key = {(label, name): result for label, name, result in results}
    width = max([len(label) for label in labels] + [9])
    head1 = f"{'extractor':<{width}}" + "".join(f"  {name[:15]:^15}" for name in datasets)
    head2 = f"{'':<{width}}" + "".join(f"  {'F1':>6} {'pages/s':>8}" for _ in datasets)
    rows = [f"{label:<{width}}" + "".join(f"  {_cell(by_key.get((label, name)))}" for name in datasets)
            for label in labels]
    return "\n".join([head1, head2, *rows])


def to_json(results, args, datasets: list[Path]) -> dict:
    return {
        "settings": {"every": args.every, "limit": args.limit, "warm_up": not args.no_warmup,
                     "chunk": args.chunk, "one_process": args.one_process},
        "environment": {"python": platform.python_version(), "machine": platform.machine(),
                        "peers": {name: peer_version(name) for name in PEERS}},
        "datasets": {root.name: str(root) for root in datasets},
        "results": [{"extractor": label, "dataset": name, "summary": result.summary.as_dict(),
                     "report": result.lines()} for label, name, result in results],
    }


def _names(text: str) -> list[str]:
    return [] if text.strip().lower() == "none" else [t.strip() for t in text.split(",") if t.strip()]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", type=Path,
                    help="dataset directories (default: wcxb-dev and readability from ../shared/datasets)")
    ap.add_argument("--algorithms", default=",".join(DEFAULT_ALGORITHMS),
                    help="comma-separated thresher algorithms, or 'none' (default: %(default)s)")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help="comma-separated peers among %(default)s, or 'none' (default: all installed)")
    ap.add_argument("--every", type=int, default=1, metavar="K", help="take every K-th page")
    ap.add_argument("--limit", type=int, metavar="N", help="then the first N of those")
    ap.add_argument("--no-warmup", action="store_true",
                    help="time every call: no untimed first chunk, no preloaded models")
    ap.add_argument("--chunk", type=int, default=25, metavar="N",
                    help="interleave the contenders every N pages (0: each over all pages in one go)")
    ap.add_argument("--one-process", action="store_true",
                    help="run every extractor in this process (default: each in a worker process of its own)")
    ap.add_argument("--out", type=Path, help="write the results as JSON")
    args = ap.parse_args(argv)
    unknown = [p for p in _names(args.peers) if p not in PEERS]
    if unknown:
        ap.error(f"unknown peers {', '.join(unknown)}; choose from {', '.join(PEERS)}")
    if args.every < 1:
        ap.error("--every must be 1 or more")
    if args.chunk < 0:
        ap.error("--chunk must be 0 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.disable(logging.WARNING)  # peers log every odd page; the table is the output
    datasets = args.datasets or [d for d in DEFAULT_DATASETS if d.is_dir()]
    if not datasets:
        print("no datasets: pass --datasets DIR ...", file=sys.stderr)
        return 2
    chosen = contenders(_names(args.algorithms), _names(args.peers), preloaded=not args.no_warmup)
    if not chosen:
        print("nothing to run: no registered algorithm or installed peer was chosen", file=sys.stderr)
        return 2
    results = run(datasets, chosen, args.every, args.limit, warm=not args.no_warmup, chunk=args.chunk,
                  isolate=not args.one_process)
    print(table(results))
    if args.out:
        args.out.write_text(json.dumps(to_json(results, args, datasets), indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
