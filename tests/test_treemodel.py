"""Tree-ensemble and linear models in versioned .npz files (thresher.inference.treemodel)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from thresher.errors import ModelError
from thresher.inference import treemodel as T

NAMES = ("a", "b", "c")


def two_trees(meta=None) -> T.TreeEnsemble:
    """Tree 0: a <= 0.5 ? (b <= 2 ? 1 : 2) : 3.   Tree 1 (a stump): c <= -1 ? -10 : 10.   base 0.25."""
    #            0   1   2   3   4     5   6   7
    feature = [0, 1, -1, -1, -1, 2, -1, -1]
    threshold = [0.5, 2.0, 0, 0, 0, -1.0, 0, 0]
    left = [1, 3, 2, 3, 4, 6, 6, 7]
    right = [2, 4, 2, 3, 4, 7, 6, 7]
    value = [0, 0, 3.0, 1.0, 2.0, 0, -10.0, 10.0]
    return T.TreeEnsemble(NAMES, np.array(feature), np.array(threshold, float), np.array(left), np.array(right),
                          np.array(value, float), np.array([0, 5]), depth=2, base=0.25, meta=meta or {})


def test_margin_of_hand_built_ensemble_on_chosen_rows():
    model = two_trees()
    x = np.array([
        [0.0, 0.0, 0.0],   # left, left -> 1;   c > -1 -> 10
        [0.5, 2.0, -1.0],  # boundaries go left: 1; -10
        [0.5, 2.5, -2.0],  # left, right -> 2;  -10
        [0.6, 0.0, 5.0],   # right -> 3 (a leaf at depth 1);  10
    ], np.float32)
    assert model.margin(x).tolist() == pytest.approx([11.25, -8.75, -7.75, 13.25])
    assert T.probability(model, x[:1])[0] == pytest.approx(1 / (1 + np.exp(-11.25)))


def test_margin_of_no_rows_and_of_no_trees():
    model = two_trees()
    assert model.margin(np.zeros((0, 3))).shape == (0,)
    empty = T.TreeEnsemble(NAMES, *(np.zeros(0, np.int64) for _ in range(2)), np.zeros(0, np.int64),
                           np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), depth=0, base=-1.5)
    assert empty.margin(np.zeros((2, 3))).tolist() == [-1.5, -1.5]


def test_read_features_are_the_split_features():
    assert two_trees().read_features() == {"a", "b", "c"}
    stump = T.TreeEnsemble(NAMES, np.array([2, -1, -1]), np.array([0.0, 0, 0]), np.array([1, 1, 2]),
                           np.array([2, 1, 2]), np.array([0, -1.0, 1.0]), np.array([0]), depth=1)
    assert stump.read_features() == {"c"}
    narrow = stump.with_feature_names(("c",))
    x = np.array([[9.0, 9.0, -0.5], [9.0, 9.0, 0.5]])
    assert narrow.margin(x[:, [2]]).tolist() == stump.margin(x).tolist() == [-1.0, 1.0]


def test_with_feature_names_scores_rows_laid_out_anew_identically():
    model = two_trees()
    rng = np.random.default_rng(3)
    x = rng.normal(size=(50, 3)) * 2
    layout = ("c", "unused", "a", "b")
    wide = np.column_stack([x[:, 2], rng.normal(size=50), x[:, 0], x[:, 1]])
    moved = model.with_feature_names(layout)
    assert moved.feature_names == layout
    assert moved.margin(wide).tolist() == model.margin(x).tolist()
    assert model.feature_names == NAMES  # the original is untouched


def test_with_feature_names_refuses_a_layout_without_a_read_feature():
    with pytest.raises(ModelError, match="lacks features"):
        two_trees().with_feature_names(("a", "b"))


def test_averaged_ensembles_score_the_mean_margin_in_the_first_layout():
    first = two_trees()
    # a depth-1 stump on "b", stored in another layout, with its own base
    stump = T.TreeEnsemble(("b", "z"), np.array([0, -1, -1]), np.array([1.0, 0, 0]), np.array([1, 1, 2]),
                           np.array([2, 1, 2]), np.array([0, -4.0, 6.0]), np.array([0]), depth=1, base=1.0)
    x = np.random.default_rng(5).normal(size=(40, 3)) * 2
    mean = (first.margin(x) + stump.margin(x[:, [1, 0]])) / 2
    both = T.averaged([first, stump])
    assert both.feature_names == NAMES and len(both.roots) == 3 and both.depth == 2
    assert both.margin(x) == pytest.approx(mean)
    assert T.averaged([first]).margin(x).tolist() == first.margin(x).tolist()
    with pytest.raises(ModelError):
        T.averaged([])


def linear(meta=None) -> T.LinearModel:
    return T.LinearModel(NAMES, np.array([1.0, 0.0, 2.0]), np.array([2.0, 1.0, 0.5]), np.array([1.0, -1.0, 0.5]),
                         base=0.5, meta=meta or {})


def test_linear_margin():
    x = np.array([[3.0, 1.0, 2.5]])
    # ((3-1)/2)*1 + ((1-0)/1)*-1 + ((2.5-2)/0.5)*0.5 + 0.5 = 1 - 1 + 0.5 + 0.5
    assert linear().margin(x).tolist() == pytest.approx([1.0])


def test_save_load_round_trip_keeps_arrays_meta_and_names(tmp_path):
    trees, lin = two_trees({"note": "stage one"}), linear({"c": 1.5})
    path = tmp_path / "m.npz"
    T.save({"stage1": trees, "lin": lin}, path, {"vocabulary": ["nav", "post"], "threshold": 0.4})
    models, meta = T.load(path)
    assert meta == {"vocabulary": ["nav", "post"], "threshold": 0.4}
    assert set(models) == {"stage1", "lin"}
    t2, l2 = models["stage1"], models["lin"]
    assert isinstance(t2, T.TreeEnsemble) and isinstance(l2, T.LinearModel)
    assert t2.feature_names == NAMES and l2.feature_names == NAMES
    assert t2.meta == {"note": "stage one"} and l2.meta == {"c": 1.5}
    for key, value in trees.arrays().items():
        assert np.array_equal(t2.arrays()[key], value), key
    for key, value in lin.arrays().items():
        assert np.array_equal(l2.arrays()[key], value), key
    assert t2.depth == 2 and t2.base == 0.25 and l2.base == 0.5
    x = np.random.default_rng(0).normal(size=(50, 3))
    assert np.array_equal(t2.margin(x), trees.margin(x))
    assert np.array_equal(l2.margin(x), lin.margin(x))


def test_saved_file_is_a_plain_npz_with_a_json_header(tmp_path):
    path = tmp_path / "m.npz"
    T.save({"m": two_trees()}, path)
    with np.load(path, allow_pickle=False) as data:  # no object arrays anywhere
        header = json.loads(str(data["header"]))
        assert all(data[k].dtype != object for k in data.files)
    assert header["schema"] == T.SCHEMA and header["version"] == T.VERSION
    assert header["models"]["m"]["kind"] == "trees"


def _rewrite_header(src, dst, change):
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    header = json.loads(str(arrays["header"]))
    change(header)
    arrays["header"] = np.asarray(json.dumps(header))
    np.savez(dst, **arrays)


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "good.npz"
    T.save({"m": two_trees()}, path, {"threshold": 0.5})
    return path


def test_load_rejects_a_wrong_schema(saved, tmp_path):
    bad = tmp_path / "schema.npz"
    _rewrite_header(saved, bad, lambda h: h.update(schema="someone.else"))
    with pytest.raises(ModelError, match="schema"):
        T.load(bad)


def test_load_rejects_a_wrong_version(saved, tmp_path):
    bad = tmp_path / "version.npz"
    _rewrite_header(saved, bad, lambda h: h.update(version=T.VERSION + 1))
    with pytest.raises(ModelError, match="version"):
        T.load(bad)


def test_load_rejects_an_unknown_model_kind(saved, tmp_path):
    bad = tmp_path / "kind.npz"
    _rewrite_header(saved, bad, lambda h: h["models"]["m"].update(kind="forest"))
    with pytest.raises(ModelError, match="kind"):
        T.load(bad)


@pytest.mark.parametrize("content", [b"hello, not a model", b"\x80\x04K\x01."], ids=["text", "pickle"])
def test_load_rejects_non_model_files(tmp_path, content):
    path = tmp_path / "x.npz"
    path.write_bytes(content)
    with pytest.raises(ModelError):
        T.load(path)


def test_load_rejects_a_missing_file_and_an_npz_without_header(tmp_path):
    with pytest.raises(ModelError):
        T.load(tmp_path / "absent.npz")
    np.savez(tmp_path / "noheader.npz", a=np.arange(3))
    with pytest.raises(ModelError):
        T.load(tmp_path / "noheader.npz")


class Boom:
    """Unpickling this would leave a mark: the test checks it never happens."""

    unpickled = False

    def __reduce__(self):
        return (_mark_unpickled, ())


def _mark_unpickled():
    Boom.unpickled = True
    return "unpickled"


def test_object_arrays_are_never_unpickled(tmp_path):
    obj = np.empty(1, dtype=object)
    obj[0] = Boom()
    path = tmp_path / "evil.npz"
    np.savez(path, header=obj)
    with pytest.raises(ModelError):
        T.load(path)
    # an object array among valid model arrays is refused too
    good = tmp_path / "good.npz"
    T.save({"m": two_trees()}, good)
    with np.load(good, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["m.value"] = obj
    np.savez(tmp_path / "evil2.npz", **arrays)
    with pytest.raises(ModelError):
        T.load(tmp_path / "evil2.npz")
    assert not Boom.unpickled


# Non-model or damaged files (empty, bare .npy, broken zip, bad CRC, odd headers) must all give ModelError,
# never EOFError / TypeError / BadZipFile / AttributeError / KeyError.
@pytest.mark.parametrize("kind", ["empty", "npy", "broken-zip", "truncated", "bad-crc", "list-header", "no-models"])
def test_load_rejects_odd_files_with_model_error(tmp_path, kind):
    path = tmp_path / "odd.npz"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "npy":
        with open(path, "wb") as handle:
            np.save(handle, np.arange(3))
    elif kind in ("broken-zip", "truncated", "bad-crc"):
        T.save({"m": two_trees()}, path, {"padding": list(range(2000))})
        data = bytearray(path.read_bytes())
        if kind == "broken-zip":
            data = bytearray(b"PK\x03\x04 not really a zip")
        elif kind == "truncated":  # an interrupted download
            data = data[: len(data) // 2]
        else:
            data[len(data) // 3] ^= 0xFF
        path.write_bytes(bytes(data))
    elif kind == "list-header":
        np.savez(path, header=np.asarray("[1, 2]"))
    else:
        np.savez(path, header=np.asarray(json.dumps({"schema": T.SCHEMA, "version": T.VERSION})))
    with pytest.raises(ModelError):
        T.load(path)


# ------------------------------------------------------------------ LightGBM dumps

def test_from_lightgbm_dump_of_a_hand_written_stump():
    dump = {"tree_info": [
        {"tree_structure": {"split_feature": 1, "threshold": 0.5, "decision_type": "<=",
                            "left_child": {"leaf_value": -2.0}, "right_child": {"leaf_value": 3.0}}},
        {"tree_structure": {"leaf_value": 0.5}},  # a tree that never split
    ]}
    model = T.from_lightgbm_dump(dump, ("x0", "x1"), {"source": "hand"})
    x = np.array([[9.0, 0.0], [9.0, 0.5], [-9.0, 0.51], [0.0, 100.0]])
    assert model.margin(x).tolist() == pytest.approx([-1.5, -1.5, 3.5, 3.5])
    assert model.feature_names == ("x0", "x1") and model.meta == {"source": "hand"}
    assert model.depth == 1 and len(model.roots) == 2


def test_from_lightgbm_dump_of_a_deeper_tree_routes_both_sides():
    dump = {"tree_info": [{"tree_structure": {
        "split_feature": 0, "threshold": 0.0, "decision_type": "<=",
        "left_child": {"split_feature": 1, "threshold": 1.0, "decision_type": "<=",
                       "left_child": {"leaf_value": 1.0}, "right_child": {"leaf_value": 2.0}},
        "right_child": {"split_feature": 1, "threshold": -1.0, "decision_type": "<=",
                        "left_child": {"leaf_value": 3.0},
                        "right_child": {"split_feature": 0, "threshold": 5.0, "decision_type": "<=",
                                        "left_child": {"leaf_value": 4.0}, "right_child": {"leaf_value": 5.0}}}}}]}
    model = T.from_lightgbm_dump(dump, ("a", "b"))
    x = np.array([[-1, 0], [-1, 2], [1, -2], [1, 0], [6, 0]], float)
    assert model.margin(x).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert model.depth == 3


def test_from_lightgbm_dump_rejects_categorical_splits():
    dump = {"tree_info": [{"tree_structure": {"split_feature": 0, "threshold": "1||2", "decision_type": "==",
                                              "left_child": {"leaf_value": 1.0},
                                              "right_child": {"leaf_value": 0.0}}}]}
    with pytest.raises(ModelError):
        T.from_lightgbm_dump(dump, ("a",))


def test_numpy_margins_equal_lightgbm_raw_scores(tmp_path):
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 6)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] ** 2 - x[:, 2] * x[:, 3] + rng.normal(scale=0.3, size=400) > 0.3).astype(float)
    booster = lgb.train({"objective": "binary", "num_leaves": 7, "min_child_samples": 5, "seed": 0,
                         "deterministic": True, "num_threads": 1, "verbose": -1},
                        lgb.Dataset(x, y), num_boost_round=15)
    model = T.from_lightgbm_dump(booster.dump_model(), tuple(f"f{i}" for i in range(6)))
    test = rng.normal(size=(300, 6)).astype(np.float32)
    expected = booster.predict(test, raw_score=True)
    np.testing.assert_allclose(model.margin(test), expected, rtol=0, atol=1e-6)
    # and after a save/load round trip
    T.save({"m": model}, tmp_path / "lgb.npz")
    loaded = T.load(tmp_path / "lgb.npz")[0]["m"]
    np.testing.assert_allclose(loaded.margin(test), expected, rtol=0, atol=1e-6)


def reference_margin(model: T.TreeEnsemble, x: np.ndarray) -> np.ndarray:
    """The ensemble walked one row and one tree at a time, in Python: the oracle for the core."""
    margins = []
    for row in np.asarray(x, np.float64):
        leaves = []
        for node in model.roots.tolist():
            while model.feature[node] >= 0:
                node = int(model.right[node] if row[model.feature[node]] > model.threshold[node] else model.left[node])
            leaves.append(model.value[node])
        margins.append(np.array([leaves]).sum(axis=1)[0] + model.base)  # numpy's summation order
    return np.array(margins)


def test_native_margins_equal_a_row_by_row_walk_to_the_bit():
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(600, 5))
    y = (x[:, 0] * x[:, 1] + np.sin(3 * x[:, 2]) + rng.normal(scale=0.2, size=600) > 0).astype(float)
    booster = lgb.train({"objective": "binary", "num_leaves": 31, "max_depth": 6, "min_child_samples": 3,
                         "seed": 0, "deterministic": True, "num_threads": 1, "verbose": -1},
                        lgb.Dataset(x, y), num_boost_round=40)
    model = T.from_lightgbm_dump(booster.dump_model(), tuple("abcde"))
    test = rng.normal(size=(200, 5))
    test[::7, 1] = np.nan  # a missing value goes left
    assert model.margin(test).tolist() == reference_margin(model, test).tolist()


def test_a_model_whose_nodes_do_not_fit_the_rows_is_a_model_error():
    broken = T.TreeEnsemble(NAMES, np.array([7, -1, -1]), np.array([0.5, 0, 0]), np.array([1, 1, 2]),
                            np.array([2, 1, 2]), np.array([0, 1.0, 2.0]), np.array([0]), depth=1)
    with pytest.raises(ModelError, match="column 7"):
        broken.margin(np.zeros((2, 3)))
    cyclic = T.TreeEnsemble(NAMES, np.array([0, 0]), np.array([1.0, 1.0]), np.array([1, 0]), np.array([1, 0]),
                            np.array([0.0, 0.0]), np.array([0]), depth=2)
    with pytest.raises(ModelError, match="cycle"):
        cyclic.margin(np.zeros((1, 3)))


def test_float32_rows_take_the_float64_branches_even_at_the_thresholds():
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(5)
    x = rng.normal(size=(500, 3))
    y = (x[:, 0] + x[:, 1] * x[:, 2] > 0).astype(float)
    booster = lgb.train({"objective": "binary", "num_leaves": 15, "max_depth": 4, "min_child_samples": 3,
                         "seed": 0, "deterministic": True, "num_threads": 1, "verbose": -1},
                        lgb.Dataset(x, y), num_boost_round=10)
    model = T.from_lightgbm_dump(booster.dump_model(), tuple("abc"))
    cuts = model.threshold[model.feature >= 0].astype(np.float32)
    near = np.concatenate([cuts, np.nextafter(cuts, np.float32(np.inf)), np.nextafter(cuts, np.float32(-np.inf))])
    rows = np.repeat(near[:, None], 3, axis=1).astype(np.float32)  # every feature sits on some cut
    rows = np.vstack([rows, rng.normal(size=(200, 3)).astype(np.float32)])
    assert model.margin(rows).tolist() == model.margin(rows.astype(np.float64)).tolist()


def test_a_model_file_is_read_as_stored_without_numpy_and_gives_numpy_s_arrays(tmp_path):
    path = tmp_path / "m.npz"
    T.save({"stage1": two_trees(), "lin": linear()}, path, {"vocabulary": ["nav"]})
    header, raw = T.read_raw(path)
    _, arrays = T.read(path)
    with np.load(path, allow_pickle=False) as data:
        assert header == json.loads(str(data["header"]))
        assert set(raw) == set(arrays) == set(data.files) - {"header"}
        for key in arrays:
            assert isinstance(raw[key].data, bytes) and raw[key].shape == data[key].shape
            assert raw[key].array().dtype == data[key].dtype and np.array_equal(raw[key].array(), data[key])


@pytest.mark.parametrize("array", [np.zeros((2, 3), order="F"), np.zeros(3, ">f8")])
def test_an_array_stored_in_an_order_the_core_does_not_read_is_refused(tmp_path, array):
    path = tmp_path / "m.npz"
    np.savez(path, header=np.asarray(json.dumps({"schema": T.SCHEMA, "version": 2, "models": {}})), x=array)
    with pytest.raises(ModelError, match="not a thresher model file"):
        T.read_raw(path)


def test_a_model_saved_uncompressed_loads_the_same(tmp_path):
    model = T.TreeEnsemble(("a",), *(np.asarray(v) for v in ([0, -1, -1], [0.5, 0.0, 0.0], [1, 1, 2],
                                                               [2, 1, 2], [0.0, -1.0, 1.0], [0])), depth=1)
    T.save({"stage1": model}, tmp_path / "deflated.npz")
    T.save({"stage1": model}, tmp_path / "stored.npz", compress=False)
    (deflated, _), (stored, _) = T.load(tmp_path / "deflated.npz"), T.load(tmp_path / "stored.npz")
    rows = np.asarray([[0.2], [0.9]])
    assert deflated["stage1"].margin(rows).tolist() == stored["stage1"].margin(rows).tolist() == [-1.0, 1.0]
