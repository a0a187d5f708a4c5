// GameOfDrones renderer (spec drones.md 3.6): per step, both sides' producers and soldiers after
// the turn's production, the applied actions (attack arrows), the clash on a round's last turn,
// round tallies so far and a strip with one cell per round.

import { THEME, fitText, registerRenderer, scoreline, seatName } from "../registry.js";

const W = 960;
const H = 540;
const COLORS = ["#3b82f6", "#ef4444"];
const DRAW_COLOR = "#64748b";
const BG = THEME.bg;
const PANEL = THEME.panel;
const TRACK = THEME.ground;
const LINE = "#24314d";
const TEXT = THEME.text;
const MUTED = THEME.muted;
const STATUS_COLORS = { INVALID: "#f59e0b", TIMEOUT: "#a855f7", CRASHED: "#ef4444" };
// The game's own outcome values (spec drones.md); the viewer labels seats "seat N · name", 0-based.
const SEATS = ["PLAYER 1", "PLAYER 2"];
const FONT = THEME.font;

// Geometry, in logical canvas pixels. Exposed through probe() for the browser tests.
const PANEL_Y = 68;
const PANEL_H = 292;
const PANELS = [
  { x: 20, y: PANEL_Y, w: 450, h: PANEL_H },
  { x: 490, y: PANEL_Y, w: 450, h: PANEL_H },
];
const BAR_W = 300;
const BAR_H = 22;
const ROWS = { producers: 72, soldiers: 156 }; // bar top, relative to the panel's top
const ICON = 10;
const ICON_GAP = 3;
const MAX_ICONS = 24;
const BANNER = { x: 20, y: 372, w: 920, h: 56 };
const STRIP = { x: 20, y: 458, w: 920, h: 32 };
const MIN_LOG = Math.log2(1 + 16); // a match of small numbers does not fill the bars at once

// ------------------------------------------------------------------------------------ the model

let cache = { replay: null, steps: -1, result: undefined, model: null };

function buildModel(replay) {
  const steps = replay.steps;
  const config = replay.config || {};
  const tallies = []; // after each step: [player1 wins, player2 wins, draws]
  const roundEnds = new Map(); // round -> {step, result}
  let w1 = 0;
  let w2 = 0;
  let draws = 0;
  let maxLog = MIN_LOG;
  steps.forEach((step, i) => {
    const record = step.record || {};
    for (const p of record.players || []) {
      for (const v of [p.producers, p.soldiers]) {
        if (typeof v === "number" && v > 0) maxLog = Math.max(maxLog, Math.log2(1 + v));
      }
    }
    const rr = record.roundResult;
    if (rr) {
      roundEnds.set(rr.round, { step: i, result: rr });
      if (rr.outcome === SEATS[0]) w1 += 1;
      else if (rr.outcome === SEATS[1]) w2 += 1;
      else draws += 1;
    }
    tallies.push([w1, w2, draws]);
  });
  const rounds = Math.max(config.rounds || 0, ...[...roundEnds.keys()], 1);
  return { tallies, roundEnds, rounds, maxLog, config };
}

function model(replay) {
  if (cache.replay !== replay || cache.steps !== replay.steps.length || cache.result !== replay.result) {
    cache = { replay, steps: replay.steps.length, result: replay.result, model: buildModel(replay) };
  }
  return cache.model;
}

function turnLimitOf(replay, m, round) {
  const end = m.roundEnds.get(round);
  if (end) return end.result.turnLimit;
  if (m.config.turn_limit_range == null && m.config.turn_limit) return m.config.turn_limit;
  for (const kf of replay.keyframes || []) {
    if (kf.state && kf.state.round === round && kf.state.turnLimit) return kf.state.turnLimit;
  }
  return null;
}

const recordOf = (replay, i) => (replay.steps[i] && replay.steps[i].record) || { players: [] };
const nameOf = (replay, seat) => ((replay.players || [])[seat] || {}).name || SEATS[seat];
const winnerSeat = (outcome) => SEATS.indexOf(outcome); // -1 for DRAW

// ------------------------------------------------------------------------------------ text

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function actionText(applied) {
  if (!applied) return "no action";
  const parts = [`+${plural(applied.newProducers, "producer")}`, `+${plural(applied.newSoldiers, "soldier")}`];
  if (applied.launchAttack) parts.push("ATTACK");
  return parts.join(", ");
}

function compactJson(value) {
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

function roundWinnerText(replay, rr) {
  const seat = winnerSeat(rr.outcome);
  return seat < 0 ? `round ${rr.round} is a DRAW` : `${seatName(replay, seat)} wins round ${rr.round}`;
}

function describe(replay, i) {
  const record = recordOf(replay, i);
  const m = model(replay);
  const limit = turnLimitOf(replay, m, record.round);
  const lines = [`Round ${record.round} of ${m.rounds} · Turn ${record.turn}${limit ? ` of ${limit}` : ""}`];
  (record.players || []).forEach((p, seat) => {
    const status = p.status === "OK" ? "OK" : `${p.status} (${p.reason}${p.detail ? `: ${p.detail}` : ""})`;
    lines.push(`${seatName(replay, seat)}: ${status}`);
    lines.push(`  requested ${compactJson(p.requested)}`);
    lines.push(`  applied   ${actionText(p.applied)}`);
    lines.push(`  now       ${p.producers} producers, ${p.soldiers} soldiers`);
    for (const w of p.warnings || []) lines.push(`  warning ${w.code}: ${w.detail}`);
  });
  const rr = record.roundResult;
  if (rr) {
    lines.push(`CLASH: trigger ${rr.trigger}, decided by ${rr.decidedBy}: ${roundWinnerText(replay, rr)}`);
    lines.push(`  after ${rr.turnsPlayed} of ${rr.turnLimit} turns`);
    [rr.player1, rr.player2].forEach((side, seat) => {
      const attack = side.launchedAttack ? ", attacked" : "";
      lines.push(`  seat ${seat}: ${side.producers} producers, ${side.soldiers} soldiers${attack}`);
    });
  }
  const [w1, w2, d] = m.tallies[i] || [0, 0, 0];
  lines.push(`Rounds won so far: seat 0 ${w1} · seat 1 ${w2}${d ? ` · draws ${d}` : ""}`);
  return lines.join("\n");
}

function stepLabel(replay, i) {
  const record = recordOf(replay, i);
  return `Round ${record.round} · Turn ${record.turn}`;
}

function playerFields(replay, i, seat) {
  const p = recordOf(replay, i).players[seat];
  const tally = model(replay).tallies[i] || [0, 0, 0];
  if (!p) return [];
  return [
    { key: "producers", label: "Producers", value: String(p.producers) },
    { key: "soldiers", label: "Soldiers", value: String(p.soldiers) },
    { key: "action", label: "Applied", value: actionText(p.applied) },
    { key: "requested", label: "Requested", value: compactJson(p.requested) },
    { key: "wins", label: "Rounds won", value: String(tally[seat]) },
  ];
}

// What the colours mean: the seats, a drawn round, and the statuses of a bad reply.
function legend(replay) {
  return [
    ...[0, 1].map((seat) => ({ shape: "bar", color: COLORS[seat], label: `${seatName(replay, seat)}: producers and soldiers, log scale` })),
    { shape: "square", color: DRAW_COLOR, label: "drawn round" },
    ...Object.entries(STATUS_COLORS).map(([status, color]) => ({ shape: "dot", color, label: `${status} reply` })),
  ];
}

function resultText(replay) {
  const details = (replay.result || {}).details;
  if (!details || !details.outcome) return "in progress";
  const totals = details.roundTotals || {};
  const score = scoreline([totals.player1Wins ?? "?", totals.player2Wins ?? "?"]);
  const drawn = totals.draws ? `, ${plural(totals.draws, "drawn round")}` : "";
  const seat = winnerSeat(details.outcome);
  if (seat < 0) return `Draw ${score}${drawn}`;
  return `${seatName(replay, seat)} wins ${score}${drawn}`;
}

// ------------------------------------------------------------------------------------ drawing

function font(size, weight = 600) {
  return `${weight} ${size}px ${FONT}`;
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.roundRect(x, y, w, h, r);
}

// Counts on the canvas: grouped digits up to ten million, then 4 significant digits (1.126e15);
// the player panels and the record text show the exact value.
function formatCount(v) {
  if (typeof v !== "number") return String(v);
  if (Math.abs(v) >= 1e7) return v.toExponential(3).replace("e+", "e");
  return Number.isInteger(v) ? v.toLocaleString("en-US") : String(Number(v.toPrecision(6)));
}

function canvasAction(applied) {
  if (!applied) return "no action";
  const parts = [`+${formatCount(applied.newProducers)} producers`, `+${formatCount(applied.newSoldiers)} soldiers`];
  if (applied.launchAttack) parts.push("ATTACK");
  return parts.join(", ");
}

function barLength(v, maxLog) {
  if (typeof v !== "number" || !(v > 0)) return 0;
  return Math.max(2, Math.round((Math.log2(1 + v) / maxLog) * BAR_W));
}

function barGeometry(seat, key, value, maxLog) {
  const panel = PANELS[seat];
  const x = panel.x + 16;
  const y = panel.y + ROWS[key];
  return { track: { x, y, w: BAR_W, h: BAR_H }, fill: { x, y, w: barLength(value, maxLog), h: BAR_H } };
}

function drawIcons(ctx, x, y, count, kind, color) {
  const n = Math.min(MAX_ICONS, Math.max(0, Math.floor(Number(count) || 0)));
  ctx.fillStyle = color;
  ctx.globalAlpha = 0.75;
  for (let k = 0; k < n; k += 1) {
    const ix = x + k * (ICON + ICON_GAP);
    if (kind === "producers") {
      ctx.fillRect(ix, y + 3, ICON, ICON - 3); // a little factory: body and chimney
      ctx.fillRect(ix + ICON - 3, y, 3, 3);
    } else {
      ctx.beginPath(); // a drone: a dart
      ctx.moveTo(ix + ICON / 2, y);
      ctx.lineTo(ix + ICON, y + ICON);
      ctx.lineTo(ix + ICON / 2, y + ICON - 3);
      ctx.lineTo(ix, y + ICON);
      ctx.closePath();
      ctx.fill();
    }
  }
  ctx.globalAlpha = 1;
  if (Number(count) > MAX_ICONS) {
    ctx.fillStyle = MUTED;
    ctx.font = font(11, 500);
    ctx.fillText(`+${formatCount(Number(count) - n)}`, x + n * (ICON + ICON_GAP) + 4, y + ICON);
  }
}

function drawSide(ctx, replay, m, seat, p) {
  const panel = PANELS[seat];
  const color = COLORS[seat];
  roundRect(ctx, panel.x, panel.y, panel.w, panel.h, 10);
  ctx.fillStyle = PANEL;
  ctx.fill();
  ctx.fillStyle = color;
  ctx.fillRect(panel.x, panel.y + 8, 4, panel.h - 16);

  ctx.fillStyle = color;
  ctx.font = font(18, 700);
  ctx.fillText(fitText(ctx, nameOf(replay, seat), panel.w - 100), panel.x + 16, panel.y + 30);
  ctx.fillStyle = MUTED;
  ctx.font = font(12, 600);
  ctx.textAlign = "right";
  ctx.fillText(`seat ${seat}`, panel.x + panel.w - 16, panel.y + 30);
  ctx.textAlign = "start";

  for (const key of ["producers", "soldiers"]) {
    const value = p[key];
    const { track, fill } = barGeometry(seat, key, value, m.maxLog);
    ctx.fillStyle = MUTED;
    ctx.font = font(11, 700);
    ctx.fillText(key.toUpperCase(), track.x, track.y - 8);
    ctx.fillStyle = TRACK;
    ctx.fillRect(track.x, track.y, track.w, track.h);
    ctx.fillStyle = color;
    ctx.fillRect(fill.x, fill.y, fill.w, fill.h);
    ctx.fillStyle = TEXT;
    ctx.font = font(16, 700);
    ctx.fillText(formatCount(value), track.x + track.w + 10, track.y + 17);
    drawIcons(ctx, track.x, track.y + BAR_H + 8, value, key, color);
  }

  const y = panel.y + 232;
  ctx.font = font(13, 600);
  if (p.status !== "OK") {
    const label = `${p.status} · ${p.reason ?? ""}`;
    const width = ctx.measureText(label).width + 16;
    roundRect(ctx, panel.x + 16, y - 15, width, 21, 4);
    ctx.fillStyle = STATUS_COLORS[p.status] || MUTED;
    ctx.fill();
    ctx.fillStyle = "#0b1220";
    ctx.fillText(label, panel.x + 24, y);
    ctx.fillStyle = MUTED;
    ctx.fillText("no action", panel.x + 24 + width, y);
  } else {
    ctx.fillStyle = p.applied && p.applied.launchAttack ? TEXT : MUTED;
    ctx.fillText(canvasAction(p.applied), panel.x + 16, y);
  }
}

// The seats whose applied action launched an attack this turn.
function attackers(record) {
  return (record.players || [])
    .slice(0, 2)
    .map((p, seat) => (p.applied && p.applied.launchAttack ? seat : -1))
    .filter((seat) => seat >= 0);
}

// An arrow from one side's panel into the other's, below the bars.
function arrowGeometry(seat, both) {
  const y = both ? (seat === 0 ? 316 : 342) : 330;
  return seat === 0 ? { x1: 300, x2: 660, y } : { x1: 660, x2: 300, y };
}

function drawArrow(ctx, seat, both) {
  const { x1, x2, y } = arrowGeometry(seat, both);
  const dir = Math.sign(x2 - x1);
  ctx.strokeStyle = COLORS[seat];
  ctx.fillStyle = COLORS[seat];
  ctx.lineWidth = 6;
  ctx.lineCap = "round";
  ctx.beginPath();
  ctx.moveTo(x1, y);
  ctx.lineTo(x2 - dir * 16, y);
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(x2, y);
  ctx.lineTo(x2 - dir * 20, y - 11);
  ctx.lineTo(x2 - dir * 20, y + 11);
  ctx.closePath();
  ctx.fill();
  ctx.font = font(11, 800);
  ctx.textAlign = "center";
  ctx.fillStyle = TEXT;
  ctx.fillText("ATTACK", (x1 + x2) / 2, y - 8);
  ctx.textAlign = "start";
}

function drawTopBar(ctx, replay, m, record, i) {
  const limit = turnLimitOf(replay, m, record.round);
  ctx.fillStyle = TEXT;
  ctx.font = font(22, 800);
  ctx.fillText(`ROUND ${record.round}`, 20, 38);
  let x = 20 + ctx.measureText(`ROUND ${record.round}`).width;
  ctx.fillStyle = MUTED;
  ctx.font = font(16, 600);
  ctx.fillText(` / ${m.rounds}`, x, 38);
  x += ctx.measureText(` / ${m.rounds}`).width + 28;
  ctx.fillStyle = TEXT;
  ctx.font = font(22, 800);
  ctx.fillText(`TURN ${record.turn}`, x, 38);
  x += ctx.measureText(`TURN ${record.turn}`).width;
  ctx.fillStyle = MUTED;
  ctx.font = font(16, 600);
  ctx.fillText(` / ${limit ?? "?"}`, x, 38);

  // Round tallies after this turn, right-aligned: "2 : 1" in the players' colours.
  const [w1, w2, d] = m.tallies[i] || [0, 0, 0];
  const parts = [
    [String(w1), COLORS[0], font(26, 800)],
    [" : ", MUTED, font(22, 600)],
    [String(w2), COLORS[1], font(26, 800)],
  ];
  if (d) parts.push([`  draws ${d}`, MUTED, font(14, 600)]);
  let right = W - 20;
  for (let k = parts.length - 1; k >= 0; k -= 1) {
    const [text, color, f] = parts[k];
    ctx.font = f;
    right -= ctx.measureText(text).width;
    ctx.fillStyle = color;
    ctx.fillText(text, right, 40);
  }
  ctx.fillStyle = MUTED;
  ctx.font = font(11, 700);
  ctx.textAlign = "right";
  ctx.fillText("ROUNDS WON", right - 12, 38);
  ctx.textAlign = "start";
}

function drawBanner(ctx, replay, m, record) {
  const { x, y, w, h } = BANNER;
  const rr = record.roundResult;
  if (!rr) {
    roundRect(ctx, x + 0.5, y + 0.5, w - 1, h - 1, 8);
    ctx.fillStyle = PANEL;
    ctx.fill();
    ctx.setLineDash([6, 6]);
    ctx.strokeStyle = LINE;
    ctx.lineWidth = 1;
    ctx.stroke();
    ctx.setLineDash([]);
    const limit = turnLimitOf(replay, m, record.round);
    ctx.fillStyle = MUTED;
    ctx.font = font(15, 600);
    ctx.textAlign = "center";
    ctx.fillText(`Turn ${record.turn}${limit ? ` of ${limit}` : ""}: no clash yet`, x + w / 2, y + h / 2 + 5);
    ctx.textAlign = "start";
    return;
  }
  const seat = winnerSeat(rr.outcome);
  roundRect(ctx, x, y, w, h, 8);
  ctx.fillStyle = seat < 0 ? DRAW_COLOR : COLORS[seat];
  ctx.fill();
  ctx.fillStyle = "#ffffff";
  ctx.font = font(20, 800);
  ctx.fillText("CLASH!", x + 18, y + 35);
  ctx.font = font(15, 700);
  ctx.fillText(`${rr.trigger} → ${rr.decidedBy}`, x + 110, y + 34);
  ctx.textAlign = "right";
  ctx.font = font(16, 800);
  ctx.fillText(roundWinnerText(replay, rr), x + w - 18, y + 34);
  ctx.textAlign = "start";
}

function stripCell(m, round) {
  const cw = STRIP.w / m.rounds;
  const gap = cw >= 6 ? 2 : 0;
  return { x: STRIP.x + (round - 1) * cw, y: STRIP.y, w: Math.max(1, cw - gap), h: STRIP.h };
}

function drawStrip(ctx, replay, m, record, i) {
  ctx.fillStyle = MUTED;
  ctx.font = font(11, 700);
  ctx.fillText("ROUND RESULTS", STRIP.x, STRIP.y - 8);
  for (let round = 1; round <= m.rounds; round += 1) {
    const cell = stripCell(m, round);
    const end = m.roundEnds.get(round);
    const done = end && end.step <= i;
    if (done) {
      const seat = winnerSeat(end.result.outcome);
      ctx.fillStyle = seat < 0 ? DRAW_COLOR : COLORS[seat];
    } else {
      ctx.fillStyle = TRACK;
    }
    ctx.fillRect(cell.x, cell.y, cell.w, cell.h);
    if (round === record.round) {
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 2;
      ctx.strokeRect(cell.x + 1, cell.y + 1, Math.max(1, cell.w - 2), cell.h - 2);
    }
    if (cell.w >= 20) {
      ctx.fillStyle = done ? "#ffffff" : MUTED;
      ctx.font = font(11, 700);
      ctx.textAlign = "center";
      ctx.fillText(String(round), cell.x + cell.w / 2, cell.y + cell.h / 2 + 4);
      ctx.textAlign = "start";
    }
  }
}

function drawFooter(ctx, m) {
  const c = m.config;
  const limits = c.turn_limit_range ? `turn limit ${c.turn_limit_range[0]}–${c.turn_limit_range[1]}` : `turn limit ${c.turn_limit}`;
  ctx.fillStyle = MUTED;
  ctx.font = font(12, 500);
  ctx.fillText(`rules ${c.rules} · ${limits} · defender bonus ${c.defender_bonus} · bars: log scale`, 20, 522);
}

function draw(ctx, replay, i) {
  const m = model(replay);
  const record = recordOf(replay, i);
  ctx.fillStyle = BG;
  ctx.fillRect(0, 0, W, H);
  drawTopBar(ctx, replay, m, record, i);
  const players = record.players || [];
  players.slice(0, 2).forEach((p, seat) => drawSide(ctx, replay, m, seat, p));
  const seats = attackers(record);
  for (const seat of seats) drawArrow(ctx, seat, seats.length > 1);
  drawBanner(ctx, replay, m, record);
  drawStrip(ctx, replay, m, record, i);
  drawFooter(ctx, m);
}

// Where things are drawn for step i, so a test can read pixels: logical canvas pixels; multiply
// by `dpr` (added by the shell) for getImageData.
function probe(replay, i) {
  const m = model(replay);
  const record = recordOf(replay, i);
  const bars = (record.players || []).slice(0, 2).map((p, seat) => {
    const out = {};
    for (const key of ["producers", "soldiers"]) {
      const { track, fill } = barGeometry(seat, key, p[key], m.maxLog);
      out[key] = {
        value: p[key],
        track,
        fill,
        sample: fill.w >= 2 ? { x: fill.x + Math.floor(fill.w / 2), y: fill.y + Math.floor(BAR_H / 2) } : null,
      };
    }
    return out;
  });
  const rr = record.roundResult;
  return {
    width: W,
    height: H,
    colors: COLORS,
    bars,
    banner: { ...BANNER, clash: Boolean(rr), sample: { x: BANNER.x + 8, y: BANNER.y + BANNER.h / 2 } },
    arrows: attackers(record).map((seat, _k, all) => {
      const a = arrowGeometry(seat, all.length > 1);
      return { seat, ...a, sample: { x: Math.round((3 * a.x1 + a.x2) / 4), y: a.y } };
    }),
    strip: {
      ...STRIP,
      rounds: m.rounds,
      cells: Array.from({ length: m.rounds }, (_, k) => {
        const cell = stripCell(m, k + 1);
        return { round: k + 1, ...cell, sample: { x: Math.floor(cell.x + cell.w / 2), y: cell.y + 6 } };
      }),
    },
  };
}

registerRenderer("drones", {
  size: { width: W, height: H },
  colors: COLORS,
  title: () => "GameOfDrones",
  init(canvas, replay) {
    model(replay);
  },
  draw,
  describe,
  stepLabel,
  playerFields,
  resultText,
  legend,
  probe,
});
