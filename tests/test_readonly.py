"""Data held by frozen objects is read-only all the way down."""
from __future__ import annotations

import pytest

import thresher
from thresher.document.blocks import build_document
from thresher.metadata import Metadata

PAGE = b'<html><body><div id="main" class="post"><p>A paragraph of text in a post.</p></div></body></html>'


def test_result_timings_cannot_change():
    result = thresher.extract_result(PAGE, algorithm="justext")
    assert set(result.timings) == {"decode", "parse", "classify", "metadata"}
    with pytest.raises(TypeError):
        result.timings["parse"] = 0.0  # type: ignore[index]


def test_result_metadata_is_the_metadata_record():
    assert isinstance(thresher.extract_result(PAGE, algorithm="justext").metadata, Metadata)


def test_element_attrs_cannot_change():
    doc = build_document(PAGE.decode())
    div = doc.elements[doc.elements.tags.index("div")]
    assert div.attrs == {"id": "main", "class": "post"}
    with pytest.raises(TypeError):
        div.attrs["id"] = "other"  # type: ignore[index]
