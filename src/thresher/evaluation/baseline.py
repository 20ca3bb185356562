"""The evaluation gate's floors: a JSON baseline, and the command that rewrites it.

The baseline holds, for each dataset, the page subset the gate scores (every K-th page), a
digest of the corpus the floors were measured on, and for each algorithm the floor its
word-level F1 must reach: the measured F1 less :data:`MARGIN`, rounded down to three places.

    python -m thresher.evaluation.baseline update [--baseline tests/baseline.json]
        [--datasets ../shared/datasets] [--algorithm NAME ...] [--dataset NAME ...] [--allow-regression]
    python -m thresher.evaluation.baseline digest DATASET_DIR

``update`` measures every (dataset, algorithm) pair it is asked for, prints what changed, and
rewrites the file. A floor rises with its measure; a measure that still reaches its floor leaves
the floor alone. It refuses to lower a floor (a measure below it) unless ``--allow-regression``
is given, which also lets every floor follow its measure down.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from ..errors import ThresherError

MARGIN = 0.01  # a real regression fails the gate; run-to-run noise does not
DIGEST_PREFIX = "sha256:"
ABOUT = ("Evaluation-gate floors (tests/test_eval_gate.py): per dataset, the page subset scored (every K-th "
         "page), a digest of the corpus (file names and sizes) and each algorithm's word-level F1 floor. "
         "Rewrite with: python -m thresher.evaluation.baseline update")


class BaselineError(ThresherError):
    """A baseline file that cannot be read, or an update that would lower a floor."""


@dataclass(frozen=True)
class DatasetBaseline:
    """The gate's view of one dataset: which pages it scores, the corpus digest, the floors."""

    every: int
    digest: str
    floors: Mapping[str, float]


@dataclass(frozen=True)
class Baseline:
    datasets: Mapping[str, DatasetBaseline]

    def floor(self, dataset: str, algorithm: str) -> float:
        return self.datasets[dataset].floors[algorithm]

    def pairs(self) -> list[tuple[str, str]]:
        """Every (algorithm, dataset) pair that has a floor, sorted."""
        return sorted((algorithm, name) for name, entry in self.datasets.items() for algorithm in entry.floors)


@dataclass(frozen=True)
class Change:
    """One floor's move in an update (``old`` is None for a new floor)."""

    dataset: str
    algorithm: str
    old: float | None
    new: float
    measured: float

    @property
    def lowered(self) -> bool:
        return self.old is not None and self.new < self.old

    def describe(self) -> str:
        before = "new" if self.old is None else f"{self.old:.3f}"
        return f"{self.dataset:12} {self.algorithm:20} {before:>6} -> {self.new:.3f} (measured {self.measured:.4f})"


def corpus_digest(root: str | Path) -> str:
    """SHA-256 over the sorted relative file names and sizes under ``root``: cheap, and it changes
    when a page is added, removed, renamed or edited to another length."""
    root = Path(root)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(root).as_posix()}\t{path.stat().st_size}\n".encode())
    return DIGEST_PREFIX + digest.hexdigest()


def floor_of(measured: float, margin: float = MARGIN) -> float:
    """The floor pinned for a measured F1: ``measured - margin`` rounded down to three places."""
    return math.floor(round((measured - margin) * 1000, 6)) / 1000


def load_baseline(path: str | Path) -> Baseline:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        datasets = {
            name: DatasetBaseline(int(entry["every"]), str(entry["digest"]),
                                  MappingProxyType({str(k): float(v) for k, v in entry["floors"].items()}))
            for name, entry in data["datasets"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BaselineError(f"{path}: not a readable baseline ({exc})") from exc
    return Baseline(MappingProxyType(datasets))


def dumps(baseline: Baseline) -> str:
    data = {"about": ABOUT, "margin": MARGIN, "datasets": {
        name: {"every": entry.every, "digest": entry.digest, "floors": dict(sorted(entry.floors.items()))}
        for name, entry in sorted(baseline.datasets.items())}}
    return json.dumps(data, indent=2) + "\n"


def save_baseline(baseline: Baseline, path: str | Path) -> None:
    Path(path).write_text(dumps(baseline), encoding="utf-8")


Measure = Callable[[str, str], float]  # (dataset, algorithm) -> word-level F1 on the gate's subset


def updated(baseline: Baseline, pairs: Iterable[tuple[str, str]], measure: Measure,
            digests: Mapping[str, str], *, allow_regression: bool = False) -> tuple[Baseline, list[Change]]:
    """The baseline with the floors of ``pairs`` (dataset, algorithm) re-measured.

    A floor rises to the new measure less the margin. A measure that still reaches its floor
    leaves it as it is; one below it would lower the floor. ``digests`` gives the corpus digest
    of each dataset measured. Raises :class:`BaselineError`, naming every floor that would go
    down, unless ``allow_regression``.
    """
    changes: list[Change] = []
    floors = {name: dict(entry.floors) for name, entry in baseline.datasets.items()}
    for dataset, algorithm in pairs:
        if dataset not in baseline.datasets:
            raise BaselineError(f"dataset {dataset!r} is not in the baseline")
        measured = measure(dataset, algorithm)
        old = floors[dataset].get(algorithm)
        new = floor_of(measured)
        if old is not None and new < old <= measured and not allow_regression:
            new = old  # the gate still passes: noise within the margin lowers nothing
        floors[dataset][algorithm] = new
        if new != old:
            changes.append(Change(dataset, algorithm, old, new, measured))
    lowered = [change for change in changes if change.lowered]
    if lowered and not allow_regression:
        raise BaselineError("refusing to lower a floor without --allow-regression:\n"
                            + "\n".join(change.describe() for change in lowered))
    datasets = {name: replace(entry, digest=digests.get(name, entry.digest),
                              floors=MappingProxyType(floors[name]))
                for name, entry in baseline.datasets.items()}
    return Baseline(MappingProxyType(datasets)), changes


def gate_measure(datasets_dir: Path, baseline: Baseline) -> Measure:
    """The gate's own measurement: F1 of an algorithm on the dataset's every-K-th pages."""
    from .datasets import detect_kind, load, select
    from .runner import ThresherExtractor, evaluate_pages

    def measure(dataset: str, algorithm: str) -> float:
        root = datasets_dir / dataset
        pages = select(load(root), baseline.datasets[dataset].every)
        result = evaluate_pages(pages, detect_kind(root), ThresherExtractor(algorithm), name=dataset)
        failed = [page.id for page in result.pages if page.error is not None]
        if failed:
            raise BaselineError(f"{algorithm} raised on {len(failed)} {dataset} pages, e.g. {failed[:5]}")
        return result.summary.f1

    return measure


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m thresher.evaluation.baseline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("update", help="re-measure floors and rewrite the baseline")
    up.add_argument("--baseline", default="tests/baseline.json", help="the baseline file (default: %(default)s)")
    up.add_argument("--datasets", default="../shared/datasets",
                    help="the folder holding the datasets (default: %(default)s)")
    up.add_argument("--algorithm", action="append", metavar="NAME", help="only this algorithm (repeatable)")
    up.add_argument("--dataset", action="append", metavar="NAME", help="only this dataset (repeatable)")
    up.add_argument("--allow-regression", action="store_true", help="let a floor go down")
    dg = sub.add_parser("digest", help="print a dataset folder's corpus digest")
    dg.add_argument("dataset_dir")
    return parser


def main(argv: Sequence[str] | None = None, measure: Measure | None = None) -> int:
    """The command line; ``measure`` replaces the gate's measurement (for tests)."""
    args = _parser().parse_args(argv)
    if args.command == "digest":
        print(corpus_digest(args.dataset_dir))
        return 0
    baseline = load_baseline(args.baseline)
    datasets_dir = Path(args.datasets)
    pairs = [(dataset, algorithm) for algorithm, dataset in baseline.pairs()
             if (not args.algorithm or algorithm in args.algorithm) and (not args.dataset or dataset in args.dataset)]
    pairs += [(dataset, algorithm) for dataset in (args.dataset or ()) for algorithm in (args.algorithm or ())
              if (dataset, algorithm) not in pairs]  # a new pair named explicitly
    names = sorted({dataset for dataset, _ in pairs})
    if measure is None:
        missing = [name for name in names if not (datasets_dir / name).is_dir()]
        if missing:
            print(f"error: datasets not found in {datasets_dir}: {', '.join(missing)}", file=sys.stderr)
            return 2
        measure = gate_measure(datasets_dir, baseline)
        digests = {name: corpus_digest(datasets_dir / name) for name in names}
    else:
        digests = {}
    try:
        new, changes = updated(baseline, pairs, measure, digests, allow_regression=args.allow_regression)
    except BaselineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for change in changes:
        print(change.describe())
    for name in names:
        if new.datasets[name].digest != baseline.datasets[name].digest:
            print(f"{name:12} corpus digest {baseline.datasets[name].digest} -> {new.datasets[name].digest}")
    if not changes:
        print("no floor changed")
    save_baseline(new, args.baseline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
