"""The package's version: Cargo.toml's workspace version, the one version source, which the
compiled core carries and maturin gives the wheel. In the lowest layer so that any module may
read it."""
from __future__ import annotations

from ._core import __version__

__all__ = ["__version__"]
