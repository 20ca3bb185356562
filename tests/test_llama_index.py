"""The LlamaIndex adapters with the real ``llama-index-core`` (the ``llama-index`` extra)."""
from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest

from conftest import page_server

pytest.importorskip("llama_index.core", reason="thresher[llama-index] is not installed: LlamaIndex tests skipped")

from llama_index.core import Document
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import MarkdownNodeParser
from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import TextNode, TransformComponent

from thresher import InputError
from thresher.batch.fetch import FetchError
from thresher.integrations.llama_index import ThresherReader, ThresherTransform

PAGE = ("<html lang='en'><head><title>Rivers of the north</title>"
        "<meta name='author' content='A. Writer'></head><body>"
        "<nav><a href='/'>Home</a> | <a href='/about'>About</a></nav><article><h1>Rivers of the north</h1>"
        "<p>The rivers of the north run cold and fast in spring, fed by the snow that melts on the high "
        "ground, and they carry <b>a great deal</b> of silt down to the sea.</p>"
        "<h2>Summer</h2>"
        "<p>In summer they slow down, and the fishermen come back to the banks they left in the autumn.</p>"
        "</article><footer>All rights reserved</footer></body></html>")


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    with page_server({"/rivers": (200, PAGE.encode(), {}), "/moved": (301, b"", {"Location": "/rivers"})}) as base:
        yield base


def test_the_classes_are_llama_index_types():
    assert isinstance(ThresherReader(), BaseReader)
    assert isinstance(ThresherTransform(), TransformComponent)


def test_reader_files_and_urls(tmp_path, pages):
    plain, zipped = tmp_path / "rivers.html", tmp_path / "rivers.html.gz"
    plain.write_text(PAGE, encoding="utf-8")
    zipped.write_bytes(gzip.compress(PAGE.encode()))
    docs = ThresherReader().load_data(file_paths=[plain, str(zipped)], urls=[f"{pages}/moved"],
                                      extra_info={"collection": "rivers"})
    assert [d.id_ for d in docs] == [str(plain), str(zipped), f"{pages}/moved"]
    assert all("**a great deal**" in d.text and "All rights reserved" not in d.text for d in docs)
    assert docs[0].metadata["file_name"] == "rivers.html" and docs[0].metadata["file_path"] == str(plain)
    assert docs[2].metadata["url"] == f"{pages}/rivers"  # after the redirect
    assert all(d.metadata["title"] == "Rivers of the north" and d.metadata["language"] == "en"
               and d.metadata["collection"] == "rivers" for d in docs)


def test_reader_text_and_lazy(pages):
    docs = ThresherReader(output="text").lazy_load_data(urls=[f"{pages}/rivers"])
    doc = next(iter(docs))
    assert "a great deal" in doc.text and "**" not in doc.text


def test_reader_errors(tmp_path, pages):
    with pytest.raises(FetchError):
        ThresherReader().load_data(urls=[f"{pages}/missing"])
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    with pytest.raises(InputError):
        ThresherReader().load_data(file_paths=[empty])
    kept = ThresherReader(on_error="keep").load_data(file_paths=[empty, tmp_path / "absent.html"],
                                                     urls=[f"{pages}/missing"])
    assert [d.text for d in kept] == ["", "", ""]
    assert kept[0].metadata["thresher_error"] == "empty input" and "HTTP 404" in kept[2].metadata["thresher_error"]


def test_options_are_checked_when_made():
    with pytest.raises(TypeError, match="valid ones"):
        ThresherReader(bogus=True)
    with pytest.raises(TypeError, match="valid ones"):
        ThresherTransform(bogus=True)
    with pytest.raises(ValueError, match="on_error"):
        ThresherTransform(on_error="skip")


def test_transform_keeps_ids_and_metadata():
    node = TextNode(text=PAGE, id_="n1", metadata={"url": "https://example.org/rivers", "shelf": 3})
    out = ThresherTransform(output="text")([node])
    assert len(out) == 1 and out[0].id_ == "n1"
    assert "silt down to the sea" in out[0].get_content() and "Home" not in out[0].get_content()
    assert out[0].metadata["shelf"] == 3 and out[0].metadata["title"] == "Rivers of the north"
    assert out[0].metadata["url"] == "https://example.org/rivers"
    assert node.get_content() == PAGE  # the input node is left as it was


def test_transform_in_an_ingestion_pipeline():
    """HTML Documents through ThresherTransform, then split by Markdown heading."""
    pipeline = IngestionPipeline(transformations=[ThresherTransform(), MarkdownNodeParser()])
    nodes = pipeline.run(documents=[Document(text=PAGE, id_="rivers", metadata={"source": "crawl"})])
    texts = [n.get_content() for n in nodes]
    assert len(nodes) == 2 and texts[0].startswith("# Rivers of the north") and texts[1].startswith("## Summer")
    assert all(n.metadata["source"] == "crawl" and n.metadata["title"] == "Rivers of the north" for n in nodes)


def test_transform_errors():
    nodes = [TextNode(text="", id_="empty")]
    with pytest.raises(InputError):
        ThresherTransform()(nodes)
    kept = ThresherTransform(on_error="keep")(nodes)
    assert kept[0].get_content() == "" and kept[0].metadata["thresher_error"] == "empty input"
