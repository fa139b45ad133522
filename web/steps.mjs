// The steps panel: how long each step took on each node or rank (from the overview's
// lanes: last − first moment of the step there), as a heat map — the slower, the warmer —
// with the slowest per step marked: the rank the others wait for at the next collective.
// A click on a step (its number, or any of its cells) picks it as the window.
//   renderSteps(container, stepTable(model), { onPick: (step) => …, first: (step) => µs })
import { duration, plural, utcFromMicros } from './format.mjs';
import { h } from './table.mjs';

const MAX_ROWS = 400;      // steps shown; a job with more says so
const TEXT_COLUMNS = 8;    // up to this many nodes or ranks, cells say their duration
const FULL_HEAT = 0.1;     // a step this much longer than its fastest is the warmest colour
const LAGGING = 0.02;      // the slowest is marked when it is this much longer than the fastest
// A rank that takes 2% longer than the fastest holds the others back; 0.3% is noise.
const lagging = (lo, hi) => hi - lo > Math.max(lo * LAGGING, 10);

export function renderSteps(container, table, { onPick, selected = null }) {
  const { groups, rows } = table;
  if (!rows.length || !groups.length) {
    container.replaceChildren();
    container.hidden = true;
    return;
  }
  container.hidden = false;
  const text = groups.length <= TEXT_COLUMNS;
  const head = h('tr', {},
    h('th', { scope: 'col', class: 'c-num' }, 'Step'),
    h('th', { scope: 'col' }, 'Starts (UTC)'),
    ...groups.map((name) => h('th', { scope: 'col', class: `c-num${text ? '' : ' narrow'}`, title: name }, text ? name : '')),
    h('th', { scope: 'col' }, 'Slowest'));
  const body = rows.slice(0, MAX_ROWS).map((row) => {
    const durations = row.cells.filter(Boolean).map((cell) => cell.dur);
    const lo = Math.min(...durations);
    const hi = Math.max(...durations);
    const cells = row.cells.map((cell, i) => {
      if (!cell) return h('td', { class: 'heat none', title: `${groups[i]}: no step ${row.step}` }, '');
      const heat = Math.min((cell.dur - lo) / (lo * FULL_HEAT || 1), 1);
      const slow = i === row.slowest && lagging(lo, hi);
      const late = cell.start - row.first;
      const title = `${groups[i]}, step ${row.step}: ${duration(cell.dur)}` +
        (slow ? `, the slowest (+${duration(cell.dur - lo)} over the fastest)` : '') +
        (late > 0 ? `; starts ${duration(late)} after the first` : '');
      const td = h('td', { class: `heat c-num${slow ? ' slowest' : ''}`, title, 'data-step': String(row.step) },
        text ? duration(cell.dur) : '', slow ? h('span', { class: 'visually-hidden' }, ' (slowest)') : null);
      td.style.setProperty('--heat', `${Math.round(heat * 100)}%`);  // (CSSOM: the CSP allows no style attributes)
      return td;
    });
    const slowName = row.slowest >= 0 && lagging(lo, hi) ? `${groups[row.slowest]} +${duration(hi - lo)}` : '';
    const pick = h('button', { type: 'button', class: 'step-pick', 'data-step': String(row.step), 'aria-label': `Merge step ${row.step}` }, String(row.step));
    return h('tr', { class: selected === row.step ? 'picked' : '', 'data-step': String(row.step) },
      h('td', { class: 'c-num' }, pick),
      h('td', { class: 'mono utc' }, utcFromMicros(row.first).replace(/^\d{4}-\d\d-\d\d /, '')),
      ...cells,
      h('td', { class: 'slow-name' }, slowName));
  });
  const note = rows.length > MAX_ROWS ? h('p', { class: 'hint' }, `The first ${MAX_ROWS} of ${plural(rows.length, 'step')} are shown.`) : null;
  const wrap = h('div', { class: 'table-wrap steps-wrap', tabindex: '0', role: 'region', 'aria-label': 'Step durations per node or rank' },
    h('table', { class: 'steps-table' }, h('caption', { class: 'visually-hidden' },
      'How long each step took per node or rank; the slowest per step is marked. Press a step number to merge that step.'),
    h('thead', {}, head), h('tbody', {}, ...body)));
  wrap.addEventListener('click', (e) => {
    const target = e.target.closest('[data-step]');
    if (target) onPick(Number(target.dataset.step));
  });
  container.replaceChildren(
    h('h3', {}, 'Steps', h('span', { class: 'hint' }, ` · duration per ${groups.length === 1 ? 'node' : 'node or rank'}; the slowest of each step is marked; click a step to merge it`)),
    wrap, ...(note ? [note] : []));
}
