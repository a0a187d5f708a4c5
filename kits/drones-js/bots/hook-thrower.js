// A bot whose hooks throw on demand (test-only). The environment variable DRONES_THROW names the
// hooks that throw, comma-separated (onMatchStart, onRoundStart, onRoundEnd, playTurn, factory).
// Otherwise it plays Greedy.

const throwing = new Set((process.env.DRONES_THROW || "").split(",").filter(Boolean));

function maybeThrow(hook) {
  if (throwing.has(hook)) throw new Error(`${hook} failed on purpose`);
}

export default function () {
  maybeThrow("factory");
  return {
    meta: { name: "Hook Thrower (Test Bot)", author: "botarena" },
    onMatchStart() {
      maybeThrow("onMatchStart");
    },
    onRoundStart() {
      maybeThrow("onRoundStart");
    },
    playTurn(state) {
      maybeThrow("playTurn");
      return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
    },
    onRoundEnd() {
      maybeThrow("onRoundEnd");
    },
  };
}
