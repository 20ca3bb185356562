"""The package's layers: a module imports only from its own layer and the layers below it.

Layers, lowest first: the document model, features, model inference, algorithms, outputs and
filters, the public API, evaluation and explanation, training, batch, scale and the web inputs,
the command line.
Runtime code (every layer below training) never imports ``thresher.training``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "thresher"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "_core", "encoding_labels", "jsonld", "parse", "decode", "blocks", "language", "selectors"),
    ("features", "candidates"),
    ("treemodel", "seqmodel", "ngram", "learned"),
    ("algorithms",),
    ("options", "render", "metadata", "filters"),
    ("api", "__init__"),
    ("evaluation", "explain"),
    ("training",),
    ("batch", "batchdir", "fetch", "scale", "crawl", "discover"),
    ("cli", "cli_web", "__main__"),
)
LAYER_OF = {name: level for level, names in enumerate(LAYERS) for name in names}

# Known upward imports, each a debt with its issue: remove the entry when the import goes.
KNOWN_UPWARD = {
    # learned.cetr_cluster reads CETR's unit features through algorithms.cetr (issue 41: one
    # CETR implementation, in the features layer).
    ("learned", "algorithms"),
}


def top_name(module: str) -> str:
    """The first component below ``thresher`` of a dotted module name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Every ``thresher`` module ``path`` imports, as absolute dotted names."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "thresher")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "thresher":
                continue
            if target == "thresher":  # "from . import X": X is a module of the package
                found.update(f"thresher.{alias.name}" for alias in node.names)
            else:
                found.add(target)
    return found


def upward_imports() -> list[tuple[str, str]]:
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = top_name(module_name(path))
        for target in imported_modules(path):
            name = top_name(target)
            if name not in LAYER_OF:
                continue
            if LAYER_OF[name] > LAYER_OF[source] and (source, name) not in KNOWN_UPWARD:
                edges.append((module_name(path), target))
    return edges


def test_every_module_has_a_layer():
    names = {top_name(module_name(path)) for path in PACKAGE.rglob("*.py")}
    assert names - LAYER_OF.keys() == set()


def test_no_module_imports_upward():
    assert upward_imports() == []


def test_the_known_upward_imports_still_exist():
    """An entry of KNOWN_UPWARD that no longer happens must go, so the list stays true."""
    happening = set()
    for path in PACKAGE.rglob("*.py"):
        source = top_name(module_name(path))
        happening.update((source, top_name(t)) for t in imported_modules(path))
    assert happening >= KNOWN_UPWARD


def test_runtime_code_never_imports_training():
    runtime = [path for path in PACKAGE.rglob("*.py")
               if LAYER_OF[top_name(module_name(path))] < LAYER_OF["training"]]
    offenders = [(module_name(p), t) for p in runtime for t in imported_modules(p) if top_name(t) == "training"]
    assert offenders == []


@pytest.mark.parametrize("where, source, expected", [
    ("learned.py", "from . import features as F", {"thresher.features"}),
    ("algorithms/density.py", "from ..blocks import Document", {"thresher.blocks"}),
    ("algorithms/density.py", "from .base import Context", {"thresher.algorithms.base"}),
    ("algorithms/__init__.py", "from .base import Context", {"thresher.algorithms.base"}),
    ("cli.py", "import thresher.training.ngram", {"thresher.training.ngram"}),
])
def test_imports_are_resolved_as_python_resolves_them(monkeypatch, where, source, expected):
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert imported_modules(PACKAGE / where) == expected
