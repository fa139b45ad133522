// One progress bar per merge that only moves forward, over reading, parsing, planning and
// writing. The worker reports stages that take turns per file (read a file, parse it, read
// the next; the second worker's files arrive whole, parsed), so a bar per stage would jump
// back and forth. Here every input byte counts twice — once read, once parsed —, each of
// the plan's stages (clocks, the clock check, the window, tracks, order) once, and every
// event once written:
//   value = (read + parsed) / (2 × input bytes) × 0.6 + planned × 0.1 + written / events × 0.3
// and a value below the last one shown is never shown. The time left comes from the time
// taken so far for the part done.
//   const bar = createProgress(el.progress, el.progressText, files);  // files: [{ name, data }]
//   onProgress: (p) => bar.update(p)
import { bytes, count, duration } from './format.mjs';

const IN_SHARE = 0.6;
const PLAN_SHARE = 0.1;

/**
 * The progress bar of one merge (see the top of this file): update(p) with each of the
 * merge's reports, finish() when it is done.
 * @param {HTMLProgressElement} bar its value goes from 0 to 1, never back
 * @param {HTMLElement} textEl says the stage and the time left
 * @param {{ name: string, data?: { size?: number, byteLength?: number } }[]} files the merge's files (their sizes)
 * @returns {{ update(p: Progress): void, finish(): void, readonly value: number, readonly raw: number }}
 *   value: shown; raw: the last value computed, before the never-back rule
 */
export function createProgress(bar, textEl, files) {
  const size = new Map(files.map((f) => [f.name, f.data?.size ?? f.data?.byteLength ?? 0]));
  const started = performance.now();
  let shown = 0;
  let raw = 0;          // the last value computed, before the bar's never-back rule
  let left = null;      // smoothed estimate of the µs left
  const seen = new Map();  // file → { read: bytes, parse: 0…1, parsing }: each only grows
  let lastDone = 0;        // input bytes read, at the last report
  let sum = 0;             // Σ read + parse × size over the files seen

  // Bytes read and parsed, of 2 × the input. A file's bytes count once as they are read
  // (the bytes a report adds are its file's) and once more as it is parsed; a file read
  // again after its parse was taken in; one whose bytes all came at once was parsed by the
  // second worker (or is small). Reports come at most ten a second (protocol.mjs), so some
  // are left out: what a report adds beyond its file's size is other files' — taken in by
  // then (a source is taken in before the next is read), so read and parsed; and a file
  // being parsed here is parsed once a report names another (a parse runs to its end).
  // What a file has counted never shrinks, so neither does the sum.
  let parsing = null;  // the file being parsed here: { f, own }
  function inputDone(p) {
    const name = p.file ?? '';
    const own = size.get(name) ?? 0;
    const f = seen.get(name) ?? { read: 0, parse: 0, parsing: false };
    seen.set(name, f);
    if (parsing && parsing.f !== f) {
      sum += (1 - parsing.f.parse) * parsing.own;
      parsing.f.parse = 1;
      parsing = null;
    }
    const before = f.read + f.parse * own;
    const added = Math.max((p.bytesDone ?? lastDone) - lastDone, 0);
    lastDone = p.bytesDone ?? lastDone;
    const mine = own > 0 ? Math.min(added, own - f.read) : added;
    f.read += mine;
    if (p.stage === 'parse' && p.fileBytesTotal > 0) {
      f.parsing = true;
      f.parse = Math.max(f.parse, Math.min(p.fileBytesDone / p.fileBytesTotal, 1));
      parsing = { f, own };
    } else if (f.parsing || (own > 0 && added >= own)) {
      f.parse = 1;
    }
    sum += f.read + f.parse * own - before + 2 * (added - mine);
    return sum;
  }

  function update(p) {
    const total = p.bytesTotal || 0;
    let value;
    let text;
    if (p.stage === 'write') {
      const f = p.eventsTotal > 0 ? Math.min(p.eventsDone / p.eventsTotal, 1) : 1;
      value = IN_SHARE + PLAN_SHARE + (1 - IN_SHARE - PLAN_SHARE) * f;
      text = `Writing: ${count(p.eventsDone ?? 0)} of ${count(p.eventsTotal ?? 0)} events`;
    } else if (p.stage === 'plan') {
      const f = p.stepsTotal > 0 ? Math.min(p.stepsDone / p.stepsTotal, 1) : 1;
      value = IN_SHARE + PLAN_SHARE * f;
      text = 'Planning: clocks, the clock check, the window, tracks and lanes, the order';
    } else {
      value = total > 0 ? IN_SHARE * Math.min(inputDone(p) / (2 * total), 1) : 0;
      const rate = p.mbPerSec;
      text = `Reading and parsing: ${bytes(p.bytesDone ?? 0)} of ${bytes(total)}` +
        (Number.isFinite(rate) && rate > 0 ? ` · ${rate.toFixed(rate < 10 ? 1 : 0)} MB/s` : '');
    }
    raw = value;
    if (value > shown) shown = value;
    bar.value = shown;
    textEl.textContent = `${text}${timeLeft()}`;
  }

  function timeLeft() {
    const elapsed = (performance.now() - started) * 1000;  // µs
    if (shown < 0.03 || elapsed < 5e5) return '';
    const estimate = (elapsed * (1 - shown)) / shown;
    left = left === null ? estimate : 0.7 * left + 0.3 * estimate;  // calmer than each report
    return left < 1e6 ? ' · under a second left' : ` · about ${duration(Math.round(left / 1e6) * 1e6)} left`;
  }

  return {
    update,
    // The merge is over: the bar is full (a cancelled or failed merge hides it instead).
    finish() {
      shown = 1;
      bar.value = 1;
    },
    get value() { return shown; },
    get raw() { return raw; },
  };
}
