// What the arena's signed-in pages (team.html, admin.html) and its public page (competition.html)
// share: calls to the JSON API with one-line errors, the browser session (an HttpOnly cookie the
// page never reads: the token only passes through the sign-in form), and small DOM helpers.
//
// Every value from the server goes into the DOM as text (`el(..., {text})`, textContent): a team
// name or a note is hostile input, and is never parsed as HTML.

import { el } from "./arena-lib.js";

const UNSAFE = new Set(["POST", "PATCH", "PUT", "DELETE"]);

// An API refusal: `status`, the server's `detail` and `code`, the `Retry-After` seconds of a 429.
export class ApiError extends Error {
  constructor(status, detail, code, retryAfter) {
    super(oneLine(status, detail, code, retryAfter));
    this.status = status;
    this.detail = detail;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

function oneLine(status, detail, code, retryAfter) {
  const parts = [`HTTP ${status}`];
  if (code) parts.push(code);
  let line = parts.join(" ") + (detail ? `: ${detail}` : "");
  if (retryAfter != null && !/retry in/.test(detail || "")) line += ` (retry in ${retryAfter} s)`;
  return line;
}

async function refusal(response) {
  let detail = "";
  let code = null;
  try {
    const body = await response.json();
    detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    code = typeof body.code === "string" ? body.code : null;
  } catch {
    detail = response.statusText || "";
  }
  const retry = response.headers.get("Retry-After");
  return new ApiError(response.status, detail, code, retry != null && /^\d+$/.test(retry) ? Number(retry) : null);
}

// Call the API: `json` (an object) or `form` (a FormData) as the body; the answer's JSON (null for
// 204, the text for a text answer). Unsafe methods carry `X-CSRF: 1`, which the session cookie needs.
export async function api(path, { method = "GET", json, form, text = false } = {}) {
  const headers = { Accept: text ? "text/plain" : "application/json" };
  if (UNSAFE.has(method)) headers["X-CSRF"] = "1";
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    body = form; // (the browser sets the multipart boundary)
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body, cache: "no-store", credentials: "same-origin" });
  } catch (err) {
    throw new Error(`cannot reach the server (${err.message})`);
  }
  if (!response.ok) throw await refusal(response);
  if (response.status === 204) return null;
  return text ? response.text() : response.json();
}

// Who the session is (GET /api/me), or null when the browser is not signed in (401).
export async function whoAmI() {
  try {
    return await api("/api/me");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export const signIn = (token) => api("/api/session", { method: "POST", json: { token } });
export const signOut = () => api("/api/session", { method: "DELETE" });

// Wire a sign-in form: `onSignedIn(me)` after a good token; a refusal is shown in `errorBox`. The
// token field is emptied either way (the cookie holds the token from here on, out of the page's reach).
export function wireSignIn(form, input, errorBox, onSignedIn) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    input.value = "";
    errorBox.textContent = "";
    if (!token) {
      errorBox.textContent = "paste your token (ba_...)";
      return;
    }
    try {
      onSignedIn(await signIn(token));
    } catch (err) {
      errorBox.textContent = err.message;
    }
  });
}

// The sign-in and sign-out of a page for one role ("team" or "organizer"): a token of the other role
// is signed out again and told which page is its own (`otherPage`); `onSignedIn(me)` shows the page,
// `onSignedOut()` the login form again.
export function wireSession({ form, input, errorBox, logout, role, otherPage, onSignedIn, onSignedOut }) {
  wireSignIn(form, input, errorBox, (me) => {
    if (me.role !== role) {
      signOut().catch(() => {});
      errorBox.textContent = `that is ${me.role === "team" ? "a team" : "an organizer"} token: its page is ${otherPage}`;
      return;
    }
    onSignedIn(me);
  });
  logout.addEventListener("click", async () => {
    try {
      await signOut();
    } finally {
      onSignedOut();
    }
  });
}

// A short text with a "copy" button beside it (the clipboard may be refused: the text stays selectable).
export function copyable(text, testid) {
  const code = el("code", { "data-testid": testid, text });
  const button = el("button", { type: "button", class: "copy", text: "copy" });
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "copied";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = "selected";
    }
  });
  return el("div", { class: "command" }, code, button);
}

export const cell = (text, attrs = {}) => el("td", { ...attrs, text: text == null ? "–" : String(text) });

export function pill(text, kind, testid) {
  return el("span", { class: `pill pill-${kind}`, "data-testid": testid, text });
}

// The competition id of a /competition/{cid} page (null when the path holds none).
export function pathId(prefix) {
  const match = new RegExp(`^${prefix}/(\\d{1,19})/?$`).exec(location.pathname);
  return match ? Number(match[1]) : null;
}

// A seat as the match lists show it: its team and version, a starter bot, and the URL-entry mark.
export function seatName(seat) {
  if (seat.team == null) return seat.starter ? `starter ${seat.starter}` : `seat ${seat.seat}`;
  return seat.version_number != null ? `${seat.team} v${seat.version_number}` : seat.team;
}
