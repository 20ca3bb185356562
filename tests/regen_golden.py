"""Regenerate the golden expected outputs (``tests/golden/<case>/expected.<algorithm>.txt``).

Run it deliberately, after a change whose effect on the golden pages you have
read and accepted; then review ``git diff tests/golden`` before committing::

    .venv/bin/python tests/regen_golden.py                    # the default set of algorithms
    .venv/bin/python tests/regen_golden.py justext cetr       # only these
    .venv/bin/python tests/regen_golden.py --case forum justext

The default set is justext and declutter, plus those of boilerpipe-article,
density, cetr, thresher, thresher-accurate and dragnet that are registered and whose model is
installed. ``--check`` writes nothing and lists the files that would change.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"
ALWAYS = ("justext", "declutter")
IF_AVAILABLE = ("boilerpipe-article", "density", "cetr", "thresher", "thresher-accurate", "dragnet")
PROBE = "<html><body><p>A tiny page to check that the algorithm's model is installed.</p></body></html>"


def cases() -> list[Path]:
    return sorted(path.parent for path in GOLDEN.glob("*/page.html"))


def expected_path(case: Path, algorithm: str) -> Path:
    return case / f"expected.{algorithm}.txt"


def extract(case: Path, algorithm: str) -> str:
    """What the golden test compares: text output of the page's bytes, with a trailing newline."""
    import thresher

    return thresher.extract((case / "page.html").read_bytes(), algorithm=algorithm) + "\n"


def available(algorithm: str) -> bool:
    import thresher
    from thresher import algorithms

    if algorithm not in algorithms.names():
        return False
    try:
        thresher.extract(PROBE, algorithm=algorithm)
    except thresher.ModelError:
        return False
    return True


def default_algorithms() -> list[str]:
    return list(ALWAYS) + [name for name in IF_AVAILABLE if available(name)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("algorithms", nargs="*", help="algorithms to regenerate (default: see above)")
    parser.add_argument("--case", action="append", dest="cases", metavar="CASE",
                        help="only this case (a directory name under tests/golden); repeatable")
    parser.add_argument("--check", action="store_true", help="write nothing; list the files that would change")
    args = parser.parse_args(argv)

    names = args.algorithms or default_algorithms()
    unknown = [name for name in names if not available(name)]
    if unknown:
        parser.error(f"not registered or model not installed: {', '.join(unknown)}")
    chosen = cases()
    if args.cases:
        chosen = [case for case in chosen if case.name in set(args.cases)]
        missing = set(args.cases) - {case.name for case in chosen}
        if missing:
            parser.error(f"no such case: {', '.join(sorted(missing))}")

    changed = 0
    for case in chosen:
        for algorithm in names:
            path = expected_path(case, algorithm)
            text = extract(case, algorithm)
            old = path.read_text(encoding="utf-8") if path.exists() else None
            if old == text:
                continue
            changed += 1
            print(f"{'would change' if args.check else 'wrote'} {path.relative_to(GOLDEN.parent.parent)}")
            if not args.check:
                path.write_text(text, encoding="utf-8", newline="")
    print(f"{changed} file(s) {'differ' if args.check else 'written'}; "
          f"{len(chosen)} case(s) x {len(names)} algorithm(s): {', '.join(names)}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
