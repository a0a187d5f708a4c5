// Kamikaze (test-only, spec 10): always all capacity into soldiers, and attack.

export default function () {
  return {
    meta: { name: "Kamikaze (Test Bot)", author: "botarena" },
    playTurn({ producers }) {
      return { newProducers: 0, newSoldiers: producers, launchAttack: true };
    },
  };
}
