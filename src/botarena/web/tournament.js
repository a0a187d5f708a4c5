// One tournament (tournament.html?id=N): its leaderboard, the drones-2018 standings when it has them,
// the game's own standings table when its game declares one (leaderboard.game_standings: title,
// columns, rows), the head-to-head matrix and the match list, refreshed every two seconds while it runs.
//
// Every entrant that never started, crashed, timed out or was invalid in a match (leaderboard.failures,
// issue 26 item 2) has its counts in the leaderboard and a line in the Failures card with its first
// reason; one that never started in any match is named in a warning above them.
//
// Test hooks: window.__tournament = {ready, error, refreshes, status, rows, matches, failing}.

import {
  $,
  el,
  fetchJson,
  fixed,
  liveViewerUrl,
  poll,
  progress,
  replayViewerUrl,
  resultText,
  showError,
  statusPill,
  when,
} from "./arena-lib.js";

const REFRESH_MS = 2000;
const PAGE_SIZE = 50;
const ACTIVE = new Set(["created", "running"]);

const state = {
  id: null,
  ready: false,
  error: null,
  refreshes: 0,
  tournament: null,
  leaderboard: null,
  matches: { total: 0, matches: [] },
  status: "", // the match list's filter
  offset: 0,
  gone: false,
};

function setError(message) {
  state.error = message;
  showError(message);
}

// ------------------------------------------------------------------------------------ header

function renderHeader(t) {
  document.title = `${t.name} · botarena`;
  $("name").textContent = t.name;
  $("status").replaceChildren(statusPill(t.status, "tournament-status"));
  $("progress").replaceChildren(progress(t.matches));
  $("game").textContent = t.game;
  $("format").textContent = t.format;
  $("preset").textContent = t.preset || "default";
  // null while the tournament is played: every match seed derives from it (DESIGN principle 7)
  $("seed").textContent = Number.isInteger(t.seed) ? String(t.seed) : "hidden until the end";
  $("entrants").textContent = t.entrants.map((e) => e.name).join(", ");
  $("created").textContent = when(t.created_at);
  $("finished").textContent = when(t.finished_at);
  $("finished-fact").hidden = !t.finished_at;
}

// ------------------------------------------------------------------------------------ leaderboard

const LEADERBOARD_COLUMNS = [
  ["rank", (r) => String(r.rank), "num"],
  ["name", (r) => r.name, "name"],
  ["ordinal", (r) => fixed(r.ordinal), "num"],
  ["mu", (r) => fixed(r.mu), "num"],
  ["sigma", (r) => fixed(r.sigma), "num"],
  ["played", (r) => String(r.played), "num"],
  ["wins", (r) => String(r.wins), "num"],
  ["draws", (r) => String(r.draws), "num"],
  ["losses", (r) => String(r.losses), "num"],
  ["points", (r) => fixed(r.points, Number.isInteger(r.points) ? 0 : 1), "num"],
];

const FAILURE_LABELS = [
  ["never_started", "never started"],
  ["crashed", "crashed"],
  ["timeout", "timed out"],
  ["invalid", "invalid"],
];

// "crashed 3/3, timed out 1/3" from an entrant's failure counts.
function failureCounts(entrant) {
  const counts = entrant.counts || {};
  return FAILURE_LABELS.filter(([key]) => counts[key] > 0)
    .map(([key, label]) => `${label} ${counts[key]}/${entrant.played}`)
    .join(", ");
}

function failuresByName(board) {
  return new Map((board.failures || []).map((entrant) => [entrant.name, entrant]));
}

function renderFailures(board) {
  const failing = board.failures || [];
  const dead = failing.filter((entrant) => entrant.dead);
  $("failures-card").hidden = failing.length === 0;
  $("dead-warning").hidden = dead.length === 0;
  $("dead-warning").textContent = dead.length
    ? `Never started in any of their matches: ${dead.map((e) => e.name).join(", ")}. Their results are forfeits.`
    : "";
  $("failure-rows").replaceChildren(
    ...failing.map((entrant) =>
      el(
        "tr",
        { "data-testid": "failure-row", class: entrant.dead ? "dead" : "" },
        el("td", { class: "name", "data-testid": "failure-name", text: entrant.name }),
        el("td", { "data-testid": "failure-counts", text: failureCounts(entrant) }),
        el("td", { "data-testid": "failure-first", text: firstFailure(entrant.first) }),
      ),
    ),
  );
}

// "CRASHED (bot_error) at step 1: ZeroDivisionError: ... (match r01-m002)"
function firstFailure(first) {
  if (!first) return "–";
  if (!first.status) return `no reason recorded (match ${first.match})`;
  const reason = first.reason ? ` (${first.reason})` : "";
  const detail = first.detail ? `: ${first.detail}` : "";
  return `${first.status}${reason} at ${first.where}${detail} (match ${first.match})`;
}

function renderLeaderboard(board) {
  const rows = board.rows || [];
  const failures = failuresByName(board);
  $("leaderboard-rows").replaceChildren(
    ...rows.map((row) =>
      el(
        "tr",
        { "data-testid": "leaderboard-row" },
        ...LEADERBOARD_COLUMNS.map(([key, value, cls]) =>
          el("td", { class: cls, "data-testid": `lb-${key}`, text: value(row) }),
        ),
        el("td", {
          class: failures.has(row.name) ? "failing" : "muted",
          "data-testid": "lb-failures",
          title: failures.has(row.name) ? failures.get(row.name).line : null,
          text: failures.has(row.name) ? failureCounts(failures.get(row.name)) : "–",
        }),
      ),
    ),
  );
  $("leaderboard-empty").hidden = rows.some((r) => r.played > 0);
}

// ------------------------------------------------------------------------------------ standings

const STANDING_LABELS = {
  rank: "rank",
  entrant: "entrant",
  points: "points",
  played: "played",
  wins: "W",
  draws: "D",
  losses: "L",
  round_wins: "rounds won",
  round_losses: "rounds lost",
  round_draws: "rounds drawn",
  round_difference: "round diff.",
};

function renderStandings(standings) {
  const card = $("standings-card");
  card.hidden = !Array.isArray(standings) || standings.length === 0;
  if (card.hidden) return;
  const keys = Object.keys(standings[0]);
  const ordered = [...Object.keys(STANDING_LABELS).filter((k) => keys.includes(k)), ...keys.filter((k) => !(k in STANDING_LABELS))];
  $("standings-head").replaceChildren(
    ...ordered.map((k) => el("th", { class: k === "entrant" ? "" : "num", text: STANDING_LABELS[k] || k })),
  );
  $("standings-rows").replaceChildren(
    ...standings.map((row) =>
      el(
        "tr",
        { "data-testid": "standings-row" },
        ...ordered.map((k) =>
          el("td", { class: k === "entrant" ? "name" : "num", "data-testid": `st-${k}`, text: String(row[k] ?? "–") }),
        ),
      ),
    ),
  );
}

// ------------------------------------------------------------------------------------ game standings

function standingsText(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number" && !Number.isInteger(value)) return fixed(value);
  return String(value);
}

// A table a game declares for itself ({title, columns: [{key, label}], rows}), shown as it comes.
function renderGameStandings(table) {
  const card = $("game-standings-card");
  const rows = (table && Array.isArray(table.rows) && table.rows) || [];
  const columns = (table && Array.isArray(table.columns) && table.columns) || [];
  card.hidden = rows.length === 0 || columns.length === 0;
  if (card.hidden) return;
  const textual = new Set(columns.filter((c) => rows.some((r) => typeof r[c.key] === "string")).map((c) => c.key));
  $("game-standings-title").textContent = table.title || "Standings";
  $("game-standings-head").replaceChildren(
    ...columns.map((c) => el("th", { class: textual.has(c.key) ? "" : "num", text: c.label })),
  );
  $("game-standings-rows").replaceChildren(
    ...rows.map((row) =>
      el(
        "tr",
        { "data-testid": "game-standings-row" },
        ...columns.map((c) =>
          el("td", { class: textual.has(c.key) ? "name" : "num", "data-testid": `gs-${c.key}`, text: standingsText(row[c.key]) }),
        ),
      ),
    ),
  );
}

// ------------------------------------------------------------------------------------ pair matrix

function pairCell(rowName, colName, cell, i, j) {
  const testid = `pair-${i}-${j}`;
  if (i === j) return el("td", { class: "cell self", "data-testid": testid });
  if (!cell || !cell.played) return el("td", { class: "cell muted", "data-testid": testid, text: "–" });
  const [low, high] = cell.ci || [null, null];
  const title =
    `${rowName} vs ${colName}: ${cell.wins} won, ${cell.draws} drawn, ${cell.losses} lost of ${cell.played}` +
    ` · score ${fixed(cell.score)} (95% CI ${fixed(low)}–${fixed(high)})`;
  const hue = Math.round(120 * Math.min(1, Math.max(0, cell.score)));
  return el(
    "td",
    { class: "cell", "data-testid": testid, title, style: `background: hsla(${hue}, 70%, 40%, 0.28)` },
    el("span", { class: "wdl", text: `${cell.wins}-${cell.draws}-${cell.losses}` }),
    el("span", { class: "score", text: fixed(cell.score) }),
  );
}

function renderPairs(pairs) {
  const names = (pairs && pairs.names) || [];
  const cells = (pairs && pairs.cells) || [];
  $("pairs-head").replaceChildren(el("th", { text: "vs" }), ...names.map((n) => el("th", { class: "col", text: n })));
  $("pairs-rows").replaceChildren(
    ...names.map((name, i) =>
      el(
        "tr",
        { "data-testid": "pair-row" },
        el("td", { class: "name", text: name }),
        ...names.map((other, j) => pairCell(name, other, (cells[i] || [])[j], i, j)),
      ),
    ),
  );
}

// ------------------------------------------------------------------------------------ matches

function seatsCell(match) {
  const best = Array.isArray(match.ranks) && match.ranks.length ? Math.min(...match.ranks) : null;
  const all = match.ranks && match.ranks.every((r) => r === best);
  const node = el("td", {});
  match.seats.forEach((name, seat) => {
    if (seat) node.append(el("span", { class: "seat-sep", text: " vs " }));
    const won = best !== null && !all && match.ranks[seat] === best;
    node.append(el("span", { class: won ? "winner" : "", text: name }));
  });
  return node;
}

function watchCell(match) {
  if (match.replay_url) {
    return el("td", {}, el("a", { href: replayViewerUrl(match.replay_url), "data-testid": "watch", text: "watch" }));
  }
  if (match.live_url) {
    return el("td", {}, el("a", { href: liveViewerUrl(match.live_url), "data-testid": "watch-live", text: "watch live" }));
  }
  return el("td", { class: "muted", text: "–" });
}

function duration(seconds) {
  if (typeof seconds !== "number") return "–";
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(1)} s`;
}

function matchRow(match) {
  const noResult = match.status === "failed" || match.status === "empty";  // (empty: nobody registered)
  const result = noResult ? match.error || match.status : resultText(match.seats, match.ranks, match.scores);
  return el(
    "tr",
    { "data-testid": "match-row", "data-match-id": match.id, "data-key": match.key },
    el("td", { class: "num", text: String(match.round) }),
    el("td", { "data-testid": "match-key", text: match.key }),
    seatsCell(match),
    el("td", { "data-testid": "match-result", class: noResult ? "muted" : "", title: match.error || null, text: result || "–" }),
    el("td", {}, statusPill(match.live_url ? "live" : match.status, "match-status")),
    el("td", { class: "num", text: match.steps == null ? "–" : String(match.steps) }),
    el("td", { class: "num", text: duration(match.duration_s) }),
    watchCell(match),
  );
}

function renderMatches(page) {
  $("match-rows").replaceChildren(...page.matches.map(matchRow));
  $("matches-empty").hidden = page.matches.length > 0;
  const from = page.total ? state.offset + 1 : 0;
  const to = state.offset + page.matches.length;
  $("page-info").textContent = `${from}–${to} of ${page.total}`;
  $("prev").disabled = state.offset === 0;
  $("next").disabled = to >= page.total;
}

// ------------------------------------------------------------------------------------ loading

async function refresh() {
  try {
    const status = state.status ? `&status=${state.status}` : "";
    const [detail, page] = await Promise.all([
      fetchJson(`/api/tournaments/${state.id}`),
      fetchJson(`/api/tournaments/${state.id}/matches?limit=${PAGE_SIZE}&offset=${state.offset}${status}`),
    ]);
    state.tournament = detail.tournament;
    state.leaderboard = detail.leaderboard;
    state.matches = page;
    renderHeader(detail.tournament);
    renderLeaderboard(detail.leaderboard);
    renderFailures(detail.leaderboard);
    renderStandings(detail.leaderboard.standings);
    renderGameStandings(detail.leaderboard.game_standings);
    renderPairs(detail.leaderboard.pairs);
    renderMatches(page);
    $("page").hidden = false;
    state.refreshes += 1;
    state.ready = true;
    setError(null);
  } catch (err) {
    state.gone = /HTTP 404/.test(err.message); // no such tournament: stop asking
    setError(err.message);
  }
}

window.__tournament = {
  get ready() { return state.ready; },
  get error() { return state.error; },
  get refreshes() { return state.refreshes; },
  get status() { return state.tournament ? state.tournament.status : null; },
  get rows() { return state.leaderboard ? state.leaderboard.rows.length : 0; },
  get failing() { return state.leaderboard ? (state.leaderboard.failures || []).map((e) => e.name) : []; },
  get matches() { return state.matches.matches.length; },
};

const id = new URLSearchParams(window.location.search).get("id");
if (!id || !/^[1-9][0-9]{0,17}$/.test(id)) {
  setError("which tournament? open this page as tournament.html?id=N (see the list of tournaments)");
} else {
  state.id = id;
  // refresh while the tournament runs (or cannot be reached yet: the server may be restarting)
  poll(refresh, REFRESH_MS, () => !state.gone && (!state.tournament || ACTIVE.has(state.tournament.status)));
  const reload = () => refresh();
  $("status-filter").addEventListener("change", (event) => {
    state.status = event.target.value;
    state.offset = 0;
    reload();
  });
  $("prev").addEventListener("click", () => {
    state.offset = Math.max(0, state.offset - PAGE_SIZE);
    reload();
  });
  $("next").addEventListener("click", () => {
    state.offset += PAGE_SIZE;
    reload();
  });
}
