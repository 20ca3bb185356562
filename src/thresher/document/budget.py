"""The time budget of one extraction, on the Python side.

:func:`time_budget` opens a budget for the calling thread; every native call made inside
it stops once the deadline passes (the core checks it in its long loops), and
:func:`check` stops Python work between native calls the same way. Both raise
:class:`thresher.errors.ExtractionTimeout`. The deadline lives in the native module
(``thresher._core.enter_budget``), per thread, because it has to reach native calls
without changing their signatures; see docs/native-core.md.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

from .. import _core


def check_timeout(timeout: float | None) -> float | None:
    """``timeout`` when it is None or a positive, finite number of seconds; ValueError otherwise."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise ValueError(f"timeout must be a number of seconds or None, not {type(timeout).__name__}")
    if not (timeout > 0 and math.isfinite(timeout)):
        raise ValueError("timeout must be a positive, finite number of seconds, or None")
    return float(timeout)


@contextmanager
def time_budget(timeout: float | None) -> Iterator[None]:
    """Work inside stops with :class:`~thresher.errors.ExtractionTimeout` ``timeout`` seconds
    from now (None: no budget of its own). Inside another budget, the earlier deadline holds."""
    scope = _core.enter_budget(check_timeout(timeout))
    try:
        yield
    finally:
        _core.leave_budget(scope)


def check() -> None:
    """Raise :class:`~thresher.errors.ExtractionTimeout` when this thread's budget has run out."""
    _core.check_budget()
