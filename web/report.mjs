// Shows what a merge did: numbers, the merged window, warnings and errors (each with its
// file and byte offset), and the CLI-style summary text.
import { bytes, count, duration, plural } from './format.mjs';
import { h } from './table.mjs';
import { describeMerged } from './window.mjs';

// codes: the core's table (rules.codes: code → { severity, offset }). A report's warnings
// carry their severity and at_byte themselves; an error thrown in JS may not.
const severity = (w, codes) => w.severity ?? codes?.get(w.code)?.severity ?? 'error';
function atByte(w, codes) {
  if (w.at_byte !== undefined) return w.at_byte;
  const offset = codes?.get(w.code)?.offset;
  return offset === 'byte' || (offset === 'byte_when_set' && w.offset > 0);
}

/**
 * "job/cut.json at byte 46" (or '' when the problem is not about one file).
 * @param {{ code?: ErrorCode, file?: string, offset?: number, at_byte?: boolean }} w a warning (Diagnostic) or an error
 * @param {Map<ErrorCode, { code: ErrorCode, severity: 'error' | 'warning' | 'note', offset: string }>} [codes] rules.codes
 * @returns {string}
 */
export function where(w, codes) {
  if (!w.file) return '';
  return atByte(w, codes) ? `${w.file} at byte ${count(w.offset ?? 0)}` : w.file;
}

/**
 * A one-line description of a thrown merge error: "TRUNCATED: … (job/cut.json at byte 46)".
 * @param {TraceMergeError | { code?: string, message: string, file?: string, offset?: number }} e
 * @param {Map<ErrorCode, { code: ErrorCode, severity: 'error' | 'warning' | 'note', offset: string }>} [codes] rules.codes
 * @returns {string}
 */
export function errorText(e, codes) {
  const place = where(e, codes);
  const code = e.code && !['CANCELLED', 'ABORT'].includes(e.code) ? `${e.code}: ` : '';
  return `${code}${e.message}${place ? ` (${place})` : ''}`;
}

/**
 * Warnings of one code, in the order they came: a file with 22 bad events is one line
 * ("22 × BAD_EVENT in job/a.json, first at byte 1,204: …"), and so are 14 files without a
 * clock ("14 × NO_CLOCK in 14 files: …", the files folded under it), not 14 lines.
 *   groupWarnings(list) → [{ ...first warning, count, files: [{ ...its first warning there, count }…] }…]
 * @param {Diagnostic[]} warnings
 * @returns {(Diagnostic & { count: number, files: (Diagnostic & { count: number })[] })[]}
 */
export function groupWarnings(warnings) {
  const groups = new Map();
  for (const w of warnings) {
    let g = groups.get(w.code);
    if (!g) groups.set(w.code, g = { ...w, count: 0, files: [] });
    g.count++;
    const f = g.files.find((x) => x.file === (w.file ?? ''));
    if (f) f.count++;
    else g.files.push({ ...w, file: w.file ?? '', count: 1 });
  }
  return [...groups.values()];
}

// One file's line: "job/a.json at byte 46: …", "in job/a.json, first at byte 10: …" (the
// count said before it, or, counted: "3 in job/a.json, …").
function fileLine(w, codes, counted = false) {
  const first = atByte(w, codes) ? `, first at byte ${count(w.offset ?? 0)}` : '';
  if (w.count > 1) {
    return [h('span', {}, counted ? `${count(w.count)} in ` : 'in ', h('span', { class: 'where' }, w.file || 'the job'), first), ': ', w.message];
  }
  const place = where(w, codes);
  return [place ? h('span', { class: 'where' }, place) : null, place ? ': ' : '', w.message];
}

function item(w, codes) {
  const cls = severity(w, codes) === 'error' ? 'error' : '';
  if (w.files.length > 1) {
    const list = h('ul', {}, ...w.files.map((f) => h('li', {}, ...fileLine(f, codes, true))));
    return h('li', { class: cls },
      h('span', { class: 'code' }, `${count(w.count)} × ${w.code}`),
      h('details', {}, h('summary', {}, `in ${count(w.files.length)} files: `, w.message), list));
  }
  return h('li', { class: cls },
    h('span', { class: 'code' }, w.count > 1 ? `${count(w.count)} × ${w.code}` : w.code),
    ...fileLine(w.files[0], codes));
}

/**
 * Renders the Problems card: the warnings and errors grouped by code (groupWarnings), the notes
 * folded apart, and a title that counts them.
 * warnings: report.warnings plus, for a failed merge, the error itself. el: dom.mjs's.
 * @param {Record<string, HTMLElement>} el
 * @param {Diagnostic[]} warnings
 * @param {Map<ErrorCode, { code: ErrorCode, severity: 'error' | 'warning' | 'note', offset: string }>} [codes] rules.codes
 * @returns {void}
 */
export function renderProblems(el, warnings, codes) {
  const els = { problems: el.problems, title: el.problemsTitle, warnings: el.warnings,
    skipped: el.skipped, skippedSummary: el.skippedSummary, skippedDetails: el.skippedDetails };
  const loud = groupWarnings(warnings.filter((w) => severity(w, codes) !== 'note'));
  const quiet = warnings.filter((w) => severity(w, codes) === 'note');
  els.warnings.replaceChildren(...loud.map((w) => item(w, codes)));
  els.skipped.replaceChildren(...groupWarnings(quiet).map((w) => item(w, codes)));
  const skipped = quiet.filter((w) => w.code === 'SKIPPED').length;
  els.skippedSummary.textContent = `${plural(quiet.length, 'note')}` +
    (skipped ? ` (${count(skipped)} about files skipped on purpose)` : '');
  els.skippedDetails.hidden = !quiet.length;
  const n = (list) => list.reduce((k, w) => k + w.count, 0);
  const errors = n(loud.filter((w) => severity(w, codes) === 'error'));
  const others = n(loud) - errors;
  els.title.textContent = loud.length
    ? `${errors ? `${plural(errors, 'error')}, ` : ''}${plural(others, 'warning')}`
    : 'No warnings';
  els.problems.hidden = !warnings.length;
}

const mbps = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/**
 * Renders a merge's numbers (events, sources, sizes, time, helpers) into a <dl>.
 * @param {HTMLElement} dl its children are replaced
 * @param {{ result: MergeResult, seconds: number, bytesIn: number }} merged bytesIn: the input's bytes
 * @returns {void}
 */
export function renderStats(dl, { result, seconds, bytesIn }) {
  const r = result.report;
  const used = r.sources.filter((s) => s.included && s.kind !== 'skipped' && s.kind !== 'tf_metadata');
  const read = used.reduce((n, s) => n + s.events, 0);
  const pairs = [
    ['Events written', count(result.eventsWritten)],
    ['Events read', count(read)],
    ['Sources merged', count(used.length)],
    ['Output', `${bytes(result.bytesWritten)}`],
    ['Input', bytes(bytesIn)],
    ['Time', `${duration(seconds * 1e6)}${bytesIn > 1e6 ? ` · ${mbps(bytesIn / 1e6 / seconds)} MB/s` : ''}`],
  ];
  if (result.helperSources) pairs.push(['Parsed in parallel', `${plural(result.helperSources, 'source')} by helper workers`]);
  for (const note of result.helperNotes ?? []) pairs.push(['Helper stopped', note]);
  dl.replaceChildren(...pairs.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))));
}

/**
 * What a merge did, under the Merge button: the merged window, the numbers, the warnings and
 * the CLI-style summary. merged: { result, seconds, bytesIn }.
 * @param {Record<string, HTMLElement>} el the page's elements (dom.mjs)
 * @param {{ result: MergeResult, seconds: number, bytesIn: number }} merged
 * @param {Report['job'] | null} job the scan's report.job
 * @param {Map<ErrorCode, { code: ErrorCode, severity: 'error' | 'warning' | 'note', offset: string }>} [codes] rules.codes
 * @returns {void}
 */
export function showMerged(el, merged, job, codes) {
  const { result } = merged;
  el.result.hidden = false;
  el.windowAfter.textContent = `Merged window: ${describeMerged(result.report.window, job)}`;
  renderStats(el.stats, merged);
  renderProblems(el, result.report.warnings, codes);
  el.summary.textContent = result.summary;
  el.summaryDetails.hidden = false;
}
