"""One version source: Cargo.toml's workspace version, which the wheel and ``thresher.__version__`` carry."""
from __future__ import annotations

import re
from pathlib import Path

import thresher

ROOT = Path(__file__).resolve().parents[1]


def workspace_version() -> str:
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    section = text.split("[workspace.package]", 1)[1].split("\n[", 1)[0]
    match = re.search(r'^version\s*=\s*"([^"]+)"', section, re.MULTILINE)
    assert match, "Cargo.toml's [workspace.package] declares no version"
    return match.group(1)


def test_the_package_version_is_the_workspace_version():
    assert thresher.__version__ == workspace_version()


def test_no_other_file_declares_a_version():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert re.search(r"^version\s*=", pyproject, re.MULTILINE) is None
    for crate in ("core", "python"):
        manifest = (ROOT / "crates" / crate / "Cargo.toml").read_text(encoding="utf-8")
        assert "version.workspace = true" in manifest
