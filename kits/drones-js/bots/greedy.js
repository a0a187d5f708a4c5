// Greedy (test-only, spec 10): always all capacity into producers, never attacks.

export default () => ({
  meta: { name: "Greedy (Test Bot)", author: "botarena" },
  playTurn: (state) => ({ newProducers: state.producers, newSoldiers: 0, launchAttack: false }),
});
