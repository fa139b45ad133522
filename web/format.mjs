// Formatting helpers of the page: sizes, counts, durations, Unix µs → UTC text. What a
// user types is read by the core (rules.mjs), never here.
//   utcFromMicros(1594662618874598) → "2020-07-13 17:50:18.874598 UTC"

const nf = new Intl.NumberFormat('en-US');

/**
 * A count with thousands separators: count(1024) → "1,024".
 * @param {number} n
 * @returns {string}
 */
export const count = (n) => nf.format(n);

/**
 * A size in bytes as people read it (powers of 1000, three digits): bytes(1536) → "1.54 kB"; '' if not a number.
 * @param {number} n
 * @returns {string}
 */
export function bytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} ${units[i]}`;
}

/**
 * Unix µs (number or decimal string) → "YYYY-MM-DD hh:mm:ss.uuuuuu UTC"; '' if not a time.
 * Numbers below 2^53 are exact in JS, and Unix µs stay below that until the year 2255.
 * @param {number | string} us
 * @returns {string}
 */
export function utcFromMicros(us) {
  const n = Math.floor(Number(us));
  if (!Number.isFinite(n)) return '';
  const ms = Math.floor(n / 1000);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  const micros = String(n - ms * 1000).padStart(3, '0');
  return d.toISOString().replace('T', ' ').replace('Z', `${micros} UTC`);
}

/**
 * A moment of the job (Unix µs) as people read it: its date and time, or — when no file of
 * the job has a clock (report.job.clock false: every time is relative) — how long after
 * the job's first event.
 *   moment(1594662618874598, { clock: true }) → "2020-07-13 17:50:18.874598 UTC"
 *   moment(1500, { clock: false, start_us: 1000 }) → "500 µs after the first event"
 * @param {number | string} us
 * @param {{ clock?: boolean, start_us?: number } | null} [job] report.job
 * @returns {string}
 */
export function moment(us, job) {
  if (job?.clock === false) {
    const d = Number(us) - Number(job.start_us ?? 0);
    return d ? `${duration(d)} after the first event` : 'the first event';
  }
  return utcFromMicros(us);
}

/**
 * A duration in µs as "850 µs", "1.23 s", "45.6 ms", "9 min 59 s", "3 d 4 h". Each unit is
 * chosen after rounding, so that a rounded value carries into the next unit: 599.99 s is
 * "10 min 0 s", not "9 min 60 s"; 59.996 s is "1 min 0 s", not "60.00 s".
 * @param {number | string} us
 * @returns {string} '' if not a number
 */
export function duration(us) {
  const n = Number(us);
  if (!Number.isFinite(n)) return '';
  const sign = n < 0 ? '-' : '';
  const a = Math.abs(n);
  // Three digits: "9.99 ms", "10.0 ms", "512 ms" (9.996 → "10.0", not "10.00").
  const fixed = (v) => (Number(v.toFixed(2)) < 10 ? v.toFixed(2) : Number(v.toFixed(1)) < 100 ? v.toFixed(1) : v.toFixed(0));
  if (Math.round(a) < 1000) return `${sign}${Math.round(a)} µs`;
  if (Number(fixed(a / 1e3)) < 1000) return `${sign}${fixed(a / 1e3)} ms`;
  if (Number(fixed(a / 1e6)) < 60) return `${sign}${fixed(a / 1e6)} s`;
  const s = Math.round(a / 1e6);
  if (s < 3600) return `${sign}${Math.floor(s / 60)} min ${s % 60} s`;
  const m = Math.round(a / 60e6);
  if (m < 1440) return `${sign}${Math.floor(m / 60)} h ${m % 60} min`;
  const h = Math.round(a / 3600e6);
  return `${sign}${Math.floor(h / 24)} d ${h % 24} h`;
}

/**
 * "1 source", "3 sources", "1,024 files": a count and its noun, plural when it is not 1.
 * @param {number} n
 * @param {string} noun the singular
 * @param {string} [many] the plural (default: noun + "s")
 * @returns {string}
 */
export function plural(n, noun, many = `${noun}s`) {
  return `${count(n)} ${n === 1 ? noun : many}`;
}

/**
 * "0-29", "0-3, 5, 7-9" for a sorted list of integers.
 * @param {number[]} list
 * @returns {string}
 */
export function ranges(list) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    let j = i;
    while (j + 1 < list.length && list[j + 1] === list[j] + 1) j++;
    out.push(i === j ? `${list[i]}` : `${list[i]}–${list[j]}`);
    i = j;
  }
  return out.join(', ');
}
