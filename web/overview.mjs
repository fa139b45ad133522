// The overview: one canvas showing the scanned job (overview-draw.mjs paints it), on which
// the user picks the window to merge.
//   mouse:    drag across the lanes → a time window (whole µs); click a step's tick → that
//             step (to the next one); double-click → no window; Ctrl+wheel zooms; a host's
//             name (a big job drawn by host) → onToggleHost(its key).
//   keyboard: ←/→ move a selection, Shift+←/→ move its end, ↑/↓ the previous/next step,
//             +/− zoom, 0 fits, Enter applies, Escape drops the selection, Delete clears.
//   const ov = createOverview(canvas, { onPick: (w) => …, onClear: () => …, describe: (text) => … });
//   ov.setModel(model); ov.setWindow(preview); ov.setMerged(report.window);
// Redraws are coalesced into one requestAnimationFrame and sized for devicePixelRatio.
import { duration, moment } from './format.mjs';
import { AXIS_H, STEP_H, layout, paint } from './overview-draw.mjs';

const KEY_STEP = 1 / 50;     // of the view, per arrow key
const MIN_SPAN = 10;         // µs: the deepest zoom
const DRAG_PX = 3;           // less than this is a click

function colors() {
  const cs = getComputedStyle(document.documentElement);
  const v = (name) => cs.getPropertyValue(name).trim();
  return { text: v('--text'), muted: v('--muted'), line: v('--line'), accent: v('--accent'), card: v('--card'),
    rowAlt: v('--row-alt'), warn: v('--warn'), ok: v('--ok') };
}

/**
 * The overview on `canvas` (see the top of this file): onPick(w) with the window the user picked —
 * { unit: 'time', start, end } (whole µs, as text) or { step } —, onClear() when the window is
 * dropped, describe(text) with what a screen reader should hear of the selection.
 * @param {HTMLCanvasElement} canvas
 * @param {{ onPick: (w: { unit: 'time', start: string, end: string } | { step: number }) => void, onClear: () => void,
 *   onToggleHost?: (key: string) => void, describe?: (text: string) => void }} handlers
 * @returns {{ setModel(m: import('./overview-model.mjs').OverviewModel): void, setWindow(preview: object | null): void,
 *   setMerged(window: { start_us?: number, end_us?: number } | null): void, zoomTo(start: number, end: number): void,
 *   fit(): void, zoom(factor: number): void, redraw(): void, geometry(): object | null }}
 */
export function createOverview(canvas, { onPick, onClear, onToggleHost = () => {}, describe = () => {} }) {
  let model = null;
  let view = null;        // { start, end } in µs
  let windowNow = null;   // the window the fields resolve to (a preview), highlighted
  let merged = null;      // the window the last merge wrote
  let selection = null;   // { start, end, step? } being dragged or moved with the keys
  let g = null;           // the layout of the last paint
  let c = colors();
  let frame = 0;
  const ctx = canvas.getContext('2d');

  const schedule = () => { if (!frame) frame = requestAnimationFrame(draw); };
  function draw() {
    frame = 0;
    if (!model || !canvas.isConnected) return;
    const width = canvas.parentElement.clientWidth;
    if (!width) return;  // hidden: drawn when shown
    g = layout(model, width);
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(width * dpr);
    const h = Math.round(g.height * dpr);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
      canvas.style.height = `${g.height}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paint(ctx, g, model, { view, window: windowNow, merged, selection, colors: c });
  }
  new ResizeObserver(schedule).observe(canvas.parentElement);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { c = colors(); schedule(); });
  matchMedia('print').addEventListener?.('change', schedule);

  const clampView = (start, end) => {
    const span = Math.max(end - start, MIN_SPAN);
    const full = model.end - model.start;
    if (span >= full) return { start: model.start, end: model.end };
    const s = Math.min(Math.max(start, model.start), model.end - span);
    return { start: s, end: s + span };
  };
  const timeAt = (x) => view.start + ((x - g.x0) / (g.x1 - g.x0)) * (view.end - view.start);
  const xOf = (t) => g.x0 + ((t - view.start) / (view.end - view.start)) * (g.x1 - g.x0);
  const inJob = (t) => Math.min(Math.max(t, model.start), model.end);

  function zoom(factor, at = (view.start + view.end) / 2) {
    const span = (view.end - view.start) * factor;
    const f = (at - view.start) / (view.end - view.start);
    view = clampView(at - f * span, at - f * span + span);
    schedule();
  }

  // The step tick under x (in the step row), or null: the nearest within 6 px.
  function stepAt(x) {
    let best = null;
    for (const [n, t] of model.steps) {
      const d = Math.abs(xOf(t) - x);
      if (d <= 6 && (!best || d < best.d)) best = { n, d };
    }
    return best && best.n;
  }

  // The host whose name is in the row at y (a big job drawn by host: onToggleHost's key), or null.
  function hostRowAt(y) {
    const row = g.rows.find((r) => y >= r.y && y < r.y + r.h);
    const key = row?.lane?.hostKey ?? row?.group?.hostKey;
    return key === undefined ? null : { row, key };
  }

  function pickTime(a, b) {
    const start = Math.floor(Math.min(a, b));
    const end = Math.ceil(Math.max(a, b));
    onPick({ unit: 'time', start: String(start), end: String(end) });
  }

  function say() {
    if (!selection) return describe('');
    const a = Math.min(selection.start, selection.end);
    const b = Math.max(selection.start, selection.end);
    describe(selection.step !== undefined
      ? `Selected step ${selection.step}. Enter picks it.`
      : `Selected ${moment(a, model.job)} → ${moment(b, model.job)} (${duration(b - a)}). Enter picks it, Escape drops it.`);
  }

  // ---- mouse -------------------------------------------------------------------------------
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    if (!model || !g || e.button !== 0) return;
    const x = e.offsetX;
    if (x < g.x0 - 2) {  // a host's name (a big job's, drawn by host) opens or folds it
      const at = hostRowAt(e.offsetY);
      if (at) onToggleHost(at.key);
      return;
    }
    drag = { x, t: inJob(timeAt(x)), moved: false, y: e.offsetY };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) {
      if (!g) return;
      // Over a folded host's name: say whose it is and that a click opens it (thin lanes show no name).
      const at = e.offsetX < g.x0 ? hostRowAt(e.offsetY) : null;
      const folded = at?.row.lane?.members;
      canvas.title = at ? `${folded ? at.row.lane.name : at.row.group.title}: click to ${folded ? 'open it into its ranks' : 'fold its host'}` : '';
      canvas.style.cursor = at || (e.offsetY >= AXIS_H && e.offsetY < AXIS_H + STEP_H && stepAt(e.offsetX) !== null) ? 'pointer' : e.offsetX >= g.x0 ? 'crosshair' : '';
      return;
    }
    if (Math.abs(e.offsetX - drag.x) >= DRAG_PX) drag.moved = true;
    if (drag.moved) {
      selection = { start: drag.t, end: inJob(timeAt(Math.min(Math.max(e.offsetX, g.x0), g.x1))) };
      schedule();
    }
  });
  canvas.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = null;
    if (!d) return;
    if (d.moved && selection) {
      const { start, end } = selection;
      selection = null;
      schedule();
      if (Math.abs(end - start) >= 1) pickTime(start, end);
      return;
    }
    if (d.y >= AXIS_H && d.y < AXIS_H + STEP_H) {
      const n = stepAt(e.offsetX);
      if (n !== null) onPick({ step: n });
    }
  });
  canvas.addEventListener('pointercancel', () => { drag = null; selection = null; schedule(); });
  canvas.addEventListener('dblclick', (e) => { e.preventDefault(); selection = null; onClear(); });
  canvas.addEventListener('wheel', (e) => {
    if (!model || !g || !(e.ctrlKey || e.metaKey)) return;  // a plain wheel scrolls the page
    e.preventDefault();
    zoom(Math.exp(e.deltaY * 0.002), timeAt(e.offsetX));
  }, { passive: false });

  // ---- keyboard ----------------------------------------------------------------------------
  canvas.addEventListener('keydown', (e) => {
    if (!model) return;
    const span = view.end - view.start;
    const stepBy = span * KEY_STEP;
    const cur = selection ?? initialSelection();
    let handled = true;
    switch (e.key) {
      case 'ArrowLeft':
      case 'ArrowRight': {
        const d = e.key === 'ArrowLeft' ? -stepBy : stepBy;
        selection = e.shiftKey
          ? { start: cur.start, end: inJob(Math.max(cur.end + d, cur.start + 1)) }
          : { start: inJob(cur.start + d), end: inJob(cur.end + d) };
        break;
      }
      case 'Home': selection = { start: model.start, end: model.start + (cur.end - cur.start) }; break;
      case 'End': selection = { start: model.end - (cur.end - cur.start), end: model.end }; break;
      case 'ArrowUp':
      case 'ArrowDown': selection = nextStep(cur, e.key === 'ArrowDown' ? 1 : -1) ?? cur; break;
      case '+': case '=': zoom(0.5, (cur.start + cur.end) / 2); break;
      case '-': case '_': zoom(2, (cur.start + cur.end) / 2); break;
      case '0': view = { start: model.start, end: model.end }; break;
      case 'Enter':
        if (selection) {
          const s = selection;
          selection = null;
          if (s.step !== undefined) onPick({ step: s.step });
          else pickTime(s.start, s.end);
        }
        break;
      case 'Escape': handled = !!selection; selection = null; break;
      case 'Delete': case 'Backspace': selection = null; onClear(); break;
      default: handled = false;
    }
    if (!handled) return;
    e.preventDefault();
    e.stopPropagation();  // (Escape here is not "cancel the merge")
    // Keep what moves in sight.
    if (selection && (selection.end < view.start || selection.start > view.end)) {
      const mid = (selection.start + selection.end) / 2;
      view = clampView(mid - span / 2, mid + span / 2);
    }
    say();
    schedule();
  });
  canvas.addEventListener('blur', () => { if (selection && !drag) { selection = null; say(); schedule(); } });

  function initialSelection() {
    const a = windowNow?.start_us ?? view.start;
    const b = windowNow?.end_us ?? Math.min(a + (view.end - view.start) / 10, view.end);
    return { start: a, end: Math.max(b, a + 1) };
  }

  function nextStep(cur, dir) {
    const steps = model.steps;
    if (!steps.length) return null;
    let i = cur.step === undefined ? (dir > 0 ? -1 : steps.length) : steps.findIndex(([n]) => n === cur.step);
    i = Math.min(Math.max(i + dir, 0), steps.length - 1);
    const [n, t] = steps[i];
    const next = steps[i + 1]?.[1] ?? model.end;
    return { start: t, end: next, step: n };
  }

  return {
    setModel(m) {
      const fresh = !model || !view || m.start !== model.start || m.end !== model.end;
      model = m;
      if (fresh) view = { start: m.start, end: m.end };
      else view = clampView(view.start, view.end);
      schedule();
    },
    setWindow(preview) { windowNow = preview?.bounded ? preview : null; schedule(); },
    setMerged(window) { merged = window ?? null; schedule(); },
    zoomTo(start, end) { view = clampView(start, end); schedule(); },
    fit() { if (model) { view = { start: model.start, end: model.end }; schedule(); } },
    zoom: (f) => { if (model) zoom(f); },
    redraw: schedule,
    // Where things are (CSS px in the canvas), for tests and scripts:
    geometry() {
      if (!g) return null;
      return { x0: g.x0, x1: g.x1, stepRowY: AXIS_H + STEP_H / 2, lanesY: g.lanesY, lanesEnd: g.lanesEnd, view: { ...view },
        lanes: model.lanes.map((l) => ({ path: l.path, shift: l.shift, group: g.rows.find((r) => r.lane === l)?.group.title })),
        steps: model.steps.map(([n, t]) => ({ step: n, x: xOf(t) })) };
    },
  };
}
