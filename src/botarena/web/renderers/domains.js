// Domains renderer (spec domains.md): the board with each player's paint, trails and ability zones,
// units (energy, upgraded ring), bubbles (their timers), bonuses, and per-player scores.
//
// A step's record carries the squares whose paint, trail or flag changed, plus the full unit, bubble
// and bonus lists; keyframes carry whole boards. The board after step i is the latest keyframe at or
// before it with the later records applied (cached, so playing forward is incremental).

import { StepStates, THEME, fitText, registerRenderer, scoreline, seatName } from "../registry.js";

const W = 960;
const H = 540;
const COLORS = ["#3b82f6", "#ef4444", "#22c55e", "#eab308"];
const PAINT = ["#1d3d73", "#6e2430", "#1d5a35", "#6b5714"]; // each colour, darkened for painted ground
const BG = THEME.bg;
const GROUND = THEME.ground;
const PANEL = THEME.panel;
const TEXT = THEME.text;
const MUTED = THEME.muted;
const BONUS = "#f59e0b";
const UPGRADE = "#fde047";
const ZONE = "#f8fafc";
const FONT = THEME.font;
const BOARD = { x: 20, y: 20, size: 500 };
const SIDE = { x: 550, y: 20, w: 390 };

// The board after step i (i = -1: the initial state): {rows, cols, painter, drawer, ability, units,
// bubbles, bonuses, points}.
const boards = new StepStates({
  fromKeyframe: (s) => ({
    rows: s.rows,
    cols: s.cols,
    painter: s.painter.slice(),
    drawer: s.drawer.slice(),
    ability: s.ability.slice(),
    units: s.units,
    bubbles: s.bubbles,
    bonuses: s.bonuses,
    points: s.points,
    round: s.round,
  }),
  apply(board, record) {
    for (const [q, painter, drawer, ability] of record.cells || []) {
      board.painter[q] = painter;
      board.drawer[q] = drawer;
      board.ability[q] = ability;
    }
    board.units = record.units || [];
    board.bubbles = record.bubbles || [];
    board.bonuses = record.bonuses || [];
    board.points = record.points || board.points;
    board.round = record.round + 1;
  },
});
const boardAt = (replay, i) => boards.at(replay, i);

function geometry(board) {
  const cell = Math.max(2, Math.floor(BOARD.size / Math.max(board.rows, board.cols)));
  return { x: BOARD.x, y: BOARD.y, cell, w: cell * board.cols, h: cell * board.rows };
}

const centre = (g, x, y) => ({ x: g.x + y * g.cell + g.cell / 2, y: g.y + x * g.cell + g.cell / 2 });

function drawBoard(ctx, board, g) {
  const { rows, cols } = board;
  ctx.fillStyle = GROUND;
  ctx.fillRect(g.x, g.y, g.w, g.h);
  for (let x = 0; x < rows; x++) {
    for (let y = 0; y < cols; y++) {
      const q = x * cols + y;
      const painter = board.painter[q];
      const px = g.x + y * g.cell;
      const py = g.y + x * g.cell;
      if (painter >= 0) {
        ctx.fillStyle = PAINT[painter % 4];
        ctx.fillRect(px, py, g.cell, g.cell);
      }
      if (board.ability[q] > 0) {
        ctx.strokeStyle = ZONE; // a zone: a light cross-hatch over its owner's paint
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.moveTo(px, py + g.cell);
        ctx.lineTo(px + g.cell, py);
        ctx.stroke();
      }
      const drawer = board.drawer[q];
      if (drawer >= 0) {
        const inset = Math.max(1, Math.floor(g.cell * 0.3));
        ctx.fillStyle = COLORS[drawer % 4];
        ctx.fillRect(px + inset, py + inset, g.cell - 2 * inset, g.cell - 2 * inset);
      }
    }
  }
  ctx.strokeStyle = "#334155";
  ctx.lineWidth = 1;
  ctx.strokeRect(g.x - 0.5, g.y - 0.5, g.w + 1, g.h + 1);
}

function drawContents(ctx, board, g) {
  const r = g.cell * 0.42;
  for (const [, x, y] of board.bonuses) {
    const c = centre(g, x, y);
    ctx.fillStyle = BONUS;
    ctx.beginPath();
    ctx.moveTo(c.x, c.y - r);
    ctx.lineTo(c.x + r, c.y);
    ctx.lineTo(c.x, c.y + r);
    ctx.lineTo(c.x - r, c.y);
    ctx.closePath();
    ctx.fill();
  }
  for (const [, colour, x, y, rtp] of board.bubbles) {
    const c = centre(g, x, y);
    ctx.strokeStyle = COLORS[colour % 4];
    ctx.lineWidth = Math.max(1.5, g.cell * 0.14);
    ctx.beginPath();
    ctx.arc(c.x, c.y, r * 0.85, 0, Math.PI * 2);
    ctx.stroke();
    if (rtp > 0 && g.cell >= 9) {
      ctx.fillStyle = TEXT;
      ctx.font = `700 ${Math.floor(g.cell * 0.6)}px ${FONT}`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(String(rtp), c.x, c.y + 1);
    }
  }
  for (const [, player, x, y, upgraded, energy] of board.units) {
    const c = centre(g, x, y);
    ctx.fillStyle = COLORS[player % 4];
    ctx.beginPath();
    ctx.arc(c.x, c.y, r, 0, Math.PI * 2);
    ctx.fill();
    ctx.lineWidth = upgraded ? Math.max(2, g.cell * 0.16) : 1;
    ctx.strokeStyle = upgraded ? UPGRADE : BG;
    ctx.stroke();
    if (g.cell >= 12) {
      ctx.fillStyle = "#ffffff";
      ctx.font = `700 ${Math.floor(g.cell * 0.5)}px ${FONT}`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(String(energy), c.x, c.y + 1);
    }
  }
}

function ownedCounts(board, n) {
  const counts = new Array(n).fill(0);
  for (const p of board.painter) if (p >= 0 && p < n) counts[p] += 1;
  return counts;
}

function playerCount(replay) {
  // The engine's keyframes carry the effective count (the recorded config may hold the preset's 2).
  const recorded = replay.keyframes?.[0]?.state?.num_players;
  return recorded || (replay.players || []).length || 2;
}

// The board after step i carries the number of rounds played so far (the keyframes' `round`: the
// round about to be played). The round it shows is the one just played, numbered from 0 as the
// bots see it (DR-35, the observation's `round`), the same number as the step label.
function roundText(replay, board) {
  const total = replay.config?.number_of_rounds ?? replay.steps.length;
  const played = Math.min(board.round, total);
  return played > 0 ? `Round ${played - 1} · ${played} of ${total} played` : `Before round 0 · ${total} rounds`;
}

function drawSide(ctx, replay, board) {
  const n = playerCount(replay);
  const owned = ownedCounts(board, n);
  ctx.fillStyle = PANEL;
  ctx.fillRect(SIDE.x, SIDE.y, SIDE.w, 500);
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  ctx.fillStyle = TEXT;
  ctx.font = `700 20px ${FONT}`;
  ctx.fillText(roundText(replay, board), SIDE.x + 16, SIDE.y + 32);
  for (let p = 0; p < n; p++) {
    const top = SIDE.y + 56 + p * 100;
    ctx.fillStyle = COLORS[p % 4];
    ctx.fillRect(SIDE.x + 16, top, 8, 80);
    ctx.fillStyle = TEXT;
    ctx.font = `700 16px ${FONT}`;
    ctx.fillText(fitText(ctx, seatName(replay, p), SIDE.w - 52), SIDE.x + 36, top + 18);
    ctx.font = `700 26px ${FONT}`;
    ctx.fillText(String(board.points?.[p] ?? 0), SIDE.x + 36, top + 50);
    const units = board.units.filter((u) => u[1] === p);
    const upgraded = units.filter((u) => u[4]).length;
    ctx.fillStyle = MUTED;
    ctx.font = `13px ${FONT}`;
    ctx.fillText(`${owned[p]} squares · ${units.length} units${upgraded ? ` (${upgraded} upgraded)` : ""}`,
      SIDE.x + 36, top + 72);
  }
}

function draw(ctx, replay, i) {
  ctx.fillStyle = BG;
  ctx.fillRect(0, 0, W, H);
  const board = boardAt(replay, Math.min(i, replay.steps.length - 1));
  if (!board) {
    ctx.fillStyle = MUTED;
    ctx.font = `16px ${FONT}`;
    ctx.fillText("no keyframe in this replay", 24, 40);
    return;
  }
  const g = geometry(board);
  drawBoard(ctx, board, g);
  drawContents(ctx, board, g);
  drawSide(ctx, replay, board);
}

function stepLabel(replay, i) {
  const record = replay.steps[i]?.record;
  return record ? `Round ${record.round}` : "";
}

function describe(replay, i) {
  const record = replay.steps[i]?.record;
  if (!record) return "";
  const lines = [`Round ${record.round}: points ${record.points.join(" / ")}`];
  (record.orders || []).forEach((orders, p) => lines.push(`${seatName(replay, p)}: ${orders.length} orders`));
  const fights = (record.events || []).filter((e) => e[0] === "fight");
  if (fights.length) lines.push(`${fights.length} fight(s)`);
  const refused = (record.events || []).filter((e) => e[0] !== "fight");
  if (refused.length) lines.push(`${refused.length} refused order(s)`);
  return lines.join("\n");
}

function resultText(replay) {
  const result = replay.result;
  if (!result || !result.ranks) return "";
  const n = result.ranks.length;
  const winners = [];
  for (let p = 0; p < n; p++) if (result.ranks[p] === 1) winners.push(seatName(replay, p));
  const head = winners.length > 1 ? `Tie: ${winners.join(", ")}` : `${winners[0]} wins`;
  return result.scores && result.scores.length ? `${head} (${scoreline(result.scores)})` : head;
}

function playerFields(replay, i, seat) {
  const board = boardAt(replay, Math.min(i, replay.steps.length - 1));
  if (!board) return [];
  const units = board.units.filter((u) => u[1] === seat);
  return [
    { key: "points", label: "points", value: String(board.points?.[seat] ?? 0) },
    { key: "squares", label: "squares", value: String(ownedCounts(board, playerCount(replay))[seat]) },
    { key: "units", label: "units", value: String(units.length) },
  ];
}

// Sample points (logical canvas pixels) for the browser tests.
function probe(replay, i) {
  const board = boardAt(replay, Math.min(i, replay.steps.length - 1));
  const g = geometry(board);
  const n = playerCount(replay);
  const occupied = new Set([...board.units, ...board.bubbles].map((e) => `${e[2]},${e[3]}`));
  board.bonuses.forEach((b) => occupied.add(`${b[1]},${b[2]}`));
  const free = (x, y) => !occupied.has(`${x},${y}`);
  const paint = [];
  const trails = [];
  const zones = [];
  for (let x = 0; x < board.rows; x++) {
    for (let y = 0; y < board.cols; y++) {
      const q = x * board.cols + y;
      if (!free(x, y)) continue;
      const c = centre(g, x, y);
      // a paint sample: the cell's corner area, away from the trail's inset and the hatch line
      if (board.painter[q] >= 0 && board.drawer[q] < 0 && board.ability[q] === 0 && !paint[board.painter[q]]) {
        paint[board.painter[q]] = { x, y, player: board.painter[q], sample: { x: c.x, y: c.y } };
      }
      if (board.drawer[q] >= 0 && trails.length < 4) trails.push({ x, y, player: board.drawer[q], sample: c });
      if (board.ability[q] > 0 && zones.length < 4) zones.push({ x, y, player: board.painter[q], countdown: board.ability[q] });
    }
  }
  return {
    width: W,
    height: H,
    board: g,
    colors: COLORS,
    paintColors: PAINT,
    players: n,
    round: board.round,
    roundText: roundText(replay, board),
    points: board.points,
    paint: paint.filter(Boolean),
    trails,
    zones,
    units: board.units.map(([id, player, x, y, upgraded, energy]) => {
      const c = centre(g, x, y);
      return { id, player, x, y, upgraded: Boolean(upgraded), energy, sample: { x: c.x, y: c.y - g.cell * 0.28 } };
    }),
    bubbles: board.bubbles.map(([id, player, x, y, rtp]) => ({ id, player, x, y, rtp })),
    bonuses: board.bonuses.map(([id, x, y]) => ({ id, x, y, sample: centre(g, x, y) })),
  };
}

// What the board's colours and glyphs mean (shown with seat 0's colour: every seat's are alike).
function legend() {
  return [
    { shape: "square", color: PAINT[0], label: "owned square (its painter's colour, darkened)" },
    { shape: "inset", color: COLORS[0], label: "trail (a unit's unclosed path)" },
    { shape: "hatch", color: ZONE, label: "ability zone (over its owner's paint)" },
    { shape: "dot", color: COLORS[0], label: "unit (number: energy)" },
    { shape: "ring", color: UPGRADE, label: "upgraded unit (yellow rim)" },
    { shape: "ring", color: COLORS[0], label: "bubble (number: rounds to pop once recoloured)" },
    { shape: "diamond", color: BONUS, label: "bonus" },
  ];
}

registerRenderer("domains", {
  legend,
  size: { width: W, height: H },
  colors: COLORS,
  title: () => "Domains",
  init(canvas, replay) {
    boards.reset();
    boardAt(replay, 0);
  },
  draw,
  describe,
  stepLabel,
  playerFields,
  resultText,
  probe,
});
