"""thresher.integrations.datatrove: the extractor step alone and in a real datatrove pipeline."""
from __future__ import annotations

import gzip
import io
import json

import pytest

pytest.importorskip("datatrove", reason="datatrove (thresher[datatrove]) is not installed")
warcio = pytest.importorskip("warcio", reason="warcio (thresher[datatrove]) is not installed")
from datatrove.data import Document  # noqa: E402
from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # noqa: E402
from datatrove.pipeline.writers import JsonlWriter  # noqa: E402
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

from thresher.integrations.datatrove import METADATA_KEYS, ThresherExtractor  # noqa: E402

PARAGRAPH = ("The ferry leaves the harbour at seven, crosses the sound in forty minutes and returns before "
             "noon, so the islanders who work on the mainland can be home for lunch on market days.")
RECORDS = 60


def page(marker: str) -> str:
    body = "".join(f"<p>{marker} {PARAGRAPH}</p>" for _ in range(3))
    return (f"<html lang='en'><head><title>Title {marker}</title></head><body><nav>Home About Contact</nav>"
            f"<article><h1>Heading {marker}</h1>{body}</article><footer>Footer links</footer></body></html>")


def write_warc(path, pages: dict[str, str]) -> list[str]:
    """A WARC of a request and a response per page, and a PNG response; the HTML responses' ids."""
    ids = []
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for url, html in pages.items():
            request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "x.example")], is_http_request=True)
            writer.write_record(writer.create_warc_record(url, "request", http_headers=request))
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            record = writer.create_warc_record(url, "response", payload=io.BytesIO(html.encode()),
                                               http_headers=headers,
                                               warc_headers_dict={"WARC-Identified-Payload-Type": "text/html"})
            writer.write_record(record)
            ids.append(record.rec_headers.get_header("WARC-Record-ID"))
        image = StatusAndHeaders("200 OK", [("Content-Type", "image/png")], protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            "https://x.example/logo.png", "response", payload=io.BytesIO(b"\x89PNG\r\n\x1a\n" + bytes(64)),
            http_headers=image, warc_headers_dict={"WARC-Identified-Payload-Type": "image/png"}))
    return ids


def markers(count: int) -> list[str]:
    return [f"page{n:03d}" for n in range(count)]


def run_step(step: ThresherExtractor, docs: list[Document]) -> list[Document]:
    return list(step.run(iter(docs)))


# ------------------------------------------------------------------ the step alone

def test_html_in_main_content_and_metadata_out():
    step = ThresherExtractor()
    [doc] = run_step(step, [Document(text=page("alpha"), id="1", metadata={"url": "https://x.example/a"})])
    assert "alpha" in doc.text and PARAGRAPH in doc.text
    assert "Home About" not in doc.text and "<p>" not in doc.text
    assert doc.metadata["url"] == "https://x.example/a"  # the reader's metadata stays
    assert doc.metadata["title"] == "Title alpha" and doc.metadata["language"] == "en"
    assert set(METADATA_KEYS) <= doc.metadata.keys()
    assert step.stats["extracted"].total == 1 and step.stats["forwarded"].total == 1


def test_markdown_with_an_option():
    [doc] = run_step(ThresherExtractor(output="markdown"), [Document(text=page("beta"), id="1")])
    assert "# Heading beta" in doc.text


def test_failures_are_counted_and_dropped_never_raised():
    step = ThresherExtractor()
    docs = [Document(text="", id="blank"), Document(text=page("gamma"), id="ok"),
            Document(text=b"%PDF-1.4\n1 0 obj", id="pdf"),  # bytes, as a custom reader may give
            Document(text="<html><body><p></p></body></html>", id="empty")]
    out = run_step(step, docs)
    assert [d.id for d in out] == ["ok"]
    assert step.stats["total"].total == 4
    assert step.stats["clean_error"].total == 2  # an empty input and a PDF are not pages
    assert step.stats["dropped"].total == 1  # no main content


def test_a_page_past_its_budget_is_counted_and_the_next_one_extracted():
    huge = "<html><body><ul>" + "<li>item</li>" * 400_000 + "</ul></body></html>"  # seconds of work
    step = ThresherExtractor(timeout=0.5)
    out = run_step(step, [Document(text=huge, id="huge"), Document(text=page("delta"), id="next")])
    assert [d.id for d in out] == ["next"] and "delta" in out[0].text
    assert step.stats["timeout"].total == 1 and step.stats["extracted"].total == 1


def test_the_step_checks_its_options_when_built():
    with pytest.raises(ValueError, match="output"):
        ThresherExtractor(output="json")
    with pytest.raises(TypeError, match="no_such_switch"):
        ThresherExtractor(no_such_switch=True)
    with pytest.raises(ValueError, match="timeout"):
        ThresherExtractor(timeout=-1)


# ------------------------------------------------------------ a real pipeline

def test_warc_reader_to_jsonl_writer_under_the_local_executor(tmp_path):
    """Every HTML record of the archive comes out once, with its own text."""
    pages = {f"https://x.example/{m}": page(m) for m in markers(RECORDS)}
    (tmp_path / "warcs").mkdir()
    ids = write_warc(tmp_path / "warcs" / "crawl.warc.gz", pages)
    executor = LocalPipelineExecutor(
        pipeline=[WarcReader(str(tmp_path / "warcs")), ThresherExtractor(),
                  JsonlWriter(str(tmp_path / "out"))],
        tasks=2, workers=2, logging_dir=str(tmp_path / "logs"))
    executor.run()
    lines = [json.loads(line) for part in sorted((tmp_path / "out").glob("*.jsonl.gz"))
             for line in gzip.decompress(part.read_bytes()).decode().splitlines()]
    assert sorted(line["id"] for line in lines) == sorted(ids)
    for line in lines:
        marker = line["metadata"]["url"].rsplit("/", 1)[1]
        assert f"{marker} {PARAGRAPH}" in line["text"] and "Home About" not in line["text"]
        assert line["metadata"]["title"] == f"Title {marker}"
