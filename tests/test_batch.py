"""thresher.batch.pool.extract_many: order, error records, process pools, dying workers."""
from __future__ import annotations

import gzip
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple

import pytest

import thresher
from thresher.batch.fetch import DEFAULT_MAX_BYTES
from thresher.batch.pool import BatchRecord, extract_many

ALG = "justext"
PARAGRAPH = ("It was the best of times and it was the worst of times, it was the age of wisdom and it was "
             "the age of foolishness, and we had everything before us and we had nothing before us, and we "
             "were all going to be there with them in the end, as it is written in this article.")


def page(marker: str) -> bytes:
    body = f"<h1>Heading {marker}</h1>" + "".join(f"<p>{marker} {PARAGRAPH}</p>" for _ in range(3))
    return f"<html><body><div>Menu Home</div>{body}<div>Footer</div></body></html>".encode()


def tag_extractor(html, url, **kwargs):
    """Picklable stand-in for thresher.extract: dies on CRASH, raises on FAIL, hangs on SLOW."""
    if html == b"SLOW":
        time.sleep(30)
    if html == b"CRASH":
        os._exit(3)
    if html == b"FAIL":
        raise ValueError("failing on purpose")
    if html == b"LOCK":
        return threading.Lock()  # not a string, and cannot be pickled back from a worker
    return f"{url}|{html.decode()}|{kwargs.get('tag', '')}"


class Rec(NamedTuple):
    id: str
    html: bytes
    url: str | None
    gold: dict


def test_records_in_order_with_error_records():
    records = list(extract_many([("a", page("alpha")), ("b", b""), ("c", page("gamma"), "https://x.example/c")],
                                algorithm=ALG))
    assert [r.id for r in records] == ["a", "b", "c"]
    assert [r.ok for r in records] == [True, False, True]
    assert "alpha" in records[0].output and "gamma" in records[2].output
    failed = records[1]
    assert failed.output is None and failed.error.type == "InputError"
    assert "empty" in failed.error.message and str(failed.error).startswith("InputError: ")


def test_paths_gzip_and_missing_files(tmp_path):
    plain, packed, missing = tmp_path / "p.html", tmp_path / "g.html.gz", tmp_path / "none.html"
    plain.write_bytes(page("plain"))
    packed.write_bytes(gzip.compress(page("packed")))
    records = list(extract_many([plain, str(packed), missing], algorithm=ALG))
    assert [r.id for r in records] == [str(plain), str(packed), str(missing)]
    assert "plain" in records[0].output and "packed" in records[1].output
    assert records[2].error.type == "FileNotFoundError"


def test_objects_with_id_and_html_and_extract_options():
    recs = [Rec("one", page("uno"), "https://x.example/1", {})]
    (record,) = extract_many(recs, algorithm=ALG, output="text")
    assert isinstance(record, BatchRecord) and record.ok and "uno" in record.output
    (record,) = extract_many(recs, algorithm="no-such-algorithm")
    assert not record.ok and "no-such-algorithm" in record.error.message


def test_custom_extractor_gets_url_and_options():
    (record,) = extract_many([("i", b"x", "u")], extractor=tag_extractor, tag="T")
    assert record.output == "u|x|T"


def test_pool_preserves_order_and_matches_serial():
    items = [(f"p{i}", page(f"marker{i}") if i % 3 else b"") for i in range(7)]
    serial = list(extract_many(items, algorithm=ALG))
    parallel = list(extract_many(items, jobs=2, chunksize=2, algorithm=ALG))
    assert parallel == serial
    assert [r.ok for r in serial] == [i % 3 != 0 for i in range(7)]


def test_dead_worker_costs_one_error_record():
    items = [("a", b"one"), ("b", b"FAIL"), ("c", b"CRASH"), ("d", b"four"), ("e", b"five")]
    records = list(extract_many(items, jobs=2, chunksize=2, extractor=tag_extractor))
    assert [r.id for r in records] == ["a", "b", "c", "d", "e"]
    assert [r.ok for r in records] == [True, False, False, True, True]
    assert records[1].error.type == "ValueError"
    assert records[2].error.type == "WorkerCrashed"
    assert records[4].output == "None|five|"


def blas_threads(html, url, **kwargs) -> str:
    """Run in a worker: the most threads any loaded BLAS or OpenMP library there will use."""
    import numpy  # noqa: F401  (loads numpy's BLAS, as every extraction does)
    from threadpoolctl import threadpool_info

    return str(max((lib["num_threads"] for lib in threadpool_info()), default=1))


def test_workers_run_numpy_s_blas_on_one_thread():
    """A worker per core plus BLAS threads per worker would oversubscribe the cores."""
    records = extract_many([("a", b"x"), ("b", b"y")], jobs=2, extractor=blas_threads)
    assert [r.output for r in records] == ["1", "1"]


def test_generators_are_consumed_lazily_in_order():
    items = ((str(i), b"x%d" % i) for i in range(20))
    records = list(extract_many(items, jobs=2, extractor=tag_extractor))
    assert [r.output for r in records] == [f"None|x{i}|" for i in range(20)]


def test_bad_arguments():
    with pytest.raises(ValueError):
        list(extract_many([], jobs=0))
    with pytest.raises(TypeError):
        list(extract_many([42]))


def test_read_page_from_path_object(tmp_path):
    target = Path(tmp_path / "x.htm")
    target.write_bytes(page("htm"))
    (record,) = extract_many([target], algorithm=ALG)
    assert record.ok and "htm" in record.output


# ------------------------------------------------------- time limit per page

@pytest.mark.parametrize("jobs", [1, 2])
def test_a_page_past_its_time_limit_gets_a_timeout_record_and_the_batch_goes_on(jobs):
    items = [("a", b"one"), ("b", b"SLOW"), ("c", b"three"), ("d", b"FAIL"), ("e", b"five")]
    records = list(extract_many(items, jobs=jobs, extractor=tag_extractor, page_timeout=1.5))
    assert [r.id for r in records] == ["a", "b", "c", "d", "e"]
    assert [r.ok for r in records] == [True, False, True, False, True]
    assert records[1].error.type == "PageTimeout" and "1.5 s" in records[1].error.message
    assert records[3].error.type == "ValueError"
    assert records[4].output == "None|five|"


def test_an_output_that_cannot_come_back_from_a_worker_is_an_error_record():
    records = list(extract_many([("a", b"LOCK"), ("b", b"two")], jobs=1, extractor=tag_extractor))
    assert [r.ok for r in records] == [False, True] and records[0].error.type == "TypeError"


def test_one_job_survives_a_crashing_page():
    items = [("a", b"one"), ("b", b"CRASH"), ("c", b"three")]
    records = list(extract_many(items, jobs=1, extractor=tag_extractor, page_timeout=30))
    assert [r.ok for r in records] == [True, False, True] and records[1].error.type == "WorkerCrashed"


def test_without_a_time_limit_one_job_runs_in_this_process():
    pids = []
    records = list(extract_many([("a", b"x")], page_timeout=None,
                                extractor=lambda html, url, **kw: pids.append(os.getpid()) or "ok"))
    assert [r.output for r in records] == ["ok"] and pids == [os.getpid()]


def test_bad_time_limits():
    for limit in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            list(extract_many([], page_timeout=limit))


# ------------------------------------------------- workers die with the batch

def marking_sleeper(html, url, **kwargs):
    """Touch the file the page names, then take far longer than any test."""
    Path(html.decode()).touch()
    time.sleep(120)
    return ""


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def is_running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


SCRIPT = """
import sys
from thresher.batch.pool import extract_many
from test_batch import marking_sleeper
for record in extract_many([(m, m.encode()) for m in sys.argv[1:]], jobs=2, extractor=marking_sleeper):
    print(record)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_killing_the_batch_process_leaves_no_process_behind(tmp_path):
    markers = [tmp_path / "one", tmp_path / "two"]
    thresher_src = Path(thresher.__file__).resolve().parents[1]  # the thresher under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(thresher_src), str(Path(__file__).parent)])}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, *map(str, markers)], env=env)
    try:
        deadline = time.monotonic() + 30
        while not all(m.exists() for m in markers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(m.exists() for m in markers), "the workers never started their pages"
        left = descendants(proc.pid)
        assert len(left) >= 2  # the two busy workers (and whatever helpers multiprocessing started)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 5
    while any(map(is_running, left)) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [pid for pid in left if is_running(pid)]
    for pid in alive:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert alive == []


# ------------------------------------------------------------ size cap

def test_a_gzip_bomb_stops_at_the_size_cap(tmp_path):
    bomb = tmp_path / "bomb.html.gz"
    bomb.write_bytes(gzip.compress(b" " * (DEFAULT_MAX_BYTES + 1), compresslevel=9))
    assert bomb.stat().st_size < 100_000
    (record,) = extract_many([bomb], algorithm=ALG, page_timeout=None)
    assert record.error.type == "PageTooLarge"
    assert record.error.message == f"{bomb}: gunzips to more than {DEFAULT_MAX_BYTES:,} bytes (the size cap)"


def test_the_size_cap_is_a_parameter_and_holds_for_plain_files(tmp_path):
    plain, packed = tmp_path / "p.html", tmp_path / "g.html.gz"
    plain.write_bytes(page("plain"))
    packed.write_bytes(gzip.compress(page("plain")))
    size = len(page("plain"))
    small = list(extract_many([plain, packed], algorithm=ALG, max_bytes=size - 1, page_timeout=None))
    assert [r.error.type for r in small] == ["PageTooLarge", "PageTooLarge"]
    assert "is more than" in small[0].error.message and "gunzips to more than" in small[1].error.message
    exact = list(extract_many([plain, packed], algorithm=ALG, max_bytes=size, page_timeout=None))
    assert [r.ok for r in exact] == [True, True]


def test_a_worker_that_cannot_start_stops_the_batch_with_an_error(tmp_path):
    # An extractor defined in a script's __main__ cannot be found by a spawned worker.
    script = "from thresher.batch.pool import extract_many\n" \
             "def local(html, url, **kw):\n    return 'x'\n" \
             "try:\n    list(extract_many([('a', b'x')], extractor=local))\n" \
             "except Exception as exc:\n    print(type(exc).__name__)\n"
    thresher_src = Path(thresher.__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(thresher_src)})
    assert proc.stdout.strip() == "WorkerStartError", proc.stderr


# ----------------------------------------------------------- the time budget

def many_items(n: int) -> bytes:
    return b"<html><body><ul>" + b"<li>item" * n + b"</ul></body></html>"


def test_one_job_with_a_budget_runs_in_this_process_and_stops_a_huge_page():
    before = multiprocessing.active_children()
    records = list(extract_many([("small", page("small")), ("huge", many_items(2_000_000)), ("after", page("after"))],
                                algorithm=ALG, page_timeout=0.5))
    assert [r.ok for r in records] == [True, False, True]
    assert records[1].error.type == "ExtractionTimeout" and "0.5 s" in records[1].error.message
    assert multiprocessing.active_children() == before


def test_a_worker_s_start_up_does_not_count_against_its_first_page():
    """The worker loads the models before it says it is ready: a one-line page under a small
    budget is its own time only."""
    (record,) = extract_many([("one", b"<html><body><p>One line.</p></body></html>")],
                             isolate=True, page_timeout=0.5)
    assert record.ok, record.error


@pytest.mark.slow
def test_pages_under_a_budget_in_workers_get_extraction_timeout_records():
    items = [("small", page("small")), ("huge", many_items(2_000_000))]
    records = list(extract_many(items, jobs=2, algorithm=ALG, page_timeout=0.5))
    assert records[0].ok and records[1].error.type == "ExtractionTimeout"


def test_the_kill_is_a_backstop_after_the_budget():
    assert thresher.batch.pool.backstop(0.5) == 2.5
    assert thresher.batch.pool.backstop(60) == 120
