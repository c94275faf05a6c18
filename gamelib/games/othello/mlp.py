"""Multilayer-perceptron value network for Othello (the Othello value-network paper, Fig. 3 and eq. 4).

The network maps a board to the probability that **Black** wins,

.. math::

    v_\\theta(s) = \\sigma\\bigl(W_4^\\top h_3 + b_4\\bigr),\\quad
    h_k = \\operatorname{relu}\\bigl(W_k^\\top h_{k-1} + b_k\\bigr),\\quad h_0 = x(s),

with the paper's layout 64 → 128 → 256 → 64 → 1 (ReLU hidden layers, sigmoid output). It is
fitted to the value table :math:`v(s) = \\mathrm{wins}(s)/n(s)` (eqs. 1–2) by minimising the
frequency-weighted squared error of eq. (4),

.. math::

    L(\\theta) = \\sum_{s \\in S} \\frac{n(s)}{N}\\,\\bigl(v_\\theta(s) - v(s)\\bigr)^2,
    \\qquad N = \\sum_{s} n(s).

Input encodings (``encoding``):

* ``"paper"`` (default, the paper's Fig. 1): 64 inputs, cell value 0 = empty, 1 = black,
  2 = white, in square order a1, b1, ..., h1, a2, ..., h8 (the row-major order of the paper's
  Table 2 strings, with row 1 on top).
* ``"planes"``: 128 inputs, a 0/1 plane of black discs followed by a 0/1 plane of white discs
  (the raw 0/1/2 code makes "white" look like "twice black" to the first layer; the planes do
  not, at the cost of twice the first-layer weights).

All parameters live in one flat vector (weights of layer ``k`` stored row-major with shape
``(sizes[k], sizes[k + 1])``, then its bias), which is what the optimiser updates, what
:func:`gradient_check` perturbs and what the numba search reads through :func:`mlp_value`.

Training, prediction and the search's forward pass run in the numba kernels of
:mod:`gamelib.games.othello.mlp_kernels`, which sum in a fixed order (no BLAS): the same seed gives
the same network, bit for bit, on every CPU.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from ...runtime.atomic import load_npz, save_npz_atomic
from . import mlp_kernels as _k

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "PAPER_SIZES",
    "ENCODINGS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MLP",
    "Adam",
    "TrainingHistory",
    "encode_states",
    "input_size",
    "weighted_mse",
    "gradient_check",
    "mlp_value",
    "reliability",
    "table_loss",
    "train",
]

#: The paper's layout (Fig. 3): 64 inputs, hidden layers of 128, 256 and 64 ReLU units, 1 sigmoid.
PAPER_SIZES = (64, 128, 256, 64, 1)
#: Input encodings and their integer codes (the code is what the numba kernels receive).
ENCODINGS = {"paper": 0, "planes": 1}
#: The format name written into MLP files (the module's name when the format was made; kept).
FORMAT_NAME = "gamelib.othello.mlp"
FORMAT_VERSION = 1


def input_size(encoding: str) -> int:
    """Number of network inputs of ``encoding`` (64 for ``"paper"``, 128 for ``"planes"``)."""
    return 64 * (1 + _encoding_code(encoding))


def _encoding_code(encoding: str) -> int:
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown input encoding {encoding!r}; valid: {', '.join(ENCODINGS)}")
    return ENCODINGS[encoding]


@njit(cache=True)
def _encode_into(black, white, code, out):
    """Fill ``out[i]`` with the encoding ``code`` of board ``(black[i], white[i])``."""
    for i in range(black.shape[0]):
        _k.encode_row(black[i], white[i], code, out[i])


def encode_states(black, white, encoding: str = "paper", dtype=np.float32, out=None) -> np.ndarray:
    """Network inputs of the boards ``(black[i], white[i])``.

    Parameters
    ----------
    black, white : array_like of uint64
        Bitboards of the black and white discs (bit 0 = a1, bit 63 = h8).
    encoding : {"paper", "planes"}
        See the module docstring.
    dtype : numpy dtype
        Floating type of the result.
    out : ndarray, optional
        Preallocated ``(len(black), input_size(encoding))`` array to fill.

    Returns
    -------
    ndarray, shape (n, 64) or (n, 128)
    """
    black = np.ascontiguousarray(black, dtype=np.uint64).reshape(-1)
    white = np.ascontiguousarray(white, dtype=np.uint64).reshape(-1)
    if black.shape != white.shape:
        raise ValueError(f"black and white have different lengths ({black.size} vs {white.size})")
    if np.any(black & white):
        raise ValueError("a square is both black and white in at least one board")
    code = _encoding_code(encoding)
    shape = (black.size, input_size(encoding))
    if out is None:
        out = np.empty(shape, dtype=dtype)
    elif out.shape[0] < black.size or out.shape[1] != shape[1]:
        raise ValueError(f"out has shape {out.shape}, need at least {shape}")
    else:
        out = out[: black.size]
    _encode_into(black, white, code, out)
    return out


def _check_sizes(sizes, encoding: str) -> tuple:
    """Validated layer widths: at least two, positive, matching the encoding, one output."""
    try:
        sizes = tuple(int(s) for s in sizes)
    except (TypeError, ValueError):
        raise ValueError(f"bad layer sizes {sizes!r}: need a sequence of integers") from None
    if len(sizes) < 2 or any(s < 1 for s in sizes):
        raise ValueError(f"bad layer sizes {sizes}: need at least 2 positive sizes")
    if sizes[0] != input_size(encoding):
        raise ValueError(f"layer sizes {sizes} start with {sizes[0]} inputs but encoding "
                         f"{encoding!r} has {input_size(encoding)}")
    if sizes[-1] != 1:
        raise ValueError(f"layer sizes {sizes} must end with 1 output (the win probability)")
    return sizes


def _layout(sizes):
    """Offsets ``(w_start, b_start, end)`` of every layer in the flat parameter vector."""
    offsets = []
    pos = 0
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        offsets.append((pos, pos + n_in * n_out, pos + n_in * n_out + n_out))
        pos += n_in * n_out + n_out
    return offsets, pos


def weighted_mse(pred, target, n) -> float:
    """Frequency-weighted squared error of eq. (4): ``sum(n * (pred - target)**2) / sum(n)``.

    Parameters
    ----------
    pred, target : array_like
        Network outputs :math:`v_\\theta(s)` and table values :math:`v(s)`.
    n : array_like
        State frequencies :math:`n(s)`; their sum is :math:`N`.
    """
    pred = np.asarray(pred, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if not (pred.shape == target.shape == n.shape):
        raise ValueError(f"shapes differ: pred {pred.shape}, target {target.shape}, n {n.shape}")
    sse, total = _k.weighted_sse(pred.reshape(-1), target.reshape(-1), n.reshape(-1))
    if not total > 0:
        raise ValueError("weights n(s) must have a positive sum")
    return sse / total


@dataclass
class MLP:
    """A value network: layer sizes, input encoding and one flat parameter vector.

    Use :meth:`init` for a fresh network and :meth:`load` for a saved one.
    """

    sizes: tuple
    params: np.ndarray
    encoding: str = "paper"
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        self.sizes = sizes = _check_sizes(self.sizes, self.encoding)
        _, total = _layout(sizes)
        params = np.asarray(self.params)
        if params.ndim != 1 or params.size != total:
            raise ValueError(f"parameter vector has shape {params.shape}, layout {sizes} needs "
                             f"({total},)")
        if params.dtype not in (np.float32, np.float64):
            raise ValueError(f"parameters must be float32 or float64, got {params.dtype}")
        if not np.all(np.isfinite(params)):
            raise ValueError("parameter vector contains NaN or infinity")
        self.params = np.ascontiguousarray(params)

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def init(cls, sizes=PAPER_SIZES, encoding: str = "paper", seed: int = 0,
             dtype=np.float32) -> "MLP":
        """A freshly initialised network (He-normal weights for ReLU layers, zero biases).

        Parameters
        ----------
        sizes : sequence of int
            Layer widths, input first; the first must match ``encoding``, the last must be 1.
        encoding : {"paper", "planes"}
        seed : int
            Seed of the initialisation.
        dtype : np.float32 or np.float64
        """
        sizes = _check_sizes(sizes, encoding)
        offsets, total = _layout(sizes)
        rng = np.random.default_rng(seed)
        params = np.zeros(total, dtype=np.float64)
        for (w0, b0, _), n_in, n_out in zip(offsets, sizes[:-1], sizes[1:]):
            params[w0:b0] = rng.normal(0.0, np.sqrt(2.0 / n_in), n_in * n_out)
        return cls(sizes, params.astype(dtype), encoding)

    def copy(self) -> "MLP":
        return MLP(self.sizes, self.params.copy(), self.encoding, dict(self.metadata))

    def astype(self, dtype) -> "MLP":
        """The same network with parameters of another float type."""
        return MLP(self.sizes, self.params.astype(dtype), self.encoding, dict(self.metadata))

    @property
    def n_params(self) -> int:
        return self.params.size

    def layers(self, params=None):
        """``[(W, b), ...]`` views into ``params`` (default: this network's own parameters)."""
        params = self.params if params is None else params
        offsets, _ = _layout(self.sizes)
        return [(params[w0:b0].reshape(n_in, n_out), params[b0:end])
                for (w0, b0, end), n_in, n_out in zip(offsets, self.sizes[:-1], self.sizes[1:])]

    # --- forward / backward (numba kernels with a fixed order of summation) -----------------
    def _inputs(self, x) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=self.params.dtype)
        if x.ndim != 2 or x.shape[1] != self.sizes[0]:
            raise ValueError(f"inputs have shape {x.shape}, this network needs "
                             f"(n, {self.sizes[0]})")
        return x

    def forward(self, x) -> np.ndarray:
        """Outputs :math:`v_\\theta` (float64, shape ``(n,)``) for encoded inputs ``x``
        (shape ``(n, in)``); see :mod:`gamelib.games.othello.mlp_kernels`."""
        x = self._inputs(x)
        y = np.empty(x.shape[0], dtype=np.float64)
        _k.forward_rows(self.params, np.asarray(self.sizes, dtype=np.int64), x, y)
        return y

    def loss_and_grad(self, x, target, weight=None):
        """Weighted squared error and its gradient with respect to the flat parameters.

        .. math:: L = \\frac{\\sum_i w_i (v_\\theta(x_i) - t_i)^2}{\\sum_i w_i}

        which is eq. (4) when ``w_i = n(s_i)`` over the whole table (and its unbiased
        mini-batch estimate when the rows are state occurrences sampled with ``w_i = 1``).
        The sums run in a fixed order (:func:`gamelib.games.othello.mlp_kernels.loss_and_grad`), so
        the result is the same on every CPU.

        Returns
        -------
        loss : float
        grad : ndarray, same shape and dtype as :attr:`params`
        """
        x = self._inputs(x)
        target = np.ascontiguousarray(target, dtype=np.float64).reshape(-1)
        weight = (np.ones_like(target) if weight is None
                  else np.ascontiguousarray(weight, dtype=np.float64).reshape(-1))
        if not (x.shape[0] == target.size == weight.size):
            raise ValueError(f"batch sizes differ: x {x.shape[0]}, target {target.size}, "
                             f"weight {weight.size}")
        if not weight.sum() > 0:
            raise ValueError("weights must have a positive sum")
        grad = np.empty_like(self.params)
        loss = _k.loss_and_grad(self.params, np.asarray(self.sizes, dtype=np.int64), x, target,
                                weight, grad)
        return float(loss), grad

    def predict(self, black, white, batch_size: int = 65536) -> np.ndarray:
        """:math:`v_\\theta(s)`, the probability that Black wins, for boards ``(black, white)``.

        The values equal :func:`mlp_value`'s bit for bit (the same kernel).
        """
        black = np.asarray(black, dtype=np.uint64).reshape(-1)
        white = np.asarray(white, dtype=np.uint64).reshape(-1)
        out = np.empty(black.size, dtype=np.float64)
        buf = np.empty((min(batch_size, max(black.size, 1)), self.sizes[0]), self.params.dtype)
        for start in range(0, black.size, batch_size):
            stop = min(start + batch_size, black.size)
            x = encode_states(black[start:stop], white[start:stop], self.encoding, out=buf)
            out[start:stop] = self.forward(x)
        return out

    # --- numba view --------------------------------------------------------------------------
    def kernel_args(self):
        """``(params, sizes, encoding_code)``: the arguments :func:`mlp_value` takes."""
        return (np.ascontiguousarray(self.params, dtype=np.float32),
                np.asarray(self.sizes, dtype=np.int64), ENCODINGS[self.encoding])

    # --- persistence -------------------------------------------------------------------------
    def save(self, path) -> Path:
        """Write the network as ``.npz`` (format name, version, sizes, encoding, parameters).

        The file is written to a temporary name and renamed, so a crash leaves no partial file.
        """
        path = Path(path)
        arrays = {
            "format": np.array(FORMAT_NAME), "version": np.array(FORMAT_VERSION),
            "sizes": np.asarray(self.sizes, dtype=np.int64), "encoding": np.array(self.encoding),
            "params": self.params, "metadata": np.array(json.dumps(self.metadata, sort_keys=True)),
        }
        save_npz_atomic(path, arrays)
        return path

    @classmethod
    def load(cls, path) -> "MLP":
        """Read a network written by :meth:`save`; a wrong or damaged file raises ``ValueError``."""
        path = Path(path)
        try:
            data = load_npz(path)
        except ValueError as exc:
            raise ValueError(f"cannot read MLP file {path}: {exc}") from exc
        missing = {"format", "version", "sizes", "encoding", "params"} - set(data)
        if missing:
            raise ValueError(f"{path} is not an MLP file: missing {sorted(missing)}")
        if str(data["format"]) != FORMAT_NAME:
            raise ValueError(f"{path} has format {str(data['format'])!r}, expected {FORMAT_NAME!r}")
        if int(data["version"]) != FORMAT_VERSION:
            raise ValueError(f"{path} has layout version {int(data['version'])}; this gamelib "
                             f"reads version {FORMAT_VERSION}")
        meta = json.loads(str(data["metadata"])) if "metadata" in data else {}
        try:
            return cls(tuple(data["sizes"].tolist()), data["params"], str(data["encoding"]), meta)
        except ValueError as exc:
            raise ValueError(f"bad MLP file {path}: {exc}") from exc


# --- numba forward pass for the search --------------------------------------------------------

@njit(cache=True)
def mlp_value(params, sizes, code, black, white):
    """:math:`v_\\theta(s)` of one board, for use inside numba code (the search).

    Parameters
    ----------
    params : float32[:]
        Flat parameter vector (see :meth:`MLP.kernel_args`).
    sizes : int64[:]
        Layer widths.
    code : int
        Input encoding code (:data:`ENCODINGS`).
    black, white : uint64
        Bitboards of the black and white discs.

    Returns
    -------
    float
        The probability that Black wins: the same kernel as :meth:`MLP.predict`, so the same
        bits (empty squares and inactive ReLU units are skipped, see
        :mod:`gamelib.games.othello.mlp_kernels`).
    """
    hidden = 0
    width = sizes[0]
    for k in range(1, sizes.shape[0]):
        hidden += sizes[k]
        width = max(width, sizes[k])
    x = np.empty((1, sizes[0]), dtype=params.dtype)
    _k.encode_row(black, white, code, x[0])
    return _k.forward_row(params, sizes, x, 0, np.empty((1, hidden), dtype=params.dtype), 0,
                          np.empty(width, dtype=np.int64))


# --- gradient check ---------------------------------------------------------------------------

def gradient_check(mlp: MLP, x, target, weight=None, eps: float = 1e-6, n_checks: int | None = None,
                   seed: int = 0) -> float:
    """Relative error of :meth:`MLP.loss_and_grad` against central finite differences.

    .. math:: \\frac{\\max_i |g_i - \\hat g_i|}{\\max_i |g_i|}, \\qquad
              \\hat g_i = \\frac{L(\\theta + \\epsilon e_i) - L(\\theta - \\epsilon e_i)}{2 \\epsilon}

    (errors are measured against the largest gradient entry, because the round-off of the
    finite difference, about ``1e-16 * L / eps``, swamps the relative error of tiny entries).
    Run it on a float64 network (``mlp.astype(np.float64)``); errors of order 1e-8 or below mean
    the backward pass is right, a wrong formula gives errors of order 1e-2 or more.

    Parameters
    ----------
    mlp : MLP
    x, target, weight : arrays
        A batch, as for :meth:`MLP.loss_and_grad`.
    eps : float
        Finite-difference step.
    n_checks : int, optional
        Check this many randomly chosen parameters (default: all).
    seed : int
        Seed of that choice.
    """
    if mlp.params.dtype != np.float64:
        raise ValueError("gradient_check needs a float64 network: use mlp.astype(np.float64)")
    _, grad = mlp.loss_and_grad(x, target, weight)
    idx = np.arange(mlp.n_params)
    if n_checks is not None and n_checks < mlp.n_params:
        idx = np.random.default_rng(seed).choice(mlp.n_params, n_checks, replace=False)
    probe = mlp.copy()
    worst = 0.0
    for i in idx:
        old = probe.params[i]
        probe.params[i] = old + eps
        up, _ = probe.loss_and_grad(x, target, weight)
        probe.params[i] = old - eps
        down, _ = probe.loss_and_grad(x, target, weight)
        probe.params[i] = old
        worst = max(worst, abs((up - down) / (2 * eps) - grad[i]))
    return worst / max(np.abs(grad[idx]).max(), np.finfo(np.float64).tiny)


# --- training ---------------------------------------------------------------------------------

def _int_power(base: float, n: int) -> float:
    """``base ** n`` for an integer ``n >= 0`` by repeated squaring (IEEE products only)."""
    result = 1.0
    while n:
        if n & 1:
            result *= base
        base *= base
        n >>= 1
    return result


class Adam:
    """Adam optimiser (Kingma & Ba) on a flat parameter vector, updated in place."""

    def __init__(self, n_params: int, lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, dtype=np.float32):
        if not lr > 0:
            raise ValueError(f"learning rate must be positive, got {lr}")
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = np.zeros(n_params, dtype=dtype)
        self.v = np.zeros(n_params, dtype=dtype)
        self.t = 0

    def step(self, params: np.ndarray, grad: np.ndarray) -> None:
        """One update (element-wise in a numba kernel; the powers ``beta ** t`` by repeated
        squaring, not by the C library's ``pow``, whose last bit depends on the CPU)."""
        self.t += 1
        lr_t = (self.lr * math.sqrt(1 - _int_power(self.beta2, self.t))
                / (1 - _int_power(self.beta1, self.t)))
        f = self.m.dtype.type
        _k.adam_step(params, grad, self.m, self.v, f(self.beta1), f(1 - self.beta1), f(self.beta2),
                     f(1 - self.beta2), f(lr_t), f(self.eps))

    def state(self) -> dict:
        return {"adam_m": self.m, "adam_v": self.v, "adam_t": np.array(self.t)}

    def set_state(self, state: dict) -> None:
        self.m[...] = state["adam_m"]
        self.v[...] = state["adam_v"]
        self.t = int(state["adam_t"])


@dataclass
class TrainingHistory:
    """Per-epoch eq. (4) losses on the training table and (optionally) a validation table."""

    epoch: list = field(default_factory=list)
    train_loss: list = field(default_factory=list)
    val_loss: list = field(default_factory=list)
    samples: int = 0

    def as_frame(self):
        import pandas as pd

        data = {"epoch": self.epoch, "train_wmse": self.train_loss}
        if self.val_loss:
            data["val_wmse"] = self.val_loss
        return pd.DataFrame(data)


def _table_arrays(table):
    """``(black, white, v, n)`` arrays of a value table (DataFrame or ValueTable)."""
    frame = getattr(table, "frame", table)
    missing = {"black", "white", "n", "wins"} - set(frame.columns)
    if missing:
        raise ValueError(f"value table lacks columns {sorted(missing)}")
    n = frame["n"].to_numpy(np.int64)
    return (frame["black"].to_numpy(np.uint64), frame["white"].to_numpy(np.uint64),
            frame["wins"].to_numpy(np.float64) / n, n)


def table_loss(mlp: MLP, table, batch_size: int = 65536) -> float:
    """Eq. (4) of ``mlp`` on a whole value table."""
    black, white, v, n = _table_arrays(table)
    return weighted_mse(mlp.predict(black, white, batch_size), v, n)


def reliability(pred, table, bins: int = 10) -> "pandas.DataFrame":
    """Reliability diagram (calibration) of win probabilities against a value table.

    Every state ``s`` of ``table`` counts with its ``n(s)`` occurrences. States are grouped by
    their prediction into ``bins`` equal-width bins of [0, 1]; per bin the table gives the mean
    prediction and the observed frequency of Black wins, :math:`\\sum \\mathrm{wins} / \\sum n`.
    A calibrated model has both equal.

    Parameters
    ----------
    pred : array_like
        Predicted :math:`v_\\theta(s)` for the rows of ``table``.
    table : ValueTable or DataFrame
    bins : int

    Returns
    -------
    DataFrame
        Columns ``lo``, ``hi``, ``n`` (occurrences), ``states`` (distinct), ``mean_pred``,
        ``observed`` (NaN for an empty bin). ``attrs["ece"]`` holds the expected calibration
        error :math:`\\sum_b (n_b / N) |\\bar v_b - o_b|`.
    """
    import pandas as pd

    _, _, v, n = _table_arrays(table)
    wins = v * n
    pred = np.asarray(pred, dtype=np.float64)
    if pred.shape != n.shape:
        raise ValueError(f"{pred.size} predictions for a table of {n.size} states")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    edges = np.linspace(0.0, 1.0, bins + 1)
    idx = np.clip(np.searchsorted(edges, pred, side="right") - 1, 0, bins - 1)
    tot_n = np.bincount(idx, weights=n, minlength=bins)
    states = np.bincount(idx, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_pred = np.bincount(idx, weights=pred * n, minlength=bins) / tot_n
        observed = np.bincount(idx, weights=wins, minlength=bins) / tot_n
    out = pd.DataFrame({"lo": edges[:-1], "hi": edges[1:], "n": tot_n.astype(np.int64),
                        "states": states, "mean_pred": mean_pred, "observed": observed})
    filled = tot_n > 0
    out.attrs["ece"] = float(np.sum(tot_n[filled] * np.abs(mean_pred - observed)[filled])
                             / tot_n.sum())
    return out


def train(mlp: MLP, table, epochs: int = 1, batch_size: int = 256, lr: float = 1e-3,
          seed: int = 0, val_table=None, checkpoint=None, progress: bool = True,
          eval_batch_size: int = 65536) -> TrainingHistory:
    """Fit ``mlp`` (in place) to a value table by Adam on eq. (4).

    One epoch visits every state **occurrence** once, in a random order: state ``s`` appears
    ``n(s)`` times with target ``v(s)``. The plain mean squared error of such a mini-batch is an
    unbiased estimate of eq. (4), with far less variance than weighting distinct states by
    ``n(s)/N`` (the state after the first move alone carries about 1/60 of the total weight).

    Parameters
    ----------
    mlp : MLP
        Network to train; its parameters are updated in place.
    table : ValueTable or DataFrame
        Training table with columns ``black``, ``white``, ``n``, ``wins``.
    epochs, batch_size, lr : int, int, float
        Number of passes over the occurrences, mini-batch size, Adam step size.
    seed : int
        The order of epoch ``e`` is drawn from ``(seed, e)``, so training is reproducible and a
        resumed run continues exactly as an uninterrupted one.
    val_table : ValueTable or DataFrame, optional
        Held-out table; its eq. (4) loss is recorded after every epoch.
    checkpoint : path, optional
        ``.npz`` file rewritten atomically after every epoch (parameters, Adam state, history).
        If it exists when training starts, training resumes from it.
    progress : bool
        Show a tqdm progress bar over mini-batches.
    eval_batch_size : int
        Batch size of the end-of-epoch evaluation.

    Returns
    -------
    TrainingHistory
    """
    if epochs < 0 or batch_size < 1:
        raise ValueError(f"need epochs >= 0 and batch_size >= 1, got {epochs}, {batch_size}")
    black, white, v, n = _table_arrays(table)
    if black.size == 0:
        raise ValueError("training table is empty")
    dtype = mlp.params.dtype
    occurrences = np.repeat(np.arange(black.size, dtype=np.int64), n)
    opt = Adam(mlp.n_params, lr=lr, dtype=dtype)
    history = TrainingHistory()
    run = {"seed": seed, "lr": lr, "batch_size": batch_size, "sizes": list(mlp.sizes),
           "encoding": mlp.encoding, "table_states": int(n.sum()), "table_rows": int(n.size)}
    start_epoch = 0
    if checkpoint is not None and Path(checkpoint).exists():
        start_epoch = _resume(Path(checkpoint), run, mlp, opt, history)
    buf = np.empty((batch_size, mlp.sizes[0]), dtype=dtype)
    steps = -(-occurrences.size // batch_size)
    bar = None
    if progress and epochs > start_epoch:
        from tqdm.auto import tqdm

        bar = tqdm(total=(epochs - start_epoch) * steps, desc="MLP training", unit="batch")
    for epoch in range(start_epoch, epochs):
        order = np.random.default_rng([seed, epoch]).permutation(occurrences)
        for start in range(0, order.size, batch_size):
            idx = order[start:start + batch_size]
            x = encode_states(black[idx], white[idx], mlp.encoding, out=buf)
            _, grad = mlp.loss_and_grad(x, v[idx])
            opt.step(mlp.params, grad)
            if bar is not None:
                bar.update(1)
        history.epoch.append(epoch + 1)
        history.train_loss.append(weighted_mse(mlp.predict(black, white, eval_batch_size),
                                               v, n))
        if val_table is not None:
            history.val_loss.append(table_loss(mlp, val_table, eval_batch_size))
        history.samples += order.size
        if checkpoint is not None:
            _save_checkpoint(Path(checkpoint), run, mlp, opt, history)
    if bar is not None:
        bar.close()
    return history


def _save_checkpoint(path, run, mlp, opt, history):
    hist = {"epoch": history.epoch, "train_loss": history.train_loss,
            "val_loss": history.val_loss, "samples": history.samples}
    save_npz_atomic(path, {"params": mlp.params, **opt.state(), "run": np.array(json.dumps(run)),
                           "history": np.array(json.dumps(hist))})


def _resume(path, want, mlp, opt, history) -> int:
    try:
        data = load_npz(path)
        run = json.loads(str(data["run"]))
        hist = json.loads(str(data["history"]))
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise ValueError(f"cannot resume from checkpoint {path}: {exc}") from exc
    if run != want:
        raise ValueError(f"checkpoint {path} belongs to another run ({run}); this run is {want}")
    mlp.params[...] = data["params"]
    opt.set_state(data)
    history.epoch[:] = hist["epoch"]
    history.train_loss[:] = hist["train_loss"]
    history.val_loss[:] = hist["val_loss"]
    history.samples = hist["samples"]
    return len(history.epoch)
