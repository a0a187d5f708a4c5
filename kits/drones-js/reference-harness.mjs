// GameOfDrones parity: play one match on the ORIGINAL 2018 engine (spec drones.md 11.5).
//
//   node reference-harness.mjs [--original <checkout>] [--defender-bonus <n>] \
//        <bot1.js> <bot2.js> <rounds> <turns> <playerSeed1> <playerSeed2>
//
// <checkout> is a checkout of BravoLT/code-challenge-2018 at 3df84bb87c12561287d01ba4eadbcc166d673503
// (default: $BOTARENA_DRONES_ORIGINAL). Nothing of it belongs to this project: the harness only
// imports its `framework/index.js` (Match) and `game/game-of-drones.js` (GameOfDrones) at run time.
//
// It runs `new Match({game: new GameOfDrones({rounds, turns}), player1, player2}).play()` with
// each bot's Math.random seeded as the platform's adapter seeds it (mulberry32(playerSeed), 7.4),
// and prints the result as the original stage script did: JSON.stringify(result, null, 2) + "\n".
//
// Exit status:
//   0  the result is on stdout;
//   3  "ineligible": the match is outside parity (11.5, Harness run step 6). The result is still on
//      stdout, and stderr has one line per reason, each starting with "ineligible: ";
//   2  usage error, or the original engine could not be loaded or threw (the message is on stderr).
//
// Needs Node.js 20.19 or newer (typeless ES module .js files, as for adapter.mjs).

import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";

import { mulberry32 } from "./mulberry32.mjs";
import { claimStdout } from "./stdio.mjs";

// -- output hygiene (stdio.mjs): only the result goes to stdout -------------------------------------
const { writeOut: writeResult, writeLog } = claimStdout();

const EXIT_OK = 0;
const EXIT_ERROR = 2;
const EXIT_INELIGIBLE = 3;
const ANONYMOUS = { name: "Anonymous Player" };
const HOOKS = ["onMatchStart", "onRoundStart", "playTurn", "onRoundEnd"];

function finish(text, code) {
  if (text === null) process.exit(code);
  writeResult(text, () => process.exit(code));
}

function die(message) {
  writeLog(`reference-harness: ${message}\n`);
  finish(null, EXIT_ERROR);
}

// -- seeded Math.random (spec 7.4), one generator per bot, dispatched to the current one -------------

// Outside any bot's code (the engine never draws with drawAllowed true; a bot's stray timer might)
// the draws come from a generator of their own, so they never shift a bot's sequence.
let current = mulberry32(0);
Math.random = () => current();

function withGenerator(generator, call) {
  const previous = current;
  current = generator;
  try {
    return call();
  } finally {
    current = previous;
  }
}

// -- arguments -----------------------------------------------------------------------------------------
const USAGE =
  "usage: node reference-harness.mjs [--original <checkout>] [--defender-bonus <n>] " +
  "<bot1.js> <bot2.js> <rounds> <turns> <playerSeed1> <playerSeed2>";

function parseArguments(argv) {
  const options = { original: process.env.BOTARENA_DRONES_ORIGINAL || "", defenderBonus: undefined };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--original") options.original = argv[++i] ?? "";
    else if (arg === "--defender-bonus") options.defenderBonus = Number(argv[++i]);
    else if (arg === "-h" || arg === "--help") {
      writeLog(USAGE + "\n");
      process.exit(EXIT_OK);
    } else positional.push(arg);
  }
  if (positional.length !== 6) throw new Error(USAGE);
  const [bot1, bot2, rounds, turns, seed1, seed2] = positional;
  const integer = (text, name, low, high) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < low || n > high) throw new Error(`${name} must be an integer in ${low}..${high}`);
    return n;
  };
  if (!options.original) {
    throw new Error("no original checkout: pass --original <dir> or set BOTARENA_DRONES_ORIGINAL");
  }
  if (options.defenderBonus !== undefined) options.defenderBonus = integer(options.defenderBonus, "defender bonus", 0, 1000);
  return {
    ...options,
    bots: [bot1, bot2],
    rounds: integer(rounds, "rounds", 1, 100000),
    turns: integer(turns, "turns", 1, 1000),
    seeds: [integer(seed1, "playerSeed1", 0, 2 ** 32 - 1), integer(seed2, "playerSeed2", 0, 2 ** 32 - 1)],
  };
}

// -- players -----------------------------------------------------------------------------------------
const reasons = []; // why the match is outside parity

function metaJson(meta) {
  try {
    return JSON.stringify(typeof meta === "object" ? meta : ANONYMOUS);
  } catch (error) {
    return `<unserialisable meta: ${error && error.message}>`;
  }
}

// A count the original string-concatenated (row 11): neither number nor boolean, yet `> 0`.
function concatenationQuirk(value) {
  const kind = typeof value;
  return kind !== "number" && kind !== "boolean" && kind !== "undefined" && value !== null && value > 0;
}

function checkAction(side, action) {
  if (!action) {
    reasons.push(`PLAYER ${side}'s playTurn returned a falsy value (${String(action)}): the null-action quirk (spec 8, row 12)`);
    return;
  }
  if (typeof action !== "object" && typeof action !== "function") return; // the original reads no field
  for (const key of ["newProducers", "newSoldiers"]) {
    const value = action[key];
    if (concatenationQuirk(value)) {
      reasons.push(`PLAYER ${side}'s ${key} ${JSON.stringify(value)} is neither a number nor a boolean but > 0: the concatenation quirk (spec 8, row 11)`);
    }
  }
}

// Step 2: the bot's module, an instance of its own (a distinct query string), and its factory.
async function makePlayer(side, path, seed) {
  const generator = mulberry32(seed);
  const url = `${pathToFileURL(resolve(path)).href}?side=${side}`;
  const module = await withGenerator(generator, () => import(url));
  if (typeof module.default !== "function") throw new Error(`${path}: the default export is not a function`);
  const player = withGenerator(generator, () => module.default());
  if (player === null || (typeof player !== "object" && typeof player !== "function")) {
    throw new Error(`${path}: the factory did not return an object`);
  }
  return wrap(side, player, generator);
}

// Step 3: the same meta, only the hooks the bot has, each run with the bot's generator current and
// `this` = the original player. The platform's adapter, like the original, takes the meta object
// before onMatchStart and writes it after: that text is the baseline the printed meta is compared
// with at the end (a bot that assigns a new object to this.meta in onMatchStart stays comparable).
function wrap(side, player, generator) {
  const wrapper = { meta: player.meta };
  const state = { side, baseline: metaJson(wrapper.meta) };
  for (const name of HOOKS) {
    if (typeof player[name] !== "function") continue;
    wrapper[name] = function (...args) {
      const result = withGenerator(generator, () => player[name].apply(player, args));
      if (name === "onMatchStart") state.baseline = metaJson(wrapper.meta);
      if (name === "playTurn") checkAction(side, result);
      return result;
    };
  }
  return { wrapper, state };
}

// -- main ----------------------------------------------------------------------------------------------
async function main() {
  let options;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    return die(error.message);
  }
  const original = resolve(options.original);
  let Match, GameOfDrones;
  try {
    ({ Match } = await import(pathToFileURL(join(original, "framework", "index.js")).href));
    ({ GameOfDrones } = await import(pathToFileURL(join(original, "game", "game-of-drones.js")).href));
  } catch (error) {
    return die(`cannot load the original engine from ${original}: ${(error && error.stack) || error}`);
  }
  if (typeof Match !== "function" || typeof GameOfDrones !== "function") {
    return die(`${original} does not export Match (framework/index.js) and GameOfDrones (game/game-of-drones.js)`);
  }

  let result, players;
  try {
    players = [
      await makePlayer(1, options.bots[0], options.seeds[0]),
      await makePlayer(2, options.bots[1], options.seeds[1]),
    ];
    const gameConfig = { rounds: options.rounds, turns: options.turns };
    if (options.defenderBonus !== undefined) gameConfig.defenderBonus = options.defenderBonus;
    const match = new Match({
      game: new GameOfDrones(gameConfig),
      player1: players[0].wrapper,
      player2: players[1].wrapper,
    });
    result = match.play();
  } catch (error) {
    return die(`the match aborted (a bot or the engine threw): ${(error && error.stack) || error}`);
  }

  for (const { state } of players) {
    const printed = metaJson(result[`player${state.side}`]);
    if (printed !== state.baseline) {
      reasons.push(`PLAYER ${state.side}'s meta changed after onMatchStart (${state.baseline} -> ${printed}), spec 7.5`);
    }
  }
  let text;
  try {
    text = JSON.stringify(result, null, 2) + "\n";
  } catch (error) {
    return die(`cannot serialise the result: ${error && error.message}`);
  }
  const unique = [...new Set(reasons)];
  for (const reason of unique) writeLog(`ineligible: ${reason}\n`);
  finish(text, unique.length ? EXIT_INELIGIBLE : EXIT_OK);
}

main().catch((error) => die(String((error && error.stack) || error)));
