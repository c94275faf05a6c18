"""Fixtures of the evaluation tests."""

import pytest
from eval_positions import random_positions


@pytest.fixture(scope="session")
def positions() -> list[str]:
    """SFENs of 400 positions of seeded random games."""
    return random_positions(400, seed=2024)
