// Randomonium: random choices (spec 10.1), written by the botarena team in the 2018 module style.
// Draw order, the same as the Python version: one draw in onRoundStart (the attack turn), then one
// draw per turn (the soldiers).

const meta = { name: "Randomonium (Example Bot)", author: "Bravo LT" };

export default function () {
  let turn = 0;
  let attackTurn = 0;
  return {
    meta,
    onRoundStart(roundRules) {
      turn = 0;
      // 1..L+1; L+1 means it never attacks this round.
      attackTurn = Math.floor(Math.random() * (roundRules.turns + 1)) + 1;
    },
    playTurn(state) {
      turn += 1;
      const capacity = state.producers;
      const soldiers = Math.floor(Math.random() * (capacity + 1)); // 0..capacity
      return { newProducers: capacity - soldiers, newSoldiers: soldiers, launchAttack: turn >= attackTurn };
    },
  };
}
