"""FeatureRows (the sparse rows the learners share) and the gradient-check helpers."""

import numpy as np
import pytest

from gamelib.learn import FeatureRows, central_difference_gradient, gradient_relative_error


def test_dense_round_trip_dot_and_take():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 5)) * (rng.random((7, 5)) < 0.5)
    rows = FeatureRows.from_dense(x)
    assert rows.n_rows == 7 and rows.n_features == 5 and rows.indices.size == np.count_nonzero(x)
    np.testing.assert_array_equal(rows.to_dense(), x)
    w = rng.normal(size=5)
    np.testing.assert_allclose(rows.dot(w), x @ w, rtol=1e-13, atol=1e-15)
    pick = np.array([6, 0, 0, 3])
    np.testing.assert_array_equal(rows.take(pick).to_dense(), x[pick])
    np.testing.assert_array_equal(rows.take([]).to_dense(), np.zeros((0, 5)))


def test_lists_concatenate_and_repeated_indices():
    a = FeatureRows.from_lists([([0, 2, 0], [1.0, 2.0, 3.0]), ([], [])], 3)
    np.testing.assert_array_equal(a.to_dense(), [[4.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    assert a.dot([1.0, 5.0, 10.0]).tolist() == [24.0, 0.0]     # repeated indices add up
    b = FeatureRows.from_dense(np.array([[0.0, 1.0, 0.0]]))
    ab = FeatureRows.concatenate([a, b])
    np.testing.assert_array_equal(ab.to_dense(), np.vstack([a.to_dense(), b.to_dense()]))


@pytest.mark.parametrize("args, message", [
    (([0, 2], [0, 5], [1.0, 1.0], 3), "feature index 5 is outside"),
    (([0, 2], [0, -1], [1.0, 1.0], 3), "feature index -1"),
    (([1, 2], [0, 1], [1.0, 1.0], 3), "must start at 0"),
    (([0, 2, 1], [0, 1], [1.0, 1.0], 3), "non-decreasing"),
    (([0, 3], [0, 1], [1.0, 1.0], 3), "ends at 3 but there are 2"),
    (([0, 2], [0, 1], [1.0, np.nan], 3), "not finite"),
    (([0, 2], [0, 1], [1.0], 3), "equal length"),
    (([0, 1], [0], [1.0], 0), "n_features"),
])
def test_bad_rows_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        FeatureRows(*args)


def test_bad_weights_and_rows():
    rows = FeatureRows.from_dense(np.eye(2))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        rows.dot(np.zeros(3))
    with pytest.raises(ValueError, match="row 2 is outside"):
        rows.take([2])
    with pytest.raises(ValueError, match="different widths"):
        FeatureRows.concatenate([rows, FeatureRows.from_dense(np.eye(3))])


def test_central_difference_helper():
    f = lambda x: np.sin(x[0]) * x[1] ** 3 + np.exp(x[2])
    x = np.array([0.3, -1.2, 0.7])
    exact = np.array([np.cos(0.3) * (-1.2) ** 3, 3 * np.sin(0.3) * 1.44, np.exp(0.7)])
    num = central_difference_gradient(f, x, 1e-5)
    assert gradient_relative_error(exact, num) < 1e-9
    assert gradient_relative_error(exact, exact + 1e-3) > 1e-4
    assert gradient_relative_error(np.zeros(3), np.zeros(3)) == 0.0
    with pytest.raises(ValueError, match="positive"):
        central_difference_gradient(f, x, 0.0)
