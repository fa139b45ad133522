// The window controls (unit, start, end): what the user typed → merge options, a hint under
// each field and the window as the merge will resolve it. Every rule (whole µs or a UTC
// date-time, step numbers, the reference's step rule, an unknown step) is the core's:
// rules.preview() (rules.mjs) resolves the texts exactly as the merge will; this module
// only words the answer.
//   readWindow(rules, 'step', '2', '4', job) → { options: { unit: 'step', start: '2', end: '4' },
//     preview: { bounded: true, start_us: 1594662617507447, end_us: 1594662617676640, … },
//     problems: [], hints: { start: { text: 'Step 2 starts …' }, end: { … } }, pending: false }
import { duration, moment, ranges } from './format.mjs';

function stepNumbers(job) {
  return (job?.steps ?? []).map(([step]) => Number(step)).sort((a, b) => a - b);
}

/**
 * The job's step numbers as ranges: stepList({ steps: [[0, …], [1, …], [2, …], [5, …]] }) → "0–2, 5".
 * @param {Report['job'] | null} job
 * @returns {string} '' when it has no steps
 */
export function stepList(job) {
  return ranges(stepNumbers(job));
}

/**
 * The window of one step: from it to just before the next step of the job (open when it is
 * the last one). { unit: 'step', start: '3', end: '4' | '' }
 * @param {number | string} step
 * @param {Report['job'] | null} job
 * @returns {{ unit: 'step', start: string, end: string }}
 */
export function stepWindow(step, job) {
  const next = stepNumbers(job).find((s) => s > Number(step));
  return { unit: 'step', start: String(step), end: next === undefined ? '' : String(next) };
}

const inJob = (us, job) => job?.start_us === undefined || (us >= job.start_us && us <= job.end_us);

/**
 * The window fields read (see the top of this file): the options they give, the window as the
 * merge will resolve it (preview, null when there is a problem or it is pending), the problems,
 * and a hint under each field.
 * job: the scan's report.job, or null while the job is not scanned yet (then step numbers
 * cannot be resolved: pending).
 * @param {{ preview: (window: { unit?: string, start?: string, end?: string }, steps: [number, number][]) => object }} rules
 *   the page's rules (loadRules(), rules.mjs)
 * @param {'time' | 'step'} unit
 * @param {string} startText the start field, as typed
 * @param {string} endText the end field, as typed
 * @param {Report['job'] | null} job
 * @returns {{ options: { unit?: 'step', start?: string, end?: string }, preview: object | null,
 *   problems: { field: 'start' | 'end', text: string }[], hints: Record<'start' | 'end', { text: string, bad?: boolean }>,
 *   pending: boolean }} preview: previewWindow()'s answer
 */
export function readWindow(rules, unit, startText, endText, job) {
  const step = unit === 'step';
  const texts = { start: String(startText ?? '').trim(), end: String(endText ?? '').trim() };
  const options = {};
  if (step) options.unit = 'step';
  if (texts.start) options.start = texts.start;
  if (texts.end) options.end = texts.end;
  const steps = job?.steps ?? [];
  const pending = step && !job && !!(texts.start || texts.end);
  const problems = [];
  const hints = {};
  // Each bound alone first, so that a problem is shown under the field that has it.
  for (const which of ['start', 'end']) {
    const text = texts[which];
    if (!text) {
      hints[which] = { text: emptyHint(unit, which, job) };
      continue;
    }
    const alone = rules.preview({ unit, [which]: text }, steps);
    const problem = alone.error ?? (pending ? null : alone.fatal?.message ?? null);
    if (problem) {
      problems.push({ field: which, text: problem });
      hints[which] = { text: problem, bad: true };
    } else if (pending) {
      hints[which] = { text: 'Steps are known once the job is scanned.' };
    } else {
      hints[which] = valueHint(unit, which, alone, job);
    }
  }
  let preview = null;
  if (!problems.length && !pending) {
    preview = rules.preview({ unit, start: texts.start, end: texts.end }, steps);
    const problem = preview.error ?? preview.fatal?.message;
    if (problem) {
      problems.push({ field: 'end', text: problem });
      hints.end = { text: problem, bad: true };
      preview = null;
    }
  }
  return { options, preview, problems, hints, pending };
}

function emptyHint(unit, which, job) {
  if (unit === 'step') return which === 'start' ? 'Empty: from the first event.' : 'Empty: to the last event.';
  const us = which === 'start' ? job?.start_us : job?.end_us;
  const open = which === 'start' ? 'job start' : 'job end';
  return us !== undefined ? `Empty: ${open}, ${moment(us, job)}` : `Empty: ${open}.`;
}

function valueHint(unit, which, p, job) {
  const us = which === 'start' ? p.start_us : p.end_us;
  if (unit === 'step') {
    return which === 'start'
      ? { text: `Step ${p.start_step} starts ${moment(us, job)}` }
      : { text: `Up to ${moment(us, job)}, just before step ${p.end_step} (excluded, as in smdebug)` };
  }
  return { text: moment(us, job) + (inJob(us, job) ? '' : ' — outside the job') };
}

const endpoint = (us, open, job) => {
  if (us !== undefined && us !== null) return { us: String(us), utc: moment(us, job) };
  const j = open === 'start' ? job?.start_us : job?.end_us;
  return { us: open, utc: j !== undefined ? moment(j, job) : '' };
};

/**
 * "1594662617507447 .. 1594662617676640 µs · 2020-07-13 17:50:17.507447 UTC → … · 169.2 ms"
 * for a preview or a report's window ({ start_us?, end_us? }).
 * @param {{ start_us?: number, end_us?: number } | null} w
 * @param {Report['job'] | null} job
 * @returns {string} "everything…" when the window is open at both ends
 */
export function describeWindow(w, job) {
  const start = w?.start_us ?? null;
  const end = w?.end_us ?? null;
  if (start === null && end === null) {
    if (!job) return 'everything';
    if (job.start_us === undefined) return 'everything (no event with a time was found)';
    return `everything: ${moment(job.start_us, job)} → ${moment(job.end_us, job)} (${duration(job.end_us - job.start_us)})`;
  }
  const a = endpoint(start, 'start', job);
  const b = endpoint(end, 'end', job);
  if (start === null) return `from the job's start${a.utc ? ` (${a.utc})` : ''} to ${b.utc} · to ${b.us} µs`;
  if (end === null) return `from ${a.utc} to the job's end${b.utc ? ` (${b.utc})` : ''} · from ${a.us} µs`;
  return `${a.us} .. ${b.us} µs · ${a.utc} → ${b.utc} · ${end < start ? 'empty' : duration(end - start + 1)}`;
}

/**
 * The window the merge reported (report.window), in the same words (and its steps, if it was given in steps).
 * @param {Report['window'] | null} window
 * @param {Report['job'] | null} job
 * @returns {string}
 */
export function describeMerged(window, job) {
  const text = describeWindow(window, job);
  return window?.start_step !== undefined || window?.end_step !== undefined
    ? `${text} (${window.start_step !== undefined ? `step ${window.start_step}` : 'the first step'}` +
      `${window.end_step !== undefined ? ` up to step ${window.end_step}, not included` : ' to the last'})` : text;
}
