"""py3langid's language identifier, loaded in milliseconds from an uncompressed copy of its model.

py3langid ships its model as one LZMA-compressed ``.npz`` of about 68 MB: decompressing it takes
about half a second in every process that identifies a language. The first process that needs the
identifier therefore writes the model's arrays, unchanged, as ``.npy`` files to a cache directory
(``THRESHER_CACHE_DIR``, else the user cache directory that ``platformdirs`` names, under
``py3langid-<py3langid's version>-<model file size>``, so every environment with the same
py3langid shares one copy); later processes map them. Writing a copy removes the copies of
other py3langid versions. The identifier is
py3langid's own :class:`~py3langid.langid.LanguageIdentifier` built from the same arrays, so it
decides exactly as py3langid does. ``THRESHER_CACHE_DIR=""`` turns the copy off, and any problem
with it (an unwritable directory, a damaged or foreign file) falls back to py3langid's own loader.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from array import array
from functools import lru_cache
from pathlib import Path
from typing import Any

# The model's arrays (py3langid.modelio's npz keys), each stored as <name>.npy; classes as JSON.
_ARRAYS = ("ptc", "pc", "nextmove", "nextmove_row", "out_feat")
_CLASSES = "classes.json"
_PREFIX = "py3langid-"
CACHE_ENV = "THRESHER_CACHE_DIR"


def cache_root() -> Path | None:
    """Where thresher keeps derived copies of its dependencies' data; None when turned off."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured.strip() else None
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("thresher", appauthor=False))


def load_identifier() -> Any:
    """py3langid's identifier (raw scores, as py3langid's ``classify`` uses it), from the
    uncompressed copy when there is one or one can be made, else from py3langid's own file;
    its tokenizer walk runs in the core (:func:`walked_identifier_type`)."""
    import py3langid
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    identifier_type = walked_identifier_type()
    source = Path(MODEL_DIR) / MODEL_FILE
    copy = _copy_dir(source, str(getattr(py3langid, "__version__", "unknown")))
    if copy is not None:
        try:
            if not copy.is_dir():
                _write_copy(source, copy)
            arrays, keywords = _read_copy(copy)
            return identifier_type(*arrays, norm_probs=False, **keywords)
        except (OSError, ValueError, TypeError, KeyError):  # unwritable, damaged, or another layout
            pass
    return identifier_type.from_model_file(MODEL_FILE, norm_probs=False)


@lru_cache(maxsize=1)
def walked_identifier_type() -> Any:
    """py3langid's ``LanguageIdentifier`` whose tokenizer walk (its ``visit_counts``, a Python
    loop over every byte of the sample) runs in the core's :class:`~thresher._core.ByteAutomaton`
    over the same tables. The features come in the order first passed with their counts, as
    ``visit_counts``' Counter holds them, and py3langid scores them: the same scores, bit for bit."""
    import numpy as np
    from py3langid.langid import LanguageIdentifier

    from .. import _core

    class WalkedIdentifier(LanguageIdentifier):
        __slots__ = ("_automaton",)

        def __init__(self, nb_ptc: Any, nb_pc: Any, nb_classes: Any, tk_nextmove: Any, tk_output: Any,
                     *args: Any, tk_row: Any, **kwargs: Any) -> None:
            self._automaton = _core.ByteAutomaton(np.asarray(tk_nextmove, np.uint32), np.asarray(tk_row, np.uint64),
                                                  np.asarray(tk_output, np.int64))
            # The transition table lives in the automaton alone (py3langid's walk is never run).
            super().__init__(nb_ptc, nb_pc, nb_classes, (), tk_output, *args, tk_row=tk_row, **kwargs)

        def _raw_score(self, text: bytes) -> Any:
            features, counts = self._automaton.visits(text)
            if not features:  # py3langid's score of a text without features (an empty walk)
                return super()._raw_score(b"")
            return self._sparse_score(dict(zip(features, counts)), self.nb_ptc)

    return WalkedIdentifier


def _copy_dir(source: Path, version: str) -> Path | None:
    """The copy's directory: named by py3langid's version and the model's size, never by the
    file's mtime, which differs in every environment that installed the same model."""
    root = cache_root()
    if root is None:
        return None
    try:
        size = source.stat().st_size
    except OSError:
        return None
    safe = "".join(c if c.isalnum() or c in "._+" else "_" for c in version)
    return root / f"{_PREFIX}{safe}-{size}"


def _remove_other_copies(keep: Path) -> None:
    """Delete the copies of other py3langid versions beside ``keep`` (a process still mapping
    one keeps its open files; a later one of that version writes its copy again)."""
    for sibling in keep.parent.glob(f"{_PREFIX}*"):
        if sibling != keep and sibling.is_dir():
            shutil.rmtree(sibling, ignore_errors=True)


def _write_copy(source: Path, target: Path) -> None:
    """Decompress py3langid's model into ``target``, atomically: a reader sees all of it or none."""
    import lzma

    import numpy as np

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".py3langid-", dir=target.parent))
    try:
        with tempfile.TemporaryFile(dir=staging) as npz:
            with lzma.open(source) as compressed:
                shutil.copyfileobj(compressed, npz, length=1 << 20)
            npz.seek(0)
            with np.load(npz, allow_pickle=False) as data:
                for name in _ARRAYS:
                    np.save(staging / f"{name}.npy", data[name], allow_pickle=False)
                (staging / _CLASSES).write_text(json.dumps(data["classes"].tolist()), encoding="utf-8")
        try:
            staging.rename(target)
        except OSError:  # another process wrote it first
            if not target.is_dir():
                raise
        _remove_other_copies(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _read_copy(copy: Path) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``LanguageIdentifier``'s arguments from the copy, checked against each other: the
    transition table and the word-class table are mapped (the core's automaton copies the
    first; a page reads a few hundred rows of the second)."""
    import numpy as np

    def npy(name: str, mmap: bool = False) -> np.ndarray:
        return np.load(copy / f"{name}.npy", mmap_mode="r" if mmap else None, allow_pickle=False)

    ptc, pc, nextmove, rows, out = npy("ptc", True), npy("pc"), npy("nextmove", True), npy("nextmove_row"), \
        npy("out_feat")
    classes = json.loads((copy / _CLASSES).read_text(encoding="utf-8"))
    states = len(rows)
    if not (ptc.ndim == 2 and ptc.shape[1] == len(pc) == len(classes) and len(out) == states
            and nextmove.ndim == 1 and nextmove.size % 256 == 0 and states
            and int(rows.max()) < nextmove.size // 256 and int(nextmove.max()) < states
            and int(out.max()) < ptc.shape[0] and all(isinstance(c, str) for c in classes)):
        raise ValueError(f"{copy}: the model copy's arrays do not fit together")
    row_of_state = _unsigned(rows)
    row_of_state.frombytes(np.ascontiguousarray(rows).data.cast("B"))
    return (ptc, pc, classes, nextmove, out.tolist()), {"tk_row": row_of_state}


def _unsigned(values: Any) -> array:
    """An empty stdlib array of ``values``' unsigned integer type (what py3langid's loader makes)."""
    if values.dtype.kind == "u":
        for code in "HILQ":
            if array(code).itemsize == values.dtype.itemsize:
                return array(code)
    raise ValueError(f"no stdlib array type for {values.dtype}")
