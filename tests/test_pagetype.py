"""The page-type classifier: its features, its model file, its outputs and its trainer."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import thresher
from thresher.document.blocks import build_document
from thresher.errors import ModelError
from thresher.features.pagetype import PAGE_FEATURES, TEXT_CUES, page_signals, text_cue_counts
from thresher.inference import pagetype as P
from thresher.inference.treemodel import load, save

PRODUCT = """<html><head><title>Trail Runner 3 Shoe - Example Shop</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Trail Runner 3",
 "offers": {"@type": "Offer", "price": "89.00", "priceCurrency": "USD"}}</script></head>
<body><nav><a href="/">Home</a> <a href="/shoes">Shoes</a></nav>
<div class="product"><h1>Trail Runner 3</h1><div class="price">$89.00</div>
<p>A light trail shoe with a grippy sole for muddy paths and a breathable upper.</p>
<form class="cart"><select name="size"><option>8</option><option>9</option></select>
<input type="number" name="qty" value="1"><button class="add-to-cart">Add to cart</button></form>
<p class="stock">In stock. Free shipping on orders over $50.</p>
<div class="reviews"><h2>Reviews</h2><div class="review"><p>Great grip, 5 stars.</p></div></div></div>
<footer>© 2025 Example Shop</footer></body></html>"""

FORUM = """<html><head><title>Engine stalls when cold - Car Talk Forum</title>
<meta name="generator" content="Discourse 3.2"></head><body>
<h1>Engine stalls when cold</h1>
""" + "".join(f"""<div class="topic-post post"><div class="avatar"><img src="/u/{i}.png"></div>
<div class="username">user{i}</div><div class="post-date">{i + 1} days ago</div>
<div class="cooked"><p>Reply number {i}: have you checked the idle air valve and the coolant sensor? Mine did the
same thing every winter morning until I replaced the sensor.</p></div>
<div class="actions"><button class="reply">Reply</button> <span class="votes">{i} votes</span></div></div>"""
                       for i in range(6)) + "</body></html>"


def doc_of(html: str, url: str | None = None):
    return build_document(html, url)


def test_signals_have_one_value_per_feature_name_and_prefixed_words():
    signals = page_signals(doc_of(PRODUCT, "https://shop.example/products/trail-runner-3"))
    assert signals.row.shape == (len(PAGE_FEATURES),) and np.all(np.isfinite(signals.row))
    row = dict(zip(PAGE_FEATURES, signals.row))
    assert row["type_product"] == 1.0 and row["type_article"] == 0.0
    assert row["url_products"] == 1.0 and row["url_depth"] == 2.0
    assert row["tag_form"] > 0 and row["text_cart"] > 0 and row["text_price"] > 0
    assert {"u:products", "t:shoe", "c:price", "h:reviews", "j:product"} <= signals.words


def test_forum_repetition_and_generator_are_seen():
    row = dict(zip(PAGE_FEATURES, page_signals(doc_of(FORUM, "https://forum.example/t/engine-stalls/123")).row))
    assert row["generator_discourse"] == 1.0 and row["group_generator_forum"] == 1.0
    assert row["max_repeat"] > np.log1p(4) and row["cue_username"] > 0 and row["text_time_ago"] > 0


def test_shipped_model_loads_and_gives_a_distribution_over_the_seven_types():
    model = P.load_page_type_model()
    assert model.types == P.PAGE_TYPES
    probabilities = model.probabilities(doc_of(PRODUCT, "https://shop.example/products/trail-runner-3"))
    assert set(probabilities) == set(P.PAGE_TYPES)
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert P.predicted_type(probabilities) == "product"


def test_a_forum_thread_is_a_forum():
    kind, probabilities = thresher.page_type(FORUM, "https://forum.example/t/engine-stalls/123")
    assert kind == "forum" and probabilities["forum"] == max(probabilities.values())


def _rewritten(tmp_path: Path, change) -> Path:
    models, meta = load(P.shipped_model_path(P.FILENAME))
    models, meta = change(dict(models), dict(meta))
    out = tmp_path / "changed.npz"
    save(models, out, meta)
    return out


def test_a_model_of_another_task_is_refused(tmp_path):
    path = _rewritten(tmp_path, lambda m, meta: (m, {**meta, "task": "extraction"}))
    with pytest.raises(ModelError, match="not a page-type model"):
        P.load_page_type_model(path)


def test_a_model_missing_a_type_is_refused(tmp_path):
    path = _rewritten(tmp_path, lambda m, meta: ({k: v for k, v in m.items() if k != "trees.forum"}, meta))
    with pytest.raises(ModelError, match="forum"):
        P.load_page_type_model(path)


def test_a_model_with_a_nan_weight_is_refused(tmp_path):
    from dataclasses import replace

    def poison(models, meta):
        words = models["words.article"]
        coef = words.coef.copy()
        coef[0] = np.nan
        models["words.article"] = replace(words, coef=coef)
        return models, meta

    with pytest.raises(ModelError, match="finite"):
        P.load_page_type_model(_rewritten(tmp_path, poison))


def test_a_model_reading_other_features_is_refused(tmp_path):
    from dataclasses import replace

    def rename(models, meta):
        trees = models["trees.article"]
        models["trees.article"] = replace(trees, feature_names=("other", *trees.feature_names[1:]))
        return models, meta

    with pytest.raises(ModelError, match="retrain"):
        P.load_page_type_model(_rewritten(tmp_path, rename))


def test_result_and_metadata_carry_the_predicted_and_the_declared_type():
    result = thresher.extract_result(PRODUCT, "https://shop.example/products/trail-runner-3")
    assert result.page_type == "product" == result.metadata.page_type
    assert result.metadata.declared_type == "Product"
    assert result.page_type_probabilities["product"] == max(result.page_type_probabilities.values())


def test_skipping_metadata_skips_the_page_type():
    result = thresher.extract_result(PRODUCT, metadata=False)
    assert result.page_type == "" and not result.page_type_probabilities


def test_outputs_carry_the_page_type():
    url = "https://shop.example/products/trail-runner-3"
    record = json.loads(thresher.extract(PRODUCT, url, output="json"))
    assert record["page_type"] == "product" == record["metadata"]["page_type"]
    assert record["metadata"]["declared_type"] == "Product"
    assert ET.fromstring(thresher.extract(PRODUCT, url, output="xml")).get("pagetype") == "product"
    tei = ET.fromstring(thresher.extract(PRODUCT, url, output="xmltei"))
    code = tei.find(".//{http://www.tei-c.org/ns/1.0}textClass/{http://www.tei-c.org/ns/1.0}classCode")
    assert code is not None and code.text == "product" and code.get("scheme") == "page_type"
    assert 'pagetype: "product"' in thresher.extract(PRODUCT, url, output="markdown", with_metadata=True)


def test_cli_prints_only_the_page_type(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(FORUM, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "thresher", "extract", str(page), "--page-type-only"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() in P.PAGE_TYPES


def test_cli_refuses_page_type_only_for_many_pages(tmp_path):
    run = subprocess.run([sys.executable, "-m", "thresher", "extract", "--input-dir", str(tmp_path), "-o",
                          str(tmp_path / "out"), "--page-type-only"], capture_output=True, text=True)
    assert run.returncode != 0 and "--page-type-only" in run.stderr


# ------------------------------------------------------------------ training

KINDS = {"article": PRODUCT.replace("Product", "Article").replace("product", "article"), "product": PRODUCT,
         "forum": FORUM}


def make_dataset(root: Path) -> Path:
    (root / "ground-truth").mkdir(parents=True)
    (root / "html").mkdir()
    for i in range(24):
        kind = ("article", "product", "forum")[i % 3]
        html = KINDS[kind].replace("Trail Runner 3", f"Item {i}").replace("Engine", f"Engine {i}")
        stem = f"{i:04d}"
        (root / "html" / f"{stem}.html.gz").write_bytes(gzip.compress(html.encode(), mtime=0))
        (root / "ground-truth" / f"{stem}.json").write_text(json.dumps({
            "url": f"https://www.site{i % 8}.example/{kind}/{i}", "ground_truth": {"main_content": "x"},
            "_internal": {"page_type": {"primary": kind}}}))
    return root


def test_trainer_writes_a_model_that_inference_reads(tmp_path):
    from dataclasses import replace

    from thresher.training import pagetype as T

    root = make_dataset(tmp_path / "synthetic")
    pages = T.labelled_pages([root], log=lambda _: None)
    p = replace(T.PageTypeParams(), trees=20, inner_folds=2, min_child_samples=2)
    types = ("article", "forum", "product")
    report = T.cross_validate(pages, types, 2, p, log=lambda _: None)
    assert report["pages"] == 24 and np.asarray(report["confusion"]).sum() == 24
    model = T.fit(pages, types, p)
    out = tmp_path / "pagetype.npz"
    T.save_model(model, out, p, report, [root])
    loaded = P.load_page_type_model(out)
    signals = [page.signals for page in pages]
    assert np.allclose(loaded.probabilities_of(signals), model.probabilities_of(signals))
    assert (loaded.probabilities_of(signals).argmax(1) == [types.index(page.type) for page in pages]).mean() > 0.9


def test_trees_match_lightgbm_raw_scores():
    import lightgbm as lgb

    from thresher.training import pagetype as T

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, len(PAGE_FEATURES) + 3))
    y = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5).astype(int)
    p = T.PageTypeParams(trees=15, min_child_samples=5)
    trees = T.fit_trees(x, y, ("a", "b", "c"), p)
    booster = lgb.train({"objective": "multiclass", "num_class": 3, "learning_rate": p.learning_rate,
                         "num_leaves": p.leaves, "min_child_samples": p.min_child_samples,
                         "feature_fraction": p.feature_fraction, "bagging_fraction": p.bagging, "bagging_freq": 1,
                         "seed": p.seed, "deterministic": True, "force_row_wise": True, "num_threads": 1,
                         "verbose": -1, "max_bin": 63}, lgb.Dataset(x, y.astype(float)), num_boost_round=15)
    expected = booster.predict(x, raw_score=True)
    assert np.allclose(np.column_stack([t.margin(x) for t in trees]), expected)


# Pieces of page text: the cue words, digits (some not ASCII), whitespace (with Python's extra
# separators), currency signs, punctuation and letters, without the characters whose word
# class the two engines read differently (crates/core/src/features/cues.rs).
_CUE_PIECES = st.sampled_from(
    ["reply", "replies", "add to cart", "sku", "by", "posted by", "3 days ago", "read more", "note",
     "book a", "jan", "january", "12", "2021", "2021-03-04", "٣", "$", "€", "£", "zł", "eur",
     " ", "  ", "\n", "\x1c", "\xa0", ".", ",", "-", "/", "_", "a", "é", "ß", "中", "Ж", "x1"])


@given(st.lists(_CUE_PIECES, max_size=40).map("".join))
def test_the_core_counts_each_text_cue_as_python_re_does(text):
    import re

    expected = [sum(1 for _ in re.finditer(pattern, text)) for _, pattern in TEXT_CUES]
    assert text_cue_counts(text) == expected


def test_text_cues_count_prices_dates_and_replies():
    counts = dict(zip((name for name, _ in TEXT_CUES),
                      text_cue_counts("$5 or 10 eur. posted by ann 3 days ago on jan 4, 2021; reply")))
    assert counts["price"] == 2 and counts["date"] == 1 and counts["time_ago"] == 1
    # "posted" is a reply cue too, and "posted by" is one byline: the leftmost match.
    assert counts["reply"] == 2 and counts["byline"] == 1 and counts["cart"] == 0
