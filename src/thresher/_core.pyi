# Type stub of thresher._core, the compiled module built from crates/python/src/lib.rs.
# Keep it in step with that file: every function, class and constant it registers is here.
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, final

import numpy as np
import numpy.typing as npt

SHALLOW_COLUMNS: list[str]
BLOCK_TAGS: list[str]
HEADING_TAGS: list[str]
SKIPPED_TAGS: list[str]
CANDIDATE_COLUMNS: list[str]
BLOCK_TAG_ONE_HOT: list[str]
NEIGHBOUR_COLUMNS: list[str]
CONTEXT_COLUMNS: list[str]

# One block: index, text, tag, element, spans ((text, element) per text run), chars, words,
# link chars, link words, tags, is heading, offset (the field order of thresher.document.blocks.Block);
# build_document makes each into its block_type.
BlockRow = tuple[int, str, str, int, tuple[tuple[str, int], ...], int, int, int, int, int, bool, int]

@final
class ElementAttributes:
    def dicts(self) -> list[Mapping[str, str]]: ...
    def __len__(self) -> int: ...

class DocumentColumns(TypedDict):
    tags: list[str]
    parents: npt.NDArray[np.int64]
    depths: npt.NDArray[np.int64]
    first_blocks: npt.NDArray[np.int64]
    end_blocks: npt.NDArray[np.int64]
    attrs: ElementAttributes
    lang: str | None
    blocks: list[BlockRow]
    title: str
    meta: list[tuple[str, str]]
    json_ld: list[str]
    skipped: list[int]
    page: Page

class TreeFactsColumns(TypedDict):
    context_bits: npt.NDArray[np.int64]
    neg_distance: npt.NDArray[np.int64]
    pos_distance: npt.NDArray[np.int64]
    same_sibling_count: npt.NDArray[np.int64]
    parents: npt.NDArray[np.int64]
    id_slot: npt.NDArray[np.int64]
    class_slot: npt.NDArray[np.int64]
    subtree_chars: npt.NDArray[np.float64]
    subtree_link_chars: npt.NDArray[np.float64]
    hidden: npt.NDArray[np.bool_]
    paths: npt.NDArray[np.uint64]
    roles: dict[int, str]
    tokens_of: dict[str | None, list[str]]
    ids: list[str | None]
    classes: list[str | None]

def build_document(html: str | bytes, *, max_attributes: int, max_depth: int, attributes: bool,
                   empty: Mapping[str, str], block_type: type[BlockRow]) -> DocumentColumns: ...
def text_density(text: str) -> float: ...
def hidden_signals(attrs: Sequence[tuple[str, str]]) -> list[str]: ...
def readability_pattern_bits(value: str) -> int: ...
def gaussian_kernel(sigma: float, radius_sigmas: float) -> npt.NDArray[np.float64]: ...
def gaussian_smooth(values: npt.NDArray[np.float64], sigma: float, radius_sigmas: float, *,
                    edges: str) -> npt.NDArray[np.float64]: ...
def text_copies(texts: Sequence[str],
                parents: Sequence[int]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]: ...

@final
class Page:
    def shallow_text(self, stop_words: StopWords) -> npt.NDArray[np.float32]: ...
    def keep_blocks(self, keep: npt.NDArray[np.bool_]) -> Page: ...
    def tree_facts(self, params: TreeFactsParams) -> TreeFactsColumns: ...
    def word_overlaps(self, texts: Sequence[str]) -> npt.NDArray[np.float64]: ...
    def comment_elements(self, words: CommentWords) -> npt.NDArray[np.bool_]: ...
    def nearest(self, tags: Sequence[str]) -> npt.NDArray[np.int64]: ...
    def block_numbers(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
                                     npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
                                     npt.NDArray[np.int64]]: ...
    def candidate_columns(self, params: TreeFactsParams) -> npt.NDArray[np.float32]: ...
    def token_columns(self, vocabulary: Vocabulary, params: TreeFactsParams) -> npt.NDArray[np.float32]: ...
    def token_bags(self, vocabulary: Vocabulary,
                   params: TreeFactsParams) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
    def block_tokens(self, params: TreeFactsParams) -> list[list[str]]: ...
    def context_features(self, p: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]: ...
    def base_columns(self, stop_words: StopWords, params: TreeFactsParams, *, title: str, structured_text: str,
                     page_types: set[str]) -> tuple[tuple[str, ...], npt.NDArray[np.float32]]: ...
    def __len__(self) -> int: ...

@final
class StopWords:
    def __init__(self, words: Sequence[str]) -> None: ...
    def __len__(self) -> int: ...

@final
class CommentWords:
    def __init__(self, *, words: Sequence[str], state_tokens: Sequence[str], wrapper_tags: Sequence[str]) -> None: ...

@final
class Vocabulary:
    def __init__(self, tokens: Sequence[str]) -> None: ...
    def __len__(self) -> int: ...

@final
class TreeFactsParams:
    def __init__(self, *, context_tags: Sequence[str], negative_cues: Sequence[str], positive_cues: Sequence[str],
                 max_cue_distance: int) -> None: ...

@final
class Trees:
    def __init__(self, nodes: Mapping[str, npt.NDArray[Any]], *, depth: int, width: int, base: float) -> None: ...
    def margins(self, x: npt.NDArray[np.float32] | npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
    def margins_gathered(self, groups: Sequence[npt.NDArray[np.float32]], sources: npt.NDArray[np.int64],
                         rows: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.float64]: ...
    @property
    def complete(self) -> bool: ...

@final
class SequenceNet:
    def __init__(self, weights: Mapping[str, npt.NDArray[np.float32]], *, numeric: int, tokens: int, width: int,
                 embedding: int, layers: int, heads: int, chunk: int) -> None: ...
    def margins(self, values: npt.NDArray[np.float32], indices: npt.NDArray[np.int64],
                offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]: ...
