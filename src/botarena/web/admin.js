// The organizer's page (/admin, specs/arena.md Pages and "What the organizer can do"), minimal: sign
// in with the organizer token; change the phase; add a team (its token shown once); every team
// (GET .../teams) with its active version and its tokens by key id, each with revoke and rotate
// (a new token shown once, then the old one revoked), and a token for the team; a team's versions
// with disable / enable; disable / enable a version by id; void a match; the stats and the audit
// log. Every action is one API call (rotate: two); its refusal is shown in one line.
//
// Test hooks: window.__admin = {ready, error, signedIn, auditLoaded, actions}.

import { $, el, showError, when } from "./arena-lib.js";
import { ApiError, api, cell, pill, seatName, whoAmI, wireSession } from "./arena-api.js";

const REFRESH_MS = 10000;

const state = {
  me: null,
  error: null,
  started: false,
  auditLoaded: false,
  actions: 0,
  teams: [], // GET .../teams: [{id, name, disabled, active_version, tokens: [{kid, created_at, ...}]}]
  timer: null,
};

const base = () => `/api/competitions/${state.me.competition.id}`;

function setError(message) {
  state.error = message;
  showError(message);
}

function said(ok, message) {
  $("action-result").textContent = ok ? message : "";
  $("action-error").textContent = ok ? "" : message;
}

// Run one organizer action: its answer's line on success, its refusal's line otherwise; the page's
// data is read again after it either way.
async function act(what, call) {
  try {
    const line = await call();
    said(true, line || `${what}: done`);
  } catch (err) {
    said(false, `${what}: ${err.message}`);
  }
  state.actions += 1;
  await refresh();
}

function reason() {
  const text = $("reason").value.trim();
  if (!text) throw new Error("give a reason (it is kept in the audit log)");
  return text;
}

// ------------------------------------------------------------------------------------ sign-in

function showLogin() {
  state.me = null;
  clearTimeout(state.timer);
  $("login").hidden = false;
  $("signed-in").hidden = true;
  $("logout").hidden = true;
  $("board-link").hidden = true;
  $("who").textContent = "";
}

function showOrganizer(me) {
  state.me = me;
  $("login").hidden = true;
  $("signed-in").hidden = false;
  $("logout").hidden = false;
  $("who").textContent = `organizer of ${me.competition.name}`;
  const link = $("board-link");
  link.href = `/competition/${me.competition.id}`;
  link.hidden = false;
  refresh();
}

// ------------------------------------------------------------------------------------ reading

function showCompetition(c) {
  $("competition-name").textContent = c.name;
  $("phase").replaceChildren(pill(c.phase, "held", "phase-pill"));
  $("phase-select").value = c.phase;
}

function teamRow(team) {
  const { id, name } = team;
  const versions = el("button", { type: "button", "data-testid": "team-versions-button", text: "versions" });
  versions.addEventListener("click", () => showVersions(id, name).catch((err) => said(false, err.message)));
  const token = el("button", { type: "button", "data-testid": "team-token-button", text: "new token" });
  token.addEventListener("click", () => act(`a new token for ${name}`, async () => {
    const made = await api(`${base()}/teams/${id}/tokens`, { method: "POST" });
    showToken(name, made.token);
    return `a new token for ${name} (key id ${made.kid})`;
  }));
  const active = team.active_version == null ? "none" : `#${team.active_version}`;
  return el("tr", { "data-testid": "team-row", "data-team-id": id },
    cell(id, { class: "num" }),
    el("td", { class: "name" }, el("span", { "data-testid": "team-name", text: name }),
      team.disabled ? pill("disabled", "held", "team-disabled") : null),
    cell(active, { "data-testid": "team-active" }),
    el("td", {}, tokenList(team)), el("td", {}, versions, token));
}

// A team's tokens: key id, created, last used, and revoke / rotate for those not revoked.
function tokenList(team) {
  const rows = team.tokens.map((t) => {
    const stateText = t.revoked_at ? `revoked ${when(t.revoked_at)}` : `used ${t.last_used_at ? when(t.last_used_at) : "never"}`;
    const row = el("li", { "data-testid": "token-row", "data-kid": t.kid },
      el("code", { text: t.kid }), " ",
      el("span", { class: "muted", text: `made ${when(t.created_at)}, ` }),
      el("span", { "data-testid": "token-state", text: stateText }));
    if (!t.revoked_at) {
      const revoke = el("button", { type: "button", "data-testid": "token-revoke", text: "revoke" });
      revoke.addEventListener("click", () => revokeToken(team, t.kid));
      const rotate = el("button", { type: "button", "data-testid": "token-rotate", text: "rotate" });
      rotate.addEventListener("click", () => rotateToken(team, t.kid));
      row.append(" ", revoke, rotate);
    }
    return row;
  });
  return el("ul", { class: "tokens", "data-testid": "team-tokens" }, ...rows);
}

function revokeToken(team, kid) {
  return act(`revoke ${kid}`, async () => {
    await api(`${base()}/teams/${team.id}/tokens/${kid}`, { method: "DELETE" });
    forgetToken(kid);
    return `token ${kid} of team ${team.id} is revoked`;
  });
}

// Rotate: the new token first (shown once), then the old one revoked, so the team is never left
// without a valid token if the second call fails.
function rotateToken(team, kid) {
  return act(`rotate ${kid}`, async () => {
    const made = await api(`${base()}/teams/${team.id}/tokens`, { method: "POST" });
    showToken(team.name, made.token);
    await api(`${base()}/teams/${team.id}/tokens/${kid}`, { method: "DELETE" });
    return `token ${kid} of team ${team.id} is replaced by ${made.kid}`;
  });
}

function showToken(name, token) {
  $("new-token-for").textContent = `the token of ${name}:`;
  $("new-token").textContent = token;
  $("new-token-box").hidden = false;
}

// A token just revoked is no longer shown in the box that showed it once.
function forgetToken(kid) {
  if ($("new-token").textContent.startsWith(`ba_${kid}_`)) {
    $("new-token").textContent = "";
    $("new-token-for").textContent = "";
    $("new-token-box").hidden = true;
  }
}

async function showVersions(teamId, name) {
  const versions = await api(`${base()}/teams/${teamId}/versions`);
  const rows = versions.map((v) => {
    const buttons = el("span", {});
    for (const change of ["disable", "enable"]) {
      const button = el("button", { type: "button", "data-testid": `v-${change}`, text: change });
      button.addEventListener("click", () => changeVersion(v.id, change).then(() => showVersions(teamId, name)));
      buttons.append(button);
    }
    return el("tr", { "data-testid": "admin-version-row", "data-version-id": v.id },
      cell(v.id, { class: "num" }), cell(v.number, { class: "num" }),
      el("td", {}, pill(v.state, "held", "admin-version-state")),
      cell([v.reason_code, v.reason].filter(Boolean).join(": ")), el("td", {}, buttons));
  });
  const table = el("table", { class: "data" },
    el("thead", {}, el("tr", {}, ...["id", "#", "state", "reason", ""].map((h) => el("th", { text: h })))),
    el("tbody", {}, ...rows));
  $("team-versions").replaceChildren(el("h3", { text: `versions of ${name}` }), table);
}

function changeVersion(versionId, change) {
  return act(`${change} version ${versionId}`, async () => {
    const v = await api(`${base()}/versions/${versionId}/${change}`, { method: "POST", json: { reason: reason() } });
    return `version ${versionId} is ${v.state}`;
  });
}

function matchRow(m) {
  const voidButton = el("button", { type: "button", "data-testid": "void", text: "void" });
  voidButton.addEventListener("click", () => act(`void match ${m.id}`, async () => {
    await api(`/api/matches/${m.id}/void`, { method: "POST", json: { reason: reason() } });
    return `match ${m.id} is void`;
  }));
  return el("tr", { "data-testid": "match-row", "data-match-id": m.id },
    cell(`#${m.id}`), cell(m.reason ? `${m.kind} (${m.reason})` : m.kind),
    el("td", {}, pill(m.status, m.status, "match-status")),
    cell(m.seats.map(seatName).join(" vs ")), cell(when(m.finished_at), { class: "muted" }),
    el("td", {}, voidButton));
}

function auditRow(a) {
  return el("tr", { "data-testid": "audit-row" },
    cell(when(a.at), { class: "muted" }), cell(a.actor), cell(a.action, { "data-testid": "audit-action" }),
    cell(a.target, { "data-testid": "audit-target" }), cell(a.reason || "", { "data-testid": "audit-reason" }));
}

async function refresh() {
  clearTimeout(state.timer);
  if (!state.me) return;
  try {
    showCompetition(await api(base()));
    state.teams = await api(`${base()}/teams`);
    $("team-rows").replaceChildren(...state.teams.map(teamRow));
    const matches = await api(`${base()}/matches?limit=20`);
    $("match-rows").replaceChildren(...matches.matches.map(matchRow));
    const audit = await api(`${base()}/audit?limit=200`);
    $("stats").textContent = JSON.stringify(await api(`${base()}/stats`), null, 2);
    $("audit-rows").replaceChildren(...audit.map(auditRow));
    state.auditLoaded = true;
    if (state.error) setError(null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      showLogin();
      $("login-error").textContent = "the session ended: sign in again";
      return;
    }
    setError(err.message);
  }
  if (state.me) state.timer = setTimeout(refresh, REFRESH_MS);
}

// ------------------------------------------------------------------------------------ the forms

function kidOf(text) {
  const found = /^ba_([A-Za-z0-9]{1,32})_/.exec(text);
  return found ? found[1] : text; // a whole token pasted: its key id (it goes no further than this page)
}

function wireForms() {
  $("phase-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const phase = $("phase-select").value;
    const force = $("phase-force").checked;
    act(`phase ${phase}`, async () => {
      const c = await api(base(), { method: "PATCH", json: { phase, force } });
      return `the competition is ${c.phase}`;
    });
  });
  $("team-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("team-name").value.trim();
    act(`add ${name || "a team"}`, async () => {
      const made = await api(`${base()}/teams`, { method: "POST", json: { name } });
      $("team-name").value = "";
      showToken(made.team.name, made.token);
      return `team ${made.team.name} added (id ${made.team.id})`;
    });
  });
  $("revoke-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const team = $("revoke-team").value.trim();
    const kid = kidOf($("revoke-kid").value.trim());
    $("revoke-kid").value = "";
    act(`revoke ${kid}`, async () => {
      if (!/^\d+$/.test(team) || !/^[A-Za-z0-9]{1,32}$/.test(kid)) throw new Error("give the team id and the token's key id");
      await api(`${base()}/teams/${team}/tokens/${kid}`, { method: "DELETE" });
      return `token ${kid} of team ${team} is revoked`;
    });
  });
  $("version-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = $("version-id").value.trim();
    const change = event.submitter && event.submitter.value === "enable" ? "enable" : "disable";
    if (!/^\d+$/.test(id)) {
      said(false, "give a version id");
      return;
    }
    changeVersion(Number(id), change);
  });
}

async function start() {
  wireSession({
    form: $("login-form"),
    input: $("token"),
    errorBox: $("login-error"),
    logout: $("logout"),
    role: "organizer",
    otherPage: "/team",
    onSignedIn: showOrganizer,
    onSignedOut: showLogin,
  });
  wireForms();
  try {
    const me = await whoAmI();
    if (me && me.role === "organizer") showOrganizer(me);
    else showLogin();
  } catch (err) {
    setError(err.message);
    showLogin();
  }
  state.started = true;
}

window.__admin = {
  get ready() { return state.started && (!state.me || state.auditLoaded); },
  get error() { return state.error; },
  get signedIn() { return state.me !== null; },
  get auditLoaded() { return state.auditLoaded; },
  get actions() { return state.actions; },
  get teams() { return state.teams.length; },
};

start();
