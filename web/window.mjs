// The window controls (unit, start, end): what the user typed → merge options, a hint under
// each field (the UTC date-time of a µs value, the start of a step), and the µs window
// resolved before merging with the reference's step rule:
//   start = first event of the start step; end = 1 µs before the first event of the end step.
//   readWindow('step', '2', '4', job) → { options: { unit: 'step', start: '2', end: '4' },
//     resolved: { start_us: 1594662617507447, end_us: 1594662617676640 }, problems: [] }
import { duration, parseMicros, parseStep, ranges, utcFromMicros } from './format.mjs';

const TIME_FORMAT = 'whole Unix µs or a UTC date-time such as 2020-07-13 17:50:18.5';

function stepMap(job) {
  return new Map((job?.steps ?? []).map(([step, ts]) => [Number(step), Number(ts)]));
}

export function stepList(job) {
  return ranges([...stepMap(job).keys()].sort((a, b) => a - b));
}

export function readWindow(unit, startText, endText, job) {
  const step = unit === 'step';
  const start = (step ? parseStep : parseMicros)(startText);
  const end = (step ? parseStep : parseMicros)(endText);
  const problems = [];
  const expect = step ? 'a step number (0, 1, 2, …)' : TIME_FORMAT;
  if (start === null) problems.push({ field: 'start', text: `Start is not ${expect}.` });
  if (end === null) problems.push({ field: 'end', text: `End is not ${expect}.` });

  const options = {};
  if (step) options.unit = 'step';
  if (start) options.start = start;
  if (end) options.end = end;

  const resolved = { start_us: null, end_us: null, pending: false };
  if (!problems.length) {
    if (!step) {
      resolved.start_us = start === '' ? null : Number(start);
      resolved.end_us = end === '' ? null : Number(end);
    } else if (!job) {
      resolved.pending = (start !== '' || end !== '');
    } else {
      const steps = stepMap(job);
      const missing = (s) => `Step ${s} is not in this job; ${steps.size ? `its steps are ${stepList(job)}` : 'it has no steps (no pythontimeline step_num, no ProfilerStep#N)'}.`;
      if (start !== '') {
        if (steps.has(Number(start))) resolved.start_us = steps.get(Number(start));
        else problems.push({ field: 'start', text: missing(start) });
      }
      if (end !== '') {
        if (steps.has(Number(end))) resolved.end_us = steps.get(Number(end)) - 1;
        else problems.push({ field: 'end', text: missing(end) });
      }
    }
    if (resolved.start_us !== null && resolved.end_us !== null && resolved.end_us < resolved.start_us) {
      problems.push({ field: 'end', text: 'The end is before the start: the window would be empty.' });
    }
  }
  return { options, start, end, resolved, problems };
}

// The hint under one field.
export function fieldHint(unit, value, job, which) {
  if (value === null) return { text: unit === 'step' ? 'Type a step number.' : `Type ${TIME_FORMAT}.`, bad: true };
  const open = which === 'start' ? 'job start' : 'job end';
  if (value === '') {
    if (unit === 'step') return { text: which === 'start' ? 'Empty: from the first event.' : 'Empty: to the last event.' };
    const us = which === 'start' ? job?.start_us : job?.end_us;
    return { text: us !== undefined ? `Empty: ${open}, ${utcFromMicros(us)}` : `Empty: ${open}.` };
  }
  if (unit === 'step') {
    const steps = stepMap(job);
    if (!job) return { text: 'Steps are known once the job is scanned.' };
    if (!steps.has(Number(value))) return { text: `Not a step of this job (${stepList(job) || 'none'}).`, bad: true };
    return { text: `Step ${value} starts ${utcFromMicros(steps.get(Number(value)))}` };
  }
  return { text: utcFromMicros(value) + (job && (Number(value) < job.start_us || Number(value) > job.end_us) ? ' — outside the job' : '') };
}

const endpoint = (us, open, job) => {
  if (us !== null) return { us: String(us), utc: utcFromMicros(us) };
  const j = open === 'start' ? job?.start_us : job?.end_us;
  return { us: open, utc: j !== undefined ? utcFromMicros(j) : '' };
};

// "1594662617507447 .. 1594662617676640 µs · 2020-07-13 17:50:17.507447 UTC → … · 169.2 ms"
export function describeWindow({ start_us, end_us }, job) {
  if (start_us === null && end_us === null) {
    if (!job) return 'everything';
    return `everything: ${utcFromMicros(job.start_us)} → ${utcFromMicros(job.end_us)} (${duration(job.end_us - job.start_us)})`;
  }
  const a = endpoint(start_us, 'start', job);
  const b = endpoint(end_us, 'end', job);
  const span = start_us !== null && end_us !== null ? ` · ${duration(end_us - start_us + 1)}` : '';
  return `${a.us} .. ${b.us} µs · ${a.utc || a.us} → ${b.utc || b.us}${span}`;
}

// The window the merge reported (report.window), in the same words.
export function describeMerged(window, job) {
  if (!window || (window.start_us === undefined && window.end_us === undefined)) return describeWindow({ start_us: null, end_us: null }, job);
  const text = describeWindow({ start_us: window.start_us ?? null, end_us: window.end_us ?? null }, job);
  return window.start_step !== undefined || window.end_step !== undefined
    ? `${text} (steps ${window.start_step ?? 'first'} .. ${window.end_step ?? 'last'}, end step excluded)` : text;
}
