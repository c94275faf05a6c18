"""Fixtures of the reinforcement-learning tests: central differences written independently of
gamelib, and a norm-wise relative error."""

import numpy as np
import pytest


def _numeric_gradient(f, x, h):
    x = np.array(x, dtype=np.float64)
    out = np.empty_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out


@pytest.fixture
def numeric_gradient():
    """``numeric_gradient(f, x, h)``: central differences in every coordinate."""
    return _numeric_gradient


@pytest.fixture
def rel_error():
    """``rel_error(a, b)``: ``|a - b| / max(|a|, |b|)`` (norms)."""
    def err(a, b):
        a, b = np.asarray(a, float), np.asarray(b, float)
        return np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b), 1e-300)
    return err
