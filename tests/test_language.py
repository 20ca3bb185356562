"""Language identification over a page's blocks and the stop lists (thresher.document.language)."""
from __future__ import annotations

import html

import numpy as np
import pytest
from hypothesis import given, strategies as st

from thresher.document import identifier
from thresher.document.blocks import build_document
from thresher.document.language import page_language, stopwords

EN = ("The committee met on Tuesday to discuss the budget for the coming year, and most of the "
      "members agreed that the proposal should be sent back for another round of revisions.")
DE = ("Der Ausschuss hat sich am Dienstag getroffen, um über den Haushalt für das kommende Jahr zu "
      "beraten, und die meisten Mitglieder waren sich einig, dass der Vorschlag überarbeitet wird.")


def sample_text(texts: list[str], limit: int = 1000) -> str:
    """The core's language sample of a page of one paragraph per text."""
    doc = build_document("<body>" + "".join(f"<p>{text}</p>" for text in texts) + "</body>")
    assert [block.text for block in doc.blocks] == [html.unescape(text) for text in texts]
    return doc.native.language_sample(limit)


def test_sample_takes_the_longest_texts_first_up_to_the_limit():
    assert sample_text(["a b", "long text here", "mid text"], limit=10) == "long text here"
    assert sample_text(["ab", "abc", "abcd"], limit=6) == "abcd\nabc"
    assert sample_text(["abc", "xyz", "abcd"], limit=6) == "abcd\nabc"  # page order among equals
    assert sample_text(["caf\u00e9s", "abcde"], limit=5) == "caf\u00e9s"  # characters, not bytes


def test_markup_parsed_as_text_is_left_out_of_the_sample():
    markup = '&lt;div style="position:absolute;"&gt;&lt;img width=1 height=1 src="http://x.example/b?P=' + "x" * 300
    assert sample_text([markup, "short prose"]) == "short prose"
    assert sample_text(["&lt;img src=x&gt; and more words", "prose"]) == "prose"
    assert sample_text(["a &lt; b, said the mathematician"]) == "a < b, said the mathematician"


def test_page_language_identifies_the_prose_not_the_noscript_markup():
    # escaped markup in a <noscript> (a tracking pixel) is page text that reads as markup
    pixel = ('&lt;div style="position:absolute;"&gt;&lt;img width=1 height=1 alt="" src="http://b.example/b?P='
             + "Zq3" * 200 + '"&gt;')
    html = f'<html lang="fr"><body><noscript>{pixel}</noscript><p>{DE}</p></body></html>'
    doc = build_document(html)
    assert any(b.text.lstrip().startswith("<") for b in doc.blocks)
    assert page_language(doc) == "de"


def test_requested_language_wins_and_the_lang_attribute_is_the_fallback():
    doc = build_document(f'<html lang="de-AT"><body><p>{EN}</p></body></html>')
    assert page_language(doc) == "en"
    assert page_language(doc, "FR-ca") == "fr"
    assert page_language(build_document('<html lang="de-AT"><body><p>12 34</p></body></html>')) == "de"


def test_stop_lists_by_language_code():
    assert "the" in stopwords("en") and "der" in stopwords("de-AT")
    assert stopwords("") == frozenset() and stopwords("xx") == frozenset()


def test_preload_loads_the_identifier_and_the_model_a_first_extraction_would():
    import thresher
    from thresher.document import language
    from thresher.inference import learned

    language._identifier.cache_clear()
    learned._load_learned.cache_clear()
    thresher.preload()
    assert language._identifier.cache_info().currsize == 1
    assert learned._load_learned.cache_info().currsize == 1
    page = b"<html><body><p>Ceci est un paragraphe de texte assez long, en bonne et due forme.</p></body></html>"
    thresher.extract(page)
    assert language._identifier.cache_info().misses == 1  # nothing loaded a second time
    assert learned._load_learned.cache_info().misses == 1


def test_preload_with_a_language_skips_the_identifier():
    import thresher
    from thresher.document import language

    language._identifier.cache_clear()
    thresher.preload("justext", language="en")
    assert language._identifier.cache_info().currsize == 0


def test_preload_runs_for_every_registered_algorithm():
    import thresher
    from thresher.algorithms import names

    for name in names():
        assert thresher.preload(name, language="en") is None  # raises if its preload page fails it


# ------------------------------------------------------- the identifier's uncompressed copy

SAMPLES = (EN, DE, "Le comité s'est réuni mardi pour discuter du budget de l'année prochaine.",
           "委員会は火曜日に来年度の予算について話し合った。", "Комитет собрался во вторник, чтобы обсудить бюджет.",
           "", "x", "12 34 56", "<div>", "ÉTÉ " * 50, "El comité se reunió el martes " * 40)


@pytest.fixture(scope="module")
def reference():
    """py3langid's identifier loaded by py3langid itself, as thresher used it before its copy."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False)


def copies(root) -> list:
    return sorted(path.name for path in root.iterdir())


def test_the_copy_is_made_once_and_decides_as_py3langid_does(tmp_path, monkeypatch, reference):
    monkeypatch.setenv(identifier.CACHE_ENV, str(tmp_path))
    made = identifier.load_identifier()
    assert len(copies(tmp_path)) == 1 and copies(tmp_path)[0].startswith("py3langid-")
    written = {path.name: path.stat().st_mtime_ns for path in next(tmp_path.iterdir()).iterdir()}
    read = identifier.load_identifier()
    assert {path.name: path.stat().st_mtime_ns for path in next(tmp_path.iterdir()).iterdir()} == written
    for ident in (made, read):
        assert ident.tk_output == reference.tk_output and list(ident.tk_row) == list(reference.tk_row)
        assert [ident.classify(text) for text in SAMPLES] == [reference.classify(text) for text in SAMPLES]


def test_the_copy_is_named_by_version_and_replaces_other_versions(tmp_path, monkeypatch):
    import py3langid

    monkeypatch.setenv(identifier.CACHE_ENV, str(tmp_path))
    stale = tmp_path / "py3langid-0.0.1-123"
    stale.mkdir()
    (stale / "ptc.npy").write_bytes(b"old")
    identifier.load_identifier()
    assert not stale.exists() and len(copies(tmp_path)) == 1
    assert copies(tmp_path)[0].startswith(f"py3langid-{py3langid.__version__}-")


def test_a_damaged_copy_falls_back_to_py3langid(tmp_path, monkeypatch, reference):
    monkeypatch.setenv(identifier.CACHE_ENV, str(tmp_path))
    identifier.load_identifier()
    copy = next(tmp_path.iterdir())
    (copy / "out_feat.npy").write_bytes((copy / "out_feat.npy").read_bytes()[:200])
    ident = identifier.load_identifier()
    assert [ident.classify(text) for text in SAMPLES] == [reference.classify(text) for text in SAMPLES]
    (copy / "pc.npy").write_bytes((copy / "pc.npy").read_bytes()[:-8])  # one class fewer than the tables have
    (copy / "out_feat.npy").unlink()
    assert identifier.load_identifier().classify(DE) == reference.classify(DE)


def test_no_copy_when_the_cache_is_turned_off_or_unwritable(tmp_path, monkeypatch, reference):
    monkeypatch.setenv(identifier.CACHE_ENV, "")
    assert identifier.cache_root() is None
    assert identifier.load_identifier().classify(DE) == reference.classify(DE)
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(identifier.CACHE_ENV, str(blocked))
    assert identifier.load_identifier().classify(DE) == reference.classify(DE)
    assert blocked.read_text() == "not a directory"


def test_stop_lists_are_stopwordsiso_s():
    import stopwordsiso

    for code in stopwordsiso.langs():
        assert stopwords(code) == frozenset(word.lower() for word in stopwordsiso.stopwords(code)), code


def test_the_known_languages_are_those_py3langid_identifies_and_the_stop_lists():
    import stopwordsiso
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    from thresher.document.language import IDENTIFIED_LANGUAGES, supported_languages

    model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False)
    assert set(model.nb_classes) - {"zxx"} == IDENTIFIED_LANGUAGES
    assert supported_languages() == IDENTIFIED_LANGUAGES | set(stopwordsiso.langs())
    assert {"en", "de", "pt", "zh"} <= supported_languages() and "xx" not in supported_languages()


def test_one_stop_list_is_read_from_the_data_file_alone(monkeypatch):
    """Only the language's member of stopwordsiso's file is decoded; a code that is also a word
    of another list, spaces around the member's name and a member that is not a list of
    strings (the whole file read instead) give what the whole file says."""
    from thresher.document import language

    text = '{"af": ["en", "ek"],\n "en" : ["the", "and"], "xx": "not a list"}'
    monkeypatch.setattr(language, "_stop_lists_file", lambda: text)
    monkeypatch.setattr(language, "_stop_lists", lambda: {"xx": ["whole", "file"]})
    assert language._stop_list("en") == ["the", "and"]
    assert language._stop_list("af") == ["en", "ek"]
    assert language._stop_list("xx") == ["whole", "file"]
    assert language._stop_list("zz") == [] and language._stop_list("") == []


@pytest.fixture(scope="module")
def walked(reference):
    """The identifier whose walk runs in the core, over py3langid's own tables."""
    from py3langid.langid import MODEL_FILE

    return identifier.walked_identifier_type().from_model_file(MODEL_FILE, norm_probs=False)


@given(st.one_of(st.binary(max_size=300), st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_the_core_walks_the_tokenizer_as_py3langid_does(walked, reference, data):
    from py3langid.langid import visit_counts

    features, counts = walked._automaton.visits(data)
    expected = visit_counts(reference.tk_nextmove, reference._rowbase, reference.tk_output, data)
    # The walk keeps the transition table in the core alone.
    assert len(walked.tk_nextmove) == 0
    assert list(zip(features, counts)) == (list(expected.items()) if expected else [])


def test_the_walked_identifier_scores_as_py3langid_does_bit_for_bit(walked, reference):
    for text in (*SAMPLES, EN * 5, DE * 5):
        assert np.array_equal(walked._decide(text), reference._decide(text))
        assert walked.classify(text) == reference.classify(text)
