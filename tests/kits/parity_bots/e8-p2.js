// E8, PLAYER 2: {S:1}, {}, {}.
// A scripted 2018-style bot for the parity check (spec drones.md 11.5): the i-th action of every
// round on turn i, then {} (no production, no attack).

const SCRIPT = [{ newSoldiers: 1 }, {}, {}];

export default function () {
  let turn = 0;
  return {
    meta: { name: "e8-p2 (Parity Script)", author: "botarena" },
    onRoundStart() {
      turn = 0;
    },
    playTurn() {
      turn += 1;
      return turn <= SCRIPT.length ? { ...SCRIPT[turn - 1] } : {};
    },
  };
}
