"""The gate's baseline file and its update command: floors only go down with --allow-regression."""
from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import pytest

from thresher.evaluation.baseline import (
    Baseline,
    BaselineError,
    DatasetBaseline,
    corpus_digest,
    floor_of,
    load_baseline,
    main,
    save_baseline,
    updated,
)

SHIPPED = Path(__file__).with_name("baseline.json")


def baseline(**floors: float) -> Baseline:
    return Baseline(MappingProxyType({"corpus": DatasetBaseline(2, "sha256:old", MappingProxyType(floors))}))


def fake(measured: dict[str, float]):
    return lambda dataset, algorithm: measured[algorithm]


def test_the_shipped_baseline_reads_and_round_trips(tmp_path):
    shipped = load_baseline(SHIPPED)
    assert shipped.pairs() and all(0 < shipped.floor(d, a) < 1 for a, d in shipped.pairs())
    save_baseline(shipped, tmp_path / "b.json")
    assert (tmp_path / "b.json").read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")


def test_a_floor_is_the_measure_less_the_margin_rounded_down():
    assert floor_of(0.9281) == 0.918
    assert floor_of(0.7410) == 0.731
    assert floor_of(0.5) == 0.49


def test_raising_a_floor_is_allowed_and_reported():
    new, changes = updated(baseline(a=0.5, b=0.6), [("corpus", "a"), ("corpus", "b")],
                           fake({"a": 0.7, "b": 0.6101}), {"corpus": "sha256:new"})
    assert dict(new.datasets["corpus"].floors) == {"a": 0.69, "b": 0.6}
    assert [(c.algorithm, c.old, c.new) for c in changes] == [("a", 0.5, 0.69)]
    assert new.datasets["corpus"].digest == "sha256:new"


def test_lowering_a_floor_is_refused_without_the_flag():
    with pytest.raises(BaselineError, match="refusing to lower a floor") as info:
        updated(baseline(a=0.5, b=0.6), [("corpus", "a"), ("corpus", "b")], fake({"a": 0.9, "b": 0.4}), {})
    named = [line.split()[1] for line in str(info.value).splitlines()[1:]]
    assert named == ["b"]


def test_noise_within_the_margin_keeps_the_floor():
    new, changes = updated(baseline(a=0.824), [("corpus", "a")], fake({"a": 0.8338}), {})
    assert new.floor("corpus", "a") == 0.824 and changes == []


def test_lowering_a_floor_is_allowed_with_the_flag():
    new, changes = updated(baseline(a=0.5), [("corpus", "a")], fake({"a": 0.4}), {}, allow_regression=True)
    assert new.floor("corpus", "a") == 0.39 and changes[0].lowered


def test_an_unknown_dataset_is_an_error():
    with pytest.raises(BaselineError, match="not in the baseline"):
        updated(baseline(a=0.5), [("other", "a")], fake({"a": 0.9}), {})


def test_the_command_refuses_and_leaves_the_file_alone(tmp_path, capsys):
    path = tmp_path / "baseline.json"
    save_baseline(baseline(a=0.5, b=0.6), path)
    before = path.read_text(encoding="utf-8")
    assert main(["update", "--baseline", str(path)], measure=fake({"a": 0.3, "b": 0.9})) == 1
    assert "refusing to lower a floor" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == before
    assert main(["update", "--baseline", str(path), "--allow-regression"], measure=fake({"a": 0.3, "b": 0.9})) == 0
    out = capsys.readouterr().out
    assert "0.500 -> 0.290" in out and "0.600 -> 0.890" in out
    assert json.loads(path.read_text(encoding="utf-8"))["datasets"]["corpus"]["floors"] == {"a": 0.29, "b": 0.89}


def test_the_command_can_update_one_algorithm(tmp_path, capsys):
    path = tmp_path / "baseline.json"
    save_baseline(baseline(a=0.5, b=0.6), path)
    assert main(["update", "--baseline", str(path), "--algorithm", "b"], measure=fake({"b": 0.8})) == 0
    assert load_baseline(path).datasets["corpus"].floors == {"a": 0.5, "b": 0.79}


def test_an_unreadable_baseline_is_a_clear_error(tmp_path):
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    with pytest.raises(BaselineError, match="not a readable baseline"):
        load_baseline(tmp_path / "bad.json")


def test_the_digest_follows_names_and_sizes(tmp_path):
    (tmp_path / "a.html").write_text("one", encoding="utf-8")
    first = corpus_digest(tmp_path)
    assert first.startswith("sha256:") and corpus_digest(tmp_path) == first
    (tmp_path / "a.html").write_text("three", encoding="utf-8")
    assert corpus_digest(tmp_path) != first
