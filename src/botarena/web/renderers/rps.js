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
const GLYPH = { rock: "✊", paper: "✋", scissors: "✌" };

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
  ctx.fillStyle = THEME.text;
  ctx.font = font(96, 400);
  ctx.fillText(move ? GLYPH[move] : "–", card.x + card.w / 2, card.y + 170);
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
