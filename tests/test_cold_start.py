"""Cold start: ``import thresher`` loads nothing heavy, and each dependency loads with the first
extraction that needs it (issue 47). Each check runs in a fresh interpreter, whose ``sys.modules``
says what was imported. Timings are measured by benchmarks/startup.py, never here."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import thresher
from thresher import algorithms

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = ROOT / "examples" / "article.html"
HEAVY = ("numpy", "charset_normalizer", "py3langid", "stopwordsiso", "httpx", "thresher._core",
         "thresher.algorithms.flagship", "thresher.api", "thresher.metadata.extract", "thresher.batch.pool",
         "zipfile", "urllib.parse")


def loaded_after(code: str, *args: str) -> set[str]:
    """The modules of :data:`HEAVY` and of thresher that a fresh interpreter holds after ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True)
    modules = set(json.loads(out.stdout.splitlines()[-1]))
    return {m for m in modules if m in HEAVY or m.startswith("thresher")}


def test_import_loads_nothing_heavy():
    assert loaded_after("import thresher") == {"thresher", "thresher._lazy", "thresher.errors"}


def test_every_public_name_resolves_on_first_use():
    for name in thresher.__all__:
        assert getattr(thresher, name) is not None
    assert set(thresher.__all__) <= set(dir(thresher))
    from thresher.api import extract
    from thresher.options import Options

    assert thresher.extract is extract and thresher.Options is Options


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = thresher.nothing_here  # type: ignore[attr-defined]
    assert not hasattr(thresher, "nothing_here")


def test_an_english_extraction_loads_neither_language_identification_nor_numpy():
    loaded = loaded_after(f"import thresher\nthresher.extract(open({str(ARTICLE)!r}, 'rb').read())")
    assert "thresher.algorithms.flagship" in loaded
    # stopwordsiso's data file is read without importing the package (see thresher.document.language);
    # the model file is read without numpy, and the core hands back no array
    assert not loaded & {"numpy", "py3langid", "stopwordsiso", "httpx", "charset_normalizer",
                         "thresher.metadata.extract", "thresher.batch.pool"}
    assert not any(m.startswith("thresher.algorithms.") and m.split(".")[2] in {"justext", "declutter", "cetr"}
                   for m in loaded)


def test_an_english_extraction_reads_the_model_without_zipfile_or_the_python_models():
    """The core reads the model file and scores the page: Python's zipfile (which imports
    pathlib, shutil, bz2, lzma ...), the Python model classes and the feature columns, which
    only explain and training read, stay unloaded; so does urllib.parse, which only links
    and images need."""
    loaded = loaded_after(f"import thresher\nthresher.extract(open({str(ARTICLE)!r}, 'rb').read())")
    assert "thresher.inference.modelfile" in loaded
    assert not loaded & {"zipfile", "urllib.parse", "thresher.inference.treemodel", "thresher.inference.seqmodel",
                         "thresher.features.columns", "thresher.features.tokens", "thresher.features.tree"}


def test_numpy_loads_with_the_first_caller_that_reads_arrays():
    loaded = loaded_after(f"import thresher\nthresher.extract_result(open({str(ARTICLE)!r}, 'rb').read())"
                          ".document.numbers")
    assert "numpy" in loaded


def test_the_command_line_on_one_file_loads_no_pool_and_no_http_client():
    loaded = loaded_after("import sys\nfrom thresher.cli.main import main\n"
                          f"sys.argv = ['thresher', 'extract', {str(ARTICLE)!r}, '-o', '/dev/null']\nmain()")
    assert "thresher.api" in loaded
    assert not loaded & {"httpx", "thresher.batch.pool", "thresher.batch.warc", "py3langid"}


def test_getting_an_algorithm_imports_its_module_only():
    loaded = loaded_after("from thresher import algorithms\nalgorithms.get('justext+tree')")
    modules = {m for m in loaded if m.startswith("thresher.algorithms.")}
    assert modules == {"thresher.algorithms.base", "thresher.algorithms.justext", "thresher.algorithms.tree"}


def algorithm_modules() -> set[str]:
    """The modules of thresher.algorithms that define ``ALGORITHM`` or ``ALGORITHMS``, read from their source."""
    package = ROOT / "src" / "thresher" / "algorithms"
    found = set()
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {target.id for node in tree.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)}
        if names & {"ALGORITHM", "ALGORITHMS"}:
            relative = path.relative_to(package)
            found.add(relative.parent.name if relative.name == "__init__.py" else relative.stem)
    return found


def test_the_providers_table_names_what_each_module_defines():
    assert set(algorithms.PROVIDERS.values()) == algorithm_modules() - {"tree"}
    for module_name in set(algorithms.PROVIDERS.values()):
        module = __import__(f"thresher.algorithms.{module_name}", fromlist=["_"])
        defined = [a.name for a in algorithms.defined_by(module)]
        assert defined == [name for name, provider in algorithms.PROVIDERS.items() if provider == module_name]


def test_get_and_the_registry_give_the_same_algorithms():
    registry = algorithms.registry()
    assert list(registry) == list(algorithms.PROVIDERS) + [f"{name}+tree" for name in algorithms.PROVIDERS]
    assert all(algorithms.get(name) is algorithm for name, algorithm in registry.items())
    with pytest.raises(thresher.ThresherError, match="unknown algorithm 'thresher\\+tree\\+tree'"):
        algorithms.get("thresher+tree+tree")


def test_subpackages_load_as_attributes_on_first_use():
    loaded = loaded_after("import thresher\nassert thresher.algorithms.justext.Params().length_low > 0")
    assert "thresher.algorithms.justext" in loaded and "thresher.algorithms.flagship" not in loaded
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        _ = algorithms.nothing_here  # type: ignore[attr-defined]


def test_the_default_model_is_stored_uncompressed():
    """A first extraction reads the default model's arrays as they lie in the file: inflating
    them would cost it more than parsing the page (training writes them so, see
    thresher.training.learned)."""
    import zipfile

    from thresher.algorithms.flagship import MODEL_FILE
    from thresher.inference.learned import shipped_model_path

    with zipfile.ZipFile(shipped_model_path(MODEL_FILE)) as archive:
        assert {member.compress_type for member in archive.infolist()} == {zipfile.ZIP_STORED}

