"""docs/scale.md's recipe in small: WARC files through a real Dask distributed cluster.

The cluster is the one the docs recommend, with worker processes (daemonic: they may not
start children), so extraction must run in the worker itself.
"""
from __future__ import annotations

import gzip
import importlib.util
import io
import json
from pathlib import Path

import pytest

from thresher.batch.warc import to_dask_bag

warcio = pytest.importorskip("warcio", reason="warcio (thresher[scale]) is not installed")
distributed = pytest.importorskip("distributed", reason="distributed (thresher[scale]) is not installed")
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

from thresher.batch.cluster import PreloadModels  # noqa: E402
from thresher.document.language import _identifier  # noqa: E402
from thresher.inference.learned import _load_learned  # noqa: E402

PARAGRAPH = ("A meander grows because the water runs faster on the outside of the bend and slower on the "
             "inside, so one bank wears away while the other gains sand, and the loop widens each year.")
RECORDS = 60


def page(marker: str) -> bytes:
    body = "".join(f"<p>{marker} {PARAGRAPH}</p>" for _ in range(3))
    return f"<html><body><nav>Home About</nav><h1>{marker}</h1>{body}</body></html>".encode()


def write_warc(path, pages: dict[str, bytes]) -> None:
    with open(path, "wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for url, html in pages.items():
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(html),
                                                          http_headers=headers))
        image = StatusAndHeaders("200 OK", [("Content-Type", "image/png")], protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record("https://x.example/i.png", "response",
                                                      payload=io.BytesIO(b"\x89PNG"), http_headers=image))


# About four seconds of work for the default algorithm: far past the budgets below.
HUGE = ("<html><body><ul>" + "<li>item</li>" * 400_000 + "</ul></body></html>").encode()


def markers(count: int) -> list[str]:
    return [f"page{n:03d}" for n in range(count)]


@pytest.fixture(scope="module")
def client():
    """Two single-threaded worker processes, as the docs recommend for a 2-core machine."""
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def warc(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    pages = {f"https://x.example/{name}": page(name) for name in markers(RECORDS)}
    path = tmp_path_factory.mktemp("warc") / "crawl.warc.gz"
    write_warc(path, pages)
    return path, pages


def test_the_workers_are_daemonic_processes(client):
    """The setting that broke the old per-page limit: a daemonic process may not start children."""
    import multiprocessing

    daemonic = client.run(lambda: multiprocessing.current_process().daemon)
    assert len(daemonic) == 2 and all(daemonic.values())


def test_a_warc_through_worker_processes(client, warc):
    path, pages = warc
    results = client.compute(to_dask_bag([str(path)])).result()
    assert sorted(r["url"] for r in results) == sorted(pages)  # the image is not a page
    assert [r for r in results if not r["ok"]] == []
    for result in results:
        marker = result["url"].rsplit("/", 1)[1]
        assert marker in result["output"] and "Home About" not in result["output"]


def test_a_page_past_its_budget_is_an_error_record_and_the_worker_goes_on(client, tmp_path):
    path = tmp_path / "huge.warc.gz"
    write_warc(path, {"https://x.example/huge": HUGE, "https://x.example/after": page("after")})
    results = {r["url"]: r for r in client.compute(to_dask_bag([str(path)], timeout=0.5)).result()}
    assert results["https://x.example/huge"]["error"]["type"] == "ExtractionTimeout"
    assert results["https://x.example/after"]["ok"] and "after" in results["https://x.example/after"]["output"]


def test_pages_spread_over_both_workers(client, warc):
    path, pages = warc
    from thresher.batch import iter_warc

    results = client.compute(to_dask_bag(iter_warc(path), npartitions=4)).result()
    assert len(results) == len(pages) and all(r["ok"] for r in results)


def test_the_plugin_loads_the_models_in_every_worker(client):
    client.register_plugin(PreloadModels())
    learned = client.run(_load_learned.cache_info)
    identifier = client.run(_identifier.cache_info)
    assert len(learned) == 2 and all(info.currsize >= 1 for info in learned.values())
    assert all(info.currsize == 1 for info in identifier.values())


def load_example():
    script = Path(__file__).resolve().parents[1] / "examples" / "warc_dask.py"
    spec = importlib.util.spec_from_file_location("warc_dask", script)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def test_the_documented_example_writes_json_lines(client, warc, tmp_path):
    path, pages = warc
    assert load_example().run([str(path)], tmp_path / "out", client) == (RECORDS, 0)
    lines = [json.loads(line) for part in sorted((tmp_path / "out").glob("part-*.jsonl.gz"))
             for line in gzip.decompress(part.read_bytes()).decode().splitlines()]
    assert sorted(line["url"] for line in lines) == sorted(pages)
    assert len({line["record_id"] for line in lines}) == RECORDS
