// Crafting Quest 2 renderer (spec craftingquest.md §1, §3.1, §3.4, §4.2, §7.4): the terrain grid (cached in
// an offscreen layer), merchant camps, towers with their strength and guard radius, the six units (devil,
// fox, crocodile in their team's colour) with energy bars and what they carry, visible piles, and each
// step's action drawn on the map (move arrow, dig or scan marker, an icon for the other actions) and told
// in words. A toggle shows the hidden layer, the buried deposits, for analysis after the game.
//
// One step per handled event. Keyframes carry whole states; a step's record carries the units, credits
// and towers after the event and the cells it changed, so step i is the latest keyframe at or before it
// with the later records applied (StepStates).

import { DEFAULT_COLORS, StepStates, THEME, fitText, registerRenderer, scoreline, seatName } from "../registry.js";

const W = 1200;
const H = 780;
const MAP = { x: 10, y: 10, size: 760 };
const SIDE = { x: 790, y: 18, w: 400 };
const TEAM = [DEFAULT_COLORS[0], DEFAULT_COLORS[1]]; // player 1, player 2
const TERRAIN = {
  ".": "#3d6b35", // grass
  ":": "#7a5a3a", // dirt
  s: "#c8b273", // sand
  "*": "#dfe4ea", // snow
  "#": "#1f2430", // rock
  "~": "#4a5d3f", // swamp
  w: "#3b82c4", // water
  W: "#1e3a8a", // deep water
};
const TERRAIN_NAMES = { ".": "grass", ":": "dirt", s: "sand", "*": "snow", "#": "rock", "~": "swamp", w: "water", W: "deep water" };
const KINDS = ["devil", "fox", "crocodile"];
const LETTER = { devil: "D", fox: "F", crocodile: "C" };
const RESOURCE = "#facc15";
const OBJECT = "#c084fc";
const BURIED = "#fb923c";
const CAMP = "#92400e";
const OK = "#4ade80";
const ERROR = "#f87171";
const SCAN = "#22d3ee";
const ICON = { pickup: "P", drop: "D", craft: "C", sell: "$", buy: "B", build_tower: "T", dig: "?", scan: "S" };

const teamColour = (player) => TEAM[(player - 1) % 2] || THEME.muted;
const idx = (model, x, y) => y * model.width + x;
const total = (items) => Object.values(items || {}).reduce((a, b) => a + b, 0);
const itemsText = (items) => Object.entries(items || {}).map(([k, v]) => `${k}×${v}`).join(" ") || "–";

// ---------------------------------------------------------------------------------------- the model

function fromKeyframe(s) {
  const cells = new Map();
  const model = {
    round: s.round,
    player: s.player,
    width: s.width,
    height: s.height,
    terrain: s.terrain,
    camps: s.camps || [],
    units: s.units || [],
    credits: { ...(s.credits || {}) },
    towers: s.towers || [],
    blueprints: Object.fromEntries(Object.entries(s.blueprints_owned || {}).map(([p, list]) => [p, list.slice()])),
    cells,
  };
  for (const c of s.cells || []) setCell(model, c);
  return model;
}

function setCell(model, c) {
  const key = idx(model, c.x, c.y);
  if (total(c.resources) || total(c.objects) || total(c.buried)) {
    model.cells.set(key, { x: c.x, y: c.y, resources: c.resources || {}, objects: c.objects || {}, buried: c.buried || {} });
  } else model.cells.delete(key);
}

// A step is one handled event; events that happened before it in the same step (a turn skipped for an
// owed answer, a late action applied at a turn start, ...) come first, in `before`, each with its state.
function apply(model, record) {
  for (const event of record.before || []) applyEvent(model, event);
  applyEvent(model, record);
}

function applyEvent(model, record) {
  model.round = record.round ?? model.round;
  model.player = record.player ?? model.player;
  const s = record.state;
  if (s) {
    if (s.units) model.units = s.units;
    if (s.credits) model.credits = { ...s.credits };
    if (s.towers) model.towers = s.towers;
    for (const c of s.cells || []) setCell(model, c);
  }
  const request = record.request || {};
  if (request.action === "buy" && record.result?.ok) { // the record's state does not list blueprints (§7.4)
    const owned = (model.blueprints[String(record.player)] ||= []);
    if (!owned.includes(request.blueprint)) owned.push(request.blueprint);
  }
}

const states = new StepStates({ fromKeyframe, apply, reach: 400 });

// The units' positions before step i (for the move arrow), remembered for the last step asked.
const before = { replay: null, index: -2, units: new Map() };

function modelAt(replay, i) {
  const last = Math.min(i, replay.steps.length - 1);
  if (before.replay !== replay || before.index !== last) {
    const prior = states.at(replay, last - 1);
    before.units = new Map((prior?.units || []).map((u) => [u.id, { x: u.x, y: u.y, energy: u.energy }]));
    before.replay = replay;
    before.index = last;
  }
  return states.at(replay, last);
}

// ---------------------------------------------------------------------------------------- geometry

function geometry(model) {
  const cell = Math.max(2, Math.floor(MAP.size / Math.max(model.width, model.height)));
  return { x: MAP.x, y: MAP.y, cell, w: cell * model.width, h: cell * model.height };
}

const cellXY = (g, x, y) => ({ x: g.x + x * g.cell, y: g.y + y * g.cell });
const cellCentre = (g, x, y) => ({ x: g.x + (x + 0.5) * g.cell, y: g.y + (y + 0.5) * g.cell });
const unitRadius = (g) => Math.max(3, g.cell * 0.42);

// Units sharing a cell are spread around its centre, each by its slot (player and kind, CQ-2).
function unitCentres(g, units) {
  const count = new Map();
  for (const u of units) count.set(`${u.x},${u.y}`, (count.get(`${u.x},${u.y}`) || 0) + 1);
  const out = new Map();
  for (const u of units) {
    const c = cellCentre(g, u.x, u.y);
    if (count.get(`${u.x},${u.y}`) > 1) {
      const slot = (u.player - 1) * 3 + Math.max(0, KINDS.indexOf(u.kind));
      const a = (slot / 6) * Math.PI * 2 - Math.PI / 2;
      const d = Math.max(3, g.cell * 0.42);
      out.set(u.id, { x: c.x + d * Math.cos(a), y: c.y + d * Math.sin(a) });
    } else out.set(u.id, c);
  }
  return out;
}

// ---------------------------------------------------------------------------------------- drawing

const layer = { canvas: null, key: "" };

function terrainLayer(model, g, dpr, replay) {
  const key = `${model.width}x${model.height}:${g.cell}:${dpr}:${replay.seed}:${model.terrain?.[0] ?? ""}`;
  if (layer.canvas && layer.key === key && layer.replay === replay) return layer.canvas;
  const canvas = document.createElement("canvas");
  canvas.width = Math.ceil(W * dpr);
  canvas.height = Math.ceil(H * dpr);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  for (let y = 0; y < model.height; y++) {
    const row = model.terrain?.[y] || "";
    for (let x = 0; x < model.width; x++) {
      ctx.fillStyle = TERRAIN[row[x]] || TERRAIN["."];
      ctx.fillRect(g.x + x * g.cell, g.y + y * g.cell, g.cell, g.cell);
    }
  }
  for (const camp of model.camps) { // a tent: a dark square with a light roof
    const p = cellXY(g, camp.x, camp.y);
    const s = g.cell;
    ctx.fillStyle = CAMP;
    ctx.fillRect(p.x + s * 0.1, p.y + s * 0.35, s * 0.8, s * 0.55);
    ctx.fillStyle = "#fbbf24";
    ctx.beginPath();
    ctx.moveTo(p.x + s * 0.05, p.y + s * 0.4);
    ctx.lineTo(p.x + s * 0.5, p.y + s * 0.05);
    ctx.lineTo(p.x + s * 0.95, p.y + s * 0.4);
    ctx.closePath();
    ctx.fill();
  }
  layer.canvas = canvas;
  layer.key = key;
  layer.replay = replay;
  return canvas;
}

function drawTowers(ctx, g, model, radius) {
  for (const t of model.towers) {
    if (!t.alive) continue;
    const colour = teamColour(t.owner);
    const p = cellXY(g, t.x, t.y);
    ctx.save(); // the guard and drain radius (Chebyshev: a square), faint, inside the map
    ctx.beginPath();
    ctx.rect(g.x, g.y, g.w, g.h);
    ctx.clip();
    ctx.globalAlpha = 0.08;
    ctx.fillStyle = colour;
    ctx.fillRect(p.x - radius * g.cell, p.y - radius * g.cell, (2 * radius + 1) * g.cell, (2 * radius + 1) * g.cell);
    ctx.globalAlpha = 0.35;
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1;
    ctx.strokeRect(p.x - radius * g.cell + 0.5, p.y - radius * g.cell + 0.5, (2 * radius + 1) * g.cell - 1, (2 * radius + 1) * g.cell - 1);
    ctx.restore();
    ctx.fillStyle = "#111827";
    ctx.fillRect(p.x, p.y, g.cell, g.cell);
    ctx.fillStyle = colour;
    ctx.fillRect(p.x + g.cell * 0.2, p.y + g.cell * 0.1, g.cell * 0.6, g.cell * 0.8);
    ctx.fillStyle = THEME.text;
    ctx.font = `bold ${Math.max(8, Math.floor(g.cell * 0.6))}px ${THEME.font}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    ctx.fillText(String(t.strength), p.x + g.cell / 2, p.y - 1);
  }
}

function drawCells(ctx, g, model, hidden) {
  const s = g.cell;
  for (const c of model.cells.values()) {
    const p = cellXY(g, c.x, c.y);
    if (hidden && total(c.buried)) { // a buried deposit: an orange disc, stronger for more
      ctx.globalAlpha = Math.min(0.9, 0.3 + total(c.buried) / 60);
      ctx.fillStyle = BURIED;
      ctx.beginPath();
      ctx.arc(p.x + s / 2, p.y + s / 2, Math.max(1, s * 0.3), 0, Math.PI * 2);
      ctx.fill();
      ctx.globalAlpha = 1;
    }
    if (total(c.resources)) { // a visible pile of resources: a yellow square, bottom-left
      ctx.fillStyle = RESOURCE;
      ctx.fillRect(p.x + 1, p.y + s * 0.55, Math.max(1, s * 0.4), Math.max(1, s * 0.4));
    }
    if (total(c.objects)) { // dropped objects: a violet square, bottom-right
      ctx.fillStyle = OBJECT;
      ctx.fillRect(p.x + s * 0.55, p.y + s * 0.55, Math.max(1, s * 0.4), Math.max(1, s * 0.4));
    }
  }
}

function drawUnits(ctx, g, model, centres, energyMax, acting) {
  const r = unitRadius(g);
  for (const u of model.units) {
    const p = centres.get(u.id);
    if (u.id === acting) { // the unit of this step's action: a white ring
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(p.x, p.y, r + 2.5, 0, Math.PI * 2);
      ctx.stroke();
    }
    ctx.fillStyle = teamColour(u.player);
    ctx.beginPath();
    ctx.arc(p.x, p.y, r, 0, Math.PI * 2);
    ctx.fill();
    ctx.strokeStyle = "#0b1220";
    ctx.lineWidth = 1;
    ctx.stroke();
    if (r >= 5) {
      ctx.fillStyle = "#ffffff";
      ctx.font = `bold ${Math.floor(r * 1.1)}px ${THEME.font}`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(LETTER[u.kind] || "?", p.x, p.y + 1);
    }
    const frac = Math.max(0, Math.min(1, u.energy / energyMax));
    ctx.fillStyle = "#111827";
    ctx.fillRect(p.x - r, p.y + r + 1, 2 * r, 3);
    ctx.fillStyle = "#38bdf8";
    ctx.fillRect(p.x - r, p.y + r + 1, 2 * r * frac, 3);
    if (total(u.resources)) dot(ctx, p.x - r, p.y - r, Math.max(1.5, r * 0.35), RESOURCE);
    if (total(u.objects)) dot(ctx, p.x + r, p.y - r, Math.max(1.5, r * 0.35), OBJECT);
  }
}

function dot(ctx, x, y, radius, colour) {
  ctx.fillStyle = colour;
  ctx.beginPath();
  ctx.arc(x, y, radius, 0, Math.PI * 2);
  ctx.fill();
}

function arrow(ctx, from, to, colour, width) {
  const a = Math.atan2(to.y - from.y, to.x - from.x);
  const head = Math.max(5, width * 3);
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = width;
  ctx.beginPath();
  ctx.moveTo(from.x, from.y);
  ctx.lineTo(to.x - head * 0.8 * Math.cos(a), to.y - head * 0.8 * Math.sin(a));
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(to.x, to.y);
  ctx.lineTo(to.x - head * Math.cos(a - 0.45), to.y - head * Math.sin(a - 0.45));
  ctx.lineTo(to.x - head * Math.cos(a + 0.45), to.y - head * Math.sin(a + 0.45));
  ctx.closePath();
  ctx.fill();
}

// The step's action on the map: where it happened, and whether it worked (green) or not (red).
function drawAction(ctx, g, model, record, replay) {
  const request = record?.request;
  if (!request || typeof request !== "object" || !request.action || request.action === "end_turn") return null;
  const unit = model.units.find((u) => u.id === request.unit);
  if (!unit) return null;
  const colour = record.result?.ok ? OK : ERROR;
  const start = before.units.get(unit.id) || unit;
  const at = cellCentre(g, start.x, start.y);
  if (request.action === "move" && Number.isInteger(request.x) && Number.isInteger(request.y)) {
    arrow(ctx, at, cellCentre(g, request.x, request.y), colour, Math.max(3, g.cell * 0.22));
    return unit.id;
  }
  if (request.action === "scan") { // the scanned square (Chebyshev radius)
    const radius = replay.config?.scan_radius ?? 7;
    const p = cellXY(g, start.x, start.y);
    ctx.strokeStyle = record.result?.ok ? SCAN : ERROR;
    ctx.lineWidth = 2;
    ctx.save();
    ctx.beginPath();
    ctx.rect(g.x, g.y, g.w, g.h);
    ctx.clip();
    ctx.setLineDash([4, 3]);
    ctx.strokeRect(p.x - radius * g.cell, p.y - radius * g.cell, (2 * radius + 1) * g.cell, (2 * radius + 1) * g.cell);
    ctx.restore();
    for (const hit of record.result?.scan || []) { // the cells the scan found deposits in
      const c = cellCentre(g, hit.x, hit.y);
      ctx.strokeStyle = SCAN;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(c.x, c.y, Math.max(2, g.cell * 0.35), 0, Math.PI * 2);
      ctx.stroke();
    }
  }
  const badge = Math.max(6, g.cell * 0.45); // an icon for the action, beside the unit
  const bx = at.x + unitRadius(g) + badge * 0.6;
  const by = at.y - unitRadius(g) - badge * 0.6;
  ctx.fillStyle = colour;
  ctx.beginPath();
  ctx.arc(bx, by, badge, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "#0b1220";
  ctx.font = `bold ${Math.floor(badge * 1.3)}px ${THEME.font}`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(ICON[request.action] || "!", bx, by + 1);
  return unit.id;
}

// The moves made earlier in the same turn, as faint arrows in the team's colour: each one from where
// the unit stood after the event before it (that event's state, or the first keyframe) to its target.
const TURN_ALPHA = 0.45;
function drawTurnSoFar(ctx, g, replay, i) {
  const record = replay.steps[i]?.record;
  if (!record) return;
  ctx.globalAlpha = TURN_ALPHA;
  for (let k = i - 1; k >= 0; k--) {
    const earlier = replay.steps[k]?.record;
    if (!earlier || earlier.round !== record.round || earlier.player !== record.player) break;
    const request = earlier.request;
    if (earlier.kind !== "action" || request?.action !== "move" || !earlier.result?.ok) continue;
    const units = k > 0 ? replay.steps[k - 1]?.record?.state?.units : replay.keyframes?.[0]?.state?.units;
    const start = (units || []).find((u) => u.id === request.unit);
    if (!start) continue;
    arrow(ctx, cellCentre(g, start.x, start.y), cellCentre(g, request.x, request.y), teamColour(record.player), Math.max(2, g.cell * 0.16));
  }
  ctx.globalAlpha = 1;
}

// The game's player ids are 1 and 2; the viewer labels seats as everywhere: "seat N · name", 0-based.
const nameOf = (replay, player) => seatName(replay, player - 1);

function drawSide(ctx, replay, model, i) {
  const record = replay.steps[i]?.record;
  const x = SIDE.x;
  let y = SIDE.y + 10;
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  ctx.fillStyle = THEME.text;
  ctx.font = `bold 16px ${THEME.font}`;
  const rounds = replay.config?.rounds;
  ctx.fillText(`Round ${model.round}${rounds ? ` / ${rounds}` : ""}`, x, y);
  ctx.fillStyle = teamColour(model.player);
  ctx.fillText(`· seat ${model.player - 1} to move`, x + 150, y);
  y += 28;
  for (const player of [1, 2]) {
    ctx.fillStyle = teamColour(player);
    ctx.fillRect(x, y - 11, 12, 12);
    ctx.fillStyle = THEME.text;
    ctx.font = `bold 14px ${THEME.font}`;
    ctx.fillText(fitText(ctx, nameOf(replay, player), SIDE.w - 18), x + 18, y);
    ctx.font = `13px ${THEME.font}`;
    const towers = model.towers.filter((t) => t.owner === player && t.alive).length;
    const owned = (model.blueprints[String(player)] || []).join(" ") || "none";
    y += 17;
    ctx.fillText(`credit ${model.credits[String(player)] ?? "–"} · towers ${towers} · blueprints ${owned}`.slice(0, 60), x + 18, y);
    y += 18;
    ctx.font = `12px ui-monospace, monospace`;
    for (const u of model.units.filter((v) => v.player === player)) {
      ctx.fillStyle = THEME.muted;
      ctx.fillText(`${String(u.kind).padEnd(9)} #${u.id} (${u.x},${u.y}) e${String(u.energy).padStart(4)}  ${itemsText({ ...u.resources, ...u.objects })}`.slice(0, 60), x + 8, y);
      y += 15;
    }
    y += 12;
  }
  ctx.fillStyle = THEME.text;
  ctx.font = `bold 13px ${THEME.font}`;
  ctx.fillText("This step", x, y);
  y += 18;
  ctx.font = `12px ${THEME.font}`;
  if (record) {
    for (const line of describeRecord(replay, record).split("\n").slice(0, 8)) {
      ctx.fillStyle = /error|Error|INVALID|TIMEOUT|CRASHED/.test(line) ? ERROR : THEME.muted;
      ctx.fillText(fitText(ctx, line, SIDE.w), x, y);
      y += 16;
    }
  }
  drawLegend(ctx);
}

function drawLegend(ctx) {
  let x = SIDE.x;
  let y = H - 56;
  ctx.font = `11px ${THEME.font}`;
  Object.entries(TERRAIN_NAMES).forEach(([ch, name], k) => {
    if (k === 4) { x = SIDE.x; y += 16; }
    ctx.fillStyle = TERRAIN[ch];
    ctx.fillRect(x, y - 9, 10, 10);
    ctx.fillStyle = THEME.muted;
    ctx.fillText(name, x + 14, y);
    x += 92;
  });
  y += 16;
  x = SIDE.x;
  for (const [colour, name] of [[RESOURCE, "resources"], [OBJECT, "objects"], [BURIED, "buried"], [CAMP, "camp"]]) {
    ctx.fillStyle = colour;
    ctx.fillRect(x, y - 9, 10, 10);
    ctx.fillStyle = THEME.muted;
    ctx.fillText(name, x + 14, y);
    x += 92;
  }
}

const view = { hidden: false };
const seen = { replay: null, keyframes: null };

function draw(ctx, replay, i) {
  ctx.fillStyle = THEME.bg;
  ctx.fillRect(0, 0, W, H);
  const model = modelAt(replay, i);
  if (!model) return;
  const g = geometry(model);
  const dpr = Number(ctx.canvas?.dataset?.dpr || 1);
  ctx.drawImage(terrainLayer(model, g, dpr, replay), 0, 0, W, H);
  drawTowers(ctx, g, model, replay.config?.tower_radius ?? 4);
  drawCells(ctx, g, model, view.hidden);
  const record = replay.steps[Math.min(i, replay.steps.length - 1)]?.record;
  const centres = unitCentres(g, model.units);
  drawTurnSoFar(ctx, g, replay, Math.min(i, replay.steps.length - 1));
  const acting = drawAction(ctx, g, model, record, replay);
  drawUnits(ctx, g, model, centres, replay.config?.unit_energy ?? 150, acting);
  drawSide(ctx, replay, model, Math.min(i, replay.steps.length - 1));
}

// ------------------------------------------------------------------------------------ in words

function requestText(request) {
  if (!request || typeof request !== "object") return "an answer that is not a JSON object";
  const unit = request.unit !== undefined ? ` unit ${request.unit}` : "";
  switch (request.action) {
    case "move": return `move${unit} to (${request.x}, ${request.y})`;
    case "dig": return `dig with${unit}`;
    case "scan": return `scan with${unit}`;
    case "pickup": return `pick up ${itemsText(request.items)} with${unit}`;
    case "drop": return `drop ${itemsText(request.items)} from${unit}`;
    case "craft": return `craft ${request.object} with${unit}${request.ingredients ? ` from ${itemsText(request.ingredients)}` : request.alternative !== undefined ? ` (alternative ${request.alternative})` : ""}`;
    case "sell": return `sell ${request.quantity}× ${request.object} with${unit}`;
    case "buy": return `buy blueprint ${request.blueprint} with${unit}`;
    case "build_tower": return `build a tower with${unit}`;
    case "end_turn": return "end the turn";
    default: return `${request.action ?? "?"} ${JSON.stringify(request)}`;
  }
}

// §4.4: `error` is {code, reason}; the reason is free text for people.
function errorText(error) {
  if (!error) return "error";
  if (typeof error !== "object") return String(error);
  return `${error.code ?? "error"}${error.reason ? ` (${error.reason})` : ""}`;
}

function resultText_(result) {
  if (!result) return "";
  if (!result.ok) return `failed: ${errorText(result.error)}${result.energy_spent ? `; ${result.energy_spent} energy spent` : ""}`;
  const parts = [`ok, ${result.energy_spent ?? 0} energy`];
  const drained = (result.drained || []).filter((d) => d.amount > 0);
  if (drained.length) parts.push(`drained ${drained.map((d) => `${d.amount} by tower ${d.tower}`).join(", ")}`);
  if (result.dig) parts.push(`dig found ${itemsText(result.dig) === "–" ? "nothing" : itemsText(result.dig)}`);
  if (result.scan) parts.push(`scan: ${result.scan.length} cells with deposits`);
  return parts.join("; ");
}

const KIND_TEXT = {
  end_turn: "ends the turn",
  timeout: "turn closed at its deadline",
  limit: "turn closed at the action limit",
  no_answer: "turn skipped: an answer is still owed",
  late_discarded: "a late answer was discarded",
};

function describeRecord(replay, record) {
  const who = `Round ${record.round} · ${nameOf(replay, record.player)}`;
  const lines = [who];
  if (record.kind === "action" || record.kind === "late_action") {
    lines.push(`${record.kind === "late_action" ? "late action: " : ""}${requestText(record.request)}`);
    lines.push(resultText_(record.result));
  } else {
    lines.push(KIND_TEXT[record.kind] || String(record.kind));
    if (record.request && record.kind === "late_discarded") lines.push(`discarded: ${requestText(record.request)}`);
  }
  if (record.status && record.status !== "OK") lines.push(`status ${record.status}${record.reason ? `: ${record.reason}` : ""}`);
  return lines.filter(Boolean).join("\n");
}

function describe(replay, i) {
  const record = replay.steps[i]?.record;
  if (!record) return "";
  const earlier = (record.before || []).map((event) => `(before) ${describeRecord(replay, event).replace(/\n/g, " · ")}`);
  return [...earlier, describeRecord(replay, record)].join("\n");
}

function stepLabel(replay, i) {
  const record = replay.steps[i]?.record;
  return record ? `Round ${record.round} · seat ${record.player - 1}` : "";
}

function playerFields(replay, i, seat) {
  const model = modelAt(replay, i);
  if (!model) return [];
  const player = seat + 1;
  const units = model.units.filter((u) => u.player === player);
  return [
    { key: "credit", label: "credit", value: String(model.credits[String(player)] ?? "–") },
    { key: "towers", label: "towers", value: String(model.towers.filter((t) => t.owner === player && t.alive).length) },
    { key: "blueprints", label: "blueprints", value: (model.blueprints[String(player)] || []).join(" ") || "–" },
    { key: "energy", label: "energy", value: units.map((u) => `${LETTER[u.kind] || "?"} ${u.energy}`).join(" · ") },
  ];
}

// What the map's colours and letters mean (the canvas repeats the terrain and items).
function legend() {
  return [
    ...Object.entries(TERRAIN_NAMES).map(([ch, name]) => ({ shape: "square", color: TERRAIN[ch], label: name })),
    { shape: "square", color: RESOURCE, label: "resources" },
    { shape: "square", color: OBJECT, label: "objects" },
    { shape: "square", color: BURIED, label: "buried" },
    { shape: "square", color: CAMP, label: "camp" },
    ...KINDS.map((kind) => ({ shape: "letter", text: LETTER[kind], color: TEAM[0], label: `${kind} (its team's colour)` })),
    { shape: "dot", color: OK, label: "action succeeded" },
    { shape: "dot", color: ERROR, label: "action failed" },
    { shape: "ring", color: SCAN, label: "scan" },
  ];
}

function resultText(replay) {
  const ranks = replay.result?.ranks;
  if (!ranks || !ranks.length) return "in progress";
  const scores = replay.result.scores || [];
  if (ranks.every((r) => r === ranks[0])) return `draw (${scoreline(scores)})`;
  const winner = ranks.indexOf(Math.min(...ranks));
  return `${seatName(replay, winner)} wins (${scoreline(scores)})`;
}

function probe(replay, i) {
  const model = modelAt(replay, i);
  const g = geometry(model);
  const centres = unitCentres(g, model.units);
  const unitsAt = new Set(model.units.map((u) => `${u.x},${u.y}`));
  const towersAt = new Set(model.towers.filter((t) => t.alive).map((t) => `${t.x},${t.y}`));
  // a terrain sample per character: a cell that nothing is drawn over (no unit, pile, tower, camp)
  const blocked = new Set(); // cells near anything drawn over the terrain
  const block = (list, d) => {
    for (const c of list) for (let dy = -d; dy <= d; dy++) for (let dx = -d; dx <= d; dx++) blocked.add(idx(model, c.x + dx, c.y + dy));
  };
  block(model.units, 2);
  block([...model.camps, ...model.cells.values()], 1);
  block(model.towers.filter((t) => t.alive), (replay.config?.tower_radius ?? 4) + 1);
  const terrain = {};
  for (let y = 0; y < model.height; y++) {
    for (let x = 0; x < model.width; x++) {
      const ch = model.terrain[y][x];
      if (terrain[ch] || blocked.has(idx(model, x, y))) continue;
      terrain[ch] = { x, y, sample: cellCentre(g, x, y) };
    }
  }
  return {
    cell: g.cell,
    round: model.round,
    player: model.player,
    hidden: view.hidden,
    credits: model.credits,
    terrainColours: TERRAIN,
    teamColours: { 1: teamColour(1), 2: teamColour(2) },
    terrain,
    units: model.units.map((u) => ({ id: u.id, player: u.player, kind: u.kind, x: u.x, y: u.y, energy: u.energy, sample: { ...centres.get(u.id) } })),
    buried: [...model.cells.values()].filter((c) => total(c.buried) && !unitsAt.has(`${c.x},${c.y}`) && !towersAt.has(`${c.x},${c.y}`))
      .map((c) => ({ x: c.x, y: c.y, amount: total(c.buried), sample: cellCentre(g, c.x, c.y) })),
  };
}

registerRenderer("craftingquest", {
  size: { width: W, height: H },
  colors: TEAM,
  title: () => "Crafting Quest 2",
  init(canvas, replay) {
    // Live steps are appended to the same replay and change no earlier state: keep the cache then, so
    // following a live game folds each record once. A new replay, or new keyframes (the end), reset it.
    if (seen.replay !== replay || seen.keyframes !== replay.keyframes) {
      states.reset();
      before.replay = null;
      if (seen.replay !== replay) view.hidden = false;
      seen.replay = replay;
      seen.keyframes = replay.keyframes;
    }
  },
  draw,
  describe,
  stepLabel,
  playerFields,
  resultText,
  legend,
  options: () => [{ key: "hidden", label: "buried deposits", toggle: true, value: view.hidden, title: "the hidden layer: buried resources (for analysis after the game)" }],
  setOption(key, value) {
    if (key === "hidden") view.hidden = !!value;
  },
  probe,
});
