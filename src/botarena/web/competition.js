// A competition's public page (/competition/{cid}, specs/arena.md Pages): the leaderboard (paged,
// provisional rows marked, URL entries marked "external: not sandboxed"), the recent matches (paged
// by the server's cursor) each opening the viewer on its replay (which the server gives the public
// without any log), the arena's figures and the public rules and limits.
//
// Test hooks: window.__competition = {ready, error, boardLoaded, matchesLoaded, cursor}.

import { $, el, fixed, resultText, showError, when } from "./arena-lib.js";
import { api, cell, pill, pathId, seatName } from "./arena-api.js";

const REFRESH_MS = 5000;
const BOARD_PAGE = 50;
const MATCH_PAGE = 20;

const state = {
  cid: pathId("/competition"),
  error: null,
  loaded: false,
  boardLoaded: false,
  matchesLoaded: false,
  offset: 0,
  total: 0,
  before: null, // the cursor of the match page shown (null: the newest)
  next: null,
};

const base = () => `/api/competitions/${state.cid}`;

function setError(message) {
  state.error = message;
  showError(message);
}

function fact(list, key, value, testid) {
  list.append(el("dt", { text: key }), el("dd", { "data-testid": testid, text: value }));
}

function showCompetition(c) {
  document.title = `${c.name} · botarena`;
  $("name").textContent = c.name;
  $("phase").replaceChildren(pill(c.phase, "held", "phase-pill"));
  $("game").textContent = c.game;
  $("preset").textContent = c.preset;
  $("format").textContent = c.format;
  $("players").textContent = String(c.players);
  $("created").textContent = when(c.created_at);
  const counts = c.counts || {};
  $("counts").textContent = Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(" · ");
  const rules = $("rules");
  rules.replaceChildren();
  for (const [key, value] of Object.entries(c.policy || {}).sort(([a], [b]) => a.localeCompare(b))) {
    fact(rules, key, typeof value === "object" ? JSON.stringify(value) : String(value), `rule-${key}`);
  }
  $("page").hidden = false;
}

// ------------------------------------------------------------------------------------ leaderboard

function boardRow(r) {
  const marks = [];
  if (r.provisional) marks.push(el("span", { class: "pill", "data-testid": "lb-provisional", title: "provisional: too few games or σ still wide", text: "provisional" }));
  if (r.external) marks.push(el("span", { class: "pill pill-held", "data-testid": "lb-external", text: r.external }));
  return el(
    "tr",
    { "data-testid": "lb-row", "data-team-id": r.team_id },
    cell(r.provisional ? `${r.rank}*` : r.rank, { class: "num", "data-testid": "lb-rank" }),
    cell(r.team, { class: "name", "data-testid": "lb-team" }),
    cell(r.version, { class: "num", "data-testid": "lb-version" }),
    cell(fixed(r.ordinal), { class: "num", "data-testid": "lb-ordinal" }),
    cell(fixed(r.mu), { class: "num" }),
    cell(fixed(r.sigma), { class: "num" }),
    cell(r.games, { class: "num", "data-testid": "lb-games" }),
    cell(r.wins, { class: "num" }),
    cell(r.draws, { class: "num" }),
    cell(r.losses, { class: "num" }),
    el("td", {}, ...marks),
  );
}

async function loadBoard() {
  const page = await api(`${base()}/leaderboard?offset=${state.offset}&limit=${BOARD_PAGE}`);
  state.total = page.total;
  $("board-rows").replaceChildren(...page.rows.map(boardRow));
  $("board-empty").hidden = page.rows.length > 0;
  const last = Math.min(page.total, state.offset + page.rows.length);
  $("board-info").textContent = page.total ? `${state.offset + 1}–${last} of ${page.total}` : "";
  $("board-prev").disabled = state.offset === 0;
  $("board-next").disabled = last >= page.total;
  state.boardLoaded = true;
}

// ------------------------------------------------------------------------------------ matches

function matchRow(m) {
  const names = m.seats.map(seatName);
  const players = el("span", {});
  names.forEach((name, i) => {
    if (i) players.append(el("span", { class: "seat-sep", text: " vs " }));
    players.append(el("span", { class: "name", text: name }));
    if (m.seats[i].external) players.append(el("span", { class: "muted", text: ` (${m.seats[i].external})` }));
  });
  const ranks = m.seats.map((s) => s.rank);
  const scores = m.seats.map((s) => s.score);
  const done = ranks.every((r) => typeof r === "number");
  const id = m.replay_url
    ? el("a", { href: `/index.html?replay=${encodeURIComponent(m.replay_url)}`, "data-testid": "watch", text: `#${m.id}` })
    : el("span", { text: `#${m.id}` });
  return el(
    "tr",
    { "data-testid": "match-row", "data-match-id": m.id },
    el("td", {}, id),
    cell(m.reason ? `${m.kind} (${m.reason})` : m.kind),
    el("td", {}, pill(m.status, m.status, "match-status")),
    el("td", {}, players),
    cell(done ? resultText(names, ranks, scores.every((s) => typeof s === "number") ? scores : null) : ""),
    cell(when(m.finished_at), { class: "muted" }),
  );
}

async function loadMatches() {
  const query = new URLSearchParams({ limit: String(MATCH_PAGE) });
  if (state.before != null) query.set("before", String(state.before));
  const page = await api(`${base()}/matches?${query}`);
  $("match-rows").replaceChildren(...page.matches.map(matchRow));
  $("matches-empty").hidden = page.matches.length > 0 || state.before != null;
  state.next = page.next_before;
  $("matches-older").disabled = page.next_before == null;
  $("matches-newest").disabled = state.before == null;
  state.matchesLoaded = true;
}

// ------------------------------------------------------------------------------------ stats

async function loadStats() {
  const s = await api(`${base()}/stats`);
  const list = $("stats");
  list.replaceChildren();
  const flight = Object.entries(s.in_flight || {}).map(([k, n]) => `${n} ${k}`).join(", ") || "none";
  fact(list, "in flight", flight, "stat-in-flight");
  fact(list, "waiting validations", String(s.waiting_validations), "stat-waiting");
  fact(list, "oldest wait", s.oldest_wait_s == null ? "–" : `${Math.round(s.oldest_wait_s)} s`, "stat-oldest");
  const g = s.games_last_hour || {};
  fact(list, "rated games in the last hour per version (p10 / p50 / p90)",
    `${fixed(g.p10, 1)} / ${fixed(g.p50, 1)} / ${fixed(g.p90, 1)} over ${g.versions ?? 0} versions`, "stat-games");
}

async function refresh() {
  try {
    showCompetition(await api(base()));
    await loadBoard();
    if (state.before == null) await loadMatches(); // an older page stays as it is
    await loadStats();
    state.loaded = true;
    if (state.error) setError(null);
  } catch (err) {
    setError(err.message);
  }
  setTimeout(refresh, REFRESH_MS);
}

function wire() {
  const reload = (fn) => () => fn().catch((err) => setError(err.message));
  $("board-prev").addEventListener("click", reload(async () => {
    state.offset = Math.max(0, state.offset - BOARD_PAGE);
    await loadBoard();
  }));
  $("board-next").addEventListener("click", reload(async () => {
    state.offset += BOARD_PAGE;
    await loadBoard();
  }));
  $("matches-older").addEventListener("click", reload(async () => {
    if (state.next == null) return;
    state.before = state.next;
    await loadMatches();
  }));
  $("matches-newest").addEventListener("click", reload(async () => {
    state.before = null;
    await loadMatches();
  }));
}

window.__competition = {
  get ready() { return state.loaded || state.error !== null; },
  get error() { return state.error; },
  get boardLoaded() { return state.boardLoaded; },
  get matchesLoaded() { return state.matchesLoaded; },
  get cursor() { return state.before; },
};

if (state.cid === null) setError("this page's address names no competition: /competition/ID");
else {
  wire();
  refresh();
}
