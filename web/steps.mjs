// The steps panel, from the core's waits (report.waits, core/waits.h): per run, a table of
// the steps — when each began, how long each rank was busy in it (its length less its
// waiting in collectives), who the others waited for and what they lost — and the ranks ×
// steps map of waiting. The core names the ranks the others waited for only when the data
// shows it, and says why not otherwise; the page shows that, it does not judge. Below, two
// runs side by side when there are two. A click on a step (its number, any of its cells)
// picks it as the window.
//   renderSteps(container, report.waits, { onPick: (step) => …, selected, runs: runTable(model) })
import { duration, moment, plural } from './format.mjs';
import { h } from './table.mjs';

const MAX_ROWS = 400;      // steps shown; a job with more says so
const RANK_COLUMNS = 8;    // up to this many ranks, the steps table has a column each
const MAP_ROWS = 32;       // ranks in the waiting map: those held up by least first

// "rank 0 · host-a" in parts that do not break inside ("host-" | "a" on a narrow page).
const words = (name) => name.split(' · ').flatMap((part, i) => [...(i ? [' · '] : []), h('span', { class: 'nowrap' }, part)]);
const names = (waits, list) => list.map((r) => waits.ranks[r].label).join(', ');

function heatCell(td, heat) {
  td.style.setProperty('--heat', `${Math.round(Math.max(0, Math.min(heat, 1)) * 100)}%`);  // (CSSOM: the CSP allows no style attributes)
  return td;
}

// What each rank of a step did: [{ rank, span, wait, comm, busy }] for those that have it.
function stepRanks(s) {
  return s.span_us.flatMap((span, r) => (span === null ? [] : [{ rank: r, span, wait: s.wait_us[r], comm: s.comm_us[r], busy: span - s.wait_us[r] }]));
}

// "84 ms each · 5.28 s over 63 ranks": what the others lost, said as what it is.
function lostText(s) {
  const others = s.others;
  if (!s.held_by.length || others < 1) return '';
  return others === 1 ? duration(s.lost_us) : `${duration(s.lost_us / others)} each, ${duration(s.lost_us)} in all`;
}

function heldCell(waits, s) {
  if (!s.held_by.length) return h('td', { class: 'held none', title: s.why }, h('span', { 'aria-hidden': 'true' }, '—'), h('span', { class: 'visually-hidden' }, `no one named: ${s.why}`));
  const who = names(waits, s.held_by);
  return h('td', { class: 'held named', 'data-step': String(s.step),
    title: `The others waited for ${who}: ${s.held_by.length > 1 ? 'each' : 'it'} was among the last to arrive at ${s.late_count} of ${s.collectives} collectives` },
  ...words(who));
}

function rankCell(waits, s, x, held) {
  const name = waits.ranks[x.rank].label;
  const title = `${name}, step ${s.step}: ${duration(x.span)} — busy ${duration(x.busy)}, waiting ${duration(x.wait)} in collectives` +
    (x.comm ? `, ${duration(x.comm)} in communication kernels` : '') + (held ? '; the others waited for it' : '');
  return heatCell(h('td', { class: `heat c-num${held ? ' held-rank' : ''}`, title, 'data-step': String(s.step) },
    duration(x.busy), held ? h('span', { class: 'visually-hidden' }, ' (the others waited for it)') : null),
  x.span ? x.wait / x.span * 2 : 0);
}

function stepsTable(waits, ranks, steps, { selected, job }) {
  const perRank = ranks.length <= RANK_COLUMNS;
  const told = waits.from !== '';
  const head = h('tr', {},
    h('th', { scope: 'col', class: 'c-num' }, 'Step'),
    h('th', { scope: 'col' }, job?.clock === false ? 'Starts (after the first event)' : 'Starts (UTC)'),
    ...(perRank ? ranks.map((r) => h('th', { scope: 'col', class: 'c-num', title: `${waits.ranks[r].label}: busy in the step (its length less its waiting)` },
      ...waits.ranks[r].label.split(' · ').map((part, i) => i ? h('span', { class: 'nowrap sub' }, h('span', { class: 'visually-hidden' }, ' · '), part) : h('span', { class: 'nowrap' }, part))))
      : [h('th', { scope: 'col', class: 'c-num', title: 'The ranks\' time busy in the step (its length less its waiting): the least and the most' }, 'Busy (ranks)')]),
    ...(told ? [h('th', { scope: 'col', title: 'The ranks the others waited for at the collectives' }, 'Held up by'),
      h('th', { scope: 'col', class: 'c-num', title: 'What the other ranks lost waiting in the step\'s collectives' }, 'Lost waiting')] : []));
  const body = steps.slice(0, MAX_ROWS).map((s) => {
    const xs = stepRanks(s);
    const busy = xs.map((x) => x.busy);
    const cells = perRank
      ? ranks.map((r) => {
        const x = xs.find((y) => y.rank === r);
        return x ? rankCell(waits, s, x, s.held_by.includes(r)) : h('td', { class: 'heat none', title: `${waits.ranks[r].label}: no step ${s.step}` }, '');
      })
      : [h('td', { class: 'c-num nowrap' }, busy.length ? `${duration(Math.min(...busy))} – ${duration(Math.max(...busy))}` : '')];
    const pick = h('button', { type: 'button', class: 'step-pick', 'data-step': String(s.step), 'aria-label': `Merge step ${s.step}` }, String(s.step));
    return h('tr', { class: selected === s.step ? 'picked' : '', 'data-step': String(s.step) },
      h('td', { class: 'c-num' }, pick),
      h('td', { class: 'mono utc' }, job?.clock === false ? moment(s.start_us, job).replace(' after the first event', '') : moment(s.start_us, job).replace(/^\d{4}-\d\d-\d\d /, '').replace(/ UTC$/, '')),
      ...cells,
      ...(told ? [heldCell(waits, s), h('td', { class: 'c-num lost', title: s.others ? `What the ${plural(s.others, 'other rank')} lost waiting in the step's collectives` : '' }, lostText(s))] : []));
  });
  const note = steps.length > MAX_ROWS ? h('p', { class: 'hint' }, `The first ${MAX_ROWS} of ${plural(steps.length, 'step')} are shown.`) : null;
  return [h('div', { class: 'table-wrap steps-wrap', tabindex: '0', role: 'region', 'aria-label': 'Steps: busy time per rank, who the others waited for' },
    h('table', { class: 'steps-table' }, h('caption', { class: 'visually-hidden' },
      'Each step: when it began, each rank\'s busy time (its length less its waiting), the ranks the others waited for and what they lost. Press a step number to merge that step.'),
    h('thead', {}, head), h('tbody', {}, ...body))), ...(note ? [note] : [])];
}

// Ranks × steps: each rank's waiting in the step's collectives (the warmer, the longer it
// waited); the ranks the others waited for are outlined. Ranks whose host's clock could not be
// checked are marked: their waits stand, their arrival times do not.
function waitsMap(waits, all, steps) {
  steps = steps.slice(0, MAX_ROWS);
  const ranks = all.filter((r) => waits.ranks[r].collectives > 0);  // (those in no collective wait for no one)
  if (!steps.length || ranks.length < 2 || !waits.from) return [];
  const order = [...ranks].sort((a, b) => waits.ranks[b].held - waits.ranks[a].held || waits.ranks[a].wait_us - waits.ranks[b].wait_us);
  const shown = order.slice(0, MAP_ROWS);
  const head = h('tr', {}, h('th', { scope: 'col', class: 'rank-col' }, 'Rank'),
    ...steps.map((s) => h('th', { scope: 'col', class: `c-num${s.held_by.length ? ' held' : ''}` }, String(s.step))),
    h('th', { scope: 'col', class: 'c-num' }, 'Waited'));
  const rows = shown.map((r) => {
    const rank = waits.ranks[r];
    return h('tr', { 'data-rank': rank.label },
      h('th', { scope: 'row', class: 'rank-name', title: rank.path },
        rank.label, rank.clock_checked ? null : h('span', { class: 'unchecked-mark', title: 'Its host\'s clock could not be checked: its waits stand, its arrival times are unsure' }, ' · clock not checked')),
      ...steps.map((s) => {
        const most = Math.max(...s.wait_us.map((w) => w ?? 0), 1);
        const w = s.wait_us[r];
        const held = s.held_by.includes(r);
        if (w === null) return h('td', { class: 'heat none', title: `${rank.label}: no step ${s.step}` }, '');
        return heatCell(h('td', { class: `heat c-num${held ? ' held-rank' : ''}`, 'data-step': String(s.step),
          title: `${rank.label}, step ${s.step}: waited ${duration(w)} in ${plural(s.collectives, 'collective')}${held ? ' — the others waited for it' : ''}` }, ''),
        w / most);
      }),
      h('td', { class: 'c-num' }, duration(rank.wait_us)));
  });
  const more = ranks.length > shown.length
    ? h('p', { class: 'hint' }, `${shown.length} of ${plural(ranks.length, 'rank')} are shown: those the others waited for, then those that waited least.`) : null;
  return [h('h4', {}, 'Waiting per rank', h('span', { class: 'hint' },
    ` · in ${waits.from} (${plural(waits.collectives, 'collective')} matched); the warmer, the longer a rank waited; outlined: the ranks the others waited for`)),
  h('div', { class: 'table-wrap waits-wrap', tabindex: '0', role: 'region', 'aria-label': 'Waiting per rank and step' },
    h('table', { class: 'waits-table' }, h('caption', { class: 'visually-hidden' },
      'Time each rank spent waiting in collectives, per step; outlined cells: the ranks the others waited for. Press a cell to merge that step.'),
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

/**
 * Renders the steps panel (see the top of this file) into `container`, hidden when the waits have
 * no steps; onPick(step) when a step is clicked; selected: the step the fields pick, marked.
 *   renderSteps(container, report.waits, { onPick: (step) => …, selected, runs: runTable(model) })
 * @param {HTMLElement} container its children are replaced
 * @param {Waits | null | undefined} waits report.waits
 * @param {{ onPick: (step: number) => void, selected?: number | null,
 *   runs?: ReturnType<typeof import('./overview-model.mjs').runTable>, job?: Report['job'] | null }} opts
 *   runs: two runs side by side (runTable()), or null; job: for how times are said
 * @returns {void}
 */
export function renderSteps(container, waits, { onPick, selected = null, runs = null, job = null }) {
  const steps = waits?.steps ?? [];
  if (!steps.length) {
    container.replaceChildren();
    container.hidden = true;
    return;
  }
  container.hidden = false;
  const runNames = [...new Set(steps.map((s) => s.run))];
  let sortBy = container.sortRunsBy || 'step';  // (kept on the element: a rescan redraws the panel)
  const exchanged = steps.some((s) => s.comm_us.some((c) => c > 0));
  const hint = waits.from
    ? ` · busy = a step's length less its waiting in collectives (${waits.from}); the ranks the others waited for, named where the data shows it; click a step to merge it`
    : ` · each rank's time in the step; no collective is matched across ranks${exchanged ? ' (send/recv and all-to-all do not say who waited)' : ''}, so who waited for whom is not told; click a step to merge it`;
  const parts = () => [
    h('h3', {}, 'Steps', h('span', { class: 'hint' }, hint)),
    ...runNames.flatMap((run) => {
      const mine = steps.filter((s) => s.run === run);
      const ranks = waits.ranks.map((r, i) => i).filter((i) => waits.ranks[i].run === run);
      return [...(runNames.length > 1 ? [h('h4', { class: 'run-name' }, `Run ${run || '(files given by themselves)'}`)] : []),
        ...stepsTable(waits, ranks, mine, { selected, job }), ...waitsMap(waits, ranks, mine)];
    }),
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
