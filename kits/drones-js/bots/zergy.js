// Zergy McZergface: the zerg rush (spec 10.2), written by the botarena team in the 2018 module style.
// Everything into soldiers; attack once this turn's soldiers reach defenderBonus + 1.

export default () => {
  let needed = 2;
  return {
    meta: { name: "Zergy McZergface (Example Bot)", author: "Bravo LT" },
    onRoundStart({ defenderBonus }) {
      needed = defenderBonus + 1;
    },
    playTurn({ producers, soldiers }) {
      return { newProducers: 0, newSoldiers: producers, launchAttack: soldiers + producers >= needed };
    },
  };
};
