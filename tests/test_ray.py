"""docs/ray.md's recipe: WARC files through Ray Data on a local Ray instance (slow tier: Ray
starts its own processes, which takes seconds)."""
from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray", reason="ray (thresher[ray]) is not installed")
pytest.importorskip("ray.data", reason="Ray Data (thresher[ray]) is not installed")
pytest.importorskip("warcio", reason="warcio (thresher[scale]) is not installed")

from test_scale_cluster import HUGE, markers, page, write_warc  # noqa: E402
from thresher.integrations.ray import COLUMNS, ExtractRows  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=200 * 1024 ** 2)
    yield ray
    ray.shutdown()


def test_warc_files_through_ray_data(local_ray, tmp_path):
    """Two WARC files of 30 pages, one row in per file, a row out per page, over two actors;
    a page that is not one and a page past its budget are rows with ok false."""
    names = markers(60)
    paths = []
    for n, chunk in enumerate((names[:30], names[30:])):
        paths.append(tmp_path / f"part{n}.warc.gz")
        write_warc(paths[-1], {f"https://x.example/{m}": page(m) for m in chunk})
    rows = [{"path": str(path)} for path in paths] + [{"id": "blank", "html": "", "url": "https://x.example/blank"},
                                                      {"id": "huge", "html": HUGE, "url": "https://x.example/huge"}]
    dataset = ray.data.from_items(rows).flat_map(ExtractRows, concurrency=2, fn_constructor_kwargs={"timeout": 1.0})
    dataset.write_json(str(tmp_path / "out"))
    out = [json.loads(line) for part in sorted((tmp_path / "out").glob("*.json"))
           for line in part.read_text(encoding="utf-8").splitlines()]
    assert all(set(row) == set(COLUMNS) for row in out)
    failed = [row for row in out if not row["ok"]]
    assert sorted((row["record_id"], row["error_type"]) for row in failed) == [
        ("blank", "InputError"), ("huge", "ExtractionTimeout")]
    pages = [row for row in out if row["ok"]]
    assert sorted(row["url"] for row in pages) == sorted(f"https://x.example/{m}" for m in names)
    for row in pages:
        marker = row["url"].rsplit("/", 1)[1]
        assert marker in row["output"] and "Home About" not in row["output"]
