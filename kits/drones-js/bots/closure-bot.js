// A closure bot without onRoundStart (test-only): it never learns the turn limit, and resets its own
// turn counter in onRoundEnd. Producers on turns 1-3, then soldiers; attack on turn 5.

export default () => {
  let turn = 0;
  return {
    meta: { name: "Closure (Test Bot)", author: "botarena" },
    playTurn(state) {
      turn += 1;
      if (turn <= 3) return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
      return { newProducers: 0, newSoldiers: state.producers, launchAttack: turn === 5 };
    },
    onRoundEnd() {
      turn = 0;
    },
  };
};
