"""The package's version, read once from the installed distribution (maturin takes it from
``Cargo.toml``, the one version source). In the lowest layer so that any module may read it."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version as _distribution_version


def _version() -> str:
    try:
        return _distribution_version("thresher")
    except PackageNotFoundError:  # a source tree on the path that was never installed
        return "0+unknown"


__version__ = _version()
