"""``thresher extract --input-dir``: every input ends with exactly one output or one error record.

Time limits, durable and atomic records, resuming after a kill, symbolic links, size caps.
"""
from __future__ import annotations

import errno
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest

import thresher.batch.pool
from thresher.cli import main as cli

TMP_SUFFIX = ".thresher-tmp"  # thresher.batch.directory.TMP_SUFFIX, spelt out: this file must import with older code

ALG = "justext"
PARAGRAPH = ("It was the best of times and it was the worst of times, it was the age of wisdom and it was "
             "the age of foolishness, and we had everything before us and we had nothing before us, and we "
             "were all going to be there with them in the end, as it is written in this article.")
BINARY = bytes(range(256)) * 8
SRC = Path(thresher.__file__).resolve().parents[1]  # the thresher under test


def page(marker: str, paragraphs: int = 3) -> bytes:
    body = f"<h1>Heading {marker}</h1>" + "".join(f"<p>{marker} {i} {PARAGRAPH}</p>" for i in range(paragraphs))
    return f"<html><body><div>Menu Home</div>{body}<div>Footer</div></body></html>".encode()


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def batch(capsys, root: Path, out_dir: Path, *extra: str) -> tuple[int, str]:
    code, _, err = run_main(capsys, "extract", "--input-dir", str(root), "-o", str(out_dir), "-a", ALG, *extra)
    return code, err


def errors(out_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (out_dir / "errors.jsonl").read_text(encoding="utf-8").splitlines()]


def error_types(out_dir: Path) -> dict[str, str]:
    return {Path(r["path"]).name: r["type"] for r in errors(out_dir)}


def temporaries(out_dir: Path) -> list[Path]:
    return [p for p in out_dir.rglob("*") if p.name.endswith(TMP_SUFFIX)]


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "in"
    root.mkdir()
    (root / "a.html").write_bytes(page("first"))
    (root / "b.html").write_bytes(page("second"))
    (root / "bad.html").write_bytes(BINARY)
    return root


# --------------------------------------------------------------- time limit

def slow_on_marker(html, url, **kwargs) -> str:
    """Picklable stand-in for thresher.extract that hangs on a page saying SLOW."""
    if b"SLOW" in html:
        time.sleep(30)
    return html.decode()[:20]


def test_page_timeout_gives_a_timeout_record_and_the_batch_finishes(capsys, monkeypatch, root, tmp_path):
    (root / "hang.html").write_bytes(b"<p>SLOW</p>")
    monkeypatch.setattr(thresher.batch.pool, "extract_many", partial(thresher.batch.pool.extract_many,
                                                                extractor=slow_on_marker))
    out_dir = tmp_path / "out"
    code, err = batch(capsys, root, out_dir, "--page-timeout", "1.5")
    assert code == 1, err
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.txt", "b.txt", "errors.jsonl"]
    assert error_types(out_dir) == {"bad.html": "UnicodeDecodeError", "hang.html": "PageTimeout"}


@pytest.mark.parametrize("argv, fragment", [
    (["--page-timeout", "-1"], "--page-timeout"),
    (["--page-timeout", "nan"], "--page-timeout"),
    (["--retry-errors"], "needs --resume"),
    (["--max-bytes", "0"], "--max-bytes"),
])
def test_bad_batch_arguments(capsys, root, tmp_path, argv, fragment):
    code, err = batch(capsys, root, tmp_path / "out", *argv)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("flag", ["--resume", "--follow-links", "--page-timeout=5"])
def test_batch_flags_need_a_batch(capsys, tmp_path, flag):
    path = tmp_path / "p.html"
    path.write_bytes(page("x"))
    code, _, err = run_main(capsys, "extract", str(path), "-a", ALG, flag)
    assert code == 2 and "apply to --input-dir only" in err


# ------------------------------------------------------- durable records

def test_each_error_line_is_on_disk_before_the_next_page(capsys, monkeypatch, root, tmp_path):
    out_dir = tmp_path / "out"
    seen, real = [], thresher.batch.pool.extract_many

    def spying(paths, page_timeout, **kwargs):
        for record in real(paths, page_timeout=None, **kwargs):
            yield record
            seen.append((out_dir / "errors.jsonl").read_text(encoding="utf-8"))

    monkeypatch.setattr(thresher.batch.pool, "extract_many", spying)
    (root / "z.html").write_bytes(page("last"))  # so that the failing page is not the last one
    code, _ = batch(capsys, root, out_dir)
    assert code == 1
    names = [p.name for p in sorted(root.iterdir())]
    bad_line = next(text for name, text in zip(names, seen) if name == "bad.html")
    assert json.loads(bad_line)["type"] == "InputError"  # written and flushed, not in a buffer


def test_an_output_that_cannot_be_written_whole_is_not_left_under_its_name(capsys, monkeypatch, root, tmp_path):
    out_dir = tmp_path / "out"
    real_write = os.write

    def disk_full_in_outputs(fd, data):
        if b"It was the best" in bytes(data):  # an output, not an error line
            real_write(fd, bytes(data[:len(data) // 2]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", disk_full_in_outputs)
    code, err = batch(capsys, root, out_dir, "--page-timeout", "0")  # in this process: the patch applies
    assert code == 1, err
    assert sorted(p.name for p in out_dir.iterdir()) == ["errors.jsonl"]  # no a.txt, b.txt, nor a temporary
    assert error_types(out_dir) == {"a.html": "OSError", "b.html": "OSError", "bad.html": "InputError"}
    assert errors(out_dir)[0]["message"] == f"{out_dir / 'a.txt'}: {os.strerror(errno.ENOSPC)}"


def test_a_failing_input_loses_the_output_of_an_earlier_run(capsys, root, tmp_path):
    out_dir = tmp_path / "out"
    assert batch(capsys, root, out_dir)[0] == 1
    assert (out_dir / "a.txt").exists()
    (root / "a.html").write_bytes(b"")
    assert batch(capsys, root, out_dir)[0] == 1
    assert not (out_dir / "a.txt").exists()
    assert error_types(out_dir) == {"a.html": "InputError", "bad.html": "InputError"}


# ------------------------------------------------------------------ resume

def test_resume_runs_only_what_is_missing_and_keeps_error_records(capsys, root, tmp_path):
    out_dir = tmp_path / "out"
    assert batch(capsys, root, out_dir)[0] == 1
    first = (out_dir / "b.txt").read_text(encoding="utf-8")
    (out_dir / "a.txt").unlink()
    (out_dir / "b.txt").write_text("kept as it is", encoding="utf-8")
    with (out_dir / "errors.jsonl").open("a", encoding="utf-8") as log:
        log.write('{"path": "torn')  # a kill in the middle of a line (not possible now; tolerated anyway)
    (out_dir / ".a.txt.1234abcd.thresher-tmp").write_text("partial")
    code, err = batch(capsys, root, out_dir, "--resume")
    assert code == 1
    assert "1 ok, 0 errors" in err and "resumed: 1 outputs and 1 errors" in err
    assert "first 0 It was" in (out_dir / "a.txt").read_text(encoding="utf-8")
    assert (out_dir / "b.txt").read_text(encoding="utf-8") == "kept as it is" != first
    assert errors(out_dir) == [{"path": str(root / "bad.html"), "type": "InputError",
                                "message": "not an HTML page: binary data"}]
    assert temporaries(out_dir) == []


def test_retry_errors_runs_failed_inputs_again(capsys, root, tmp_path):
    out_dir = tmp_path / "out"
    assert batch(capsys, root, out_dir)[0] == 1
    (root / "bad.html").write_bytes(page("fixed"))
    code, err = batch(capsys, root, out_dir, "--resume")
    assert code == 1 and "0 ok, 0 errors" in err and len(errors(out_dir)) == 1
    code, err = batch(capsys, root, out_dir, "--resume", "--retry-errors")
    assert code == 0 and "1 ok, 0 errors" in err
    assert errors(out_dir) == [] and "fixed 0 It was" in (out_dir / "bad.txt").read_text(encoding="utf-8")


def test_without_resume_everything_runs_again_and_errors_start_afresh(capsys, root, tmp_path):
    out_dir = tmp_path / "out"
    assert batch(capsys, root, out_dir)[0] == 1
    code, err = batch(capsys, root, out_dir)
    assert code == 1 and "2 ok, 1 errors" in err and len(errors(out_dir)) == 1


KILL_PAGES = 40


def kill_test_input(root: Path) -> dict[str, bool]:
    """Pages worth a few milliseconds each, one in five binary; name -> whether it should succeed."""
    root.mkdir()
    expected = {}
    for i in range(KILL_PAGES):
        bad, packed = i % 5 == 3, i % 7 == 1
        data = BINARY if bad else page(f"page{i}", paragraphs=400)
        name = f"p{i:02d}.html" + (".gz" if packed else "")
        (root / name).write_bytes(gzip.compress(data) if packed else data)
        expected[name] = not bad
    return expected


def output_name(input_name: str) -> str:
    return input_name.removesuffix(".gz").removesuffix(".html") + ".txt"


@pytest.fixture(scope="module")
def kill_batch(tmp_path_factory) -> tuple[Path, dict[str, bool], Path]:
    """(input dir, expected outcomes, reference outputs from one uninterrupted run in this process)."""
    base = tmp_path_factory.mktemp("kill")
    expected = kill_test_input(base / "in")
    cli.main(["extract", "--input-dir", str(base / "in"), "-o", str(base / "ref"), "-a", ALG, "--page-timeout", "0"])
    return base / "in", expected, base / "ref"


def records_so_far(out_dir: Path) -> int:
    outputs = sum(1 for p in out_dir.glob("*.txt"))
    log = out_dir / "errors.jsonl"
    return outputs + (log.read_bytes().count(b"\n") if log.exists() else 0)


def run_and_kill(root: Path, out_dir: Path, kill_after: int | None, *extra: str) -> int | None:
    """Run the batch in a subprocess; SIGKILL it once ``kill_after`` records exist (None: let it finish)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    argv = [sys.executable, "-m", "thresher", "extract", "--input-dir", str(root), "-o", str(out_dir),
            "-a", ALG, "--jobs", "2", *extra]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while kill_after is not None and proc.poll() is None:
            if out_dir.exists() and records_so_far(out_dir) >= kill_after:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.002)
        return proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()


def check_records(out_dir: Path, ref: Path, expected: dict[str, bool], complete: bool) -> None:
    """Outputs under final names are whole; no input has two records; at the end, each has one."""
    outputs = {p.name for p in out_dir.glob("*.txt")}
    for name in outputs:
        assert (out_dir / name).read_bytes() == (ref / name).read_bytes(), name
    lines = (out_dir / "errors.jsonl").read_text(encoding="utf-8").splitlines() \
        if (out_dir / "errors.jsonl").exists() else []
    failed = [Path(json.loads(line)["path"]).name for line in lines]
    assert len(failed) == len(set(failed)), "an input has two error records"
    assert not outputs & {output_name(n) for n in failed}, "an input has an output and an error record"
    assert all(not expected[name] for name in failed)
    assert outputs <= {output_name(n) for n, ok in expected.items() if ok}
    if complete:
        assert outputs == {output_name(n) for n, ok in expected.items() if ok}
        assert set(failed) == {n for n, ok in expected.items() if not ok}
        assert temporaries(out_dir) == []


@pytest.mark.parametrize("seed", range(3))  # two kills each: six kill points
def test_killed_batches_resume_to_exactly_one_record_per_input(kill_batch, tmp_path, seed):
    root, expected, ref = kill_batch
    out_dir = tmp_path / "out"
    rng = random.Random(seed)
    first_kill = rng.randrange(1, KILL_PAGES // 2)
    assert run_and_kill(root, out_dir, first_kill) == -signal.SIGKILL
    check_records(out_dir, ref, expected, complete=False)
    second_kill = min(records_so_far(out_dir) + rng.randrange(1, KILL_PAGES // 4), KILL_PAGES - 1)
    assert run_and_kill(root, out_dir, second_kill, "--resume") == -signal.SIGKILL
    check_records(out_dir, ref, expected, complete=False)
    assert run_and_kill(root, out_dir, None, "--resume") == 1
    check_records(out_dir, ref, expected, complete=True)


# ------------------------------------------------------------ symbolic links

@pytest.fixture
def linked(root, tmp_path) -> Path:
    secret = tmp_path / "secret.html"
    secret.write_bytes(page("secret"))
    (root / "evil.html").symlink_to(secret)
    (root / "loop.html").symlink_to("loop.html")
    (root / "gone.html").symlink_to("nothing.html")
    (root / "alias.html").symlink_to("a.html")
    (root / "sub").symlink_to(tmp_path)  # a directory link out of DIR
    return root


def test_links_out_of_the_input_directory_and_loops_are_reported_not_read(capsys, linked, tmp_path):
    out_dir = tmp_path / "out"
    code, err = batch(capsys, linked, out_dir, "--glob", "*.html", "--glob", "*/*.html")
    assert code == 1, err
    assert not (out_dir / "evil.txt").exists() and not (out_dir / "sub").exists()
    assert "first 0 It was" in (out_dir / "alias.txt").read_text(encoding="utf-8")  # a link inside DIR
    assert error_types(out_dir) == {"bad.html": "InputError", "evil.html": "SymlinkOutsideInput",
                                    "loop.html": "SymlinkLoop", "gone.html": "BrokenSymlink",
                                    "secret.html": "SymlinkOutsideInput"}
    assert "secret 0" not in "".join(p.read_text(encoding="utf-8") for p in out_dir.rglob("*") if p.is_file())
    code, err = batch(capsys, linked, out_dir, "--glob", "*.html", "--glob", "*/*.html", "--resume")
    assert code == 1 and len(errors(out_dir)) == 5  # reported once, not again on resume


def test_follow_links_reads_links_out_of_the_input_directory(capsys, linked, tmp_path):
    out_dir = tmp_path / "out"
    code, err = batch(capsys, linked, out_dir, "--follow-links")
    assert code == 1, err
    assert "secret 0 It was" in (out_dir / "evil.txt").read_text(encoding="utf-8")
    assert error_types(out_dir) == {"bad.html": "InputError", "loop.html": "SymlinkLoop",
                                    "gone.html": "BrokenSymlink"}


# ---------------------------------------------------------------- size cap

def test_a_gzip_bomb_in_the_input_directory_gets_a_size_error(capsys, root, tmp_path):
    (root / "bomb.html.gz").write_bytes(gzip.compress(b"<p>" + b" " * (1 << 20), compresslevel=9))
    out_dir = tmp_path / "out"
    code, err = batch(capsys, root, out_dir, "--max-bytes", str(100_000), "--page-timeout", "0")
    assert code == 1, err
    types = error_types(out_dir)
    assert types == {"bad.html": "InputError", "bomb.html.gz": "PageTooLarge"}
    assert "gunzips to more than 100,000 bytes" in errors(out_dir)[1]["message"]


# ------------------------------------------- the time budget, and what is no file

def many_items(n: int) -> bytes:
    return b"<html><body><ul>" + b"<li>item" * n + b"</ul></body></html>"


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_a_huge_page_past_its_budget_is_one_extraction_timeout_record(capsys, tmp_path, jobs):
    root, out_dir = tmp_path / "in", tmp_path / "out"
    root.mkdir()
    (root / "tiny.html").write_bytes(b"<html><body><p>One line of text.</p></body></html>")
    (root / "huge.html").write_bytes(many_items(2_000_000))
    code, _, err = run_main(capsys, "extract", "--input-dir", str(root), "-o", str(out_dir),
                            "--page-timeout", "0.5", "--jobs", jobs)
    assert code == 1, err
    assert "One line of text." in (out_dir / "tiny.txt").read_text(encoding="utf-8")
    (record,) = errors(out_dir)
    assert Path(record["path"]).name == "huge.html" and record["type"] == "ExtractionTimeout"
    assert "0.5 s" in record["message"]
    assert sorted(p.name for p in out_dir.iterdir()) == ["errors.jsonl", "tiny.txt"]


@pytest.fixture
def odd_entries(root) -> Path:
    """``root`` with a FIFO, a socket and a directory named like pages, and a plain directory."""
    import socket

    os.mkfifo(root / "pipe.html")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(root / "sock.html"))
    except OSError as exc:  # a path too long for a socket address
        pytest.skip(f"no Unix socket here: {exc}")
    (root / "folder.html").mkdir()
    (root / "folder.html" / "inner.txt").write_text("not a page")
    (root / "plain").mkdir()
    yield root
    listener.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and Unix sockets")
@pytest.mark.parametrize("name, kind", [("pipe.html", "a FIFO (named pipe)"), ("sock.html", "a socket"),
                                        ("folder.html", "a directory")])
def test_an_entry_that_is_no_file_gets_one_record_that_says_what_it_is(capsys, odd_entries, tmp_path, name, kind):
    out_dir = tmp_path / "out"
    code, err = batch(capsys, odd_entries, out_dir)  # a FIFO is never opened: this cannot block
    assert code == 1, err
    records = [r for r in errors(out_dir) if Path(r["path"]).name == name]
    assert len(records) == 1
    assert records[0]["type"] == "NotAFile" and kind in records[0]["message"]
    assert {"a.txt", "b.txt"} <= {p.name for p in out_dir.iterdir()}
    assert not any(Path(r["path"]).name == "plain" for r in errors(out_dir))  # a directory, not an input


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_given_as_an_input_is_not_opened_for_blocking_reads(tmp_path):
    fifo = tmp_path / "given.html"
    os.mkfifo(fifo)
    (record,) = thresher.batch.pool.extract_many([fifo], algorithm=ALG, page_timeout=None)
    assert record.error is not None and record.error.type == "NotAFile"
    assert "FIFO" in record.error.message
