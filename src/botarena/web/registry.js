// The renderer registry: one renderer per game id, in renderers/<game>.js.
//
// A renderer is a plain object. Only `draw` is required; the shell falls back to generic
// behaviour for anything missing.
//
//   size: {width, height} | size(replay)     logical canvas size (CSS pixels), default 960x540; a
//                                             function when the board's shape depends on the match
//   colors: ["#3b82f6", "#ef4444", ...]       one colour per seat
//   init(canvas, replay)                      called after a replay is loaded and after live steps arrive
//   draw(ctx, replay, stepIndex)              paint step `stepIndex` (ctx is scaled to logical pixels)
//   describe(replay, stepIndex) -> string     the step's record as readable text
//   stepLabel(replay, stepIndex) -> string    e.g. "Round 3 · Turn 2"
//   title(replay) -> string                   the game's display name
//   resultText(replay) -> string              the match result in words
//   playerFields(replay, stepIndex, seat) -> [{key, label, value}]   shown in the player panels,
//                                             each value in an element data-testid="player-<seat>-<key>"
//   probe(replay, stepIndex) -> object        geometry for browser tests (logical pixels)
//   options(replay) -> [{key, label, value, choices: [{value, label}]} | {key, label, value, toggle: true}]
//                                             view choices the shell offers under the canvas (a select, or a
//                                             checkbox for a toggle), e.g. "view as" a team's fog of war;
//                                             each control has data-testid="option-<key>"
//   legend(replay) -> [{label, color, shape, text?}]   what each colour and glyph of the board means,
//                                             shown under the canvas; shape: square | dot | ring |
//                                             diamond | triangle | inset | hatch | letter (`text` on
//                                             a `color` square) | bar
//   setOption(key, value)                     a control changed (value: the choice's string, or a boolean);
//                                             the shell redraws afterwards

const renderers = new Map();

// The viewer's palette, shared by every renderer (the page's CSS uses the same colours).
export const THEME = {
  bg: "#0b1220",
  panel: "#111a2e",
  ground: "#1e293b",
  text: "#e2e8f0",
  muted: "#94a3b8",
  font: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
};

export const DEFAULT_COLORS = ["#3b82f6", "#ef4444", "#22c55e", "#eab308", "#a855f7", "#14b8a6"];

// A number as people read it: a real minus sign (U+2212, which a hyphen or dash next to it cannot
// be mistaken for), integers whole, fractions to at most `digits` places.
export function formatNumber(value, digits = 2) {
  if (typeof value !== "number" || !Number.isFinite(value)) return value == null ? "–" : String(value);
  const text = Number.isInteger(value) ? String(Math.abs(value)) : String(Number(Math.abs(value).toFixed(digits)));
  return value < 0 && text !== "0" ? `\u2212${text}` : text;
}

// Scores side by side, in seat order: "20095 : −10500" (a colon: a dash between two numbers reads
// as a range, or as a minus when the second is negative). Every scoreline of the viewer uses it.
export const SCORE_SEPARATOR = " : ";
export function scoreline(scores) {
  return (scores || []).map((s) => formatNumber(s)).join(SCORE_SEPARATOR);
}

// The one seat convention of every viewer and the CLI (README "Seats"): "seat N · name", N the
// 0-based seat index the replay, the bots' own ids aside, and the CLI use.
export function seatName(replay, seat) {
  const name = ((replay && replay.players) || [])[seat]?.name;
  return name ? `seat ${seat} · ${name}` : `seat ${seat}`;
}

// `text` cut to `maxWidth` pixels of ctx's current font with an ellipsis, so a canvas never cuts a
// name silently (the player panels hold the whole name, in their title too).
export function fitText(ctx, text, maxWidth) {
  const whole = String(text);
  if (ctx.measureText(whole).width <= maxWidth) return whole;
  let n = whole.length;
  while (n > 1 && ctx.measureText(`${whole.slice(0, n)}…`).width > maxWidth) n -= 1;
  return `${whole.slice(0, n)}…`;
}

export function registerRenderer(gameId, renderer) {
  if (typeof gameId !== "string" || !gameId) throw new Error("registerRenderer: game id must be a string");
  if (!renderer || typeof renderer.draw !== "function") {
    throw new Error(`registerRenderer(${gameId}): a renderer needs a draw(ctx, replay, stepIndex) function`);
  }
  renderers.set(gameId, renderer);
}

export function getRenderer(gameId) {
  return renderers.get(gameId) || null;
}

// Used when a game has no renderer file: the canvas shows the step's record as text.
export const genericRenderer = {
  size: { width: 960, height: 540 },
  colors: DEFAULT_COLORS,
  draw(ctx, replay, stepIndex) {
    const { width, height } = this.size;
    ctx.fillStyle = "#0b1220";
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = "#94a3b8";
    ctx.font = "600 18px system-ui, sans-serif";
    ctx.fillText(`No renderer for game "${replay.game}": showing the raw record`, 24, 40);
    const step = replay.steps[stepIndex];
    const text = step ? JSON.stringify(step.record ?? null, null, 1) : "(no steps)";
    ctx.font = "13px ui-monospace, monospace";
    text.split("\n").slice(0, 30).forEach((line, i) => ctx.fillText(line.slice(0, 120), 24, 72 + i * 15));
  },
};

// The state of a replay after step i (i = -1: the start), for games whose keyframes carry whole
// states and whose step records carry changes: the latest keyframe at or before the step, with the
// later records applied. Cached, so playing forward costs one record per step.
//
//   const states = new StepStates({fromKeyframe(state) -> model, apply(model, record), reach: 200});
//   states.at(replay, i) -> model | null;  states.reset()
export class StepStates {
  constructor({ fromKeyframe, apply, reach = 200 }) {
    this.fromKeyframe = fromKeyframe;
    this.apply = apply;
    this.reach = reach; // further ahead than this, restart from a keyframe
    this.replay = null;
    this.index = -2;
    this.model = null;
  }

  // forget the cache (a renderer's init: the replay may have changed in place, e.g. live steps)
  reset() {
    this.replay = null;
    this.index = -2;
    this.model = null;
  }

  at(replay, i) {
    if (this.replay === replay && this.index === i) return this.model;
    let model;
    let from;
    if (this.replay === replay && this.model && this.index < i && i - this.index < this.reach) {
      model = this.model;
      from = this.index + 1;
    } else {
      const kf = keyframeBefore(replay, i + 1);
      if (!kf) return null;
      model = this.fromKeyframe(kf.state);
      from = kf.step;
    }
    for (let k = from; k <= i; k++) {
      const record = replay.steps[k]?.record;
      if (record) this.apply(model, record);
    }
    this.replay = replay;
    this.index = i;
    this.model = model;
    return model;
  }
}

export function keyframeBefore(replay, steps) {
  let best = null;
  for (const kf of replay.keyframes || []) {
    if (kf.step <= steps && (!best || kf.step > best.step)) best = kf;
  }
  return best;
}
