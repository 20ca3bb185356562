"""Feature assembly and two-stage inference for the learned extractors (``dragnet``, ``thresher``).

Stage 1 scores every block from its own features. Stage 2 (the flagship only)
re-scores each block from its features *and* the stage-1 scores around it in
reading order and in the tree (the mean score of each ancestor's subtree), and
from where it lies against the page's main run of confident content, so that a
forum's posts, a service page's sections or a product description rise or fall
together, and a related-articles list after an article falls with the rest.
Both stages are tree ensembles evaluated by :mod:`thresher.inference.treemodel`. A model file may
add a third, a block-sequence network (:mod:`thresher.inference.seqmodel`) that reads the base
features and its own id/class-token columns for the whole page in reading order; the final
scores then average it with stage 2's (the ``thresher-accurate`` model).

Extraction scores a page in one native call (:func:`score_page`): the file is loaded once into
``thresher._core.LearnedModel`` (checked array by array, see ``crates/core/src/learned.rs``), and
``Page.score`` runs every step above with the GIL released. The column functions here are the
ones training reads (the same native feature code, one group at a time), and
:func:`two_stage_scores` composes them for models held in memory while they are trained.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from .. import _core
from .._lazy import LazyModule, cached_property
from ..document.blocks import Document
from ..document.language import stopwords
from ..errors import ModelError
from ..features.head import page_types, structured_text
from ..features.native import native_stop_words, tree_params
from .modelfile import RawArray, read_raw

if TYPE_CHECKING:
    import numpy as np

    from .. import features as F
    from .treemodel import Model
else:
    np = LazyModule("numpy")  # loaded by the first caller that needs arrays
    # The feature columns and the Python models are for training and explain: extraction
    # scores in one native call and loads neither.
    F = LazyModule("thresher.features")

# Kohlschütter's text and link density, as Dragnet names them, plus the block's word count (which
# Dragnet's own shallow features lack; docs/design-measurements.md).
DRAGNET_NEIGHBOURS = ("log_words", "link_density", "text_density")
# How the flagship turns block probabilities into labels (see thresher.algorithms.flagship).
DECODINGS = ("expected_f1", "threshold")
DECODING_NAMES = {"expected_f1": "expected-F1 cut", "threshold": "threshold"}  # as reports print them


@dataclass(frozen=True)
class PageFeatures:
    """Everything a learned model needs from one page, before the token vocabulary is applied
    (what training and the explain details read; extraction scores in one native call)."""

    base: F.Columns
    doc: Document

    @property
    def candidates(self) -> F.Columns:
        """Readability's candidate columns (:func:`thresher.features.candidates.candidate_columns`),
        computed when read: the flagship's stage 1 reads them, Dragnet does not."""
        from ..features.candidates import candidate_columns

        return candidate_columns(self.doc)

    @property
    def token_sets(self) -> list[set[str]]:
        """Per block: the id/class tokens on its element and 2 ancestors (what training counts)."""
        return F.token_sets(self.doc)


def page_features(doc: Document, language: str) -> PageFeatures:
    return PageFeatures(F.base_columns(doc, stopwords(language)), doc)


def cetr_cluster(doc: Document) -> F.Columns:
    """CETR's unsupervised decision as a feature: 1 for blocks outside the k-means
    cluster at the origin of (smoothed tag ratio, derivative), as Dragnet uses it."""
    from ..features.cetr import block_content

    return F.Columns(("cetr_cluster",), block_content(doc).astype(np.float32)[:, None])


def dragnet_features(page: PageFeatures, vocabulary: F.Vocabulary) -> F.Columns:
    """Dragnet's feature set: shallow text of prev/curr/next, CETR (ratio, derivative and
    k-means cluster), and selected id/class tokens."""
    base = page.base
    own = F.Columns(DRAGNET_NEIGHBOURS + ("cetr_ratio", "cetr_derivative"),
                    base.values[:, [base.names.index(c) for c in DRAGNET_NEIGHBOURS + ("cetr_ratio", "cetr_derivative")]])
    shallow = F.Columns(DRAGNET_NEIGHBOURS, own.values[:, :len(DRAGNET_NEIGHBOURS)])
    return F.concat([own, cetr_cluster(page.doc), F.neighbours(shallow, DRAGNET_NEIGHBOURS, (-1, 1)),
                     F.token_columns(page.doc, vocabulary)])


def stage1_features(page: PageFeatures, vocabulary: F.Vocabulary, candidates: bool = True) -> F.Columns:
    """The base features, Readability's candidate columns (unless ``candidates`` is false: the
    layout of models trained before they existed) and the vocabulary's token columns."""
    return F.concat(stage1_groups(page, vocabulary, candidates))


def stage1_groups(page: PageFeatures, vocabulary: F.Vocabulary, candidates: bool = True) -> list[F.Columns]:
    """:func:`stage1_features`' column groups, not joined."""
    groups = [page.base, page.candidates] if candidates else [page.base]
    return [*groups, F.token_columns(page.doc, vocabulary)]


def reads_candidates(stage1: Model) -> bool:
    """Whether a stage-1 model's layout holds Readability's candidate columns. Models trained
    before they were added (thresher-accurate's, users' own) do not, and keep working."""
    from ..features.candidates import NAMES

    return NAMES[0] in stage1.feature_names


def network_features(page: PageFeatures, vocabulary: F.Vocabulary) -> F.Columns:
    """The sequence network's inputs: the base features and the vocabulary's token columns
    (what :meth:`thresher.inference.seqmodel.SequenceNet.margin_bags` reads without the dense matrix)."""
    return F.concat([page.base, F.token_columns(page.doc, vocabulary)])


# ------------------------------------------------------------------ stage 2

CONTEXT_NAMES: tuple[str, ...] = tuple(_core.CONTEXT_COLUMNS)


def context_features(doc: Document, p: np.ndarray) -> F.Columns:
    """Stage-1 scores around each block (``crates/core/src/features/stage2.rs``): in reading
    order (``p@k``: the block k away; ``p_max_r``, ``p_mean_r``: within r blocks), in its
    ancestors' subtrees (``p_anc{l}``: the character-weighted mean over the subtree of the
    block's element's l-th ancestor), on the page (character-weighted mean, maximum, share of
    characters above 0.5, the block's score over the maximum), and against the page's main run.

    The main run is the stretch of reading order whose text is most confidently content
    (largest sum of (p - 0.5) x characters): ``run_member``, ``run_distance`` (signed log of
    the blocks to it) and ``run_share`` (its share of the page's characters). A
    related-articles list after an article, or a menu before it, lies outside the run however
    content-like its own blocks look.
    """
    return F.Columns(CONTEXT_NAMES, doc.native.context_features(np.asarray(p, np.float64)))


def stage2_features(stage1: F.Columns, doc: Document, p: np.ndarray) -> F.Columns:
    return stage2_layout(stage1, context_features(doc, p))


def stage2_layout(stage1: F.Columns, context: F.Columns) -> F.Columns:
    """Stage 2's columns: stage 1's, then the context of the stage-1 scores."""
    return F.concat([stage1, context])


def guard_confident(own: np.ndarray, final: np.ndarray, in_run: np.ndarray, confident: float) -> np.ndarray:
    """Stage 2's scores, except that a block of the main run (``in_run``, stage 2's
    ``run_member`` column) whose own (stage-1) score reaches ``confident`` keeps at least that score.

    Context may rescue uncertain blocks and demote doubtful ones, but does not overturn
    confident evidence inside the main content. It matters most where the context is unlike
    any training page (a paragraph under 100,000 nested elements, say); its cost in F1 is in
    docs/design-measurements.md.
    """
    return np.where((own >= confident) & in_run, np.maximum(own, final), final)


class StageScores(NamedTuple):
    """Per-block probabilities: stage 1's (``own``), stage 2's (``context``), stage 2's after
    :func:`guard_confident` (``guarded``), the sequence network's (``network``, None without
    one) and the ``final`` ones the decoding reads."""

    own: np.ndarray
    context: np.ndarray
    guarded: np.ndarray
    network: np.ndarray | None
    final: np.ndarray


class Network(NamedTuple):
    """The block-sequence network of a model file: the model, the id/class tokens its columns
    hold (its own list, beside the base features) and its share of the final scores."""

    model: Model
    vocabulary: F.Vocabulary
    weight: float


def blend(guarded: np.ndarray, network: np.ndarray | None, network_weight: float) -> np.ndarray:
    """The final scores: stage 2's (guarded), averaged with the network's where there is one."""
    if network is None:
        return guarded
    return (1.0 - network_weight) * guarded + network_weight * network


def network_scores(network: Network | None, page: PageFeatures) -> np.ndarray | None:
    """The network's probabilities. A sequence network whose inputs are the base features and
    its vocabulary's tokens (every shipped one) reads the tokens as bags, without the dense
    0/1 columns; any other layout is checked and read as :func:`network_features`."""
    if network is None:
        return None
    from .seqmodel import SequenceNet
    from .treemodel import sigmoid

    model = network.model
    if isinstance(model, SequenceNet) and model.token_columns == network.vocabulary.names \
            and not F.selection(page.base.names, model.numeric_names)[1]:
        bags = F.token_bags(page.doc, network.vocabulary)
        return sigmoid(model.margin_bags(page.base.select(model.numeric_names), bags.indices, bags.offsets))
    return score_stage(model, network_features(page, network.vocabulary))


def two_stage_scores(stage1: Model, stage2: Model | None, page: PageFeatures, vocabulary: F.Vocabulary,
                     confident: float, network: Network | None = None, certain: float = 0.0) -> StageScores:
    """The flagship's scores from models held in memory (training's; extraction reads a loaded
    file through :func:`score_page`, which runs the same steps natively). Without a stage-2 model every stage's are stage 1's; a
    ``network`` is averaged in with its weight. Stage 2 scores only the blocks whose stage-1
    score is not ``certain`` (see :func:`uncertain`); the others keep their stage-1 score."""
    s1 = stage1_groups(page, vocabulary, reads_candidates(stage1))
    own = score_stage(stage1, F.concat(s1))
    net = network_scores(network, page)
    weight = network.weight if network is not None else 0.0
    if stage2 is None:
        return StageScores(own, own, own, net, blend(own, net, weight))
    around = context_features(page.doc, own)
    context = own.copy()
    rows = uncertain(own, certain)
    if rows.any():
        context[rows] = score_stage(stage2, F.concat([group.rows(rows) for group in [*s1, around]]))
    guarded = guard_confident(own, context, around.column("run_member") > 0, confident)
    return StageScores(own, context, guarded, net, blend(guarded, net, weight))


def uncertain(own: np.ndarray, certain: float) -> np.ndarray:
    """The blocks whose stage-1 probability lies within [certain, 1 - certain]: the ones
    stage 2 is evaluated on (all of them when ``certain`` is 0).

    Stage 2 seldom moves a block stage 1 is sure of, and where it does the decoding barely
    notices; skipping those blocks saves about half of stage 2's rows (the bands tried, and
    their cross-validated figures: docs/design-measurements.md).
    """
    if certain <= 0.0:
        return np.ones(len(own), bool)
    return (own >= certain) & (own <= 1.0 - certain)


# ------------------------------------------------------------------ models

@dataclass(frozen=True)
class LearnedModel:
    """A loaded model file: ``native``, the whole file checked and laid out by the core (what
    extraction scores with), and the same models as Python objects with the vocabulary,
    threshold and meta they were trained with (what the explain details read)."""

    models: Mapping[str, Model]
    vocabulary: tuple[str, ...]
    threshold: float
    meta: dict
    native: _core.LearnedModel

    @cached_property
    def token_vocabulary(self) -> F.Vocabulary:
        """The vocabulary as the feature code reads it (made on first read: explain and
        training; extraction hands the core the file's arrays)."""
        return F.Vocabulary(self.vocabulary)

    @property
    def decoding(self) -> str:
        """How the flagship turns this model's scores into labels ("threshold" unless the file says)."""
        return self.native.decoding

    @property
    def network(self) -> Network | None:
        """The file's sequence network as a Python object, if it has one (what training's
        :func:`two_stage_scores` reads). Its token columns are the file's ``network_vocabulary``
        (files without that entry share the trees' vocabulary)."""
        if "network" not in self.models:
            return None
        vocabulary = F.Vocabulary(tuple(self.meta.get("network_vocabulary", self.vocabulary)))
        return Network(self.models["network"], vocabulary, float(self.meta.get("network_weight", 0.0)))

    def stage(self, name: str) -> Model:
        try:
            return self.models[name]
        except KeyError:
            raise ModelError(f"model file has no {name!r} model (has {', '.join(self.models)})") from None


def load_learned(path: str) -> LearnedModel:
    """Load (memoised by path, modification time and size: a rewritten file is re-read)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the model file ({exc.strerror})") from None
    return _load_learned(str(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _load_learned(path: str, _mtime_ns: int, _size: int) -> LearnedModel:
    header, arrays = read_raw(path)
    native = native_model(path, header, arrays)
    meta = header.get("meta", {})
    vocabulary = tuple(meta.get("vocabulary", ()))
    return LearnedModel(FileModels(path, header, arrays), vocabulary, native.threshold, meta, native)


class FileModels(Mapping[str, "Model"]):
    """A model file's models as Python objects, by name, made on first read (explain and
    training read them; extraction scores with the native model alone, and never loads numpy
    for them)."""

    def __init__(self, path: str, header: dict, arrays: Mapping[str, RawArray]) -> None:
        self._path, self._header, self._arrays = path, header, arrays
        self._built: dict[str, Model] | None = None

    def _models(self) -> dict[str, Model]:
        built = self._built
        if built is None:
            arrays = {key: raw.array() for key, raw in self._arrays.items()}
            from .treemodel import build

            built = self._built = build(self._path, self._header, arrays)[0]
        return built

    def __getitem__(self, name: str) -> Model:
        return self._models()[name]

    def __contains__(self, name: object) -> bool:
        return name in self._header["models"]

    def __iter__(self) -> Iterator[str]:
        return iter(self._header["models"])

    def __len__(self) -> int:
        return len(self._header["models"])


def native_model(path: str, header: dict, arrays: Mapping[str, np.ndarray | RawArray]) -> _core.LearnedModel:
    """The core's model of a file's ``header`` and ``arrays``: every array is checked (shapes,
    indices in range, finite values where they must be), and a file that is not sound is a
    :class:`ModelError` saying what is wrong."""
    try:
        return _core.LearnedModel(header, arrays, tree_params())
    except (ValueError, TypeError) as exc:
        raise ModelError(f"{path}: {exc}") from None


# The shipped model files, beside the package's modules (an extension module's package is
# never imported from a zip archive, so they are plain files on disk).
MODELS_FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models")


@lru_cache(maxsize=8)
def shipped_model_path(filename: str) -> str:
    """Where the installed package keeps the model file ``filename`` (memoised: an
    installation does not move)."""
    path = os.path.join(MODELS_FOLDER, filename)
    if not os.path.isfile(path):
        raise ModelError(f"the shipped model {filename} is missing from this installation")
    return path


def score_page(model: LearnedModel, doc: Document, language: str, *, smoothing: bool = True,
               confident: float = 0.7, certain: float = 0.05, decoding: str = "threshold",
               threshold: float = 0.5, never_empty: bool = True, fallback_ratio: float = 0.5,
               allow_empty: bool = False, beta: float = 1.0) -> _core.Scores:
    """``doc`` scored by ``model`` in one native call (the GIL released): features, stage 1,
    the context of its scores, stage 2 on the uncertain blocks (unless ``smoothing`` is off),
    the network, the main-run guard, the blend and the decoding (see
    :class:`thresher.algorithms.flagship.Params` for the parameters). The head's facts are
    read here and handed over."""
    return doc.native.score(model.native, native_stop_words(stopwords(language)), title=doc.title,
                            structured_text=structured_text(doc), page_types=page_types(doc),
                            smoothing=smoothing, confident=confident, certain=certain, decoding=decoding,
                            threshold=threshold, never_empty=never_empty, fallback_ratio=fallback_ratio,
                            allow_empty=allow_empty, beta=beta)


def stage_scores(scores: _core.Scores) -> StageScores:
    """The steps of a native score as :class:`StageScores` (what explain reads)."""
    return StageScores(scores.own, scores.context, scores.guarded, scores.network, scores.final_scores)


def checked(model: Model, columns: F.Columns) -> np.ndarray:
    """The columns ``model`` reads, by name and in its order: a model trained before a feature
    was added keeps working. A feature it reads that this thresher no longer computes is a
    ModelError."""
    return columns.select(tuple(model.feature_names), "model")


def score_stage(model: Model, columns: F.Columns) -> np.ndarray:
    from .treemodel import probability

    return probability(model, checked(model, columns))
