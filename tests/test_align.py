"""Block labels by alignment with the gold main text (thresher.training.align)."""
from __future__ import annotations

import pytest

from thresher.document.blocks import build_document
from thresher.training.align import AlignParams, align_document, align_texts, ngrams, tokens

PARA1 = ("We walked through the winter garden early on Sunday and the frost covered every branch "
         "of the old apple trees near the wall.")
PARA2 = "Later the gardener showed us the greenhouse where orchids bloom all year under careful light."


def test_tokens_and_ngrams():
    assert tokens("Hello, World! It's 2024.") == ["hello", "world", "it", "s", "2024"]
    assert ngrams(["a", "b", "c", "d"], 3) == [("a", "b", "c"), ("b", "c", "d")]
    assert ngrams(["a", "b"], 3) == [("a", "b")]  # shorter than n: the whole block
    assert ngrams([], 3) == []


def test_gold_blocks_are_content_and_others_are_not():
    blocks = ["Home", "About us", PARA1, "Subscribe to our newsletter for weekly deals", PARA2,
              "Copyright 2024 Example Ltd. All rights reserved."]
    result = align_texts(blocks, PARA1 + "\n\n" + PARA2)
    assert result.labels == (False, False, True, False, True, False)
    assert result.coverage[2] == 1.0 and result.coverage[4] == 1.0
    assert len(result.coverage) == len(blocks)


def test_alignment_ignores_case_punctuation_and_whitespace():
    gold = "The Quick, brown fox -- jumps over the lazy dog!"
    result = align_texts(["the quick brown FOX jumps over the lazy dog"], gold)
    assert result.labels == (True,) and result.coverage == (1.0,)


def test_repeated_phrase_cannot_claim_more_occurrences_than_the_gold_has():
    gold = PARA1 + " Sign up for the garden club newsletter."
    blocks = [PARA1, "Sign up for the garden club newsletter", "Sign up for the garden club newsletter",
              "Sign up for the garden club newsletter"]
    result = align_texts(blocks, gold)
    assert result.labels == (True, True, False, False)
    assert result.coverage[2:] == (0.0, 0.0)


def test_a_phrase_twice_in_the_gold_can_be_claimed_twice():
    phrase = "read the full story on our website"
    result = align_texts([phrase, phrase, phrase], f"{phrase}. Something else. {phrase}.")
    assert result.labels == (True, True, False)


def test_long_blocks_take_precedence_over_earlier_short_ones():
    # the short navigation link comes first in reading order but the paragraph owns the occurrence
    nav = "The winter garden"
    result = align_texts([nav, PARA1], PARA1)
    assert result.labels == (False, True)
    assert result.coverage == (0.0, 1.0)
    # without the paragraph among the blocks the link does match
    assert align_texts([nav], PARA1).labels == (True,)


def test_very_short_blocks_cannot_reuse_an_occurrence_a_long_block_consumed():
    result = align_texts(["Winter garden", "Garden", PARA1], PARA1)
    assert result.labels == (False, False, True)


def test_partial_overlap_uses_the_threshold():
    half = "We walked through the winter garden early on Sunday banana kiwi mango papaya melon lime"
    coverage = align_texts([half], PARA1).coverage[0]
    assert 0.0 < coverage < 1.0
    assert align_texts([half], PARA1, AlignParams(threshold=coverage)).labels == (True,)
    assert align_texts([half], PARA1, AlignParams(threshold=coverage + 1e-9)).labels == (False,)


@pytest.mark.parametrize("gold", ["", PARA1, PARA1 + " " + PARA2, "garden " * 50])
def test_coverage_is_between_zero_and_one(gold):
    blocks = ["", "garden", "Garden garden garden garden", PARA1, PARA2, PARA1, "unrelated words entirely"]
    result = align_texts(blocks, gold)
    assert len(result.labels) == len(result.coverage) == len(blocks)
    assert all(0.0 <= c <= 1.0 for c in result.coverage)
    assert result.labels == tuple(c >= AlignParams().threshold for c in result.coverage)
    assert result.coverage[0] == 0.0 and not result.labels[0]  # a block without tokens


def test_empty_gold_labels_nothing():
    result = align_texts(["Some block", PARA1], "")
    assert result.labels == (False, False)


def test_align_document_aligns_the_blocks_of_a_page():
    doc = build_document(f"<nav><a href='/'>Home</a><a href='/g'>Garden tours</a></nav>"
                         f"<article><p>{PARA1}</p><p>{PARA2}</p></article><footer>Contact us today</footer>")
    result = align_document(doc, PARA1 + "\n" + PARA2)
    kept = [b.text for b, keep in zip(doc.blocks, result.labels) if keep]
    assert kept == [PARA1, PARA2]


def test_a_block_of_long_block_tokens_aligns_in_the_first_pass():
    sentence = "one two three four five six seven eight nine ten eleven twelve"
    assert len(tokens(sentence)) == AlignParams().long_block
    result = align_texts(["one two three four five six seven eight", sentence], sentence)
    assert result.labels == (False, True)


def test_a_short_block_still_matches_a_second_occurrence_the_paragraph_did_not_use():
    result = align_texts(["Winter garden", PARA1], "Winter garden. " + PARA1)
    assert result.labels == (True, True)


def test_only_the_matched_part_of_a_partly_matching_block_is_used_up():
    # the paragraph's first half is gold, its second half is not: "lime" stays available
    block = "We walked through the winter garden early on Sunday banana kiwi mango papaya melon"
    result = align_texts([block, "Lime"], "We walked through the winter garden early on Sunday lime")
    assert result.labels == (True, True)
