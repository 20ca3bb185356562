"""No import cycle anywhere in the package: the graph of every ``thresher`` import (at module level
and inside functions alike; imports under ``if TYPE_CHECKING:`` only are left out, as they never
run) has no cycle. Importing ``a.b.c`` imports the packages ``a`` and ``a.b`` first, so those
count as imported too, except a module's own enclosing packages (Python has imported them
already when the module runs)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from test_layers import PACKAGE, module_name, modules


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.is_dir() or path.with_suffix(".py").exists()


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    return {id(inner) for node in ast.walk(tree)
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            for statement in node.body for inner in ast.walk(statement)}


def imports_of(path: Path) -> set[str]:
    """The ``thresher`` modules that running the module at ``path`` may import."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    targets: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names if alias.name.split(".")[0] == "thresher")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                target = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "thresher":
                continue
            targets.add(target)
            targets.update(f"{target}.{alias.name}" for alias in node.names if _is_module(f"{target}.{alias.name}"))
    enclosing = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
    if path.name == "__init__.py":
        enclosing.add(module)
    found = set()
    for target in targets:
        parts = target.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return found - enclosing - {module}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root] & graph.keys())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor] & graph.keys()))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_cycle_in_the_package():
    graph = {module_name(path): imports_of(path) for path in modules()}
    assert cycles(graph) == []


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"a"}, "b": {"x"}}, []),  # a module importing itself, or a module outside the graph
])
def test_cycles_are_found(graph, expected):
    assert cycles(graph) == expected


@pytest.mark.parametrize("where, source, expected", [
    ("cli/web.py", "from .main import PROG", {"thresher.cli.main"}),
    ("cli/web.py", "def f():\n    from .main import PROG", {"thresher.cli.main"}),
    ("cli/web.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .main import PROG", set()),
    ("options.py", "from .render.formats import FORMATS", {"thresher.render", "thresher.render.formats"}),
    ("features/native.py", "from .columns import Columns", {"thresher.features.columns"}),
    ("algorithms/__init__.py", "from . import base", {"thresher.algorithms.base"}),
])
def test_imports_are_read_as_python_runs_them(monkeypatch, where, source, expected):
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert imports_of(PACKAGE / where) == expected
