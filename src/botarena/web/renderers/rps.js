// Rock-paper-scissors renderer (src/botarena/games/rps, RPS-3 to RPS-6): per step, the round, both
// seats' moves in their colours (a forfeit as a grey dash), the round's winner and the scores.

import { THEME, registerRenderer } from "../registry.js";

const W = 960;
const H = 540;
const COLORS = ["#3b82f6", "#ef4444"];
const FORFEIT = "#64748b";
const FONT = THEME.font;
const CARDS = [
  { x: 80, y: 120, w: 340, h: 300 },
  { x: 540, y: 120, w: 340, h: 300 },
];
// The hands are drawn as shapes, not emoji: a browser without an emoji font (Debian's chromium)
// draws emoji as empty boxes (issue 26 item 9).
const HAND = "#e2e8f0";
const HAND_EDGE = "#0b1220";

function drawRock(ctx, cx, cy, r) {
  ctx.beginPath(); // a lumpy stone: an irregular polygon
  const lumps = [1, 0.86, 0.97, 0.8, 0.94, 0.84, 1, 0.9];
  lumps.forEach((k, n) => {
    const a = (n / lumps.length) * Math.PI * 2;
    const x = cx + Math.cos(a) * r * k;
    const y = cy + Math.sin(a) * r * k * 0.8;
    if (n === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
  });
  ctx.closePath();
  ctx.fill();
  ctx.stroke();
}

function drawPaper(ctx, cx, cy, r) {
  const w = r * 1.4;
  const h = r * 1.8;
  ctx.beginPath(); // a sheet with a folded corner and ruled lines
  ctx.moveTo(cx - w / 2, cy - h / 2);
  ctx.lineTo(cx + w / 2 - r * 0.4, cy - h / 2);
  ctx.lineTo(cx + w / 2, cy - h / 2 + r * 0.4);
  ctx.lineTo(cx + w / 2, cy + h / 2);
  ctx.lineTo(cx - w / 2, cy + h / 2);
  ctx.closePath();
  ctx.fill();
  ctx.stroke();
  ctx.beginPath();
  for (let k = 1; k <= 4; k++) {
    const y = cy - h / 2 + (k * h) / 5;
    ctx.moveTo(cx - w / 2 + r * 0.2, y);
    ctx.lineTo(cx + w / 2 - r * 0.2, y);
  }
  ctx.stroke();
}

function drawScissors(ctx, cx, cy, r) {
  ctx.save(); // two crossed blades and two ring handles
  ctx.lineWidth = r * 0.18;
  ctx.strokeStyle = HAND;
  ctx.beginPath();
  ctx.moveTo(cx - r * 0.35, cy + r * 0.35);
  ctx.lineTo(cx + r * 0.55, cy - r * 0.95);
  ctx.moveTo(cx + r * 0.35, cy + r * 0.35);
  ctx.lineTo(cx - r * 0.55, cy - r * 0.95);
  ctx.stroke();
  ctx.lineWidth = r * 0.12;
  for (const side of [-1, 1]) {
    ctx.beginPath();
    ctx.arc(cx + side * r * 0.45, cy + r * 0.65, r * 0.28, 0, Math.PI * 2);
    ctx.stroke();
  }
  ctx.restore();
}

const SHAPES = { rock: drawRock, paper: drawPaper, scissors: drawScissors };
const HAND_R = 62;
const handCentre = (card) => [card.x + card.w / 2, card.y + 140, HAND_R];
// A point of each shape in the hand's fill (the scissors: where the blades cross).
const HAND_SAMPLE = { rock: [0, 0], paper: [0, 0], scissors: [0, -0.155] };

function drawHand(ctx, move, cx, cy, r) {
  ctx.save();
  ctx.fillStyle = HAND;
  ctx.strokeStyle = HAND_EDGE;
  ctx.lineWidth = 3;
  SHAPES[move](ctx, cx, cy, r);
  ctx.restore();
}

const recordOf = (replay, i) => (replay.steps[i] && replay.steps[i].record) || null;
const nameOf = (replay, seat) => ((replay.players || [])[seat] || {}).name || `seat ${seat}`;
const roundsOf = (replay) => (replay.config || {}).rounds ?? "?";
const moveText = (move) => move ?? "forfeit";

function font(size, weight = 600) {
  return `${weight} ${size}px ${FONT}`;
}

function winnerText(replay, record) {
  if (record.winner === null || record.winner === undefined) return `round ${record.round} is a draw`;
  return `${nameOf(replay, record.winner)} wins round ${record.round}`;
}

function drawCard(ctx, replay, record, seat) {
  const card = CARDS[seat];
  const move = record.moves[seat];
  ctx.fillStyle = THEME.panel;
  ctx.beginPath();
  ctx.roundRect(card.x, card.y, card.w, card.h, 12);
  ctx.fill();
  ctx.fillStyle = move ? COLORS[seat] : FORFEIT; // the move's band: probe().bands samples it
  ctx.fillRect(card.x, card.y + card.h - 60, card.w, 60);
  ctx.textAlign = "center";
  ctx.fillStyle = COLORS[seat];
  ctx.font = font(20, 700);
  ctx.fillText(nameOf(replay, seat), card.x + card.w / 2, card.y + 36);
  if (SHAPES[move]) drawHand(ctx, move, ...handCentre(card));
  else {
    ctx.fillStyle = THEME.text;
    ctx.font = font(96, 400);
    ctx.fillText("–", card.x + card.w / 2, card.y + 170);
  }
  ctx.font = font(22, 800);
  ctx.fillStyle = "#ffffff";
  ctx.fillText(moveText(move).toUpperCase(), card.x + card.w / 2, card.y + card.h - 22);
  ctx.textAlign = "start";
}

function draw(ctx, replay, i) {
  ctx.fillStyle = THEME.bg;
  ctx.fillRect(0, 0, W, H);
  const record = recordOf(replay, i);
  if (!record) return;
  ctx.fillStyle = THEME.text;
  ctx.font = font(26, 800);
  ctx.fillText(`ROUND ${record.round} / ${roundsOf(replay)}`, 80, 70);
  ctx.textAlign = "right";
  ctx.fillStyle = COLORS[0];
  ctx.fillText(String(record.scores[0]), W - 130, 70);
  ctx.fillStyle = THEME.muted;
  ctx.fillText(":", W - 110, 70);
  ctx.fillStyle = COLORS[1];
  ctx.textAlign = "left";
  ctx.fillText(String(record.scores[1]), W - 95, 70);
  drawCard(ctx, replay, record, 0);
  drawCard(ctx, replay, record, 1);
  ctx.textAlign = "center";
  ctx.fillStyle = THEME.muted;
  ctx.font = font(30, 800);
  ctx.fillText("VS", W / 2, 280);
  ctx.fillStyle = record.winner === null ? THEME.muted : COLORS[record.winner];
  ctx.font = font(20, 700);
  ctx.fillText(winnerText(replay, record), W / 2, 480);
  ctx.textAlign = "start";
}

function describe(replay, i) {
  const record = recordOf(replay, i);
  if (!record) return "";
  const lines = [`Round ${record.round} of ${roundsOf(replay)}`];
  record.moves.forEach((move, seat) => lines.push(`${nameOf(replay, seat)}: ${moveText(move)}`));
  lines.push(`${winnerText(replay, record)} · score ${record.scores[0]}–${record.scores[1]}`);
  return lines.join("\n");
}

function stepLabel(replay, i) {
  const record = recordOf(replay, i);
  return record ? `Round ${record.round}` : "";
}

function playerFields(replay, i, seat) {
  const record = recordOf(replay, i);
  if (!record) return [];
  return [
    { key: "move", label: "Move", value: moveText(record.moves[seat]) },
    { key: "score", label: "Score", value: String(record.scores[seat]) },
  ];
}

function resultText(replay) {
  const points = ((replay.result || {}).details || {}).points;
  if (!points) return "in progress";
  if (points[0] === points[1]) return `Draw ${points[0]}–${points[1]}`;
  const seat = points[0] > points[1] ? 0 : 1;
  return `${nameOf(replay, seat)} wins ${points[0]}–${points[1]}`;
}

// Geometry for the browser tests: a point inside each seat's move band, and the colour it has.
function probe(replay, i) {
  const record = recordOf(replay, i) || { moves: [null, null] };
  return {
    bands: CARDS.map((card, seat) => ({
      x: card.x + 12,
      y: card.y + card.h - 8,
      color: record.moves[seat] ? COLORS[seat] : FORFEIT,
    })),
    hands: CARDS.flatMap((card, seat) => {
      const move = record.moves[seat];
      if (!SHAPES[move]) return [];
      const [cx, cy, r] = handCentre(card);
      const [dx, dy] = HAND_SAMPLE[move];
      return [{ seat, move, sample: { x: Math.round(cx + dx * r), y: Math.round(cy + dy * r) } }];
    }),
  };
}

registerRenderer("rps", {
  size: { width: W, height: H },
  colors: COLORS,
  title: () => "Rock-paper-scissors",
  draw,
  describe,
  stepLabel,
  playerFields,
  resultText,
  probe,
});
