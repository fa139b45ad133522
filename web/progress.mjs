// One progress bar per merge that only moves forward, over reading, parsing and writing.
// The worker reports stages that take turns per file (read a file, parse it, read the next;
// a second worker's files arrive whole), so a bar per stage would jump back and forth. Here
// every input byte counts twice — once read, once parsed — and every event once written:
//   value = (read + parsed) / (2 × input bytes) × 2/3 + written / events × 1/3
// and a value below the last one shown is never shown. The time left comes from the time
// taken so far for the part done.
//   const bar = createProgress(el.progress, el.progressText, files);  // files: [{ name, data }]
//   onProgress: (p) => bar.update(p)
import { bytes, count, duration } from './format.mjs';

const IN_SHARE = 2 / 3;

export function createProgress(bar, textEl, files) {
  const size = new Map(files.map((f) => [f.name, f.data?.size ?? f.data?.byteLength ?? 0]));
  const started = performance.now();
  let shown = 0;
  let raw = 0;          // the last value computed, before the bar's never-back rule
  let left = null;      // smoothed estimate of the µs left
  let current = null;   // the file read or parsed here now: { name, base }
  let lastDone = 0;     // input bytes read, at the last report
  bar.value = 0;
  textEl.textContent = 'Starting…';

  // Bytes read and parsed, of 2 × the input: bytes read count once, the current file's
  // bytes once more as they are parsed; a file done (or parsed by the second worker)
  // counts twice.
  function inputDone(p) {
    if (!current || current.name !== p.file) current = { name: p.file, base: lastDone };
    lastDone = p.bytesDone ?? lastDone;
    const own = Math.min(Math.max(lastDone - current.base, 0), size.get(p.file) ?? 0);
    let unparsed = own;  // of the current file: read, not parsed yet
    if (p.stage === 'parse' && p.fileBytesTotal > 0) {
      current.parsing = true;
      unparsed = (size.get(p.file) ?? own) * (1 - Math.min(p.fileBytesDone / p.fileBytesTotal, 1));
    } else if (current.parsing) {
      unparsed = 0;  // read again after its parse: the merge took it in, it is done
    }
    return 2 * lastDone - unparsed;
  }

  function update(p) {
    const total = p.bytesTotal || 0;
    let value;
    let text;
    if (p.stage === 'write') {
      const f = p.eventsTotal > 0 ? Math.min(p.eventsDone / p.eventsTotal, 1) : 1;
      value = IN_SHARE + (1 - IN_SHARE) * f;
      text = `Writing: ${count(p.eventsDone ?? 0)} of ${count(p.eventsTotal ?? 0)} events`;
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
