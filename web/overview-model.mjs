// What the overview and the steps panel draw, from a scan's report only (the page parses no
// trace): report.overview's lanes — event density in bins over the job's span, each source's
// steps with their first and last moment, system metrics per bin — grouped by node or rank,
// with the sources the user left out hidden and the offsets typed in the table applied.
//   buildModel(report, { visible: (path) => true, shift: (path) => 0, kindLabel, expanded: new Set() })
//     → { start, end, bins, groups: [{ key, title, lanes: [lane…] }], lanes, steps: [[step, first_us]…],
//         folded: number of hosts drawn folded, noHost: sources without a host drawn as one lane }
//   lane: { source, path, name, kind, run, host, density, max, steps, counters, shift, noClock, placed, rows }
// A big job (more than FOLD_ABOVE nodes or ranks) is drawn by host: each host one lane (its
// sources' events summed, its steps' union) until `expanded` has it (its key: lane.hostKey);
// the sources without a host, one lane a run.
// Pure: no DOM, so that it is tested under Node (tests/e2e/logic.test.mjs).
import { plural } from './format.mjs';

/**
 * A lane of the overview: one source, or (source -1, hostKey set) the sources of a host folded into one.
 * @typedef {{ source: number, path: string, hostKey?: string, name: string, kind: string, run: string, host: string,
 *   density: number[], max: number, steps: [number, number, number][], counters: { name: string, values: (number | null)[],
 *   max: number }[], shift: number, noClock: boolean, placed: number, aligned: number, rows: number, members?: number }} Lane
 */
/**
 * What the overview draws (buildModel()'s answer): the span drawn (µs), the bins' span, the lanes by node or rank.
 * @typedef {{ start: number, end: number, binStart: number, binEnd: number, bins: number,
 *   groups: { key: string, title: string, hostKey?: string, folded?: boolean, lanes: Lane[] }[], lanes: Lane[],
 *   folded: number, noHost: number, steps: [number, number][], job: Report['job'] | null }} OverviewModel
 */

// The metrics a system lane draws, most telling first; others follow, up to MAX_COUNTERS.
const COUNTER_ORDER = ['GPUUtilization', 'CPUUtilization', 'GPUMemoryUtilization'];
const MAX_COUNTERS = 3;

function pickCounters(counters) {
  const rank = (c) => {
    const i = COUNTER_ORDER.indexOf(c.name);
    return i >= 0 ? i : COUNTER_ORDER.length + (/Utilization/.test(c.name) ? 0 : 1);
  };
  return [...counters].sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : 1)).slice(0, MAX_COUNTERS).map((c) => {
    let max = 0;
    for (const v of c.values) if (v !== null && v > max) max = v;
    // Utilisation is in %: a common scale for all of it; anything else by its own maximum.
    return { name: c.name, values: c.values, max: /Utilization/.test(c.name) ? Math.max(100, max) : max || 1 };
  });
}

function maxOf(density) {
  let max = 0;
  for (const d of density) if (d > max) max = d;
  return max;
}

const baseName = (path) => path.slice(path.lastIndexOf('/') + 1);
/**
 * A job of more nodes or ranks than this is drawn by host (see the top of this file).
 * @type {number}
 */
export const FOLD_ABOVE = 48;

// A source's lane. m: { l: its lane in the report, s: the source, shift }.
function laneOf({ l, s, shift }, kindLabel) {
  const counters = s.kind === 'system' ? pickCounters(l.counters ?? []) : [];
  return {
    source: l.source,
    path: s.path,
    name: `${kindLabel(s.kind) ?? s.kind} · ${baseName(s.path)}`,
    kind: s.kind,
    density: l.density,
    max: maxOf(l.density),
    steps: l.steps ?? [],
    counters,
    shift,
    noClock: s.absolute === false,
    placed: s.placed_us ?? 0,
    aligned: s.aligned_us ?? 0,
    rows: Math.max(1, counters.length),
    run: s.identity?.run ?? '',
    host: s.identity?.host || '',
  };
}

// The sources of one host as one lane: densities summed, each step from its first to its last moment.
function hostLane(key, title, members) {
  const bins = members[0].l.density.length;
  const sum = new Float64Array(bins);  // (20 000 sources: 5 M bins, most of them 0)
  for (const m of members) {
    const d = m.l.density;
    for (let b = 0; b < bins; b++) if (d[b]) sum[b] += d[b];
  }
  const density = Array.from(sum);
  const steps = new Map();
  for (const { l, shift } of members)
    for (const [step, a, b] of l.steps ?? []) {
      const at = steps.get(step);
      steps.set(step, at ? [step, Math.min(at[1], a + shift), Math.max(at[2], b + shift)] : [step, a + shift, b + shift]);
    }
  const { s } = members[0];
  return {
    source: -1, path: '', hostKey: key, name: `${title} · ${plural(members.length, 'source')}`, kind: 'host',
    run: s.identity?.run ?? '', host: s.identity?.host || '', density, max: maxOf(density),
    steps: [...steps.values()].sort((x, y) => x[0] - y[0]), counters: [], shift: 0,
    noClock: members.some((m) => m.s.absolute === false), placed: 0, aligned: 0, rows: 1, members: members.length,
  };
}

/**
 * The overview's model of a scan's report (see the top of this file): the sources visible(path)
 * lets in, each moved by shift(path), grouped by node or rank, folded by host beyond FOLD_ABOVE
 * groups except the hosts in `expanded`.
 * label(path): a label known from another report of the same files (a merge's), for a scan
 * report without one.
 * @param {Report | null} report a scan's report
 * @param {{ visible?: (path: string) => boolean, shift?: (path: string) => number, kindLabel?: (kind: string) => string | undefined,
 *   label?: (path: string) => string, expanded?: Set<string> }} [opts] shift: the offset typed for the path, in µs;
 *   expanded: the host keys (lane.hostKey) drawn opened
 * @returns {OverviewModel | null} null when the report has no overview
 */
export function buildModel(report, { visible = () => true, shift = () => 0, kindLabel = (k) => k, label = () => '',
  expanded = new Set() } = {}) {
  const ov = report?.overview;
  if (!ov || !ov.lanes) return null;
  const sources = report.sources ?? [];
  // Each visible source into its node's or rank's group; its lane is made once it is known
  // to be drawn (20 000 sources folded into one lane need none).
  const groups = new Map();
  let start = ov.start_us;
  let end = ov.end_us;
  for (const l of ov.lanes) {
    const s = sources[l.source];
    if (!s || !visible(s.path)) continue;
    const at = shift(s.path) - (s.offset_us ?? 0);  // the scan had the offsets it had; draw the ones typed now
    start = Math.min(start, ov.start_us + at);
    end = Math.max(end, ov.end_us + at);
    const key = s.label || label(s.path) || s.node || '';
    let g = groups.get(key);
    if (!g) groups.set(key, g = { key, title: key || '(no node)', members: [] });
    g.members.push({ l, s, shift: at });
  }
  if (!(end > start)) end = start + 1;
  // Many nodes or ranks: by host (a host's key: its run and name) — those without a host
  // (20 000 generic traces, a node each) one lane a run, as the file table folds them.
  const drawnAlone = (g, hostKey) => ({ key: g.key, title: g.title, hostKey, lanes: g.members.map((m) => laneOf(m, kindLabel)) });
  let list = [...groups.values()];
  let folded = 0;
  let noHost = 0;
  if (list.length <= FOLD_ABOVE) {
    list = list.map((g) => drawnAlone(g));
  } else {
    const hosts = new Map();
    for (const g of list) {
      const id = g.members[0].s.identity;
      const hostKey = `${id?.run ?? ''}\u001f${id?.host || ''}`;
      if (!hosts.has(hostKey)) hosts.set(hostKey, { key: hostKey, host: id?.host || '', groups: [] });
      hosts.get(hostKey).groups.push(g);
    }
    list = [];
    for (const h of hosts.values()) {
      if (expanded.has(h.key) || h.groups.length === 1) {
        for (const g of h.groups) list.push(drawnAlone(g, h.key));
        continue;
      }
      const members = [];
      for (const g of h.groups) for (const m of g.members) members.push(m);
      if (h.host) folded++;
      else noHost += members.length;
      // (its groups are ranks when its sources say theirs; else nodes, a file each)
      const ranks = members.every((m) => m.s.identity?.rank >= 0);
      const title = !h.host ? 'no host' : ranks ? `${h.host} (${h.groups.length} ranks)` : h.host;
      list.push({ key: h.key, title, hostKey: h.key, folded: true, lanes: [hostLane(h.key, title, members)] });
    }
  }
  return {
    start, end, binStart: ov.start_us, binEnd: ov.end_us, bins: ov.bins,
    groups: list, lanes: list.flatMap((g) => g.lanes), folded, noHost,
    steps: [...(report.job?.steps ?? [])].sort((a, b) => a[0] - b[0]),
    job: report.job ?? null,  // (its clock: whether times are dates, format.mjs moment)
  };
}

/**
 * Two runs side by side (two folders dropped, --align steps): per step, how long it took in
 * each run (the longest of the run's sources) and the difference, or null when the model
 * holds fewer than two runs with steps.
 *   runTable(model) → { runs: ['monday', 'thursday'], rows: [{ step, durs: [a, b], diff: b − a }…] }
 * @param {OverviewModel} model
 * @returns {{ runs: string[], rows: { step: number, durs: (number | null)[], diff: number | null }[] } | null} durations in µs
 */
export function runTable(model) {
  const runs = [...new Set(model.lanes.filter((l) => l.steps.length).map((l) => l.run))];
  if (runs.length < 2) return null;
  const pair = runs.slice(0, 2);
  const rows = new Map();
  for (const l of model.lanes) {
    const r = pair.indexOf(l.run);
    if (r < 0) continue;
    for (const [step, first, last] of l.steps) {
      if (!rows.has(step)) rows.set(step, { step, durs: [null, null] });
      const row = rows.get(step);
      row.durs[r] = Math.max(row.durs[r] ?? 0, last - first);
    }
  }
  const list = [...rows.values()].sort((a, b) => a.step - b.step);
  for (const row of list) row.diff = row.durs[0] !== null && row.durs[1] !== null ? row.durs[1] - row.durs[0] : null;
  return { runs: pair, rows: list };
}

// timeTicks' round steps beyond 10 s: 15 s, 30 s, minutes, hours, days (in µs).
const S = 1e6;
const NICE = [15 * S, 30 * S, 60 * S, 120 * S, 300 * S, 600 * S, 900 * S, 1800 * S, 3600 * S, 7200 * S, 3 * 3600 * S,
  6 * 3600 * S, 12 * 3600 * S, 86400 * S, 2 * 86400 * S, 7 * 86400 * S, 14 * 86400 * S, 28 * 86400 * S];
/**
 * Ticks for a time axis: about `count` round steps from `origin` (the job's start: labels
 * stay put while zooming), those inside [start, end]. Round in the unit they are read in:
 * 1, 2, 5 × 10^k µs up to seconds, then 15 s, 30 s, minutes, hours, days.
 *   timeTicks(0, 1000, 4) → { step: 500, ticks: [0, 500, 1000] }
 * @param {number} start µs
 * @param {number} end µs
 * @param {number} count about how many steps
 * @param {number} [origin] where the steps count from (default start)
 * @returns {{ step: number, ticks: number[] }} the step and the ticks, in µs
 */
export function timeTicks(start, end, count, origin = start) {
  const span = end - start;
  if (!(span > 0) || !(count > 0)) return { step: 1, ticks: [] };
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= raw);
  if (step > 10 * S) step = NICE.find((x) => x >= raw) ?? Math.ceil(raw / (28 * 86400 * S)) * 28 * 86400 * S;
  const ticks = [];
  for (let k = Math.ceil((start - origin) / step); origin + k * step <= end; k++) ticks.push(origin + k * step);
  return { step, ticks };
}
