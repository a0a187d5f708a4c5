// The arena's front page: the matches being played now (polled every second) and the tournaments.
// A match leaves the live list when it ends (its replay is on its tournament's page).
//
// Test hooks: window.__arena = {ready, error, refreshes, tournaments, live}.

import {
  $,
  el,
  fetchJson,
  liveViewerUrl,
  poll,
  progress,
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

// What the live list says of a match the spectator policy still holds back (its game hides state).
const HELD_LABELS = {
  after: () => "opens at the end",
  delayed: (match) => `opens at step ${match.delay}`,
  organizer: () => "organizer only",
};

// A real-time match's clock (a DatsPulse round: `progress`): its turn of its turns, the time to its
// next turn and to its end, from the wall-clock instants the server gives (refreshed every second).
function clockText(progress) {
  const now = Date.now() / 1000;
  const left = (at) => (typeof at === "number" ? `${Math.max(0, Math.ceil(at - now))} s` : null);
  const parts = [`turn ${progress.turn} / ${progress.turns}`];
  const next = left(progress.next_turn_at);
  if (next) parts.push(`next in ${next}`);
  const end = left(progress.ends_at);
  if (end) parts.push(`ends in ${end}`);
  return parts.join(" · ");
}

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
  const link = el("a", {
    href: liveViewerUrl(match.events_url),
    "data-testid": "watch-live",
    text: match.held ? "follow" : "watch live",
  });
  // a game that hides part of its state: the spectator policy may hold its live view back
  const played = match.played ?? match.steps;
  const behind = !match.held && match.policy === "delayed" ? played - match.steps : 0;
  const pill = (kind, text) => el("span", { class: `pill pill-${kind}`, "data-testid": "live-state", text });
  let state;
  if (match.held) state = pill("held", HELD_LABELS[match.policy] ? HELD_LABELS[match.policy](match) : "held back");
  else state = pill("live", behind ? `live · ${behind} behind` : "live");
  return el(
    "tr",
    { "data-testid": "live-row", "data-key": match.key },
    where,
    el("td", { text: match.game }),
    el("td", {}, players),
    el("td", { class: "num", "data-testid": "live-steps", text: String(played) },
      match.progress ? el("div", { class: "muted", "data-testid": "live-clock", text: clockText(match.progress) }) : null),
    el("td", {}, state),
    el("td", {}, link),
  );
}

async function refreshLive() {
  try {
    // only what is being played now: a finished match leaves the list (it has its replay)
    state.live = await fetchJson("/api/live?state=running");
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
