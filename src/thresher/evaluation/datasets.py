"""Labelled datasets, read the way the project's referee reads them.

Four layouts, told apart by the files present (checked in this order):

``scrapinghub``  ``ground-truth.json`` (``{id: {"url", "articleBody"}}``) + ``html/<id>.html.gz``
``wcxb``         ``ground-truth/<id>.json`` + ``html/<id>.html.gz``
``snippets``     ``evaldata.json`` (``{url: {"file", "with", "without"}}``) + ``html/<file>``
``readability``  ``<id>/source.html`` + ``<id>/expected.html`` (+ ``expected-metadata.json``)

:func:`load` yields :class:`Page` records in the referee's order (sorted ids).
Gold data is a read-only mapping; the keys depend on the kind:

- wcxb: ``text``, ``with``, ``without`` (tuples of snippets), ``type`` (page type,
  ``category`` reported as ``collection``);
- scrapinghub and readability: ``text``;
- snippets: ``with``, ``without``.
"""
from __future__ import annotations

import gzip
import html as htmllib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from ..errors import ThresherError

KINDS = ("wcxb", "scrapinghub", "snippets", "readability")
# The layouts whose gold is a page's whole main text, which training aligns blocks to (the
# snippets layout only has sentences that must or must not be in an extraction).
TEXT_KINDS = ("wcxb", "scrapinghub", "readability")

_SCRIPT_OR_STYLE = re.compile(r"(?is)<(script|style)\b.*?</\1>")
_TAG = re.compile(r"(?s)<[^>]+>")


class DatasetError(ThresherError):
    """A directory is not a dataset in a known layout, or a file of it is malformed."""


class Page(NamedTuple):
    """One labelled page: ``html`` is the raw bytes (gunzipped), ``gold`` read-only."""

    id: str
    html: bytes
    url: str | None
    gold: Mapping[str, Any]


def detect_kind(root: str | Path) -> str:
    """Which layout ``root`` has; raise :class:`DatasetError` when none."""
    root = Path(root)
    if (root / "ground-truth.json").exists():
        return "scrapinghub"
    if (root / "ground-truth").is_dir():
        return "wcxb"
    if (root / "evaldata.json").exists():
        return "snippets"
    if any(root.glob("*/source.html")):
        return "readability"
    if not root.is_dir():
        raise DatasetError(f"{root}: no such directory")
    raise DatasetError(f"{root}: not a dataset in a known layout ({', '.join(KINDS)})")


def read_html(path: Path) -> bytes:
    """Bytes of a page file, gunzipped when the name ends in ``.gz``."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def html_to_text(markup: str) -> str:
    """Text of an HTML fragment: scripts and styles dropped, every tag a space, entities decoded."""
    return htmllib.unescape(_TAG.sub(" ", _SCRIPT_OR_STYLE.sub(" ", markup)))


def load(root: str | Path) -> Iterator[Page]:
    """Every page of the dataset at ``root``, in sorted-id order."""
    root = Path(root)
    loaders = {"wcxb": _load_wcxb, "scrapinghub": _load_scrapinghub,
               "snippets": _load_snippets, "readability": _load_readability}
    return loaders[detect_kind(root)](root)


def select(pages: Iterable[Page], every: int = 1, limit: int | None = None) -> Iterator[Page]:
    """Every ``every``-th page (starting with the first), then at most ``limit`` of those."""
    if every < 1:
        raise ValueError("every must be at least 1")
    chosen = islice(pages, 0, None, every)
    return chosen if limit is None else islice(chosen, max(0, limit))


def _frozen(gold: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType({k: tuple(v) if isinstance(v, list) else v for k, v in gold.items()})


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: malformed JSON: {exc}") from None


def wcxb_page_type(data: Mapping[str, Any]) -> Any:
    """The primary page type of a WCXB ground-truth record (``article`` when absent)."""
    page_type = (data.get("_internal") or {}).get("page_type") or {}
    if isinstance(page_type, dict):
        page_type = page_type.get("primary", "article")
    return "collection" if page_type == "category" else page_type


def _load_wcxb(root: Path) -> Iterator[Page]:
    for gt_file in sorted((root / "ground-truth").glob("*.json")):
        data = _read_json(gt_file)
        truth = data.get("ground_truth") or {}
        gold = {"text": truth.get("main_content") or "", "with": truth.get("with") or [],
                "without": truth.get("without") or [], "type": wcxb_page_type(data)}
        html = read_html(root / "html" / f"{gt_file.stem}.html.gz")
        yield Page(gt_file.stem, html, data.get("url"), _frozen(gold))


def _load_scrapinghub(root: Path) -> Iterator[Page]:
    truth = _read_json(root / "ground-truth.json")
    for key in sorted(truth):
        record = truth[key]
        html = read_html(root / "html" / f"{key}.html.gz")
        yield Page(key, html, record.get("url"), _frozen({"text": record.get("articleBody") or ""}))


def _load_snippets(root: Path) -> Iterator[Page]:
    evaldata = _read_json(root / "evaldata.json")
    for url in sorted(evaldata):
        item = evaldata[url]
        html = read_html(root / "html" / item["file"])
        yield Page(url, html, url, _frozen({"with": item["with"], "without": item["without"]}))


def _load_readability(root: Path) -> Iterator[Page]:
    for page_dir in sorted(p.parent for p in root.glob("*/source.html")):
        meta_file = page_dir / "expected-metadata.json"
        meta = _read_json(meta_file) if meta_file.exists() else {}
        expected = html_to_text((page_dir / "expected.html").read_text(encoding="utf-8"))
        yield Page(page_dir.name, (page_dir / "source.html").read_bytes(), meta.get("url"),
                   _frozen({"text": expected}))
