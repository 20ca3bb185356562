"""thresher.batch.extract_many: order, error records, process pools, dying workers."""
from __future__ import annotations

import gzip
import os
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import NamedTuple

import pytest

from thresher.batch import BatchRecord, _Pool, chunk_size, extract_many

ALG = "justext"
PARAGRAPH = ("It was the best of times and it was the worst of times, it was the age of wisdom and it was "
             "the age of foolishness, and we had everything before us and we had nothing before us, and we "
             "were all going to be there with them in the end, as it is written in this article.")


def page(marker: str) -> bytes:
    body = f"<h1>Heading {marker}</h1>" + "".join(f"<p>{marker} {PARAGRAPH}</p>" for _ in range(3))
    return f"<html><body><div>Menu Home</div>{body}<div>Footer</div></body></html>".encode()


def tag_extractor(html, url, **kwargs):
    """Picklable stand-in for thresher.extract: dies on CRASH, raises on FAIL."""
    if html == b"CRASH":
        os._exit(3)
    if html == b"FAIL":
        raise ValueError("failing on purpose")
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


def stuck_chunk(chunk):
    """Picklable work that marks its start (the chunk names a file) and then never finishes in time."""
    Path(chunk[0]).touch()
    time.sleep(300)
    return []


def test_restarting_a_pool_kills_a_worker_that_would_never_finish(tmp_path):
    # A broken pool can hold such a worker: CPython 3.11 may start one while it terminates the
    # others after a crash, and then wait for it. restart() must not wait with it.
    pool = _Pool(1, stuck_chunk)
    started = tmp_path / "started"
    future = pool.submit([str(started)])
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists(), "the worker never started its task"
    restarted = threading.Event()
    threading.Thread(target=lambda: (pool.restart(), restarted.set()), daemon=True).start()
    assert restarted.wait(60), "restart() waited for a worker that does not finish"
    with pytest.raises(BrokenProcessPool):
        future.result(timeout=10)
    pool.close()


def blas_threads(_chunk) -> int:
    """Run in a worker: the most threads any loaded BLAS or OpenMP library there will use."""
    import numpy  # noqa: F401  (loads numpy's BLAS, as every extraction does)
    from threadpoolctl import threadpool_info

    return max((lib["num_threads"] for lib in threadpool_info()), default=1)


def test_workers_run_numpy_s_blas_on_one_thread():
    """A worker per core plus BLAS threads per worker would oversubscribe the cores."""
    pool = _Pool(2, blas_threads)
    try:
        assert [pool.submit([]).result(timeout=120) for _ in range(2)] == [1, 1]
    finally:
        pool.close()


def test_generators_are_consumed_lazily_in_order():
    items = ((str(i), b"x%d" % i) for i in range(20))
    records = list(extract_many(items, jobs=2, extractor=tag_extractor))
    assert [r.output for r in records] == [f"None|x{i}|" for i in range(20)]


def test_bad_arguments():
    with pytest.raises(ValueError):
        list(extract_many([], jobs=0))
    with pytest.raises(TypeError):
        list(extract_many([42]))


def test_chunk_size():
    assert chunk_size(None, 4) == 8
    assert chunk_size(10, 4) == 1
    assert chunk_size(1000, 2) == 32
    assert chunk_size(100, 2) == 13


def test_read_page_from_path_object(tmp_path):
    target = Path(tmp_path / "x.htm")
    target.write_bytes(page("htm"))
    (record,) = extract_many([target], algorithm=ALG)
    assert record.ok and "htm" in record.output
