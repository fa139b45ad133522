// Paints the overview (overview-model.mjs's model) on one canvas: a time axis, the job's
// steps as numbered ticks, then per node or rank a header and one lane per source — event
// density as bars, its own steps as a band, system metrics as small line graphs, clockless
// sources hatched — and over it all the window to merge, the merged window and a selection.
// Only the summary is drawn (256 bins a lane), so hundreds of lanes paint in a frame.
//   const g = layout(model, widthCss);  paint(ctx, g, model, { view, window, merged, selection, colors })
import { timeTicks } from './overview-model.mjs';

/** The time axis' height, in CSS pixels (the step row is below it). @type {number} */
export const AXIS_H = 18;
/** The step row's height, in CSS pixels (the lanes start below it). @type {number} */
export const STEP_H = 22;
const HEADER_H = 17;
const LANE_H = 18;
const MIN_LANE_H = 1;
const MAX_H = 520;        // beyond this the lanes get thinner, the canvas no taller
const MAX_HEADERS = 24;   // more groups than this: no header rows, the group in each lane's name

/**
 * Where everything goes, in CSS pixels.
 * @param {import('./overview-model.mjs').OverviewModel} model
 * @param {number} width the canvas' width in CSS pixels
 * @returns {{ width: number, height: number, gutter: number, x0: number, x1: number, top: number, lanesY: number,
 *   lanesEnd: number, rows: { type: 'header' | 'lane', y: number, h: number, group: object, lane?: object, rowH?: number,
 *   named?: boolean }[], laneH: number }} x0..x1: the time axis' extent; rows: the header and lane rows, top to bottom
 */
export function layout(model, width) {
  const gutter = Math.min(210, Math.max(90, Math.round(width * 0.3)));
  const headers = model.groups.length <= MAX_HEADERS;
  const rows = model.lanes.reduce((n, l) => n + l.rows, 0);
  const top = AXIS_H + STEP_H;
  const headerH = headers ? HEADER_H * model.groups.length : 0;
  // Thinner lanes for more sources, whole pixels while they are readable, down to one pixel
  // (hundreds of sources: a strip each, the canvas still about MAX_H tall).
  const fitH = (MAX_H - top - headerH - 6) / Math.max(rows, 1);
  const laneH = Math.max(MIN_LANE_H, Math.min(LANE_H, fitH >= 4 ? Math.floor(fitH) : fitH));
  const rowsOut = [];
  let y = top;
  for (const g of model.groups) {
    if (headers) {
      rowsOut.push({ type: 'header', y, h: HEADER_H, group: g });
      y += HEADER_H;
    }
    for (const lane of g.lanes) {
      rowsOut.push({ type: 'lane', y, h: lane.rows * laneH, lane, group: g, rowH: laneH, named: !headers });
      y += lane.rows * laneH;
    }
  }
  return { width, height: y + 6, gutter, x0: gutter + 8, x1: width - 10, top, lanesY: top, lanesEnd: y, rows: rowsOut, laneH };
}

const unitOf = (us) => (us < 1e3 ? [1, 'µs'] : us < 1e6 ? [1e3, 'ms'] : us < 60e6 ? [1e6, 's'] : us < 3600e6 ? [60e6, 'min'] : us < 86400e6 ? [3600e6, 'h'] : [86400e6, 'd']);

/**
 * "+1.4 s": a tick's time from the job's start, as many decimals as the tick step needs.
 * @param {number} t the tick's time, µs
 * @param {number} origin the job's start, µs
 * @param {number} step the tick step, µs
 * @param {number} far the farthest time from origin in view, µs (picks the unit)
 * @returns {string}
 */
export function tickLabel(t, origin, step, far) {
  const [size, unit] = unitOf(Math.max(far, step));
  const decimals = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / size) + 1e-9)));
  const v = (t - origin) / size;
  return `${v > 0 ? '+' : ''}${v.toFixed(decimals)} ${unit}`;
}

const fits = new Map();  // (font, text, width) → the text cut to fit, with "…"
function fit(ctx, text, max) {
  const key = `${ctx.font}|${max}|${text}`;
  let out = fits.get(key);
  if (out !== undefined) return out;
  if (fits.size > 5000) fits.clear();
  out = text;
  if (ctx.measureText(text).width > max) {
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ctx.measureText(`${text.slice(0, mid)}…`).width <= max) lo = mid;
      else hi = mid - 1;
    }
    out = lo ? `${text.slice(0, lo)}…` : '';
  }
  fits.set(key, out);
  return out;
}

function hatch(ctx, color) {
  const c = new OffscreenCanvas(8, 8);
  const g = c.getContext('2d');
  g.strokeStyle = color;
  g.globalAlpha = 0.35;
  g.lineWidth = 1.5;
  g.beginPath();
  g.moveTo(0, 8);
  g.lineTo(8, 0);
  g.stroke();
  return ctx.createPattern(c, 'repeat');
}

/**
 * Paints the model on the canvas: the axis, the steps, the lanes, then the window to merge
 * (the rest dimmed), the merged window (a dashed frame) and the selection.
 * @param {CanvasRenderingContext2D} ctx its transform set to CSS pixels
 * @param {ReturnType<typeof layout>} g the layout for this width
 * @param {import('./overview-model.mjs').OverviewModel} model
 * @param {{ view: { start: number, end: number }, window: { start_us?: number, end_us?: number } | null,
 *   merged: { start_us?: number, end_us?: number } | null, selection: { start: number, end: number, step?: number } | null,
 *   colors: Record<'text' | 'muted' | 'line' | 'accent' | 'card' | 'rowAlt' | 'warn' | 'ok', string> & { hatch?: CanvasPattern } }} what
 *   view: the span shown, µs; colors: the page's CSS colours (the hatch pattern is cached on it)
 * @returns {void}
 */
export function paint(ctx, g, model, { view, window, merged, selection, colors: c }) {
  const span = view.end - view.start;
  const xOf = (t) => g.x0 + ((t - view.start) / span) * (g.x1 - g.x0);
  const font = (size, weight = 400) => `${weight} ${size}px system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif`;
  ctx.clearRect(0, 0, g.width, g.height);
  ctx.textBaseline = 'middle';

  // Axis: round times from the job's start, and faint lines down through the lanes.
  const { step, ticks } = timeTicks(view.start, view.end, Math.max(2, Math.floor((g.x1 - g.x0) / 90)), model.start);
  const far = Math.max(Math.abs(view.end - model.start), Math.abs(view.start - model.start));
  ctx.font = font(11);
  for (const t of ticks) {
    const x = Math.round(xOf(t)) + 0.5;
    ctx.fillStyle = c.line;
    ctx.fillRect(x - 0.5, AXIS_H - 4, 1, g.lanesEnd - AXIS_H + 4);
    ctx.fillStyle = c.muted;
    const label = tickLabel(t, model.start, step, far);
    const w = ctx.measureText(label).width;
    ctx.fillText(label, Math.min(Math.max(x - w / 2, g.x0 - 4), g.x1 - w), AXIS_H / 2);
  }
  ctx.fillStyle = c.muted;
  ctx.fillText(fit(ctx, 'time from the job start', g.gutter - 6), 4, AXIS_H / 2);

  // The job's steps: a tick each, its number where there is room (a click picks it).
  ctx.fillText(fit(ctx, model.steps.length ? 'steps (click one)' : 'no steps', g.gutter - 6), 4, AXIS_H + STEP_H / 2);
  let free = -Infinity;
  ctx.font = font(11, 600);
  for (const [n, t] of model.steps) {
    const x = xOf(t);
    if (x < g.x0 - 1 || x > g.x1 + 1) continue;
    ctx.fillStyle = c.accent;
    ctx.fillRect(Math.round(x) - 1, AXIS_H + 3, 2, STEP_H - 6);
    const label = String(n);
    const w = ctx.measureText(label).width;
    if (x + 3 > free && x + 3 + w < g.x1 + 10) {
      ctx.fillStyle = c.text;
      ctx.fillText(label, x + 3, AXIS_H + STEP_H / 2);
      free = x + 3 + w + 4;
    }
  }

  ctx.save();
  ctx.beginPath();
  ctx.rect(0, g.lanesY, g.width, g.lanesEnd - g.lanesY);
  ctx.clip();
  let stripe = 0;
  for (const row of g.rows) {
    if (row.type === 'header') {
      ctx.fillStyle = c.line;
      ctx.fillRect(0, row.y, g.width, 1);
      ctx.font = font(12, 650);
      ctx.fillStyle = c.text;
      ctx.fillText(fit(ctx, row.group.title, g.gutter - 8), 4, row.y + row.h / 2 + 1);
      continue;
    }
    paintLabel(ctx, g, row, stripe++ % 2, { c, font });
  }
  // What is drawn against time stays right of the gutter, however far it is zoomed.
  ctx.beginPath();
  ctx.rect(g.x0, g.lanesY, g.x1 - g.x0, g.lanesEnd - g.lanesY);
  ctx.clip();
  for (const row of g.rows) if (row.type === 'lane') paintLane(ctx, g, row, { xOf, view, c, font, model });
  ctx.restore();

  // The window to merge: everything outside it is dimmed; its edges in the accent colour.
  const band = (a, b) => [Math.max(g.x0, xOf(a)), Math.min(g.x1, xOf(b))];
  const y0 = AXIS_H;
  const h = g.lanesEnd - y0;
  if (window && (window.start_us !== undefined || window.end_us !== undefined)) {
    const [a, b] = band(window.start_us ?? -Infinity, window.end_us ?? Infinity);
    ctx.fillStyle = c.card;
    ctx.globalAlpha = 0.62;
    if (a > g.x0) ctx.fillRect(g.x0, y0, a - g.x0, h);
    if (b < g.x1) ctx.fillRect(b, y0, g.x1 - b, h);
    ctx.globalAlpha = 1;
    ctx.fillStyle = c.accent;
    if (window.start_us !== undefined && a >= g.x0 && a <= g.x1) ctx.fillRect(a - 1, y0, 2, h);
    if (window.end_us !== undefined && b >= g.x0 && b <= g.x1) ctx.fillRect(b - 1, y0, 2, h);
  }
  // What the last merge wrote: a dashed frame in the success colour.
  if (merged) {
    const [a, b] = band(merged.start_us ?? model.start, merged.end_us ?? model.end);
    if (b >= a) {
      ctx.strokeStyle = c.ok;
      ctx.lineWidth = 2;
      ctx.setLineDash([5, 3]);
      ctx.strokeRect(a, g.lanesY + 1, Math.max(b - a, 1), g.lanesEnd - g.lanesY - 2);
      ctx.setLineDash([]);
    }
  }
  if (selection) {
    const [a, b] = band(Math.min(selection.start, selection.end), Math.max(selection.start, selection.end));
    ctx.fillStyle = c.accent;
    ctx.globalAlpha = 0.2;
    ctx.fillRect(a, y0, Math.max(b - a, 1), h);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = c.accent;
    ctx.lineWidth = 1;
    ctx.strokeRect(a + 0.5, y0 + 0.5, Math.max(b - a - 1, 1), h - 1);
  }
  ctx.fillStyle = c.line;
  ctx.fillRect(g.x0 - 1, AXIS_H, 1, g.lanesEnd - AXIS_H);
}

// A lane's background and name, in the gutter.
function paintLabel(ctx, g, row, odd, { c, font }) {
  const { lane } = row;
  if (odd) {
    ctx.fillStyle = c.rowAlt;
    ctx.fillRect(0, row.y, g.width, row.h);
  }
  if (lane.noClock) {  // no clock of its own: where it sits is a guess (or the job's start)
    ctx.fillStyle = c.hatch ??= hatch(ctx, c.warn);
    ctx.fillRect(g.x0, row.y, g.x1 - g.x0, row.h);
  }
  if (row.h >= 9) {
    ctx.font = font(Math.min(11, row.rowH - 4));
    let x = 12;
    if (lane.noClock) {
      ctx.fillStyle = c.warn;
      const mark = lane.placed ? 'no clock, placed · ' : 'no clock · ';
      ctx.fillText(mark, x, row.y + row.rowH / 2);
      x += ctx.measureText(mark).width;
    }
    ctx.fillStyle = c.muted;
    const name = row.named ? `${row.group.title} · ${lane.name}` : lane.name;
    ctx.fillText(fit(ctx, name, g.gutter - x - 2), x, row.y + row.rowH / 2);
  }
}

// A lane's bins, steps and metrics, against time.
function paintLane(ctx, g, row, { xOf, view, c, font, model: m }) {
  const { lane } = row;
  // Bin i of a lane covers [binStart + i·w, binStart + (i+1)·w] of the scan, moved by its shift.
  const w = (m.binEnd - m.binStart) / m.bins;
  const binW = ((g.x1 - g.x0) * w) / (view.end - view.start);
  const binX = (i) => xOf(m.binStart + lane.shift + i * w);
  if (lane.counters.length) {
    lane.counters.forEach((counter, k) => {
      const top = row.y + k * row.rowH + 2;
      const h = row.rowH - 4;
      const color = /^GPU/.test(counter.name) ? c.ok : /^CPU/.test(counter.name) ? c.accent : c.muted;
      // Metrics are sampled (every 50 ms, 1 s, …): bins between samples are empty, and the
      // line goes straight from one sample to the next, over the area it encloses.
      const points = [];
      counter.values.forEach((v, i) => {
        if (v !== null && v !== undefined) points.push([binX(i) + binW / 2, top + h - (Math.min(v, counter.max) / counter.max) * h]);
      });
      if (!points.length) return;
      ctx.beginPath();
      ctx.moveTo(points[0][0], top + h);
      for (const [x, y] of points) ctx.lineTo(x, y);
      ctx.lineTo(points.at(-1)[0], top + h);
      ctx.fillStyle = color;
      ctx.globalAlpha = 0.18;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.beginPath();
      points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      if (points.length === 1) ctx.rect(points[0][0] - 1, points[0][1] - 1, 2, 2);
      ctx.strokeStyle = color;
      ctx.lineWidth = 1.25;
      ctx.stroke();
      if (row.rowH >= 12 && g.x1 - g.x0 > 360) {
        ctx.font = font(10);
        ctx.fillStyle = color;
        const label = counter.name.replace(/Utilization$/, ' %');
        ctx.fillText(label, g.x1 - ctx.measureText(label).width - 2, top + h / 2);
      }
    });
    return;
  }
  // Density: the height of a bar grows with the log of its events, per lane.
  if (lane.max > 0) {
    const h = row.h - (row.h >= 8 ? 4 : 1);
    const scale = Math.log1p(lane.max);
    ctx.beginPath();
    lane.density.forEach((d, i) => {
      if (!d) return;
      const x = binX(i);
      if (x + binW < g.x0 || x > g.x1) return;
      const bh = Math.max(1, (Math.log1p(d) / scale) * h);
      ctx.rect(x, row.y + row.h - (row.h >= 8 ? 3 : 0) - bh, Math.max(binW - (binW > 3 ? 0.5 : 0), 1), bh);
    });
    ctx.fillStyle = c.accent;
    ctx.globalAlpha = binW > 12 ? 0.3 : 0.7;  // zoomed in beyond the bins: they say little
    ctx.fill();
    ctx.globalAlpha = 1;
  }
  // Its own steps, first to last moment, as a band under the bars, every other one darker.
  if (lane.steps.length && row.h >= 6) {
    lane.steps.forEach(([, first, last], i) => {
      const a = xOf(first + lane.shift);
      const b = xOf(last + lane.shift);
      if (b < g.x0 || a > g.x1) return;
      ctx.fillStyle = i % 2 ? c.muted : c.text;
      ctx.fillRect(Math.max(a, g.x0), row.y + row.h - 3, Math.max(Math.min(b, g.x1) - Math.max(a, g.x0), 1), 2);
      ctx.fillRect(Math.max(a, g.x0), row.y + 1, 1, row.h - 2);
    });
  }
}
