"""The package's layers: a module imports only from its own layer and the layers below it.

Each layer is a package (or a few top-level modules) of ``thresher``, lowest first: the document
model, features, model inference, algorithms, outputs and filters, the public API, evaluation and
explanation, training, batch work and the web inputs, the integrations with other engines (datatrove
...), the command line.
Runtime code (every layer below training) never imports ``thresher.training``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "thresher"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "_core", "_version", "document"),
    ("features",),
    ("inference",),
    ("algorithms",),
    ("options", "render", "metadata", "filters"),
    ("api", "__init__"),
    ("evaluation", "explain"),
    ("training",),
    ("batch",),
    ("integrations",),
    ("cli", "__main__"),
)
LAYER_OF = {name: level for level, names in enumerate(LAYERS) for name in names}


def top_name(module: str) -> str:
    """The first component below ``thresher`` of a dotted module name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    """Whether ``thresher.<name>`` is a module or package (else a name ``thresher/__init__.py`` defines)."""
    return (PACKAGE / name).is_dir() or any(PACKAGE.glob(f"{name}.*py")) or any(PACKAGE.glob(f"{name}.*.so"))


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
            if target == "thresher":  # "from .. import X": X is a module of the package or a name of its __init__
                found.update(f"thresher.{alias.name}" if is_module(alias.name) else "thresher" for alias in node.names)
            else:
                found.add(target)
    return found


def upward(path: Path) -> list[tuple[str, str]]:
    """The imports of the module at ``path`` that reach a higher layer than its own."""
    source = module_name(path)
    return sorted((source, target) for target in imported_modules(path)
                  if top_name(target) in LAYER_OF and LAYER_OF[top_name(target)] > LAYER_OF[top_name(source)])


def training_imports(path: Path) -> list[tuple[str, str]]:
    """The imports of ``thresher.training`` by the module at ``path`` when it is runtime code."""
    source = module_name(path)
    if LAYER_OF[top_name(source)] >= LAYER_OF["training"]:
        return []
    return sorted((source, target) for target in imported_modules(path) if top_name(target) == "training")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    names = {top_name(module_name(path)) for path in modules()}
    assert names - LAYER_OF.keys() == set()


def test_every_layer_exists():
    names = {top_name(module_name(path)) for path in modules()} | {"_core"}
    assert LAYER_OF.keys() - names == set()


def test_no_module_imports_upward():
    assert [edge for path in modules() for edge in upward(path)] == []


def test_runtime_code_never_imports_training():
    assert [edge for path in modules() for edge in training_imports(path)] == []


@pytest.mark.parametrize("where, source, expected", [
    ("inference/learned.py", "from ..algorithms import cetr as C",
     [("thresher.inference.learned", "thresher.algorithms")]),
    ("document/blocks.py", "from .. import api", [("thresher.document.blocks", "thresher.api")]),
    ("features/__init__.py", "import thresher.inference.treemodel",
     [("thresher.features", "thresher.inference.treemodel")]),
    ("algorithms/cetr.py", "from ..features.cetr import kmeans_origin", []),
    ("cli/main.py", "from ..batch.pool import extract_many", []),
])
def test_an_upward_import_is_found(monkeypatch, where, source, expected):
    """The check itself: a synthetic upward import fails it, a downward one passes."""
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert upward(PACKAGE / where) == expected


def test_a_runtime_import_of_training_is_found(monkeypatch):
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: "from ..training import ngram")
    assert training_imports(PACKAGE / "algorithms" / "density.py") == [
        ("thresher.algorithms.density", "thresher.training")]
    assert training_imports(PACKAGE / "cli" / "main.py") == []


@pytest.mark.parametrize("where, source, expected", [
    ("inference/learned.py", "from .. import features as F", {"thresher.features"}),
    ("inference/learned.py", "from ..features import Columns", {"thresher.features"}),
    ("algorithms/density.py", "from ..document.blocks import Document", {"thresher.document.blocks"}),
    ("algorithms/density.py", "from .base import Context", {"thresher.algorithms.base"}),
    ("algorithms/__init__.py", "from .base import Context", {"thresher.algorithms.base"}),
    ("features/__init__.py", "from .columns import Columns", {"thresher.features.columns"}),
    ("cli/main.py", "import thresher.training.ngram", {"thresher.training.ngram"}),
    ("render/tei.py", "from .. import __version__", {"thresher"}),
    ("document/blocks.py", "from .. import _core, errors", {"thresher._core", "thresher.errors"}),
])
def test_imports_are_resolved_as_python_resolves_them(monkeypatch, where, source, expected):
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert imported_modules(PACKAGE / where) == expected
