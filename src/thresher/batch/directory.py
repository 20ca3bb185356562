"""An input directory extracted into an output directory: what to read, and records that survive a kill.

Used by ``thresher extract --input-dir DIR -o OUTDIR``. Every input ends
with exactly one record: an output file under its final name, or a line of
``OUTDIR/errors.jsonl``.

- Listing (:func:`list_inputs`): files matching the patterns under DIR. A
  symbolic link is followed only while its target stays inside DIR (unless
  ``follow_links``); a link out of DIR, a link loop and a broken link are
  not read and get an error record each (types ``SymlinkOutsideInput``,
  ``SymlinkLoop``, ``BrokenSymlink``), so nothing is skipped silently. An entry
  that matches and is no regular file (a FIFO, a socket, a device, or a
  directory named like a page, ``x.html``) gets an error record of type
  ``NotAFile`` that says what it is; it is never opened, so a FIFO cannot
  block the run. (A directory whose name has no suffix, as ``**/*`` matches
  them all, is taken for a directory, not an input.)
- Outputs (:func:`write_atomically`): written to a temporary name in the
  target's directory, flushed, fsync'd and renamed, so a file under its
  final name is always complete. Temporaries a killed run left behind
  (``.NAME.*.thresher-tmp``) are removed by the next run.
- Errors (:class:`ErrorLog`): each line goes out in one ``write`` call on an
  unbuffered, append-only descriptor and is fsync'd, so a line written
  survives the process being killed right after.
- Resuming (:func:`plan`): an input whose output exists, or which has an
  error record, is not run again; earlier error records are kept
  (``retry_errors`` drops them and runs those inputs again). A failing input
  first loses any output an earlier run left, then gets its error line, so a
  kill between the two leaves neither and the input is simply run again.
"""
from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

ERRORS_NAME = "errors.jsonl"
TMP_SUFFIX = ".thresher-tmp"


class Entry(NamedTuple):
    """A directory entry that is not extracted, and why (an error record)."""

    path: Path
    type: str
    message: str


@dataclass(frozen=True)
class Listing:
    files: tuple[Path, ...]  # to extract, sorted
    skipped: tuple[Entry, ...]  # to report, sorted by path


# ------------------------------------------------------------------ listing

def _passes_through_link(path: Path, root: Path) -> bool:
    """True when ``path`` or one of its directories below ``root`` is a symbolic link."""
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            return True
    return False


def _is_inside(path: Path, real_root: Path) -> bool:
    return path == real_root or path.is_relative_to(real_root)


# What a directory entry that is no regular file is, by its stat mode.
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISDIR, "a directory"))


def what_it_is(mode: int) -> str:
    """What a file of stat ``mode`` is, in words ("a regular file", "a FIFO (named pipe)" ...)."""
    return next((name for test, name in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode)
                else "not a regular file")


def _not_a_page(path: Path, shown: Path) -> Entry | None:
    """An :class:`Entry` for ``shown`` when ``path`` (followed) is no regular file worth a record;
    ``None`` for a regular file, and for a directory whose name does not look like a page's."""
    try:
        mode = path.stat().st_mode  # a stat never opens: a FIFO cannot block it
    except OSError as exc:
        return Entry(shown, type(exc).__name__, f"cannot be read: {exc.strerror or exc}")
    if stat.S_ISREG(mode) or (stat.S_ISDIR(mode) and not shown.suffix):
        return None
    return Entry(shown, "NotAFile", f"{what_it_is(mode)} named like a page: not read")


def _classify(path: Path, root: Path, real_root: Path, follow_links: bool) -> Path | Entry | None:
    """``path`` to extract, an :class:`Entry` to report, or ``None`` for what is no input (a directory)."""
    if not _passes_through_link(path, root):
        entry = _not_a_page(path, path)
        return path if entry is None and path.is_file() else entry
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        return Entry(path, "BrokenSymlink", "a symbolic link to nothing: not read")
    except (OSError, RuntimeError):  # RuntimeError: Python 3.11's "Symlink loop"; OSError ELOOP later
        return Entry(path, "SymlinkLoop", "a symbolic link loop: not read")
    if not target.is_file():
        return _not_a_page(target, path)
    if not follow_links and not _is_inside(target, real_root):
        return Entry(path, "SymlinkOutsideInput",
                     f"links to {target}, outside the input directory: not read (--follow-links reads it)")
    return path


def list_inputs(root: Path, patterns: Sequence[str], follow_links: bool = False) -> Listing:
    """Files under ``root`` matching any pattern, each once, and the entries not read."""
    real_root = root.resolve()
    found = {p for pattern in patterns for p in root.glob(pattern)}
    kinds = [_classify(p, root, real_root, follow_links) for p in sorted(found)]
    return Listing(tuple(k for k in kinds if isinstance(k, Path)),
                   tuple(k for k in kinds if isinstance(k, Entry)))


# ------------------------------------------------------------------ writing

def _temporary_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}{TMP_SUFFIX}")


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so that ``target`` is either the old file or all of ``data``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary_name(target)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _write_all(fd: int, data: bytes) -> None:
    """One ``write`` call; another only for the rest of a short write (a full disk, a signal)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def remove_temporaries(out_dir: Path) -> None:
    """Delete the temporary files a killed run left in ``out_dir``."""
    for path in out_dir.rglob(f".*{TMP_SUFFIX}"):
        path.unlink(missing_ok=True)


def error_line(path: Path | str, kind: str, message: str) -> str:
    return json.dumps({"path": str(path), "type": kind, "message": message}, ensure_ascii=False) + "\n"


class ErrorLog:
    """``errors.jsonl``: the kept earlier lines, then one line per :meth:`add`, each durable once written."""

    def __init__(self, path: Path, kept: Sequence[str] = ()):
        write_atomically(path, "".join(kept).encode("utf-8"))  # replaces a torn or stale file whole
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)

    def add(self, path: Path | str, kind: str, message: str) -> None:
        _write_all(self._fd, error_line(path, kind, message).encode("utf-8"))
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> ErrorLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ----------------------------------------------------------------- resuming

def _key(path: Path | str) -> str:
    return os.path.normpath(os.path.abspath(path))


def _records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(line, record) for each whole, well-formed line of an error log; a torn last line is dropped."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    for line in text.splitlines(keepends=True):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if line.endswith("\n") and isinstance(record, dict) and isinstance(record.get("path"), str):
            yield line, record


@dataclass(frozen=True)
class Plan:
    """What a run does: the inputs to extract, the entries to report, the earlier records kept."""

    todo: tuple[tuple[Path, Path], ...]  # (input, output path)
    report: tuple[Entry, ...]
    kept: tuple[str, ...]  # earlier error lines
    done_before: int  # inputs with an output from an earlier run


def plan(listing: Listing, outputs: Sequence[Path], errors_path: Path, *, resume: bool,
         retry_errors: bool = False) -> Plan:
    """Everything, for a fresh run; for a resumed one, what an earlier run did not finish."""
    pairs = tuple(zip(listing.files, outputs))
    if not resume:
        return Plan(pairs, listing.skipped, (), 0)
    kept = () if retry_errors else tuple(line for line, _ in _records(errors_path))
    recorded = {_key(json.loads(line)["path"]) for line in kept}
    todo = tuple((p, o) for p, o in pairs if _key(p) not in recorded and not o.is_file())
    done_before = sum(1 for p, o in pairs if _key(p) not in recorded and o.is_file())
    report = tuple(e for e in listing.skipped if _key(e.path) not in recorded)
    return Plan(todo, report, kept, done_before)
