"""The learned extractors (``thresher`` flagship, ``dragnet``) with user model files and the shipped models."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import thresher
from thresher import _core, features as F
from thresher.algorithms import dragnet, flagship
from thresher.document.blocks import Document, build_document
from thresher.errors import ModelError
from thresher.inference import learned as L
from thresher.inference.treemodel import TreeEnsemble, save

MODELS_DIR = Path(thresher.__file__).resolve().parent / "models"
PARA1 = ("The river had risen overnight, and by morning the lower fields were under a sheet of brown water "
         "that reached the hedges.")
PARA2 = ("Farmers moved their sheep to the hill pastures while volunteers filled sandbags outside the "
         "church and the village school.")
PAGE = f"""<html><head><title>Flood in the valley</title></head><body>
<nav class="menu"><ul><li><a href="/">Home link</a></li><li><a href="/news">News link</a></li></ul></nav>
<article><p>{PARA1}</p><p>{PARA2}</p></article>
<div class="menu">Menu prose that is not a link at all</div>
<footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>
</body></html>"""


def stump(names: tuple[str, ...], feature: str, threshold: float, low: float, high: float) -> TreeEnsemble:
    """One tree: ``low`` when ``x[feature] <= threshold`` else ``high``."""
    j = names.index(feature)
    return TreeEnsemble(names, np.array([j, -1, -1]), np.array([threshold, 0.0, 0.0]), np.array([1, 1, 2]),
                        np.array([2, 1, 2]), np.array([0.0, low, high]), np.array([0]), depth=1)


def page_features(vocabulary=()):
    doc = build_document(PAGE)
    page = L.page_features(doc, "en")
    return doc, page, L.stage1_features(page, F.vocabulary(tuple(vocabulary)))


def write_model(path: Path, models: dict, vocabulary=(), threshold=0.5, **meta) -> str:
    save(models, path, {"algorithm": "test", "vocabulary": list(vocabulary), "threshold": threshold, **meta})
    return str(path)


@pytest.fixture
def link_model(tmp_path) -> str:
    """A flagship model (stage 1 only) that keeps exactly the blocks with link density <= 0.5."""
    _, _, s1 = page_features()
    return write_model(tmp_path / "links.npz", {"stage1": stump(s1.names, "link_density", 0.5, 4.0, -4.0)})


def kept_texts(model: str, algorithm: str = "thresher", params=None) -> list[str]:
    result = thresher.extract_result(PAGE, algorithm=algorithm, model=model, params=params, language="en")
    return [b.text for b in result.kept]


# ------------------------------------------------------------------ user model files

def test_flagship_runs_the_user_model(link_model):
    assert kept_texts(link_model) == [PARA1, PARA2, "Menu prose that is not a link at all"]
    result = thresher.extract_result(PAGE, algorithm="thresher", model=link_model, language="en")
    expected = [1 / (1 + np.exp(-4.0)) if b.link_density <= 0.5 else 1 / (1 + np.exp(4.0)) for b in result.blocks]
    assert result.classification.scores == pytest.approx(expected)
    text = thresher.extract(PAGE, model=link_model, language="en")  # the default algorithm is the flagship
    assert PARA1 in text and "Home link" not in text


def test_the_threshold_in_the_model_meta_is_used_and_params_override_it(tmp_path):
    _, _, s1 = page_features()
    # non-link blocks score sigmoid(3) = 0.953, link blocks sigmoid(1) = 0.731
    tree = stump(s1.names, "link_density", 0.5, 3.0, 1.0)
    prose = [PARA1, PARA2, "Menu prose that is not a link at all"]
    everything = [b.text for b in build_document(PAGE).blocks]
    high = write_model(tmp_path / "high.npz", {"stage1": tree}, threshold=0.9)
    low = write_model(tmp_path / "low.npz", {"stage1": tree}, threshold=0.5)
    assert kept_texts(high) == prose
    assert kept_texts(low) == everything
    assert kept_texts(high, params=flagship.Params(threshold=0.7)) == everything
    assert kept_texts(low, params=flagship.Params(threshold=0.9)) == prose


def test_never_empty_falls_back_to_the_best_blocks(tmp_path):
    _, _, s1 = page_features()
    strict = write_model(tmp_path / "strict.npz", {"stage1": stump(s1.names, "link_density", 0.5, 4.0, -4.0)},
                         threshold=0.99)  # above sigmoid(4) = 0.982: no block reaches it
    prose = [PARA1, PARA2, "Menu prose that is not a link at all"]
    assert kept_texts(strict) == prose  # blocks within fallback_ratio of the best score
    assert kept_texts(strict, params=flagship.Params(never_empty=False)) == []
    assert thresher.extract(PAGE, model=strict, language="en", params=flagship.Params(never_empty=False)) == ""


def test_a_model_file_can_choose_the_expected_f1_cut_and_params_override_it(tmp_path):
    _, _, s1 = page_features()
    # prose blocks (44 words) score sigmoid(3) = 0.953, link blocks (6 words) sigmoid(-1) = 0.269:
    # the threshold 0.2 keeps both, while the links would lower the expected F1 (0.931 against 0.958)
    tree = stump(s1.names, "link_density", 0.5, 3.0, -1.0)
    prose = [PARA1, PARA2, "Menu prose that is not a link at all"]
    everything = [b.text for b in build_document(PAGE).blocks]
    model = write_model(tmp_path / "ef1.npz", {"stage1": tree}, threshold=0.2, decoding="expected_f1")
    assert L.load_learned(model).decoding == "expected_f1"
    assert kept_texts(model) == prose
    assert kept_texts(model, params=flagship.Params(decoding="threshold")) == everything
    assert kept_texts(model, params=flagship.Params(threshold=0.2)) == everything
    reasons = thresher.extract_result(PAGE, model=model, language="en").classification.reasons
    assert all("expected-F1 cut 0.95" in why for why in reasons)
    plain = write_model(tmp_path / "plain.npz", {"stage1": tree}, threshold=0.2)  # no decoding: the threshold
    assert kept_texts(plain) == everything
    reasons = thresher.extract_result(PAGE, model=plain, language="en").classification.reasons
    assert all(why.endswith("threshold 0.20)") for why in reasons)
    assert kept_texts(plain, params=flagship.Params(decoding="expected_f1")) == prose


def expected_f1_cut(p: np.ndarray, words: np.ndarray, allow_empty: bool = False, beta: float = 1.0) -> float:
    """The cut of the core's expected-F1 decoding (``decide_page``'s rule) for these scores."""
    _, cut = _core.decide(np.asarray(p, np.float64).tolist(), np.asarray(words, np.float64).tolist(),
                          decoding="expected_f1", threshold=0.5, never_empty=True, fallback_ratio=0.5,
                          allow_empty=allow_empty, beta=beta)
    return cut


def expected_f1(p: np.ndarray, words: np.ndarray, keep: np.ndarray) -> float:
    return 2 * float((p * words)[keep].sum()) / (float(words[keep].sum()) + float((p * words).sum()))


def test_expected_f1_cut_follows_the_page():
    words = np.full(11, 100.0)
    # a long confident article and one doubtful 100-word block: the threshold 0.3 would keep it,
    # the cut does not (it would dilute the article more than it is likely to add)
    article = np.array([0.95] * 10 + [0.35])
    assert expected_f1_cut(article, words) == 0.95
    # a page of uncertain blocks only: keeping them all is the best bet
    uncertain = np.array([0.2, 0.25, 0.2])
    assert expected_f1_cut(uncertain, np.full(3, 10.0)) == 0.2
    # the same doubtful block is kept beside a short confident one, not beside a long one
    assert expected_f1_cut(np.array([0.9, 0.3]), np.array([10.0, 1000.0])) == 0.3
    assert expected_f1_cut(np.array([0.9, 0.3]), np.array([1000.0, 10.0])) == 0.9
    assert expected_f1_cut(np.zeros(0), np.zeros(0)) == 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(1, 500)), min_size=1, max_size=30))
def test_expected_f1_cut_is_the_best_cut_and_never_empty(rows):
    p = np.array([r[0] for r in rows])
    words = np.array([r[1] for r in rows], float)
    cut = expected_f1_cut(p, words)
    assert cut in p and (p >= cut).any()
    best = max(expected_f1(p, words, p >= c) for c in p)
    assert expected_f1(p, words, p >= cut) == pytest.approx(best, abs=1e-9)


def test_expected_f1_cut_may_keep_nothing_only_when_asked():
    # three 10-word blocks, each content with chance 0.2-0.25: no block is content with chance
    # 0.8 * 0.75 * 0.8 = 0.48, more than keeping all of them is expected to score (0.356)
    uncertain, words = np.array([0.2, 0.25, 0.2]), np.full(3, 10.0)
    assert expected_f1_cut(uncertain, words, allow_empty=True) == np.inf
    assert expected_f1_cut(uncertain, words) == 0.2
    # one confident block makes an empty page unlikely (0.05 * 0.48)
    confident = np.array([0.95, 0.2, 0.25, 0.2])
    assert expected_f1_cut(confident, np.full(4, 10.0), allow_empty=True) == 0.95


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(1, 500)), min_size=1, max_size=30))
def test_expected_f1_cut_keeps_nothing_exactly_when_an_empty_page_is_likelier(rows):
    p = np.array([r[0] for r in rows])
    words = np.array([r[1] for r in rows], float)
    best = max(expected_f1(p, words, p >= c) for c in p)
    cut = expected_f1_cut(p, words, allow_empty=True)
    if float(np.prod(1.0 - p)) > best + 1e-9:
        assert cut == np.inf
    elif float(np.prod(1.0 - p)) < best - 1e-9:
        assert cut == expected_f1_cut(p, words)


def test_allow_empty_returns_nothing_for_a_page_of_doubtful_blocks(tmp_path):
    _, _, s1 = page_features()
    doubtful = write_model(tmp_path / "doubt.npz", {"stage1": stump(s1.names, "link_density", 0.5, -1.5, -3.0)},
                           decoding="expected_f1")  # every block below 0.19
    assert kept_texts(doubtful) != []
    empty = flagship.Params(allow_empty=True)
    assert kept_texts(doubtful, params=empty) == []
    assert thresher.extract(PAGE, model=doubtful, language="en", params=empty) == ""
    reasons = thresher.extract_result(PAGE, model=doubtful, language="en", params=empty).classification.reasons
    assert all(why.endswith("expected-F1 cut: the page likely has no main content)") for why in reasons)
    # a fixed threshold ignores it
    assert kept_texts(doubtful, params=flagship.Params(allow_empty=True, threshold=0.1)) != []


def test_unknown_decoding_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="decoding"):
        flagship.Params(decoding="argmax")
    _, _, s1 = page_features()
    model = write_model(tmp_path / "odd.npz", {"stage1": stump(s1.names, "link_density", 0.5, 3.0, -1.0)},
                        decoding="argmax")
    with pytest.raises(ModelError, match="unknown decoding"):
        thresher.extract(PAGE, model=model, language="en")


def test_stage_two_sees_the_stage_one_scores(tmp_path):
    doc, _page, s1 = page_features()
    p1 = np.zeros(len(doc.blocks))
    s2_names = L.stage2_features(s1, doc, p1).names
    assert s2_names[:len(s1.names)] == s1.names and "p" in s2_names and "p_anc1" in s2_names
    model = write_model(tmp_path / "two.npz", {
        "stage1": stump(s1.names, "link_density", 0.5, 4.0, -4.0),
        "stage2": stump(s2_names, "p", 0.5, 4.0, -4.0)})  # stage 2 inverts stage 1
    all_texts = [b.text for b in doc.blocks]
    stage1_kept = [PARA1, PARA2, "Menu prose that is not a link at all"]
    assert kept_texts(model, params=flagship.Params(smoothing=False)) == stage1_kept
    everywhere = flagship.Params(certain=0.0)  # stage 1 is sure of every block here (p = 0.018 or 0.982)
    unguarded = flagship.Params(certain=0.0, confident=1.1)
    assert kept_texts(model, params=unguarded) == [t for t in all_texts if t not in stage1_kept]
    # the blocks stage 1 is confident about, here the main run, survive stage 2
    assert kept_texts(model, params=everywhere) == all_texts
    result = thresher.extract_result(PAGE, model=model, language="en", params=everywhere)
    guarded = [b.text for b, why in zip(result.blocks, result.classification.reasons)
               if "confident in the main run" in why]
    assert guarded == stage1_kept
    # by default stage 2 is not evaluated on blocks stage 1 is that sure of: they keep their scores
    assert kept_texts(model) == stage1_kept
    assert kept_texts(model, params=flagship.Params(confident=1.1)) == stage1_kept


def test_stage_two_scores_only_the_blocks_stage_one_is_unsure_of():
    doc, page, s1 = page_features()
    stage1 = stump(s1.names, "link_density", 0.5, 4.0, 0.0)  # p = 0.982 for prose, 0.5 for links
    s2_names = L.stage2_features(s1, doc, np.zeros(len(doc.blocks))).names
    stage2 = stump(s2_names, "p", 0.9, 1.0, -1.0)
    full = L.two_stage_scores(stage1, stage2, page, F.vocabulary(()), 1.1, certain=0.0)
    part = L.two_stage_scores(stage1, stage2, page, F.vocabulary(()), 1.1, certain=0.05)
    unsure = L.uncertain(full.own, 0.05)
    assert 0 < unsure.sum() < len(unsure)
    assert part.own.tolist() == full.own.tolist()
    assert part.context[unsure].tolist() == pytest.approx(full.context[unsure].tolist())
    assert part.context[~unsure].tolist() == part.own[~unsure].tolist()
    assert part.context[~unsure].tolist() != pytest.approx(full.context[~unsure].tolist())


def test_uncertain_is_the_band_between_certain_and_one_minus_certain():
    own = np.array([0.0, 0.04, 0.05, 0.5, 0.95, 0.96, 1.0])
    assert L.uncertain(own, 0.05).tolist() == [False, False, True, True, True, False, False]
    assert L.uncertain(own, 0.0).all()
    assert not L.uncertain(own, 0.6).any()  # an empty band: stage 1's scores stand everywhere


def test_guard_keeps_confident_blocks_of_the_main_run():
    own = np.array([0.9, 0.1, 0.95, 0.6, 0.8, 0.1, 0.9])
    in_run = np.array([False, False, True, True, True, False, False])
    final = np.full(7, 0.1)
    # block 3 is in the run but not confident; the confident blocks 0 and 6 lie outside it
    expected = [0.1, 0.1, 0.95, 0.1, 0.8, 0.1, 0.1]
    assert L.guard_confident(own, final, in_run, 0.7).tolist() == pytest.approx(expected)
    assert L.guard_confident(own, final, in_run, 1.1).tolist() == pytest.approx([0.1] * 7)
    assert L.guard_confident(own, np.full(7, 0.99), in_run, 0.7).tolist() == pytest.approx([0.99] * 7)


def test_dragnet_uses_the_model_vocabulary(tmp_path):
    doc = build_document(PAGE)
    names = L.dragnet_features(L.page_features(doc, "en"), F.vocabulary(("menu",))).names
    assert names[-1] == "tok_menu" and "log_words@-1" in names and "cetr_ratio" in names
    model = write_model(tmp_path / "dragnet.npz", {"stage1": stump(names, "tok_menu", 0.5, 4.0, -4.0)},
                        vocabulary=("menu",))
    expected = [PARA1, PARA2, "Privacy Terms"]  # everything not under an element with class "menu"
    assert kept_texts(model, "dragnet") == expected
    assert kept_texts(model, "dragnet-comments") == expected
    assert kept_texts(model, "dragnet", dragnet.Params(threshold=0.999)) == []


def test_a_model_with_other_features_is_refused(tmp_path):
    model = write_model(tmp_path / "other.npz", {"stage1": stump(("x", "y"), "x", 0.0, 1.0, -1.0)})
    for algorithm in ("thresher", "dragnet"):
        with pytest.raises(ModelError, match="features"):
            thresher.extract(PAGE, algorithm=algorithm, model=model, language="en")


def test_a_model_file_without_stage1_is_refused(tmp_path):
    _, _, s1 = page_features()
    model = write_model(tmp_path / "nostage1.npz", {"other": stump(s1.names, "link_density", 0.5, 1.0, -1.0)})
    with pytest.raises(ModelError, match="stage1"):
        thresher.extract(PAGE, model=model, language="en")


def test_a_file_that_is_not_a_model_is_refused(tmp_path):
    bogus = tmp_path / "bogus.npz"
    bogus.write_text("not a model")
    with pytest.raises(ModelError):
        thresher.extract(PAGE, model=str(bogus), language="en")


def test_a_model_file_rewritten_in_place_is_reloaded(tmp_path):
    _, _, s1 = page_features()
    tree = stump(s1.names, "link_density", 0.5, 3.0, 1.0)
    path = tmp_path / "same.npz"
    write_model(path, {"stage1": tree}, threshold=0.5)
    assert kept_texts(str(path)) == [b.text for b in build_document(PAGE).blocks]
    write_model(path, {"stage1": tree}, threshold=0.9)  # e.g. retrained by `thresher train -o` in place
    assert kept_texts(str(path)) == [PARA1, PARA2, "Menu prose that is not a link at all"]


def test_inference_needs_neither_lightgbm_nor_sklearn(link_model):
    """Extraction with a model file (and with the shipped model when installed) under blocked imports."""
    shipped = (MODELS_DIR / flagship.MODEL_FILE).exists()
    script = textwrap.dedent(f"""
        import sys
        sys.modules["lightgbm"] = None
        sys.modules["sklearn"] = None
        import thresher
        page = {PAGE!r}
        text = thresher.extract(page, model={link_model!r}, language="en")
        assert {PARA1!r} in text and "Home link" not in text, text
        if {shipped!r}:
            assert thresher.extract(page, language="en").strip() != ""
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# ------------------------------------------------------------------ the shipped models

def shipped(algorithm: str) -> None:
    filename = {"thresher": flagship.MODEL_FILE, "dragnet": "dragnet.npz"}[algorithm]
    if not (MODELS_DIR / filename).exists():
        pytest.skip(f"shipped model {filename} not installed in {MODELS_DIR} (train it with `thresher train`)")


@pytest.mark.parametrize("algorithm", ["thresher", "dragnet"])
def test_shipped_model_gives_one_label_per_block_and_keeps_the_article(algorithm):
    shipped(algorithm)
    result = thresher.extract_result(PAGE, algorithm=algorithm, language="en")
    assert len(result.labels) == len(result.blocks) == len(result.classification.scores)
    assert all(0.0 <= s <= 1.0 for s in result.classification.scores)
    assert len(result.classification.reasons) == len(result.blocks)
    assert PARA1 in result.text and PARA2 in result.text


@pytest.mark.parametrize("algorithm", ["thresher", "dragnet"])
def test_shipped_model_is_deterministic(algorithm):
    shipped(algorithm)
    runs = [thresher.extract_result(PAGE, algorithm=algorithm, language="en").classification for _ in range(2)]
    doc = build_document(PAGE)  # a separately built document of the same page
    again = thresher.algorithms.get(algorithm).run(doc, None, thresher.algorithms.Context(language="en"))
    assert runs[0].scores == runs[1].scores == again.scores
    assert runs[0].labels == runs[1].labels == again.labels


def test_shipped_flagship_loads_as_a_learned_model():
    shipped("thresher")
    model = L.load_learned(L.shipped_model_path(flagship.MODEL_FILE))
    assert "stage1" in model.models
    assert 0.0 < model.threshold < 1.0
    _, page, _ = page_features()
    s1 = L.stage1_features(page, model.token_vocabulary)
    assert tuple(model.stage("stage1").feature_names) == s1.names


def test_cetr_cluster_is_the_cetr_algorithms_block_decision():
    from thresher.algorithms import cetr, get

    nav = "".join(f"<li><a href='/{i}'><span><b>{i}</b></span></a></li>" for i in range(12))
    prose = " ".join(["A long plain paragraph of running text without any markup inside it."] * 12)
    doc = build_document(f"<html><body><ul>{nav}</ul><p>{prose}</p><ul>{nav}</ul></body></html>")
    column = L.cetr_cluster(doc)
    assert column.names == ("cetr_cluster",) and column.values.shape == (len(doc.blocks), 1)
    decided = get("cetr").run(doc, cetr.Params(unit="block")).labels
    assert column.values[:, 0].astype(bool).tolist() == list(decided)
    assert column.values[[b.text for b in doc.blocks].index(prose), 0] == 1.0
    assert 0.0 in column.values  # the origin cluster is not empty


def paragraphs(lengths) -> Document:
    """A page of one paragraph per length, of that many characters."""
    return build_document("<html><body>" + "".join(f"<p>{'x' * k}</p>" for k in lengths) + "</body></html>")


def context_columns(lengths, p) -> dict[str, np.ndarray]:
    doc = paragraphs(lengths)
    assert [b.char_count for b in doc.blocks] == list(lengths)
    cols = L.context_features(doc, np.asarray(p, np.float64))
    assert cols.values.dtype == np.float32 and cols.values.shape == (len(lengths), len(L.CONTEXT_NAMES))
    return {name: cols.column(name) for name in cols.names}


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40])
def test_window_max_and_mean_are_the_nan_padded_reductions(n):
    values = np.random.default_rng(n * 31).random(n)
    cols = context_columns([5] * n, values)
    for radius in (2, 5, 10):
        padded = np.pad(values, radius, constant_values=np.nan)
        windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * radius + 1)
        assert np.array_equal(cols[f"p_max_{radius}"], np.nanmax(windows, axis=1).astype(np.float32))
        assert np.allclose(cols[f"p_mean_{radius}"], np.nanmean(windows, axis=1), rtol=0, atol=1e-7)


def test_context_of_no_blocks_is_empty():
    doc = build_document("<p></p>")
    assert L.context_features(doc, np.zeros(0)).values.shape == (0, len(L.CONTEXT_NAMES))
    with pytest.raises(ValueError, match="one score per block"):
        L.context_features(paragraphs([3]), np.zeros(2))


@pytest.mark.parametrize("weights,span", [
    ([-1.0, -2.0], (-1, -1)), ([0.0, 0.0], (-1, -1)),
    ([1.0, -5.0, 3.0, -1.0, 2.0, -9.0, 1.0], (2, 4)),  # 3 - 1 + 2 = 4 beats every other stretch
    ([2.0, -1.0, 2.0], (0, 2)), ([5.0, -6.0, 4.0], (0, 0)),
])
def test_the_main_run_is_the_largest_positive_stretch(weights, span):
    # two characters a block: block i weighs (p - 0.5) * 2 = weights[i]
    p = 0.5 + np.array(weights) / 2
    member = context_columns([2] * len(weights), p)["run_member"]
    first, last = span
    assert np.flatnonzero(member).tolist() == (list(range(first, last + 1)) if first >= 0 else [])


def test_run_columns_place_blocks_against_the_main_run():
    p = np.array([0.9, 0.1, 0.9, 0.9, 0.8, 0.1, 0.1, 0.7])
    cols = context_columns([10, 100, 100, 100, 100, 50, 50, 10], p)
    # the run is blocks 2-4: the menu (0) and the teaser (7) lie outside
    assert cols["run_member"].tolist() == [0, 0, 1, 1, 1, 0, 0, 0]
    assert cols["run_distance"].tolist() == pytest.approx(
        [-np.log1p(2), -np.log1p(1), 0, 0, 0, np.log1p(1), np.log1p(2), np.log1p(3)])
    assert cols["run_share"].tolist() == pytest.approx([300 / 520] * 8)


def test_run_columns_without_a_confident_block_are_zero():
    cols = context_columns([10, 10], [0.2, 0.4])
    assert all(cols[name].tolist() == [0.0, 0.0] for name in ("run_member", "run_distance", "run_share"))


def test_context_columns_around_in_the_tree_and_on_the_page():
    doc = build_document("<html><body><div><p>aaaaaaaaaa</p><p>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</p></div>"
                         "<p>cccccccccc</p></body></html>")
    p = np.array([0.2, 0.6, 1.0])
    cols = L.context_features(doc, p)
    col = {name: cols.column(name).tolist() for name in cols.names}
    assert col["p@-1"] == pytest.approx([0.0, 0.2, 0.6]) and col["p@+2"] == pytest.approx([1.0, 0.0, 0.0])
    assert col["p_anc1"] == pytest.approx([0.5, 0.5, (0.2 * 10 + 0.6 * 30 + 10) / 50])  # the div's, then the body's
    assert col["p_page_mean"] == pytest.approx([30 / 50] * 3)
    assert col["p_page_kept_share"] == pytest.approx([40 / 50] * 3)
    assert col["p_rel_max"] == pytest.approx([0.2, 0.6, 1.0])


def test_stage1_layout_with_and_without_readabilitys_candidate_columns():
    _, page, with_candidates = page_features()
    without = L.stage1_features(page, F.vocabulary(()), candidates=False)
    assert with_candidates.names == page.base.names + page.candidates.names
    assert without.names == page.base.names
    assert L.reads_candidates(stump(with_candidates.names, "rd_in_top", 0.5, -1.0, 1.0))
    assert not L.reads_candidates(stump(without.names, "link_density", 0.5, 1.0, -1.0))


def test_a_model_trained_before_the_candidate_columns_still_scores(tmp_path):
    """A stage-1 model laid out as base features + tokens (no candidate columns) is read in its own layout."""
    _, page, _ = page_features()
    names = L.stage1_features(page, F.vocabulary(()), candidates=False).names
    model = write_model(tmp_path / "old.npz", {"stage1": stump(names, "link_density", 0.5, 4.0, -4.0)})
    with_candidates = write_model(tmp_path / "new.npz", {"stage1": stump(
        L.stage1_features(page, F.vocabulary(())).names, "link_density", 0.5, 4.0, -4.0)})
    assert kept_texts(model) == kept_texts(with_candidates)
    assert kept_texts(model)  # the stump keeps the prose


def test_shipped_flagship_reads_the_candidate_columns():
    shipped("thresher")
    model = L.load_learned(L.shipped_model_path(flagship.MODEL_FILE))
    assert L.reads_candidates(model.stage("stage1"))


def test_a_model_reads_its_columns_by_name_whatever_features_were_added_since(tmp_path):
    """A model trained before a feature existed (here: without ``copies_before``, its columns in
    another order) reads the columns it names and scores as the same model in today's layout."""
    _, _page, s1 = page_features()
    older = tuple(reversed([n for n in s1.names if n != "copies_before"]))
    assert len(older) == len(s1.names) - 1
    old = write_model(tmp_path / "old.npz", {"stage1": stump(older, "link_density", 0.5, 4.0, -4.0)})
    new = write_model(tmp_path / "new.npz", {"stage1": stump(s1.names, "link_density", 0.5, 4.0, -4.0)})
    assert kept_texts(old) == kept_texts(new) == [PARA1, PARA2, "Menu prose that is not a link at all"]


def test_columns_select_by_name_and_name_what_is_missing():
    cols = F.Columns(("a", "b", "c"), np.arange(6, dtype=np.float32).reshape(2, 3))
    assert cols.select(("a", "b", "c")) is cols.values
    assert cols.select(("c", "a")).tolist() == [[2.0, 0.0], [5.0, 3.0]]
    with pytest.raises(ModelError, match=r"stage1 reads features .* \(x, y\); retrain"):
        cols.select(("a", "x", "y"), "stage1")


def test_expected_f_beta_cut_moves_with_beta():
    p = np.array([0.95, 0.8, 0.6, 0.4, 0.25, 0.1])
    words = np.full(6, 20.0)
    default = expected_f1_cut(p, words)
    assert expected_f1_cut(p, words, beta=1.0) == default
    assert expected_f1_cut(p, words, beta=0.5) > default  # precision: a higher cut
    assert expected_f1_cut(p, words, beta=2.0) < default  # recall: a lower cut


def test_beta_must_be_positive():
    with pytest.raises(ValueError):
        flagship.Params(beta=0.0)


GATHER_PAGE = (
    "<html><head><title>Orchard notes</title></head><body><nav><ul>"
    + "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(12))
    + "</ul></nav><main class='content'><h1>Orchard notes</h1>"
    + "".join(f"<p>Paragraph {i} on pruning apple trees in late winter, before the buds open.</p>"
              for i in range(30))
    + "</main><aside class='related'>" + "".join(f"<div class='card'><a href='/r{i}'>Related {i}</a></div>"
                                                 for i in range(10))
    + "</aside><footer>Copyright 2024</footer></body></html>")


@pytest.mark.parametrize("model_file", [flagship.MODEL_FILE, flagship.ACCURATE_MODEL_FILE])
@pytest.mark.parametrize("repeat", [1, 120])  # 120 copies: a page past 4,096 blocks, scored the same way
def test_the_one_native_call_gives_the_steps_the_python_composition_gives(model_file, repeat):
    model = L.load_learned(L.shipped_model_path(model_file))
    html = GATHER_PAGE
    if repeat > 1:
        body = html.split("<body>")[1].split("</body>")[0]
        html = "<html><head><title>Orchard notes</title></head><body>" + body * repeat + "</body></html>"
    doc = build_document(html)
    page = L.page_features(doc, "en")
    params = flagship.Params()
    expected = L.two_stage_scores(model.stage("stage1"), model.stage("stage2"), page, model.token_vocabulary,
                                  params.confident, model.network, params.certain)
    native = L.stage_scores(L.score_page(model, doc, "en", decoding="expected_f1"))
    assert len(native.own) == len(doc.blocks) >= (4096 if repeat > 1 else 40)
    # The trees' probabilities are numpy's up to the last bit of exp; the network's are float32.
    for got, want, tolerance in [(native.own, expected.own, 1e-15), (native.context, expected.context, 1e-15),
                                 (native.guarded, expected.guarded, 1e-15), (native.network, expected.network, 1e-6),
                                 (native.final, expected.final, 1e-6)]:
        np.testing.assert_allclose(got, want, rtol=0, atol=tolerance)


def test_a_file_reading_a_column_no_page_has_is_a_model_error(tmp_path):
    names = ("log_words", "no_such_column")
    path = write_model(tmp_path / "odd.npz", {"stage1": stump(names, "log_words", 1.0, -1.0, 1.0)})
    with pytest.raises(ModelError, match="does not compute"):
        L.load_learned(path)


def shipped_arrays(filename: str):
    from thresher.inference.treemodel import read

    return read(L.shipped_model_path(filename))


def refused(tmp_path, header: dict, arrays: dict, says: str) -> None:
    """A file written with ``header`` and ``arrays`` is refused on load with a ModelError saying ``says``."""
    import json

    path = tmp_path / "bad.npz"
    np.savez_compressed(path, header=np.asarray(json.dumps(header)), **arrays)
    with pytest.raises(ModelError, match=says):
        L.load_learned(str(path))
    with pytest.raises(ModelError, match=says):
        thresher.extract(PAGE, model=str(path))


def test_a_nan_in_a_network_bias_is_refused(tmp_path):
    header, arrays = shipped_arrays(flagship.MODEL_FILE)
    bias = arrays["network.w.in1.bias"].copy()
    bias[3] = np.nan
    refused(tmp_path, header, {**arrays, "network.w.in1.bias": bias}, "in1.bias holds a value that is not finite")


def test_a_split_feature_beyond_the_layout_is_refused(tmp_path):
    header, arrays = shipped_arrays(flagship.MODEL_FILE)
    feature = arrays["stage2.feature"].astype(np.int64)
    feature[np.flatnonzero(feature >= 0)[0]] = np.iinfo(np.int64).max
    refused(tmp_path, header, {**arrays, "stage2.feature": feature}, "beyond its 328 features")


def test_a_truncated_array_is_refused(tmp_path):
    header, arrays = shipped_arrays(flagship.MODEL_FILE)
    refused(tmp_path, header, {**arrays, "stage1.threshold": arrays["stage1.threshold"][:-5]},
            "threshold holds .* nodes, feature holds")


def test_a_truncated_file_is_refused(tmp_path):
    data = Path(L.shipped_model_path("dragnet.npz")).read_bytes()
    path = tmp_path / "cut.npz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="not a thresher model file"):
        L.load_learned(str(path))


def test_a_weight_of_the_wrong_shape_is_refused(tmp_path):
    header, arrays = shipped_arrays(flagship.MODEL_FILE)
    weight = arrays["network.w.in2.weight"]
    refused(tmp_path, header, {**arrays, "network.w.in2.weight": weight.reshape(-1, 2 * weight.shape[1])},
            "model network")


def test_an_unknown_version_is_refused(tmp_path):
    header, arrays = shipped_arrays("dragnet.npz")
    refused(tmp_path, {**header, "version": 99}, arrays, "version 99 unsupported")


def test_leaf_values_and_indices_are_checked(tmp_path):
    header, arrays = shipped_arrays("dragnet.npz")
    value = arrays["stage1.value"].copy()
    value[np.flatnonzero(arrays["stage1.feature"] < 0)[0]] = np.inf
    refused(tmp_path, header, {**arrays, "stage1.value": value}, "not finite")
    left = arrays["stage1.left"].astype(np.int64)
    left[0] = len(left) + 7
    refused(tmp_path, header, {**arrays, "stage1.left": left}, "outside the")
    refused(tmp_path, header, {**arrays, "stage1.roots": arrays["stage1.roots"].astype(np.float64)},
            "not an array of integers")


def test_the_shipped_models_load_and_are_shared():
    for filename in (flagship.MODEL_FILE, flagship.ACCURATE_MODEL_FILE, "dragnet.npz", "dragnet-comments.npz"):
        model = L.load_learned(L.shipped_model_path(filename))
        assert model.native is L.load_learned(L.shipped_model_path(filename)).native
        assert model.native.threshold == model.threshold


def test_threads_share_one_native_model_and_agree():
    from concurrent.futures import ThreadPoolExecutor

    pages = [GATHER_PAGE, PAGE, GATHER_PAGE.replace("Orchard", "Garden")] * 4
    alone = [thresher.extract_result(html, language="en", explain=False).labels for html in pages]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda html: thresher.extract_result(html, language="en", explain=False).labels,
                                 pages))
    assert together == alone and any(any(labels) for labels in alone)
