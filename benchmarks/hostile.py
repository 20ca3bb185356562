"""The hostile-input table: each hostile page, what thresher does with it, its time and memory.

Every case runs in a fresh worker process (so that its peak resident memory is its own),
through ``thresher.extract`` with the default algorithm, after the models are loaded. The
table goes to stdout as Markdown, and with ``--out FILE`` to that file as well (the docs page
``docs/hostile-input-table.md`` is this script's output, never typed by hand)::

    python benchmarks/hostile.py --out docs/hostile-input-table.md
    python benchmarks/hostile.py --cases deep,li500k
"""
from __future__ import annotations

import argparse
import multiprocessing
import platform
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path


@dataclass(frozen=True)
class Case:
    name: str
    what: str  # the page, in words
    make: Callable[[], str | bytes]


def _paragraphs(n: int) -> str:
    return "".join(f"<p>Paragraph {i} of a long article, with a sentence or two of plain text in it.</p>"
                   for i in range(n))


CASES = (
    Case("deep", "a paragraph inside 100,000 nested <div>s",
         lambda: "<div>" * 100_000 + "<p>the deep paragraph</p>" + "</div>" * 100_000),
    Case("attributes", "one tag with 200,000 attributes, then an article",
         lambda: "<div " + " ".join(f"a{i}=v" for i in range(200_000)) + ">" + _paragraphs(20) + "</div>"),
    Case("options", "a <select> of 50,000 selected options, then a paragraph",
         lambda: "<select>" + "<option selected>o</option>" * 50_000 + "</select><p>after</p>"),
    Case("li500k", "500,000 <li> items (6.5 MB)", lambda: "<ul>" + "<li>item</li>" * 500_000 + "</ul>"),
    Case("li300k-unclosed", "300,000 unclosed <li>", lambda: "<ul>" + "<li>item" * 300_000),
    Case("p-spans", "3,000 <p> then 12,000 empty <span>s",
         lambda: "<body>" + "<p>para</p>" * 3000 + "<span></span>" * 12_000),
    Case("pre-newlines", "<pre> with 300,000 leading newlines", lambda: "<pre>" + "\n" * 300_000 + "code</pre>"),
    Case("long-tag-name", "21,000 tags, then '<a' and 200,000 name characters",
         lambda: "<body>" + "<i>x</i>" * 21_000 + "<a" + "b" * 200_000 + "<p>after</p>"),
    Case("unclosed-b", "50,000 unclosed <b>", lambda: "<p>" + "<b>x" * 50_000),
    Case("json-ld-deep", "JSON-LD nested 100,000 deep",
         lambda: '<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script><p>hello</p>"),
    Case("article-20mb", "a 20 MB article of 160,000 paragraphs",
         lambda: "<article>" + _paragraphs(160_000) + "</article>"),
    Case("div-blocks-50mb", "a 50 MB page of 500,000 <div> blocks of about 100 bytes",
         lambda: "<body>" + "".join(f'<div class="entry"><a href="/entry/{i}">Entry {i:06d}</a> and a short line of '
                                    "plain words in it.</div>" for i in range(500_000)) + "</body>"),
    Case("binary", "64 KB of random bytes", lambda: bytes(range(256)) * 256),
    Case("frameset", "<frameset><noframes><body><p>text", lambda: "<frameset><noframes><body><p>text"),
    Case("rss", "an RSS feed",
         lambda: '<?xml version="1.0"?><rss><channel><item><title>t</title></item></channel></rss>'),
)


def _run_case(name: str, queue: multiprocessing.Queue[tuple]) -> None:
    import thresher
    from thresher.errors import InputError

    thresher.preload()
    case = next(c for c in CASES if c.name == name)
    page = case.make()
    start = time.perf_counter()
    cpu = time.process_time()
    try:
        out = thresher.extract(page)
        outcome = f"text, {len(out):,} characters"
    except InputError as exc:
        outcome = f"InputError: {exc}"
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((len(page), outcome, seconds, cpu, peak_mb))


def measure(case: Case, timeout: float) -> tuple[int, str, float, float, float] | None:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    worker = context.Process(target=_run_case, args=(case.name, queue))
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        worker.kill()
        worker.join()
        return None
    return queue.get() if not queue.empty() else None


def table(rows: list[tuple[Case, tuple[int, str, float, float, float] | None]], timeout: float) -> str:
    lines = [f"Measured by `python benchmarks/hostile.py` on {date.today().isoformat()} "
             f"({platform.machine()}, Python {platform.python_version()}); one fresh process per case, "
             "models loaded first; peak memory is the process's resident peak, the interpreter and "
             "the models included (so the peak per input byte is given for pages of 1 MB or more). "
             "CPU seconds are the process's (user and system): on a shared machine "
             "they move less than the wall-clock seconds.", "",
             "| case | page | size | what thresher does | seconds | CPU seconds | peak MB "
             "| peak bytes per input byte |",
             "|---|---|---|---|---|---|---|---|"]
    for case, result in rows:
        if result is None:
            lines.append(f"| {case.name} | {case.what} | | did not finish in {timeout:.0f} s | | | | |")
            continue
        size, outcome, seconds, cpu, peak = result
        lines.append(f"| {case.name} | {case.what} | {size / 1e6:.2f} MB | {outcome} | {seconds:.2f} | {cpu:.2f} | "
                     f"{peak:.0f} | "
                     f"{f'{peak * 2**20 / size:,.0f}' if size >= 1_000_000 else ''} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a case may take")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    wanted = set(args.cases.split(",")) if args.cases else {c.name for c in CASES}
    rows = []
    for case in CASES:
        if case.name in wanted:
            rows.append((case, measure(case, args.timeout)))
            print(f"{case.name}: {rows[-1][1]}", file=sys.stderr)
    text = table(rows, args.timeout)
    print(text)
    if args.out:
        args.out.write_text("# Hostile input: what thresher does, in what time and memory\n\n" + text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
