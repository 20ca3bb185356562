"""Cold start: what a fresh process pays before and during its first extraction.

Each figure is the best of ``--runs`` fresh Python processes (best, because a shared machine
only ever adds time):

* ``import``: ``import thresher``, timed inside the process;
* ``first English extract``: the first ``thresher.extract`` of ``examples/article.html``
  after the import (the flagship, text output);
* ``first non-English extract``: the first ``thresher.extract`` of a German page after the
  import (language identification runs: the page is not plainly English);
* ``CLI``: ``thresher extract examples/article.html`` as a whole process, timed from outside
  (interpreter start-up included).

CPU seconds (user + system) are printed beside the wall-clock ones: on a busy machine they
move less. thresher's modules are byte-compiled first (``compileall``), as an installed wheel's
are: otherwise the figures would depend on whether an earlier process left ``__pycache__``
behind, and under ``PYTHONDONTWRITEBYTECODE`` every process would compile every module from
source (tens of milliseconds no installed package pays). Language identification reads
thresher's uncompressed copy of py3langid's model from the cache directory
(:mod:`thresher.document.identifier`); the first process on a machine makes it, which
``--cold-cache`` measures once, in an empty cache directory::

    python benchmarks/startup.py [--runs 5] [--cold-cache]
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = ROOT / "examples" / "article.html"
# A page of our own in German: long enough that its language is identified, not guessed.
GERMAN_PAGE = """<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Warum Flüsse mäandern</title></head>
<body><nav><a href="/">Startseite</a> <a href="/wissen">Wissen</a></nav><article><h1>Warum Flüsse mäandern</h1>
<p>Ein Fluss, der durch eine flache Ebene fließt, bleibt selten gerade. Schon eine kleine Biegung lenkt das
Wasser gegen das äußere Ufer, wo es schneller strömt und mehr Erde abträgt, während sich am inneren Ufer
Sand und Kies ablagern.</p>
<p>So wächst die Biegung von Jahr zu Jahr, bis der Fluss eine Schlinge bildet. Bei Hochwasser kann er den
schmalen Hals der Schlinge durchbrechen; zurück bleibt ein Altarm, der langsam verlandet und zu einem
Feuchtgebiet wird, in dem Vögel und Amphibien Zuflucht finden.</p>
<p>Forscher messen diese Bewegungen heute mit Satellitenbildern und stellen fest, dass sich manche Flüsse
um mehrere Meter im Jahr verlagern. Für die Gemeinden am Ufer ist das keine bloße Kuriosität, sondern eine
Frage der Planung von Straßen, Brücken und Feldern.</p></article>
<footer>Alle Rechte vorbehalten. Impressum und Datenschutz.</footer></body></html>"""

BARS = {"import": 0.1, "first English extract": 0.05, "first non-English extract": 0.3, "CLI": 0.3}

# Run in the fresh process: the import, then one extraction; prints wall and CPU seconds as JSON.
CHILD = """
import json, sys, time
wall, cpu = time.perf_counter, time.process_time
w0, c0 = wall(), cpu()
import thresher
w1, c1 = wall(), cpu()
page = sys.stdin.buffer.read()
w2, c2 = wall(), cpu()
thresher.extract(page)
w3, c3 = wall(), cpu()
print(json.dumps({"import": [w1 - w0, c1 - c0], "extract": [w3 - w2, c3 - c2]}))
"""


def in_process(page: bytes, env: dict[str, str]) -> dict[str, list[float]]:
    """One fresh process's import and first-extraction times."""
    out = subprocess.run([sys.executable, "-c", CHILD], input=page, capture_output=True, env=env, check=True)
    timed: dict[str, list[float]] = json.loads(out.stdout)
    return timed


def whole_process(command: list[str], env: dict[str, str]) -> list[float]:
    """Wall and CPU seconds of one run of ``command``, start-up included."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, env=env, check=True)
    wall = time.perf_counter() - start
    after = os.times()
    return [wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)]


def cli_command() -> list[str]:
    script = Path(sys.executable).with_name("thresher")
    return [str(script) if script.exists() else sys.executable,
            *([] if script.exists() else ["-m", "thresher"]), "extract", str(ARTICLE)]


def measure(runs: int, env: dict[str, str]) -> dict[str, list[float]]:
    """Best wall and best CPU seconds of each figure over ``runs`` fresh processes."""
    english, german = ARTICLE.read_bytes(), GERMAN_PAGE.encode()
    samples: dict[str, list[list[float]]] = {name: [] for name in BARS}
    for _ in range(runs):
        first = in_process(english, env)
        samples["import"].append(first["import"])
        samples["first English extract"].append(first["extract"])
        samples["first non-English extract"].append(in_process(german, env)["extract"])
        samples["CLI"].append(whole_process(cli_command(), env))
    return {name: [min(s[0] for s in got), min(s[1] for s in got)] for name, got in samples.items()}


def report(title: str, best: dict[str, list[float]], runs: int) -> None:
    print(f"{title} (best of {runs} fresh processes)")
    print(f"  {'figure':28} {'wall s':>8} {'CPU s':>8} {'bar s':>7}  met")
    for name, (wall, cpu) in best.items():
        print(f"  {name:28} {wall:8.3f} {cpu:8.3f} {BARS[name]:7.2f}  {'yes' if wall < BARS[name] else 'no'}")


def byte_compile() -> None:
    """Write the bytecode of thresher's modules where Python looks for it (``__pycache__``
    beside each), as pip does when it installs a wheel."""
    spec = importlib.util.find_spec("thresher")
    for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
        compileall.compile_dir(folder, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per figure (default: 5)")
    parser.add_argument("--cold-cache", action="store_true",
                        help="also time one first non-English extract in an empty cache directory")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    byte_compile()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; thresher's modules byte-compiled, as installed")
    if args.cold_cache:
        empty = tempfile.mkdtemp(prefix="thresher-startup-")
        try:
            wall, cpu = in_process(GERMAN_PAGE.encode(), {**env, "THRESHER_CACHE_DIR": empty})["extract"]
        finally:
            shutil.rmtree(empty, ignore_errors=True)
        print(f"first non-English extract with an empty cache directory: {wall:.3f} s wall, {cpu:.3f} s CPU")
    in_process(GERMAN_PAGE.encode(), env)  # the cache the measured runs read, made if missing
    report("cold start", measure(args.runs, env), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
