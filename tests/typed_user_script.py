"""A user's script that calls thresher.extract with each option: tests/test_api.py runs
``mypy --strict`` on it (it is not a test module; pytest does not collect it)."""
from __future__ import annotations

from pathlib import Path

import thresher
from thresher.algorithms import flagship
from thresher.options import Options, OutputFormat, SeenTexts

PAGE = b"<html><body><article><p>The river rose slowly through the night.</p></article></body></html>"


def every_option(model: Path, formats: list[OutputFormat]) -> list[str]:
    seen = SeenTexts(maxsize=1000)
    texts: list[str] = [
        thresher.extract(PAGE),
        thresher.extract(PAGE, "https://example.org/a"),
        thresher.extract(PAGE.decode(), url="https://example.org/a"),
        thresher.extract(PAGE, options=Options(output="markdown")),
        thresher.extract(PAGE, algorithm="justext"),
        thresher.extract(PAGE, output="markdown"),
        thresher.extract(PAGE, output_format="txt"),
        thresher.extract(PAGE, language="en"),
        thresher.extract(PAGE, params=flagship.Params(threshold=0.5)),
        thresher.extract(PAGE, model=model),
        thresher.extract(PAGE, model=str(model)),
        thresher.extract(PAGE, content_type="text/html; charset=utf-8"),
        thresher.extract(PAGE, include_comments=True),
        thresher.extract(PAGE, include_tables=False),
        thresher.extract(PAGE, include_images=True),
        thresher.extract(PAGE, include_links=True),
        thresher.extract(PAGE, links=True),
        thresher.extract(PAGE, include_formatting=None),
        thresher.extract(PAGE, favor_precision=True),
        thresher.extract(PAGE, favor_recall=True),
        thresher.extract(PAGE, with_metadata=True),
        thresher.extract(PAGE, only_with_metadata=True),
        thresher.extract(PAGE, target_language="en"),
        thresher.extract(PAGE, deduplicate=True),
        thresher.extract(PAGE, deduplicate=seen),
        thresher.extract(PAGE, prune="nav"),
        thresher.extract(PAGE, prune=["nav", ".ad"]),
        thresher.extract(PAGE, output="json", blocks=True, indent=2),
    ]
    texts += [thresher.extract(PAGE, output=fmt) for fmt in formats]
    result: thresher.Result = thresher.extract_result(PAGE, metadata=False, explain=False, attributes=False,
                                                      output_format="markdown", include_links=True)
    texts.append(result.render("markdown"))
    return texts
