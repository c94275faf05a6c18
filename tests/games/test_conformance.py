"""Every registered game passes the protocol's conformance suite (in the spirit of pgx's api_test).

On the positions of seeded random playouts (the generic playout of gamelib.games.playout):
the legal moves are the oracle's, none twice, ``count_moves`` counts them and the quiescence
moves are among them; ``outcome`` ends the game exactly where the oracle does, with its result
from the side to move's view, and never while a move is left (``in_check`` as the oracle's);
every move made and taken back restores the live state and the key exactly, the side to move
alternates, and the incrementally kept key equals the key computed from scratch; the features
are distinct, in range and non-zero, and θ·φ reproduces the game's evaluation; the learners'
kernels give the features in any order and the evaluation bit for bit, ``room`` counts the
plies left, the prepared weights evaluate as θ, the shaping bonus is counted only where the game
has one; a state copied with room is the same state, and every legal move's text parses back to
it; the generic
perft gives the published numbers from the start position and the oracle's and the game's own
perft elsewhere.

Every check is shown to fail: a game whose adapter is broken in one kernel (or one constant)
fails the check that covers it (``test_a_broken_adapter_fails_its_check``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from numba import njit

from game_oracles import ORACLES
from gamelib.games.minishogi import game as gms
from gamelib.games.othello import game as gos
from gamelib.games import registry
from gamelib.games.perft import perft
from gamelib.games.playout import random_playout
from gamelib.games.protocol import (CONSTANTS, DRAW, EVAL_LINEAR, KERNELS, LOSS, ONGOING, PYTHON,
                                    WIN, game_from_module)

GAMES = registry.names()
#: Playouts per game: (seeds, maximum plies, every how many plies a position is checked).
PLAYOUTS = {"minishogi": (range(6), 160, 3), "othello": (range(6), 200, 2)}


# --------------------------------------------------------------------------- samples
def playouts(game, seeds, max_plies):
    """Seeded random games of ``game`` from the start: their move lists."""
    games = []
    for seed in seeds:
        s = game.start(max_plies + 8)
        _, moves = random_playout(game, s, seed, max_plies)
        games.append(moves)
    return games


def positions(game, games, every):
    """(state, moves from the start) every ``every`` plies of each game and at its end,
    replayed with ``game``'s own ``make_move``."""
    out = []
    for moves in games:
        s = game.start(len(moves) + 8)
        for k in range(len(moves) + 1):
            if k % every == 0 or k == len(moves):
                out.append((s.copy(), moves[:k]))
            if k < len(moves):
                game.make_move(s, moves[k])
    return out


@pytest.fixture(scope="module")
def samples():
    """Game name -> its sampled positions (the healthy game's playouts)."""
    out = {}
    for name in GAMES:
        seeds, max_plies, every = PLAYOUTS[name]
        game = registry.get(name)
        out[name] = positions(game, playouts(game, seeds, max_plies), every)
    return out


def _moves(game, s):
    buf = np.empty(2 * game.MAX_MOVES, dtype=np.int32)
    n = int(game.gen_moves(s, buf, 0))
    return [int(m) for m in buf[:n]], buf


# --------------------------------------------------------------------------- the checks
def check_moves(game, oracle, sample):
    """Legal moves are the oracle's, each once; count_moves counts them; noisy ⊆ legal."""
    for s, _ in sample:
        moves, buf = _moves(game, s)
        assert len(moves) <= game.MAX_MOVES
        assert len(moves) == len(set(moves)), f"{game.name}: a move twice in {moves}"
        assert int(game.count_moves(s, buf, 0)) == len(moves), f"{game.name}: count_moves"
        assert {oracle.name_of(s, m) for m in moves} == oracle.legal_names(s), f"{game.name}: legal moves"
        n = int(game.gen_noisy(s, buf, 0))
        assert set(int(m) for m in buf[:n]) <= set(moves), f"{game.name}: a noisy move is not legal"


def check_outcome(game, oracle, sample):
    """The game ends where the oracle ends it, with its result for the side to move."""
    buf = np.empty(2 * game.MAX_MOVES, dtype=np.int32)
    ended = 0
    for s, history in sample:
        r = int(game.outcome(s, buf, 0))
        assert r in (ONGOING, WIN, DRAW, LOSS)
        assert r == oracle.outcome(s, history), f"{game.name}: outcome after {len(history)} plies"
        assert bool(game.in_check(s)) == oracle.in_check(s, history), f"{game.name}: in_check"
        if not _moves(game, s)[0]:
            assert r != ONGOING, f"{game.name}: no move but the game goes on"
        ended += r != ONGOING
    return ended


def check_round_trips(game, oracle, sample):
    """make/unmake of every legal move restores the live state and the key exactly; the key
    kept incrementally is the key from scratch; the side to move alternates."""
    for s, _ in sample:
        s = s.copy()
        assert int(game.hash_key(s)) == int(game.hash_from_scratch(s)), f"{game.name}: key"
        live = int(game.live_length(s))
        before, key = s[:live].copy(), int(game.hash_key(s))
        ply, side = int(game.game_ply(s)), int(game.side_to_move(s))
        for m in _moves(game, s)[0]:
            game.make_move(s, m)
            assert int(game.game_ply(s)) == ply + 1 and int(game.side_to_move(s)) == 1 - side
            assert int(game.hash_key(s)) == int(game.hash_from_scratch(s)), f"{game.name}: key after {m}"
            game.unmake_move(s)
            assert int(game.live_length(s)) == live
            assert np.array_equal(s[:live], before), f"{game.name}: unmake of {m}"
            assert int(game.hash_key(s)) == key, f"{game.name}: key after unmake of {m}"


def check_features(game, oracle, sample, rng):
    """φ's indices distinct and in range, values non-zero; θ·φ = evaluate(s, θ) (to rounding),
    and the game's own evaluation where it has one apart from the adapter (exactly)."""
    theta = oracle.theta(rng)
    assert theta.shape == (game.N_FEATURES,)
    idx = np.empty(game.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(game.MAX_ACTIVE, dtype=np.float64)
    for s, _ in sample:
        n = int(game.features(s, idx, val))
        assert 0 < n <= game.MAX_ACTIVE
        i, v = idx[:n].astype(np.int64), val[:n]
        assert len(set(i.tolist())) == n and i.min() >= 0 and i.max() < game.N_FEATURES
        assert np.all(v != 0.0)
        value = float(game.evaluate(s, theta))
        terms = theta[i] * v
        assert abs(value - sum(terms.tolist())) <= 1e-12 * (1.0 + np.abs(terms).sum()), \
            f"{game.name}: θ·φ {sum(terms.tolist())} != evaluate {value}"
        own = oracle.own_evaluate(s, theta)
        assert own is None or own == value, f"{game.name}: own evaluation {own} != {value}"


def check_learner_kernels(game, oracle, sample, rng):
    """``leaf_features`` gives the entries of ``features`` (in any order) and leaves its scratch
    zeroed; ``evaluate_and_features`` gives the same entries and ``evaluate``'s value bit for
    bit; ``room`` counts down by one with each move made and back with each taken back."""
    theta = oracle.theta(rng)
    idx = np.empty(game.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(game.MAX_ACTIVE, dtype=np.float64)
    idx2 = np.empty(game.MAX_ACTIVE, dtype=np.int32)
    val2 = np.empty(game.MAX_ACTIVE, dtype=np.float64)
    scratch = np.zeros(game.N_FEATURES, dtype=np.int32)
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    for s, _ in sample:
        n = int(game.features(s, idx, val))
        want = sorted(zip(idx[:n].tolist(), val[:n].tolist()))
        k = int(game.leaf_features(s, idx2, val2, scratch))
        assert sorted(zip(idx2[:k].tolist(), val2[:k].tolist())) == want, \
            f"{game.name}: leaf_features are not the features"
        assert not scratch.any(), f"{game.name}: leaf_features left its scratch dirty"
        k, v = game.evaluate_and_features(s, theta, idx2, val2, scratch)
        assert sorted(zip(idx2[:int(k)].tolist(), val2[:int(k)].tolist())) == want, \
            f"{game.name}: evaluate_and_features' entries are not the features"
        assert float(v) == float(game.evaluate(s, theta)), \
            f"{game.name}: evaluate_and_features' value {float(v)!r} is not evaluate's"
        assert not scratch.any(), f"{game.name}: evaluate_and_features left its scratch dirty"
        room = int(game.room(s))
        assert room >= 0, f"{game.name}: room {room} < 0"
        if room > 0 and int(game.gen_moves(s, buf, 0)) > 0:
            game.make_move(s, int(buf[0]))
            assert int(game.room(s)) == room - 1, f"{game.name}: room after a move"
            game.unmake_move(s)
            assert int(game.room(s)) == room, f"{game.name}: room after unmake"
    fresh = game.start(40)
    assert int(game.room(fresh)) >= 40, f"{game.name}: room of start(40) is {int(game.room(fresh))}"
    weights = np.zeros(game.N_WEIGHTS)
    weights[:game.N_FEATURES] = theta
    game.prepare_weights(weights)
    assert np.array_equal(weights[:game.N_FEATURES], theta), f"{game.name}: prepare_weights changed θ"
    counts = np.zeros(2, dtype=np.int64)
    for s, _ in sample:
        assert float(game.evaluate(s, weights)) == float(game.evaluate(s, theta)), \
            f"{game.name}: the prepared weights evaluate otherwise"
        game.bonus_counts(s, counts)
        assert counts.min() >= 0 and (game.HAS_BONUS or not counts.any()), \
            f"{game.name}: bonus_counts {counts.tolist()} (HAS_BONUS {game.HAS_BONUS})"
    if game.TEMPO_INDEX >= 0:
        for s, _ in sample:
            n = int(game.features(s, idx, val))
            assert game.TEMPO_INDEX in idx[:n].tolist(), f"{game.name}: a position without the tempo feature"


def check_python_functions(game, oracle, sample):
    """``with_room`` copies the position and its history with the room asked for; every legal
    move's ``move_text`` parses back to it (``parse_move``), and text that is no legal move is
    refused with a ValueError."""
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    for s, _ in sample:
        live = int(game.live_length(s))
        w = game.with_room(s, 60)
        assert w is not s and int(game.room(w)) >= 60, f"{game.name}: with_room's room"
        assert np.array_equal(w[:live], s[:live]) and int(game.hash_key(w)) == int(game.hash_key(s)), \
            f"{game.name}: with_room changed the state"
        n = int(game.gen_moves(s, buf, 0))
        for m in buf[:n].tolist():
            text = game.move_text(m)
            assert game.parse_move(s, text) == m, f"{game.name}: move text {text!r} of {m} parses otherwise"
        for bad in ("", "zz9", "??"):
            with pytest.raises(ValueError):
                game.parse_move(s, bad)
    first = game.initial_theta(3, 1e-4)
    assert first.shape == (game.N_FEATURES,) and np.array_equal(first, game.initial_theta(3, 1e-4))
    assert not np.array_equal(first, game.initial_theta(4, 1e-4)), f"{game.name}: initial_theta ignores its seed"
    checked = game.check_theta(first.astype(np.float32), "θ")
    assert checked.dtype == np.float64 and checked.flags.c_contiguous and np.array_equal(
        checked, first.astype(np.float32)), f"{game.name}: check_theta changed the parameters"
    broken_thetas = {"a vector of another length": first[:-1], "a matrix": first[None, :],
                     "text": np.array(["1"] * game.N_FEATURES), "a NaN": np.where(
                         np.arange(game.N_FEATURES) == 0, np.nan, first)}
    for what, bad in broken_thetas.items():
        try:
            game.check_theta(bad, "θ")
        except ValueError as err:
            assert str(err).startswith("θ "), f"{game.name}: check_theta's message {err} does not name θ"
        else:
            raise AssertionError(f"{game.name}: check_theta accepts {what}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "theta.npz"
        game.save_theta(path, first)
        assert np.array_equal(game.load_theta(path), first), f"{game.name}: a parameter file reads back otherwise"
        for other in registry.names():
            if other != game.name:
                registry.get(other).save_theta(path, registry.get(other).initial_theta(0, 1e-4))
                with pytest.raises(ValueError, match="layout"):
                    game.load_theta(path)


def check_search_kernels(game, oracle, sample, rng):
    """The kernels of searches: ``has_moves`` is ``gen_moves``'s n > 0; a move's ``order_key``
    is 0 exactly for the quiet moves and in [2**35, 2**40) otherwise, every noisy move is not
    quiet; ``move_code`` tells the moves of a position apart within [0, 2**16) and
    ``move_index`` lies in [0, MOVE_INDEX_SIZE); ``history_key(s, p)`` is the key after ``p``
    plies and ``plies_made`` counts them; ``repetition`` of a position before the search
    (``root_ply`` past the history) is the rules' outcome wherever a move is left (the only
    other way a game ends), and never ends a game without ``HAS_REPETITION``;
    ``evaluate_kind(EVAL_LINEAR)`` is ``evaluate``; ``pack_position`` is equal exactly for equal
    positions (keys from scratch) and generations."""
    theta = oracle.theta(rng)
    packs = {}
    for s, history in sample:
        moves, buf = _moves(game, s)
        assert bool(game.has_moves(s, buf, 0)) == (len(moves) > 0), f"{game.name}: has_moves"
        n = int(game.gen_noisy(s, buf, 0))
        noisy = {int(m) for m in buf[:n]}
        codes = set()
        for m in moves:
            key, quiet = int(game.order_key(s, m)), bool(game.is_quiet(m))
            assert (key == 0) == quiet and (key == 0 or 2**35 <= key < 2**40), f"{game.name}: order_key of {m}"
            assert m not in noisy or not quiet, f"{game.name}: a noisy move is quiet"
            codes.add(int(game.move_code(m)))
            assert 0 <= int(game.move_index(m)) < game.MOVE_INDEX_SIZE, f"{game.name}: move_index"
        assert len(codes) == len(moves) and all(0 <= c < 2**16 for c in codes), f"{game.name}: move_code"
        r = int(game.outcome(s, buf, 0))
        rep = int(game.repetition(s, int(game.plies_made(s)) + 1))
        assert rep == (r if moves and game.HAS_REPETITION else ONGOING), f"{game.name}: repetition"
        assert float(game.evaluate_kind(s, theta, EVAL_LINEAR)) == float(game.evaluate(s, theta)), \
            f"{game.name}: evaluate_kind"
        words = tuple(int(w) for w in game.pack_position(s, 3))
        key = int(game.hash_from_scratch(s))
        assert packs.setdefault(key, words) == words, f"{game.name}: pack_position of one position"
        assert tuple(int(w) for w in game.pack_position(s, 4)) != words, f"{game.name}: pack_position's generation"
    assert len(set(packs.values())) == len(packs), f"{game.name}: pack_position of two positions"
    for moves in _histories(sample)[:3]:
        s = game.start(len(moves) + 8)
        keys = [int(game.hash_key(s))]
        for m in moves:
            game.make_move(s, m)
            keys.append(int(game.hash_key(s)))
        assert int(game.plies_made(s)) == len(moves), f"{game.name}: plies_made"
        assert [int(game.history_key(s, p)) for p in range(len(moves) + 1)] == keys, f"{game.name}: history_key"


def check_perft_start(game, oracle, deepest):
    """The generic perft of the start position gives the published numbers."""
    s = game.start(64)
    for depth, leaves in oracle.published_perft.items():
        if depth <= deepest:
            assert perft(game, s, depth) == leaves, f"{game.name}: perft({depth})"
    assert perft(game, s, 0) == 1


def check_perft_positions(game, oracle, sample, depth, own_depth):
    """The generic perft equals the oracle's (``depth``) and the game's own (``own_depth``)."""
    for s, history in sample:
        assert perft(game, s, depth) == oracle.perft(s, history, depth), f"{game.name}: perft({depth})"
        live = int(game.live_length(s))
        before = s[:live].copy()
        assert perft(game, s, own_depth) == oracle.own_perft(s, own_depth), f"{game.name}: own perft"
        assert np.array_equal(s[:live], before), f"{game.name}: perft left the state changed"


# --------------------------------------------------------------------------- the suite
@pytest.fixture(scope="module")
def oracles():
    return {name: ORACLES[name]() for name in GAMES}


def test_every_registered_game_has_an_oracle_and_playouts():
    assert len(GAMES) >= 2
    assert set(GAMES) <= set(ORACLES) and set(GAMES) <= set(PLAYOUTS)


@pytest.mark.parametrize("name", GAMES)
def test_moves_are_the_oracles(name, samples, oracles):
    check_moves(registry.get(name), oracles[name], samples[name])


@pytest.mark.parametrize("name", GAMES)
def test_outcome_is_the_oracles(name, samples, oracles):
    sample = samples[name]
    ended = check_outcome(registry.get(name), oracles[name], sample)
    assert ended >= 1   # the sample reaches ends of games (so the check can see a wrong one)


@pytest.mark.parametrize("name", GAMES)
def test_make_unmake_round_trips_and_keys(name, samples, oracles):
    check_round_trips(registry.get(name), oracles[name], samples[name])


@pytest.mark.parametrize("name", GAMES)
def test_features_reproduce_the_evaluation(name, samples, oracles):
    check_features(registry.get(name), oracles[name], samples[name], np.random.default_rng(7))


@pytest.mark.parametrize("name", GAMES)
def test_learner_kernels(name, samples, oracles):
    check_learner_kernels(registry.get(name), oracles[name], samples[name], np.random.default_rng(8))


@pytest.mark.parametrize("name", GAMES)
def test_python_functions(name, samples, oracles):
    check_python_functions(registry.get(name), oracles[name], samples[name])


@pytest.mark.parametrize("name", GAMES)
def test_search_kernels(name, samples, oracles):
    check_search_kernels(registry.get(name), oracles[name], samples[name], np.random.default_rng(11))


@pytest.mark.parametrize("name", GAMES)
def test_generic_perft_gives_the_published_numbers(name, oracles):
    check_perft_start(registry.get(name), oracles[name], deepest=10)


@pytest.mark.parametrize("name", GAMES)
def test_generic_perft_is_the_oracles_and_the_games_own(name, samples, oracles):
    sample = samples[name][1::12]
    check_perft_positions(registry.get(name), oracles[name], sample, depth=2, own_depth=4)


def test_random_playouts_are_seeded():
    game = registry.get("othello")
    one, two = (random_playout(game, game.start(), seed, 200) for seed in (5, 5))
    assert one == two and one[1] != random_playout(game, game.start(), 6, 200)[1]
    r, moves = random_playout(game, game.start(), 5, 10)
    assert r == ONGOING and moves == one[1][:10]


# --------------------------------------------------------------------------- each check can fail
def broken(name, **replace):
    """The registered game ``name`` with some kernels or constants replaced."""
    module = {"minishogi": gms, "othello": gos}[name]
    space = {k: getattr(module, k) for k in (*KERNELS, *CONSTANTS, *PYTHON)}
    space.update(replace)
    return game_from_module(f"{name}_broken", SimpleNamespace(**space))


@njit
def _drop_last(s, buf, start):
    n = gos.gen_moves(s, buf, start)
    return n - 1 if n > 1 else n


@njit
def _count_one_less(s, buf, start):
    n = gos.count_moves(s, buf, start)
    return n - 1 if n > 1 else n


@njit
def _twice(s, buf, start):
    n = gos.gen_moves(s, buf, start)
    if n > 0:
        buf[start + n] = buf[start]
        n += 1
    return n


@njit
def _count_one_more(s, buf, start):
    return gos.count_moves(s, buf, start) + 1


@njit
def _flipped_outcome(s, buf, start):
    r = gos.outcome(s, buf, start)
    return r if r == 2 else -r


@njit
def _never_ends(s, buf, start):
    return 2


@njit
def _a_feature_lost(s, idx, val):
    n = gos.features(s, idx, val)
    return n - 1


@njit
def _stale_key(s, m):
    gms.make_move(s, m)
    s[39] ^= 1   # the minishogi state's HASH entry


@njit
def _unmake_forgets_a_hand(s):
    gms.unmake_move(s)
    s[25] += 1   # sente's pawns in hand


@njit
def _illegal_noisy(s, buf, start):
    n = gms.gen_noisy(s, buf, start)
    buf[start + n] = 31 << 5   # from a drop slot that does not exist
    return n + 1


@njit
def _never_in_check(s):
    return False


@njit
def _one_more_leaf(s, buf, start):
    return gms.count_moves(s, buf, start) + (1 if gms.in_check(s) else 0)


@njit
def _quiet_captures(m):
    return True


@njit
def _code_of_square_row(m):
    return m & 7   # the file only: moves of one file share it


@njit
def _history_key_one_behind(s, p):
    return gos.history_key(s, p - 1 if p > 0 else 0)


@njit
def _pack_without_generation(s, gen):
    a, b, c = gos.pack_position(s, gen)
    return a, b, c & 1


@njit
def _leaf_features_lose_one(s, idx, val, scratch):
    return gos.leaf_features(s, idx, val, scratch) - 1


@njit
def _value_rounded_otherwise(s, theta, idx, val, scratch):
    n, v = gms.evaluate_and_features(s, theta, idx, val, scratch)
    return n, v * (1.0 + 2.0 ** -50)


@njit
def _room_never_shrinks(s):
    return 1000


@njit
def _prepare_nothing(w):
    pass


@njit
def _a_bonus_for_black(s, out):
    out[0] = 1
    out[1] = 0


def _first_legal_move(s, text):
    buf = np.empty(gos.MAX_MOVES, dtype=np.int32)
    gos.gen_moves(s, buf, 0)
    return int(buf[0])


def _accepts_anything(theta, name="theta"):
    return np.asarray(theta, dtype=np.float64)


#: case -> (game, what is replaced, the check that must fail, the start of its message).
BROKEN = {
    "othello gen_moves drops a move": (
        "othello", {"gen_moves": _drop_last, "count_moves": _count_one_less}, check_moves, "legal moves"),
    "othello gen_moves repeats a move": ("othello", {"gen_moves": _twice}, check_moves, "a move twice"),
    "othello count_moves counts one more": (
        "othello", {"count_moves": _count_one_more}, check_moves, "count_moves"),
    "othello outcome for the wrong side": (
        "othello", {"outcome": _flipped_outcome}, check_outcome, "outcome after"),
    "othello outcome never ends the game": ("othello", {"outcome": _never_ends}, check_outcome, "outcome after"),
    "othello features lose one": ("othello", {"features": _a_feature_lost}, check_features, "θ·φ"),
    "othello perft without the finished games": (
        "othello", {"PERFT_END_LEAF": 0}, check_perft_start, r"perft\(10\)"),
    "minishogi make_move leaves the key stale": (
        "minishogi", {"make_move": _stale_key}, check_round_trips, "key after"),
    "minishogi unmake_move leaves a piece in hand": (
        "minishogi", {"unmake_move": _unmake_forgets_a_hand}, check_round_trips, "unmake of"),
    "minishogi gen_noisy adds an illegal move": (
        "minishogi", {"gen_noisy": _illegal_noisy}, check_moves, "a noisy move is not legal"),
    "minishogi in_check never": ("minishogi", {"in_check": _never_in_check}, check_outcome, "in_check"),
    "minishogi captures quiet": ("minishogi", {"is_quiet": _quiet_captures}, check_search_kernels, "order_key"),
    "othello move_code of the file": (
        "othello", {"move_code": _code_of_square_row}, check_search_kernels, "move_code"),
    "othello history_key one ply behind": (
        "othello", {"history_key": _history_key_one_behind}, check_search_kernels, "history_key"),
    "othello pack_position without the generation": (
        "othello", {"pack_position": _pack_without_generation}, check_search_kernels, "pack_position's generation"),
    "othello leaf_features lose one": (
        "othello", {"leaf_features": _leaf_features_lose_one}, check_learner_kernels, "leaf_features are not"),
    "minishogi evaluate_and_features rounds otherwise": (
        "minishogi", {"evaluate_and_features": _value_rounded_otherwise}, check_learner_kernels,
        "evaluate_and_features' value"),
    "othello room that never shrinks": ("othello", {"room": _room_never_shrinks}, check_learner_kernels, "room after"),
    "minishogi prepare_weights leaves the pair table empty": (
        "minishogi", {"prepare_weights": _prepare_nothing}, check_learner_kernels, "the prepared weights"),
    "othello bonus_counts without a bonus": (
        "othello", {"bonus_counts": _a_bonus_for_black}, check_learner_kernels, "bonus_counts"),
    "othello parse_move of the first move": (
        "othello", {"parse_move": _first_legal_move}, check_python_functions, "move text"),
    "minishogi check_theta accepts anything": (
        "minishogi", {"check_theta": _accepts_anything}, check_python_functions, "check_theta accepts"),
    "minishogi count_moves counts evasions wrong": (
        "minishogi", {"count_moves": _one_more_leaf}, check_perft_positions, r"perft\(2\)"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_adapter_fails_its_check(case, samples, oracles):
    name, replace, check, message = BROKEN[case]
    game, oracle = broken(name, **replace), oracles[name]
    sample = positions(game, _histories(samples[name]), 4)
    with pytest.raises(AssertionError, match=f"{name}_broken: {message}"):
        if check in (check_features, check_search_kernels, check_learner_kernels):
            check(game, oracle, sample, np.random.default_rng(7))
        elif check is check_perft_start:
            check(game, oracle, deepest=10)
        elif check is check_perft_positions:
            check(game, oracle, sample[1::3][:8], 2, 3)
        else:
            check(game, oracle, sample)


def _histories(sample):
    """The full games behind a sample (each game's last, longest history)."""
    games = []
    for _, history in sample:
        if games and history[:len(games[-1])] == games[-1]:
            games[-1] = history
        else:
            games.append(history)
    return games[:2]
