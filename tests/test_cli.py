"""The command line: through ``main(argv)`` (fast) and ``python -m thresher`` (as users run it)."""
from __future__ import annotations

import gzip
import importlib.util
import json
import random
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import thresher
from thresher.algorithms import registry
from thresher.cli import main as cli
from thresher.evaluation import ThresherExtractor, evaluate

ALG = "justext"  # explicit: works whether or not the default algorithm is installed
PARAGRAPH = ("It was the best of times and it was the worst of times, it was the age of wisdom and it was "
             "the age of foolishness, and we had everything before us and we had nothing before us, and we "
             "were all going to be there with them in the end, as it is written in this article.")


def page(marker: str = "alpha") -> bytes:
    body = f"<h1>Heading {marker}</h1>" + "".join(f"<p>{marker} {PARAGRAPH}</p>" for _ in range(3))
    return (f"<html><head><title>Title {marker}</title></head><body><div>Menu Home</div>{body}"
            "<div>Footer</div></body></html>").encode()


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_module(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "thresher", *argv], input=stdin, capture_output=True,
                          timeout=120)


def assert_one_error_line(code: int, err: str, fragment: str = "") -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("thresher: error: ")
    assert fragment in lines[0]
    assert "Traceback" not in err


@pytest.fixture
def page_file(tmp_path) -> Path:
    path = tmp_path / "page.html"
    path.write_bytes(page())
    return path


# ------------------------------------------------------------------ extract

def test_extract_file_to_stdout(capsys, page_file):
    code, out, err = run_main(capsys, "extract", str(page_file), "--algorithm", ALG)
    assert code == 0 and err == ""
    assert "alpha It was the best of times" in out and "Menu Home" not in out
    assert out == thresher.extract(page(), algorithm=ALG) + "\n"


def test_extract_to_output_file(capsys, page_file, tmp_path):
    target = tmp_path / "out.txt"
    code, out, _ = run_main(capsys, "extract", str(page_file), "-a", ALG, "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_text(encoding="utf-8").startswith("Heading alpha")


def test_extract_gzipped_file(capsys, tmp_path):
    path = tmp_path / "page.html.gz"
    path.write_bytes(gzip.compress(page("zipped")))
    code, out, _ = run_main(capsys, "extract", str(path), "-a", ALG)
    assert code == 0 and "zipped It was" in out


def _renderer_missing(fmt: str) -> bool:
    from thresher.render.formats import output_format

    module = output_format(fmt).module
    return importlib.util.find_spec(f"thresher.render.{module}") is None


@pytest.mark.parametrize("fmt", thresher.FORMATS)
def test_extract_each_format(capsys, page_file, fmt):
    if _renderer_missing(fmt):
        pytest.skip(f"the {fmt} renderer (thresher.render) is not installed yet")
    code, out, err = run_main(capsys, "extract", str(page_file), "-a", ALG, "--format", fmt)
    assert code == 0, err
    assert out == thresher.extract(page(), algorithm=ALG, output=fmt).rstrip("\n") + "\n"
    assert "best of times" in out
    if fmt == "json":
        assert isinstance(json.loads(out), dict)
    if fmt == "html":
        assert "<" in out


@pytest.mark.parametrize("fmt", thresher.FORMATS)
def test_format_language_and_links_are_passed_on(capsys, page_file, monkeypatch, fmt):
    seen = {}

    def spy(html, url=None, **kwargs):
        seen.update(kwargs)
        return f"rendered as {kwargs['output']}"

    monkeypatch.setattr(thresher.api, "extract", spy)
    code, out, _ = run_main(capsys, "extract", str(page_file), "-a", ALG, "-f", fmt, "--links", "-l", "fr")
    assert code == 0 and out == f"rendered as {fmt}\n"
    assert (seen["output"], seen["links"], seen["language"], seen["algorithm"]) == (fmt, True, "fr", ALG)


def test_extract_from_stdin_subprocess():
    proc = run_module("extract", "-a", ALG, stdin=page("piped"))
    assert proc.returncode == 0, proc.stderr
    assert b"piped It was the best of times" in proc.stdout


def test_stdin_is_the_default_source(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(page("std"))))
    code, out, _ = run_main(capsys, "extract", "-a", ALG)
    assert code == 0 and "std It was" in out


@pytest.mark.parametrize("content,fragment", [
    (b"", "empty"),
    (b"   \n\t ", "empty"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
    (random.Random(7).randbytes(4096), "not an HTML page"),
])
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, content, fragment):
    path = tmp_path / "bad.html"
    path.write_bytes(content)
    code, out, err = run_main(capsys, "extract", str(path), "-a", ALG)
    assert out == ""
    assert_one_error_line(code, err, fragment)


def test_bad_input_through_the_module_has_no_traceback(tmp_path):
    proc = run_module("extract", "-a", ALG, stdin=b"%PDF-1.4 binary")
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == "thresher: error: not an HTML page: a PDF document"


@pytest.mark.parametrize("argv,fragment", [
    (["extract", "{tmp}/missing.html"], "No such file"),
    (["extract", "{tmp}"], "is a directory: add -o OUTDIR"),
    (["extract", "{page}", "-a", "no-such-algorithm"], "unknown algorithm 'no-such-algorithm'"),
    (["extract", "{page}", "--model", "{tmp}/none.json"], "model file not found"),
    (["extract", "{page}", "--jobs", "2"], "--input-dir only"),
    (["extract", "http://[::1/"], "http://[::1/"),
    (["evaluate", "{tmp}", "-a", ALG], "not a dataset"),
    (["explain", "{tmp}/missing.html", "-a", ALG], "No such file"),
])
def test_usage_errors_are_one_line(capsys, tmp_path, page_file, argv, fragment):
    argv = [a.format(tmp=tmp_path, page=page_file) for a in argv]
    if argv[0] == "extract" and "-a" not in argv:
        argv += ["-a", ALG]
    code, _, err = run_main(capsys, *argv)
    assert_one_error_line(code, err, fragment)


def test_unexpected_exception_is_one_line(capsys, page_file, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(thresher.api, "extract", broken)
    code, _, err = run_main(capsys, "extract", str(page_file), "-a", ALG)
    assert_one_error_line(code, err, "internal error: RuntimeError: boom")
    with pytest.raises(RuntimeError):
        cli.main(["--traceback", "extract", str(page_file), "-a", ALG])


def test_argparse_errors_and_help(capsys):
    code, _, err = run_main(capsys, "extract", "--format", "pdf")
    assert code == 2 and "invalid choice" in err
    code, out, _ = run_main(capsys, "--help")
    assert code == 0 and "exit codes:" in out and "partial failure" in out
    code, out, _ = run_main(capsys, "extract", "--help")
    assert code == 0 and "--input-dir" in out and "exit codes:" in out
    code, out, _ = run_main(capsys, "--version")
    assert code == 0 and thresher.__version__ in out


# -------------------------------------------------------------------- URLs

class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body, status = (page("fetched"), 200) if self.path == "/page" else (b"gone", 404)
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_extract_url(capsys, server):
    code, out, err = run_main(capsys, "extract", f"{server}/page", "-a", ALG)
    assert code == 0, err
    assert "fetched It was the best of times" in out


def test_url_passes_content_type_and_final_url(capsys, server, monkeypatch):
    seen = {}

    def spy(html, url=None, **kwargs):
        seen.update(html=html, url=url, **kwargs)
        return "spied"

    monkeypatch.setattr(thresher.api, "extract", spy)
    code, out, _ = run_main(capsys, "extract", f"{server}/page", "-a", ALG, "-f", "text")
    assert code == 0 and out == "spied\n"
    assert seen["content_type"] == "text/html; charset=utf-8"
    assert seen["url"] == f"{server}/page" and seen["html"] == page("fetched")


def test_url_http_error_is_one_line(capsys, server):
    code, _, err = run_main(capsys, "extract", f"{server}/missing", "-a", ALG)
    assert_one_error_line(code, err, "HTTP 404")


# -------------------------------------------------------------------- batch

@pytest.fixture
def input_dir(tmp_path) -> Path:
    root = tmp_path / "in"
    (root / "sub").mkdir(parents=True)
    (root / "a.html").write_bytes(page("first"))
    (root / "b.htm").write_bytes(page("second"))
    (root / "c.html.gz").write_bytes(gzip.compress(page("third")))
    (root / "bad.html").write_bytes(b"")
    (root / "notes.txt").write_bytes(page("ignored"))
    (root / "sub" / "deep.html").write_bytes(page("deep"))
    return root


def _errors(out_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (out_dir / "errors.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_with_one_bad_file(capsys, input_dir, tmp_path, jobs):
    out_dir = tmp_path / "out"
    code, out, err = run_main(capsys, "extract", "--input-dir", str(input_dir), "-o", str(out_dir),
                              "-a", ALG, "--jobs", jobs)
    assert code == 1 and out == ""
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.txt", "b.txt", "c.txt", "errors.jsonl"]
    assert "first It was" in (out_dir / "a.txt").read_text(encoding="utf-8")
    assert "third It was" in (out_dir / "c.txt").read_text(encoding="utf-8")
    (record,) = _errors(out_dir)
    assert record == {"path": str(input_dir / "bad.html"), "type": "InputError", "message": "empty input"}
    assert "3 ok, 1 errors" in err and "pages/s" in err


def test_batch_all_good_recursive_markdownless(capsys, input_dir, tmp_path):
    (input_dir / "bad.html").unlink()
    out_dir = tmp_path / "out"
    code, _, err = run_main(capsys, "extract", "--input-dir", str(input_dir), "-o", str(out_dir), "-a", ALG,
                            "--glob", "**/*.html")
    assert code == 0, err
    assert (out_dir / "a.txt").exists() and (out_dir / "sub" / "deep.txt").exists()
    assert not (out_dir / "b.txt").exists()  # *.htm does not match the given pattern
    assert _errors(out_dir) == []
    assert "2 ok, 0 errors" in err


def test_batch_through_the_module(input_dir, tmp_path):
    out_dir = tmp_path / "out"
    proc = run_module("extract", "--input-dir", str(input_dir), "-o", str(out_dir), "-a", ALG)
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr and b"3 ok, 1 errors" in proc.stderr
    assert len(_errors(out_dir)) == 1


def test_batch_setup_errors(capsys, input_dir, tmp_path, page_file):
    code, _, err = run_main(capsys, "extract", "--input-dir", str(input_dir), "-a", ALG)
    assert_one_error_line(code, err, "needs -o OUTDIR")
    code, _, err = run_main(capsys, "extract", "--input-dir", str(input_dir), "-o", str(input_dir), "-a", ALG)
    assert_one_error_line(code, err, "must differ")
    code, _, err = run_main(capsys, "extract", "--input-dir", str(tmp_path / "nope"), "-o", str(tmp_path / "o"),
                            "-a", ALG)
    assert_one_error_line(code, err, "not a directory")
    code, _, err = run_main(capsys, "extract", str(page_file), "--input-dir", str(input_dir), "-o",
                            str(tmp_path / "o"), "-a", ALG)
    assert_one_error_line(code, err, "not both")


def test_output_names_avoid_clashes(tmp_path):
    files = [tmp_path / n for n in ("a.html", "a.htm", "a.html.gz", "b.xhtml", "sub/c.HTML")]
    names = cli.output_names(files, tmp_path, ".md")
    assert names == [Path("a.md"), Path("a.htm.md"), Path("a.html.md"), Path("b.xhtml.md"), Path("sub/c.md")]
    assert len(set(names)) == len(names)


# --------------------------------------------------------- other commands

def test_algorithms_lists_the_registry(capsys):
    code, out, _ = run_main(capsys, "algorithms")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(registry())
    for line, (name, algorithm) in zip(lines, registry().items()):
        assert line.split()[0] == name
        assert line.endswith(algorithm.summary)


def test_explain_table(capsys, page_file, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = run_main(capsys, "explain", str(page_file), "-a", ALG)
    assert code == 0
    lines = out.splitlines()
    result = thresher.extract_result(page(), algorithm=ALG)
    assert lines[0] == f"# algorithm={ALG} language={result.language} blocks={len(result.blocks)} " \
                       f"kept={sum(result.labels)}"
    rows = [line for line in lines[2:] if not line.startswith(" " * 23)]  # continuation lines are indented
    assert len(rows) == len(result.blocks)
    for row, block, keep in zip(rows, result.blocks, result.labels):
        assert row.split()[0] == str(block.index)
        assert row.split()[1] == ("KEEP" if keep else "drop")
    body = " ".join(" ".join(line.split()) for line in lines[2:])
    for block, reason in zip(result.blocks, result.classification.reasons):
        assert reason in body and block.text in body  # full reasons and texts, never clipped
    assert any("KEEP" in r for r in rows) and any("drop" in r for r in rows)
    assert max(len(line) for line in lines[1:]) <= 100  # wrapped to the terminal's width


def _tiny_wcxb(root: Path, bad_page: bool = False) -> Path:
    (root / "ground-truth").mkdir(parents=True)
    (root / "html").mkdir()
    gold = "Heading {m}\n\n" + "\n\n".join([f"{{m}} {PARAGRAPH}"] * 3)
    pages = {"0001": ("one", "article"), "0002": ("two", "forum")}
    for key, (marker, kind) in pages.items():
        truth = {"url": f"https://t.example/{key}", "_internal": {"page_type": {"primary": kind}},
                 "ground_truth": {"main_content": gold.format(m=marker), "with": [marker], "without": ["Footer"]}}
        (root / "ground-truth" / f"{key}.json").write_text(json.dumps(truth), encoding="utf-8")
        (root / "html" / f"{key}.html.gz").write_bytes(gzip.compress(page(marker)))
    if bad_page:
        (root / "ground-truth" / "0003.json").write_text(json.dumps({"ground_truth": {"main_content": "x"}}))
        (root / "html" / "0003.html.gz").write_bytes(gzip.compress(b""))
    return root


def test_evaluate_prints_the_referee_lines(capsys, tmp_path):
    root = _tiny_wcxb(tmp_path / "tiny")
    out_file = tmp_path / "eval.json"
    code, out, err = run_main(capsys, "evaluate", str(root), "-a", ALG, "--out", str(out_file))
    assert code == 0, err
    expected = evaluate(root, ThresherExtractor(ALG)).lines()
    lines = out.splitlines()
    assert len(lines) == 2 + 1 + 2  # the referee's lines, then the per-type table's head and its two types
    assert lines[2].split() == ["type", "pages", "P", "R", "F1"]
    assert [line.split()[:2] for line in lines[3:]] == [["article", "1"], ["forum", "1"]]
    assert lines[0].split(" pages/s=")[0] == expected[0].split(" pages/s=")[0]
    assert lines[0].startswith("tiny [wcxb] pages=2 errors=0 P=")
    assert lines[1] == expected[1] and lines[1].startswith("  by type: article=")
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert data["summary"]["pages"] == 2 and set(data["outputs"]) == {"0001", "0002"}
    assert [row["id"] for row in data["pages"]] == ["0001", "0002"]


def test_evaluate_with_failing_page_is_partial(capsys, tmp_path):
    root = _tiny_wcxb(tmp_path / "tiny", bad_page=True)
    code, out, err = run_main(capsys, "evaluate", str(root), "-a", ALG, "--limit", "3")
    assert code == 1
    assert "pages=3 errors=1" in out
    assert err.strip() == "0003: InputError: empty input"


def _registry(monkeypatch, **trainers):
    """The training registry replaced by ``name=function`` specs (default folds 5, seed 0)."""
    from types import MappingProxyType

    from thresher.training import registry

    specs = {name.replace("_", "-"): registry.TrainerSpec(name.replace("_", "-"), "test", train, default_cv=5,
                                                          default_seed=0)
             for name, train in trainers.items()}
    monkeypatch.setattr(registry, "TRAINERS", MappingProxyType(specs))


def test_train_missing_package_is_a_clear_error(capsys, tmp_path, monkeypatch):
    def train(datasets, out, *, cv, seed):
        raise ModuleNotFoundError("No module named 'lightgbm'", name="lightgbm")

    _registry(monkeypatch, thresher=train)
    code, _, err = run_main(capsys, "train", str(tmp_path), "-o", str(tmp_path / "m.json"))
    assert_one_error_line(code, err, "training needs the 'lightgbm' package: pip install 'thresher[train]'")


def test_train_unknown_algorithm_lists_the_registry(capsys, tmp_path):
    from thresher.training.registry import TRAINERS

    code, _, err = run_main(capsys, "train", str(tmp_path), "-o", str(tmp_path / "m.json"), "-a", "nope")
    assert_one_error_line(code, err, f"cannot train 'nope': choose from {', '.join(TRAINERS)}")


def test_train_help_names_every_registered_trainer(capsys):
    from thresher.training.registry import TRAINERS

    code, out, _ = run_main(capsys, "train", "--help")
    assert code == 0 and all(name in " ".join(out.split()) for name in TRAINERS)


def test_the_registered_trainers_defaults_are_their_functions_defaults():
    import inspect

    from thresher.training.registry import TRAINERS

    for spec in TRAINERS.values():
        parameters = inspect.signature(spec.train).parameters
        assert parameters["cv"].default == spec.default_cv, spec.name
        assert parameters["seed"].default == spec.default_seed, spec.name


def test_only_the_train_command_imports_training():
    probe = ("import sys, thresher.cli.main; "
             "sys.exit(any(name.startswith('thresher.training') for name in sys.modules))")
    assert subprocess.run([sys.executable, "-c", probe], timeout=120).returncode == 0


def test_train_dispatches_to_the_registry(capsys, tmp_path, monkeypatch):
    def train(datasets, out, *, cv, seed):
        Path(out).write_text(repr((sorted(p.name for p in datasets), cv, seed)))
        return {"f1": 0.5}

    def train_quietly(datasets, out, *, cv, seed):
        return {}

    _registry(monkeypatch, dragnet=train, dragnet_comments=train_quietly)
    (tmp_path / "d1").mkdir()
    model = tmp_path / "model.json"
    code, out, _ = run_main(capsys, "train", str(tmp_path / "d1"), "-o", str(model), "--algorithm", "dragnet",
                            "--cv", "3", "--seed", "11")
    assert code == 0 and json.loads(out) == {"f1": 0.5}
    assert model.read_text() == "(['d1'], 3, 11)"
    code, _, _ = run_main(capsys, "train", str(tmp_path / "d1"), "-o", str(model), "-a", "dragnet")
    assert code == 0 and model.read_text() == "(['d1'], 5, 0)"  # the registry's defaults
    code, _, err = run_main(capsys, "train", str(tmp_path / "nope"), "-o", str(model), "-a", "dragnet")
    assert_one_error_line(code, err, "not a directory")
    code, out, _ = run_main(capsys, "train", str(tmp_path / "d1"), "-o", str(model), "-a", "dragnet-comments")
    assert code == 0 and out == ""


def test_a_gzipped_page_file_is_capped_like_a_fetched_page(tmp_path, capsys):
    import gzip

    from thresher.cli.main import main

    bomb = tmp_path / "bomb.html.gz"
    bomb.write_bytes(gzip.compress(b"<p>" + b"a" * 3_000_000 + b"</p>"))
    assert main(["extract", str(bomb), "--max-bytes", "1000000"]) == 2
    assert "size cap" in capsys.readouterr().err


def test_train_checks_its_packages_before_reading_a_page(capsys, tmp_path, monkeypatch):
    from thresher.training import registry

    def train(datasets, out, *, cv, seed):
        raise AssertionError("the trainer ran without its packages")

    spec = registry.TrainerSpec("thresher", "test", train, default_cv=5, needs=("lightgbm", "torch"))
    monkeypatch.setattr(registry, "TRAINERS", {"thresher": spec})
    monkeypatch.setattr(registry.importlib.util, "find_spec", lambda name: None if name == "torch" else object())
    code, _, err = run_main(capsys, "train", str(tmp_path), "-o", str(tmp_path / "m.npz"))
    assert_one_error_line(code, err, "training 'thresher' needs PyTorch (the block-sequence network")
    assert "pip install 'thresher[train]'" in err


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="PyTorch is installed here")
def test_training_the_default_without_pytorch_says_so_at_once(tmp_path):
    proc = run_module("train", str(tmp_path), "-o", str(tmp_path / "m.npz"))
    assert proc.returncode == 2 and b"needs PyTorch" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "m.npz").exists()
