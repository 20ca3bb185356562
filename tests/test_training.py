"""Training the learned extractors on a tiny synthetic WCXB-layout dataset (needs the train extra)."""
from __future__ import annotations

import dataclasses
import gzip
import json
import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("lightgbm", reason="training tests need the 'train' extra (lightgbm)")
pytest.importorskip("sklearn", reason="training tests need the 'train' extra (scikit-learn)")

import thresher
from thresher import features as F
from thresher.algorithms.flagship import Params
from thresher.document.blocks import build_document
from thresher.errors import ModelError, ThresherError
from thresher.features import token_name
from thresher.inference import learned as L
from thresher.inference.treemodel import load
from thresher.training import learned as T
from thresher.training.align import align_document

WORDS = ("the of and to in a is that for it as was with be by on not he this are or his from at which but have an "
         "they you were her she there been one all we their has would when if so no will more can who out up about "
         "river garden winter market engine council harbour village letter science music window forest station "
         "history mountain kitchen painting journey island theory machine bridge harvest library museum").split()
DOMAINS = tuple(f"site{d}.example.org" for d in range(8))
SMALL = T.TrainParams(trees=20, leaves=7, min_child_samples=5, min_token_domains=1, vocabulary_size=10)


def quiet(message: str) -> None:
    pass


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."


def make_page(rng: random.Random, n_paragraphs: int = 4):
    """(html, gold main text, article paragraphs, navigation link texts) of one generated page."""
    paras = [" ".join(sentence(rng) for _ in range(rng.randint(3, 5))) for _ in range(n_paragraphs)]
    nav = [f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {i}" for i in range(6)]
    related = [sentence(rng)[:-1] for _ in range(4)]
    title = sentence(rng)[:-1]
    html = (
        f"<html><head><title>{title}</title></head><body>"
        "<header class='site-header'><div class='logo'>Logo</div><nav class='menu'><ul>" +
        "".join(f"<li><a href='/{i}'>{t}</a></li>" for i, t in enumerate(nav)) + "</ul></nav></header>"
        "<div class='layout'><main><article class='post-content'>"
        f"<h1>{title}</h1>" + "".join(f"<p>{p}</p>" for p in paras) + "</article></main>"
        "<aside class='sidebar'><h3>Related</h3><ul>" +
        "".join(f"<li><a href='/r{i}'>{t}</a></li>" for i, t in enumerate(related)) +
        "</ul><div class='widget newsletter'>Subscribe to our newsletter today</div></aside></div>"
        "<footer class='footer'><p>Copyright 2024 Example Org. All rights reserved.</p>"
        "<p><a href='/privacy'>Privacy</a> | <a href='/terms'>Terms</a></p></footer></body></html>")
    return html, title + "\n\n" + "\n\n".join(paras), paras, nav


def make_dataset(root: Path, n: int = 16, seed: int = 0) -> Path:
    rng = random.Random(seed)
    (root / "ground-truth").mkdir(parents=True)
    (root / "html").mkdir()
    for i in range(n):
        html, gold, _, _ = make_page(rng, rng.randint(3, 6))
        stem = f"{i:04d}"
        (root / "html" / f"{stem}.html.gz").write_bytes(gzip.compress(html.encode(), mtime=0))
        (root / "ground-truth" / f"{stem}.json").write_text(json.dumps({
            "url": f"https://www.{DOMAINS[i % len(DOMAINS)]}/page/{i}",
            "ground_truth": {"main_content": gold},
            "_internal": {"page_type": {"primary": "article" if i % 4 else "category"}}}))
    return root


@pytest.fixture(scope="module", autouse=True)
def one_lightgbm_thread():
    """Train with one LightGBM thread: with two OpenMP threads on a busy 2-core machine the waiting thread
    spins, and fitting these tiny models takes 7 to 70 s instead of under 1 s (see the report)."""
    original = T._lgb_params
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(T, "_lgb_params", lambda p: {**original(p), "num_threads": 1})
        yield


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("wcxb") / "synthetic")


@pytest.fixture(scope="module")
def pages(dataset):
    return T.prepare_dataset([dataset], log=quiet).pages


@pytest.fixture(scope="module")
def flagship(dataset, tmp_path_factory):
    """The flagship trained by the public entry point (its shipped recipe, 2-fold CV; needs PyTorch)."""
    pytest.importorskip("torch", reason="PyTorch (the train extra) is not installed")
    out = tmp_path_factory.mktemp("flagship") / "model.npz"
    report = T.train_flagship([dataset], out, cv=2, seed=0, log=quiet)
    return out, report


def new_page(seed: int = 99):
    return make_page(random.Random(seed), 4)


# ------------------------------------------------------------------ data preparation

def test_prepare_dataset_reads_the_dataset(pages):
    assert len(pages) == 16
    assert {p.domain for p in pages} == set(DOMAINS)
    assert {p.type for p in pages} == {"article", "collection"}  # "category" is reported as "collection"
    for page in pages:
        doc = page.features.doc
        assert len(page.labels) == len(page.weights) == len(doc.blocks) == page.features.base.values.shape[0]
        kept = {b.text for b, keep in zip(doc.blocks, page.labels) if keep}
        assert "Logo" not in kept and "Subscribe to our newsletter today" not in kept
        assert all(b.text in page.gold for b, keep in zip(doc.blocks, page.labels) if keep)
        assert np.all(page.weights > 0)


def test_iter_labelled_refuses_a_directory_that_is_not_a_dataset(tmp_path):
    with pytest.raises(ThresherError):
        list(T.iter_labelled([tmp_path]))


def test_domain_of_drops_www_and_case():
    assert T.domain_of("https://WWW.Example.ORG/a?b") == "example.org"
    assert T.domain_of("http://news.example.org") == "news.example.org"
    assert T.domain_of(None) == ""


# ------------------------------------------------------------------ folds and vocabulary

def fake_pages(sizes: dict[str, int]):
    return [SimpleNamespace(domain=d) for d, n in sizes.items() for _ in range(n)]


@pytest.mark.parametrize("k", [2, 3, 5])
def test_group_folds_never_split_a_domain_and_are_deterministic(k):
    rng = random.Random(k)
    fakes = fake_pages({f"d{i}.org": rng.randint(1, 9) for i in range(23)})
    rng.shuffle(fakes)
    folds = T.group_folds(fakes, k, seed=0)
    assert len(folds) == k
    flat = sorted(i for fold in folds for i in fold)
    assert flat == list(range(len(fakes)))  # every page exactly once
    fold_of_domain: dict[str, set[int]] = {}
    for f, fold in enumerate(folds):
        for i in fold:
            fold_of_domain.setdefault(fakes[i].domain, set()).add(f)
    assert all(len(fs) == 1 for fs in fold_of_domain.values())
    assert all(fold for fold in folds)
    assert max(map(len, folds)) - min(map(len, folds)) <= 9  # balanced up to one domain's pages
    assert T.group_folds(fakes, k, seed=0) == folds
    assert T.group_folds(list(fakes), k, seed=0) == folds


def test_group_folds_on_prepared_pages(pages):
    folds = T.group_folds(pages, 2)
    for fold in folds:
        domains = {pages[i].domain for i in fold}
        others = {pages[i].domain for f in folds if f is not fold for i in f}
        assert not domains & others


def vocab_page(domain: str, content_tokens: set[str], boiler_tokens: set[str]):
    tokens = [content_tokens, boiler_tokens]
    return SimpleNamespace(domain=domain, labels=np.array([True, False]),
                           features=SimpleNamespace(token_sets=tokens))


def test_select_vocabulary_respects_min_domains():
    fakes = [vocab_page(f"d{i}.org", {"story", "body"}, {"menu", "footer"}) for i in range(3)]
    fakes.append(vocab_page("solo.org", {"solocontent"}, {"solomenu"}))
    vocab2 = T.select_vocabulary(fakes, size=10, min_domains=2)
    assert set(vocab2) == {"story", "body", "menu", "footer"}
    vocab1 = T.select_vocabulary(fakes, size=10, min_domains=1)
    assert {"solocontent", "solomenu"} <= set(vocab1)
    assert T.select_vocabulary(fakes, size=10, min_domains=4) == ()
    assert list(vocab1) == sorted(vocab1)


def test_select_vocabulary_takes_the_most_telling_tokens_of_each_side():
    fakes = [vocab_page(f"d{i}.org", {"story", "shared"}, {"menu", "shared"}) for i in range(4)]
    fakes += [vocab_page(f"e{i}.org", {"story"}, {"footer"}) for i in range(2)]
    vocab = T.select_vocabulary(fakes, size=2, min_domains=1)
    assert vocab == ("menu", "story")  # one most boilerplate-like, one most content-like; "shared" is neutral


def test_frequent_tokens_are_every_token_on_enough_domains_whatever_the_labels():
    fakes = [vocab_page(f"d{i}.org", {"story", "body"}, {"menu"}) for i in range(3)]
    fakes.append(vocab_page("solo.org", {"solocontent"}, {"menu", "solomenu"}))
    assert T.frequent_tokens(fakes, 2) == ("body", "menu", "story")
    assert T.frequent_tokens(fakes, 4) == ("menu",)
    assert T.frequent_tokens(fakes, 1) == ("body", "menu", "solocontent", "solomenu", "story")
    flipped = [SimpleNamespace(domain=f.domain, labels=~f.labels, features=f.features) for f in fakes]
    assert T.frequent_tokens(flipped, 2) == T.frequent_tokens(fakes, 2)


def test_a_model_file_without_a_network_vocabulary_gives_its_network_the_trees_vocabulary():
    """Files written before the network had its own token list (session 11's thresher-accurate)."""
    held = {"native": None}  # the Python models only
    old = L.LearnedModel({"network": "net"}, ("menu", "story"), 0.5, {"network_weight": 0.5}, **held)
    assert old.network == L.Network("net", F.Vocabulary(("menu", "story")), 0.5)
    new = L.LearnedModel({"network": "net"}, ("story",), 0.5, {"network_weight": 0.25,
                                                                 "network_vocabulary": ["a", "b"]}, **held)
    assert new.network == L.Network("net", F.Vocabulary(("a", "b")), 0.25)
    assert L.LearnedModel({}, ("story",), 0.5, {"network_weight": 0.5}, **held).network is None


# ------------------------------------------------------------------ comments

COMMENT_PAGE = """<html><body><article><p>{para}</p></article>
<div class="comments"><h3>Comments</h3>
<div class="comment"><p>I visited the harbour last summer and the boats were lovely to watch.</p>
<a href="#reply">Reply</a></div>
<div class="comment"><p>Great</p></div></div>
<div class="table-responsive"><p>Prices shown include tax and delivery charges.</p></div>
<footer><p>Copyright 2024 Example Org. All rights reserved.</p></footer></body></html>"""
PARA = "The harbour was busy from dawn with fishing boats unloading their catch for the market stalls by the quay."


def comment_page():
    doc = build_document(COMMENT_PAGE.format(para=PARA))
    labels = np.asarray(align_document(doc, PARA).labels, bool)
    return T.Page("x/1", "https://example.org/1", "example.org", "article", PARA, L.page_features(doc, "en"),
                  labels, T.block_weights(doc, labels))


def labelled(page) -> set[str]:
    return {b.text for b, keep in zip(page.features.doc.blocks, page.labels) if keep}


def test_with_comments_adds_comment_prose_to_the_labels():
    page = comment_page()
    assert labelled(page) == {PARA}
    extended = T.with_comments(page)
    added = labelled(extended) - {PARA}
    assert PARA in labelled(extended)
    assert "I visited the harbour last summer and the boats were lovely to watch." in added
    assert "Reply" not in added and "Great" not in added  # a link, and a block of fewer than 3 words
    assert "Copyright 2024 Example Org. All rights reserved." not in added
    assert len(extended.weights) == len(extended.labels)
    assert labelled(page) == {PARA}  # the original page is unchanged


def test_with_comments_ignores_responsive_containers():
    added = labelled(T.with_comments(comment_page())) - {PARA}
    assert "Prices shown include tax and delivery charges." not in added


# ------------------------------------------------------------------ training the flagship

def test_train_flagship_writes_a_loadable_model_with_meta(flagship):
    out, report = flagship
    assert out.is_file()
    models, meta = load(out)
    assert set(models) == {"stage1", "stage2", "network"}  # the default averages in the small network
    assert meta["algorithm"] == "thresher" and meta["seed"] == 0
    assert isinstance(meta["vocabulary"], list)
    assert meta["threshold"] == T.TrainParams().threshold
    assert meta["params"] == dataclasses.asdict(dataclasses.replace(T.FLAGSHIP, seed=0))
    assert meta["network_weight"] == T.FLAGSHIP.network_weight == 0.3
    assert meta["cv"]["pages"] == 16 and meta["cv"]["f1"] == pytest.approx(report["f1"])
    assert set(meta["cv"]["f1_by_type"]) == {"article", "collection"}
    assert 0.0 <= report["f1"] <= 1.0
    assert report["f1"] > 0.9  # the synthetic pages are easy
    learned_model = L.load_learned(str(out))
    assert learned_model.threshold == meta["threshold"]
    assert learned_model.vocabulary == tuple(meta["vocabulary"])


def test_trained_flagship_keeps_the_article_and_drops_the_navigation(flagship):
    out, _ = flagship
    html, _, paras, nav = new_page()
    text = thresher.extract(html, model=str(out), language="en")
    for para in paras:
        assert para in text
    for link in nav:
        assert link not in text
    assert "Copyright 2024" not in text


def predictions(model: Path, seeds=(99, 7)) -> list[np.ndarray]:
    out = []
    for seed in seeds:
        result = thresher.extract_result(new_page(seed)[0], model=str(model), language="en")
        out.append(np.asarray(result.classification.scores))
    return out


def test_training_twice_with_the_same_seed_is_byte_identical(pages, tmp_path):
    paths = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for path in paths:
        assert T.train_prepared("thresher", pages, path, cv=None, p=SMALL, log=quiet) == {}
    (ma, meta_a), (mb, meta_b) = load(paths[0]), load(paths[1])
    assert meta_a == meta_b
    for name in ma:
        for key, value in ma[name].arrays().items():
            assert np.array_equal(value, mb[name].arrays()[key]), (name, key)
    for pa, pb in zip(predictions(paths[0]), predictions(paths[1])):
        assert pa.tobytes() == pb.tobytes()
    assert len(meta_a["vocabulary"]) <= SMALL.vocabulary_size


@pytest.mark.parametrize("trainer,dragnet", [(T.train_flagship_models, False), (T.train_dragnet_models, True)])
def test_pruned_models_keep_only_read_tokens_and_score_identically(pages, monkeypatch, trainer, dragnet):
    with monkeypatch.context() as patch:
        patch.setattr(T, "pruned", lambda trained: trained)
        full = trainer(pages, SMALL)
    small = T.pruned(full)
    models = [m for m in (small.stage1, small.stage2) if m is not None]
    read = frozenset().union(*(m.read_features() for m in models))
    assert set(small.vocabulary) <= set(full.vocabulary)
    assert all(token_name(t) in read for t in small.vocabulary)
    assert len(small.stage1.feature_names) == len(full.stage1.feature_names) - (
        len(full.vocabulary) - len(small.vocabulary))
    for page in pages:
        assert np.array_equal(T.predict(small, page.features, dragnet), T.predict(full, page.features, dragnet))
    if dragnet:  # on these pages Dragnet's trees read some tokens and not others (the flagship reads none)
        assert 0 < len(small.vocabulary) < len(full.vocabulary)


def test_two_stage2_models_average_the_single_model_with_a_reseeded_twin(pages, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(T, "pruned", lambda trained: trained)
        one = T.train_flagship_models(pages, SMALL)
        two = T.train_flagship_models(pages, dataclasses.replace(SMALL, stage2_models=2))
    twin = T.fit_stage2(pages, F.vocabulary(one.vocabulary), dataclasses.replace(SMALL, seed=SMALL.seed + 1),
                        T.fit_trees)
    assert two.vocabulary == one.vocabulary
    assert np.array_equal(two.stage1.threshold, one.stage1.threshold)  # stage 1 is not touched
    assert len(two.stage2.roots) == len(one.stage2.roots) + len(twin.roots)
    assert not np.array_equal(twin.value, one.stage2.value)  # the twin's seeds make other trees
    for page in pages[:3]:
        s1 = L.stage1_features(page.features, F.vocabulary(one.vocabulary))
        x = L.stage2_features(s1, page.features.doc, T.probability(one.stage1, s1.values)).values
        np.testing.assert_allclose(two.stage2.margin(x), (one.stage2.margin(x) + twin.margin(x)) / 2)


def test_train_prepared_with_cv_saves_the_report(pages, tmp_path):
    out = tmp_path / "dragnet.npz"
    report = T.train_prepared("dragnet", pages, out, cv=2, p=SMALL, log=quiet)
    models, meta = load(out)
    assert set(models) == {"stage1"}
    assert meta["cv"]["f1"] == pytest.approx(report["f1"])
    html, _, paras, nav = new_page(5)
    text = thresher.extract(html, algorithm="dragnet", model=str(out), language="en")
    assert all(p in text for p in paras) and not any(link in text for link in nav)


def add_textless_page(root: Path, stem: str, gold: str, kind: str) -> None:
    """A page whose text a script would load: a title and a script, no block."""
    html = b"<html><head><title>Shell</title></head><body><script>load()</script></body></html>"
    (root / "html" / f"{stem}.html.gz").write_bytes(gzip.compress(html, mtime=0))
    (root / "ground-truth" / f"{stem}.json").write_text(json.dumps({
        "url": f"https://www.{DOMAINS[0]}/shell/{stem}", "ground_truth": {"main_content": gold},
        "_internal": {"page_type": {"primary": kind}}}))


def test_cross_validation_scores_textless_pages_as_empty_extractions(tmp_path):
    root = make_dataset(tmp_path / "shells", n=8, seed=3)
    add_textless_page(root, "0008", "Posts that a script loads after the page.", "forum")
    add_textless_page(root, "0009", "", "service")
    prepared = T.prepare_dataset([root], log=quiet)
    assert len(prepared.pages) == 8
    textless = [(page.id, page.type) for page in prepared.textless]
    assert textless == [("shells/0008", "forum"), ("shells/0009", "service")]
    counted = T.train_prepared("dragnet", prepared.pages, tmp_path / "a.npz", cv=2, p=SMALL, log=quiet,
                               textless=prepared.textless)
    without = T.train_prepared("dragnet", prepared.pages, tmp_path / "b.npz", cv=2, p=SMALL, log=quiet)
    assert (counted["pages"], without["pages"]) == (10, 8)
    assert counted["f1_by_type"]["forum"] == 0.0  # gold text, and an empty extraction
    assert counted["f1_by_type"]["service"] == 1.0  # no gold text: the empty extraction is right
    assert counted["f1"] == pytest.approx((without["f1"] * 8 + 1.0) / 10)
    assert load(tmp_path / "a.npz")[1]["cv"]["pages"] == 10


def test_cli_train_dragnet(dataset, tmp_path, capsys):
    from thresher.cli.main import main

    out = tmp_path / "cli-dragnet.npz"
    assert main(["train", str(dataset), "-o", str(out), "--algorithm", "dragnet", "--cv", "2"]) == 0
    models, meta = load(out)
    assert set(models) == {"stage1"} and meta["algorithm"] == "dragnet"
    assert meta["datasets"] == [dataset.name] and meta["seed"] == T.SEED
    printed = json.loads(capsys.readouterr().out)
    assert printed["pages"] == 16 and 0.0 <= printed["f1"] <= 1.0


def test_train_accurate_adds_a_network_that_the_extractor_averages_in(pages, tmp_path):
    """thresher-accurate: the same trees plus the block-sequence network, saved with its weight;
    extraction averages the two, and the explain view shows both."""
    pytest.importorskip("torch", reason="PyTorch (the train extra) is not installed")
    from thresher.inference.seqmodel import SequenceNet
    from thresher.training.sequence import SequenceParams

    p = dataclasses.replace(SMALL, network=True, sequence=SequenceParams(width=8, layers=1, heads=2, embedding=4,
                                                                          epochs=20, learning_rate=1e-2))
    out = tmp_path / "accurate.npz"
    T.train_prepared("thresher-accurate", pages, out, cv=None, p=p, log=quiet)
    models, meta = load(out)
    assert set(models) == {"stage1", "stage2", "network"} and isinstance(models["network"], SequenceNet)
    network = L.load_learned(str(out)).network
    assert meta["network_weight"] == 0.5 and network.weight == 0.5
    # the network's token columns are every token on enough domains, not the trees' (pruned) vocabulary
    frequent = T.frequent_tokens(pages, p.min_token_domains)
    assert network.vocabulary.tokens == frequent == tuple(meta["network_vocabulary"])
    assert models["network"].feature_names == L.network_features(pages[0].features, network.vocabulary).names
    read = models["stage1"].read_features() | models["stage2"].read_features()
    assert all(token_name(t) in read for t in meta["vocabulary"])  # the trees' vocabulary is still pruned
    html, _, paras, nav = new_page(3)
    result = thresher.extract_result(html, algorithm="thresher-accurate", model=str(out), language="en",
                                     explain=True)
    assert all(para in result.text for para in paras) and not any(link in result.text for link in nav)
    reasons = result.classification.reasons
    assert all("trees " in r and "network " in r for r in reasons)


def test_network_scores_are_averaged_with_the_guarded_tree_scores(pages):
    pytest.importorskip("torch", reason="PyTorch (the train extra) is not installed")
    from thresher.training.sequence import SequenceParams

    p = dataclasses.replace(SMALL, network=True, network_weight=0.25,
                            sequence=SequenceParams(width=8, layers=1, heads=2, embedding=4, epochs=1))
    trained = T.train_flagship_models(pages, p)
    page = pages[0].features
    assert trained.network.weight == 0.25
    vocabulary = F.vocabulary(trained.vocabulary)
    s = L.two_stage_scores(trained.stage1, trained.stage2, page, vocabulary, 0.7, trained.network, Params().certain)
    np.testing.assert_allclose(s.final, 0.75 * s.guarded + 0.25 * s.network)
    plain = L.two_stage_scores(trained.stage1, trained.stage2, page, vocabulary, 0.7, None, Params().certain)
    assert plain.network is None and np.array_equal(plain.final, s.guarded)
    assert np.array_equal(T.predict(trained, page), s.final)
    # the network reads the page's tokens as bags; the dense columns give the same scores
    dense = L.score_stage(trained.network.model, L.network_features(page, trained.network.vocabulary))
    np.testing.assert_allclose(s.network, dense, rtol=1e-5, atol=1e-6)
    # the bags are read by name, so the column order of the file does not matter
    model = trained.network.model
    moved = dataclasses.replace(model, feature_names=model.token_columns + model.numeric_names)
    np.testing.assert_array_equal(L.network_scores(trained.network._replace(model=moved), page), s.network)
    # a network whose inputs are not this thresher's features goes through the checked dense path
    other = dataclasses.replace(model, feature_names=("renamed", *model.feature_names[1:]))
    with pytest.raises(ModelError, match="retrain"):
        L.network_scores(trained.network._replace(model=other), page)


# ------------------------------------------------------------------ dataset layouts and dependencies

def make_readability_dataset(root: Path, n: int = 16, seed: int = 0) -> Path:
    """The same generated pages in the Readability layout: <id>/source.html, expected.html, metadata."""
    rng = random.Random(seed)
    for i in range(n):
        html, _, paras, _ = make_page(rng, rng.randint(3, 6))
        folder = root / f"page-{i:02d}"
        folder.mkdir(parents=True)
        (folder / "source.html").write_text(html, encoding="utf-8")
        (folder / "expected.html").write_text("<div>" + "".join(f"<p>{p}</p>" for p in paras) + "</div>",
                                              encoding="utf-8")
        (folder / "expected-metadata.json").write_text(json.dumps({"url": f"https://{DOMAINS[i % 8]}/p/{i}"}))
    return root


def test_training_reads_the_readability_layout(tmp_path):
    root = make_readability_dataset(tmp_path / "readability-like")
    pages = T.prepare_dataset([root], log=quiet).pages
    assert len(pages) == 16 and {p.type for p in pages} == {"article"}
    assert all(p.labels.any() and not p.labels.all() for p in pages)


def test_thresher_train_fits_a_model_on_the_readability_layout(tmp_path, capsys):
    from thresher.cli.main import main

    root = make_readability_dataset(tmp_path / "readability-like")
    out = tmp_path / "dragnet.npz"
    assert main(["train", str(root), "-o", str(out), "-a", "dragnet", "--cv", "0"]) == 0
    page = make_page(random.Random(5))[0]
    assert thresher.extract(page, algorithm="dragnet", model=out)  # the model loads and keeps text


def test_a_layout_without_gold_text_is_refused_before_any_page_is_read(tmp_path):
    snippets = tmp_path / "snippets"
    (snippets / "html").mkdir(parents=True)
    (snippets / "evaldata.json").write_text("{}")
    with pytest.raises(ThresherError, match="snippets layout has no gold main text"):
        T.train_dragnet([snippets], tmp_path / "m.npz", cv=None)
    with pytest.raises(ThresherError, match="not a dataset"):
        T.train_dragnet([tmp_path / "snippets" / "html"], tmp_path / "m.npz", cv=None)


def test_every_trainer_names_the_packages_it_needs():
    from thresher.training.registry import PACKAGES, TRAINERS

    assert TRAINERS["thresher"].needs == ("lightgbm", "torch")
    assert TRAINERS["dragnet"].needs == ("lightgbm",)
    assert set().union(*(spec.needs for spec in TRAINERS.values())) <= set(PACKAGES)
    assert TRAINERS["dragnet"].missing() == ()  # lightgbm is in the test extra
