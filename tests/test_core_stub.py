"""The type stub of the compiled module names exactly what the module exports."""
from __future__ import annotations

import ast
from pathlib import Path

from thresher import _core

STUB = Path(__file__).resolve().parents[1] / "src" / "thresher" / "_core.pyi"
STUB_ONLY = {"BlockRow", "DocumentColumns", "TreeFactsColumns"}  # types that exist for the checker only


def stub_names() -> dict[str, ast.stmt]:
    names: dict[str, ast.stmt] = {}
    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            names.update((target.id, node) for target in node.targets if isinstance(target, ast.Name))
    return names


def test_the_stub_names_every_export_and_nothing_else():
    exported = {name for name in dir(_core) if not name.startswith("_")} | {"__version__"}
    assert set(stub_names()) - STUB_ONLY == exported


def test_the_stub_names_every_method_of_each_class():
    for name, node in stub_names().items():
        if name in STUB_ONLY or not isinstance(node, ast.ClassDef):
            continue
        declared = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
        actual = {attr for attr in vars(getattr(_core, name)) if not attr.startswith("_") or attr == "__len__"}
        assert actual <= declared | {"__len__"}, name
        assert {m for m in declared if not m.startswith("_")} <= actual, name
