// Adaptive Defender (spec 10.4), written by the botarena team in the 2018 module style.
// It switches to soldiers on the turn the opponent attacked in the previous round (or on the last
// turn if it did not attack), and never attacks. A plain object whose hooks use `this`.

export default function createAdaptiveDefender() {
  return {
    meta: { name: "Adaptive Defender (Example Bot)", author: "Bravo LT" },
    theirAttackTurn: null,
    soldierTurn: 10,
    turn: 0,

    onMatchStart() {
      this.theirAttackTurn = null;
    },

    onRoundStart(roundRules) {
      this.turn = 0;
      this.soldierTurn = this.theirAttackTurn === null ? roundRules.turns : this.theirAttackTurn;
    },

    playTurn(state) {
      this.turn += 1;
      if (this.turn < this.soldierTurn) {
        return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
      }
      return { newProducers: 0, newSoldiers: state.producers, launchAttack: false };
    },

    onRoundEnd(result) {
      this.theirAttackTurn = result.them.launchedAttack ? result.turnsPlayed : null;
    },
  };
}
