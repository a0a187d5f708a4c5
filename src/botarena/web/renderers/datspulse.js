// DatsPulse renderer (spec datspulse.md §3.1-§3.4, §3.9, §4): a hexagonal map of pointy-top hexes in odd-r
// offset coordinates, terrain and anthills (cached in an offscreen layer), food piles and nectar stores,
// units by type (worker circle, soldier square, scout triangle) with health bars and cargo, each unit's
// last move and attack, and a scoreboard. "View as" shows one team's fog of war (DP-90) instead of
// everything.
//
// Every step's record is a whole spectator frame; a keyframe's state is {terrain, frame}, and the
// terrain never changes during a match, so the map is drawn once per replay and size.

import { THEME, formatNumber, registerRenderer, seatName } from "../registry.js";

const W = 1200;
const H = 780;
const MAP = { x: 10, y: 10, w: 760, h: 760 };
const SIDE = { x: 790, y: 18, w: 400 };
const SQRT3 = Math.sqrt(3);
const MAX_TEAMS = 100;

const TERRAIN = { 1: "#475569", 2: "#2f3b4f", 3: "#6b4f35", 4: "#5d7f16", 5: "#9ca3af" }; // anthill, empty, dirt, acid, stone
const TERRAIN_NAMES = { 1: "anthill", 2: "empty", 3: "dirt", 4: "acid", 5: "stone" };
const FOOD = { 1: "#fb7185", 2: "#d6a35c", 3: "#facc15" }; // apple, bread, nectar
const FOOD_NAMES = { 1: "apple", 2: "bread", 3: "nectar" };
const UNIT_NAMES = ["worker", "soldier", "scout"];
const FOG = "rgba(4, 7, 14, 0.72)";
const ATTACK = "#ff3b30";
const SPECTATOR = "spectator";

// Distinct colours for up to 100 teams: hues a golden angle apart, alternating two lightnesses.
export const TEAM_COLORS = Array.from({ length: MAX_TEAMS }, (_, i) =>
  hslHex((i * 137.508 + 210) % 360, 75, i % 2 ? 48 : 60));

function hslHex(h, s, l) {
  const sat = s / 100;
  const light = l / 100;
  const a = sat * Math.min(light, 1 - light);
  const channel = (n) => {
    const k = (n + h / 30) % 12;
    const v = light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255).toString(16).padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

// An anthill in its team's colour, darkened so that the team's own units on it stand out.
function anthillColour(hex) {
  const n = parseInt(hex.slice(1), 16);
  const mix = (v) => Math.round(v * 0.55 + 0x1e * 0.45);
  return `rgb(${mix((n >> 16) & 255)}, ${mix((n >> 8) & 255)}, ${mix(n & 255)})`;
}

// ------------------------------------------------------------------------------------ hex geometry

// odd-r offset (q, r) <-> axial (x, z) of DP-3; `r & 1` is the row parity for negative rows too
const toAxial = (q, r) => [q - (r - (r & 1)) / 2, r];
const fromAxial = (x, z) => [x + (z - (z & 1)) / 2, z];
const hexKey = (q, r) => (q + 2048) * 4096 + (r + 2048);
const keyQ = (key) => Math.floor(key / 4096) - 2048;
const keyR = (key) => (key % 4096) - 2048;

function distanceFromOrigin(q, r) {
  const [x, z] = toAxial(q, r);
  return Math.max(Math.abs(x), Math.abs(z), Math.abs(x + z));
}

// Every hex within distance d of (q, r) that lies on a map of radius `radius` (DP-3, DP-4).
function forEachInRange(q, r, d, radius, visit) {
  const [cx, cz] = toAxial(q, r);
  for (let dx = -d; dx <= d; dx++) {
    const lo = Math.max(-d, -dx - d);
    const hi = Math.min(d, -dx + d);
    for (let dz = lo; dz <= hi; dz++) {
      const x = cx + dx;
      const z = cz + dz;
      if (Math.max(Math.abs(x), Math.abs(z), Math.abs(x + z)) > radius) continue;
      const [hq, hr] = fromAxial(x, z);
      visit(hq, hr);
    }
  }
}

// Pixel layout of a radius-R hexagon in the MAP box: `size` is a hex's centre-to-corner distance.
function layoutFor(radius) {
  const size = Math.min(MAP.w / (2 * SQRT3 * (radius + 0.5)), MAP.h / (2 * (1.5 * radius + 1)));
  return { radius, size, ox: MAP.x + MAP.w / 2, oy: MAP.y + MAP.h / 2 };
}

const centre = (g, q, r) => ({ x: g.ox + SQRT3 * g.size * (q + 0.5 * (r & 1)), y: g.oy + 1.5 * g.size * r });

function hexPath(ctx, g, q, r, scale = 1) {
  const c = centre(g, q, r);
  const s = g.size * scale;
  ctx.moveTo(c.x, c.y - s);
  ctx.lineTo(c.x + (SQRT3 / 2) * s, c.y - s / 2);
  ctx.lineTo(c.x + (SQRT3 / 2) * s, c.y + s / 2);
  ctx.lineTo(c.x, c.y + s);
  ctx.lineTo(c.x - (SQRT3 / 2) * s, c.y + s / 2);
  ctx.lineTo(c.x - (SQRT3 / 2) * s, c.y - s / 2);
  ctx.closePath();
}

// Where a unit is drawn inside its hex: units of one team but different types may share a hex (DP-22).
const UNIT_OFFSET = [[-0.3, 0.18], [0.3, 0.18], [0, -0.34]];
function unitCentre(g, unit) {
  const c = centre(g, unit.q, unit.r);
  const [dx, dy] = UNIT_OFFSET[unit.type] || [0, 0];
  return { x: c.x + dx * g.size, y: c.y + dy * g.size };
}

// --------------------------------------------------------------------------------------- the model

const cache = { owner: null, replay: null, terrain: null, layer: null, layerKey: "", view: SPECTATOR, visible: null };

function config(replay) {
  return replay.config || {};
}

// The terrain {radius, types: Map(hexKey -> type)} of the replay's keyframes (written once, §4).
function terrainOf(replay) {
  if (cache.replay === replay && cache.terrain) return cache.terrain;
  let source = null;
  for (const kf of replay.keyframes || []) {
    if (kf.state && kf.state.terrain) {
      source = kf.state.terrain;
      break;
    }
  }
  if (!source && replay.terrain) source = replay.terrain;
  if (!source) return fallbackTerrain(replay); // a live header without its first keyframe: guess a radius
  const types = new Map();
  for (const [q, r, type] of source.tiles || []) types.set(hexKey(q, r), type);
  cache.replay = replay;
  cache.terrain = { radius: source.radius, types, known: true };
  return cache.terrain;
}

function fallbackTerrain(replay) {
  let radius = Number(config(replay).map_radius) || 0;
  const frame = frameAt(replay, replay.steps.length - 1);
  for (const u of frame?.units || []) radius = Math.max(radius, distanceFromOrigin(u.q, u.r) + 2);
  for (const t of frame?.teams || []) for (const h of t.home || []) radius = Math.max(radius, distanceFromOrigin(h.q, h.r) + 2);
  return { radius: Math.max(radius, 8), types: new Map(), known: false };
}

function frameAt(replay, i) {
  const step = replay.steps[Math.min(i, replay.steps.length - 1)];
  if (step && step.record) return step.record;
  for (const kf of replay.keyframes || []) if (kf.state && kf.state.frame) return kf.state.frame;
  return null;
}

const sortedTeams = (frame) => (frame?.teams || []).slice().sort((a, b) => a.index - b.index);

// Team index -> colour slot: the team's position by index, which is its seat in a lockstep match.
function slots(frame) {
  const map = new Map();
  sortedTeams(frame).forEach((t, k) => map.set(t.index, k));
  return map;
}

function teamColour(slotMap, index) {
  const slot = slotMap.has(index) ? slotMap.get(index) : index;
  return TEAM_COLORS[((slot % MAX_TEAMS) + MAX_TEAMS) % MAX_TEAMS];
}

// DP-90: the hexes team `index` sees in `frame`: each listed unit's view radius (corpses included)
// around its position and every hex of its lastMove, and spot_view around its spot.
export function visibleHexes(frame, index, cfg, radius) {
  const views = [cfg.worker_view ?? 1, cfg.soldier_view ?? 1, cfg.scout_view ?? 4];
  const seen = new Set();
  const add = (q, r) => seen.add(hexKey(q, r));
  for (const unit of frame.units || []) {
    if (unit.team !== index) continue;
    const d = views[unit.type] ?? 1;
    forEachInRange(unit.q, unit.r, d, radius, add);
    for (const step of unit.lastMove || []) forEachInRange(step.q, step.r, d, radius, add);
  }
  const team = (frame.teams || []).find((t) => t.index === index);
  if (team && team.spot) forEachInRange(team.spot.q, team.spot.r, cfg.spot_view ?? 2, radius, add);
  return seen;
}

function visibleFor(replay, i, frame, terrain) {
  if (cache.view === SPECTATOR) return null;
  const index = Number(cache.view);
  const key = `${i}:${cache.view}`;
  if (cache.visible && cache.visible.key === key && cache.visible.replay === replay) return cache.visible.set;
  const set = visibleHexes(frame, index, config(replay), terrain.radius);
  cache.visible = { key, replay, set };
  return set;
}

// --------------------------------------------------------------------------------------- drawing

// The terrain and anthills, drawn once per replay, map size and pixel ratio into an offscreen canvas.
function terrainLayer(terrain, g, frame, dpr) {
  const homes = (frame?.teams || []).map((t) => `${t.index}:${(t.home || []).map((h) => `${h.q},${h.r}`).join(";")}`).join("|");
  const key = `${terrain.radius}:${terrain.types.size}:${dpr}:${homes}`;
  if (cache.layer && cache.layerKey === key) return cache.layer;
  const canvas = document.createElement("canvas");
  canvas.width = Math.ceil(W * dpr);
  canvas.height = Math.ceil(H * dpr);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const byType = new Map();
  const R = terrain.radius;
  for (let r = -R; r <= R; r++) {
    for (let x = Math.max(-R, -r - R); x <= Math.min(R, -r + R); x++) {
      const [q] = fromAxial(x, r);
      const type = terrain.types.get(hexKey(q, r)) ?? 2;
      if (!byType.has(type)) byType.set(type, []);
      byType.get(type).push([q, r]);
    }
  }
  const scale = g.size >= 4 ? 0.94 : 1.02; // a hairline gap between large hexes; none when tiny
  for (const [type, hexes] of byType) {
    ctx.fillStyle = TERRAIN[type] || TERRAIN[2];
    // in chunks: one path of tens of thousands of subpaths fills far slower than many small ones
    for (let k = 0; k < hexes.length; k += 256) {
      ctx.beginPath();
      for (const [q, r] of hexes.slice(k, k + 256)) hexPath(ctx, g, q, r, scale);
      ctx.fill();
    }
  }
  const slotMap = slots(frame);
  for (const team of frame?.teams || []) {
    ctx.fillStyle = anthillColour(teamColour(slotMap, team.index));
    ctx.beginPath();
    for (const h of team.home || []) hexPath(ctx, g, h.q, h.r, scale);
    ctx.fill();
    if (team.spot && g.size >= 3) { // the spot: a dark ring, where units spawn and the spot's view starts
      const c = centre(g, team.spot.q, team.spot.r);
      ctx.strokeStyle = "rgba(0,0,0,0.55)";
      ctx.lineWidth = Math.max(1, g.size * 0.12);
      ctx.beginPath();
      ctx.arc(c.x, c.y, g.size * 0.55, 0, Math.PI * 2);
      ctx.stroke();
    }
  }
  cache.layer = canvas;
  cache.layerKey = key;
  return canvas;
}

function drawFog(ctx, g, layer, visible) {
  ctx.fillStyle = FOG;
  ctx.fillRect(MAP.x, MAP.y, MAP.w, MAP.h);
  ctx.save();
  ctx.beginPath();
  for (const key of visible) hexPath(ctx, g, keyQ(key), keyR(key), 1.02);
  ctx.clip();
  ctx.drawImage(layer, 0, 0, W, H);
  ctx.restore();
}

function drawPile(ctx, g, q, r, type, amount) {
  const c = centre(g, q, r);
  const s = Math.max(1.5, g.size * 0.42);
  ctx.fillStyle = FOOD[type] || "#ffffff";
  ctx.beginPath(); // a diamond
  ctx.moveTo(c.x, c.y - s);
  ctx.lineTo(c.x + s, c.y);
  ctx.lineTo(c.x, c.y + s);
  ctx.lineTo(c.x - s, c.y);
  ctx.closePath();
  ctx.fill();
  if (g.size >= 6) { // a dark edge: piles are never mistaken for units of a similar colour
    ctx.strokeStyle = "#0b1220";
    ctx.lineWidth = 1;
    ctx.stroke();
  }
  if (g.size >= 11) {
    ctx.fillStyle = "#111827";
    ctx.font = `bold ${Math.floor(g.size * 0.5)}px ${THEME.font}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(String(amount), c.x, c.y + 1);
  }
}

function drawNectarStores(ctx, g, frame, visible) {
  for (const team of frame.teams || []) {
    (team.home || []).forEach((h, k) => {
      const amount = (team.nectar || [])[k] || 0;
      if (amount <= 0 || (visible && !visible.has(hexKey(h.q, h.r)))) return;
      const c = centre(g, h.q, h.r);
      ctx.fillStyle = FOOD[3];
      ctx.beginPath();
      ctx.arc(c.x, c.y + g.size * 0.45, Math.max(1.2, g.size * 0.2), 0, Math.PI * 2);
      ctx.fill();
    });
  }
}

function unitShape(ctx, type, x, y, s) {
  ctx.beginPath();
  addUnitShape(ctx, type, x, y, s);
}

// A unit's shape as one more closed subpath of the current path.
function addUnitShape(ctx, type, x, y, s) {
  if (type === 1) ctx.rect(x - s, y - s, 2 * s, 2 * s); // soldier: a square
  else if (type === 2) { // scout: a triangle
    ctx.moveTo(x, y - 1.2 * s);
    ctx.lineTo(x + 1.1 * s, y + 0.85 * s);
    ctx.lineTo(x - 1.1 * s, y + 0.85 * s);
    ctx.closePath();
  } else { // worker: a circle
    ctx.moveTo(x + s, y);
    ctx.arc(x, y, s, 0, Math.PI * 2);
  }
}

// Small hexes (big maps, up to 100 teams): no outline or health bar, and one path per team colour
// and per food colour instead of a fill per unit, so thousands of units cost a few hundred fills.
function drawUnitsBatched(ctx, g, units, slotMap) {
  const s = Math.max(1.2, g.size * 0.36);
  const living = new Map();
  const dead = new Map();
  const cargo = new Map();
  for (const unit of units) {
    const colour = teamColour(slotMap, unit.team);
    const into = unit.health > 0 ? living : dead;
    if (!into.has(colour)) into.set(colour, []);
    into.get(colour).push(unit);
    const food = unit.food || {};
    if (unit.health > 0 && food.amount > 0 && food.type) {
      if (!cargo.has(food.type)) cargo.set(food.type, []);
      cargo.get(food.type).push(unit);
    }
  }
  ctx.lineWidth = Math.max(1, s * 0.4);
  for (const [colour, list] of dead) {
    ctx.strokeStyle = colour;
    ctx.beginPath();
    for (const unit of list) {
      const p = unitCentre(g, unit);
      ctx.moveTo(p.x - s, p.y - s); ctx.lineTo(p.x + s, p.y + s);
      ctx.moveTo(p.x + s, p.y - s); ctx.lineTo(p.x - s, p.y + s);
    }
    ctx.stroke();
  }
  for (const [colour, list] of living) {
    ctx.fillStyle = colour;
    ctx.beginPath();
    for (const unit of list) {
      const p = unitCentre(g, unit);
      addUnitShape(ctx, unit.type, p.x, p.y, s);
    }
    ctx.fill();
  }
  const dot = Math.max(1, s * 0.45);
  for (const [type, list] of cargo) {
    ctx.fillStyle = FOOD[type] || "#ffffff";
    ctx.beginPath();
    for (const unit of list) {
      const p = unitCentre(g, unit);
      ctx.moveTo(p.x + s * 0.7 + dot, p.y - s * 0.7);
      ctx.arc(p.x + s * 0.7, p.y - s * 0.7, dot, 0, Math.PI * 2);
    }
    ctx.fill();
  }
}

function drawUnit(ctx, g, unit, colour, maxHealth) {
  const p = unitCentre(g, unit);
  const s = Math.max(1.2, g.size * 0.36);
  if (unit.health <= 0) { // a corpse (DP-24): a cross, for the one turn it stays listed
    ctx.strokeStyle = colour;
    ctx.lineWidth = Math.max(1, s * 0.4);
    ctx.beginPath();
    ctx.moveTo(p.x - s, p.y - s); ctx.lineTo(p.x + s, p.y + s);
    ctx.moveTo(p.x + s, p.y - s); ctx.lineTo(p.x - s, p.y + s);
    ctx.stroke();
    return;
  }
  ctx.fillStyle = colour;
  unitShape(ctx, unit.type, p.x, p.y, s);
  ctx.fill();
  if (g.size >= 6) {
    ctx.strokeStyle = "#0b1220";
    ctx.lineWidth = 1;
    ctx.stroke();
  }
  const cargo = unit.food || {};
  if (cargo.amount > 0 && cargo.type) { // carried food: a dot of the food's colour on top
    ctx.fillStyle = FOOD[cargo.type] || "#ffffff";
    ctx.beginPath();
    ctx.arc(p.x + s * 0.7, p.y - s * 0.7, Math.max(1, s * 0.45), 0, Math.PI * 2);
    ctx.fill();
  }
  if (g.size >= 8) { // a health bar under the unit
    const frac = Math.max(0, Math.min(1, unit.health / (maxHealth[unit.type] || unit.health)));
    const bw = 2.2 * s;
    ctx.fillStyle = "#111827";
    ctx.fillRect(p.x - bw / 2, p.y + s + 1, bw, 2);
    ctx.fillStyle = frac > 0.5 ? "#22c55e" : frac > 0.25 ? "#eab308" : "#ef4444";
    ctx.fillRect(p.x - bw / 2, p.y + s + 1, bw * frac, 2);
  }
}

// The path each unit walked in the last transition: from its previous position (the step before)
// through every hex of lastMove.
function drawMoves(ctx, g, frame, previous, slotMap, shown) {
  const before = new Map((previous?.units || []).map((u) => [u.id, u]));
  ctx.lineWidth = Math.max(1, g.size * 0.14);
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  const paths = new Map(); // one path per team colour
  for (const unit of frame.units || []) {
    if (!unit.lastMove || !unit.lastMove.length || !shown(unit)) continue;
    const start = before.get(unit.id);
    const points = (start ? [start] : []).concat(unit.lastMove).map((h) => centre(g, h.q, h.r));
    if (points.length < 2) continue;
    const colour = teamColour(slotMap, unit.team);
    if (!paths.has(colour)) paths.set(colour, []);
    paths.get(colour).push(points);
  }
  ctx.globalAlpha = 0.55;
  for (const [colour, lines] of paths) {
    ctx.strokeStyle = colour;
    ctx.beginPath();
    for (const points of lines) {
      ctx.moveTo(points[0].x, points[0].y);
      for (let k = 1; k < points.length; k++) ctx.lineTo(points[k].x, points[k].y);
    }
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
}

// Drawn before the units, so that a line never covers a unit.
function drawAttacks(ctx, g, frame, shown) {
  ctx.strokeStyle = ATTACK;
  ctx.lineWidth = Math.max(1, g.size * 0.12);
  for (const unit of frame.units || []) {
    if (!unit.lastAttack || !shown(unit)) continue;
    const from = unitCentre(g, unit);
    const to = centre(g, unit.lastAttack.q, unit.lastAttack.r);
    ctx.beginPath();
    ctx.moveTo(from.x, from.y);
    ctx.lineTo(to.x, to.y);
    ctx.stroke();
    const s = Math.max(1.5, g.size * 0.3); // a burst on the attacked hex
    ctx.beginPath();
    for (let k = 0; k < 4; k++) {
      const a = (k * Math.PI) / 4;
      ctx.moveTo(to.x - s * Math.cos(a), to.y - s * Math.sin(a));
      ctx.lineTo(to.x + s * Math.cos(a), to.y + s * Math.sin(a));
    }
    ctx.stroke();
  }
}

function teamRows(frame) {
  const alive = new Map();
  for (const u of frame.units || []) if (u.health > 0) alive.set(u.team, (alive.get(u.team) || 0) + 1);
  return (frame.teams || []).map((t) => ({
    index: t.index,
    name: t.name,
    score: t.score,
    nectar: (t.nectar || []).reduce((a, b) => a + b, 0),
    units: alive.get(t.index) || 0,
    lost: t.unitsLost || 0,
  }));
}

const ranked = (frame) => teamRows(frame).sort((a, b) => b.score - a.score || a.index - b.index);

function drawScoreboard(ctx, replay, frame, slotMap, g) {
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  ctx.fillStyle = THEME.text;
  ctx.font = `bold 16px ${THEME.font}`;
  const turns = config(replay).turns;
  ctx.fillText(`Turn ${frame.turnNo}${turns ? ` / ${turns}` : ""}`, SIDE.x, SIDE.y + 10);
  ctx.font = `12px ${THEME.font}`;
  ctx.fillStyle = THEME.muted;
  const view = cache.view === SPECTATOR ? "spectator view" : `fog of war of ${nameOfTeam(frame, Number(cache.view))}`;
  ctx.fillText(`radius ${g.radius} · ${view}`, SIDE.x, SIDE.y + 30);
  ctx.font = `12px ui-monospace, monospace`;
  ctx.fillText("#  team            score nectar units lost", SIDE.x, SIDE.y + 54);
  const rows = ranked(frame);
  const lineH = Math.max(13, Math.min(18, Math.floor((H - 150) / Math.max(1, rows.length))));
  const fit = Math.min(32, Math.floor((H - 150) / lineH)); // many teams: the leaders, and a count of the rest
  ctx.font = `${Math.min(12, lineH - 1)}px ui-monospace, monospace`;
  let place = 0;
  rows.forEach((row, k) => {
    if (k === 0 || row.score !== rows[k - 1].score) place = k + 1;
    const y = SIDE.y + 72 + k * lineH;
    if (k >= fit) {
      if (k === fit) {
        ctx.fillStyle = THEME.muted;
        ctx.fillText(`… ${rows.length - fit} more teams`, SIDE.x + 14, y);
      }
      return;
    }
    ctx.fillStyle = teamColour(slotMap, row.index);
    ctx.fillRect(SIDE.x, y - lineH + 3, 10, lineH - 3);
    ctx.fillStyle = THEME.text;
    const name = clip(String(row.name ?? `team ${row.index}`), 14).padEnd(14);
    ctx.fillText(`${String(place).padStart(2)} ${name} ${String(row.score).padStart(6)} ${String(row.nectar).padStart(6)} ${String(row.units).padStart(5)} ${String(row.lost).padStart(4)}`, SIDE.x + 14, y);
  });
  drawLegend(ctx);
}

function drawLegend(ctx) {
  const y = H - 40;
  ctx.font = `11px ${THEME.font}`;
  let x = SIDE.x;
  for (const type of [2, 3, 4, 5]) {
    ctx.fillStyle = TERRAIN[type];
    ctx.fillRect(x, y - 9, 10, 10);
    ctx.fillStyle = THEME.muted;
    ctx.fillText(TERRAIN_NAMES[type], x + 14, y);
    x += 70;
  }
  x = SIDE.x;
  for (const type of [1, 2, 3]) {
    ctx.fillStyle = FOOD[type];
    ctx.fillRect(x, y + 9, 10, 10);
    ctx.fillStyle = THEME.muted;
    ctx.fillText(FOOD_NAMES[type], x + 14, y + 18);
    x += 70;
  }
  ctx.fillText("● worker  ■ soldier  ▲ scout", x, y + 18);
}

// A team as every viewer labels a seat: "seat N · name", N its 0-based position by index (its seat in
// a lockstep match).
function nameOfTeam(frame, index) {
  const teams = sortedTeams(frame);
  const seat = teams.findIndex((t) => t.index === index);
  if (seat < 0) return `team ${index}`;
  return teams[seat].name ? `seat ${seat} · ${teams[seat].name}` : `seat ${seat}`;
}

// A name cut to `n` characters with an ellipsis (the ranking's monospace column), never silently.
const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

function draw(ctx, replay, i) {
  ctx.fillStyle = THEME.bg;
  ctx.fillRect(0, 0, W, H);
  const frame = frameAt(replay, i);
  if (!frame) return;
  const terrain = terrainOf(replay);
  const g = layoutFor(terrain.radius);
  const dpr = Number(ctx.canvas?.dataset?.dpr || 1);
  const layer = terrainLayer(terrain, g, frame, dpr);
  ctx.drawImage(layer, 0, 0, W, H);
  const visible = visibleFor(replay, i, frame, terrain);
  if (visible) drawFog(ctx, g, layer, visible);
  const viewer = visible ? Number(cache.view) : null;
  const seen = (q, r) => !visible || visible.has(hexKey(q, r));
  // a team sees its own units, and other teams' living units on its visible hexes (§4)
  const shown = (u) => viewer === null || u.team === viewer || (u.health > 0 && seen(u.q, u.r));
  const slotMap = slots(frame);
  for (const pile of frame.food || []) if (seen(pile.q, pile.r)) drawPile(ctx, g, pile.q, pile.r, pile.type, pile.amount);
  drawNectarStores(ctx, g, frame, visible);
  drawMoves(ctx, g, frame, i > 0 ? frameAt(replay, i - 1) : null, slotMap, shown);
  const cfg = config(replay);
  const maxHealth = [cfg.worker_health ?? 130, cfg.soldier_health ?? 180, cfg.scout_health ?? 80];
  drawAttacks(ctx, g, frame, shown);
  // Corpses first: a living enemy may stand on a corpse's hex (DP-24: corpses do not block). Then scouts,
  // whose slot is the top of the hex, so that the workers and soldiers below cover the scouts' health bars
  // rather than the other way round.
  const order = (u) => (u.health <= 0 ? 0 : u.type === 2 ? 1 : 2);
  const drawn = (frame.units || []).filter(shown).sort((a, b) => order(a) - order(b));
  if (g.size < 8) drawUnitsBatched(ctx, g, drawn, slotMap);
  else for (const unit of drawn) drawUnit(ctx, g, unit, teamColour(slotMap, unit.team), maxHealth);
  drawScoreboard(ctx, replay, frame, slotMap, g);
}

// ------------------------------------------------------------------------------------ shell hooks

function stepLabel(replay, i) {
  const frame = frameAt(replay, i);
  return frame ? `Turn ${frame.turnNo}` : "";
}

function describe(replay, i) {
  const frame = frameAt(replay, i);
  if (!frame) return "";
  const units = frame.units || [];
  const alive = units.filter((u) => u.health > 0);
  const byType = UNIT_NAMES.map((name, t) => `${alive.filter((u) => u.type === t).length} ${name}s`).join(", ");
  const attacks = units.filter((u) => u.lastAttack).length;
  const moved = units.filter((u) => u.lastMove && u.lastMove.length).length;
  const lines = [
    `Turn ${frame.turnNo}: ${alive.length} units alive (${byType}), ${units.length - alive.length} corpses`,
    `${moved} moved, ${attacks} attacked, ${(frame.food || []).length} food piles`,
  ];
  for (const row of ranked(frame).slice(0, 10)) {
    lines.push(`${nameOfTeam(frame, row.index)}: score ${row.score}, nectar ${row.nectar}, units ${row.units}, lost ${row.lost}`);
  }
  const events = frame.events || [];
  for (const e of events.slice(0, 30)) lines.push(`[${nameOfTeam(frame, e.team)}] ${e.message}`);
  if (events.length > 30) lines.push(`… ${events.length - 30} more events`);
  return lines.join("\n");
}

function playerFields(replay, i, seat) {
  const frame = frameAt(replay, i);
  const team = sortedTeams(frame)[seat];
  if (!team) return [];
  const row = teamRows(frame).find((r) => r.index === team.index);
  return [
    { key: "score", label: "score", value: String(row.score) },
    { key: "nectar", label: "nectar", value: String(row.nectar) },
    { key: "units", label: "units", value: String(row.units) },
    { key: "lost", label: "units lost", value: String(row.lost) },
  ];
}

// What the map's colours and glyphs mean (units in seat 0's colour: every team's are alike).
function legend() {
  return [
    ...[1, 2, 3, 4, 5].map((type) => ({ shape: "square", color: TERRAIN[type], label: TERRAIN_NAMES[type] })),
    ...[1, 2, 3].map((type) => ({ shape: "square", color: FOOD[type], label: FOOD_NAMES[type] })),
    { shape: "dot", color: TEAM_COLORS[0], label: "worker" },
    { shape: "square", color: TEAM_COLORS[0], label: "soldier" },
    { shape: "triangle", color: TEAM_COLORS[0], label: "scout" },
    { shape: "bar", color: ATTACK, label: "attack" },
    { shape: "square", color: "#04070e", label: "fog of war (when viewing as a team)" },
  ];
}

function resultText(replay) {
  const ranks = replay.result?.ranks;
  if (!ranks || !ranks.length) return "in progress";
  const best = Math.min(...ranks);
  const winners = ranks.map((r, k) => (r === best ? seatName(replay, k) : null)).filter(Boolean);
  const scores = replay.result.scores || [];
  const top = scores[ranks.indexOf(best)];
  const head = winners.length > 1 ? `tie: ${winners.join(", ")}` : `${winners[0]} wins`;
  return top == null ? head : `${head} (${formatNumber(top)})`;
}

function options(replay) {
  const frame = frameAt(replay, Math.max(0, replay.steps.length - 1));
  const teams = sortedTeams(frame);
  const choices = [{ value: SPECTATOR, label: "spectator (everything)" }];
  for (const t of teams) choices.push({ value: String(t.index), label: `${nameOfTeam(frame, t.index)} (fog of war)` });
  if (cache.view !== SPECTATOR && !teams.some((t) => String(t.index) === cache.view)) cache.view = SPECTATOR;
  return [{ key: "view", label: "view as", value: cache.view, choices }];
}

function setOption(key, value) {
  if (key === "view") {
    cache.view = String(value);
    cache.visible = null;
  }
}

// Geometry for the browser tests (logical pixels): every hex's centre is reachable through `hex`.
function probe(replay, i) {
  const frame = frameAt(replay, i);
  const terrain = terrainOf(replay);
  const g = layoutFor(terrain.radius);
  const visible = visibleFor(replay, i, frame, terrain);
  const viewer = visible ? Number(cache.view) : null;
  const slotMap = slots(frame);
  const units = (frame?.units || []).map((u) => ({
    id: u.id,
    team: u.team,
    type: u.type,
    q: u.q,
    r: u.r,
    health: u.health,
    colour: teamColour(slotMap, u.team),
    sample: unitCentre(g, u),
    shown: viewer === null || u.team === viewer || (u.health > 0 && visible.has(hexKey(u.q, u.r))),
  }));
  return {
    radius: terrain.radius,
    size: g.size,
    origin: { x: g.ox, y: g.oy },
    turn: frame?.turnNo,
    view: cache.view,
    visibleCount: visible ? visible.size : null,
    terrainColours: TERRAIN,
    teamColours: sortedTeams(frame).map((t) => ({ index: t.index, colour: teamColour(slotMap, t.index) })),
    ranking: frame ? ranked(frame).map((r) => r.index) : [],
    units,
  };
}

registerRenderer("datspulse", {
  size: { width: W, height: H },
  colors: TEAM_COLORS,
  title: () => "DatsPulse",
  init(canvas, replay) {
    if (cache.owner !== replay) { // a new replay (not live steps appended to the same one)
      cache.owner = replay;
      cache.replay = null;
      cache.terrain = null;
      cache.layer = null;
      cache.layerKey = "";
      cache.view = SPECTATOR;
    }
    cache.visible = null; // live: steps may have been appended in place
    terrainOf(replay);
  },
  draw,
  describe,
  stepLabel,
  playerFields,
  resultText,
  legend,
  options,
  setOption,
  probe,
});
