// E4, PLAYER 1: float arithmetic order, {P:0.3} then {P:0.1, S:5}.
// A scripted 2018-style bot for the parity check (spec drones.md 11.5): the i-th action of every
// round on turn i, then {} (no production, no attack).

const SCRIPT = [{ newProducers: 0.3 }, { newProducers: 0.1, newSoldiers: 5 }];

export default function () {
  let turn = 0;
  return {
    meta: { name: "e4-p1 (Parity Script)", author: "botarena" },
    onRoundStart() {
      turn = 0;
    },
    playTurn() {
      turn += 1;
      return turn <= SCRIPT.length ? { ...SCRIPT[turn - 1] } : {};
    },
  };
}
