// GameOfDrones: run a bot written for the Bravo LT Code Challenge 2018 unchanged (spec drones.md 7.3).
//
//   node adapter.mjs <path/to/bot.js>
//
// The bot is an ES module whose default export is a zero-argument factory returning the player
// (spec 7.1). This program speaks the platform's generic JSON-lines protocol on stdin/stdout: one
// request line in, exactly one reply line `{"id": <request id>, "payload": ...}` out. Everything
// the bot prints goes to stderr, which the platform keeps as the bot's log.
//
// Needs Node.js 20.19 or newer: there a typeless `.js` file with `export` syntax (no package.json,
// or one without "type") loads as an ES module through module-syntax detection, without any flag.

import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

import { mulberry32 } from "./mulberry32.mjs";
import { claimStdout } from "./stdio.mjs";

// -- output hygiene (stdio.mjs): protocol lines on the real stdout, everything else on stderr -------
const { writeOut: writeProtocol, writeLog } = claimStdout();

const ANONYMOUS = { name: "Anonymous Player" };

// -- helpers ---------------------------------------------------------------------------------------
function describe(error) {
  // A bot may throw anything, including objects whose message or toString throws.
  try {
    if (error instanceof Error) return String(error.message);
    return String(error);
  } catch {
    return "unprintable exception";
  }
}

function logError(where, error) {
  let text;
  try {
    text = (error && error.stack) || String(error);
  } catch {
    text = "unprintable exception";
  }
  writeLog(`[drones adapter] ${where} threw: ${text}\n`);
}

function send(id, payload) {
  writeProtocol(JSON.stringify({ id, payload }) + "\n");
}

function isObject(value) {
  const kind = typeof value;
  return (kind === "object" && value !== null) || kind === "function";
}

// -- the bot ---------------------------------------------------------------------------------------
const botPath = process.argv[2];
let factory = null; // the module's default export, once loaded
let player = null; // the current match's player object
let failure = botPath ? null : "usage: node adapter.mjs <path/to/bot.js>"; // permanent error
let bravolt = false; // the rule set named by the start request

function fail(id, text) {
  failure = text;
  player = null;
  send(id, { error: text });
}

// Calls hook `name` as a method of the player (`this` = player); a missing hook is a silent no-op.
// An exception is logged with its stack and noted in `errors`.
function callHook(name, argument, errors) {
  try {
    const hook = player[name];
    if (typeof hook === "function") hook.call(player, argument);
  } catch (error) {
    logError(name, error);
    errors.push(`${name}: ${describe(error)}`);
  }
}

// `n = (v > 0) ? Number(v) : 0` with JavaScript's own `>` and `Number`; Infinity is sent as the
// largest double, which JSON can carry and which clamps exactly as Infinity does (GD-13).
function bravoltCount(value) {
  if (!(value > 0)) return 0;
  const n = Number(value);
  if (n === Infinity) return Number.MAX_VALUE;
  return n > 0 ? n : 0;
}

// bravolt2018: the original's coercions. A falsy or primitive return is no action (null).
function normaliseBravolt(value) {
  if (!value || !isObject(value)) return null;
  return {
    newProducers: bravoltCount(value.newProducers),
    newSoldiers: bravoltCount(value.newSoldiers),
    launchAttack: value.launchAttack == true, // loose equality on purpose: 1, "1" and [1] attack
  };
}

// seed: no coercion. The three keys are read from an object and written as JSON.stringify writes
// them (undefined dropped, non-finite numbers as null); a non-object is null, which is INVALID.
function normaliseSeed(value) {
  if (!isObject(value)) return null;
  return {
    newProducers: value.newProducers,
    newSoldiers: value.newSoldiers,
    launchAttack: value.launchAttack,
  };
}

function startMatch(id, payload) {
  let made;
  try {
    made = factory();
  } catch (error) {
    logError("factory", error);
    fail(id, `factory: ${describe(error)}`);
    return;
  }
  if (!isObject(made)) {
    fail(id, "factory did not return an object");
    return;
  }
  player = made;
  const errors = [];
  // meta is read BEFORE onMatchStart, as the original's PlayerDriver did (spec 7.3 step 5): a bot
  // that assigns a new object to `this.meta` in onMatchStart keeps the one it had. The original
  // printed that object as it stood at the match's end, so a change made to it in place in
  // onMatchStart shows: it is serialised after the hook.
  let meta;
  try {
    meta = player.meta;
  } catch (error) {
    logError("meta", error);
    errors.push(`meta: ${describe(error)}`);
  }
  callHook("onMatchStart", { rounds: payload.rounds, drawAllowed: payload.drawAllowed }, errors);
  writeProtocol(startReply(id, typeof meta === "object" ? meta : ANONYMOUS, errors) + "\n");
}

// JSON.stringify writes a lone surrogate (a half of a UTF-16 pair, e.g. "\ud800") as the escape
// `\ud800`, which is not UTF-8 and which the platform's JSON reader rejects. Such an escape follows
// an even number of backslashes (an odd one would make it the text "\\ud800").
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})/gi;

// The start reply line. `meta` goes as JSON.stringify writes it; when that text holds a lone
// surrogate, `meta` gets U+FFFD in its place (so the line is valid UTF-8) and `metaJson` carries
// JSON.stringify's own text, which the host prints in the original's MatchResult (spec 7.5).
function startReply(id, meta, errors) {
  let text;
  try {
    text = JSON.stringify(meta); // undefined when a toJSON returns undefined: the key is left out
  } catch (error) {
    logError("meta", error);
    errors.push(`meta: ${describe(error)}`);
    text = JSON.stringify(ANONYMOUS);
  }
  const fields = [];
  if (text !== undefined) {
    const wellFormed = text.replace(LONE_SURROGATE_ESCAPE, "$1\\ufffd");
    fields.push(`"meta":${wellFormed}`);
    if (wellFormed !== text) fields.push(`"metaJson":${JSON.stringify(text)}`);
  }
  if (errors.length) fields.push(`"error":${JSON.stringify(errors.join("; "))}`);
  // The envelope as JSON.stringify writes it (an undefined id left out), with the payload spliced in.
  const envelope = JSON.stringify({ id, payload: 0 });
  return `${envelope.slice(0, -2)}{${fields.join(",")}}}`;
}

function onStart(id, payload) {
  const seed = payload.playerSeed ?? payload.bot_seed ?? 0;
  Math.random = mulberry32(Number(seed)); // a new generator for every match, before any bot code
  bravolt = payload.rules === "bravolt2018";
  if (failure !== null) {
    send(id, { error: failure });
    return;
  }
  if (factory !== null) {
    startMatch(id, payload);
    return;
  }
  // The first start loads the module. Requests that arrive meanwhile wait in `pending`.
  pending = [];
  import(pathToFileURL(resolve(botPath)).href).then(
    (module) => {
      try {
        if (typeof module.default !== "function") {
          // A .js file is taken for a 2018 bot; one that speaks JSON lines itself is named as a command.
          fail(
            id,
            "default export is not a function: a 2018 bot's default export makes its player; " +
              "a bot that reads and writes JSON lines itself runs as a command: cmd:node " + botPath,
          );
        } else {
          factory = module.default;
          startMatch(id, payload);
        }
      } finally {
        drain();
      }
    },
    (error) => {
      try {
        logError("import", error);
        fail(id, `cannot load ${botPath}: ${describe(error)}`);
      } finally {
        drain();
      }
    },
  );
}

function onTurn(id, payload) {
  if (failure !== null) return send(id, { error: failure });
  if (player === null) return send(id, { error: "turn request before any start request" });
  const errors = [];
  if (payload.turn === 1) {
    if (payload.previousRound != null) callHook("onRoundEnd", payload.previousRound, errors);
    callHook("onRoundStart", { turns: payload.turnLimit, defenderBonus: payload.defenderBonus }, errors);
  }
  let line;
  try {
    const playTurn = player.playTurn;
    const value =
      typeof playTurn === "function"
        ? playTurn.call(player, { producers: payload.producers, soldiers: payload.soldiers })
        : undefined;
    const action = bravolt ? normaliseBravolt(value) : normaliseSeed(value);
    // A null action cannot carry the hook's error: it stays null (its status is the rule set's),
    // and the error is in the log.
    if (errors.length && action !== null) action.error = errors.join("; ");
    line = JSON.stringify({ id, payload: action }); // seed: may throw on a BigInt or a cycle
  } catch (error) {
    logError("playTurn", error);
    line = JSON.stringify({ id, payload: { error: `playTurn: ${describe(error)}` } });
  }
  writeProtocol(line + "\n");
}

function onEnd(id, payload) {
  if (failure !== null) return send(id, { error: failure });
  if (player === null) return send(id, {});
  const errors = [];
  if (payload.lastRound != null) callHook("onRoundEnd", payload.lastRound, errors);
  send(id, errors.length ? { error: errors.join("; ") } : {});
}

// -- the request loop ------------------------------------------------------------------------------
let pending = null; // lines received while the module loads
let closed = false;

function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    writeLog(`[drones adapter] ignoring a line that is not JSON: ${line.slice(0, 200)}\n`);
    return;
  }
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    writeLog(`[drones adapter] ignoring a line that is not a request: ${line.slice(0, 200)}\n`);
    return;
  }
  const id = request.id;
  const payload = isObject(request.payload) ? request.payload : {};
  try {
    switch (request.type) {
      case "turn":
        onTurn(id, payload);
        break;
      case "start":
        onStart(id, payload);
        break;
      case "end":
        onEnd(id, payload);
        break;
      default:
        send(id, { error: `unknown request type ${JSON.stringify(request.type)}` });
    }
  } catch (error) {
    logError("adapter", error);
    send(id, { error: `adapter: ${describe(error)}` });
  }
}

function drain() {
  const lines = pending;
  pending = null;
  for (let i = 0; i < lines.length; i++) {
    if (pending !== null) {
      // Cannot happen (only the first start loads), but never reorder requests.
      pending.push(...lines.slice(i));
      return;
    }
    handle(lines[i]);
  }
  if (closed && pending === null) process.exit(0);
}

// A bot's stray asynchronous error (a rejected promise from an async playTurn, a throwing timer)
// is logged, never fatal: the player object stays usable.
process.on("unhandledRejection", (reason) => logError("a promise", reason));
process.on("uncaughtException", (error) => logError("an asynchronous callback", error));

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  if (pending !== null) pending.push(line);
  else handle(line);
});
input.on("close", () => {
  closed = true;
  if (pending === null) process.exit(0);
});
