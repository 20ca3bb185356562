"""docs/scale.md's recipe in small: a WARC file through a Dask distributed cluster."""
from __future__ import annotations

import io

import pytest

from thresher.batch.warc import to_dask_bag

warcio = pytest.importorskip("warcio", reason="warcio (thresher[scale]) is not installed")
distributed = pytest.importorskip("distributed", reason="distributed (thresher[scale]) is not installed")
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

PARAGRAPH = ("A meander grows because the water runs faster on the outside of the bend and slower on the "
             "inside, so one bank wears away while the other gains sand, and the loop widens each year.")


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


def test_warc_through_a_local_cluster(tmp_path):
    pages = {f"https://x.example/{name}": page(name) for name in ("alpha", "beta", "gamma")}
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, pages)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        results = client.compute(to_dask_bag([str(path)])).result()
    assert sorted(r["url"] for r in results) == sorted(pages)  # the image is not a page
    assert all(r["ok"] for r in results)
    for result in results:
        marker = result["url"].rsplit("/", 1)[1]
        assert marker in result["output"] and "Home About" not in result["output"]


def test_the_documented_example_writes_json_lines(tmp_path):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "warc_dask.py"
    spec = importlib.util.spec_from_file_location("warc_dask", script)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, {"https://x.example/delta": page("delta")})
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        assert example.run([str(path)], tmp_path / "out", client) == (1, 0)
    assert list((tmp_path / "out").glob("part-*.jsonl.gz"))
