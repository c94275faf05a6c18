"""Fixtures of the search tests: middle-game positions from seeded random playouts, parameters."""

from __future__ import annotations

import pytest
from search_positions import playout_positions

from gamelib.games.minishogi import features as ev


@pytest.fixture(scope="session")
def positions():
    return playout_positions(2024, 12)


@pytest.fixture(scope="session")
def theta():
    """Table-1 material plus clearly non-zero random weights elsewhere (few ties)."""
    return ev.initial_theta(7, scale=0.01)
