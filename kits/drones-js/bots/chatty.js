// Chatty (test-only): logs in every hook through every printing path a 2018 bot might use, to show
// that the adapter keeps the protocol channel clean (spec 7.3, output hygiene). It plays Greedy.

export default () => ({
  meta: { name: "Chatty (Test Bot)", author: "botarena" },
  onMatchStart(rules) {
    console.log("chatty: match starts", rules);
    process.stdout.write("chatty: raw stdout write\n");
  },
  onRoundStart(rules) {
    console.log("chatty: round starts", JSON.stringify(rules));
    console.info("chatty: info");
    console.table([{ turns: rules.turns }]);
  },
  playTurn(state) {
    console.log("chatty: turn", state.producers, state.soldiers);
    console.dir(state);
    console.warn("chatty: warn");
    return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
  },
  onRoundEnd(result) {
    console.log("chatty: round over", result.outcome);
    console.error("chatty: error stream");
  },
});
