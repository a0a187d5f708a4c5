// E5, PLAYER 1: a negative count with an attack, {P:-1, S:1, A}.
// A scripted 2018-style bot for the parity check (spec drones.md 11.5): the i-th action of every
// round on turn i, then {} (no production, no attack).

const SCRIPT = [{ newProducers: -1, newSoldiers: 1, launchAttack: true }];

export default function () {
  let turn = 0;
  return {
    meta: { name: "e5-p1 (Parity Script)", author: "botarena" },
    onRoundStart() {
      turn = 0;
    },
    playTurn() {
      turn += 1;
      return turn <= SCRIPT.length ? { ...SCRIPT[turn - 1] } : {};
    },
  };
}
