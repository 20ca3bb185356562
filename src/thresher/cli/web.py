"""The command line's content switches and web inputs (``thresher extract -u/-i/--feed/--sitemap``).

Split from :mod:`thresher.cli.main`, which builds the parser with :func:`add_content_options` and
:func:`add_input_options` and hands web inputs to :func:`cmd_extract_web`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .common import (
    EXIT_OK,
    EXIT_PARTIAL,
    PROG,
    CliError,
    _with_newline,
    _write_page,
    check_algorithm,
    check_model,
    extension,
    make_output_dir,
    read_file,
    write_output,
)


def add_content_options(parser: argparse.ArgumentParser) -> None:
    """trafilatura's content switches (see docs/trafilatura-flags.md)."""
    group = parser.add_argument_group("content switches")
    comments = group.add_mutually_exclusive_group()
    comments.add_argument("--comments", dest="include_comments", action="store_true", default=False,
                          help="write the page's comments after the main content (default: left out)")
    comments.add_argument("--no-comments", dest="include_comments", action="store_false",
                          help="leave the comments out (the default)")
    group.add_argument("--no-tables", dest="include_tables", action="store_false",
                       help="drop the text inside tables")
    group.add_argument("--images", dest="include_images", action="store_true",
                       help="keep the content's images (markdown, html, xml and xmltei outputs)")
    group.add_argument("--formatting", dest="include_formatting", action="store_const", const=True,
                       default=None, help="keep bold and italic (markdown, xml, xmltei)")
    group.add_argument("--no-formatting", dest="include_formatting", action="store_const", const=False,
                       help="no bold or italic, in markdown either")
    focus = group.add_mutually_exclusive_group()
    focus.add_argument("--precision", dest="favor_precision", action="store_true",
                       help="favour precision: keep fewer, surer blocks")
    focus.add_argument("--recall", dest="favor_recall", action="store_true",
                       help="favour recall: keep more blocks")
    group.add_argument("--with-metadata", action="store_true",
                       help="add metadata (YAML front matter before text and markdown)")
    group.add_argument("--only-with-metadata", action="store_true",
                       help="give nothing for pages without title, date and URL")
    group.add_argument("--target-language", metavar="CODE",
                       help="give nothing for pages in another language (ISO 639-1)")
    group.add_argument("--deduplicate", action="store_true",
                       help="drop blocks whose text was already kept (across the pages of one run "
                            "in one process)")
    group.add_argument("--prune", action="append", metavar="SELECTOR",
                       help="drop the elements matching a CSS selector before extraction (repeatable)")


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """Pages fetched over HTTP: one URL, a list, a feed or a sitemap."""
    from ..batch.crawl import DEFAULT_DELAY, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_RETRIES

    group = parser.add_argument_group("web inputs (several pages: -o OUTDIR, or all to stdout)")
    group.add_argument("-u", "--input-url", "--URL", metavar="URL", help="extract the page at URL")
    group.add_argument("-i", "--input-file", metavar="FILE", help="extract every URL of FILE (one per line)")
    group.add_argument("--feed", metavar="URL", help="extract every page an RSS or Atom feed links to")
    group.add_argument("--sitemap", metavar="URL",
                       help="extract every page of a sitemap (indexes and gzipped sitemaps followed)")
    group.add_argument("-b", "--blacklist", metavar="FILE", help="URLs (one per line) never to fetch")
    group.add_argument("--list", action="store_true",
                       help="print the URLs that -i, --feed or --sitemap give, one per line, and stop")
    group.add_argument("--delay", type=float, default=DEFAULT_DELAY, metavar="SECONDS",
                       help=f"pause between two requests to one host (default: {DEFAULT_DELAY:g})")
    group.add_argument("--retries", type=int, default=DEFAULT_RETRIES, metavar="N",
                       help=f"tries again after a network error, HTTP 429 or 5xx (default: {DEFAULT_RETRIES})")
    group.add_argument("--max-total-bytes", type=int, default=DEFAULT_MAX_TOTAL_BYTES, metavar="N",
                       help=f"stop fetching after N bytes in all (default: {DEFAULT_MAX_TOTAL_BYTES})")


def add_format_shortcuts(parser: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    """``--xml``, ``--csv`` ...: trafilatura's one-word spellings of ``--format FMT``."""
    group = parser.add_argument_group("format shortcuts")
    for name in formats:
        if name != "text":
            group.add_argument(f"--{name}", dest="format", action="store_const", const=name,
                               help=f"same as --format {name}")


SWITCHES = ("include_comments", "include_tables", "include_images", "include_formatting", "favor_precision",
            "favor_recall", "with_metadata", "only_with_metadata", "target_language", "prune")


def content_switches(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of thresher.extract that the content switches set (defaults left out)."""
    from ..options import Options

    defaults = Options()
    found: dict[str, Any] = {}
    for name in SWITCHES:
        value = getattr(args, name, None)
        if name == "prune":
            value = tuple(value or ())
        if value != getattr(defaults, name):
            found[name] = value
    if found.get("prune"):
        from ..options import css_selectors

        try:
            css_selectors(found["prune"])
        except ValueError as exc:
            raise CliError(str(exc)) from None
    return found


def web_urls(args: argparse.Namespace, crawler: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """The page URLs the web inputs name (blacklist applied), and the discovery errors."""
    from ..batch.crawl import read_url_list, without_blacklisted
    from ..batch.discover import DiscoveryError, feed_links, walk_sitemaps

    urls: list[str] = [args.input_url] if args.input_url else []
    errors: list[tuple[str, str]] = []
    if args.input_file is not None:
        urls += read_url_list(read_file(args.input_file, args.max_bytes).decode("utf-8", "replace"))
    if args.feed is not None:
        fetched = crawler.get(args.feed)
        try:
            urls += feed_links(fetched.content, fetched.url)
        except DiscoveryError as exc:
            raise CliError(str(exc)) from None
    if args.sitemap is not None:
        walk = walk_sitemaps(args.sitemap, lambda url: crawler.get(url).content)
        if not walk.pages and walk.errors:
            raise CliError(walk.errors[0][1])
        urls += walk.pages
        errors += walk.errors
    blacklist = (read_url_list(read_file(args.blacklist, args.max_bytes).decode("utf-8", "replace"))
                 if args.blacklist else [])
    return without_blacklisted(urls, blacklist), errors


def url_output_name(url: str, extension: str) -> str:
    """A file name for a page's output: its host and path made safe, and a short hash of the URL."""
    import hashlib
    import re
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{parts.hostname or 'page'}{parts.path}").strip("._")[:80]
    digest = hashlib.blake2b(url.encode("utf-8"), digest_size=4).hexdigest()
    return f"{stem or 'page'}-{digest}{extension}"


def _web_setup(args: argparse.Namespace) -> Path | None:
    if args.source is not None or args.input_dir is not None or args.warc is not None:
        raise CliError("web inputs (-i, --feed, --sitemap) take no FILE|URL|-, --input-dir or --warc")
    if args.jobs < 0 or args.delay < 0 or args.retries < 0:
        raise CliError("--jobs, --delay and --retries must be 0 or more")
    if args.list or not args.output or args.output == "-":
        return None
    return make_output_dir(args.output)


def cmd_extract_web(args: argparse.Namespace) -> int:
    """Pages named by -u, -i, --feed and --sitemap, fetched by threads, extracted here in order."""
    from ..api import extract
    from ..batch.crawl import Crawler, CrawlSettings
    from ..errors import ThresherError
    from ..options import SeenTexts, options_from

    out_dir = _web_setup(args)
    switches = render_options(args)
    if switches.pop("deduplicate", False):
        switches["deduplicate"] = SeenTexts()  # one cache for the whole run
    options = options_from(dict(algorithm=check_algorithm(args.algorithm), output=args.format,
                                language=args.language, model=check_model(args.model), **switches))
    settings = CrawlSettings(timeout=args.timeout, max_bytes=args.max_bytes, max_total_bytes=args.max_total_bytes,
                             delay=args.delay, retries=args.retries, workers=max(1, args.jobs or os.cpu_count() or 1))
    ok, outputs = 0, []
    with Crawler(settings) as crawler:
        urls, problems = web_urls(args, crawler)
        if args.list:
            write_output("\n".join(urls), args.output)
            return EXIT_PARTIAL if problems else EXIT_OK
        for outcome in crawler.fetch_all(urls):
            if outcome.fetched is None:
                problems.append((outcome.url, outcome.error))
                continue
            try:
                text = extract(outcome.fetched.content, outcome.fetched.url, options=options,
                               content_type=outcome.fetched.content_type)
            except ThresherError as exc:
                problems.append((outcome.url, str(exc) or type(exc).__name__))
                continue
            ok += 1
            if out_dir is None:
                outputs.append(text)
            else:
                error = _write_page(out_dir / url_output_name(outcome.url, extension(args.format)), text)
                if error is not None:
                    problems.append((outcome.url, error))
    if out_dir is None:
        write_output("\n".join(_with_newline(t) for t in outputs if t), None)
    else:
        with (out_dir / "errors.jsonl").open("w", encoding="utf-8") as errors:
            errors.writelines(json.dumps({"url": url, "message": message}, ensure_ascii=False) + "\n"
                              for url, message in problems)
    for url, message in problems if out_dir is None else ():
        print(f"{PROG}: {url}: {message}", file=sys.stderr)
    print(f"{PROG}: {ok} ok, {len(problems)} errors", file=sys.stderr)
    return EXIT_PARTIAL if problems else EXIT_OK


def render_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of thresher.extract set by the output and content switches."""
    options = content_switches(args)
    if getattr(args, "links", False):
        options["links"] = True
    if getattr(args, "deduplicate", False):
        options["deduplicate"] = True
    return options
