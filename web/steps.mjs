// The steps panel: how long each step took on each node or rank (from the overview's
// lanes: last − first moment of the step there), as a heat map — the slower, the warmer —
// with the slowest per step marked, and who the others waited for (the core's waits: the
// rank last at the step's collectives, and what all lost waiting for it). Below it, who
// waits for whom as a ranks × steps map, and two runs side by side when there are two.
// A click on a step (its number, any of its cells) picks it as the window.
//   renderSteps(container, stepTable(model), { onPick: (step) => …, selected, waits: report.waits, runs: runTable(model) })
import { duration, plural, utcFromMicros } from './format.mjs';
import { h } from './table.mjs';

const MAX_ROWS = 400;      // steps shown; a job with more says so
const TEXT_COLUMNS = 8;    // up to this many nodes or ranks, cells say their duration
const FULL_HEAT = 0.1;     // a step this much longer than its fastest is the warmest colour
const LAGGING = 0.02;      // the slowest is marked when it is this much longer than the fastest
const WAIT_ROWS = 32;      // ranks in the waiting map: those that waited least (the stragglers) first
// A rank that takes 2% longer than the fastest holds the others back; 0.3% is noise.
const lagging = (lo, hi) => hi - lo > Math.max(lo * LAGGING, 10);

// "rank 0 · host-a" in parts that do not break inside ("host-" | "a" on a narrow page).
const words = (name) => name.split(' · ').flatMap((part, i) => [...(i ? [' · '] : []), h('span', { class: 'nowrap' }, part)]);

function heatCell(td, heat) {
  td.style.setProperty('--heat', `${Math.round(Math.max(0, Math.min(heat, 1)) * 100)}%`);  // (CSSOM: the CSP allows no style attributes)
  return td;
}

// The step's straggler and what the others lost waiting for it, or why none is named.
function waitedFor(waits, step) {
  const s = waits?.stepsBy.get(step);
  if (!s) return h('td', { class: 'waited none' }, '');
  const who = s.last >= 0 ? waits.ranks[s.last].label : '';
  if (!s.straggler) {
    return h('td', { class: 'waited none', title: who ? `${who} was last at ${s.last_count} of ${s.collectives} collectives: no more than chance` : '' }, '—');
  }
  return h('td', { class: 'waited straggler', 'data-step': String(step),
    title: `${who} arrived last at ${s.last_count} of ${s.collectives} collectives; all ranks together waited ${duration(s.lost_us)} for it` },
  h('strong', {}, who), ` · ${duration(s.lost_us)} lost`);
}

function stepsTable(table, { waits, selected }) {
  const { groups, rows } = table;
  const text = groups.length <= TEXT_COLUMNS;
  const head = h('tr', {},
    h('th', { scope: 'col', class: 'c-num' }, 'Step'),
    h('th', { scope: 'col' }, 'Starts (UTC)'),
    ...groups.map((name) => h('th', { scope: 'col', class: `c-num${text ? '' : ' narrow'}`, title: name }, ...(text ? words(name) : []))),
    h('th', { scope: 'col' }, 'Slowest'),
    ...(waits ? [h('th', { scope: 'col', title: 'The rank the others waited for at the collectives (the core\'s waits)' }, 'Waited for')] : []));
  const body = rows.slice(0, MAX_ROWS).map((row) => {
    const durations = row.cells.filter(Boolean).map((cell) => cell.dur);
    const lo = Math.min(...durations);
    const hi = Math.max(...durations);
    const cells = row.cells.map((cell, i) => {
      if (!cell) return h('td', { class: 'heat none', title: `${groups[i]}: no step ${row.step}` }, '');
      const slow = i === row.slowest && lagging(lo, hi);
      const late = cell.start - row.first;
      const title = `${groups[i]}, step ${row.step}: ${duration(cell.dur)}` +
        (slow ? `, the slowest (+${duration(cell.dur - lo)} over the fastest)` : '') +
        (late > 0 ? `; starts ${duration(late)} after the first` : '');
      return heatCell(h('td', { class: `heat c-num${slow ? ' slowest' : ''}`, title, 'data-step': String(row.step) },
        text ? duration(cell.dur) : '', slow ? h('span', { class: 'visually-hidden' }, ' (slowest)') : null),
      (cell.dur - lo) / (lo * FULL_HEAT || 1));
    });
    const slowName = row.slowest >= 0 && lagging(lo, hi) ? `${groups[row.slowest]} +${duration(hi - lo)}` : '';
    const pick = h('button', { type: 'button', class: 'step-pick', 'data-step': String(row.step), 'aria-label': `Merge step ${row.step}` }, String(row.step));
    return h('tr', { class: selected === row.step ? 'picked' : '', 'data-step': String(row.step) },
      h('td', { class: 'c-num' }, pick),
      h('td', { class: 'mono utc' }, utcFromMicros(row.first).replace(/^\d{4}-\d\d-\d\d /, '')),
      ...cells,
      h('td', { class: 'slow-name' }, slowName),
      ...(waits ? [waitedFor(waits, row.step)] : []));
  });
  const note = rows.length > MAX_ROWS ? h('p', { class: 'hint' }, `The first ${MAX_ROWS} of ${plural(rows.length, 'step')} are shown.`) : null;
  return [h('div', { class: 'table-wrap steps-wrap', tabindex: '0', role: 'region', 'aria-label': 'Step durations per node or rank' },
    h('table', { class: 'steps-table' }, h('caption', { class: 'visually-hidden' },
      'How long each step took per node or rank; the slowest per step is marked, and the rank the others waited for. Press a step number to merge that step.'),
    h('thead', {}, head), h('tbody', {}, ...body))), ...(note ? [note] : [])];
}

// Ranks × steps: each rank's waiting in the step's collectives. The rank that does not wait
// — the last to arrive, the one the others wait for — is the hot one. Ranks whose host's
// clock could not be checked are marked: their waits stand, their arrival times do not.
function waitsMap(waits) {
  const steps = waits.steps.slice(0, MAX_ROWS);
  if (!steps.length || waits.ranks.length < 2) return [];
  const order = waits.ranks.map((r, i) => i).sort((a, b) => waits.ranks[a].wait_us - waits.ranks[b].wait_us);
  const shown = order.slice(0, WAIT_ROWS);
  const head = h('tr', {}, h('th', { scope: 'col' }, 'Rank'),
    ...steps.map((s) => h('th', { scope: 'col', class: `c-num${s.straggler ? ' straggler' : ''}` }, String(s.step))),
    h('th', { scope: 'col', class: 'c-num' }, 'Waited'));
  const rows = shown.map((r) => {
    const rank = waits.ranks[r];
    return h('tr', { 'data-rank': rank.label },
      h('th', { scope: 'row', class: 'rank-name', title: rank.path },
        rank.label, rank.clock_checked ? null : h('span', { class: 'unchecked-mark', title: 'Its host\'s clock could not be checked: its waits stand, its arrival times are unsure' }, ' · clock not checked')),
      ...steps.map((s) => {
        const most = Math.max(...s.wait_us, 1);
        const w = s.wait_us[r];
        const last = s.straggler && s.last === r;
        return heatCell(h('td', { class: `heat c-num${last ? ' slowest' : ''}`, 'data-step': String(s.step),
          title: `${rank.label}, step ${s.step}: waited ${duration(w)} in ${s.collectives} collectives${last ? ' — the others waited for it' : ''}` }, ''),
        1 - w / most);
      }),
      h('td', { class: 'c-num' }, duration(rank.wait_us)));
  });
  const more = waits.ranks.length > shown.length
    ? h('p', { class: 'hint' }, `The ${shown.length} ranks that waited least are shown, of ${plural(waits.ranks.length, 'rank')}.`) : null;
  return [h('h3', {}, 'Who waits for whom', h('span', { class: 'hint' },
    ` · waiting in ${waits.from} per rank and step (${plural(waits.collectives, 'collective')}); the hot cells are the rank the others wait for`)),
  h('div', { class: 'table-wrap waits-wrap', tabindex: '0', role: 'region', 'aria-label': 'Waiting per rank and step' },
    h('table', { class: 'waits-table' }, h('caption', { class: 'visually-hidden' },
      'Time each rank spent waiting in collectives, per step; the rank that waits least arrived last. Press a cell to merge that step.'),
    h('thead', {}, head), h('tbody', {}, ...rows))), ...(more ? [more] : [])];
}

// Two runs side by side: per step, each run's duration and the difference, sortable.
function runsTable(runs, sortBy) {
  const rows = [...runs.rows];
  if (sortBy === 'diff') rows.sort((a, b) => Math.abs(b.diff ?? 0) - Math.abs(a.diff ?? 0) || a.step - b.step);
  const sortButton = (key, label) => h('button', { type: 'button', class: `sort${sortBy === key ? ' on' : ''}`, 'data-sort': key,
    'aria-pressed': String(sortBy === key) }, label);
  const head = h('tr', {}, h('th', { scope: 'col', class: 'c-num' }, sortButton('step', 'Step')),
    ...runs.runs.map((r) => h('th', { scope: 'col', class: 'c-num' }, r || '(files)')),
    h('th', { scope: 'col', class: 'c-num' }, sortButton('diff', 'Difference')));
  const body = rows.slice(0, MAX_ROWS).map((row) => {
    const d = row.diff;
    return h('tr', { 'data-step': String(row.step) },
      h('td', { class: 'c-num' }, h('button', { type: 'button', class: 'step-pick', 'data-step': String(row.step), 'aria-label': `Merge step ${row.step}` }, String(row.step))),
      ...row.durs.map((x) => h('td', { class: 'c-num' }, x === null ? '—' : duration(x))),
      h('td', { class: `c-num diff${d > 0 ? ' slower' : d < 0 ? ' faster' : ''}` }, d === null ? '—' : `${d > 0 ? '+' : d < 0 ? '−' : ''}${duration(Math.abs(d))}`));
  });
  return [h('h3', {}, 'Runs side by side', h('span', { class: 'hint' },
    ` · each step's duration in ${runs.runs[0] || '(files)'} and ${runs.runs[1] || '(files)'}; sort by the difference to find the step that got slower`)),
  h('div', { class: 'table-wrap runs-wrap', tabindex: '0', role: 'region', 'aria-label': 'Steps of two runs' },
    h('table', { class: 'runs-table' }, h('thead', {}, head), h('tbody', {}, ...body)))];
}

export function renderSteps(container, table, { onPick, selected = null, waits = null, runs = null }) {
  const { groups, rows } = table;
  if (!rows.length || !groups.length) {
    container.replaceChildren();
    container.hidden = true;
    return;
  }
  container.hidden = false;
  const w = waits?.from ? { ...waits, stepsBy: new Map(waits.steps.map((s) => [s.step, s])) } : null;
  let sortBy = container.sortRunsBy || 'step';  // (kept on the element: a rescan redraws the panel)
  const parts = () => [
    h('h3', {}, 'Steps', h('span', { class: 'hint' }, ` · duration per ${groups.length === 1 ? 'node' : 'node or rank'}; the slowest of each step is marked${w ? ', and who the others waited for' : ''}; click a step to merge it`)),
    ...stepsTable(table, { waits: w, selected }),
    ...(w ? waitsMap(w) : []),
    ...(runs ? runsTable(runs, sortBy) : []),
  ];
  container.replaceChildren(...parts());
  container.onclick = (e) => {
    const sort = e.target.closest('button[data-sort]');
    if (sort) {
      sortBy = container.sortRunsBy = sort.dataset.sort;
      container.replaceChildren(...parts());
      return;
    }
    const target = e.target.closest('[data-step]');
    if (target) onPick(Number(target.dataset.step));
  };
}
