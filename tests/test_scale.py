"""thresher.batch.warc: WARC reading, extraction of every HTML response, the --warc CLI, Dask bags."""
from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import pytest

from thresher.batch import warc as scale
from thresher.batch.warc import WarcPage, WarcResult, extract_warc, iter_warc
from thresher.cli import main as cli

warcio = pytest.importorskip("warcio", reason="warcio (thresher[scale]) is not installed")
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

ALG = "justext"  # explicit: the default learned model may be absent
PARAGRAPH = ("It was the best of times and it was the worst of times, it was the age of wisdom and it was "
             "the age of foolishness, and we had everything before us and we had nothing before us, and we "
             "were all going to be there with them in the end, as it is written in this article.")
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def page(marker: str, extra: str = "") -> str:
    body = f"<h1>Heading {marker}</h1>" + "".join(f"<p>{marker} {extra}{PARAGRAPH}</p>" for _ in range(3))
    return f"<html><body><div>Menu Home</div>{body}<div>Footer</div></body></html>"


def chunked(data: bytes, size: int = 100) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(data[i:i + size]), data[i:i + size]) for i in range(0, len(data), size)]
    return b"".join(parts) + b"0\r\n\r\n"


LATIN = page("beta", "Café déjà vu. ").encode("latin-1")  # no <meta charset>: only the HTTP header tells
# (url, Content-Type, extra HTTP headers, payload as sent); the ids are assigned by the writer
RESPONSES = [
    ("https://a.example/utf8", "text/html; charset=utf-8", [], page("alpha").encode()),
    ("https://b.example/latin", "text/html; charset=ISO-8859-1", [], LATIN),
    ("https://c.example/logo.png", "image/png", [], PNG),
    ("https://d.example/empty", "text/html", [], b""),
    ("https://e.example/xhtml", "application/xhtml+xml", [("Content-Encoding", "gzip")],
     gzip.compress(page("epsilon").encode())),
    ("https://f.example/chunked", "Text/HTML", [("Transfer-Encoding", "chunked")], chunked(page("zeta").encode())),
    ("https://g.example/data.json", "application/json", [], b'{"a": 1}'),
]
HTML_URLS = [url for url, ctype, _, _ in RESPONSES if scale.is_html_type(ctype)]


def write_warc(path: Path, responses=RESPONSES, compress: bool = True) -> list[str]:
    """A WARC with warcinfo, a request per response, and the responses; the HTML responses' record ids."""
    ids = []
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=compress)
        writer.write_record(writer.create_warcinfo_record(path.name, {"software": "thresher-tests"}))
        for url, ctype, extra, payload in responses:
            request = StatusAndHeaders("GET / HTTP/1.1", [("Host", url.split("/")[2])], is_http_request=True)
            writer.write_record(writer.create_warc_record(url, "request", http_headers=request))
            headers = StatusAndHeaders("200 OK", [("Content-Type", ctype), *extra], protocol="HTTP/1.1")
            record = writer.create_warc_record(url, "response", payload=io.BytesIO(payload),
                                               http_headers=headers)
            writer.write_record(record)
            if scale.is_html_type(ctype):
                ids.append(record.rec_headers.get_header("WARC-Record-ID"))
    return ids


@pytest.fixture
def warc(tmp_path) -> tuple[Path, list[str]]:
    path = tmp_path / "crawl.warc.gz"
    return path, write_warc(path)


def by_url(results) -> dict:
    return {r.url: r for r in results}


# ------------------------------------------------------------------ iter_warc

def test_iter_warc_yields_html_responses_only_with_decoded_payloads(warc):
    path, ids = warc
    pages = list(iter_warc(path))
    assert [p.url for p in pages] == HTML_URLS
    assert [p.record_id for p in pages] == ids
    assert all(isinstance(p, WarcPage) and p.error is None for p in pages)
    found = {p.url: p for p in pages}
    assert found["https://b.example/latin"].content_type == "text/html; charset=ISO-8859-1"
    assert "Café".encode("latin-1") in found["https://b.example/latin"].html
    assert found["https://e.example/xhtml"].html.startswith(b"<html>")  # gzip content-encoding undone
    assert found["https://f.example/chunked"].html == page("zeta").encode()  # chunking undone
    assert found["https://d.example/empty"].html == b""


def test_iter_warc_reads_streams_and_uncompressed_archives(tmp_path):
    path = tmp_path / "plain.warc"
    write_warc(path, compress=False)
    from_stream = list(iter_warc(io.BytesIO(path.read_bytes())))
    assert [p.url for p in from_stream] == HTML_URLS == [p.url for p in iter_warc(str(path))]


def test_record_over_the_cap_is_an_error_page_not_loaded(tmp_path):
    path = tmp_path / "big.warc.gz"
    big = page("huge", "x" * 5000).encode()
    write_warc(path, [RESPONSES[0], ("https://big.example/", "text/html", [], big), RESPONSES[1]])
    pages = list(iter_warc(path, max_record_bytes=3000))
    assert [p.url for p in pages] == ["https://a.example/utf8", "https://big.example/", "https://b.example/latin"]
    small_a, huge, small_b = pages
    assert small_a.error is None and small_b.error is None
    assert huge.html == b"" and huge.error.type == "RecordTooLarge" and "3000" in huge.error.message


def test_missing_file_fails_at_the_call(tmp_path):
    with pytest.raises(FileNotFoundError):
        iter_warc(tmp_path / "none.warc.gz")


# -------------------------------------------------------------- extract_warc

def test_every_html_response_gives_exactly_one_result(warc):
    path, ids = warc
    results = list(extract_warc(path, algorithm=ALG))
    assert [r.record_id for r in results] == ids
    assert [r.url for r in results] == HTML_URLS
    found = by_url(results)
    assert [u for u, r in found.items() if not r.ok] == ["https://d.example/empty"]
    empty = found["https://d.example/empty"]
    assert empty.output is None and empty.error.type == "InputError"
    assert "Café déjà vu" in found["https://b.example/latin"].output  # charset from the HTTP header
    for marker, url in (("alpha", HTML_URLS[0]), ("epsilon", HTML_URLS[3]), ("zeta", HTML_URLS[4])):
        assert f"{marker} It was the best of times" in found[url].output
        assert "Menu Home" not in found[url].output


def test_the_http_content_type_reaches_extract(warc, monkeypatch):
    import thresher.api

    seen = []
    monkeypatch.setattr(thresher.api, "extract", lambda html, url, **kw: seen.append((url, kw["content_type"])) or "")
    list(extract_warc(warc[0], algorithm=ALG, page_timeout=None))  # in this process: the patch applies
    declared = {url: ctype for url, ctype, _, _ in RESPONSES}
    assert seen == [(url, declared[url]) for url in HTML_URLS]


def test_results_match_extracting_each_page(warc):
    path, _ = warc
    import thresher

    for page_, result in zip(iter_warc(path), extract_warc(path, algorithm=ALG, output="markdown")):
        if result.ok:
            assert result.output == thresher.extract(page_.html, page_.url, algorithm=ALG, output="markdown",
                                                     content_type=page_.content_type)


def test_pool_gives_the_same_results_in_order(warc):
    path, _ = warc
    assert list(extract_warc(path, algorithm=ALG, jobs=2)) == list(extract_warc(path, algorithm=ALG))


def test_oversized_and_unknown_algorithm_become_error_results(tmp_path):
    path = tmp_path / "big.warc.gz"
    write_warc(path, [("https://big.example/", "text/html", [], page("huge", "x" * 5000).encode()),
                      RESPONSES[0]])
    big, small = extract_warc(path, algorithm=ALG, max_record_bytes=3000)
    assert (big.ok, big.error.type, small.ok) == (False, "RecordTooLarge", True)
    results = list(extract_warc(path, algorithm="no-such-algorithm"))
    assert len(results) == 2 and not any(r.ok for r in results)


def test_truncated_archive_keeps_earlier_results_and_ends_with_an_error(tmp_path, warc):
    path, ids = warc
    cut = tmp_path / "cut.warc.gz"
    data = path.read_bytes()
    cut.write_bytes(data[: len(data) * 2 // 3])
    results = list(extract_warc(cut, algorithm=ALG))
    *records, last = results
    assert 0 < len(records) < len(ids)
    assert [r.record_id for r in records] == ids[: len(records)]
    assert not last.ok and last.error.type == "WarcError" and last.record_id == f"{cut}@end"


def test_record_cut_short_is_an_error_then_the_archive_error(tmp_path):
    path, cut = tmp_path / "plain.warc", tmp_path / "cut.warc"
    write_warc(path, compress=False)
    data = path.read_bytes()
    cut.write_bytes(data[: data.index(b"beta Caf") + 50])
    results = list(extract_warc(cut, algorithm=ALG))
    assert [(r.url, r.ok) for r in results] == [(HTML_URLS[0], True), (HTML_URLS[1], False), (None, False)]
    assert [r.error.type for r in results[1:]] == ["RecordTruncated", "WarcError"]


def test_not_a_warc_gives_one_error_result(tmp_path):
    path = tmp_path / "page.warc"
    path.write_bytes(b"<!DOCTYPE html>\n" + page("nope").encode())
    (result,) = extract_warc(path, algorithm=ALG)
    assert not result.ok and result.error.type == "WarcError"


def test_result_dicts():
    good = WarcResult("<urn:1>", "https://x.example/", True, "text", None).as_dict()
    assert good == {"record_id": "<urn:1>", "url": "https://x.example/", "ok": True, "output": "text"}
    bad = WarcResult("<urn:2>", None, False, None, scale.BatchError("InputError", "empty")).as_dict()
    assert bad == {"record_id": "<urn:2>", "url": None, "ok": False,
                   "error": {"type": "InputError", "message": "empty"}}


def test_missing_warcio_is_a_friendly_error(monkeypatch, warc):
    monkeypatch.setitem(sys.modules, "warcio.archiveiterator", None)
    with pytest.raises(scale.MissingDependencyError, match=r"pip install 'thresher\[scale\]'"):
        extract_warc(warc[0], algorithm=ALG)


# ----------------------------------------------------------------------- CLI

def test_cli_writes_one_line_per_html_response(tmp_path, warc, capsys):
    path, ids = warc
    out = tmp_path / "out.jsonl"
    code = cli.main(["extract", "--warc", str(path), "-o", str(out), "--algorithm", ALG])
    _, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert code == 1  # the empty page failed
    assert [line["record_id"] for line in lines] == ids
    assert [line["url"] for line in lines] == HTML_URLS
    assert all(set(line) == {"record_id", "url", "ok", "output" if line["ok"] else "error"} for line in lines)
    failed = [line for line in lines if not line["ok"]]
    assert [f["url"] for f in failed] == ["https://d.example/empty"] and failed[0]["error"]["type"] == "InputError"
    assert "Café déjà vu" in lines[1]["output"]
    assert "4 ok, 1 errors" in err and "Traceback" not in err


def test_cli_all_ok_exit_zero_json_format_and_jobs(tmp_path, capsys):
    path, out = tmp_path / "ok.warc.gz", tmp_path / "ok.jsonl"
    write_warc(path, RESPONSES[:3])
    code = cli.main(["extract", "--warc", str(path), "-o", str(out), "-a", ALG, "--format", "json", "-j", "2"])
    capsys.readouterr()
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert code == 0 and len(lines) == 2 and all(line["ok"] for line in lines)
    assert "beta" in json.loads(lines[1]["output"])["text"]


def test_cli_to_stdout(warc, capsys):
    code = cli.main(["extract", "--warc", str(warc[0]), "-a", ALG])
    out, _ = capsys.readouterr()
    assert code == 1 and len(out.splitlines()) == len(HTML_URLS)


@pytest.mark.parametrize("argv, fragment", [
    (["extract", "--warc", "{missing}", "-a", ALG], "No such file"),
    (["extract", "--warc", "{warc}", "{warc}", "-a", ALG], "--warc takes no"),
    (["extract", "--warc", "{warc}", "-a", "no-such-algorithm"], "unknown algorithm"),
    (["extract", "--warc", "{warc}", "-a", ALG, "--jobs", "-1"], "--jobs"),
])
def test_cli_usage_errors(argv, fragment, tmp_path, warc, capsys):
    names = {"missing": str(tmp_path / "none.warc.gz"), "warc": str(warc[0])}
    code = cli.main([arg.format(**names) for arg in argv])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err


def test_cli_without_warcio(monkeypatch, tmp_path, warc, capsys):
    monkeypatch.setitem(sys.modules, "warcio.archiveiterator", None)
    out = tmp_path / "out.jsonl"
    code = cli.main(["extract", "--warc", str(warc[0]), "-o", str(out), "-a", ALG])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("thresher: error: ") and "pip install 'thresher[scale]'" in err
    assert not out.exists()


# ---------------------------------------------------------------------- Dask

def test_dask_bag_matches_the_plain_loop(warc):
    pytest.importorskip("dask.bag", reason="dask[bag] (thresher[scale]) is not installed")
    path, _ = warc
    expected = [r.as_dict() for r in extract_warc(path, algorithm=ALG)]
    from_pages = scale.to_dask_bag(iter_warc(path), algorithm=ALG, npartitions=2).compute(scheduler="sync")
    from_path = scale.to_dask_bag([path], algorithm=ALG).compute(scheduler="sync")
    assert from_pages == expected == from_path
    assert sum(not d["ok"] for d in expected) == 1


def test_dask_bag_error_dicts_instead_of_exceptions(tmp_path):
    pytest.importorskip("dask.bag", reason="dask[bag] (thresher[scale]) is not installed")
    items = [("a", page("alpha").encode(), "https://a.example/"), ("b", b""), 42, tmp_path / "none.warc.gz"]
    a, b, bad, missing = scale.to_dask_bag(items, algorithm=ALG).compute(scheduler="sync")
    assert a["ok"] and a["url"] == "https://a.example/" and "alpha" in a["output"]
    assert (b["record_id"], b["ok"], b["error"]["type"]) == ("b", False, "InputError")
    assert not bad["ok"] and bad["error"]["type"] == "TypeError"
    assert not missing["ok"] and missing["error"]["type"] == "FileNotFoundError"
    assert missing["record_id"] == str(tmp_path / "none.warc.gz")


def test_missing_dask_is_a_friendly_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.bag", None)
    with pytest.raises(scale.MissingDependencyError, match=r"pip install 'thresher\[scale\]'"):
        scale.to_dask_bag([], algorithm=ALG)
