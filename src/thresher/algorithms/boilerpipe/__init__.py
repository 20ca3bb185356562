"""Boilerpipe (Kohlschütter, Fankhauser, Nejdl, WSDM 2010): shallow text features.

Every block is described by five shallow features (:class:`Features`):

* **words**: tokens holding a letter or digit;
* **anchor words**: such tokens inside ``<a>``;
* **link density**: anchor words / words;
* **text density**: the block word-wrapped at 80 characters; the words on its
  lines divided by the number of lines, the last (partial) line left out when
  there are several;
* **tag level**: the depth of the block's delimiting element.

Three extractors share them:

``boilerpipe-numwords``
    the paper's decision tree over the word counts and link densities of the
    previous, current and next block (the "NumWords" classifier);
``boilerpipe-density``
    the paper's decision tree over text densities (the "Density" classifier);
``boilerpipe-article``
    an article pipeline in the spirit of boilerpipe's ArticleExtractor: end
    cues and title matching label blocks, a classifier decides, then a chain
    of filters cuts the text after an end cue, drops trailing headings, fuses
    nearby content, keeps the largest content segment (expanded to same-level
    neighbours), restores headlines between the title and the main text, and
    re-admits large same-level blocks and lists at the end of the text.

The pipeline works on :class:`Segment` values (runs of fused blocks) and maps
its decisions back onto blocks; nothing is mutated.

Modules: :mod:`.features` (the shallow features), :mod:`.classifiers` (the two
decision trees) and :mod:`.article` (the article pipeline).
"""
from __future__ import annotations

from ..base import Algorithm
from .article import (
    END_CUE,
    END_CUE_CONTAINS,
    END_CUE_COUNTED,
    END_CUE_PREFIXES,
    HEADING,
    MIGHT_BE,
    TITLE,
    VERY_LIKELY,
    ArticleParams,
    ArticleRun,
    Segment,
    article_reasons,
    article_segments,
    block_labels,
    cut_after_end_cue,
    drop_boilerplate,
    drop_trailing_headings,
    expand_title_to_content,
    fuse,
    is_end_cue,
    keep_largest,
    large_blocks_at_main_level,
    list_at_end,
    merge_features,
    normalize_title,
    run_article,
    title_candidates,
)
from .classifiers import (
    CLASSIFIERS,
    DensityParams,
    NumWordsParams,
    classify,
    density_rule,
    explain,
    numwords_rule,
    run_density,
    run_numwords,
)
from .features import (
    EMPTY,
    Features,
    anchor_words,
    block_features,
    count_words,
    inside,
    neighbours,
    wrap_counts,
)

SOURCE = ("Kohlschütter, Fankhauser, Nejdl: Boilerplate Detection using Shallow Text Features "
          "(WSDM 2010)")

ALGORITHMS = (
    Algorithm(name="boilerpipe-numwords", params_type=NumWordsParams, run_fn=run_numwords, source=SOURCE,
              needs_language=False, needs_attributes=False,
              summary="Boilerpipe NumWords: decision tree over word counts and link densities of neighbours"),
    Algorithm(name="boilerpipe-density", params_type=DensityParams, run_fn=run_density, source=SOURCE,
              needs_language=False, needs_attributes=False,
              summary="Boilerpipe Density: decision tree over text densities and link densities of neighbours"),
    Algorithm(name="boilerpipe-article", params_type=ArticleParams, run_fn=run_article, source=SOURCE,
              needs_language=False, needs_attributes=False,
              summary="Boilerpipe article pipeline: end cues, title, classifier, fusion, largest segment"),
)

__all__ = [
    "ALGORITHMS", "CLASSIFIERS", "EMPTY", "END_CUE", "END_CUE_CONTAINS", "END_CUE_COUNTED", "END_CUE_PREFIXES",
    "HEADING", "MIGHT_BE", "SOURCE", "TITLE", "VERY_LIKELY", "ArticleParams", "ArticleRun", "DensityParams",
    "Features", "NumWordsParams", "Segment", "anchor_words", "article_reasons", "article_segments",
    "block_features", "block_labels", "classify", "count_words", "cut_after_end_cue", "density_rule",
    "drop_boilerplate", "drop_trailing_headings", "expand_title_to_content", "explain", "fuse", "inside",
    "is_end_cue", "keep_largest", "large_blocks_at_main_level", "list_at_end", "merge_features",
    "neighbours", "normalize_title", "numwords_rule", "run_article", "run_density", "run_numwords",
    "title_candidates", "wrap_counts",
]
