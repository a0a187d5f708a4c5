"""An example GameOfDrones bot written with the SDK: a watchful economist.

Strategy, in three lines:

- grow producers as long as it is safe: every producer doubles next turn's capacity;
- remember on which turns the opponent attacked in recent rounds, and switch to soldiers one turn
  before the earliest of them (or on the last turn, to win the turn-limit field battle);
- when the opponent showed no soldiers at all in the last round, rush it: soldiers on turn 1 and 2,
  and attack on turn 2 once we out-number its (zero) soldiers by more than the defender bonus.

Run it:   botarena play drones examples/drones/my_bot.py zergy --seed 7 --replay r.json.gz
"""

from __future__ import annotations

from botarena.games.drones.api import Action, Bot, MatchEnd, MatchStart, Observation, RoundResult

MEMORY = 5  # how many recent rounds of the opponent's attacks to remember


class WatchfulEconomist(Bot):
    name = "Watchful Economist (example)"
    author = "botarena examples"

    def on_match_start(self, start: MatchStart) -> None:
        self.enemy_attack_turns: list[int] = []
        self.enemy_had_soldiers = True
        self.switch = 0
        self.rush = False

    def on_round_end(self, result: RoundResult) -> None:
        if result.them.launched_attack:
            self.enemy_attack_turns.append(result.turns_played)
            del self.enemy_attack_turns[:-MEMORY]
        self.enemy_had_soldiers = result.them.soldiers > 0 or result.them.launched_attack

    def on_round_start(self, obs: Observation) -> None:
        if self.enemy_attack_turns:
            self.switch = max(1, min(self.enemy_attack_turns) - 1)
        else:
            self.switch = obs.turn_limit
        # An opponent that never builds soldiers loses to a two-soldier rush (with the default bonus 1).
        self.rush = not self.enemy_had_soldiers and obs.turn_limit >= 2 and obs.defender_bonus <= 1
        if obs.round == 1 or self.random.random() < 0.1:
            self.rush = False  # round 1: no information yet; otherwise a little unpredictability

    def play_turn(self, obs: Observation) -> Action:
        if self.rush:
            soldiers_after = obs.soldiers + obs.capacity
            return Action(soldiers=obs.capacity, attack=soldiers_after > obs.defender_bonus)
        if obs.turn < self.switch:
            return Action(producers=obs.capacity)
        return Action(soldiers=obs.capacity)

    def on_match_end(self, end: MatchEnd) -> None:
        self.debug(f"{self.name}: {end.outcome} {end.round_wins}-{end.round_losses}")


def create_bot() -> WatchfulEconomist:
    """The bot factory `botarena play` looks for: a fresh bot for every match."""
    return WatchfulEconomist()
