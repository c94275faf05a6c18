"""Numba kernels of the Othello value network (:mod:`gamelib.games.othello.mlp`), bit-identical on
every CPU.

numpy's matrix products go to OpenBLAS, which chooses its kernel by CPU and its blocking by the
number of threads: the same float32 product came out with different last bits on a Haswell, a
Sandy Bridge and a Skylake-X kernel, and stochastic gradient descent amplifies the last bit
into a different network. These kernels fix the order of every sum instead:

* a unit's input sum runs over its inputs in index order, starting from its bias; a weight's or
  bias's gradient sums over the batch's samples in order; a back-propagated delta sums over the
  units of the layer above in order. The loops read ``for k: for j: out[j] += x[k] * W[k, j]``,
  so the inner loop runs over *independent* outputs: LLVM vectorises it (with whatever vector
  width the CPU has) without reassociating any sum. Numba compiles without fastmath, so LLVM
  does not contract ``a * b + c`` into a fused multiply-add either.
* zero inputs (empty squares) and inactive ReLU units are skipped. That is exact: adding
  ``0 * w`` leaves a sum unchanged up to the sign of a zero, and no later step can see that sign
  (``relu(-0) = relu(+0) = 0``, ``sigmoid(-0) = sigmoid(+0) = 1/2``).
* the output sigmoid is :func:`gamelib.exactmath.sigmoid` (``+ - * /`` and exact scaling only),
  computed in float64, not the C library's or numpy's CPU-dependent ``exp``/``tanh``.

The same :func:`forward_row` serves training, batch prediction and the αβ search
(:func:`gamelib.games.othello.mlp.mlp_value`), so all three give identical values for a board.

Parameters live in one flat vector: layer ``l`` maps ``sizes[l]`` inputs to ``sizes[l + 1]``
outputs, its weights stored row-major with shape ``(sizes[l], sizes[l + 1])``, then its biases.
Hidden activations of one sample are stored side by side in one row of ``act``. Every array
of a call has the parameters' dtype (float32 or float64) except the float64 outputs, targets
and weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...exactmath import sigmoid

__all__ = ["encode_row", "forward_row", "forward_rows", "loss_and_grad", "adam_step",
           "weighted_sse"]


@njit(cache=True)
def encode_row(b, w, code, row):
    """Fill ``row`` with the input encoding ``code`` of board ``(b, w)`` (see ``ENCODINGS``)."""
    one = np.uint64(1)
    row[:] = 0.0
    for sq in range(64):
        bit = one << np.uint64(sq)
        if b & bit:
            row[sq] = 1.0
        elif w & bit:
            if code == 0:
                row[sq] = 2.0
            else:
                row[64 + sq] = 1.0


@njit(cache=True)
def _nonzeros(src, row, start, n, idx):
    """Positions ``k`` of the nonzero ``src[row, start + k]``, ``k < n``, in order, into
    ``idx``; returns their count."""
    cnt = 0
    for k in range(n):
        idx[cnt] = k
        cnt += src[row, start + k] != 0.0  # no branch: a zero's slot is overwritten
    return cnt


@njit(cache=True)
def _add_rows(out, src, row, start, idx, cnt, m):
    """``out[j] += src[row, start + k] * m[k, j]`` for ``k = idx[0], ..., idx[cnt - 1]`` in
    that order.

    Eight (then four) rows are added per pass over ``out`` as
    ``(((out + a1 m1) + a2 m2) + ...) + a8 m8``: the same roundings in the same order as one
    row per pass, with far fewer loads and stores of ``out``.
    """
    n_out = out.shape[0]
    q = 0
    while q + 8 <= cnt:
        k1, k2, k3, k4 = idx[q], idx[q + 1], idx[q + 2], idx[q + 3]
        k5, k6, k7, k8 = idx[q + 4], idx[q + 5], idx[q + 6], idx[q + 7]
        a1, a2 = src[row, start + k1], src[row, start + k2]
        a3, a4 = src[row, start + k3], src[row, start + k4]
        a5, a6 = src[row, start + k5], src[row, start + k6]
        a7, a8 = src[row, start + k7], src[row, start + k8]
        for j in range(n_out):
            out[j] = ((((((((out[j] + a1 * m[k1, j]) + a2 * m[k2, j]) + a3 * m[k3, j])
                           + a4 * m[k4, j]) + a5 * m[k5, j]) + a6 * m[k6, j])
                       + a7 * m[k7, j]) + a8 * m[k8, j])
        q += 8
    if q + 4 <= cnt:
        k1, k2, k3, k4 = idx[q], idx[q + 1], idx[q + 2], idx[q + 3]
        a1, a2 = src[row, start + k1], src[row, start + k2]
        a3, a4 = src[row, start + k3], src[row, start + k4]
        for j in range(n_out):
            out[j] = (((out[j] + a1 * m[k1, j]) + a2 * m[k2, j]) + a3 * m[k3, j]) + a4 * m[k4, j]
        q += 4
    while q < cnt:
        k1 = idx[q]
        a1 = src[row, start + k1]
        for j in range(n_out):
            out[j] += a1 * m[k1, j]
        q += 1


@njit(cache=True)
def forward_row(params, sizes, x, i, act, a, idx):
    """:math:`v_\\theta` (float64) of the encoded input ``x[i]``; its hidden activations into
    ``act[a]``. ``idx`` is scratch space of ``max(sizes)`` entries."""
    n_layers = sizes.shape[0] - 1
    pos = 0
    off = 0
    for l in range(n_layers - 1):
        n_in = sizes[l]
        n_out = sizes[l + 1]
        b0 = pos + n_in * n_out
        w = params[pos:b0].reshape((n_in, n_out))
        out = act[a, off:off + n_out]
        out[:] = params[b0:b0 + n_out]
        if l == 0:
            _add_rows(out, x, i, 0, idx, _nonzeros(x, i, 0, n_in, idx), w)
        else:
            _add_rows(out, act, a, off - n_in, idx, _nonzeros(act, a, off - n_in, n_in, idx), w)
        for j in range(n_out):  # ReLU (also turns -0 into +0)
            v = out[j]
            out[j] = v if v > 0.0 else 0.0
        pos = b0 + n_out
        off += n_out
    n_in = sizes[n_layers - 1]
    z = params[pos + n_in]
    if n_layers == 1:
        for k in range(n_in):
            z += x[i, k] * params[pos + k]
    else:
        for k in range(n_in):
            z += act[a, off - n_in + k] * params[pos + k]
    return sigmoid(np.float64(z))


@njit(cache=True)
def forward_rows(params, sizes, x, y):
    """``y[i] = v_theta(x[i])`` for every row of ``x``."""
    hidden = 0
    width = sizes[0]
    for l in range(1, sizes.shape[0]):
        hidden += sizes[l]
        width = max(width, sizes[l])
    act = np.empty((1, hidden), dtype=params.dtype)
    idx = np.empty(width, dtype=np.int64)
    for i in range(x.shape[0]):
        y[i] = forward_row(params, sizes, x, i, act, 0, idx)


@njit(cache=True)
def weighted_sse(pred, target, weight):
    """``(sum_i weight[i] * (pred[i] - target[i])**2, sum_i weight[i])`` in float64, in order."""
    sse = 0.0
    total = 0.0
    for i in range(pred.shape[0]):
        e = np.float64(pred[i]) - np.float64(target[i])
        sse += np.float64(weight[i]) * e * e
        total += np.float64(weight[i])
    return sse, total


@njit(cache=True)
def loss_and_grad(params, sizes, x, target, weight, grad):
    """Weighted squared error ``sum w (v - t)^2 / sum w`` of the batch ``x``; its gradient
    with respect to ``params`` into ``grad``."""
    n = x.shape[0]
    n_layers = sizes.shape[0] - 1
    hidden = 0
    width = sizes[0]
    for l in range(1, n_layers + 1):
        hidden += sizes[l]
        width = max(width, sizes[l])
    act = np.empty((n, hidden), dtype=params.dtype)
    delta = np.empty((n, 1), dtype=params.dtype)  # dL/dz of the current layer's outputs
    wt = np.empty(width * width, dtype=params.dtype)
    idx = np.empty(max(n, width), dtype=np.int64)
    total = 0.0
    for i in range(n):
        total += np.float64(weight[i])
    loss = 0.0
    for i in range(n):
        y = forward_row(params, sizes, x, i, act, i, idx)
        err = y - np.float64(target[i])
        loss += np.float64(weight[i]) * err * err
        # dL/dz at the sigmoid output: 2 w (y - t) y (1 - y) / sum(w)
        delta[i, 0] = (2.0 / total) * np.float64(weight[i]) * err * y * (1.0 - y)
    grad[:] = 0.0
    pos = params.shape[0]
    off = hidden - sizes[n_layers]  # start of layer l's input in act (for l > 0)
    for l in range(n_layers - 1, -1, -1):
        n_in = sizes[l]
        n_out = sizes[l + 1]
        pos -= n_in * n_out + n_out
        off -= n_in
        b0 = pos + n_in * n_out
        gb = grad[b0:b0 + n_out]
        for i in range(n):  # bias gradient: sum over the samples in order
            for j in range(n_out):
                gb[j] += delta[i, j]
        gw = grad[pos:b0].reshape((n_in, n_out))
        for k in range(n_in):  # weight gradient: sum over the samples in order
            if l == 0:
                _add_rows(gw[k], x.T, k, 0, idx, _nonzeros(x.T, k, 0, n, idx), delta)
            else:
                _add_rows(gw[k], act.T, off + k, 0, idx, _nonzeros(act.T, off + k, 0, n, idx),
                          delta)
        if l == 0:
            break
        # delta of the layer below: relu'(h) * sum_j W[k, j] delta[j], summed in j order over
        # the transposed weights, so that the inner loop runs over independent units k
        w = params[pos:b0].reshape((n_in, n_out))
        w_t = wt[:n_in * n_out].reshape((n_out, n_in))
        for k in range(n_in):
            for j in range(n_out):
                w_t[j, k] = w[k, j]
        below = np.zeros((n, n_in), dtype=params.dtype)
        for i in range(n):
            _add_rows(below[i], delta, i, 0, idx, _nonzeros(delta, i, 0, n_out, idx), w_t)
            for k in range(n_in):
                if not act[i, off + k] > 0.0:
                    below[i, k] = 0.0
        delta = below
    return loss / total


@njit(cache=True)
def adam_step(params, grad, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2, lr_t, eps):
    """One Adam update of ``params`` in place (moments ``m``, ``v``; bias-corrected step size
    ``lr_t``), element by element, in the dtype of the scalars (pass them as the arrays' dtype:
    float32 arithmetic vectorises twice as wide)."""
    for i in range(params.shape[0]):
        g = grad[i]
        mi = beta1 * m[i] + one_minus_beta1 * g
        vi = beta2 * v[i] + one_minus_beta2 * g * g
        m[i] = mi
        v[i] = vi
        params[i] -= lr_t * mi / (np.sqrt(vi) + eps)
