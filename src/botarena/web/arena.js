// The arena's front page: the live matches (polled every second) and the tournaments.
//
// Test hooks: window.__arena = {ready, error, refreshes, tournaments, live}.

import {
  $,
  el,
  fetchJson,
  liveViewerUrl,
  poll,
  progress,
  replayViewerUrl,
  resultText,
  showError,
  statusPill,
  when,
} from "./arena-lib.js";

const LIVE_MS = 1000;
const TOURNAMENTS_MS = 3000;

const state = {
  liveLoaded: false,
  tournamentsLoaded: false,
  error: null,
  refreshes: 0,
  tournaments: [],
  live: [],
  game: "",
};

function setError(message) {
  state.error = message;
  showError(message);
}

// ------------------------------------------------------------------------------------ live matches

function liveRow(match) {
  const players = el("span", {});
  match.players.forEach((name, seat) => {
    if (seat) players.append(el("span", { class: "seat-sep", text: " vs " }));
    players.append(el("span", { class: "name", text: name }));
  });
  const where = el(
    "td",
    {},
    match.tournament_id != null
      ? el("a", { href: `tournament.html?id=${match.tournament_id}`, text: `#${match.tournament_id} ` })
      : null,
    el("span", { text: match.match }),
  );
  let link;
  if (!match.finished) {
    link = el("a", { href: liveViewerUrl(match.events_url), "data-testid": "watch-live", text: "watch live" });
  } else if (match.replay_url) {
    link = el("a", { href: replayViewerUrl(match.replay_url), "data-testid": "watch-replay", text: "replay" });
  } else {
    link = el("span", { class: "muted", text: "–" });
  }
  const result = match.result && match.result.ranks ? resultText(match.players, match.result.ranks, match.result.scores) : "finished";
  return el(
    "tr",
    { "data-testid": "live-row", "data-key": match.key },
    where,
    el("td", { text: match.game }),
    el("td", {}, players),
    el("td", { class: "num", "data-testid": "live-steps", text: String(match.steps) }),
    el("td", {}, match.finished ? el("span", { class: "muted", text: result }) : statusPill("live", "live-state")),
    el("td", {}, link),
  );
}

async function refreshLive() {
  try {
    state.live = await fetchJson("/api/live");
    state.liveLoaded = true;
    state.refreshes += 1;
    $("live-rows").replaceChildren(...state.live.map(liveRow));
    $("live-empty").hidden = state.live.length > 0;
    if (state.error && state.error.startsWith("live:")) setError(null);
  } catch (err) {
    setError(`live: ${err.message}`);
  }
}

// ------------------------------------------------------------------------------------ tournaments

function tournamentRow(t) {
  return el(
    "tr",
    { "data-testid": "tournament-row", "data-id": t.id },
    el("td", {}, el("a", { href: `tournament.html?id=${t.id}`, "data-testid": "tournament-link", text: t.name })),
    el("td", { text: t.game }),
    el("td", { text: t.format }),
    el("td", { class: "num", text: String(t.entrants.length) }),
    el("td", { "data-testid": "tournament-matches" }, progress(t.matches)),
    el("td", {}, statusPill(t.status, "tournament-status")),
    el("td", { class: "muted", text: when(t.created_at) }),
  );
}

async function refreshTournaments() {
  try {
    const query = state.game ? `?game=${encodeURIComponent(state.game)}` : "";
    state.tournaments = await fetchJson(`/api/tournaments${query}`);
    state.tournamentsLoaded = true;
    $("tournament-rows").replaceChildren(...state.tournaments.map(tournamentRow));
    $("tournaments-empty").hidden = state.tournaments.length > 0;
    if (state.error && !state.error.startsWith("live:")) setError(null);
  } catch (err) {
    setError(err.message);
  }
}

async function loadGames() {
  try {
    const games = await fetchJson("/api/games");
    const select = $("game-filter");
    select.append(...games.map((g) => el("option", { value: g.id, text: g.title || g.id })));
    const health = await fetchJson("/api/health");
    $("server").textContent = `botarena ${health.version} · ${health.store}`;
  } catch (err) {
    setError(err.message);
  }
}

window.__arena = {
  get ready() { return state.liveLoaded && state.tournamentsLoaded; },
  get error() { return state.error; },
  get refreshes() { return state.refreshes; },
  get tournaments() { return state.tournaments.length; },
  get live() { return state.live.length; },
};

poll(refreshTournaments, TOURNAMENTS_MS);
poll(refreshLive, LIVE_MS);
loadGames();
$("game-filter").addEventListener("change", (event) => {
  state.game = event.target.value;
  refreshTournaments();
});
