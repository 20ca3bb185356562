"""The LangChain adapters with the real ``langchain-core`` (the ``langchain`` extra)."""
from __future__ import annotations

import asyncio
import gzip
import subprocess
import sys
from collections.abc import Iterator

import pytest

from conftest import page_server

pytest.importorskip("langchain_core", reason="thresher[langchain] is not installed: LangChain tests skipped")

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import BaseDocumentTransformer, Document

from thresher import InputError
from thresher.batch.fetch import FetchError
from thresher.integrations.langchain import ThresherLoader, ThresherTransformer

PAGE = ("<html lang='en'><head><title>Rivers of the north</title>"
        "<meta name='author' content='A. Writer'></head><body>"
        "<nav><a href='/'>Home</a> | <a href='/about'>About</a></nav><article><h1>Rivers of the north</h1>"
        "<p>The rivers of the north run cold and fast in spring, fed by the snow that melts on the high "
        "ground, and they carry <b>a great deal</b> of silt down to the sea.</p>"
        "<p>In summer they slow down, and the fishermen come back to the banks they left in the autumn.</p>"
        "</article><footer>All rights reserved</footer></body></html>")


def test_the_classes_are_langchain_types():
    assert isinstance(ThresherTransformer(), BaseDocumentTransformer)
    assert isinstance(ThresherLoader([]), BaseLoader)


def test_transformer_markdown_keeps_and_enriches_metadata():
    docs = [Document(page_content=PAGE, metadata={"source": "https://example.org/rivers", "batch": 7}, id="d1")]
    out = ThresherTransformer().transform_documents(docs)
    assert len(out) == 1
    doc = out[0]
    assert "**a great deal**" in doc.page_content and "All rights reserved" not in doc.page_content
    assert doc.metadata["batch"] == 7 and doc.metadata["source"] == "https://example.org/rivers"
    assert doc.metadata["title"] == "Rivers of the north" and doc.metadata["language"] == "en"
    assert doc.metadata["url"] == "https://example.org/rivers" and doc.metadata["author"] == "A. Writer"
    assert doc.id == "d1"


def test_transformer_text_and_existing_keys_win():
    docs = [Document(page_content=PAGE, metadata={"title": "Given title"})]
    doc = ThresherTransformer(output="text", include_formatting=False).transform_documents(docs)[0]
    assert "a great deal" in doc.page_content and "**" not in doc.page_content
    assert doc.metadata["title"] == "Given title" and "url" not in doc.metadata


def test_transformer_async():
    docs = [Document(page_content=PAGE)]
    out = asyncio.run(ThresherTransformer(output="text").atransform_documents(docs))
    assert "fishermen" in out[0].page_content


def test_transformer_errors():
    docs = [Document(page_content=""), Document(page_content=PAGE)]
    with pytest.raises(InputError):
        ThresherTransformer().transform_documents(docs)
    kept = ThresherTransformer(on_error="keep").transform_documents(docs)
    assert [d.page_content == "" for d in kept] == [True, False]
    assert kept[0].metadata == {"thresher_error": "empty input"}


def test_options_are_checked_when_made():
    with pytest.raises(TypeError, match="valid ones"):
        ThresherTransformer(bogus=True)
    with pytest.raises(ValueError, match="on_error"):
        ThresherLoader([], on_error="ignore")
    with pytest.raises(ValueError, match="output format"):
        ThresherTransformer(output="pdf")


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    with page_server({"/rivers": (200, PAGE.encode(), {})}) as base:
        yield base


def test_loader_files_and_urls(tmp_path, pages):
    plain, zipped = tmp_path / "rivers.html", tmp_path / "rivers.html.gz"
    plain.write_text(PAGE, encoding="utf-8")
    zipped.write_bytes(gzip.compress(PAGE.encode()))
    docs = ThresherLoader([plain, str(zipped), f"{pages}/rivers"], output="text").load()
    assert [d.metadata["source"] for d in docs] == [str(plain), str(zipped), f"{pages}/rivers"]
    assert all("silt down to the sea" in d.page_content and "Home" not in d.page_content for d in docs)
    assert docs[2].metadata["url"] == f"{pages}/rivers" and "url" not in docs[0].metadata
    assert all(d.metadata["title"] == "Rivers of the north" for d in docs)


def test_loader_is_lazy_and_keeps_failures(tmp_path, pages):
    loader = ThresherLoader([tmp_path / "absent.html", f"{pages}/missing", tmp_path / "absent.html"],
                            on_error="keep")
    first = next(loader.lazy_load())
    assert first.page_content == "" and "absent.html" in first.metadata["thresher_error"]
    docs = loader.load()
    assert len(docs) == 3 and "HTTP 404" in docs[1].metadata["thresher_error"]
    with pytest.raises(FetchError):
        ThresherLoader(f"{pages}/missing").load()


def test_nothing_heavy_at_import():
    code = ("import sys, thresher, thresher.integrations, thresher.integrations.common; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langchain_core', 'llama_index')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
