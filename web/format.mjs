// Formatting and parsing helpers of the page: sizes, counts, Unix µs ↔ UTC text.
//   utcFromMicros(1594662618874598) → "2020-07-13 17:50:18.874598 UTC"
//   parseMicros("2020-07-13 17:50:18.874598") → "1594662618874598"

const nf = new Intl.NumberFormat('en-US');

export const count = (n) => nf.format(n);

export function bytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} ${units[i]}`;
}

// Unix µs (number or decimal string) → "YYYY-MM-DD hh:mm:ss.uuuuuu UTC"; '' if not a time.
// Numbers below 2^53 are exact in JS, and Unix µs stay below that until the year 2255.
export function utcFromMicros(us) {
  const n = Math.floor(Number(us));
  if (!Number.isFinite(n)) return '';
  const ms = Math.floor(n / 1000);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  const micros = String(n - ms * 1000).padStart(3, '0');
  return d.toISOString().replace('T', ' ').replace('Z', `${micros} UTC`);
}

// A duration in µs as "1.23 s", "45.6 ms", "3 d 4 h".
export function duration(us) {
  const n = Number(us);
  if (!Number.isFinite(n)) return '';
  const a = Math.abs(n);
  if (a < 1000) return `${n.toFixed(0)} µs`;
  if (a < 1e6) return `${(n / 1e3).toFixed(a < 1e4 ? 2 : 1)} ms`;
  if (a < 60e6) return `${(n / 1e6).toFixed(a < 1e7 ? 2 : 1)} s`;
  if (a < 3600e6) return `${Math.floor(n / 60e6)} min ${Math.round((n % 60e6) / 1e6)} s`;
  if (a < 86400e6) return `${Math.floor(n / 3600e6)} h ${Math.round((n % 3600e6) / 60e6)} min`;
  return `${Math.floor(n / 86400e6)} d ${Math.round((n % 86400e6) / 3600e6)} h`;
}

const INTEGER = /^-?\d+$/;
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?\s*(?:Z|UTC)?$/i;

// What the user typed in a time field → an integer string of Unix µs, '' (empty: no bound)
// or null (not understood). Accepts whole µs ("1594662618874598") or a UTC date-time
// ("2020-07-13 17:50:18.874598", "2020-07-13T17:50:18Z").
export function parseMicros(text) {
  const t = String(text ?? '').trim();
  if (t === '') return '';
  if (INTEGER.test(t)) return t;
  const m = DATE_TIME.exec(t);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = m;
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  if (Number.isNaN(ms)) return null;
  const micros = Number((frac + '000000').slice(0, 6));
  return String(ms * 1000 + micros);
}

// A step field → its integer string, '' or null.
export function parseStep(text) {
  const t = String(text ?? '').trim();
  if (t === '') return '';
  return /^\d+$/.test(t) ? t : null;
}

// "0-29", "0-3, 5, 7-9" for a sorted list of integers.
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
