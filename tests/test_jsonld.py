"""thresher.document.jsonld: JSON-LD scripts are parsed within a size and nesting cap, without recursion."""
from __future__ import annotations

import json

import pytest

from thresher.document.jsonld import (
    MAX_CHARS,
    MAX_DEPTH,
    is_within_limits,
    json_ld_objects,
    nesting_depth,
    parse_script,
)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("text,depth", [
    ("1", 0), ("[]", 1), ("{}", 1), ('{"a": [1, {"b": []}]}', 4), ('["[[[", "{{"]', 1),
    ('{"a": "\\"[[[", "b": "\\\\"}', 1), ('"unterminated [[[[', 0), ("]]]] [[", 0), (nested(500), 500),
])
def test_nesting_depth_ignores_brackets_inside_strings(text, depth):
    assert nesting_depth(text) == depth


def test_nesting_depth_is_fast_on_a_string_of_escaped_quotes_that_never_ends():
    # Retrying the string pattern from every quote would take quadratic time here.
    assert nesting_depth('"' + '\\"[' * 400_000) == 0


def test_a_script_nested_100000_deep_is_skipped_without_recursion_error():
    assert parse_script(nested(100_000)) is None
    assert json_ld_objects([nested(100_000), '{"@type": "Article", "headline": "kept"}']) == [
        {"@type": "Article", "headline": "kept"}]


def test_the_depth_cap_is_exact():
    deepest = '{"a": ' * (MAX_DEPTH - 1) + "[]" + "}" * (MAX_DEPTH - 1)
    assert nesting_depth(deepest) == MAX_DEPTH and parse_script(deepest) == json.loads(deepest)
    assert parse_script("[" + deepest + "]") is None


def test_a_huge_script_is_skipped_before_parsing():
    huge = '{"@type": "Article", "text": "' + "x" * MAX_CHARS + '"}'
    assert not is_within_limits(huge) and parse_script(huge) is None


@pytest.mark.parametrize("raw", ["{", "[1,]", "not json", "", '{"a": "unterminated'])
def test_malformed_scripts_are_skipped(raw):
    assert parse_script(raw) is None
    assert json_ld_objects([raw]) == []


def test_graphs_and_top_level_arrays_are_flattened_in_order():
    scripts = ['[{"@id": "a"}, {"@graph": [{"@id": "b"}, {"@id": "c"}]}]', '{"@id": "d"}']
    assert [obj.get("@id") for obj in json_ld_objects(scripts)] == ["a", None, "b", "c", "d"]
