"""trafilatura's command-line habits: no command, several inputs, a directory as the input."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from thresher.cli import main as cli

ALG = "justext"
PARAGRAPH = ("It was the best of times and it was the worst of times, it was the age of wisdom and it was "
             "the age of foolishness, and we had everything before us and we had nothing before us, and we "
             "were all going to be there with them in the end, as it is written in this article.")


def page(marker: str) -> bytes:
    body = f"<h1>Heading {marker}</h1>" + "".join(f"<p>{marker} {PARAGRAPH}</p>" for _ in range(3))
    return f"<html><head><title>{marker}</title></head><body><div>Menu</div>{body}</body></html>".encode()


def thresher_cmd(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """The real entry point, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "thresher", *argv], input=stdin, capture_output=True, timeout=120)


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def pages(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    for marker in ("alpha", "beta"):
        (folder / f"{marker}.html").write_bytes(page(marker))
    return folder


# ---------------------------------------------------------------- no command

def test_options_and_stdin_without_a_command_extract():
    proc = thresher_cmd("--markdown", "-a", ALG, stdin=page("piped"))
    assert proc.returncode == 0, proc.stderr
    assert "# Heading piped" in proc.stdout.decode().splitlines()


def test_a_file_without_a_command_is_extracted(pages):
    proc = thresher_cmd(str(pages / "alpha.html"), "-a", ALG)
    assert proc.returncode == 0 and b"alpha It was the best" in proc.stdout


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = page("fetched")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_dash_u_url_without_a_command_fetches_and_extracts():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        proc = thresher_cmd("-u", f"http://127.0.0.1:{httpd.server_address[1]}/page", "-a", ALG)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert proc.returncode == 0, proc.stderr
    assert b"fetched It was the best" in proc.stdout


def test_commands_help_and_typos_are_left_to_the_parser(capsys):
    parser = cli.build_parser()
    assert cli.with_command(parser, ["algorithms"]) == ["algorithms"]
    assert cli.with_command(parser, ["--traceback", "explain", "a.html"]) == ["--traceback", "explain", "a.html"]
    assert cli.with_command(parser, ["--help"]) == ["--help"]
    assert cli.with_command(parser, ["--traceback", "--markdown"]) == ["--traceback", "extract", "--markdown"]
    assert cli.with_command(parser, ["-u", "https://example.org/"]) == ["extract", "-u", "https://example.org/"]
    code, _, err = run_main(capsys, "extrct", "page.html")
    assert code == 2 and "invalid choice: 'extrct'" in err


# ---------------------------------------------------------------- several inputs

def test_several_inputs_go_to_stdout_one_after_the_other(pages, capsys):
    code, out, err = run_main(capsys, "extract", str(pages / "alpha.html"), str(pages / "beta.html"), "-a", ALG)
    assert code == 0, err
    assert 0 <= out.index("alpha It was") < out.index("beta It was")
    assert err.strip() == "thresher: 2 ok, 0 errors"


def test_several_inputs_through_the_entry_point(pages):
    proc = thresher_cmd("extract", str(pages / "alpha.html"), str(pages / "beta.html"), "-a", ALG)
    assert proc.returncode == 0 and b"alpha It was" in proc.stdout and b"beta It was" in proc.stdout


def test_several_inputs_with_outdir_and_one_failure(pages, tmp_path, capsys):
    out_dir = tmp_path / "out"
    missing = str(pages / "missing.html")
    code, out, err = run_main(capsys, str(pages / "alpha.html"), missing, str(pages / "beta.html"),
                              "-o", str(out_dir), "-a", ALG, "--format", "markdown")
    assert code == 1 and out == ""
    assert sorted(p.name for p in out_dir.iterdir()) == ["alpha.md", "beta.md", "errors.jsonl"]
    assert "# Heading beta" in (out_dir / "beta.md").read_text().splitlines()
    record = json.loads((out_dir / "errors.jsonl").read_text())
    assert record["input"] == missing and "No such file" in record["message"]
    assert f"thresher: {missing}: " in err and "2 ok, 1 errors" in err


def test_two_inputs_of_one_name_get_two_outputs(pages, tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    (other / "alpha.html").write_bytes(page("second"))
    code, _, _ = run_main(capsys, str(pages / "alpha.html"), str(other / "alpha.html"), "-o", str(tmp_path / "o"),
                          "-a", ALG)
    assert code == 0
    assert "second It was" in (tmp_path / "o" / "alpha-2.txt").read_text()


def test_url_with_several_inputs_is_refused(pages, capsys):
    code, _, err = run_main(capsys, str(pages / "alpha.html"), str(pages / "beta.html"), "--url", "https://a.b/")
    assert code == 2 and "--url is the address of one page" in err


# ---------------------------------------------------------------- a directory as the input

def test_a_directory_is_input_dir(pages, tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, _, err = run_main(capsys, "extract", str(pages), "-o", str(out_dir), "-a", ALG)
    assert code == 0, err
    assert sorted(p.name for p in out_dir.glob("*.txt")) == ["alpha.txt", "beta.txt"]
    assert "2 ok, 0 errors" in err


def test_a_directory_without_outdir_gets_a_one_line_hint(pages):
    proc = thresher_cmd(str(pages), "-a", ALG)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == (f"thresher: error: {pages} is a directory: add -o OUTDIR to extract "
                                            f"its files into OUTDIR (as --input-dir {pages} -o OUTDIR)")


def test_a_directory_among_several_inputs_is_refused(pages, capsys):
    code, _, err = run_main(capsys, "extract", str(pages / "alpha.html"), str(pages), "-o", "x")
    assert code == 2 and "is a directory: give it alone" in err
