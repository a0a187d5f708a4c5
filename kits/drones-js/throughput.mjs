// GameOfDrones throughput of the ORIGINAL 2018 engine, in process (for benchmarks/drones_batch.py).
//
//   node throughput.mjs [--original <checkout>] [--seconds <s>] [--rounds <n>] [--turns <n>] \
//        <bot1.js>:<bot2.js> [<bot1.js>:<bot2.js> ...]
//
// <checkout> is a checkout of BravoLT/code-challenge-2018 at 3df84bb87c12561287d01ba4eadbcc166d673503
// (default: $BOTARENA_DRONES_ORIGINAL). Nothing of it belongs to this project: the script only imports
// its `framework/index.js` (Match) and `game/game-of-drones.js` (GameOfDrones) at run time, as
// reference-harness.mjs does, and the bot modules named on the command line.
//
// For each pairing it plays `new Match({game: new GameOfDrones({rounds, turns}), player1, player2})`
// in a timed loop, with fresh bot instances every match (a new factory call, as the 2018 event did)
// and Math.random = mulberry32(match index) (spec 7.4). It prints one JSON line on stdout:
//   {"engine": "original", "rounds": R, "turns": T, "pairings": [{"pair": "a:b", "matches": M,
//    "seconds": S, "matchesPerSecond": X}, ...], "matchesPerSecond": <each pairing equally often>}
// The figure per pairing is the best of 1-second-ish chunks (the least disturbed on a shared machine).

import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";

import { mulberry32 } from "./mulberry32.mjs";
import { claimStdout } from "./stdio.mjs";

const { writeOut, writeLog } = claimStdout();

function parseArguments(argv) {
  const options = { original: process.env.BOTARENA_DRONES_ORIGINAL || "", seconds: 2, rounds: 10, turns: 10, pairs: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--original") options.original = argv[++i] ?? "";
    else if (arg === "--seconds") options.seconds = Number(argv[++i]);
    else if (arg === "--rounds") options.rounds = Number(argv[++i]);
    else if (arg === "--turns") options.turns = Number(argv[++i]);
    else options.pairs.push(arg);
  }
  if (!options.original) throw new Error("no original checkout: pass --original <dir> or set BOTARENA_DRONES_ORIGINAL");
  if (!options.pairs.length || options.pairs.some((p) => p.split(":").length !== 2)) {
    throw new Error("name at least one pairing as <bot1.js>:<bot2.js>");
  }
  return options;
}

async function factory(path) {
  const module = await import(pathToFileURL(resolve(path)).href);
  if (typeof module.default !== "function") throw new Error(`${path}: the default export is not a function`);
  return module.default;
}

function timePairing(Match, GameOfDrones, makeOne, makeTwo, options) {
  let best = 0, total = 0, elapsed = 0, index = 0;
  const deadline = performance.now() + options.seconds * 1000;
  let chunk = 100;
  for (;;) {
    const started = performance.now();
    for (let k = 0; k < chunk; k++) {
      Math.random = mulberry32(index++);
      const game = new GameOfDrones({ rounds: options.rounds, turns: options.turns });
      new Match({ game, player1: makeOne(), player2: makeTwo() }).play();
    }
    const now = performance.now();
    const seconds = (now - started) / 1000;
    total += chunk;
    elapsed += seconds;
    best = Math.max(best, chunk / seconds);
    if (seconds < 0.2) chunk *= 2; // chunks of about 0.2-0.4 s
    if (now >= deadline) return { matches: total, seconds: elapsed, matchesPerSecond: best };
  }
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const original = resolve(options.original);
  const { Match } = await import(pathToFileURL(join(original, "framework", "index.js")).href);
  const { GameOfDrones } = await import(pathToFileURL(join(original, "game", "game-of-drones.js")).href);
  const pairings = [];
  for (const pair of options.pairs) {
    const [one, two] = pair.split(":");
    const measured = timePairing(Match, GameOfDrones, await factory(one), await factory(two), options);
    pairings.push({ pair, ...measured });
  }
  const harmonic = pairings.length / pairings.reduce((sum, p) => sum + 1 / p.matchesPerSecond, 0);
  writeOut(JSON.stringify({ engine: "original", rounds: options.rounds, turns: options.turns, pairings, matchesPerSecond: harmonic }) + "\n");
}

main().catch((error) => {
  writeLog(`throughput: ${(error && error.stack) || error}\n`);
  process.exit(2);
});
