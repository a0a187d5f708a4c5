// What the arena pages (arena.html, tournament.html) share: fetching the JSON API, building DOM
// nodes, formatting, and a poller that refreshes a page while something is going on.

import { scoreline } from "./registry.js";

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child != null) node.append(child);
  }
  return node;
}

// GET a JSON API path; a failure is an Error whose message is one line (with the server's detail).
export async function fetchJson(path) {
  let response;
  try {
    response = await fetch(path, { cache: "no-store", headers: { Accept: "application/json" } });
  } catch (err) {
    throw new Error(`cannot reach the server (${err.message})`);
  }
  if (!response.ok) {
    let detail = "";
    try {
      detail = (await response.json()).detail || "";
    } catch {
      /* not JSON */
    }
    throw new Error(`${path}: HTTP ${response.status}${detail ? ` (${detail})` : ""}`);
  }
  return response.json();
}

export function showError(message) {
  const box = $("error");
  if (!box) return;
  box.textContent = message || "";
  box.hidden = !message;
}

export const fixed = (value, digits = 2) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "–");

export function when(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const now = new Date();
  const sameDay = date.toDateString() === now.toDateString();
  return sameDay ? date.toLocaleTimeString() : date.toLocaleString();
}

export function statusPill(status, testid) {
  return el("span", { class: `pill pill-${status}`, "data-testid": testid, text: status });
}

// A progress bar and "finished/total" for a tournament's match counts: "running" are the matches
// being played now, "queued" the ones handed to the workers that wait for one.
export function progress(counts) {
  const total = counts.total || 0;
  const finished = counts.finished || 0;
  const failed = counts.failed || 0;
  const pct = (n) => (total ? `${(100 * n) / total}%` : "0%");
  const bar = el("span", { class: "progress" }, el("span", { style: `width:${pct(finished)}` }));
  if (failed) bar.append(el("span", { class: "failed", style: `width:${pct(failed)}` }));
  const parts = [`${finished} / ${total}`];
  if (counts.running) parts.push(`${counts.running} running`);
  if (counts.queued) parts.push(`${counts.queued} queued`);
  if (failed) parts.push(`${failed} failed`);
  // real-time rounds nobody registered for (DatsPulse): not failures, and not rounds to wait for
  if (counts.empty) parts.push(`${counts.empty} empty`);
  return el("span", {}, bar, el("span", { "data-testid": "match-progress", text: parts.join(" · ") }));
}

export const replayViewerUrl = (replayUrl) => `index.html?replay=${encodeURIComponent(replayUrl)}`;
export const liveViewerUrl = (eventsUrl) => `index.html?live=${encodeURIComponent(eventsUrl)}`;

// A match's result in words: the winner(s) by rank (1 is best) and the scores.
export function resultText(seats, ranks, scores) {
  if (!Array.isArray(ranks) || !ranks.length) return "";
  const best = Math.min(...ranks);
  const winners = seats.filter((_, i) => ranks[i] === best);
  const score = Array.isArray(scores) && scores.length ? ` (${scoreline(scores)})` : "";
  if (winners.length === seats.length) return `draw${score}`;
  return `${winners.join(", ")} ${winners.length > 1 ? "win" : "wins"}${score}`;
}

// Calls `refresh` now and then every `intervalMs` while `keepGoing()` says so (re-checked after each
// call), never two at once, and not while the tab is hidden.
export function poll(refresh, intervalMs, keepGoing = () => true) {
  let timer = null;
  let running = false;
  const run = async () => {
    timer = null;
    if (running || document.hidden) return; // a hidden tab is refreshed when it shows again
    running = true;
    try {
      await refresh();
    } finally {
      running = false;
    }
    if (keepGoing()) schedule();
  };
  const schedule = () => {
    if (timer === null) timer = setTimeout(run, intervalMs);
  };
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && keepGoing() && timer === null && !running) run();
  });
  run();
  return { wake: () => { if (timer === null && !running) run(); } };
}
