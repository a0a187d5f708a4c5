// The viewer shell: loads a replay, drives playback, and shows what every game has in common
// (players, statuses, time, the record). Everything game-specific is in renderers/<game>.js.
//
// Test hooks: window.__botarena = {ready, error, replay, stepCount, currentStep, playing, speed, live, options,
// setStep(i), play(), pause(), setOption(key, value), probe(), load(replay), append(steps), finish(fields)}.
// `load`, `append` and `finish` are also how a live game feeds the page: `?live=<url>` follows a
// match's server-sent events (header -> load, steps -> append, end -> finish).

import { DEFAULT_COLORS, genericRenderer, getRenderer, scoreline, seatName } from "./registry.js";

const BASE_STEPS_PER_SECOND = 2;
const SPEEDS = [0.5, 1, 2, 4, 8, 16];
const STATUS_ORDER = ["OK", "INVALID", "TIMEOUT", "CRASHED"];
const GAME_ID = /^[a-z][a-z0-9_]*$/;

const $ = (id) => document.getElementById(id);
// A page written by `botarena view FILE --html`: the replay and its renderer are in the page, which
// may be opened from file://, where no module can be fetched: it loads nothing more.
const EMBEDDED = document.getElementById("replay-data");

const state = {
  replay: null,
  renderer: genericRenderer,
  step: 0,
  playing: false,
  speed: 1,
  ready: false,
  error: null,
  follow: true, // live: stay on the newest step while the user has not scrubbed away
  lastTick: 0,
  carry: 0,
  totals: null, // per-step prefix sums of time and status counts
};

// ---------------------------------------------------------------------------------------- loading

const GZIP_MAGIC = [0x1f, 0x8b];

const INFLATE_PIECE = 1 << 16;
const JOURNAL_MARK = new TextEncoder().encode('{"journal":');

// Bytes of a .json.gz inflated, or the bytes as they are (plain JSON). A failure says which:
// a stream that ends early (a truncated download or copy) or data that is not gzip. A replay
// journal (a game still running, or whose host was killed: `botarena.core.journal`) is flushed in
// pieces and a kill may cut its stream: it is read as far as it inflates.
async function inflate(buffer) {
  const bytes = new Uint8Array(buffer);
  if (bytes.length < 2 || bytes[0] !== GZIP_MAGIC[0] || bytes[1] !== GZIP_MAGIC[1]) return bytes;
  if (typeof DecompressionStream === "undefined") throw new Error("this browser cannot read .gz files");
  const stream = new DecompressionStream("gzip");
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  // Read as the output comes: an error discards what the stream still holds, and a cut journal's
  // output up to the cut is what it is opened for.
  const chunks = [];
  const reading = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        chunks.push(value);
      }
    } catch {
      /* the writer's error says what went wrong */
    }
  })();
  let failure = null;
  for (let at = 0; at < bytes.length && !failure; at += INFLATE_PIECE) {
    try {
      await writer.write(bytes.subarray(at, at + INFLATE_PIECE));
    } catch (err) {
      failure = new Error(`this replay's gzip data is corrupt (${err.message || err})`);
    }
  }
  if (!failure) {
    await new Promise((resolve) => setTimeout(resolve, 0)); // the reader takes every chunk out first
    try {
      await writer.close();
    } catch {
      failure = new Error(`this replay is truncated: the gzip stream ends early (after ${bytes.length} bytes)`);
    }
  }
  await reading;
  const output = concatBytes(chunks);
  if (failure && !isJournal(output)) throw failure;
  return output;
}

function concatBytes(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function isJournal(bytes) {
  if (bytes.length < JOURNAL_MARK.length) return false;
  return JOURNAL_MARK.every((b, i) => bytes[i] === b);
}

// The partial replay a journal holds up to its last complete step (as `botarena.core.replay.
// parse_journal` reads it): one JSON object a line, the header first; a kill can cut the last line.
export function parseJournal(text) {
  const lines = text.split("\n");
  lines.pop(); // after the last newline: nothing, or a line the kill cut short
  let first = null;
  try {
    first = JSON.parse(lines[0] ?? "");
  } catch {
    /* below */
  }
  if (!first || typeof first !== "object" || !first.header || typeof first.header !== "object") {
    throw new Error("this replay journal's header is missing or cut short");
  }
  if (first.journal !== 1) throw new Error(`unsupported replay journal version ${JSON.stringify(first.journal)} (this viewer reads 1)`);
  const replay = {
    ...first.header,
    format: "botarena.replay",
    format_version: 1,
    start: {},
    steps: [],
    keyframes: [],
    late: [],
    resumes: [],
    partial: true,
  };
  for (let k = 1; k < lines.length; k += 1) {
    let entry;
    try {
      entry = JSON.parse(lines[k]);
    } catch {
      break; // the torn end of a flush: nothing after it is complete
    }
    if (!takeJournalLine(replay, entry)) {
      throw new Error(`unreadable replay journal line ${k + 1}: ${JSON.stringify(lines[k].slice(0, 60))}`);
    }
  }
  // only what belongs to the recorded steps (a keyframe or resume can follow its step's line)
  const n = replay.steps.length;
  replay.keyframes = replay.keyframes.filter((f) => (f?.step ?? 0) <= n);
  replay.late = replay.late.filter((e) => (e?.after_step ?? 0) <= n);
  replay.resumes = replay.resumes.filter((e) => (e?.after_step ?? 0) <= n);
  return replay;
}

function takeJournalLine(replay, entry) {
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) return false;
  if ("step" in entry) {
    if (entry.n !== replay.steps.length + 1) return false;
    replay.steps.push(entry.step);
  } else if ("keyframe" in entry) replay.keyframes.push(entry.keyframe);
  else if ("late" in entry) replay.late.push(entry.late);
  else if ("start" in entry) replay.start = entry.start;
  else if ("resumed" in entry) replay.resumes.push(entry.resumed);
  else if (!("external" in entry)) return false; // outside inputs (Devops codes): nothing to show
  return true;
}

// Where `text` stops being JSON, for the error message (JSON.parse does not always say):
// {offset, end} with `end` true when the text simply stops (a truncated file).
export function jsonErrorAt(text) {
  let i = 0;
  const n = text.length;
  const stop = (end = i >= n) => {
    throw { offset: Math.min(i, n), end };
  };
  const space = () => {
    while (i < n && " \t\n\r".includes(text[i])) i += 1;
  };
  const literal = (word) => {
    for (const ch of word) {
      if (i >= n) stop(true);
      if (text[i] !== ch) stop(false);
      i += 1;
    }
  };
  const string = () => {
    i += 1; // the opening quote
    for (;;) {
      if (i >= n) stop(true);
      const ch = text[i];
      if (ch === '"') { i += 1; return; }
      if (ch === "\\") {
        i += 1;
        if (i >= n) stop(true);
        if (text[i] === "u") {
          for (let k = 1; k <= 4; k += 1) {
            if (i + k >= n) { i = n; stop(true); }
            if (!/[0-9a-fA-F]/.test(text[i + k])) { i += k; stop(false); }
          }
          i += 5;
        } else if ('"\\/bfnrt'.includes(text[i])) i += 1;
        else stop(false);
      } else if (ch < " ") stop(false);
      else i += 1;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) stop();
    i += match[0].length;
  };
  const value = () => {
    space();
    if (i >= n) stop(true);
    const ch = text[i];
    if (ch === "{" || ch === "[") {
      const close = ch === "{" ? "}" : "]";
      i += 1;
      space();
      if (text[i] === close) { i += 1; return; }
      for (;;) {
        if (ch === "{") {
          space();
          if (i >= n) stop(true);
          if (text[i] !== '"') stop(false);
          string();
          space();
          if (i >= n) stop(true);
          if (text[i] !== ":") stop(false);
          i += 1;
        }
        value();
        space();
        if (i >= n) stop(true);
        if (text[i] === close) { i += 1; return; }
        if (text[i] !== ",") stop(false);
        i += 1;
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    return number();
  };
  try {
    value();
    space();
    if (i < n) stop(false);
  } catch (err) {
    if (err && typeof err.offset === "number") return err;
    throw err;
  }
  return null;
}

function jsonError(text, bytes) {
  const at = jsonErrorAt(text);
  if (!at) return "not valid JSON";
  const byte = new TextEncoder().encode(text.slice(0, at.offset)).length;
  if (at.end) return `this replay is truncated: the JSON ends early at byte ${byte} of ${bytes}`;
  const near = JSON.stringify(text.slice(at.offset, at.offset + 12));
  return `not valid JSON at byte ${byte} (near ${near})`;
}

// A replay from raw bytes: gzip (the file as written) or plain JSON (also what a server sends
// with Content-Encoding: gzip, since the browser has already inflated it).
export async function parseReplay(buffer) {
  if (!buffer.byteLength) throw new Error("the file is empty");
  const bytes = await inflate(buffer);
  // a kill can cut a journal inside a character: only its (dropped) last line is torn
  if (isJournal(bytes)) return checkReplay(parseJournal(new TextDecoder("utf-8").decode(bytes)));
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error("not a botarena replay: the file is neither gzip nor UTF-8 JSON text");
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(jsonError(text, bytes.length));
  }
  return checkReplay(data);
}

// The fields the viewer cannot do without; the rest default (a live header has no steps yet).
function checkReplay(data) {
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw new Error(`not a botarena replay: the JSON is ${Array.isArray(data) ? "an array" : String(data === null ? "null" : typeof data)}, not an object`);
  }
  if (data.format === undefined) throw new Error("not a botarena replay: missing 'format'");
  if (data.format !== "botarena.replay") throw new Error(`not a botarena replay: 'format' is ${JSON.stringify(data.format)}`);
  if (data.format_version !== 1) throw new Error(`unsupported replay format version ${JSON.stringify(data.format_version)} (this viewer reads 1)`);
  if (typeof data.game !== "string" || !data.game) throw new Error("not a botarena replay: missing 'game'");
  for (const key of ["players", "steps"]) {
    if (data[key] !== undefined && !Array.isArray(data[key])) throw new Error(`not a botarena replay: '${key}' is not a list`);
  }
  return data;
}

// The replay a `botarena view FILE --html` page carries: its gzip JSON in base64 (so a long game's
// page stays near the size of its .json.gz file), expanded here as a dropped .json.gz file is.
async function embeddedReplay(element) {
  let binary;
  try {
    binary = atob(element.textContent);
  } catch {
    throw new Error("this page's embedded replay is damaged: it is not base64");
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return parseReplay(bytes.buffer);
}

async function loadFromUrl(url) {
  showMessage(`Loading ${url} …`);
  let response;
  try {
    response = await fetch(url, { cache: "no-store" });
  } catch (err) {
    throw new Error(`cannot fetch ${url}: ${err.message}`);
  }
  if (!response.ok) {
    let detail = "";
    try {
      detail = (await response.json()).detail || "";
    } catch {
      /* not JSON: the status line is enough */
    }
    throw new Error(`cannot load ${url}: HTTP ${response.status}${detail ? ` (${detail})` : ""}`);
  }
  return parseReplay(await response.arrayBuffer());
}

async function loadFromFile(file) {
  let buffer;
  try {
    buffer = await file.arrayBuffer();
  } catch (err) {
    throw new Error(`${file.name}: cannot read the file (${err.message || err})`);
  }
  try {
    return await parseReplay(buffer);
  } catch (err) {
    throw new Error(`${file.name}: ${err.message || err}`);
  }
}

async function rendererFor(game) {
  if (typeof game === "string" && GAME_ID.test(game)) {
    if (!getRenderer(game) && !EMBEDDED) {
      try {
        await import(`./renderers/${game}.js`);
      } catch (err) {
        console.warn(`no renderer for ${game}:`, err);
      }
    }
    const found = getRenderer(game);
    if (found) return found;
  }
  return genericRenderer;
}

async function openReplay(loader) {
  pause();
  state.ready = false;
  state.error = null; // until this load ends one way or the other
  try {
    const replay = await loader();
    state.renderer = await rendererFor(replay.game);
    setReplay(replay);
  } catch (err) {
    fail(err.message || String(err));
  }
}

function setReplay(replay) {
  replay.steps = replay.steps || [];
  replay.players = replay.players || [];
  state.replay = replay;
  state.step = 0;
  state.follow = true;
  state.error = null;
  $("error").hidden = true;
  $("welcome").hidden = true;
  $("viewer").hidden = false;
  setupCanvas();
  state.renderer.init?.($("canvas"), replay);
  computeTotals();
  renderHeader();
  buildPlayerPanels();
  buildOptions(true);
  renderLegend();
  renderLogs();
  updateSlider();
  fitCanvas(); // again: the header and the controls now hold their text, which may wrap
  render();
  state.ready = true;
  document.title = `${gameTitle()} · ${playerNames().join(" vs ")} · botarena`;
}

// Live games: more steps arrive after the page has loaded.
function appendSteps(steps) {
  const replay = state.replay;
  if (!replay) throw new Error("append before load");
  const wasAtEnd = state.step >= replay.steps.length - 1;
  for (const step of steps) replay.steps.push(step); // (push(...steps) overflows the stack on big batches)
  if (typeof state.renderer.size === "function") setupCanvas(); // the first keyframe may give the board
  state.renderer.init?.($("canvas"), replay);
  extendTotals();
  buildOptions(false);
  updateSlider();
  if (state.follow && wasAtEnd && !state.playing) state.step = Math.max(0, replay.steps.length - 1);
  render();
}

function finishReplay(fields) {
  Object.assign(state.replay, fields);
  state.renderer.init?.($("canvas"), state.replay);
  computeTotals();
  renderHeader();
  buildOptions(false);
  renderLogs();
  render();
}

function fail(message) {
  state.error = message;
  state.ready = false;
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
  $("welcome").hidden = true;
}

function showMessage(text) {
  $("welcome-text").textContent = text;
}

// ---------------------------------------------------------------------------------------- helpers

const stepCount = () => (state.replay ? state.replay.steps.length : 0);
const colorOf = (seat) => {
  const colors = state.renderer.colors || DEFAULT_COLORS;
  return colors[seat % colors.length];
};
const playerNames = () => state.replay.players.map((p) => p.name || `seat ${p.seat}`);

function gameTitle() {
  return state.renderer.title ? state.renderer.title(state.replay) : state.replay.game;
}

// One seat convention in every viewer and the CLI (README "Seats"): "seat N · name", N 0-based.
const seatLabel = (seat) => seatName(state.replay, seat);

function formatMs(ms) {
  if (ms == null || Number.isNaN(ms)) return "–";
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(3)} ms`;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "style") node.setAttribute("style", value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

// The verdict of `seat` in an exchange {replies, verdicts}: verdicts are in request order, and the
// replies say which seat each request went to.
function verdictOf(exchange, seat) {
  if (!exchange) return null;
  const replies = exchange.replies || [];
  const verdicts = exchange.verdicts || [];
  for (let i = 0; i < replies.length; i += 1) {
    if (replies[i] && replies[i].seat === seat) {
      const v = verdicts[i] || [replies[i].status, replies[i].reason ?? null];
      return { status: v[0], reason: v[1] ?? null, detail: v[2] ?? null, warnings: v[3] || [], ms: replies[i].ms };
    }
  }
  return null;
}

// Prefix sums per seat: time used and status counts up to and including each step (the start
// exchange included, as in the replay's own `statuses` and `time_used_ms`).
function computeTotals() {
  state.totals = null;
  extendTotals();
}

// The prefix sums of the steps appended since the last call (a live match grows step by step).
function extendTotals() {
  const replay = state.replay;
  const seats = replay.players.length;
  const add = (totals, exchange) => {
    totals.runMs = totals.runMs.slice();
    totals.runCounts = totals.runCounts.map((c) => ({ ...c }));
    for (let seat = 0; seat < seats; seat += 1) {
      const v = verdictOf(exchange, seat);
      if (!v) continue;
      totals.runMs[seat] += v.ms || 0;
      totals.runCounts[seat][v.status] = (totals.runCounts[seat][v.status] || 0) + 1;
    }
  };
  if (!state.totals) {
    state.totals = {
      ms: [],
      counts: [],
      runMs: new Array(seats).fill(0),
      runCounts: Array.from({ length: seats }, () => ({})),
    };
    add(state.totals, replay.start);
  }
  const totals = state.totals;
  for (let i = totals.ms.length; i < replay.steps.length; i += 1) {
    add(totals, replay.steps[i]);
    totals.ms.push(totals.runMs);
    totals.counts.push(totals.runCounts);
  }
}

function formatCounts(counts) {
  const keys = [...STATUS_ORDER, ...Object.keys(counts).filter((k) => !STATUS_ORDER.includes(k))];
  return keys.filter((k) => counts[k]).map((k) => `${k} ${counts[k]}`).join(" · ") || "–";
}

// ---------------------------------------------------------------------------------------- header

function defaultResultText(replay) {
  const result = replay.result || {};
  if (!result.ranks || !result.ranks.length) return "in progress";
  const names = replay.players.map((p, seat) => seatName(replay, seat));
  const best = Math.min(...result.ranks);
  const winners = result.ranks.map((r, i) => (r === best ? names[i] : null)).filter(Boolean);
  const scores = scoreline(result.scores);
  const head = winners.length === names.length ? "draw" : `${winners.join(", ")} wins`;
  return scores ? `${head} (${scores})` : head;
}

function renderHeader() {
  const replay = state.replay;
  $("game").textContent = gameTitle();
  $("game").title = `${replay.game} · rules ${replay.rules} · preset ${replay.preset}`;
  const players = $("players");
  players.replaceChildren();
  replay.players.forEach((p, seat) => {
    if (seat > 0) players.append(el("span", { class: "vs", text: " vs " }));
    players.append(el("span", { class: "pname", style: `color:${colorOf(seat)}`, text: p.name, title: seatLabel(seat) }));
  });
  // a live header holds no seed (it decides what the rules hide); the end event brings it
  $("seed").textContent = Number.isInteger(replay.seed) ? String(replay.seed) : "hidden until the end";
  const renderer = state.renderer;
  const partial = replay.partial === true;
  const result = $("result");
  result.textContent = partial
    ? partialText(replay)
    : renderer.resultText ? renderer.resultText(replay) : defaultResultText(replay);
  result.classList.toggle("partial", partial);
  result.title = partial
    ? "This replay was read from the journal of a game whose host stopped before the end: it has " +
      "the steps recorded up to then, and no result, totals or logs. `botarena play --resume FILE` goes on with it."
    : "";
  $("rules").textContent = `${replay.rules} · ${replay.preset}`;
  renderResumes(replay);
}

// A journal read before the game finished (a killed host, or a game still running): `partial` is set,
// and there is no result, end exchange, logs, time or status totals.
export function partialText(replay) {
  const n = (replay.steps || []).length;
  return `partial replay: the game did not finish (${n} step${n === 1 ? "" : "s"} recorded)`;
}

// A game resumed after its host was killed: where it went on live (`resumes[].after_step`).
export function resumedText(replay) {
  const after = (Array.isArray(replay.resumes) ? replay.resumes : [])
    .map((r) => r && r.after_step)
    .filter((k) => Number.isInteger(k));
  if (!after.length) return "";
  return `resumed after step${after.length === 1 ? "" : "s"} ${after.join(", ")}`;
}

function renderResumes(replay) {
  const note = $("resumed");
  const text = resumedText(replay);
  note.textContent = text;
  note.hidden = !text;
  note.title = text
    ? "The host was killed during this game; it was re-run from its recorded steps and went on " +
      "live with the same bots (botarena play --resume), so the replay is still one whole game."
    : "";
}

// ---------------------------------------------------------------------------------------- players

function buildPlayerPanels() {
  const box = $("player-panels");
  box.replaceChildren();
  state.replay.players.forEach((p, seat) => {
    const id = (key) => `player-${seat}-${key}`;
    const card = el(
      "section",
      { class: "pcard", "data-testid": id("card"), style: `--seat:${colorOf(seat)}` },
      el(
        "div",
        { class: "pcard-head" },
        el("span", { class: "swatch" }),
        // a long name ellipsizes (CSS); the whole name stays in its title
        el("span", { class: "pcard-name", id: id("name"), "data-testid": id("name"), text: p.name, title: p.name }),
        el("span", { class: "pcard-kind", text: p.kind || "bot" }),
      ),
      el("div", { class: "pcard-seat", "data-testid": id("seat"), title: seatLabel(seat), text: seatLabel(seat) }),
      el(
        "div",
        { class: "pcard-status" },
        el("span", { class: "badge", id: id("status"), "data-testid": id("status") }),
        el("span", { class: "reason", id: id("reason"), "data-testid": id("reason") }),
      ),
      el("dl", { class: "fields", id: id("fields") }),
      el(
        "div",
        { class: "times" },
        el("span", { text: "step " }),
        el("b", { id: id("time-step"), "data-testid": id("time-step") }),
        el("span", { text: " · so far " }),
        el("b", { id: id("time-total"), "data-testid": id("time-total") }),
        el("span", { text: " · match " }),
        el("b", { id: id("time-match"), "data-testid": id("time-match") }),
      ),
      el("div", { class: "counts", id: id("counts"), "data-testid": id("counts") }),
      el("div", { class: "warnings", id: id("warnings"), "data-testid": id("warnings") }),
      el("pre", { class: "pcard-step-log", id: id("step-log"), "data-testid": id("step-log"), hidden: "" }),
      el(
        "details",
        { class: "pcard-log", id: id("log"), "data-testid": id("log") },
        el("summary", { id: id("log-summary"), text: "log" }),
        el("pre", { id: id("log-text"), "data-testid": id("log-text") }),
      ),
    );
    box.append(card);
  });
}

function renderPlayers() {
  const replay = state.replay;
  const index = state.step;
  const step = replay.steps[index];
  replay.players.forEach((p, seat) => {
    const id = (key) => $(`player-${seat}-${key}`);
    const v = verdictOf(step, seat);
    const badge = id("status");
    const status = v ? v.status : "–";
    badge.textContent = status;
    badge.className = `badge status-${String(status).toLowerCase()}`;
    id("reason").textContent = v && v.reason ? v.reason : "";
    id("reason").title = v && v.detail ? v.detail : "";
    id("warnings").textContent = v && v.warnings.length
      ? v.warnings.map((w) => `${w.code}: ${w.detail}`).join("\n")
      : "";
    id("time-step").textContent = v ? formatMs(v.ms) : "–";
    const soFar = state.totals.ms[index];
    id("time-total").textContent = soFar ? formatMs(soFar[seat]) : formatMs(0);
    const matchMs = (replay.time_used_ms || [])[seat];
    id("time-match").textContent = matchMs == null ? "–" : formatMs(matchMs);
    const counts = state.totals.counts[index];
    id("counts").textContent = counts ? formatCounts(counts[seat]) : "–";
    const whole = (replay.statuses || [])[seat];
    id("counts").title = whole ? `whole match: ${formatCounts(whole)}` : "";
    const fields = state.renderer.playerFields && step ? state.renderer.playerFields(replay, index, seat) : [];
    renderFields(id("fields"), seat, fields);
  });
}

// The renderer's fields of one panel: values updated in place while the fields stay the same (a
// 100-team match redraws 100 panels per step), the list rebuilt when they change.
function renderFields(list, seat, fields) {
  const keys = fields.map((f) => `${f.key}\u0000${f.label}`).join("\u0001");
  if (list.dataset.keys === keys) {
    const values = list.querySelectorAll("dd");
    fields.forEach((f, k) => {
      const value = String(f.value);
      if (values[k].textContent !== value) values[k].textContent = value;
    });
    return;
  }
  list.dataset.keys = keys;
  list.replaceChildren();
  for (const f of fields) {
    list.append(el("dt", { text: f.label }));
    list.append(el("dd", { id: `player-${seat}-${f.key}`, "data-testid": `player-${seat}-${f.key}`, text: String(f.value) }));
  }
}

// ---------------------------------------------------------------------------------------- options

// The renderer's view options (e.g. "view as" a team, a hidden layer) as controls under the canvas.
// Rebuilt only when the list changes, so a live match's steps do not reset a control in use.
let optionsSignature = null;

function currentOptions() {
  const r = state.renderer;
  return r.options && state.replay ? r.options(state.replay) || [] : [];
}

function buildOptions(force) {
  const options = currentOptions();
  const signature = JSON.stringify(options.map((o) => [o.key, o.label, o.toggle ? 1 : 0, (o.choices || []).map((c) => [c.value, c.label])]));
  if (!force && signature === optionsSignature) return;
  optionsSignature = signature;
  const box = $("options");
  box.replaceChildren();
  for (const option of options) {
    const testid = `option-${option.key}`;
    let control;
    if (option.toggle) {
      control = el("input", { type: "checkbox", "data-testid": testid });
      control.checked = !!option.value;
      control.addEventListener("change", () => setOption(option.key, control.checked));
    } else {
      control = el("select", { "data-testid": testid });
      control.replaceChildren(...(option.choices || []).map((c) => el("option", { value: String(c.value), text: c.label })));
      control.value = String(option.value);
      control.addEventListener("change", () => setOption(option.key, control.value));
    }
    box.append(el("label", { title: option.title || option.label }, option.label, control));
  }
}

function setOption(key, value) {
  if (!state.replay || !state.renderer.setOption) return;
  state.renderer.setOption(key, value);
  render();
}

// ---------------------------------------------------------------------------------------- legend

// The renderer's legend under the canvas: a small glyph in its colour, then what it means.
function renderLegend() {
  const box = $("legend");
  const items = state.renderer.legend ? state.renderer.legend(state.replay) || [] : [];
  box.replaceChildren(
    ...items.map((item) =>
      el(
        "li",
        { class: "legend-item", "data-testid": "legend-item" },
        el("span", { class: `glyph glyph-${item.shape || "square"}`, style: `--c:${item.color}`, "aria-hidden": "true", text: item.text || "" }),
        el("span", { text: item.label }),
      ),
    ),
  );
  box.hidden = items.length === 0;
}

// ---------------------------------------------------------------------------------------- logs

// Each seat's stdout/stderr for the whole match, collapsed in its panel. (Replays keep a seat's log
// as one capped text, not per step: the runner does not record where each step's output starts.)
function renderLogs() {
  const bySeat = new Map((state.replay.logs || []).map((log) => [log.seat, log]));
  state.replay.players.forEach((p, seat) => {
    const log = bySeat.get(seat) || {};
    const text = log.text || "";
    const lines = text ? text.replace(/\n$/, "").split("\n").length : 0;
    const dropped = log.dropped_bytes ? `, ${log.dropped_bytes} bytes dropped` : "";
    $(`player-${seat}-log-summary`).textContent = lines || dropped
      ? `log for the whole match (${lines} line${lines === 1 ? "" : "s"}${dropped})`
      : state.replay.partial === true ? "log: not recorded (the game did not finish)" : "log: no output";
    $(`player-${seat}-log-text`).textContent =
      text + (log.dropped_bytes ? `\n… ${log.dropped_bytes} bytes dropped (the log is capped)` : "");
    $(`player-${seat}-log`).classList.toggle("empty", !(lines || dropped));
  });
}

// What each seat printed during the shown step: its log's `marks` ([step, UTF-8 offset], step 0 the
// start exchange) cut the text into the part each step wrote (a process's stderr is read by its own
// thread, so that part can lag a little behind the replies).
const stepLogCache = new WeakMap();

function stepLogParts(log) {
  let parts = stepLogCache.get(log);
  if (parts) return parts;
  parts = new Map();
  const bytes = new TextEncoder().encode(log.text || "");
  const marks = Array.isArray(log.marks) ? log.marks : [];
  const decoder = new TextDecoder();
  marks.forEach(([step, offset], i) => {
    const end = i + 1 < marks.length ? marks[i + 1][1] : bytes.length;
    const text = decoder.decode(bytes.subarray(offset, end));
    parts.set(step, (parts.get(step) || "") + text);
  });
  stepLogCache.set(log, parts);
  return parts;
}

function renderStepLogs(index) {
  const bySeat = new Map((state.replay.logs || []).map((log) => [log.seat, log]));
  state.replay.players.forEach((p, seat) => {
    const box = $(`player-${seat}-step-log`);
    if (!box) return;
    const log = bySeat.get(seat);
    const text = log ? stepLogParts(log).get(index + 1) || "" : "";
    box.textContent = text.replace(/\n$/, "");
    box.hidden = !text;
  });
}

// ---------------------------------------------------------------------------------------- canvas

// The canvas's logical size: a renderer's fixed size, or size(replay) for a board whose shape
// depends on the match (Devops: the map's width and height).
function canvasSize() {
  const size = state.renderer.size;
  const chosen = typeof size === "function" && state.replay ? size(state.replay) : size;
  return chosen && chosen.width > 0 && chosen.height > 0 ? chosen : { width: 960, height: 540 };
}

// The box the canvas may fill: the stage's width, and the window's height less what sits above the
// canvas and the controls under it, so the controls stay in view in any window or notebook frame.
function stageBox() {
  const canvas = $("canvas");
  const stage = canvas.parentElement;
  const below = [...stage.children].filter((e) => e !== canvas && !e.hidden && e.classList.contains("fit"));
  const under = below.reduce((sum, e) => sum + e.getBoundingClientRect().height, 0) + 24;
  const top = canvas.getBoundingClientRect().top + window.scrollY;
  return { width: stage.clientWidth, height: Math.max(160, window.innerHeight - top - under) };
}

// Scale the canvas (keeping its aspect) to the largest size that fits the stage box.
function fitCanvas() {
  const canvas = $("canvas");
  if (!state.replay || $("viewer").hidden) return;
  const { width, height } = canvasSize();
  const box = stageBox();
  const scale = Math.min(box.width / width, box.height / height);
  canvas.style.width = `${Math.floor(width * scale)}px`;
  state.stage = box;
}

function setupCanvas() {
  const canvas = $("canvas");
  const { width, height } = canvasSize();
  const dpr = Math.max(1, Math.round(window.devicePixelRatio || 1));
  if (canvas.width !== width * dpr || canvas.height !== height * dpr) {
    canvas.width = width * dpr;
    canvas.height = height * dpr;
  }
  canvas.style.aspectRatio = `${width} / ${height}`;
  canvas.dataset.dpr = String(dpr);
  fitCanvas();
}

function drawCanvas() {
  const canvas = $("canvas");
  const ctx = canvas.getContext("2d");
  const dpr = Number(canvas.dataset.dpr || 1);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const { width, height } = canvasSize();
  ctx.clearRect(0, 0, width, height);
  if (stepCount() === 0) {
    ctx.fillStyle = "#0b1220";
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = "#94a3b8";
    ctx.font = "600 20px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.fillText("Waiting for the first turn…", width / 2, height / 2);
    ctx.textAlign = "start";
    return;
  }
  ctx.save();
  state.renderer.draw(ctx, state.replay, state.step);
  ctx.restore();
}

// ---------------------------------------------------------------------------------------- render

function stepLabel(index) {
  if (!stepCount()) return "No turns yet";
  const r = state.renderer;
  return r.stepLabel ? r.stepLabel(state.replay, index) : `Step ${index + 1}`;
}

function render() {
  if (!state.replay) return;
  const n = stepCount();
  const index = state.step;
  $("step-label").textContent = stepLabel(index);
  $("step-counter").textContent = n ? `${index + 1} / ${n}` : "0 / 0";
  const slider = $("scrub");
  if (Number(slider.value) !== index) slider.value = String(index);
  $("play").textContent = state.playing ? "❚❚" : "▶";
  $("play").title = state.playing ? "Pause (space)" : "Play (space)";
  const step = state.replay.steps[index];
  const r = state.renderer;
  $("record").textContent = step
    ? (r.describe ? r.describe(state.replay, index) : JSON.stringify(step.record, null, 2))
    : "No turns yet.";
  $("record-json").textContent = step ? JSON.stringify(step, null, 1) : "";
  renderPlayers();
  renderStepLogs(index);
  drawCanvas();
}

function updateSlider() {
  const slider = $("scrub");
  slider.max = String(Math.max(0, stepCount() - 1));
  slider.disabled = stepCount() <= 1;
}

// ---------------------------------------------------------------------------------------- playback

function setStep(index) {
  const n = stepCount();
  if (!n) return;
  const clamped = Math.min(n - 1, Math.max(0, Math.trunc(Number(index) || 0)));
  state.follow = clamped === n - 1;
  if (clamped === state.step) {
    render();
    return;
  }
  state.step = clamped;
  render();
}

function play() {
  if (!state.replay || stepCount() <= 1) return;
  if (state.step >= stepCount() - 1) state.step = 0; // play again from the start
  state.playing = true;
  state.lastTick = performance.now();
  state.carry = 0;
  render();
  requestAnimationFrame(tick);
}

function pause() {
  if (!state.playing) return;
  state.playing = false;
  render();
}

function toggle() {
  if (state.playing) pause();
  else play();
}

function tick(now) {
  if (!state.playing) return;
  const interval = 1000 / (BASE_STEPS_PER_SECOND * state.speed);
  state.carry += now - state.lastTick;
  state.lastTick = now;
  if (state.carry >= interval) {
    const advance = Math.floor(state.carry / interval);
    state.carry -= advance * interval;
    const last = stepCount() - 1;
    state.step = Math.min(last, state.step + advance);
    state.follow = state.step === last;
    if (state.step >= last) state.playing = false;
    render();
  }
  if (state.playing) requestAnimationFrame(tick);
}

function setSpeed(value) {
  const speed = Number(value);
  if (!SPEEDS.includes(speed)) return;
  state.speed = speed;
  $("speed").value = String(speed);
}

// ---------------------------------------------------------------------------------------- wiring

function bindControls() {
  window.addEventListener("resize", fitCanvas);
  $("play").addEventListener("click", toggle);
  $("first").addEventListener("click", () => { pause(); setStep(0); });
  $("back").addEventListener("click", () => { pause(); setStep(state.step - 1); });
  $("forward").addEventListener("click", () => { pause(); setStep(state.step + 1); });
  $("last").addEventListener("click", () => { pause(); setStep(stepCount() - 1); });
  const slider = $("scrub");
  const onSlide = () => { pause(); setStep(slider.value); };
  slider.addEventListener("input", onSlide);
  slider.addEventListener("change", onSlide);
  const speed = $("speed");
  speed.replaceChildren(...SPEEDS.map((s) => el("option", { value: String(s), text: `${s}×` })));
  speed.value = String(state.speed);
  speed.addEventListener("change", () => setSpeed(speed.value));
  $("file").addEventListener("change", (event) => {
    const file = event.target.files && event.target.files[0];
    if (file) openReplay(() => loadFromFile(file));
    event.target.value = "";
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const tag = target && target.tagName;
    if (tag === "SELECT" || (tag === "INPUT" && target.type !== "range")) return;
    const onSlider = target === slider; // the slider moves itself with the arrow keys
    switch (event.key) {
      case " ":
        event.preventDefault();
        toggle();
        break;
      case "ArrowLeft":
        if (onSlider) return;
        event.preventDefault();
        pause();
        setStep(state.step - (event.shiftKey ? 10 : 1));
        break;
      case "ArrowRight":
        if (onSlider) return;
        event.preventDefault();
        pause();
        setStep(state.step + (event.shiftKey ? 10 : 1));
        break;
      case "Home":
        event.preventDefault();
        pause();
        setStep(0);
        break;
      case "End":
        event.preventDefault();
        pause();
        setStep(stepCount() - 1);
        break;
      default:
    }
  });
  // A focused button would also "click" on the space key's keyup: the keydown already toggled.
  document.addEventListener("keyup", (event) => {
    if (event.key === " " && event.target && event.target.tagName === "BUTTON") event.preventDefault();
  });

  window.addEventListener("dragover", (event) => {
    event.preventDefault();
    document.body.classList.add("dragging");
  });
  window.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
  window.addEventListener("drop", (event) => {
    event.preventDefault();
    document.body.classList.remove("dragging");
    const file = event.dataTransfer && event.dataTransfer.files[0];
    if (file) openReplay(() => loadFromFile(file));
  });
}

// ---------------------------------------------------------------------------------------- live

// `?live=<url>`: a match as it is played, from the server's event stream (/api/live/<key>/events):
// "header" (the replay without steps) loads it, "steps" ({first, steps}) append, "end" ({fields,
// replay_url}) finishes it. The view follows the newest step unless the user has moved away.
// A match of a game that hides part of its state is shown as the server's spectator policy says:
// "held" ({game, players, policy, delay, played}) while nothing of it may be seen yet (its header
// follows on the same stream once it may), and a header's `spectators.delay` when it runs behind.
const LIVE_LABELS = {
  connecting: "CONNECTING",
  held: "HELD BACK",
  live: "LIVE",
  reconnecting: "RECONNECTING",
  ended: "ENDED",
  offline: "OFFLINE",
};

const live = {
  source: null,
  state: "off", // off | connecting | held | live | reconnecting | ended | offline
  key: null,
  held: null, // the last "held" notice, while the spectator policy holds the match back
  behind: 0, // delayed: how many steps behind the match the stream runs
  skipped: 0, // steps the server no longer held when we joined (its live buffer is bounded)
  replayUrl: null,
  queue: Promise.resolve(), // events are handled one after the other (loading a renderer is async)
};

function setLiveState(value) {
  live.state = value;
  const badge = $("live");
  badge.hidden = value === "off";
  badge.className = `live-badge live-${value}`;
  badge.textContent = LIVE_LABELS[value] || value.toUpperCase();
  if (value === "live" && live.behind) badge.textContent += ` · ${live.behind} STEPS BEHIND`;
  badge.title = live.skipped ? `${live.skipped} early steps were no longer held by the server` : "";
  if (value === "live" && live.behind) {
    badge.title = `this game hides part of its state from the players: spectators see it ${live.behind} steps late`;
  }
  if (state.replay) document.title = `${value === "live" ? "● " : ""}${gameTitle()} · ${playerNames().join(" vs ")} · botarena`;
}

function showStoredReplay(url) {
  live.replayUrl = url;
  const link = $("stored-replay");
  link.hidden = !url;
  if (url) link.href = `index.html?replay=${encodeURIComponent(url)}`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// What a held match's page says: who plays, how far it is, and when its view opens.
function heldText(notice) {
  const players = Array.isArray(notice.players) ? notice.players.join(" vs ") : "";
  const what = `${notice.game || "This match"}${players ? ` · ${players}` : ""}`;
  const played = `${plural(Number(notice.played) || 0, "step")} played so far`;
  const why = "this game hides part of its state from the players";
  if (notice.policy === "delayed") {
    return `${what}: ${why}, so its live view runs ${plural(notice.delay, "step")} behind; it opens once step ${notice.delay} has been played (${played}).`;
  }
  if (notice.policy === "organizer") {
    if (notice.over) return `${what}: ${why}, so only the organizer watched it live. It is over: its replay is public now.`;
    return `${what}: ${why}, so only the organizer watches it live; its replay is public once it ends (${played}).`;
  }
  return `${what}: ${why}, so its live view opens when the match ends (${played}).`;
}

function onLiveHeld(data) {
  if (!data) return;
  live.key = data.key || null;
  live.held = data;
  if (state.replay) {
    // (a match started again while held back: its earlier attempt is no longer the match)
    $("viewer").hidden = true;
    $("welcome").hidden = false;
  }
  showMessage(heldText(data));
  // the top bar says who plays, as it does once the match shows (nothing of its state)
  $("game").textContent = data.game || "";
  $("players").replaceChildren(...(Array.isArray(data.players) ? data.players : []).flatMap((name, seat) =>
    [seat ? el("span", { class: "vs", text: " vs " }) : null, el("span", { class: "pname", text: String(name) })].filter(Boolean),
  ));
  $("seed").textContent = "hidden until the end";
  $("result").textContent = data.over ? "over" : "in progress";
  if (data.over) {
    // nothing of it was ever shown live (organizer only): the stream ends; its replay is stored
    if (live.source) live.source.close(); // (an EventSource would reconnect)
    showStoredReplay(data.replay_url || null);
    setLiveState("ended");
    return;
  }
  setLiveState("held");
}

async function onLiveHeader(data) {
  if (!data || !data.replay) throw new Error("the live header has no replay");
  live.key = data.key || null;
  live.held = null;
  const view = data.spectators || {};
  live.behind = view.policy === "delayed" && Number.isInteger(view.delay) ? view.delay : 0;
  live.skipped = 0;
  showStoredReplay(null);
  await openReplay(async () => checkReplay({ ...data.replay, steps: [] }));
  if (state.ready) setLiveState("live");
}

function onLiveSteps(data) {
  if (!state.replay || !data || !Array.isArray(data.steps)) return;
  const have = stepCount();
  const first = Number.isInteger(data.first) ? data.first : have;
  let steps = data.steps;
  if (first < have) steps = steps.slice(have - first); // already here (a resent batch)
  else if (first > have) live.skipped += first - have; // a gap: the server let those steps go
  if (steps.length) appendSteps(steps);
  if (live.skipped) setLiveState(live.state);
}

function onLiveEnd(data) {
  if (!state.replay) return;
  finishReplay((data && data.fields) || {});
  setLiveState("ended");
  showStoredReplay(data && data.replay_url);
}

// Why the stream could not be opened (EventSource does not tell): ask once with fetch.
async function explainLiveFailure(url) {
  const controller = new AbortController();
  let message = `cannot follow ${url}`;
  try {
    const response = await fetch(url, { cache: "no-store", signal: controller.signal });
    if (!response.ok) {
      let detail = "";
      try {
        detail = (await response.json()).detail || "";
      } catch {
        /* not JSON */
      }
      message += `: HTTP ${response.status}${detail ? ` (${detail})` : ""}`;
    } else {
      message += ": the stream closed";
    }
  } catch (err) {
    message += `: ${err.message || err}`;
  } finally {
    controller.abort();
  }
  setLiveState("offline");
  if (!state.replay) fail(message);
}

function openLive(url) {
  showMessage(`Connecting to ${url} …`);
  setLiveState("connecting");
  const source = new EventSource(url);
  live.source = source;
  const handle = (handler) => (event) => {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch (err) {
      data = null;
    }
    live.queue = live.queue
      .then(() => handler(data))
      .catch((err) => fail(`live: ${err.message || err}`));
  };
  source.addEventListener("held", handle(onLiveHeld));
  source.addEventListener("header", handle(onLiveHeader));
  source.addEventListener("steps", handle(onLiveSteps));
  const onEnd = handle(onLiveEnd);
  source.addEventListener("end", (event) => {
    source.close(); // before the server closes the stream: an EventSource would reconnect
    onEnd(event);
  });
  source.addEventListener("error", () => {
    if (live.state === "ended") return;
    if (source.readyState === EventSource.CLOSED) {
      // refused (404: no such live match) or not an event stream: the browser will not retry
      live.queue = live.queue.then(() => explainLiveFailure(url));
    } else {
      setLiveState("reconnecting"); // the browser reconnects by itself; the header reloads the match
    }
  });
}

function probe() {
  if (!state.replay || !state.renderer.probe || !stepCount()) return null;
  const dpr = Number($("canvas").dataset.dpr || 1);
  return { dpr, ...state.renderer.probe(state.replay, state.step) };
}

window.__botarena = {
  get ready() { return state.ready; },
  get error() { return state.error; },
  get replay() { return state.replay; },
  get stepCount() { return stepCount(); },
  get currentStep() { return state.step; },
  get playing() { return state.playing; },
  get speed() { return state.speed; },
  get live() { return live.state; },
  get stage() { return state.stage || null; },
  get held() { return live.held; },
  get behind() { return live.behind; },
  setStep,
  play,
  pause,
  setSpeed,
  setOption,
  get options() { return currentOptions(); },
  probe,
  load: (replay) => openReplay(async () => checkReplay(replay)),
  append: (steps) => appendSteps(Array.isArray(steps) ? steps : [steps]),
  finish: finishReplay,
};

bindControls();
const params = new URLSearchParams(window.location.search);
const liveSource = params.get("live");
const source = params.get("replay");
// Opened from the arena (a live match or a stored one): offer the way back.
$("arena-link").hidden = !(liveSource || (source && source.startsWith("/api/matches/")));
if (EMBEDDED) {
  openReplay(() => embeddedReplay(EMBEDDED));
} else if (liveSource) {
  openLive(new URL(liveSource, window.location.href).href);
} else if (source) {
  openReplay(() => loadFromUrl(new URL(source, window.location.href).href));
} else {
  showMessage("Open a replay file (.json.gz or .json), drop one on the page, or pass ?replay=<url>.");
}
