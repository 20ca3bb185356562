"""The block-sequence network: the core's inference against a numpy transcription of the
architecture (tests/seqnet_reference.py), its file format, and parity with the PyTorch network
it is trained as (thresher.training.sequence)."""
import numpy as np
import pytest

import seqnet_reference
from seqnet_reference import chunked_attention, conv, mean_embedding, reference_margin_bags
from thresher.errors import ModelError
from thresher.inference import treemodel as T
from thresher.inference.seqmodel import LAYER_WEIGHTS, SequenceNet, as_slice, weight_names, weight_shapes

NUMERIC, TOKENS = 5, 3
NAMES = tuple(f"f{i}" for i in range(NUMERIC)) + tuple(f"tok_{i}" for i in range(TOKENS))


def random_net(width=8, layers=1, heads=2, chunk=4, embedding=4, seed=0) -> SequenceNet:
    rng = np.random.default_rng(seed)
    shapes = weight_shapes(NUMERIC, TOKENS, width, embedding, layers)
    weights = {k: (rng.standard_normal(v) * 0.5).astype(np.float32) for k, v in shapes.items()}
    weights["scale"] = np.abs(weights["scale"]) + 0.5
    return SequenceNet(NAMES, NAMES[NUMERIC:], weights, layers, heads, chunk)


def rows(n, seed=1):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.standard_normal((n, NUMERIC)), rng.random((n, TOKENS)) < 0.4], 1).astype(np.float32)


def test_one_logit_per_block_and_none_for_an_empty_page():
    net = random_net()
    assert net.margin(rows(11)).shape == (11,)
    assert net.margin(rows(0)).shape == (0,)


def test_scores_depend_on_the_neighbours():
    """Unlike a per-row model, changing one block moves its neighbours' scores."""
    net = random_net(chunk=64)
    x = rows(12)
    changed = x.copy()
    changed[6, :NUMERIC] += 3.0
    moved = np.abs(net.margin(changed) - net.margin(x)) > 1e-6
    assert moved[5] and moved[7]


def test_attention_stays_within_its_chunk():
    """Blocks in another chunk of attention only see a change through the convolutions
    (at most 2 + 1 positions away with one layer)."""
    net = random_net(chunk=4)
    x = rows(24)
    changed = x.copy()
    changed[1, :NUMERIC] += 3.0
    moved = np.abs(net.margin(changed) - net.margin(x)) > 1e-6
    assert not moved[12:].any()


def test_chunked_attention_equals_full_attention_when_the_page_fits_one_chunk():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((7, 8)).astype(np.float32) for _ in range(3))
    one = chunked_attention(q, k, v, heads=2, chunk=7)
    manual = []
    for h in range(2):
        s = slice(4 * h, 4 * h + 4)
        a = q[:, s] @ k[:, s].T / 2.0
        a = np.exp(a - a.max(1, keepdims=True))
        manual.append((a / a.sum(1, keepdims=True)) @ v[:, s])
    np.testing.assert_allclose(one, np.concatenate(manual, 1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("batch_scores", [1, 2 * 3 * 3 * 2, 1 << 22])  # one chunk, two chunks, all per batch
def test_chunked_attention_is_each_chunk_s_own_attention(monkeypatch, batch_scores):
    """Chunks attended in batches (and the shorter last chunk alone) give what each chunk gives alone."""
    monkeypatch.setattr(seqnet_reference, "ATTENTION_BATCH_SCORES", batch_scores)
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((11, 8)).astype(np.float32) for _ in range(3))
    whole = chunked_attention(q, k, v, heads=2, chunk=3)
    for start in range(0, 11, 3):
        rows = slice(start, start + 3)
        alone = chunked_attention(q[rows], k[rows], v[rows], heads=2, chunk=3)
        np.testing.assert_allclose(whole[rows], alone, rtol=1e-5, atol=1e-6)


def test_conv_is_a_cross_correlation_with_zero_padding():
    x = np.arange(5, dtype=np.float32)[:, None]  # out[t] = 1 x[t-1] + 10 x[t] + 100 x[t+1]
    weight = np.array([[[1.0, 10.0, 100.0]]], np.float32)
    np.testing.assert_allclose(conv(x, weight, np.zeros(1, np.float32))[:, 0], [100, 210, 321, 432, 43])


def test_a_long_page_costs_linear_time_memory():
    """100,000 blocks go through in chunks: no 100,000 x 100,000 attention matrix."""
    net = random_net(chunk=64)
    assert net.margin(rows(100_000)).shape == (100_000,)


def test_round_trip_through_a_model_file(tmp_path):
    net = random_net(layers=2)
    path = tmp_path / "m.npz"
    T.save({"network": net}, path, {"network_weight": 0.5})
    models, meta = T.load(path)
    loaded = models["network"]
    assert isinstance(loaded, SequenceNet) and meta["network_weight"] == 0.5
    assert loaded.token_columns == net.token_columns and (loaded.layers, loaded.heads, loaded.chunk) == (2, 2, 4)
    x = rows(9)
    np.testing.assert_array_equal(loaded.margin(x), net.margin(x))


def test_a_file_lacking_a_weight_is_rejected(tmp_path):
    net = random_net()
    weights = dict(net.weights)
    del weights["layer0.qkv.weight"]
    with pytest.raises(ModelError, match="lacks weights"):
        SequenceNet(NAMES, NAMES[NUMERIC:], weights, 1, 2, 4)


def test_a_weight_of_the_wrong_shape_is_rejected():
    net = random_net()
    weights = {**net.weights, "conv1.weight": net.weights["conv1.weight"][:, :, :3]}
    with pytest.raises(ModelError, match="wrong shape"):
        SequenceNet(NAMES, NAMES[NUMERIC:], weights, 1, 2, 4)
    with pytest.raises(ModelError, match="wrong shape"):  # one token column fewer than the embedding has
        SequenceNet(NAMES, NAMES[NUMERIC + 1:], net.weights, 1, 2, 4)


def test_weight_names_cover_every_layer():
    names = weight_names(2)
    assert all(f"layer1.{w}" in names for w in LAYER_WEIGHTS) and "layer2.ln1.weight" not in names
    assert set(weight_shapes(5, 3, 8, 4, 2)) == set(names)


# ------------------------------------------------------------------ PyTorch parity and training

def test_the_core_s_inference_matches_the_torch_network():
    torch = pytest.importorskip("torch", reason="PyTorch (the train extra) is not installed")
    from thresher.training import sequence as S

    p = S.SequenceParams(width=8, layers=2, heads=2, embedding=4, chunk=5)
    torch.manual_seed(0)
    network = S._network(torch, NUMERIC, TOKENS, p).eval()
    weights = {"mean": np.zeros(NUMERIC, np.float32), "scale": np.ones(NUMERIC, np.float32), **S._export(network)}
    net = SequenceNet(NAMES, NAMES[NUMERIC:], weights, p.layers, p.heads, p.chunk)
    x = rows(13)
    values = np.clip(x[:, :NUMERIC], -6, 6)
    with torch.no_grad():
        expected = network(torch.from_numpy(values), torch.from_numpy(x[:, NUMERIC:])).numpy()
    np.testing.assert_allclose(net.margin(x), expected, rtol=1e-4, atol=1e-5)


def test_fit_sequence_learns_a_rule_that_needs_the_neighbours():
    """Label: the block *after* a marked block is content. A per-row model cannot see it."""
    pytest.importorskip("torch", reason="PyTorch (the train extra) is not installed")
    from thresher.training import sequence as S

    rng = np.random.default_rng(0)
    examples = []
    for _ in range(40):
        x = rows(30, int(rng.integers(1 << 30)))
        marked = x[:, 0] > 0.8
        labels = np.concatenate([[False], marked[:-1]])
        examples.append(S.SequenceExample(x, labels, np.ones(30, np.float32)))
    p = S.SequenceParams(width=16, heads=2, embedding=4, epochs=30, learning_rate=1e-2, pages_per_step=4)
    net = S.fit_sequence(examples, NAMES, NAMES[NUMERIC:], p)
    test = rows(200, 99)
    truth = np.concatenate([[False], test[:-1, 0] > 0.8])
    assert ((net.margin(test) > 0) == truth).mean() > 0.95


def test_fit_sequence_is_deterministic():
    pytest.importorskip("torch", reason="PyTorch (the train extra) is not installed")
    from thresher.training import sequence as S

    examples = [S.SequenceExample(rows(20, s), rows(20, s)[:, 0] > 0, np.ones(20, np.float32)) for s in range(6)]
    p = S.SequenceParams(width=8, heads=2, embedding=4, epochs=2)
    a, b = (S.fit_sequence(examples, NAMES, NAMES[NUMERIC:], p) for _ in range(2))
    np.testing.assert_array_equal(a.margin(rows(10)), b.margin(rows(10)))


def test_columns_in_any_order_give_the_same_scores():
    """Token columns that are one run are read as a view; interleaved ones by position. Same result."""
    net = random_net()
    order = [5, 0, 6, 1, 2, 7, 3, 4]  # tokens interleaved with the numeric columns
    shuffled = SequenceNet(tuple(NAMES[i] for i in order), net.token_columns, net.weights, net.layers,
                           net.heads, net.chunk)
    x = rows(9)
    np.testing.assert_allclose(shuffled.margin(x[:, order]), net.margin(x), rtol=1e-5, atol=1e-6)


def test_as_slice_only_for_one_increasing_run():
    assert as_slice(np.array([3, 4, 5])) == slice(3, 6)
    for positions in ([3, 5, 6], [4, 3], []):
        assert isinstance(as_slice(np.array(positions, np.int64)), np.ndarray)


def bags_of(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The token columns of ``rows`` as (indices, offsets)."""
    hits = [np.flatnonzero(row[NUMERIC:]) for row in x]
    offsets = np.concatenate([[0], np.cumsum([len(h) for h in hits])]).astype(np.int64)
    return (np.concatenate(hits).astype(np.int64) if hits else np.zeros(0, np.int64)), offsets


def test_margin_of_token_bags_equals_margin_of_the_dense_columns():
    net = random_net(chunk=5)
    for n in (0, 1, 13):
        x = rows(n, seed=n)
        x[::3, NUMERIC:] = 0.0  # some rows without any token
        np.testing.assert_allclose(net.margin_bags(x[:, :NUMERIC], *bags_of(x)), net.margin(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("width,layers,heads,chunk,n", [(8, 1, 2, 4, 1), (8, 2, 2, 5, 23), (16, 1, 4, 64, 70),
                                                        (12, 2, 3, 7, 130)])
def test_the_core_computes_what_the_numpy_transcription_does(width, layers, heads, chunk, n):
    net = random_net(width=width, layers=layers, heads=heads, chunk=chunk, seed=n)
    x = rows(n, seed=n)
    x[::4, NUMERIC:] = 0.0  # some rows without any token
    values, (indices, offsets) = x[:, :NUMERIC], bags_of(x)
    np.testing.assert_allclose(net.margin_bags(values, indices, offsets),
                               reference_margin_bags(net, values, indices, offsets), rtol=1e-4, atol=1e-4)


def test_bags_that_do_not_fit_the_network_are_model_errors():
    net = random_net()
    with pytest.raises(ModelError):
        net.margin_bags(rows(2)[:, :NUMERIC], np.array([TOKENS], np.int64), np.array([0, 1, 1], np.int64))
    with pytest.raises(ModelError):
        net.margin_bags(rows(2)[:, :NUMERIC], np.zeros(0, np.int64), np.array([0, 0], np.int64))


def test_mean_embedding_averages_each_row_s_tokens_and_gives_zeros_without_any():
    embedding = np.arange(8, dtype=np.float32).reshape(4, 2)
    # rows: no tokens, tokens {0, 2}, no tokens, token {3}, no tokens (empty rows first, between and last)
    got = mean_embedding(embedding, np.array([0, 2, 3]), np.array([0, 0, 2, 2, 3, 3]))
    assert got.tolist() == [[0, 0], [2, 3], [0, 0], [6, 7], [0, 0]]
    assert mean_embedding(embedding, np.zeros(0, np.int64), np.array([0])).shape == (0, 2)
    assert mean_embedding(embedding, np.zeros(0, np.int64), np.array([0, 0, 0])).tolist() == [[0, 0], [0, 0]]
