"""What the command line's modules share: exit codes, the one-line error, checking the algorithm
and model arguments, reading a page file and writing outputs. :mod:`.main` (the parser and the
commands) and :mod:`.web` (content switches and web inputs) both import it, and it imports
neither, so the two never import each other."""
from __future__ import annotations

import gzip
import sys
from pathlib import Path

from ..render.formats import output_format

EXIT_OK, EXIT_PARTIAL, EXIT_ERROR = 0, 1, 2
PROG = "thresher"


class CliError(Exception):
    """A user-facing failure: printed as one line, exit code 2."""


def extension(fmt: str) -> str:
    """The suffix of the files written in output format ``fmt`` (``.tei.xml`` for xmltei)."""
    return output_format(fmt).extension


def check_algorithm(name: str | None) -> str:
    from .. import algorithms
    from ..errors import UnknownAlgorithm

    name = name or algorithms.DEFAULT
    try:
        algorithms.get(name)  # imports that algorithm's module only
    except UnknownAlgorithm as exc:
        raise CliError(f"unknown algorithm {name!r}; available: {', '.join(exc.known) or 'none'}") from None
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
    from ..batch.pages import NotAFile, PageTooLarge, read_page

    try:
        return read_page(path, max_bytes)
    except PageTooLarge as exc:
        raise CliError(str(exc)) from None
    except NotAFile as exc:
        raise CliError(f"cannot read {exc}") from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise CliError(f"{path}: not valid gzip data ({exc})") from None
    except OSError as exc:
        raise CliError(f"cannot read {_os_message(exc, path)}") from None


def make_output_dir(path: str) -> Path:
    """OUTDIR, created if need be; :class:`CliError` when it cannot be."""
    out_dir = Path(path)
    if out_dir.exists() and not out_dir.is_dir():
        raise CliError(f"{out_dir}: exists and is not a directory")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot create {_os_message(exc, str(out_dir))}") from None
    return out_dir


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


def _write_page(target: Path, text: str) -> str | None:
    """Write one output, whole or not at all; the error message when that fails."""
    from ..batch.directory import write_atomically

    try:
        write_atomically(target, _with_newline(text).encode("utf-8"))
    except OSError as exc:
        return _os_message(exc, str(target))
    return None
