// A class-based bot whose hooks depend on `this` (test-only, spec 7.1: hooks are called as methods).
// Plan per round: producers for the first half of the round, then soldiers; attack on the last turn
// if it has more soldiers than the opponent had at the end of the previous round, plus the bonus.

class Planner {
  #half = 5;

  constructor() {
    this.meta = { name: "Planner (Test Bot)", author: "botarena" };
    this.turn = 0;
    this.turns = 10;
    this.bonus = 1;
    this.theirSoldiers = 0;
  }

  onRoundStart(roundRules) {
    this.turn = 0;
    this.turns = roundRules.turns;
    this.bonus = roundRules.defenderBonus;
    this.#half = Math.ceil(this.turns / 2);
  }

  building() {
    return this.turn <= this.#half;
  }

  playTurn(state) {
    this.turn += 1;
    if (this.building()) return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
    const soldiers = state.soldiers + state.producers;
    const attack = this.turn === this.turns && soldiers > this.theirSoldiers + this.bonus;
    return { newProducers: 0, newSoldiers: state.producers, launchAttack: attack };
  }

  onRoundEnd(result) {
    this.theirSoldiers = result.them.soldiers;
  }
}

export default function () {
  return new Planner();
}
