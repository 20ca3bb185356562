"""The character n-gram classifier behind ``density+classifier``, its training and its model file."""
from __future__ import annotations

import gzip
import json
import math
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from thresher import algorithms
from thresher.algorithms import density as D
from thresher.algorithms.base import Context
from thresher.document.blocks import build_document
from thresher.errors import ModelError
from thresher.inference import ngram as ngram_model
from thresher.training import density_classifier as T, ngram as ngram_fit

CONTENT = "the river flows under the old stone bridge and the river carries boats to the sea"
BOILER = "copyright all rights reserved privacy policy terms of use cookie settings contact us"


def hash_reference(text: str) -> int:
    """Per-character loop: the 64-bit hash the vectorised code computes for ``text``."""
    h = ngram_model._OFFSET
    for ch in text:
        h = (h * ngram_model._PRIME + ord(ch) + 1) & ngram_model._MASK
    return h


def log_prob_reference(model, text: str, cls: int) -> float:
    """Per-character loop over dictionaries: the specification :func:`class_log_probs` vectorises."""
    lm = model.classes[cls]
    grams = dict(zip(lm.gram_hashes.tolist(), lm.gram_counts.tolist()))
    contexts = {h: (t, ty) for h, t, ty in zip(lm.ctx_hashes.tolist(), lm.ctx_totals.tolist(),
                                                lm.ctx_types.tolist())}
    text = ngram_model.normalize(text, model.lowercase)
    total = 0.0
    for i, ch in enumerate(text):
        prob = 1.0 / model.alphabet_size
        for k in range(0, min(i, model.n - 1) + 1):
            h = hash_reference(text[i - k:i])
            if h not in contexts:
                break
            count_h, types_h = contexts[h]
            lam = count_h / (count_h + model.lambda_factor * types_h)
            count = grams.get((h * ngram_model._PRIME + ord(ch) + 1) & ngram_model._MASK, 0.0)
            prob = lam * count / count_h + (1.0 - lam) * prob
        total += math.log(prob)
    return total



def _tiny(tmp_path: Path, **params) -> Path:
    model = ngram_fit.fit([CONTENT], [BOILER], ngram_fit.FitParams(min_count=1, **params))
    return ngram_fit.save_model(model, tmp_path / "tiny.json")


def test_count_ngrams_counts_every_order_within_texts():
    counts = ngram_fit.count_ngrams(["abab", "b"], n=2)
    assert counts == {"a": 2, "b": 3, "ab": 2, "ba": 1}


def test_counting_collapses_whitespace():
    assert ngram_fit.count_ngrams(["a \n b"], n=3) == ngram_fit.count_ngrams(["a b"], n=3)


def test_round_trip_train_save_load_classify(tmp_path):
    path = _tiny(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == "thresher.density-classifier" and data["version"] == 1
    assert data["n"] == 6
    model = ngram_model.load_model(str(path))
    assert ngram_model.classify(model, [CONTENT, BOILER]).tolist() == [True, False]
    # unseen texts built from each side's words go the same way
    assert ngram_model.classify(model, ["the old river carries boats", "privacy policy and cookie settings"]).tolist() \
        == [True, False]


def test_scores_are_length_normalised_log_likelihood_ratios(tmp_path):
    model = ngram_model.load_model(str(_tiny(tmp_path)))
    text = "the stone bridge"
    logp = ngram_model.class_log_probs(model, [text])[0]
    assert math.isclose(ngram_model.scores(model, [text])[0], (logp[0] - logp[1]) / len(text))


def test_vectorised_log_probs_match_the_reference_loop(tmp_path):
    model = ngram_model.load_model(str(_tiny(tmp_path, lambda_factor=2.0)))
    texts = ["the river", "cookie policy of the sea", "zzz unseen ÿ", "a"]
    fast = ngram_model.class_log_probs(model, texts)
    for i, text in enumerate(texts):
        for j in range(2):
            assert math.isclose(fast[i, j], log_prob_reference(model, text, j), rel_tol=1e-9)


def test_probabilities_sum_to_one_over_the_alphabet(tmp_path):
    # no spaces: whitespace normalisation would trim a history's trailing space
    content, boiler = CONTENT.replace(" ", "_"), BOILER.replace(" ", "_")
    model = ngram_model.compile_model(ngram_fit.fit([content], [boiler], ngram_fit.FitParams(min_count=1)))
    alphabet = sorted(set(content + boiler))
    for history in ("the_riv", "", "zq", "_the_river_flows_"):
        # P(c | history) = P(history + c) / P(history)
        base = log_prob_reference(model, history, 0) if history else 0.0
        total = sum(math.exp(log_prob_reference(model, history + c, 0) - base) for c in alphabet)
        unseen_mass = (1.0 - total)
        # what is left belongs to the one "other character" slot of the uniform base
        assert 0.0 < unseen_mass < 1.0 / model.alphabet_size + 1e-9


def test_load_is_cached_per_path(tmp_path):
    path = str(_tiny(tmp_path))
    assert ngram_model.load_model(path) is ngram_model.load_model(path)


def test_wrong_schema_or_version_is_refused():
    with pytest.raises(ModelError, match="schema"):
        ngram_model.compile_model({"schema": "something-else", "version": 1})
    with pytest.raises(ModelError, match="version"):
        ngram_model.compile_model({"schema": ngram_model.SCHEMA, "version": 99})
    with pytest.raises(ModelError, match="malformed"):
        ngram_model.compile_model({"schema": ngram_model.SCHEMA, "version": 1, "n": 6})


def test_missing_or_broken_model_file_is_a_model_error(tmp_path):
    with pytest.raises(ModelError):
        ngram_model.load_model(str(tmp_path / "absent.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelError, match="not JSON"):
        ngram_model.load_model(str(broken))


def test_pruning_keeps_the_file_under_its_budget():
    texts = [CONTENT * 3, CONTENT + " again and again"]
    unpruned = ngram_fit.fit(texts, [BOILER], ngram_fit.FitParams(min_count=1, max_bytes=10**9))
    budget = len(ngram_fit.dumps(unpruned).encode("utf-8")) // 2
    pruned = ngram_fit.fit(texts, [BOILER], ngram_fit.FitParams(min_count=1, max_bytes=budget))
    assert len(ngram_fit.dumps(pruned).encode("utf-8")) <= budget
    assert pruned["min_count"] > 1
    kept = pruned["classes"]["content"]["grams"]
    # suffix-closed: every kept gram's shorter suffixes are kept too
    assert all(g[1:] in kept for g in kept if len(g) > 1)


def test_classifier_uses_the_context_model(tmp_path):
    path = _tiny(tmp_path)
    page = f"<html><body><p>{CONTENT} {CONTENT}</p><p>{BOILER} {BOILER}</p></body></html>"
    doc = build_document(page)
    algorithm = algorithms.get("density+classifier")
    result = algorithm.run(doc, D.ClassifierParams(), Context(model=str(path)))
    assert result.labels == (True, False)
    assert "n-gram score" in result.reasons[1]
    # stage 1 alone keeps both
    assert algorithms.get("density").run(doc).labels == (True, True)
    # an explicit margin overrides the model's threshold
    everything = algorithm.run(doc, D.ClassifierParams(margin=-1e9), Context(model=str(path)))
    assert everything.labels == (True, True)


def test_shipped_model_loads_and_is_small():
    resource = resources.files("thresher").joinpath(ngram_model.SHIPPED)
    if not resource.is_file():
        pytest.fail("the shipped density-classifier model is missing")
    assert len(resource.read_bytes()) < 5 * 1024 * 1024
    model = ngram_model.shipped_model()
    assert model.n == 6 and len(model.classes) == 2
    data = json.loads(resource.read_text(encoding="utf-8"))
    assert data["schema"] == ngram_model.SCHEMA and data["version"] == ngram_model.VERSION


def test_deep_page_through_the_classifier():
    page = ("<html><body>" + "<div>" * 100_000 + f"<p>{CONTENT}</p><p>{CONTENT}</p>" + "</div>" * 100_000
            + "</body></html>")
    doc = build_document(page)
    result = algorithms.get("density+classifier").run(doc)
    assert len(result.labels) == len(doc.blocks) >= 1
    result = D.decide(doc, D.ClassifierParams(unit="line"), source=page, model=ngram_model.shipped_model())
    assert len(result.labels) == len(doc.blocks)


# ------------------------------------------------------------------ training module

def test_domain_strips_www():
    assert T.domain_of("https://www.Example.com/a?b") == "example.com"
    assert T.domain_of("http://news.example.com") == "news.example.com"
    assert T.domain_of(None) == ""


def _write_dataset(root: Path) -> Path:
    (root / "ground-truth").mkdir(parents=True)
    (root / "html").mkdir()
    for i in range(4):
        page = (f"<html><body><p>{CONTENT} number {i}. {CONTENT}</p>"
                f"<div><p>{BOILER} {BOILER}</p></div></body></html>")
        (root / "html" / f"{i:04d}.html.gz").write_bytes(gzip.compress(page.encode("utf-8")))
        gold = {"url": f"https://www.site{i % 2}.com/{i}",
                "ground_truth": {"main_content": f"{CONTENT} number {i}. {CONTENT}"}}
        (root / "ground-truth" / f"{i:04d}.json").write_text(json.dumps(gold), encoding="utf-8")
    return root


def test_train_on_a_wcxb_layout_dataset(tmp_path):
    dataset = _write_dataset(tmp_path / "ds")
    out = tmp_path / "model.json"
    report = T.train_density_classifier([dataset], out, n=4, cv=2)
    assert report["pages"] == 4 and report["content_chunks"] == 4 and report["boilerplate_chunks"] == 4
    assert report["cv"]["folds"] == 2 and report["cv"]["pages"] == 4
    model = ngram_model.load_model(str(out))
    assert model.n == 4
    assert ngram_model.classify(model, [CONTENT, BOILER]).tolist() == [True, False]


def test_cross_validation_on_a_wcxb_layout_dataset(tmp_path):
    dataset = _write_dataset(tmp_path / "ds")
    result = T.cross_validate_density_classifier(dataset, folds=2, n=4)
    assert result["pages"] == 4 and len(result["per_fold"]) == 2
    assert result["classifier_f1"] > result["density_f1"]
    assert result["classifier_f1"] == pytest.approx(1.0)


SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.mark.slow
def test_wcxb_sample_trains(tmp_path):
    dataset = SHARED / "datasets" / "wcxb-dev"
    if not dataset.is_dir():
        pytest.skip(f"{dataset} is absent (the shared datasets sit beside the checkout)")
    report = T.train_density_classifier([dataset], tmp_path / "m.json", pages=20, seed=1)
    assert report["pages"] == 20 and report["bytes"] < 5 * 1024 * 1024
    assert np.isfinite(ngram_model.scores(ngram_model.load_model(str(tmp_path / "m.json")), ["some text"])).all()


def test_a_class_without_training_text_falls_back_to_the_uniform_base():
    model = ngram_model.compile_model(ngram_fit.fit([CONTENT], [], ngram_fit.FitParams(min_count=1)))
    logp = ngram_model.class_log_probs(model, ["the river"])[0]
    assert math.isclose(logp[1], 9 * math.log(1.0 / model.alphabet_size))
    assert ngram_model.classify(model, ["the river"]).tolist() == [True]
