// Thrower (test-only, spec 10 and E13's variant): its playTurn throws on turn 2 of every round.
// Turn 1 builds one producer; turns 3 and later put everything into soldiers.

export default () => {
  let turn = 0;
  return {
    meta: { name: "Thrower (Test Bot)", author: "botarena" },
    onRoundStart() {
      turn = 0;
    },
    playTurn({ producers }) {
      turn += 1;
      if (turn === 1) return { newProducers: 1, newSoldiers: 0, launchAttack: false };
      if (turn === 2) throw new Error("thrown on turn 2");
      return { newProducers: 0, newSoldiers: producers, launchAttack: false };
    },
  };
};
