"""Value network (seed 004, Fig. 3 and eq. 4): backward pass, numba forward, training, files."""

import numpy as np
import pandas as pd
import pytest

from gamelib.games.othello.mlp import (
    MLP,
    PAPER_SIZES,
    encode_states,
    gradient_check,
    mlp_value,
    reliability,
    table_loss,
    train,
    weighted_mse,
)
from gamelib.games.othello.value_table import parse_state_string


def random_boards(n, seed):
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 3, size=(n, 64))
    bits = np.uint64(1) << np.arange(64, dtype=np.uint64)
    black = np.bitwise_or.reduce(np.where(cells == 1, bits, np.uint64(0)), axis=1)
    white = np.bitwise_or.reduce(np.where(cells == 2, bits, np.uint64(0)), axis=1)
    return black.astype(np.uint64), white.astype(np.uint64), cells


def test_paper_encoding_is_the_state_vector():
    state = "0000000000000000000000000002100000011100000000000000000000000000"  # after f5
    black, white = parse_state_string(state)
    x = encode_states([black], [white])
    assert x.shape == (1, 64)
    assert x[0].tolist() == [float(c) for c in state]
    planes = encode_states([black], [white], "planes")
    assert planes.shape == (1, 128)
    assert planes[0, :64].tolist() == [float(c == "1") for c in state]
    assert planes[0, 64:].tolist() == [float(c == "2") for c in state]
    with pytest.raises(ValueError, match="unknown input encoding 'onehot'"):
        encode_states([black], [white], "onehot")
    with pytest.raises(ValueError, match="both black and white"):
        encode_states([1], [1])


@pytest.mark.parametrize("encoding, sizes", [("paper", (64, 9, 7, 5, 1)),
                                             ("planes", (128, 6, 1))])
def test_backward_pass_matches_finite_differences(encoding, sizes):
    black, white, _ = random_boards(30, seed=1)
    x = encode_states(black, white, encoding, dtype=np.float64)
    rng = np.random.default_rng(2)
    target = rng.random(30)
    weight = rng.integers(1, 50, 30)  # n(s): eq. (4) weights
    net = MLP.init(sizes, encoding, seed=3, dtype=np.float64)
    assert gradient_check(net, x, target, weight, eps=1e-6) < 1e-7
    # the loss it differentiates is eq. (4) with weights n(s)
    loss, _ = net.loss_and_grad(x, target, weight)
    assert loss == pytest.approx(weighted_mse(net.forward(x), target, weight))


def test_gradient_check_detects_a_wrong_gradient(monkeypatch):
    black, white, _ = random_boards(10, seed=4)
    x = encode_states(black, white, dtype=np.float64)
    net = MLP.init((64, 5, 1), seed=0, dtype=np.float64)
    original = MLP.loss_and_grad

    def wrong(self, *args):
        loss, grad = original(self, *args)
        return loss, grad * 1.01

    monkeypatch.setattr(MLP, "loss_and_grad", wrong)
    assert gradient_check(net, x, np.full(10, 0.3)) > 1e-3

    def one_wrong(self, *args):  # only the output bias, the last parameter, is wrong
        loss, grad = original(self, *args)
        grad[-1] *= 1.01
        return loss, grad

    monkeypatch.setattr(MLP, "loss_and_grad", one_wrong)
    assert gradient_check(net, x, np.full(10, 0.3)) > 1e-4


def test_weighted_mse_is_equation_4():
    pred, target, n = np.array([0.2, 0.9, 0.5]), np.array([0.0, 1.0, 0.5]), np.array([3, 1, 6])
    expected = (3 * 0.04 + 1 * 0.01 + 0) / 10
    assert weighted_mse(pred, target, n) == pytest.approx(expected)
    with pytest.raises(ValueError, match="shapes differ"):
        weighted_mse(pred, target, n[:2])
    with pytest.raises(ValueError, match="positive sum"):
        weighted_mse(pred, target, np.zeros(3))


@pytest.mark.parametrize("encoding", ["paper", "planes"])
def test_numba_forward_matches_numpy(encoding):
    sizes = (64 * (1 + (encoding == "planes")),) + PAPER_SIZES[1:]
    net = MLP.init(sizes, encoding, seed=5)
    black, white, _ = random_boards(200, seed=6)
    expected = net.predict(black, white)
    args = net.kernel_args()
    got = np.array([mlp_value(*args, b, w) for b, w in zip(black, white)])
    np.testing.assert_array_equal(got, expected)  # one kernel: the search sees what predict says
    # by hand, in float64: sigmoid(W4' relu(W3' relu(W2' relu(W1' x + b1) ...)))
    h = encode_states(black, white, encoding, dtype=np.float64)
    layers = net.astype(np.float64).layers()
    for k, (w, b) in enumerate(layers):
        z = h @ w + b
        h = np.maximum(z, 0) if k < len(layers) - 1 else 1 / (1 + np.exp(-z))
    np.testing.assert_allclose(got, h[:, 0], rtol=1e-5)


def test_layout_validation():
    with pytest.raises(ValueError, match="start with 64 inputs but encoding 'planes' has 128"):
        MLP.init((64, 8, 1), "planes")
    with pytest.raises(ValueError, match="must end with 1 output"):
        MLP.init((64, 8, 2))
    with pytest.raises(ValueError, match=r"needs \(65,\)"):
        MLP((64, 1), np.zeros(16, np.float32))
    with pytest.raises(ValueError, match="NaN"):
        MLP((64, 1), np.full(65, np.nan, np.float32))


def synthetic_table(n_states=400, seed=7):
    """A table whose value is a smooth function of the board (Black's corner count), with
    frequencies that vary over two orders of magnitude."""
    black, white, cells = random_boards(n_states, seed)
    corners = (cells[:, [0, 7, 56, 63]] == 1).sum(axis=1) - (cells[:, [0, 7, 56, 63]] == 2).sum(axis=1)
    v = 1 / (1 + np.exp(-corners))
    n = np.random.default_rng(seed).integers(1, 100, n_states)
    wins = np.round(v * n).astype(np.int64)
    return pd.DataFrame({"black": black, "white": white, "n": n, "wins": wins})


def test_training_fits_a_known_table_and_is_reproducible():
    table = synthetic_table()
    v = table["wins"] / table["n"]
    baseline = weighted_mse(np.full(len(table), np.average(v, weights=table["n"])), v, table["n"])
    net = MLP.init((64, 32, 16, 1), seed=0)
    hist = train(net, table, epochs=8, batch_size=64, lr=3e-3, seed=1, progress=False)
    assert hist.samples == 8 * table["n"].sum()  # an epoch visits every occurrence once
    assert hist.train_loss[-1] < 0.2 * baseline
    assert hist.train_loss[-1] == pytest.approx(table_loss(net, table))
    again = MLP.init((64, 32, 16, 1), seed=0)
    train(again, table, epochs=8, batch_size=64, lr=3e-3, seed=1, progress=False)
    np.testing.assert_array_equal(again.params, net.params)


def test_checkpoint_resume_equals_an_uninterrupted_run(tmp_path):
    table = synthetic_table(100)
    val = synthetic_table(50, seed=9)
    straight = MLP.init((64, 8, 1), seed=0)
    h1 = train(straight, table, epochs=3, batch_size=32, seed=2, val_table=val, progress=False)
    ckpt = tmp_path / "run.npz"
    resumed = MLP.init((64, 8, 1), seed=0)
    train(resumed, table, epochs=1, batch_size=32, seed=2, val_table=val, checkpoint=ckpt,
          progress=False)
    fresh = MLP.init((64, 8, 1), seed=0)  # a new process: parameters come from the checkpoint
    h2 = train(fresh, table, epochs=3, batch_size=32, seed=2, val_table=val, checkpoint=ckpt,
               progress=False)
    np.testing.assert_array_equal(fresh.params, straight.params)
    assert h2.train_loss == h1.train_loss and h2.val_loss == h1.val_loss
    assert h2.samples == h1.samples
    with pytest.raises(ValueError, match="belongs to another run"):
        train(MLP.init((64, 8, 1)), table, epochs=4, batch_size=32, seed=3, checkpoint=ckpt,
              progress=False)


def test_save_and_load(tmp_path):
    net = MLP.init((128, 4, 1), "planes", seed=1)
    net.metadata["years"] = [2015, 2018]
    path = net.save(tmp_path / "net.npz")
    back = MLP.load(path)
    assert back.sizes == net.sizes and back.encoding == "planes"
    assert back.metadata == {"years": [2015, 2018]}
    np.testing.assert_array_equal(back.params, net.params)
    assert [p.name for p in tmp_path.iterdir()] == ["net.npz"]  # no temporary file left

    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="cannot read MLP file"):
        MLP.load(tmp_path / "junk.npz")
    np.savez(tmp_path / "other.npz", params=net.params)
    with pytest.raises(ValueError, match="not an MLP file: missing"):
        MLP.load(tmp_path / "other.npz")
    with np.load(path) as f:
        data = dict(f)
    np.savez(tmp_path / "v2.npz", **{**data, "version": np.array(2)})
    with pytest.raises(ValueError, match="layout version 2"):
        MLP.load(tmp_path / "v2.npz")
    np.savez(tmp_path / "cut.npz", **{**data, "params": data["params"][:-1]})
    with pytest.raises(ValueError, match="bad MLP file"):
        MLP.load(tmp_path / "cut.npz")


def test_reliability_bins_by_prediction_and_weights_by_frequency():
    table = pd.DataFrame({"black": np.arange(4, dtype=np.uint64),
                          "white": np.arange(4, dtype=np.uint64) << np.uint64(8),
                          "n": [10, 30, 5, 5], "wins": [1, 9, 4, 5]})
    pred = np.array([0.05, 0.15, 0.85, 0.95])
    rel = reliability(pred, table, bins=2)
    assert rel["n"].tolist() == [40, 10] and rel["states"].tolist() == [2, 2]
    assert rel["mean_pred"].tolist() == pytest.approx([(0.5 + 4.5) / 40, (4.25 + 4.75) / 10])
    assert rel["observed"].tolist() == pytest.approx([10 / 40, 9 / 10])
    expected_ece = (40 * abs(5 / 40 - 10 / 40) + 10 * abs(0.9 - 0.9)) / 50
    assert rel.attrs["ece"] == pytest.approx(expected_ece)
    four = reliability(pred, table, bins=4)  # bins [0.25, 0.5) and [0.5, 0.75) are empty
    assert four["n"].tolist() == [40, 0, 0, 10] and np.isnan(four["observed"].iat[1])
    with pytest.raises(ValueError, match="3 predictions for a table of 4"):
        reliability(pred[:3], table)
