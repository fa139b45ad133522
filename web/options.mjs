// The Options card ↔ merge options, both ways: what the fields, the table and the URL ask
// for as the options of a merge (the CLI's names, see wasm/tracemerge.mjs optionsToArgs),
// and the notebook helper's options into the fields. Texts pass through unchanged: what
// they mean is the core's to say (rules.mjs).
//   mergeOptions(el, window, { kinds, kindOn, entries }) → { unit, start, end, align, only, offsets, … }
//   applyOptions(el, options, { kinds, kindOn })
//   renderWindowFields(el, readWindow(…), job): the hints under the fields and the window line
import { offsetsOption, onlyOption } from './table.mjs';
import { describeWindow } from './window.mjs';

/** The options (the core's keys) the page takes from the notebook helper: those applyOptions sets. */
export const PAGE_OPTIONS = ['start', 'end', 'unit', 'only', 'group', 'offsets', 'align', 'gzip'];

/**
 * The options of a merge from the fields, the table and the URL (?memory-mb=N, ?output-file=1|0):
 *   mergeOptions(el, window, { kinds, kindOn, entries }) → { unit, start, end, align, only, offsets, … }
 * @param {Record<string, HTMLElement>} el the page's elements (dom.mjs)
 * @param {ReturnType<typeof import('./window.mjs').readWindow>} w the window fields, read
 * @param {{ kinds: import('./table.mjs').KindSet, kindOn: Map<string, boolean>, entries: import('./table.mjs').Entry[] }} table
 * @returns {MergeOptions} only the options that differ from the CLI's defaults
 */
export function mergeOptions(el, w, { kinds, kindOn, entries }) {
  // ?memory-mb=N: MB of events kept in the wasm heap (default 512), the rest outside it;
  // ?output-file=1|0: the output to the browser's private file system, or not (default:
  // for inputs over 256 MB).
  const q = new URLSearchParams(location.search);
  const mb = q.get('memory-mb');
  const file = q.get('output-file');
  const only = onlyOption(kinds, kindOn);
  const offsets = offsetsOption(entries);
  return {
    ...w.options,
    ...(el.align.value !== 'none' ? { align: el.align.value } : {}),
    ...(el.group.value !== 'source' ? { group: el.group.value } : {}),
    ...(only ? { only } : {}),
    ...(Object.keys(offsets).length ? { offsets } : {}),
    ...(el.gzip.checked ? { gzip: true } : {}),
    ...(mb !== null && /^\d+$/.test(mb) ? { memoryMb: Number(mb) } : {}),
    ...(file === '1' || file === '0' ? { outputFile: file === '1' } : {}),
  };
}

/**
 * The options as the notebook passed them (show(start="2020-07-13 17:50:18.5", …)).
 * Puts them in the fields and the kind switches.
 * @param {Record<string, HTMLElement>} el the page's elements (dom.mjs)
 * @param {MergeOptions} o
 * @param {{ kinds: import('./table.mjs').KindSet, kindOn: Map<string, boolean> }} table kindOn is set for each kind
 * @returns {void}
 */
export function applyOptions(el, o, { kinds, kindOn }) {
  if (o.unit) el.unit.value = o.unit;
  if (o.start !== undefined && o.start !== null) el.start.value = String(o.start);
  if (o.end !== undefined && o.end !== null) el.end.value = String(o.end);
  if (o.group) el.group.value = o.group;
  if (o.align) el.align.value = o.align;
  el.gzip.checked = !!o.gzip;
  if (Array.isArray(o.only) && o.only.length) {
    for (const k of kinds.list) kindOn.set(k.key, o.only.includes(k.only) || o.only.includes(k.key));
  }
}

/**
 * The window fields' hints, placeholders and validity, and the line that says what will be
 * merged — all from readWindow()'s answer (window.mjs), that is, from the core.
 * @param {Record<string, HTMLElement>} el the page's elements (dom.mjs)
 * @param {ReturnType<typeof import('./window.mjs').readWindow>} w
 * @param {Report['job'] | null} job the scan's report.job, null before the scan
 * @returns {void}
 */
export function renderWindowFields(el, w, job) {
  const unit = el.unit.value;
  el.unitHint.textContent = unit === 'step'
    ? 'From the first event of the start step to just before the end step (the end step is excluded, as in smdebug).'
    : 'Unix µs or a UTC date-time; an event is kept when it overlaps the window.';
  el.start.placeholder = unit === 'step' ? 'first step' : 'job start';
  el.end.placeholder = unit === 'step' ? 'last step' : 'job end';
  for (const which of ['start', 'end']) {
    const hint = w.hints[which];
    el[`${which}Hint`].textContent = hint.text;
    el[`${which}Hint`].classList.toggle('bad', !!hint.bad);
    el[which].setAttribute('aria-invalid', String(!!hint.bad));
  }
  const line = el.windowBefore;
  line.classList.toggle('bad', w.problems.length > 0);
  line.classList.toggle('warn', !!w.preview?.empty);
  if (w.problems.length) line.textContent = w.problems.map((p) => p.text).join(' ');
  else if (w.pending) line.textContent = 'Window to merge: resolved from the steps once the job is scanned (or by the merge).';
  else if (w.preview?.empty) line.textContent = `Window to merge: empty — ${describeWindow(w.preview, job)}: the end step is the start step.`;
  else line.textContent = `Window to merge: ${describeWindow(w.preview, job)}`;
}
