"""GameOfDrones for N matches at once: a numpy engine stepping whole batches in lockstep.

`BatchDrones(config, seeds)` plays N matches of the same config, one per match seed, with exactly
the scalar engine's rules (GD-1 .. GD-25) and random draws (GD-3: `drones.turns`, `drones.tiebreak`
and the `drones.bot.<seat>` playerSeeds come from the same streams, re-derived in bulk by
`batchrng.StreamBatch`). It is for simulation at scale (search, statistics, reinforcement learning),
not for refereeing bots: there are no replies to judge, no statuses, no replays, no timeouts.

**Lockstep.** All N matches play round r together; within it, turn t is shared. A match whose round
ended (a clash, GD-17) sits out the rest of the round: `active` is False for it and its counts stay
at their final values, while the others go on. When no match is active, round r+1 begins for all.

**Observations** are a struct of arrays per seat (`BatchObservation`): scalars for what all matches
share (round, turn, rounds, told defender bonus, rules) and arrays of N for the rest, including the
previous round's result as the seat sees it (spec 4.3). The arrays are views into the engine's state,
updated in place by every step: read them during `act`, copy what you keep.

**Actions** are a `BatchActions` of three arrays of N: `new_producers`, `new_soldiers` (integers
in `seed`, reals in `bravolt2018`) and `launch_attack` (bool). Entries of inactive matches
are ignored. In `seed` a negative count makes that match's whole action INVALID (spec 5.2: no
production, no attack); in `bravolt2018` a negative or non-finite count is 0 (5.3). Clamping follows
GD-12 / GD-13 (producers first, capacity read before production).

**Counts** are of `count_dtype(config)`: under `seed` the narrowest integer type that holds every
count the config allows (int16 up to 14 turns, int32 up to 30, else int64: always exact); under
`bravolt2018` float64, whose min/subtract/add sequence is GD-13's, operation for operation. Actions
may be of any integer dtype (`seed`) or any real dtype (`bravolt2018`).

Typical use, with the vectorised starters of `bots/batch.py`:

    from botarena.core.registry import get_game
    from botarena.games.drones.batch import BatchDrones
    from botarena.games.drones.bots.batch import BatchZergy, BatchPacifist

    engine = BatchDrones(get_game("drones").config(), range(10_000))
    result = engine.run(BatchZergy(), BatchPacifist())
    result.scores  # (N, 2) round wins per seat; result.outcome: 0 PLAYER 1, 1 PLAYER 2, 2 DRAW

Or step by step (the way an RL environment drives it): `reset` each policy with
`engine.bot_seeds(seat)`, then `engine.step(p0.act(engine.observation(0)), p1.act(engine.observation(1)))`
until `engine.finished`; `engine.result()` gives the results.

Speed: a few tens of elementwise numpy passes per turn over N (both seats at once where possible,
in place on preallocated buffers); the round's clashes are judged together once every match's round
has ended. benchmarks/drones_batch.py measures it against the original JavaScript engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from botarena.core.rng import BOT_SEED_LIMIT, MAX_SEED
from botarena.games.drones.batchrng import StreamBatch
from botarena.games.drones.config import GAME_ID, DronesConfig
from botarena.games.drones.rules import TIEBREAK_STREAM, TURNS_STREAM

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]
Codes = npt.NDArray[np.int8]
Counts = npt.NDArray[Any]
"""Unit counts: int64 under `seed`, float64 under `bravolt2018`."""

TRIGGERS = ("ATTACK", "FIELD", "TURN_LIMIT")
"""Round record `trigger` codes (GD-17): index = code."""
DECIDED_BY = ("ATTACK_WON", "DEFENCE_HELD", "SOLDIERS", "TOTAL_UNITS", "RANDOM", "DRAW")
"""Round record `decidedBy` codes (GD-18 .. GD-21): index = code."""
OUTCOMES = ("PLAYER 1", "PLAYER 2", "DRAW")
"""Round and match outcome codes: 0 PLAYER 1, 1 PLAYER 2, 2 DRAW."""
VIEW_OUTCOMES = (None, "WIN", "LOSE", "DRAW")
"""`prev_outcome` codes, a seat's view of the previous round (spec 4.3): 0 none (round 1)."""

_ATTACK, _FIELD, _TURN_LIMIT = 0, 1, 2
_ATTACK_WON, _DEFENCE_HELD, _SOLDIERS, _TOTAL_UNITS, _RANDOM, _DRAW = range(6)
_P1, _P2, _NOBODY = 0, 1, 2
_WIN, _LOSE, _VIEW_DRAW = 1, 2, 3


@dataclass(eq=False)
class BatchObservation:
    """One seat's turn observation (spec 4.2) in N matches: shared scalars and arrays of N.

    The arrays are views into the engine's state, valid until the next `step`.
    """

    seat: int
    rules: str
    rounds: int
    defender_bonus: int
    """The bonus the bots are told (spec 4.2; in bravolt2018 a 0 is told as 1)."""
    round: int
    turn: int
    active: Bools
    """Matches still in this round; the others' actions are ignored and their counts are final."""
    turn_limit: Ints
    producers: Counts
    """Own producers at the start of this turn: this turn's capacity."""
    soldiers: Counts
    round_wins: Ints
    round_losses: Ints
    round_draws: Ints
    prev_outcome: Codes
    """The previous round from this seat's view: 0 none (round 1), 1 WIN, 2 LOSE, 3 DRAW."""
    prev_turns: Ints
    """`turnsPlayed` of the previous round (0 in round 1)."""
    prev_you_producers: Counts
    prev_you_soldiers: Counts
    prev_you_attacked: Bools
    prev_them_producers: Counts
    prev_them_soldiers: Counts
    prev_them_attacked: Bools


@dataclass(eq=False)
class BatchActions:
    """One seat's actions (spec 5.1) in N matches."""

    new_producers: Counts
    new_soldiers: Counts
    launch_attack: Bools


class BatchPolicy(Protocol):
    """A bot for one seat of N matches: `reset` once per batch, `act` once per turn."""

    def reset(self, n: int, bot_seeds: Callable[[], Ints], config: DronesConfig) -> None:
        """Start N matches. `bot_seeds()` gives the seat's playerSeed per match (GD-4), derived on call."""

    def act(self, obs: BatchObservation) -> BatchActions:
        """The actions of this turn. Must draw randomness only for `obs.active` matches."""


@dataclass(eq=False)
class BatchRounds:
    """Per-round records (spec 3.6) of N matches x R rounds, as code arrays of shape (N, R)."""

    turn_limit: Ints
    turns_played: Ints
    trigger: Codes
    """Index into `TRIGGERS`."""
    decided_by: Codes
    """Index into `DECIDED_BY`."""
    outcome: Codes
    """Index into `OUTCOMES`."""
    producers: Counts
    """Shape (2, N, R): each seat's final producers."""
    soldiers: Counts
    """Shape (2, N, R)."""
    launched_attack: Bools
    """Shape (2, N, R)."""

    def record(self, match: int, round_index: int) -> dict[str, Any]:
        """The round record of `match`'s round `round_index + 1`, shaped as the scalar engine's."""
        i, r = match, round_index

        def side(seat: int) -> dict[str, Any]:
            return {
                "producers": _plain(self.producers[seat, i, r]),
                "soldiers": _plain(self.soldiers[seat, i, r]),
                "launchedAttack": bool(self.launched_attack[seat, i, r]),
            }

        return {
            "round": r + 1,
            "turnLimit": int(self.turn_limit[i, r]),
            "turnsPlayed": int(self.turns_played[i, r]),
            "trigger": TRIGGERS[self.trigger[i, r]],
            "decidedBy": DECIDED_BY[self.decided_by[i, r]],
            "outcome": OUTCOMES[self.outcome[i, r]],
            "player1": side(0),
            "player2": side(1),
        }


def _plain(value: Any) -> int | float:
    """A count as the scalar engine writes it: integral values as int."""
    number = float(value)
    return int(number) if number.is_integer() else number


@dataclass(eq=False)
class BatchResult:
    """The results of N matches (GD-25, spec 6.1)."""

    scores: Ints
    """(N, 2): round wins per seat, the platform's score."""
    draws: Ints
    """(N,): drawn rounds (bravolt2018 only)."""
    outcome: Codes
    """(N,): index into `OUTCOMES` (more round wins wins; equal is a DRAW)."""
    rounds: BatchRounds | None
    """Per-round records, if the engine was made with `record=True`."""

    @property
    def ranks(self) -> Ints:
        """(N, 2): the winner ranks 1 and the loser 2; in a DRAW both rank 1."""
        ranks = np.ones((self.outcome.shape[0], 2), dtype=np.int64)
        ranks[self.outcome == _P1, 1] = 2
        ranks[self.outcome == _P2, 0] = 2
        return ranks

    def details(self, match: int) -> dict[str, Any]:
        """The scalar engine's match record (spec 3.6) of one match, without the bots' meta."""
        one, two = (int(v) for v in self.scores[match])
        draws = int(self.draws[match])
        return {
            "outcome": OUTCOMES[self.outcome[match]],
            "roundTotals": {"player1Wins": one, "player2Wins": two, "draws": draws},
            "scores": [one, two],
        }


def count_dtype(config: DronesConfig) -> np.dtype[Any]:
    """The dtype of unit counts in a batch of `config`: the narrowest that holds every count exactly.

    After t turns a side has at most 2**t units (each unit makes at most one more per turn), and the
    clash adds at most `defender_bonus` (<= 1000), so `seed` counts fit int16 up to 14 turns and
    int32 up to 30; beyond that int64. Narrow counts matter: the engine's per-turn work is a few
    elementwise passes over N counts, and int16 passes run several times faster than int64 ones.
    `bravolt2018` counts are float64, as GD-13's arithmetic is binary64.
    """
    if config.rules != "seed":
        return np.dtype(np.float64)
    span = config.turn_limit_range
    longest = span[1] if span is not None else config.turn_limit
    for dtype in (np.int16, np.int32):
        if 2**longest + 1001 <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _match_seeds(seeds: Sequence[int] | npt.NDArray[Any]) -> npt.NDArray[np.uint64]:
    values = seeds if isinstance(seeds, np.ndarray) else list(seeds)
    array = np.asarray(values)
    if array.ndim != 1 or array.shape[0] == 0:
        raise ValueError("seeds must be a non-empty sequence of match seeds")
    if array.dtype.kind not in "iuO":
        raise ValueError(f"match seeds must be integers in 0..{MAX_SEED}, got dtype {array.dtype}")
    if array.dtype.kind == "O":
        if not all(type(v) is int and 0 <= v <= MAX_SEED for v in array):
            raise ValueError(f"match seeds must be integers in 0..{MAX_SEED}")
        return np.array([int(v) for v in array], dtype=np.uint64)
    if array.dtype.kind == "i" and array.size and int(array.min()) < 0:
        raise ValueError(f"match seeds must be integers in 0..{MAX_SEED}, got {int(array.min())}")
    return array.astype(np.uint64)


class BatchDrones:
    """N GameOfDrones matches of one config, stepped together (see the module docstring)."""

    def __init__(
        self, config: DronesConfig, seeds: Sequence[int] | npt.NDArray[Any], *, record: bool = False
    ) -> None:
        self.config = config
        self.seeds = _match_seeds(seeds)
        n = self.n = int(self.seeds.shape[0])
        self.seed_rules = config.rules == "seed"
        dtype = self.dtype = count_dtype(config)
        # Each seat's state in row `seat` of a (2, N) array, so both seats are produced in one call.
        self.producers: Counts = np.ones((2, n), dtype=dtype)
        self.soldiers: Counts = np.zeros((2, n), dtype=dtype)
        self.wins: Ints = np.zeros((2, n), dtype=np.int64)
        self.draws: Ints = np.zeros(n, dtype=np.int64)
        self.prev_producers: Counts = np.zeros((2, n), dtype=dtype)
        self.prev_soldiers: Counts = np.zeros((2, n), dtype=dtype)
        self.prev_attacked: Bools = np.zeros((2, n), dtype=bool)
        self.prev_outcome: Codes = np.zeros((2, n), dtype=np.int8)
        self.prev_turns: Ints = np.zeros(n, dtype=np.int64)
        self.turn_limit: Ints = np.full(n, config.turn_limit, dtype=np.int64)
        self.active: Bools = np.zeros(n, dtype=bool)
        self.round = 0
        self.turn = 1
        self.finished = False
        # Step buffers, reused every turn.
        self._p = np.zeros((2, n), dtype=dtype)
        self._s = np.zeros((2, n), dtype=dtype)
        self._a = np.zeros((2, n), dtype=bool)
        self._cap = np.zeros((2, n), dtype=dtype)
        self._ends = np.zeros(n, dtype=bool)
        self._launched = np.zeros((2, n), dtype=bool)  # this round's last-turn attack flags
        self._turns_played = np.zeros(n, dtype=np.int64)
        self._all = np.ones(n, dtype=bool)
        self._bonus = config.defender_bonus if self.seed_rules else 1  # GD-18, GD-20
        self._turns = StreamBatch(self.seeds, TURNS_STREAM) if config.turn_limit_range is not None else None
        self._tiebreak: StreamBatch | None = None  # made on the first coin (GD-19.3)
        self.rounds: BatchRounds | None = self._new_rounds() if record else None
        self._obs = [self._observation(seat) for seat in (0, 1)]
        self._begin_round()

    # -- set-up ------------------------------------------------------------------------------------
    def _new_rounds(self) -> BatchRounds:
        shape = (self.n, self.config.rounds)
        return BatchRounds(
            turn_limit=np.zeros(shape, dtype=np.int64),
            turns_played=np.zeros(shape, dtype=np.int64),
            trigger=np.zeros(shape, dtype=np.int8),
            decided_by=np.zeros(shape, dtype=np.int8),
            outcome=np.zeros(shape, dtype=np.int8),
            producers=np.zeros((2, *shape), dtype=self.dtype),
            soldiers=np.zeros((2, *shape), dtype=self.dtype),
            launched_attack=np.zeros((2, *shape), dtype=bool),
        )

    def _observation(self, seat: int) -> BatchObservation:
        other = 1 - seat
        return BatchObservation(
            seat=seat,
            rules=self.config.rules,
            rounds=self.config.rounds,
            defender_bonus=self.config.told_defender_bonus,
            round=self.round,
            turn=self.turn,
            active=self.active,
            turn_limit=self.turn_limit,
            producers=self.producers[seat],
            soldiers=self.soldiers[seat],
            round_wins=self.wins[seat],
            round_losses=self.wins[other],
            round_draws=self.draws,
            prev_outcome=self.prev_outcome[seat],
            prev_turns=self.prev_turns,
            prev_you_producers=self.prev_producers[seat],
            prev_you_soldiers=self.prev_soldiers[seat],
            prev_you_attacked=self.prev_attacked[seat],
            prev_them_producers=self.prev_producers[other],
            prev_them_soldiers=self.prev_soldiers[other],
            prev_them_attacked=self.prev_attacked[other],
        )

    def bot_seeds(self, seat: int) -> Ints:
        """Each match's playerSeed for `seat` (GD-4): config `player_seeds`, else `drones.bot.<seat>`."""
        if self.config.player_seeds is not None:
            return np.full(self.n, self.config.player_seeds[seat], dtype=np.int64)
        stream = StreamBatch(self.seeds, f"{GAME_ID}.bot.{seat}")
        return stream.integers(0, BOT_SEED_LIMIT, self._all)

    # -- rounds (GD-6 .. GD-8, GD-24) ------------------------------------------------------------
    def _begin_round(self) -> None:
        self.round += 1
        if self.round > self.config.rounds:
            self.finished = True
            self.active.fill(False)
            self._publish()
            return
        self.turn = 1
        if self._turns is not None:  # GD-7: one draw per round, in round order
            lo, hi = self.config.turn_limit_range  # type: ignore[misc]
            self.turn_limit[:] = self._turns.integers(lo, hi + 1, self._all)
        self._max_limit = int(self.turn_limit.max())
        self._fixed_limit = self._turns is None
        self.producers.fill(1)
        self.soldiers.fill(0)
        self._launched.fill(False)
        self.active.fill(True)
        self._publish()

    def _publish(self) -> None:
        for obs in self._obs:
            obs.round = min(self.round, self.config.rounds)
            obs.turn = self.turn

    # -- the public stepping API -----------------------------------------------------------------
    def observation(self, seat: int) -> BatchObservation:
        """Seat `seat`'s observation of the current turn (views; valid until the next `step`)."""
        return self._obs[seat]

    def step(self, first: BatchActions, second: BatchActions) -> None:
        """Play the current turn of every active match with both seats' actions (GD-9 .. GD-24).

        A match whose round ends on this turn becomes inactive; the rounds are judged (GD-18 ..
        GD-23) together once no match is active, which is when the next round begins.
        """
        if self.finished:
            raise ValueError("the batch is finished: every round has been played")
        self._play(0, first)
        self._play(1, second)
        attacks, ends, active = self._a, self._ends, self.active
        if self._fixed_limit and self.turn >= self._max_limit:
            np.copyto(ends, active)  # GD-17: every round still going reaches its limit
        else:
            np.logical_or(attacks[0], attacks[1], out=ends)  # only active matches' attacks count
            if not self._fixed_limit:
                ends |= (self.turn >= self.turn_limit) & active
        if ends.any():
            self._launched |= attacks  # GD-16: an attack ends the round, so it is the last turn's flag
            np.copyto(self._turns_played, self.turn, where=ends)
            active ^= ends  # ends is a subset of active
            if not active.any():
                self._end_round()
                self._begin_round()
                return
        self.turn += 1
        self._publish()

    def run(self, first: BatchPolicy, second: BatchPolicy) -> BatchResult:
        """Play every match to the end with two batched policies (seat 0, seat 1); the results."""
        if self.round != 1 or self.turn != 1:
            raise ValueError("run() needs a fresh BatchDrones")
        for seat, policy in enumerate((first, second)):
            policy.reset(self.n, lambda seat=seat: self.bot_seeds(seat), self.config)  # type: ignore[misc]
        obs_one, obs_two = self._obs
        while not self.finished:
            self.step(first.act(obs_one), second.act(obs_two))
        return self.result()

    def result(self) -> BatchResult:
        """The results so far (final once `finished`)."""
        one, two = self.wins
        outcome = np.full(self.n, _NOBODY, dtype=np.int8)
        outcome[one > two] = _P1
        outcome[two > one] = _P2
        scores = self.wins.T.copy()
        return BatchResult(scores=scores, draws=self.draws.copy(), outcome=outcome, rounds=self.rounds)

    # -- one turn ----------------------------------------------------------------------------------
    def _play(self, seat: int, actions: BatchActions) -> None:
        """GD-10 .. GD-16 for one seat: judge the counts, produce, and note the attack flags.

        Capacity is read before production and producers are served first (GD-12 / GD-13). Inactive
        matches get capacity 0 and no attack, so they produce nothing and keep their final counts.
        """
        requested_p, requested_s, attack = self._judge(actions)
        cap, p, s = self._cap[seat], self._p[seat], self._s[seat]
        np.multiply(self.producers[seat], self.active, out=cap)
        np.minimum(requested_p, cap, out=p, casting="same_kind")
        np.subtract(cap, p, out=cap)  # what is left after producers
        np.minimum(requested_s, cap, out=s, casting="same_kind")
        self.producers[seat] += p
        self.soldiers[seat] += s
        np.logical_and(attack, self.active, out=self._a[seat])

    def _judge(self, actions: BatchActions) -> tuple[Counts, Counts, Bools]:
        """Spec 5.2 (seed): a negative count voids the whole action; 5.3 (bravolt2018): it is 0."""
        p, s, a = actions.new_producers, actions.new_soldiers, actions.launch_attack
        if a.dtype != np.bool_:
            raise TypeError(f"launch_attack must be a bool array, got {a.dtype}")
        if self.seed_rules:
            if p.dtype.kind not in "iub" or s.dtype.kind not in "iub":
                raise TypeError(f"seed rules take integer counts, got {p.dtype} and {s.dtype}")
            if p.min() < 0 or s.min() < 0:
                bad = (p < 0) | (s < 0)
                return np.where(bad, 0, p), np.where(bad, 0, s), a & ~bad
            return p, s, a
        counts = []
        for values in (p, s):
            values = values.astype(np.float64, copy=False)
            counts.append(np.where(np.isfinite(values) & (values > 0), values, 0.0))
        return counts[0], counts[1], a

    # -- round end (GD-18 .. GD-23) --------------------------------------------------------------
    def _end_round(self) -> None:
        """Judge every match's clash of this round at once; tallies, views and records (GD-22, GD-23).

        Every match is inactive now, with its final counts frozen, its last turn's attack flags in
        `_launched` and its turn count in `_turns_played`.
        """
        a0, a1 = self._launched
        s0, s1 = self.soldiers
        lone = a0 ^ a1  # ATTACK (GD-18 / GD-20); otherwise FIELD or TURN_LIMIT (GD-19 / GD-21)
        first_more, second_more = s0 > s1, s1 > s0
        tie = ~(first_more | second_more)
        first_wins = first_more
        coin = draw = units = None
        if self.seed_rules:
            t0 = self.producers[0] + s0
            t1 = self.producers[1] + s1
            units = tie & (t0 != t1)
            first_wins = first_more | (units & (t0 > t1))
            coin = tie & ~units & ~lone
            if coin.any():
                first_wins[coin] = self._coins(coin) == _P1
        else:
            draw = tie & ~lone
        won = np.where(a0, s0 > s1 + self._bonus, s1 > s0 + self._bonus)
        first_wins = np.where(lone, a0 == won, first_wins)
        self._tally(first_wins, draw)
        if self.rounds is not None:
            self._record(first_wins, draw, lone, won, tie, units, coin)

    def _coins(self, mask: Bools) -> Ints:
        """GD-19.3: one draw from `drones.tiebreak` per masked match (0 PLAYER 1, 1 PLAYER 2)."""
        if self._tiebreak is None:
            self._tiebreak = StreamBatch(self.seeds, TIEBREAK_STREAM)
        return self._tiebreak.integers(0, 2, mask)

    def _tally(self, first_wins: Bools, draw: Bools | None) -> None:
        """GD-22, GD-23: the round tallies and each seat's view of the round (spec 4.3)."""
        if draw is None:
            self.wins[0] += first_wins
            self.wins[1] += ~first_wins
            np.copyto(self.prev_outcome[0], np.where(first_wins, _WIN, _LOSE), casting="unsafe")
            np.copyto(self.prev_outcome[1], np.where(first_wins, _LOSE, _WIN), casting="unsafe")
        else:
            decided = ~draw
            self.wins[0] += first_wins & decided
            self.wins[1] += ~first_wins & decided
            self.draws += draw
            for seat, mine in ((0, first_wins), (1, ~first_wins)):
                view = np.where(draw, _VIEW_DRAW, np.where(mine, _WIN, _LOSE))
                np.copyto(self.prev_outcome[seat], view, casting="unsafe")
        np.copyto(self.prev_producers, self.producers)
        np.copyto(self.prev_soldiers, self.soldiers)
        np.copyto(self.prev_attacked, self._launched)
        np.copyto(self.prev_turns, self._turns_played)

    def _record(
        self,
        first_wins: Bools,
        draw: Bools | None,
        lone: Bools,
        won: Bools,
        tie: Bools,
        units: Bools | None,
        coin: Bools | None,
    ) -> None:
        """The round records (spec 3.6) of this round, into `self.rounds`."""
        rounds, r = self.rounds, self.round - 1
        assert rounds is not None
        a0, a1 = self._launched
        rounds.turn_limit[:, r] = self.turn_limit
        rounds.turns_played[:, r] = self._turns_played
        rounds.trigger[:, r] = np.where(lone, _ATTACK, np.where(a0 & a1, _FIELD, _TURN_LIMIT))
        decided = np.where(tie, _DRAW, _SOLDIERS)
        if units is not None and coin is not None:
            decided = np.where(units, _TOTAL_UNITS, np.where(coin, _RANDOM, decided))
        rounds.decided_by[:, r] = np.where(lone, np.where(won, _ATTACK_WON, _DEFENCE_HELD), decided)
        outcome = np.where(first_wins, _P1, _P2)
        if draw is not None:
            outcome = np.where(draw, _NOBODY, outcome)
        rounds.outcome[:, r] = outcome
        rounds.producers[:, :, r] = self.producers
        rounds.soldiers[:, :, r] = self.soldiers
        rounds.launched_attack[:, :, r] = self._launched
