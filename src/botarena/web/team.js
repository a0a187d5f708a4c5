// A team's page (/team, specs/arena.md Pages): sign in with the team token, upload a version (a
// refusal shows its code and line at once), the versions with their states followed live from
// each version's event stream (a rejection shows its code, first error line and the team's own
// log), the standing, and the team's matches with the commands that fetch and re-run each one.
//
// Test hooks: window.__team = {ready, error, signedIn, versionsLoaded, matchesLoaded, sseStates,
// streams}; `sseStates` lists the [version id, state] pairs that came through an event stream.

import { $, el, showError, when } from "./arena-lib.js";
import { ApiError, api, cell, copyable, pill, seatName, whoAmI, wireSession } from "./arena-api.js";

const REFRESH_MS = 10000;
const MATCH_PAGE = 20;
const LOST_BY = "TIMEOUT,CRASHED,INVALID";
// states after which a version's event stream ends (the server's SETTLED)
const SETTLED = new Set(["ready", "active", "rejected", "superseded", "disabled", "retired", "paused"]);
const STATE_KIND = {
  received: "running", validating: "running", ready: "held", active: "finished",
  rejected: "failed", paused: "failed", disabled: "failed", superseded: "empty", retired: "empty",
};

const state = {
  me: null,
  error: null,
  versions: new Map(),
  logs: new Map(), // version id -> its own log of the rejection (or a line saying why there is none)
  streams: new Map(),
  sseStates: [],
  versionsLoaded: false,
  matchesLoaded: false,
  matches: [],
  cursor: null,
  timer: null,
};

const base = () => `/api/competitions/${state.me.competition.id}`;
const teamBase = () => `${base()}/teams/${state.me.team.id}`;

function setError(message) {
  state.error = message;
  showError(message);
}

// ------------------------------------------------------------------------------------ sign-in

function showLogin() {
  state.me = null;
  for (const stream of state.streams.values()) stream.close();
  state.streams.clear();
  state.versions.clear();
  state.logs.clear();
  clearTimeout(state.timer);
  $("login").hidden = false;
  $("signed-in").hidden = true;
  $("logout").hidden = true;
  $("board-link").hidden = true;
  $("who").textContent = "";
  $("token").focus();
}

function showTeam(me) {
  state.me = me;
  $("login").hidden = true;
  $("signed-in").hidden = false;
  $("logout").hidden = false;
  $("team-name").textContent = me.team.name;
  $("competition-name").textContent = me.competition.name;
  $("phase").replaceChildren(pill(me.competition.phase, "held", "phase-pill"));
  $("who").textContent = `signed in as ${me.team.name}`;
  const link = $("board-link");
  link.href = `/competition/${me.competition.id}`;
  link.hidden = false;
  refreshAll();
}

// ------------------------------------------------------------------------------------ versions

function reasonText(v) {
  if (!v.reason_code && !v.reason) return "";
  return v.reason ? `${v.reason_code || ""}: ${v.reason}`.replace(/^: /, "") : v.reason_code;
}

function versionRows(v) {
  const row = el(
    "tr",
    { "data-testid": "version-row", "data-version-id": v.id, "data-state": v.state },
    cell(v.number, { class: "num", "data-testid": "version-number" }),
    el("td", {}, pill(v.state, STATE_KIND[v.state] || "empty", "version-state")),
    el("td", { class: "reason-cell" },
      el("span", { class: "code", "data-testid": "version-code", text: v.reason_code || "" }),
      el("span", { "data-testid": "version-reason", text: v.reason ? ` ${v.reason}` : "" })),
    cell(when(v.received_at), { class: "muted" }),
    cell(when(v.validated_at), { class: "muted" }),
    cell(when(v.activated_at), { class: "muted" }),
    cell(when(v.first_rated_match_at), { class: "muted" }),
    cell(v.note || "", { "data-testid": "version-note" }),
    el("td", {}, versionActions(v)),
  );
  const rows = [row];
  if (v.state === "rejected" || v.state === "paused") {
    const log = state.logs.get(v.id);
    rows.push(el("tr", { class: "log-row", "data-version-id": v.id },
      el("td", { colspan: 9 },
        el("details", { open: true },
          el("summary", { text: `version ${v.number}: ${reasonText(v)}` }),
          el("pre", { class: "log", "data-testid": "version-log", text: log == null ? "loading the log…" : log })))));
  }
  return rows;
}

function versionActions(v) {
  const wrap = el("span", {});
  const act = (label, path) => {
    const button = el("button", { type: "button", "data-testid": `version-${label}`, text: label });
    button.addEventListener("click", () => choose(v, path));
    wrap.append(button);
  };
  if (v.state === "ready") act("activate", "activate");
  if (v.state === "ready" || v.state === "active") act("retire", "retire");
  return wrap;
}

async function choose(v, path) {
  try {
    upsert(await api(`${teamBase()}/versions/${v.id}/${path}`, { method: "POST" }));
    refreshStanding();
  } catch (err) {
    setError(err.message);
  }
}

function renderVersions() {
  const sorted = [...state.versions.values()].sort((a, b) => b.number - a.number);
  $("version-rows").replaceChildren(...sorted.flatMap(versionRows));
  $("versions-empty").hidden = sorted.length > 0;
  const active = sorted.find((v) => v.state === "active");
  $("active-version").textContent = active ? String(active.number) : "none";
}

function upsert(v) {
  if (!state.me || v.team_id !== state.me.team.id) return;
  state.versions.set(v.id, v);
  if ((v.state === "rejected" || v.state === "paused") && !state.logs.has(v.id)) loadLog(v);
  renderVersions();
  follow(v);
}

// A version's own log of its rejection: the `log` the coordinator keeps with the version when it
// has one, else its own seats' logs of its validation matches (the team's own: the server says so).
async function loadLog(v) {
  if (typeof v.log === "string" && v.log) {
    state.logs.set(v.id, v.log);
    return;
  }
  state.logs.set(v.id, null);
  const texts = [];
  try {
    for (const matchId of v.validation_matches || []) {
      const match = await api(`/api/matches/${matchId}`);
      if (!match.replay_url) continue;
      for (const seat of match.seats.filter((s) => s.team_id === state.me.team.id)) {
        const text = await api(`/api/matches/${matchId}/logs/${seat.seat}`, { text: true });
        texts.push(`— validation match ${matchId}, seat ${seat.seat} —\n${text || "(empty)"}`);
      }
    }
    state.logs.set(v.id, texts.length ? texts.join("\n") : "(no log was recorded)");
  } catch (err) {
    state.logs.set(v.id, `the log cannot be read: ${err.message}`);
  }
  if (state.versions.has(v.id)) renderVersions();
}

// Follow a version that has not settled through its event stream (the server polls the store
// every 0.25 s and ends the stream once the version settles, so the page closes it then).
function follow(v) {
  if (SETTLED.has(v.state)) {
    const stream = state.streams.get(v.id);
    if (stream) stream.close();
    state.streams.delete(v.id);
    return;
  }
  if (state.streams.has(v.id)) return;
  const stream = new EventSource(`${teamBase()}/versions/${v.id}/events`);
  stream.addEventListener("version", (event) => {
    let shown;
    try {
      shown = JSON.parse(event.data);
    } catch {
      return; // (the server sends JSON; a broken event is skipped, the next poll catches up)
    }
    state.sseStates.push([shown.id, shown.state]);
    upsert(shown);
    // a verdict came: its validation matches are the team's too (unless older pages are being read)
    if (SETTLED.has(shown.state) && state.matches.length <= MATCH_PAGE) {
      loadMatches(true).catch((err) => setError(err.message));
    }
  });
  stream.addEventListener("error", () => {
    if (stream.readyState === EventSource.CLOSED) state.streams.delete(v.id);
  });
  state.streams.set(v.id, stream);
}

async function refreshVersions() {
  const listed = await api(`${teamBase()}/versions`);
  for (const v of listed) upsert(v);
  state.versionsLoaded = true;
}

// ------------------------------------------------------------------------------------ standing

async function refreshStanding() {
  const tid = state.me.team.id;
  let rank = null;
  for (let offset = 0; rank === null; offset += 200) {
    const page = await api(`${base()}/leaderboard?offset=${offset}&limit=200`);
    const row = page.rows.find((r) => r.team_id === tid);
    if (row) rank = `${row.rank} of ${page.total}${row.provisional ? " (provisional)" : ""}`;
    if (offset + 200 >= page.total) break;
  }
  $("rank").textContent = rank || "not ranked";
  const hourAgo = Date.now() - 3600 * 1000;
  const rated = await api(`${base()}/matches?team=${tid}&kind=rated&status=finished&limit=200`);
  const recent = rated.matches.filter((m) => m.finished_at && Date.parse(m.finished_at) >= hourAgo);
  $("games-hour").textContent = `${recent.length}${rated.next_before && recent.length === 200 ? "+" : ""}`;
}

// ------------------------------------------------------------------------------------ matches

function feedStep(failure) {
  const found = /^step (\d+)$/.exec((failure && failure.where) || "");
  if (found) return Number(found[1]);
  return failure && failure.where === "start" ? 0 : 1;
}

function commands(match, own) {
  const server = location.origin;
  const file = `${match.id}.json.gz`;
  const seat = own[0];
  const box = el("div", { class: "commands" },
    copyable(`botarena fetch ${match.id} --server ${server} && botarena replay ${file} --verify`, "cmd-verify"));
  if (seat) {
    const step = feedStep(seat.failure);
    box.append(copyable(`botarena replay ${file} --feed ${step} --seat ${seat.seat} --bot YOUR_BOT`, "cmd-feed"));
  }
  return box;
}

function resultOf(own) {
  return own.map((s) => {
    const bad = Object.entries(s.statuses || {}).filter(([k, n]) => k !== "OK" && n > 0);
    const parts = [];
    if (s.rank != null) parts.push(`rank ${s.rank}`);
    if (bad.length) parts.push(bad.map(([k, n]) => `${k} ×${n}`).join(", "));
    if (s.failure) parts.push([s.failure.status, s.failure.reason, s.failure.where].filter(Boolean).join(" · "));
    return parts.join(" · ");
  }).join("; ");
}

function statusOf(match) {
  const retrying = match.attempts > 1 && (match.status === "scheduled" || match.status === "running");
  const text = retrying ? `retrying (attempt ${match.attempts} of 3)` : match.status;
  return pill(text, match.status, "match-status");
}

function matchRow(match) {
  const tid = state.me.team.id;
  const own = match.seats.filter((s) => s.team_id === tid);
  const others = match.seats.filter((s) => s.team_id !== tid);
  const id = match.replay_url
    ? el("a", { href: `/index.html?replay=${encodeURIComponent(match.replay_url)}`, "data-testid": "watch", text: `#${match.id}` })
    : el("span", { text: `#${match.id}` });
  return el(
    "tr",
    { "data-testid": "match-row", "data-match-id": match.id },
    el("td", {}, id),
    cell(match.reason ? `${match.kind} (${match.reason})` : match.kind, { "data-testid": "match-kind" }),
    el("td", {}, statusOf(match)),
    cell(own.map(seatName).join(", "), { class: "name" }),
    cell(others.map((s) => (s.external ? `${seatName(s)} (${s.external})` : seatName(s))).join(", "), {
      "data-testid": "match-against",
    }),
    cell(resultOf(own), { "data-testid": "match-result" }),
    cell(when(match.finished_at), { class: "muted" }),
    el("td", {}, commands(match, own)),
  );
}

async function loadMatches(reset) {
  const lost = $("lost-filter").checked;
  const query = new URLSearchParams({ limit: String(MATCH_PAGE) });
  if (lost) query.set("own_status", LOST_BY);
  else query.set("team", String(state.me.team.id));
  if (!reset && state.cursor != null) query.set("before", String(state.cursor));
  const page = await api(`${base()}/matches?${query}`);
  state.matches = reset ? page.matches : [...state.matches, ...page.matches];
  state.cursor = page.next_before;
  state.matchesLoaded = true;
  $("match-rows").replaceChildren(...state.matches.map(matchRow));
  $("matches-empty").hidden = state.matches.length > 0;
  $("matches-more").hidden = page.next_before == null;
}

// ------------------------------------------------------------------------------------ the loop

async function refreshAll() {
  clearTimeout(state.timer);
  if (!state.me) return;
  try {
    await refreshVersions();
    // the first page again, unless the team is reading older ones (they stay as they are)
    if (state.matches.length <= MATCH_PAGE) await loadMatches(true);
    await refreshStanding();
    if (state.error) setError(null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      showLogin();
      $("login-error").textContent = "the session ended: sign in again";
      return;
    }
    setError(err.message);
  }
  if (state.me) state.timer = setTimeout(refreshAll, REFRESH_MS);
}

async function upload(event) {
  event.preventDefault();
  $("upload-error").textContent = "";
  $("upload-result").textContent = "";
  const file = $("upload-file").files[0];
  if (!file) {
    $("upload-error").textContent = "choose a file first";
    return;
  }
  const form = new FormData();
  form.append("file", file, file.name);
  const note = $("upload-note").value.trim();
  if (note) form.append("note", note);
  try {
    const v = await api(`${teamBase()}/versions`, { method: "POST", form });
    $("upload-result").textContent = `version ${v.number}: ${v.state}`;
    upsert(v);
  } catch (err) {
    $("upload-error").textContent = err.message;
  }
}

async function start() {
  wireSession({
    form: $("login-form"),
    input: $("token"),
    errorBox: $("login-error"),
    logout: $("logout"),
    role: "team",
    otherPage: "/admin",
    onSignedIn: showTeam,
    onSignedOut: showLogin,
  });
  $("upload-form").addEventListener("submit", upload);
  $("lost-filter").addEventListener("change", () => loadMatches(true).catch((err) => setError(err.message)));
  $("matches-more").addEventListener("click", () => loadMatches(false).catch((err) => setError(err.message)));
  try {
    const me = await whoAmI();
    if (me && me.role === "team") showTeam(me);
    else showLogin();
  } catch (err) {
    setError(err.message);
    showLogin();
  }
  state.started = true;
}

window.__team = {
  get ready() { return Boolean(state.started && (!state.me || (state.versionsLoaded && state.matchesLoaded))); },
  get error() { return state.error; },
  get signedIn() { return state.me !== null; },
  get versionsLoaded() { return state.versionsLoaded; },
  get matchesLoaded() { return state.matchesLoaded; },
  get sseStates() { return state.sseStates.slice(); },
  get streams() { return state.streams.size; },
};

start();
