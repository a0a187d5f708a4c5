// A bot that returns undefined on some turns (test-only, spec E14's PLAYER 1): one soldier on turns 1
// and 2 of each round, and undefined from turn 3 on. Under bravolt2018 that is no action (OK with a
// NO_ACTION warning); under seed it is INVALID.

export default function () {
  let turn = 0;
  return {
    onRoundStart() {
      turn = 0;
    },
    playTurn() {
      turn += 1;
      if (turn <= 2) return { newSoldiers: 1 };
      return undefined;
    },
  };
}
