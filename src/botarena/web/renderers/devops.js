// Devops Game renderer (spec devops.md section 12): the omniscient map with owner-tinted tiles, corner
// icons (base top-left, resource top-right, fortification bottom-left, bomb bottom-right in its owner's
// colour), units as lettered squares in their faction's colour. The live ranking (spec 6 order) is the
// side panel of the page: each faction's card holds its rank, score, gold, territory, units, kills,
// bombs and status, so the map has the whole canvas (issue 26 item 9: at `course` size, 200 x 160
// tiles, a 500 px box gave about 3 px a tile).
//
// Keyframes carry whole states; every step's record carries the tiles changed that turn plus every
// unit and faction, so step i is the latest keyframe at or before it with the later records applied.

import { StepStates, keyframeBefore, registerRenderer, scoreline, seatName } from "../registry.js";

// The canvas: the map's shape, its longer side LONG logical pixels (the page scales it to the stage).
const LONG = 1200;
const MARGIN = 4;
export const FACTION_COLORS = ["#E6194B", "#3CB44B", "#4363D8", "#F58231", "#911EB4", "#42D4F4", "#F032E6",
  "#BFEF45", "#FABED4", "#469990", "#DCBEFF", "#9A6324", "#800000", "#AAFFC3", "#808000", "#000075"];
const NEUTRAL = "#D3D3D3";
const BG = "#0b1220";
const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const LETTER = { PIONEER: "P", WORKER: "W", FIGHTER: "F", CLERIC: "C", SAPPER: "S" };

const colorOf = (id) => FACTION_COLORS[(id - 1) % FACTION_COLORS.length];

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
function blend(hex) {
  const [r, g, b] = rgb(hex).map((v) => Math.round((v + 255) / 2));
  return `rgb(${r}, ${g}, ${b})`;
}
function letterColor(hex) {
  const [r, g, b] = rgb(hex);
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#000000" : "#ffffff";
}

function fromKeyframe(s) {
  const tiles = new Map();
  for (const t of s.tiles) tiles.set(t.y * s.mapWidth + t.x, [t.x, t.y, t.owner || 0, t.base ? 1 : 0, t.resource ? 1 : 0, t.fortified ? 1 : 0, t.bombOwner || 0]);
  return {
    turn: s.turnNumber,
    width: s.mapWidth,
    height: s.mapHeight,
    tiles,
    units: s.units.map((u) => [u.id, u.owner, u.type, u.x, u.y, u.health, u.defenseBonus ? 1 : 0, u.enlightened ? 1 : 0]),
    factions: s.factions.map((f) => [f.id, f.score, f.gold, f.territorySize, f.population, f.populationCap, f.kills, f.bombs, f.defeatTurn || 0, f.timeouts, f.errors]),
  };
}

// The state after step i (i = -1: the initial state).
const states = new StepStates({
  fromKeyframe,
  apply(state, record) {
    state.turn = record.turn;
    for (const t of record.tiles || []) {
      const key = t[1] * state.width + t[0];
      if (t[2] || t[3] || t[4] || t[5] || t[6]) state.tiles.set(key, t);
      else state.tiles.delete(key);
    }
    state.units = record.units || [];
    state.factions = record.factions || state.factions;
  },
  reach: 100,
});
const stateAt = (replay, i) => states.at(replay, i);

// The map's width and height in tiles, from the keyframes (960 x 540 before the first arrives).
function mapShape(replay) {
  const kf = keyframeBefore(replay, Number.MAX_SAFE_INTEGER);
  const s = kf && kf.state;
  return s && s.mapWidth > 0 && s.mapHeight > 0 ? { width: s.mapWidth, height: s.mapHeight } : null;
}

function sizeOf(shape) {
  const cell = Math.max(1, LONG / Math.max(shape.width, shape.height));
  return { width: Math.round(cell * shape.width) + 2 * MARGIN, height: Math.round(cell * shape.height) + 2 * MARGIN };
}

function canvasSize(replay) {
  const shape = mapShape(replay);
  return shape ? sizeOf(shape) : { width: 960, height: 540 };
}

function geometry(state) {
  const { width, height } = sizeOf(state);
  const cell = Math.min((width - 2 * MARGIN) / state.width, (height - 2 * MARGIN) / state.height);
  return { x: MARGIN, y: MARGIN, cell, w: cell * state.width, h: cell * state.height, canvas: { width, height } };
}

const tileXY = (g, x, y) => ({ x: g.x + x * g.cell, y: g.y + y * g.cell });

function ranking(state) {
  const rows = state.factions.slice();
  rows.sort((a, b) => {
    const da = a[8] > 0, db = b[8] > 0;
    if (da !== db) return da ? 1 : -1;
    if (!da) return b[1] - a[1] || b[3] - a[3] || b[6] - a[6] || a[0] - b[0];
    return b[8] - a[8] || b[1] - a[1] || b[6] - a[6] || a[0] - b[0];
  });
  return rows;
}

// Faction id k (1-based, the game's own) is seat k - 1.
const nameOf = (replay, id) => seatName(replay, id - 1);

function draw(ctx, replay, i) {
  const state = stateAt(replay, Math.min(i, replay.steps.length - 1));
  const size = state ? geometry(state).canvas : canvasSize(replay);
  ctx.fillStyle = BG;
  ctx.fillRect(0, 0, size.width, size.height);
  if (!state) return;
  const g = geometry(state);
  ctx.fillStyle = NEUTRAL;
  ctx.fillRect(g.x, g.y, g.w, g.h);
  const s = g.cell;
  const icon = Math.max(2, s * 0.3);
  for (const [x, y, owner, base, resource, fortified, bomb] of state.tiles.values()) {
    const p = tileXY(g, x, y);
    if (owner) {
      ctx.fillStyle = blend(colorOf(owner));
      ctx.fillRect(p.x, p.y, s, s);
    }
    if (base) { // castle: a dark block with battlements, top-left
      ctx.fillStyle = "#374151";
      ctx.fillRect(p.x + 1, p.y + 1, icon, icon);
    }
    if (resource) { // gem, top-right
      ctx.fillStyle = "#06b6d4";
      ctx.beginPath();
      ctx.moveTo(p.x + s - 1 - icon / 2, p.y + 1);
      ctx.lineTo(p.x + s - 1, p.y + 1 + icon / 2);
      ctx.lineTo(p.x + s - 1 - icon / 2, p.y + 1 + icon);
      ctx.lineTo(p.x + s - 1 - icon, p.y + 1 + icon / 2);
      ctx.closePath();
      ctx.fill();
    }
    if (fortified) { // shield, bottom-left
      ctx.fillStyle = "#6b7280";
      ctx.fillRect(p.x + 1, p.y + s - 1 - icon, icon, icon);
    }
    if (bomb) { // bomb in its owner's colour, bottom-right
      ctx.fillStyle = colorOf(bomb);
      ctx.beginPath();
      ctx.arc(p.x + s - 1 - icon / 2, p.y + s - 1 - icon / 2, icon / 2, 0, Math.PI * 2);
      ctx.fill();
    }
  }
  if (s >= 6) {
    ctx.strokeStyle = "rgba(0,0,0,0.12)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let x = 0; x <= state.width; x++) { ctx.moveTo(g.x + x * s, g.y); ctx.lineTo(g.x + x * s, g.y + g.h); }
    for (let y = 0; y <= state.height; y++) { ctx.moveTo(g.x, g.y + y * s); ctx.lineTo(g.x + g.w, g.y + y * s); }
    ctx.stroke();
  }
  const side = s * 0.6;
  for (const [, owner, type, x, y, , defense, enlightened] of state.units) {
    const p = tileXY(g, x, y);
    const ux = p.x + (s - side) / 2;
    const uy = p.y + (s - side) / 2;
    const colour = colorOf(owner);
    if (enlightened) {
      ctx.strokeStyle = "#fde047";
      ctx.lineWidth = Math.max(1, s * 0.08);
      ctx.strokeRect(ux - 2, uy - 2, side + 4, side + 4);
    }
    ctx.fillStyle = colour;
    ctx.fillRect(ux, uy, side, side);
    ctx.strokeStyle = "#111827";
    ctx.lineWidth = Math.max(1, s * 0.05);
    ctx.strokeRect(ux, uy, side, side);
    if (side >= 7) {
      ctx.fillStyle = letterColor(colour);
      ctx.font = `bold ${Math.floor(side * 0.75)}px ${FONT}`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(LETTER[type] || "?", ux + side / 2, uy + side / 2 + 1);
    }
    if (defense) {
      ctx.fillStyle = "#111827";
      ctx.fillRect(ux + side - 2, uy, 2, 2);
    }
  }
}

// What the map's colours and glyphs mean (units in seat 0's colour: every seat's are alike).
function legend() {
  return [
    { shape: "square", color: NEUTRAL, label: "unowned tile" },
    { shape: "square", color: blend(FACTION_COLORS[0]), label: "territory (its faction's colour, pale)" },
    { shape: "square", color: "#374151", label: "base (top-left)" },
    { shape: "diamond", color: "#06b6d4", label: "resource (top-right)" },
    { shape: "square", color: "#6b7280", label: "fortified (bottom-left)" },
    { shape: "dot", color: FACTION_COLORS[0], label: "bomb (bottom-right, its owner's colour)" },
    ...Object.entries(LETTER).map(([type, letter]) => ({
      shape: "letter", text: letter, color: FACTION_COLORS[0], label: type.toLowerCase(),
    })),
    { shape: "ring", color: "#fde047", label: "enlightened unit (yellow frame)" },
  ];
}

function stepLabel(replay, i) {
  const record = replay.steps[i]?.record;
  return record ? `Turn ${record.turn}` : "";
}

function describe(replay, i) {
  const record = replay.steps[i]?.record;
  if (!record) return "";
  const lines = [`Turn ${record.turn}: order ${record.order.join(" ")}`];
  const failed = record.calls.filter((c) => c.status !== "OK");
  const ignored = record.calls.filter((c) => c.outcome === "ignored");
  lines.push(`${record.calls.length} calls, ${failed.length} failed, ${ignored.length} ignored`);
  for (const e of record.events || []) lines.push(`${e.event} ${JSON.stringify(e)}`);
  return lines.slice(0, 40).join("\n");
}

function resultText(replay) {
  const rows = replay.result?.details?.results;
  if (!rows) return "";
  const winners = rows.filter((r) => r.rank === 1).map((r) => nameOf(replay, r.factionId));
  const head = winners.length > 1 ? `Draw: ${winners.join(", ")}` : `${winners[0]} wins`;
  const scores = replay.result?.scores;
  return scores && scores.length ? `${head} (${scoreline(scores)})` : head;
}

function playerFields(replay, i, seat) {
  const state = stateAt(replay, Math.min(i, replay.steps.length - 1));
  const f = state?.factions.find((row) => row[0] === seat + 1);
  if (!f) return [];
  const rank = ranking(state).findIndex((row) => row[0] === f[0]) + 1;
  return [
    { key: "rank", label: "rank", value: `${rank} of ${state.factions.length}` },
    { key: "score", label: "score", value: String(f[1]) },
    { key: "gold", label: "gold", value: String(f[2]) },
    { key: "territory", label: "territory", value: String(f[3]) },
    { key: "units", label: "units", value: `${f[4]}/${f[5]}` },
    { key: "kills", label: "kills", value: String(f[6]) },
    { key: "bombs", label: "bombs", value: String(f[7]) },
    { key: "status", label: "status", value: f[8] > 0 ? `defeated at turn ${f[8]}` : "alive" },
  ];
}

function probe(replay, i) {
  const state = stateAt(replay, Math.min(i, replay.steps.length - 1));
  const g = geometry(state);
  const s = g.cell;
  const tiles = [];
  for (const [x, y, owner, base, resource, fortified, bomb] of state.tiles.values()) {
    const p = tileXY(g, x, y);
    tiles.push({ x, y, owner, base: !!base, resource: !!resource, fortified: !!fortified, bomb,
      // a pixel inside the tile that no icon or unit covers: left edge, half way down
      sample: { x: p.x + 1.5, y: p.y + s / 2 } });
  }
  const occupied = new Set(state.units.map((u) => `${u[3]},${u[4]}`));
  return {
    cell: s,
    map: { x: g.x, y: g.y, w: g.w, h: g.h },
    canvas: g.canvas,
    turn: state.turn,
    tiles: tiles.filter((t) => t.owner && !occupied.has(`${t.x},${t.y}`) && s >= 6),
    units: state.units.map(([id, owner, type, x, y]) => {
      const p = tileXY(g, x, y);
      return { id, owner, type, x, y, sample: { x: p.x + s * 0.24, y: p.y + s * 0.24 } };
    }),
    ranking: ranking(state).map((f) => f[0]),
  };
}

registerRenderer("devops", {
  size: canvasSize,
  colors: FACTION_COLORS,
  title: () => "Devops Game",
  init(canvas, replay) {
    states.reset();
    stateAt(replay, 0);
  },
  draw,
  describe,
  stepLabel,
  playerFields,
  resultText,
  legend,
  probe,
});
