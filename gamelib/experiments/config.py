"""The typed configuration every experiment's run is made with: one frozen dataclass per
experiment, made and validated as a whole once, that reads as the plain sizes its
``provenance.json`` stores.

An experiment declares its sizes as the fields of a frozen dataclass deriving from
:class:`ExperimentConfig` and checks every field and every relation between fields in its
``__post_init__`` (``ValueError`` naming the field and the problem), so that constructing it
directly, with :func:`dataclasses.replace` or with :meth:`ExperimentConfig.of` validates it the
same way. :meth:`~ExperimentConfig.of` is the one constructor from sizes -- a profile with the
command line's overrides (the registry's ``check``), a notebook's parameters, or the sizes a
finished run stored -- and returns a configuration it is given unchanged.

The mapping view (``config["n_games"]``, ``dict(config)``, :meth:`~ExperimentConfig.as_dict`)
is the stored form: the fields in their declared order, lists for the tuples, the values as
given, so that ``Config.of(stored).as_dict() == stored`` for every run made since the last
field was added (sizes added later read as the runs that predate them were made: the class's
``LATER_DEFAULTS``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, ClassVar, Iterator

__all__ = ["ExperimentConfig", "below_cap", "choices", "increasing_integers", "distinct_numbers"]


class ExperimentConfig(Mapping):
    """Base of an experiment's typed configuration (derive a ``@dataclass(frozen=True)``).

    Class attributes
    ----------------
    EXPERIMENT : str
        The experiment's name, for the messages.
    LATER_DEFAULTS : mapping
        ``{size: value}`` for the sizes that runs made before they existed lack: the value that
        reads those runs as they were made.
    IMPLICIT : mapping
        ``{size: value}``: a size at this value is left out of the mapping view (the stored
        form), so that the runs made before it existed are stored as they were (e.g. the
        PGLeaf experiment's ``game``, 5×5 shogi unless said); a size here must also be in
        ``LATER_DEFAULTS`` with the same value.
    """

    EXPERIMENT: ClassVar[str] = "experiment"
    LATER_DEFAULTS: ClassVar[Mapping[str, Any]] = {}
    IMPLICIT: ClassVar[Mapping[str, Any]] = {}

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every size, in the order of the fields (the order of the mapping view)."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, sizes: Mapping[str, Any]):
        """The configuration of ``sizes`` (a configuration of this class is returned as it is).

        Raises
        ------
        ValueError
            Naming the sizes: not a mapping, unknown or missing sizes, a bad value or sizes that
            do not fit together (the class's own checks).
        """
        if isinstance(sizes, cls):
            return sizes
        if not isinstance(sizes, Mapping):
            raise ValueError(f"the {cls.EXPERIMENT} experiment's sizes must be a mapping, got "
                             f"{sizes!r}")
        names = cls.names()
        unknown = sorted(set(sizes) - set(names))
        if unknown:
            raise ValueError(f"unknown size(s) {unknown} for the {cls.EXPERIMENT} experiment; "
                             f"known: {', '.join(names)}")
        values = {**cls.LATER_DEFAULTS, **sizes}
        missing = [name for name in names if name not in values]
        if missing:
            raise ValueError(f"missing size(s) {missing} for the {cls.EXPERIMENT} experiment")
        return cls(**values)

    def _set(self, name: str, value) -> None:
        """Store a field's checked (normalised) value in ``__post_init__``."""
        object.__setattr__(self, name, value)

    # the mapping view: the stored (provenance) form of the sizes
    def _stored(self) -> tuple[str, ...]:
        return tuple(k for k in self.names()
                     if k not in self.IMPLICIT or getattr(self, k) != self.IMPLICIT[k])

    def __getitem__(self, key: str) -> Any:
        if key not in self._stored():
            raise KeyError(key)
        value = getattr(self, key)
        return list(value) if isinstance(value, tuple) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._stored())

    def __len__(self) -> int:
        return len(self._stored())

    def as_dict(self) -> dict:
        """The sizes as plain JSON values, as ``provenance.json`` stores them."""
        return dict(self)


def below_cap(config: ExperimentConfig, name: str, cap: int, what: str) -> None:
    """``ValueError`` unless the plies ``config.<name>`` (random opening plies) end before the
    cap of ``cap`` plies of ``what`` (e.g. "the matches'"): a game must have a move after its
    opening."""
    value = getattr(config, name)
    if value >= cap:
        raise ValueError(f"{name} ({value}) must be below {what} cap of {cap} plies")


def choices(name: str, value, valid) -> tuple:
    """``value`` as a tuple if it is a non-empty list of distinct values of ``valid``."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value \
            or any(x not in valid for x in value) or len(set(value)) != len(value):
        raise ValueError(f"{name} must be a non-empty list of distinct values from "
                         f"{list(valid)}, got {value!r}")
    return tuple(value)


def increasing_integers(name: str, value, low: int) -> tuple:
    """``value`` as a tuple if it is a non-empty list of increasing integers >= ``low``."""
    if not isinstance(value, (list, tuple)) or not value or any(
            isinstance(v, bool) or not isinstance(v, int) or v < low for v in value):
        raise ValueError(f"{name} must be a non-empty list of integers >= {low}, got {value!r}")
    if list(value) != sorted(set(value)):
        raise ValueError(f"{name} must be increasing without repeats, got {value!r}")
    return tuple(value)


def distinct_numbers(name: str, value, low: float, high: float = math.inf) -> tuple:
    """``value`` as a tuple if it is a non-empty list of distinct finite real numbers in
    ``[low, high]`` (kept as given: ``0`` stays an ``int``)."""
    if not isinstance(value, (list, tuple)) or not value or any(
            isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x)
            or not low <= x <= high for x in value):
        where = f">= {low:g}" if high == math.inf else f"in [{low:g}, {high:g}]"
        raise ValueError(f"{name} must be a non-empty list of numbers {where}, got {value!r}")
    if len(set(float(x) for x in value)) != len(value):
        raise ValueError(f"{name} must be distinct, got {value!r}")
    return tuple(value)
