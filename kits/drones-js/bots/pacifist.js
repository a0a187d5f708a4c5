// Hard Hitting Pacifist (spec 10.3), written by the botarena team in the 2018 module style, as a class.
// Producers on every turn before the last; everything into soldiers on the last turn; never attacks.

class HardHittingPacifist {
  constructor() {
    this.meta = { name: "Hard Hitting Pacifist (Example Bot)", author: "Bravo LT" };
    this.turns = 10;
    this.turn = 0;
  }

  onRoundStart(roundRules) {
    this.turns = roundRules.turns;
    this.turn = 0;
  }

  playTurn(state) {
    this.turn += 1;
    if (this.turn < this.turns) {
      return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
    }
    return { newProducers: 0, newSoldiers: state.producers, launchAttack: false };
  }
}

export default function () {
  return new HardHittingPacifist();
}
