"""Source lines of a page, and the mapping of per-line decisions back to blocks.

Two of the older extractors (the density filter, CETR) work on the *lines of
the HTML source* rather than on a DOM. This module gives them those lines and
carries their line decisions over to the document's blocks, which is what every
thresher algorithm must label.

Lines (:func:`source_lines`)
    ``<script>``/``<style>`` elements (with their content) and comments are
    removed, in one linear pass (an unclosed one runs to the end of the page,
    as in a browser). The rest is cut into tags (``<`` + a letter, ``/``, ``!``
    or ``?`` up to the next ``>``; a ``<`` that does not open a tag is text)
    and text. Each line records its text (tags removed, entities unescaped,
    whitespace collapsed), the characters of its tags (brackets included) and
    the number of tags. A tag that runs over several lines is charged to the
    line it starts on. Lines with neither text nor tags are dropped.

Mapping (:func:`align_blocks`)
    A linear alignment of block text to line text. Both are reduced to their
    non-whitespace characters (so inline tags, which join text runs, and block
    tags, which separate them, reduce alike). Blocks are matched in reading
    order, each searched forward from where the previous one ended within a
    bounded window: first the whole block, then, for a block that the source
    interrupts (text inside ``iframe`` and other elements the document does
    not walk), its words in runs of at least 12 characters, and the words of
    a run not found whole one by one, close to the cursor. Each block gets
    the characters it matched on each line; :func:`block_labels` keeps a
    block when at least half of those characters lie on kept lines. A block
    that matches nothing is discarded. Every search covers a bounded window,
    so the mapping is linear in the page size.
"""
from __future__ import annotations

import html as htmllib
import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

# Openers of regions removed before lines are cut: comments, script, style.
_REMOVED_OPEN = re.compile(r"<!--|<(script|style)(?=[\s/>])", re.IGNORECASE)
_REMOVED_CLOSE = {
    "script": re.compile(r"</script\s*>", re.IGNORECASE),
    "style": re.compile(r"</style\s*>", re.IGNORECASE),
}
# A tag: `<` then a letter, `/`, `!` or `?`, up to the next `>` (no `<` inside,
# which keeps the scan linear on unclosed tags).
_TAG = re.compile(r"<[A-Za-z/!?][^<>]*>")

MIN_ANCHOR = 12  # characters in a run of words searched as one piece
SEARCH_WINDOW = 8192  # characters searched ahead of the cursor for a block or run
WORD_WINDOW = 256  # characters searched ahead of the cursor for a single word


class SourceLine(NamedTuple):
    """One non-blank line of the page source."""

    text: str  # tags removed, entities unescaped, whitespace collapsed
    markup_chars: int  # characters of the tags starting on this line, brackets included
    tag_count: int  # tags starting on this line


def strip_scripts(html: str) -> str:
    """``html`` without comments and ``script``/``style`` elements (their text included)."""
    pieces: list[str] = []
    pos = 0
    while True:
        found = _REMOVED_OPEN.search(html, pos)
        if found is None:
            pieces.append(html[pos:])
            break
        pieces.append(html[pos:found.start()])
        end = _removed_region_end(html, found)
        if end < 0:
            break
        pos = end
    return "".join(pieces)


def _removed_region_end(html: str, opener: re.Match) -> int:
    """End of the comment or element that ``opener`` starts; -1 when it is never closed."""
    if opener.group(1) is None:
        end = html.find("-->", opener.end())
        return -1 if end < 0 else end + 3
    close = _REMOVED_CLOSE[opener.group(1).lower()].search(html, opener.end())
    return -1 if close is None else close.end()


def source_lines(html: str) -> tuple[SourceLine, ...]:
    """The non-blank lines of ``html`` after removing scripts, styles and comments."""
    text_parts: list[list[str]] = [[]]
    markup = [0]
    tags = [0]
    pos = 0
    cleaned = strip_scripts(html)
    for match in _TAG.finditer(cleaned):
        _add_text(cleaned[pos:match.start()], text_parts, markup, tags)
        tag = match.group(0)
        markup[-1] += len(tag)
        tags[-1] += 1
        for _ in range(tag.count("\n")):
            _new_line(text_parts, markup, tags)
        pos = match.end()
    _add_text(cleaned[pos:], text_parts, markup, tags)
    out = []
    for parts, chars, count in zip(text_parts, markup, tags):
        text = " ".join(htmllib.unescape("".join(parts)).split()) if parts else ""
        if text or count:
            out.append(SourceLine(text, chars, count))
    return tuple(out)


def _new_line(text_parts: list, markup: list, tags: list) -> None:
    text_parts.append([])
    markup.append(0)
    tags.append(0)


def _add_text(text: str, text_parts: list, markup: list, tags: list) -> None:
    if not text:
        return
    first, *rest = text.split("\n")
    text_parts[-1].append(first)
    for line in rest:
        _new_line(text_parts, markup, tags)
        text_parts[-1].append(line)


# ------------------------------------------------------------------ mapping

def _compact(text: str) -> str:
    return "".join(text.split())


def align_blocks(block_texts: Sequence[str], line_texts: Sequence[str]
                 ) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For every block, the ``(line, matched characters)`` pairs of its alignment."""
    compact_lines = [_compact(text) for text in line_texts]
    lengths = np.fromiter((len(t) for t in compact_lines), dtype=np.int64, count=len(compact_lines))
    starts = np.concatenate(([0], np.cumsum(lengths)))
    stream = "".join(compact_lines)
    cursor = 0
    out = []
    for text in block_texts:
        segments, cursor = _match_block(stream, text, cursor)
        out.append(_segments_to_lines(segments, starts))
    return tuple(out)


def _match_block(stream: str, text: str, cursor: int) -> tuple[list[tuple[int, int]], int]:
    """Matched ``[start, end)`` segments of ``stream`` for one block, and the new cursor."""
    whole = _compact(text)
    if not whole:
        return [], cursor
    found = stream.find(whole, cursor, cursor + len(whole) + SEARCH_WINDOW)
    if found >= 0:
        return [(found, found + len(whole))], found + len(whole)
    segments: list[tuple[int, int]] = []
    for run in _runs(text.split()):
        found = stream.find("".join(run), cursor, cursor + SEARCH_WINDOW)
        if found >= 0:
            cursor = _take(segments, found, len("".join(run)))
            continue
        for word in run:
            found = stream.find(word, cursor, cursor + len(word) + WORD_WINDOW)
            if found >= 0:
                cursor = _take(segments, found, len(word))
    return segments, cursor


def _take(segments: list[tuple[int, int]], start: int, length: int) -> int:
    segments.append((start, start + length))
    return start + length


def _runs(words: list[str]) -> list[list[str]]:
    """Consecutive words grouped into runs of at least ``MIN_ANCHOR`` characters (the last may be shorter)."""
    runs: list[list[str]] = []
    current: list[str] = []
    size = 0
    for word in words:
        current.append(word)
        size += len(word)
        if size >= MIN_ANCHOR:
            runs.append(current)
            current, size = [], 0
    if current:
        runs.append(current)
    return runs


def _segments_to_lines(segments: list[tuple[int, int]], starts: np.ndarray) -> tuple[tuple[int, int], ...]:
    per_line: dict[int, int] = {}
    for start, end in segments:
        line = int(np.searchsorted(starts, start, side="right")) - 1
        while start < end:
            stop = min(end, int(starts[line + 1]))
            if stop > start:
                per_line[line] = per_line.get(line, 0) + stop - start
            start = stop
            line += 1
    return tuple(sorted(per_line.items()))


def block_labels(alignment: Sequence[Sequence[tuple[int, int]]], line_keep: Sequence[bool]
                 ) -> tuple[tuple[bool, ...], tuple[float, ...]]:
    """Per block: kept (at least half its matched characters on kept lines), and that share.

    A block with no matched characters is discarded with share 0.
    """
    labels, shares = [], []
    for pairs in alignment:
        matched = sum(chars for _, chars in pairs)
        kept = sum(chars for line, chars in pairs if line_keep[line])
        share = kept / matched if matched else 0.0
        labels.append(matched > 0 and share >= 0.5)
        shares.append(share)
    return tuple(labels), tuple(shares)


def page_source(doc, context) -> str | None:
    """The decoded HTML a document was built from, when the caller passed it on.

    The line units need the page source, which the document model does not keep;
    it is taken from a ``source`` attribute of the context or of the document,
    whichever is set. ``None`` means the caller has no source to give.
    """
    for holder in (context, doc):
        source = getattr(holder, "source", None)
        if isinstance(source, str) and source:
            return source
    return None
