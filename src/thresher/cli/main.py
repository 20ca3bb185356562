"""The ``thresher`` command line.

    thresher extract [FILE|URL|-] [--algorithm NAME] [--format FMT] [-o OUT]
    thresher extract FILE|URL ... [-o OUTDIR]
    thresher extract --input-dir DIR -o OUTDIR [--jobs N] [--glob PATTERN] [--resume]
    thresher extract --warc FILE.warc.gz [-o OUT.jsonl] [--jobs N]
    thresher algorithms
    thresher evaluate DATASET_DIR [--algorithm NAME] [--out FILE]
    thresher train DATASET... -o MODEL [--algorithm NAME] [--cv K] [--seed S]
    thresher explain FILE|URL|- [--algorithm NAME] [--compare NAME] [--format text|json|html] [-o OUT]
    thresher serve [--host H] [--port P] [--threads N] [--max-concurrency N] [--timeout S] ...

Without a command, ``thresher [options] [FILE|URL ...]`` is ``thresher extract``: trafilatura's
habit (``thresher < page.html``, ``thresher -u URL``). A directory given as the one input is
``--input-dir DIR``.

Exit codes:
  0  success
  1  partial failure: some inputs of a batch failed (see OUTDIR/errors.jsonl, or
     the error lines of a --warc run's output),
     or some pages of an evaluation raised (see stderr)
  2  error: bad arguments, unreadable or non-HTML input, network failure, ...

Errors are reported as one line, ``thresher: error: <message>``, on stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_PARTIAL,
    PROG,
    CliError,
    _os_message,
    _with_newline,
    _write_page,
    check_algorithm,
    check_model,
    extension,
    make_output_dir,
    read_file,
    write_output,
)
from .web import render_options as _render_options

if TYPE_CHECKING:
    from ..batch.directory import Listing, Plan

DEFAULT_GLOBS = ("*.html", "*.htm", "*.html.gz")
EPILOG = """exit codes:
  0  success
  1  partial failure: some inputs of a batch failed (OUTDIR/errors.jsonl lists
     them) or some pages of an evaluation raised
  2  error: bad arguments, unreadable or non-HTML input, network failure, ..."""


# ------------------------------------------------------------------- parser

def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


def _add_page_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--algorithm", "-a", metavar="NAME",
                        help="extraction algorithm (default: thresher; see `thresher algorithms`)")
    parser.add_argument("--language", "-l", metavar="CODE", help="page language (ISO 639-1); default: detected")
    parser.add_argument("--model", metavar="PATH", help="model file for a learned algorithm")


def _add_fetch_options(parser: argparse.ArgumentParser) -> None:
    from ..batch.fetch import DEFAULT_TIMEOUT
    from ..batch.pages import DEFAULT_MAX_BYTES

    parser.add_argument("--url", help="the page's URL, for a page read from a file or stdin")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"time limit for fetching a URL (default: {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help="size cap for a fetched page, or for each file of --input-dir after "
                             f"gunzipping (default: {DEFAULT_MAX_BYTES})")


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__
    from ..batch.pages import DEFAULT_PAGE_TIMEOUT
    from ..options import FORMATS
    from .web import add_content_options, add_format_shortcuts, add_input_options

    parser = argparse.ArgumentParser(prog=PROG, description="Main-content extraction for web pages.",
                                     epilog=EPILOG, formatter_class=_formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--traceback", action="store_true",
                        help="show a traceback for unexpected errors (for bug reports)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    ext = sub.add_parser("extract", help="extract the main content of a page or of many files",
                         epilog=EPILOG, formatter_class=_formatter,
                         description="Extract a page read from FILE, an http(s) URL or stdin (-, the "
                                     "default); several pages (to stdout one after the other, or one file "
                                     "each into -o OUTDIR); or every matching file of --input-dir DIR (or of "
                                     "DIR given as the input) into OUTDIR. `thresher` without a command is "
                                     "`thresher extract`.")
    ext.add_argument("sources", nargs="*", metavar="FILE|URL|DIR|-",
                     help="the pages (default: stdin); a directory: as --input-dir")
    _add_page_options(ext)
    ext.add_argument("--format", "--output-format", "-f", choices=FORMATS, default="text",
                     help="output format (default: text)")
    ext.add_argument("--links", action="store_true", help="keep links in the output")
    ext.add_argument("--page-type-only", action="store_true",
                     help="print only the page's predicted type (article, collection, documentation, forum, "
                          "listing, product or service), without extracting")
    ext.add_argument("--output", "-o", metavar="OUT", help="output file (default: stdout); OUTDIR with --input-dir")
    ext.add_argument("--input-dir", metavar="DIR", help="extract every matching file of DIR into OUTDIR")
    ext.add_argument("--glob", action="append", metavar="PATTERN",
                     help="file pattern under DIR, repeatable, `**/` recurses "
                          f"(default: {' '.join(DEFAULT_GLOBS)})")
    ext.add_argument("--warc", metavar="FILE",
                     help="extract every HTML response of a WARC file into OUT as JSON lines "
                          "(needs thresher[scale])")
    ext.add_argument("--jobs", "--parallel", "-j", type=int, default=1, metavar="N",
                     help="worker processes for --input-dir or --warc (default: 1; 0: one per CPU)")
    ext.add_argument("--page-timeout", type=float, metavar="SECONDS",
                     help="time budget per page of --input-dir or --warc: past it the extraction stops "
                          f"and the page gets an ExtractionTimeout error (default: {DEFAULT_PAGE_TIMEOUT:g}; "
                          "0: none)")
    ext.add_argument("--isolate", action="store_true",
                     help="--input-dir, --warc: with --jobs 1, extract in a worker process all the same, "
                          "so that a crash costs one page, not the run (default: in this process)")
    ext.add_argument("--resume", action="store_true",
                     help="--input-dir: skip inputs with an output or an error record in OUTDIR, keep "
                          "errors.jsonl's records (default: extract everything, start errors.jsonl afresh)")
    ext.add_argument("--retry-errors", action="store_true",
                     help="with --resume: drop errors.jsonl's records and extract those inputs again")
    ext.add_argument("--follow-links", action="store_true",
                     help="--input-dir: read symbolic links that lead out of DIR (default: such a link "
                          "gets an error record and is not read)")
    _add_fetch_options(ext)
    add_content_options(ext)
    add_input_options(ext)
    add_format_shortcuts(ext, FORMATS)
    ext.set_defaults(handler=cmd_extract)

    algs = sub.add_parser("algorithms", help="list the available algorithms", epilog=EPILOG,
                          formatter_class=_formatter)
    algs.set_defaults(handler=cmd_algorithms)

    ev = sub.add_parser("evaluate", help="score an algorithm on a labelled dataset", epilog=EPILOG,
                        formatter_class=_formatter,
                        description="Score an algorithm on a labelled dataset (wcxb, scrapinghub, snippets "
                                    "or readability layout) and print the referee's report line.")
    ev.add_argument("dataset", metavar="DATASET_DIR")
    _add_page_options(ev)
    ev.add_argument("--out", metavar="FILE", help="write summary, per-page scores and outputs as JSON")
    ev.add_argument("--every", type=int, default=1, metavar="K", help="score every K-th page only")
    ev.add_argument("--limit", type=int, metavar="N", help="score the first N (selected) pages only")
    add_content_options(ev)
    ev.set_defaults(handler=cmd_evaluate)

    tr = sub.add_parser("train", help="train a model for a learned algorithm", epilog=EPILOG,
                        formatter_class=_formatter)
    tr.add_argument("datasets", nargs="+", metavar="DATASET")
    tr.add_argument("--output", "-o", required=True, metavar="MODEL", help="model file to write")
    tr.add_argument("--algorithm", "-a", default="thresher", metavar="NAME",
                    help="what to train: thresher, thresher-accurate, dragnet, dragnet-comments, "
                         "density-classifier or page-type (default: thresher)")
    tr.add_argument("--cv", type=int, metavar="K",
                    help="K-fold cross-validation grouped by domain before the final fit "
                         "(0: none; default: the trainer's)")
    tr.add_argument("--seed", type=int, metavar="S", help="random seed (default: the trainer's)")
    tr.set_defaults(handler=cmd_train)

    ex = sub.add_parser("explain", help="show every block and the decision taken on it", epilog=EPILOG,
                        formatter_class=_formatter,
                        description="Show every block of a page, the decision taken on it and why: a table "
                                    "(text), a JSON document (json, see docs/explain.md) or a self-contained "
                                    "HTML report (html).")
    ex.add_argument("source", nargs="?", metavar="FILE|URL|-", help="the page (default: stdin)")
    _add_page_options(ex)
    ex.add_argument("--compare", "-c", metavar="NAME", help="a second algorithm to show side by side")
    ex.add_argument("--format", "-f", choices=("text", "json", "html"), default="text",
                    help="output format (default: text)")
    ex.add_argument("--output", "-o", metavar="OUT", help="output file (default: stdout)")
    _add_fetch_options(ex)
    ex.set_defaults(handler=cmd_explain)
    _add_serve_parser(sub)
    return parser


def _add_serve_parser(sub: Any) -> None:
    # The service is the layer above this one: the CLI reads its defaults and dispatches to it,
    # both lazily (tests/test_layers.py allows exactly that).
    from ..service import config as C

    sv = sub.add_parser("serve", help="serve extraction over HTTP (needs thresher[serve])", epilog=EPILOG,
                        formatter_class=_formatter,
                        description="Serve POST /extract, GET /health and a form at GET / (see docs/serve.md).")
    sv.add_argument("--host", default=C.DEFAULT_HOST, help=f"address to listen on (default: {C.DEFAULT_HOST})")
    sv.add_argument("--port", "-p", type=int, default=C.DEFAULT_PORT, help=f"port (default: {C.DEFAULT_PORT})")
    sv.add_argument("--threads", type=int, default=0, metavar="N",
                    help="extraction threads (default: 0, one per CPU)")
    sv.add_argument("--max-concurrency", type=int, default=0, metavar="N",
                    help="extractions admitted at once, running or queued; past it 503 (default: 0, four per thread)")
    sv.add_argument("--timeout", type=float, default=C.DEFAULT_BUDGET, metavar="SECONDS",
                    help=f"time budget of one extraction; past it 504 (default: {C.DEFAULT_BUDGET:g})")
    sv.add_argument("--max-body-bytes", type=int, default=C.DEFAULT_BODY_BYTES, metavar="N",
                    help=f"request body cap; past it 413 (default: {C.DEFAULT_BODY_BYTES})")
    sv.add_argument("--fetch-timeout", type=float, default=C.DEFAULT_FETCH_TIMEOUT, metavar="SECONDS",
                    help=f"time limit for fetching a url (default: {C.DEFAULT_FETCH_TIMEOUT:g})")
    sv.add_argument("--fetch-max-bytes", type=int, default=C.DEFAULT_FETCH_BYTES, metavar="N",
                    help=f"size cap for a fetched page (default: {C.DEFAULT_FETCH_BYTES})")
    sv.add_argument("--allow-private", action="store_true",
                    help="let url reach private, loopback, link-local and other non-public addresses")
    sv.add_argument("--allow-network", action="append", default=[], metavar="CIDR",
                    help="a non-public network url may reach, e.g. 10.1.0.0/16 (repeatable)")
    sv.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"),
                    help="server log level (default: info)")
    sv.set_defaults(handler=cmd_serve)


# ------------------------------------------------------------------ helpers

def read_source(args: argparse.Namespace, source: str | None = None) -> tuple[bytes, str | None, str | None]:
    """(html bytes, url, content type) of the page named by ``source`` (default: ``args.source``)."""
    from ..batch.fetch import fetch, is_url

    source = source or args.source
    if source is None and sys.stdin.isatty():
        raise CliError("no input: give FILE, URL or '-', or pipe a page into stdin")
    source = source or "-"
    if source == "-":
        return sys.stdin.buffer.read(), args.url, None
    if is_url(source):
        fetched = fetch(source, timeout=args.timeout, max_bytes=args.max_bytes)
        return fetched.content, args.url or fetched.url, fetched.content_type
    return read_file(source, args.max_bytes), args.url, None


# ----------------------------------------------------------------- commands

def positional_inputs(args: argparse.Namespace) -> list[str]:
    """The positional inputs of ``extract``; sets ``args.source`` (the first, None for none) and
    takes a directory given alone as ``--input-dir``."""
    from ..batch.fetch import is_url

    sources = list(args.sources)
    folders = [s for s in sources if s != "-" and not is_url(s) and Path(s).is_dir()]
    if folders:
        folder = folders[0]
        if len(sources) > 1:
            raise CliError(f"{folder} is a directory: give it alone (it is then --input-dir {folder}), "
                           "or name its files")
        if args.input_dir is not None:
            raise CliError(f"give either {folder} or --input-dir, not both")
        if not args.output or args.output == "-":
            raise CliError(f"{folder} is a directory: add -o OUTDIR to extract its files into OUTDIR "
                           f"(as --input-dir {folder} -o OUTDIR)")
        args.input_dir, sources = folder, []
    args.source = sources[0] if sources else None
    return sources


def cmd_extract(args: argparse.Namespace) -> int:
    sources = positional_inputs(args)
    if args.page_type_only and (args.input_file is not None or args.feed is not None or args.sitemap is not None
                                or args.warc is not None or args.input_dir is not None or len(sources) > 1):
        raise CliError("--page-type-only applies to one page (FILE, URL or stdin)")
    if args.input_file is not None or args.feed is not None or args.sitemap is not None:
        from .web import cmd_extract_web

        return cmd_extract_web(args)
    if args.input_url is not None:
        if args.source is not None:
            raise CliError("give either FILE|URL|- or -u URL, not both")
        args.source = args.input_url
    if args.warc is not None:
        return cmd_extract_warc(args)
    if args.input_dir is not None:
        return cmd_extract_dir(args)
    if args.glob or args.jobs != 1 or _batch_flags(args):
        raise CliError("--glob, --jobs, --page-timeout, --isolate, --resume, --retry-errors and --follow-links "
                       "apply to --input-dir only (--jobs, --page-timeout and --isolate to --warc too)")
    if len(sources) > 1:
        return cmd_extract_pages(args, sources)
    algorithm, model = check_algorithm(args.algorithm), check_model(args.model)
    html, url, content_type = read_source(args)
    if args.page_type_only:
        from ..api import page_type

        write_output(page_type(html, url, content_type=content_type)[0], args.output)
        return EXIT_OK
    from ..api import extract

    text = extract(html, url, algorithm=algorithm, output=args.format, language=args.language, model=model,
                   content_type=content_type, **_render_options(args))
    write_output(text, args.output)
    return EXIT_OK


def page_output_names(sources: Sequence[str], extension: str) -> list[str]:
    """One output file name per input named on the command line: a file's own name with the
    format's extension (``a.html`` -> ``a.txt``), a URL's host and path; ``-2``, ``-3`` ... on a clash."""
    from ..batch.fetch import is_url
    from .web import url_output_name

    names: list[str] = []
    for source in sources:
        if is_url(source):
            name = url_output_name(source, extension)
        elif source == "-":
            name = "stdin" + extension
        else:
            path = Path(source)
            name = output_names([path], path.parent, extension)[0].name
        stem, n = name[:-len(extension)], 2
        while name in names:
            name, n = f"{stem}-{n}{extension}", n + 1
        names.append(name)
    return names


def cmd_extract_pages(args: argparse.Namespace, sources: Sequence[str]) -> int:
    """Several pages named on the command line, one after the other: to stdout, or one file
    each into OUTDIR (``-o``) with ``errors.jsonl``. A page that fails is reported and skipped."""
    from ..api import extract
    from ..errors import ThresherError
    from ..options import SeenTexts, options_from

    if args.url is not None:
        raise CliError("--url is the address of one page: give one input with it")
    if sources.count("-") > 1:
        raise CliError("stdin (-) can be read once")
    out_dir = make_output_dir(args.output) if args.output and args.output != "-" else None
    switches = _render_options(args)
    if switches.pop("deduplicate", False):
        switches["deduplicate"] = SeenTexts()  # one cache for the whole run
    options = options_from(dict(algorithm=check_algorithm(args.algorithm), output=args.format,
                                language=args.language, model=check_model(args.model), **switches))
    outputs: list[str] = []
    problems: list[tuple[str, str]] = []
    for source, name in zip(sources, page_output_names(sources, extension(args.format))):
        try:
            html, url, content_type = read_source(args, source)
            text = extract(html, url, options=options, content_type=content_type)
        except (CliError, ThresherError) as exc:
            problems.append((source, str(exc) or type(exc).__name__))
            continue
        except OSError as exc:
            problems.append((source, _os_message(exc, source)))
            continue
        error = None if out_dir is None else _write_page(out_dir / name, text)
        if error is not None:
            problems.append((source, error))
        elif out_dir is None and text:
            outputs.append(_with_newline(text))
    if out_dir is None:
        write_output("\n".join(outputs), None)
    else:
        with (out_dir / "errors.jsonl").open("w", encoding="utf-8") as errors:
            errors.writelines(json.dumps({"input": source, "message": message}, ensure_ascii=False) + "\n"
                              for source, message in problems)
    for source, message in problems:
        print(f"{PROG}: {source}: {' '.join(message.split())}", file=sys.stderr)
    print(f"{PROG}: {len(sources) - len(problems)} ok, {len(problems)} errors"
          + (f"; outputs in {out_dir}" if out_dir is not None else ""), file=sys.stderr)
    return EXIT_PARTIAL if problems else EXIT_OK


def _batch_flags(args: argparse.Namespace) -> bool:
    """True when a flag of the batch modes only was given."""
    return args.page_timeout is not None or args.resume or args.retry_errors or args.follow_links or \
        args.isolate


def output_names(files: Sequence[Path], root: Path, extension: str) -> list[Path]:
    """Relative output path per input: ``a/b.html.gz`` -> ``a/b.txt`` (``b.htm.txt`` on a clash)."""
    names, taken = [], set()
    for path in files:
        rel = path.relative_to(root)
        base = rel.with_suffix("") if rel.suffix == ".gz" else rel
        name = base.with_suffix(extension) if base.suffix.lower() in (".html", ".htm") else \
            base.with_name(base.name + extension)
        if name in taken:
            name = base.with_name(base.name + extension)
        if name in taken:
            name = rel.with_name(rel.name + extension)
        taken.add(name)
        names.append(name)
    return names


def _drop_stale_output(target: Path) -> None:
    """Remove an earlier run's output of an input that now fails: each input has one record."""
    with contextlib.suppress(OSError):
        target.unlink(missing_ok=True)


def _page_timeout(args: argparse.Namespace) -> float | None:
    from ..batch.pages import DEFAULT_PAGE_TIMEOUT

    if args.page_timeout is None:
        return DEFAULT_PAGE_TIMEOUT
    if not 0 <= args.page_timeout < float("inf"):
        raise CliError("--page-timeout must be 0 (no limit) or a positive number of seconds")
    return args.page_timeout or None


def _check_batch_numbers(args: argparse.Namespace) -> None:
    if args.jobs < 0:
        raise CliError("--jobs must be 0 (one per CPU) or more")
    if args.max_bytes < 1:
        raise CliError("--max-bytes must be at least 1")
    _page_timeout(args)


def _batch_setup(args: argparse.Namespace) -> tuple[Path, Path, Listing]:
    """(input root, OUTDIR, listing of DIR) after checking the arguments; OUTDIR is created."""
    from ..batch.directory import list_inputs, remove_temporaries

    if args.source is not None:
        raise CliError("give either FILE|URL|- or --input-dir, not both")
    if not args.output:
        raise CliError("--input-dir needs -o OUTDIR")
    if args.retry_errors and not args.resume:
        raise CliError("--retry-errors needs --resume")
    root, out_dir = Path(args.input_dir), Path(args.output)
    if not root.is_dir():
        raise CliError(f"{root}: not a directory")
    if out_dir.exists() and not out_dir.is_dir():
        raise CliError(f"{out_dir}: exists and is not a directory")
    if out_dir.resolve() == root.resolve():
        raise CliError("OUTDIR must differ from the input directory")
    _check_batch_numbers(args)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        remove_temporaries(out_dir)
    except OSError as exc:
        raise CliError(f"cannot create {_os_message(exc, str(out_dir))}") from None
    return root, out_dir, list_inputs(root, args.glob or DEFAULT_GLOBS, args.follow_links)


def _summary(ok: int, failed: int, elapsed: float, out_dir: Path, plan: Plan) -> str:
    count = ok + failed
    rate = f"{count / elapsed:.1f}" if elapsed > 0 else "-"
    earlier = f"; resumed: {plan.done_before} outputs and {len(plan.kept)} errors from an earlier run" \
        if plan.done_before or plan.kept else ""
    errors = f", errors in {out_dir / 'errors.jsonl'}" if failed or plan.kept else ""
    return f"{PROG}: {ok} ok, {failed} errors, {rate} pages/s{earlier}; outputs in {out_dir}{errors}"


def cmd_extract_dir(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..batch.directory import ERRORS_NAME, ErrorLog, plan
    from ..batch.pool import extract_many

    root, out_dir, listing = _batch_setup(args)
    options = dict(algorithm=check_algorithm(args.algorithm), output=args.format, language=args.language,
                   model=check_model(args.model), **_render_options(args))
    targets = [out_dir / name for name in output_names(listing.files, root, extension(args.format))]
    work = plan(listing, targets, out_dir / ERRORS_NAME, resume=args.resume, retry_errors=args.retry_errors)
    inputs = [path for path, _ in work.todo]
    jobs = args.jobs or os.cpu_count() or 1
    ok = failed = 0
    start = time.perf_counter()
    progress = tqdm(total=len(inputs), file=sys.stderr, unit="page", disable=None, dynamic_ncols=True)
    with ErrorLog(out_dir / ERRORS_NAME, work.kept) as errors:
        for entry in work.report:
            errors.add(*entry)
            failed += 1
        records = extract_many(inputs, jobs=jobs, page_timeout=_page_timeout(args), max_bytes=args.max_bytes,
                               isolate=args.isolate or None, **options)
        for (path, target), record in zip(work.todo, records):
            kind, message = ("OSError", _write_page(target, record.output or "")) if record.error is None else \
                (record.error.type, record.error.message)
            if message is None:
                ok += 1
            else:
                failed += 1
                _drop_stale_output(target)
                errors.add(path, kind, message)
            progress.update(1)
    progress.close()
    print(_summary(ok, failed, time.perf_counter() - start, out_dir, work), file=sys.stderr)
    return EXIT_PARTIAL if failed or work.kept else EXIT_OK


def cmd_extract_warc(args: argparse.Namespace) -> int:
    from ..batch.warc import write_warc_jsonl

    if args.source is not None or args.input_dir is not None or args.glob:
        raise CliError("--warc takes no FILE|URL|-, --input-dir or --glob")
    if args.resume or args.retry_errors or args.follow_links:
        raise CliError("--resume, --retry-errors and --follow-links apply to --input-dir only")
    if args.jobs < 0:
        raise CliError("--jobs must be 0 (one per CPU) or more")
    options = dict(algorithm=check_algorithm(args.algorithm), output=args.format, language=args.language,
                   model=check_model(args.model), **_render_options(args))
    start = time.perf_counter()
    ok, failed = write_warc_jsonl(args.warc, args.output, jobs=args.jobs or os.cpu_count() or 1,
                                  page_timeout=_page_timeout(args), isolate=args.isolate or None, **options)
    elapsed = time.perf_counter() - start
    rate = f"{(ok + failed) / elapsed:.1f}" if elapsed > 0 else "-"
    print(f"{PROG}: {ok} ok, {failed} errors, {rate} records/s"
          + (f"; JSON lines in {args.output}" if args.output not in (None, "-") else ""), file=sys.stderr)
    return EXIT_PARTIAL if failed else EXIT_OK


def cmd_algorithms(args: argparse.Namespace) -> int:
    from ..algorithms import registry

    found = registry()
    width = max((len(name) for name in found), default=0)
    write_output("\n".join(f"{name:<{width}}  {alg.summary}" for name, alg in found.items()), None)
    return EXIT_OK


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..evaluation import ThresherExtractor, evaluate

    if args.every < 1 or (args.limit is not None and args.limit < 0):
        raise CliError("--every must be 1 or more and --limit 0 or more")
    extractor = ThresherExtractor(check_algorithm(args.algorithm), check_model(args.model), args.language,
                                  switches=tuple(_render_options(args).items()))

    def report_error(page_id: str, exc: BaseException) -> None:
        print(f"{page_id}: {type(exc).__name__}: {exc}", file=sys.stderr)

    result = evaluate(args.dataset, extractor, every=args.every, limit=args.limit,
                      keep_outputs=bool(args.out), on_error=report_error)
    write_output(result.report(), None)
    if args.out:
        write_output(json.dumps(result.to_json(), ensure_ascii=False), args.out)
    return EXIT_PARTIAL if result.summary.errors else EXIT_OK


def cmd_train(args: argparse.Namespace) -> int:
    # Training is imported here only: no other command loads it.
    from ..training.registry import PACKAGES, TRAINERS

    spec = TRAINERS.get(args.algorithm)
    if spec is None:
        raise CliError(f"cannot train {args.algorithm!r}: choose from {', '.join(TRAINERS)}")
    missing = spec.missing()
    if missing:  # said at once, before any page is read
        raise CliError(f"training {spec.name!r} needs {' and '.join(PACKAGES.get(m, m) for m in missing)}, "
                       "not installed here: pip install 'thresher[train]'")
    datasets = [Path(d) for d in args.datasets]
    for dataset in datasets:
        if not dataset.is_dir():
            raise CliError(f"{dataset}: not a directory")
    if args.cv is not None and (args.cv < 0 or args.cv == 1):
        raise CliError("--cv needs 2 folds or more (0: no cross-validation)")
    cv = spec.default_cv if args.cv is None else args.cv
    seed = spec.default_seed if args.seed is None else args.seed
    try:
        report = spec.train(datasets, Path(args.output), cv=cv, seed=seed)
    except ModuleNotFoundError as exc:
        raise CliError(f"training needs the {exc.name!r} package: pip install 'thresher[train]'") from None
    if report:
        write_output(json.dumps(report, ensure_ascii=False, default=str), None)
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    algorithm, model = check_algorithm(args.algorithm), check_model(args.model)
    compare = check_algorithm(args.compare) if args.compare is not None else None
    html, url, content_type = read_source(args)
    from ..explain import build_report, render

    report = build_report(html, url, algorithm=algorithm, compare=compare, language=args.language, model=model,
                          content_type=content_type)
    write_output(render(report, args.format), args.output)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from ..service.config import ServiceConfig
    from ..service.main import check_installed, run

    check_installed()
    try:
        config = ServiceConfig(host=args.host, port=args.port, max_body_bytes=args.max_body_bytes,
                               budget=args.timeout, threads=args.threads, max_concurrency=args.max_concurrency,
                               allow_private=args.allow_private, allow_networks=tuple(args.allow_network),
                               fetch_timeout=args.fetch_timeout, fetch_max_bytes=args.fetch_max_bytes)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    run(config, log_level=args.log_level)
    return EXIT_OK


# --------------------------------------------------------------------- main

def _fail(message: str) -> int:
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return EXIT_ERROR


def _run(args: argparse.Namespace) -> int:
    from ..errors import ThresherError

    try:
        code: int = args.handler(args)
        return code
    except (CliError, ThresherError) as exc:
        return _fail(str(exc) or type(exc).__name__)
    except OSError as exc:
        return _fail(_os_message(exc))
    except Exception as exc:  # the CLI never shows a traceback unless asked
        if args.traceback:
            raise
        return _fail(f"internal error: {type(exc).__name__}: {exc} (rerun with --traceback for details)")


def with_command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``argv`` with ``extract`` put in front of the inputs and options when no command is given
    (``thresher --markdown < page.html``, ``thresher -u URL``, ``thresher a.html b.html``).
    Left as it is: a command, ``--help`` or ``--version`` first; nothing at all with stdin a
    terminal (the usage, with the commands, is then the answer); a word close to a command's
    name that names no file (a typo: argparse lists the commands)."""
    import difflib

    from ..batch.fetch import is_url

    argv = list(argv)
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    top = {flag for action in parser._actions for flag in action.option_strings}
    first = next((i for i, arg in enumerate(argv) if arg not in top or arg in ("-h", "--help", "--version")),
                 len(argv))
    if first < len(argv):
        word = argv[first]
        if word in commands or word in ("-h", "--help", "--version"):
            return argv
        if (not word.startswith("-") and not is_url(word) and not Path(word).exists()
                and difflib.get_close_matches(word, list(commands), n=1, cutoff=0.75)):
            return argv
    elif not argv and (sys.stdin is None or sys.stdin.isatty()):
        return argv
    return [*argv[:first], "extract", *argv[first:]]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (see the module docstring)."""
    try:
        parser = build_parser()
        args = parser.parse_args(with_command(parser, sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (EXIT_OK if exc.code is None else EXIT_ERROR)
    try:
        return _run(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader (e.g. `head`) went away: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
