"""The core's one hidden-element rule and the machine-data texts the walk leaves out."""
from __future__ import annotations

import thresher
from thresher.algorithms.declutter import is_hidden as declutter_hides
from thresher.document.blocks import build_document, hidden_signals
from thresher.features import tree_facts

JSON = '{"@type": "Article", "datePublished": "2024-01-01T10:00:00Z", "image": "https://x.example/a.jpg"}'
BLOB = "https://cdn.example.com/img/" + "9f3a" * 30 + ".jpg"


def test_signals_follow_the_attribute_order_and_the_rule():
    assert hidden_signals({"class": "x", "style": "DISPLAY : none", "hidden": ""}) == ("style", "hidden")
    assert hidden_signals({"aria-hidden": " true "}) == ("aria-hidden",)
    assert hidden_signals({"hidden": "until-found", "aria-hidden": "false", "class": "hidden"}) == ()
    assert hidden_signals({}) == ()


def test_tree_facts_and_declutter_read_the_same_rule():
    doc = build_document("<div hidden><p>a</p></div><div aria-hidden=true><p>b</p></div>"
                         "<div style='visibility: hidden'><p>c</p></div><div hidden=until-found><p>d</p></div>")
    facts = tree_facts(doc)
    hidden = {doc.blocks[i].text: bool(facts.hidden[doc.blocks[i].element]) for i in range(len(doc.blocks))}
    assert hidden == {"a": True, "b": True, "c": True, "d": False}
    # declutter prunes by the style signal only (its measured choice)
    assert declutter_hides({"style": "display:none"}) and not declutter_hides({"hidden": ""})


def test_json_and_data_blobs_are_never_text_but_code_and_links_keep_theirs():
    html = (f"<html><body><article><h1>Title</h1><p>The story, told in a sentence or two of prose.</p>"
            f"<div>{JSON}</div><p>{BLOB}</p><p>See <a href='/x'>{BLOB}</a></p><pre>{JSON}</pre>"
            f"</article></body></html>")
    blocks = build_document(html).blocks
    assert [b.text for b in blocks] == ["Title", "The story, told in a sentence or two of prose.", f"See {BLOB}",
                                        JSON]
    assert blocks[-1].tag == "pre"
    assert "2024-01-01T10:00:00Z" not in thresher.extract(html.replace("<pre>" + JSON + "</pre>", ""))
