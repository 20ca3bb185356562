"""docs/page-type.md from the page-type model's cross-validation report: accuracy per labelled
type and the confusion matrix (domain-grouped folds, computed by ``thresher train -a page-type``
and stored in the model file's meta).

    python benchmarks/page_type.py [MODEL] [--out docs/page-type.md]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from thresher.inference.learned import shipped_model_path
from thresher.inference.pagetype import FILENAME
from thresher.inference.treemodel import load

INTRO = """# Page type

`Result.page_type`, `metadata.page_type` and the `page_type` / `pagetype` fields of the outputs hold one of
seven types, predicted by a classifier trained on wcxb-dev's labels (`_internal.page_type.primary`;
`category` is read as `collection`). What the page itself declares (JSON-LD `@type`, `og:type`) stays
in `metadata.declared_type`. `thresher extract --page-type-only PAGE` prints the type alone, and
`thresher.page_type(html, url)` returns it with the probability of each type, without extracting.

## The model

Two stages in one versioned model file (`src/thresher/models/pagetype.npz`, the project's `.npz`
format, read with `allow_pickle=False` and checked on load), both fed by one function,
`thresher.features.pagetype.page_signals`, for training and inference alike:

1. a multinomial logistic regression over the page's words, each prefixed by where it was seen
   (the URL's path, the title, the headings, id and class tokens, the declared types);
2. a multiclass gradient-boosted tree ensemble (LightGBM, walked by the native core) over page-level
   features (block counts and lengths, link density, headings, sibling repetition, hidden elements,
   element tags, id/class cue words, JSON-LD and OpenGraph types, the `generator` meta tag, URL path
   words, and text cues such as prices, "add to cart", replies and "3 days ago", counted by the core's
   `regex` crate), plus the first
   stage's log-probabilities (out-of-fold on the training pages).

Rebuild it with `thresher train /path/to/wcxb-dev -a page-type -o src/thresher/models/pagetype.npz`
(5-fold domain-grouped cross-validation by default), then regenerate this page with
`python benchmarks/page_type.py`.
"""


def markdown(report: dict) -> str:
    types = report["types"]
    lines = [INTRO, "## Cross-validation", "",
             f"{report['folds']}-fold cross-validation grouped by the domain of the page's URL: "
             f"{report['pages']} pages of {report['domains']} domains. "
             f"Accuracy **{report['accuracy']:.3f}**.", "",
             "| labelled type | pages | accuracy |", "|---|---:|---:|"]
    for t in types:
        lines.append(f"| {t} | {report['pages_by_type'][t]} | {report['accuracy_by_type'][t]:.3f} |")
    lines += ["", "Confusion matrix (rows: labelled type; columns: predicted type):", "",
              "| labelled \\ predicted | " + " | ".join(types) + " |",
              "|---|" + "---:|" * len(types)]
    for t, row in zip(types, report["confusion"]):
        lines.append(f"| {t} | " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?", help="the page-type model file (default: the shipped one)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "page-type.md")
    args = ap.parse_args(argv)
    _, meta = load(args.model or shipped_model_path(FILENAME))
    report = meta.get("cv")
    if not report:
        ap.error("the model file has no cross-validation report: train it with --cv")
    args.out.write_text(markdown(report), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
