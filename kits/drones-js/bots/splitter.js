// Splitter (test-only, spec 11.5): it exercises fractional counts and seeded randomness.
//
// Precisely, with L the round's turn limit, c = state.producers and t the turn (1..L):
//   - onRoundStart draws the attack turn A = ceil(L/2) + floor(Math.random() * (L - ceil(L/2) + 1)),
//     uniform in ceil(L/2)..L; exactly one Math.random() call per round and none anywhere else;
//   - if t >= A: { newProducers: 0, newSoldiers: c, launchAttack: true } (all soldiers, attack);
//   - else if t == 1: { newProducers: c / 2, newSoldiers: c / 2, launchAttack: false };
//   - else: { newProducers: (c * 2) / 3, newSoldiers: c / 3, launchAttack: false }.
// Under `seed` every fractional turn is INVALID, by design.

class Splitter {
  constructor() {
    this.meta = { name: "Splitter (Test Bot)", author: "botarena" };
    this.turn = 0;
    this.attackTurn = 1;
  }

  onRoundStart({ turns }) {
    const lo = Math.ceil(turns / 2);
    this.attackTurn = lo + Math.floor(Math.random() * (turns - lo + 1));
    this.turn = 0;
  }

  playTurn({ producers: c }) {
    this.turn += 1;
    if (this.turn >= this.attackTurn) return { newProducers: 0, newSoldiers: c, launchAttack: true };
    if (this.turn === 1) return { newProducers: c / 2, newSoldiers: c / 2, launchAttack: false };
    return { newProducers: (c * 2) / 3, newSoldiers: c / 3, launchAttack: false };
  }
}

export default function () {
  return new Splitter();
}
