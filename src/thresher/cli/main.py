"""The ``thresher`` command line.

    thresher extract [FILE|URL|-] [--algorithm NAME] [--format FMT] [-o OUT]
    thresher extract --input-dir DIR -o OUTDIR [--jobs N] [--glob PATTERN] [--resume]
    thresher extract --warc FILE.warc.gz [-o OUT.jsonl] [--jobs N]
    thresher algorithms
    thresher evaluate DATASET_DIR [--algorithm NAME] [--out FILE]
    thresher train DATASET... -o MODEL [--algorithm NAME] [--cv K] [--seed S]
    thresher explain FILE|URL|- [--algorithm NAME] [--compare NAME] [--format text|json|html] [-o OUT]

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
import gzip
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..api import Result
    from ..batch.directory import Listing, Plan

EXIT_OK, EXIT_PARTIAL, EXIT_ERROR = 0, 1, 2
PROG = "thresher"
DEFAULT_GLOBS = ("*.html", "*.htm", "*.html.gz")
EXTENSIONS = {"text": ".txt", "markdown": ".md", "html": ".html", "json": ".json", "xml": ".xml",
              "xmltei": ".tei.xml", "csv": ".csv"}
EPILOG = """exit codes:
  0  success
  1  partial failure: some inputs of a batch failed (OUTDIR/errors.jsonl lists
     them) or some pages of an evaluation raised
  2  error: bad arguments, unreadable or non-HTML input, network failure, ..."""


class CliError(Exception):
    """A user-facing failure: printed as one line, exit code 2."""


# ------------------------------------------------------------------- parser

def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


def _add_page_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--algorithm", "-a", metavar="NAME",
                        help="extraction algorithm (default: thresher; see `thresher algorithms`)")
    parser.add_argument("--language", "-l", metavar="CODE", help="page language (ISO 639-1); default: detected")
    parser.add_argument("--model", metavar="PATH", help="model file for a learned algorithm")


def _add_fetch_options(parser: argparse.ArgumentParser) -> None:
    from ..batch.fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT

    parser.add_argument("--url", help="the page's URL, for a page read from a file or stdin")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"time limit for fetching a URL (default: {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help="size cap for a fetched page, or for each file of --input-dir after "
                             f"gunzipping (default: {DEFAULT_MAX_BYTES})")


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__
    from ..batch.pool import DEFAULT_PAGE_TIMEOUT
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
                                     "default), or every matching file of --input-dir into OUTDIR.")
    ext.add_argument("source", nargs="?", metavar="FILE|URL|-", help="the page (default: stdin)")
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
                     help="time limit per page of --input-dir or --warc: past it the page gets a "
                          f"PageTimeout error and its worker is replaced (default: {DEFAULT_PAGE_TIMEOUT:g}; "
                          "0: none, and --jobs 1 then extracts in this process)")
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
    return parser


# ------------------------------------------------------------------ helpers

def check_algorithm(name: str | None) -> str:
    from .. import algorithms

    name = name or algorithms.DEFAULT
    known = algorithms.names()
    if name not in known:
        raise CliError(f"unknown algorithm {name!r}; available: {', '.join(known) or 'none'}")
    return name


def check_model(path: str | None) -> str | None:
    if path is not None and not Path(path).is_file():
        raise CliError(f"{path}: model file not found")
    return path


def _os_message(exc: OSError, fallback: str = "") -> str:
    where = exc.filename if exc.filename is not None else fallback
    reason = exc.strerror or str(exc)
    return f"{where}: {reason}" if where else reason


def read_file(path: str, max_bytes: int) -> bytes:
    """A page file's bytes, gunzipped when its name says so, at most ``max_bytes`` of them."""
    from ..batch.pool import PageTooLarge, read_page

    try:
        return read_page(path, max_bytes)
    except PageTooLarge as exc:
        raise CliError(str(exc)) from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise CliError(f"{path}: not valid gzip data ({exc})") from None
    except OSError as exc:
        raise CliError(f"cannot read {_os_message(exc, path)}") from None


def read_source(args: argparse.Namespace) -> tuple[bytes, str | None, str | None]:
    """(html bytes, url, content type) of the page named by ``args.source``."""
    from ..batch.fetch import fetch, is_url

    if args.source is None and sys.stdin.isatty():
        raise CliError("no input: give FILE, URL or '-', or pipe a page into stdin")
    source = args.source or "-"
    if source == "-":
        return sys.stdin.buffer.read(), args.url, None
    if is_url(source):
        fetched = fetch(source, timeout=args.timeout, max_bytes=args.max_bytes)
        return fetched.content, args.url or fetched.url, fetched.content_type
    return read_file(source, args.max_bytes), args.url, None


def _with_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def write_output(text: str, path: str | None) -> None:
    text = _with_newline(text)
    if path is None or path == "-":
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:
            buffer.write(text.encode("utf-8"))
            buffer.flush()
        else:
            sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {_os_message(exc, path)}") from None


def _render_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of thresher.extract set by the output and content switches."""
    from .web import content_switches

    options = content_switches(args)
    if getattr(args, "links", False):
        options["links"] = True
    if getattr(args, "deduplicate", False):
        options["deduplicate"] = True
    return options


# ----------------------------------------------------------------- commands

def cmd_extract(args: argparse.Namespace) -> int:
    if args.page_type_only and (args.input_file is not None or args.feed is not None or args.sitemap is not None
                                or args.warc is not None or args.input_dir is not None):
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
        raise CliError("--glob, --jobs, --page-timeout, --resume, --retry-errors and --follow-links "
                       "apply to --input-dir only (--jobs and --page-timeout to --warc too)")
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


def _batch_flags(args: argparse.Namespace) -> bool:
    """True when a flag of the batch modes only was given."""
    return args.page_timeout is not None or args.resume or args.retry_errors or args.follow_links


def input_files(root: Path, patterns: Sequence[str], follow_links: bool = False) -> list[Path]:
    """Files under ``root`` matching any pattern, sorted, each once (links out of ``root`` left out)."""
    from ..batch.directory import list_inputs

    return list(list_inputs(root, patterns, follow_links).files)


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


def _write_page(target: Path, text: str) -> str | None:
    """Write one output, whole or not at all; the error message when that fails."""
    from ..batch.directory import write_atomically

    try:
        write_atomically(target, _with_newline(text).encode("utf-8"))
    except OSError as exc:
        return _os_message(exc, str(target))
    return None


def _drop_stale_output(target: Path) -> None:
    """Remove an earlier run's output of an input that now fails: each input has one record."""
    with contextlib.suppress(OSError):
        target.unlink(missing_ok=True)


def _page_timeout(args: argparse.Namespace) -> float | None:
    from ..batch.pool import DEFAULT_PAGE_TIMEOUT

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
    targets = [out_dir / name for name in output_names(listing.files, root, EXTENSIONS[args.format])]
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
                               **options)
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
                                  page_timeout=_page_timeout(args), **options)
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
    from ..training.registry import TRAINERS

    spec = TRAINERS.get(args.algorithm)
    if spec is None:
        raise CliError(f"cannot train {args.algorithm!r}: choose from {', '.join(TRAINERS)}")
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


def explain_table(result: Result) -> str:
    """One row per block: index, KEEP/drop, score, the full reason and the text, wrapped to the terminal."""
    from ..explain import render_text

    return render_text(result)


def cmd_explain(args: argparse.Namespace) -> int:
    algorithm, model = check_algorithm(args.algorithm), check_model(args.model)
    compare = check_algorithm(args.compare) if args.compare is not None else None
    html, url, content_type = read_source(args)
    from ..explain import build_report, render

    report = build_report(html, url, algorithm=algorithm, compare=compare, language=args.language, model=model,
                          content_type=content_type)
    write_output(render(report, args.format), args.output)
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (see the module docstring)."""
    try:
        args = build_parser().parse_args(argv)
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
