// tracemerge — the merge core as an ES module (browser, worker or Node).
//
//   import { mergeFiles } from './tracemerge.mjs';
//   const { blob, report } = await mergeFiles(fileList, { start: 1594662618874598, end: 1594662623418701 });
//
// Files are streamed into the wasm heap chunk by chunk (never one giant string);
// output leaves as JS-owned Uint8Array chunks. Errors are objects
// { code, message, file, offset } — thrown as TraceMergeError.

import { TraceMergeError } from './errors.mjs';
import { createStore, feed, helperCanRead, joined, nextTurn, readAhead, sizeHint } from './io.mjs';
import { HELPER_MAX, HelperPool, helperCount, startHelper } from './scheduler.mjs';

/** The byte helpers of io.mjs the API shares: createStore, feed, joined and nextTurn (see io.mjs). */
export { createStore, feed, joined, nextTurn };

const isNode = typeof process === 'object' && !!process.versions?.node;

/** The error every failure here is thrown as: { code, message, file, offset } (errors.mjs). */
export { TraceMergeError };

let corePromise = null;

/**
 * Loads (once) the Emscripten module: later calls share it, until releaseCore() or a failed load.
 * `factory` overrides it, loading an instance of its own each call (tests use a small-heap build).
 * @param {Function} [factory] an Emscripten module factory
 * @returns {Promise<object>} the core
 */
export async function loadCore(factory) {
  if (!factory && corePromise) return corePromise;
  const load = async () => {
    if (isNode && !globalThis.__dirname) {
      // Emscripten 3.1.6's ES6 output still uses require/__dirname under Node.
      const { createRequire } = await import('node:module');
      globalThis.require ??= createRequire(import.meta.url);
      globalThis.__dirname = new URL('.', import.meta.url).pathname;
    }
    const create = factory ?? (await import('./tracemerge-core.mjs')).default;
    let aborted = null;
    let lastError = '';
    let outOfMemory = false;
    const core = await create({
      print: () => {},
      printErr: (text) => { lastError = String(text); },
      onAbort: (what) => { aborted = `${lastError} ${what ?? ''}`.trim(); },
      // Called by the core's allocation-failure handler (wasm/bindings.cc) just before it aborts.
      onOutOfMemory: () => { outOfMemory = true; },
    });
    core.abortReason = () => aborted ?? lastError;
    core.outOfMemory = () => outOfMemory;
    return core;
  };
  if (factory) return load();
  corePromise = load();
  corePromise.catch(() => { corePromise = null; });
  return corePromise;
}

/**
 * A wasm abort (out of memory, a bug) leaves the instance unusable: forget it. (A helper
 * forgets its own to let a grown heap go.)
 * @returns {void}
 */
function resetCore() { corePromise = null; }
/** releaseCore(): forgets the shared core (resetCore, above); the next loadCore() loads a new one. */
export { resetCore as releaseCore };

const tables = new WeakMap();  // core → its option table
/**
 * The CLI's options as the core defines them (core/args.h OptionSpec, `tracemerge --options`):
 *   optionTable(core) → [{ flag: '--unit', alias: '', key: 'unit', takes: 'value', needs: 'time or step',
 *     choices: ['time', 'step'] }, …]  (takes: 'nothing' | 'value' | 'each' | 'path=us'; key '' for the CLI's own)
 * @param {object} core a core from loadCore()
 * @returns {{ flag: string, alias: string, key: string, takes: string, needs: string, choices: string[] }[]}
 */
export function optionTable(core) {
  if (!tables.has(core)) tables.set(core, JSON.parse(core.optionTable()));
  return tables.get(core);
}

const camel = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
/**
 * An options object → the CLI's flags, by the core's option table: each key is an option's key in
 * camelCase (maxFileMb: --max-file-mb); a list for `only`, { path: µs } or [[path, µs]] for
 * `offsets`; undefined, null, '' and false give no flag. Other keys (the page's outputFile) are not
 * the core's and give none.
 *   optionsToArgs(core, { unit: 'step', start: 2, end: 4 }) → ['--start', '2', '--end', '4', '--unit', 'step']
 * @param {object} core a core from loadCore()
 * @param {MergeOptions} [o]
 * @returns {string[]}
 */
export function optionsToArgs(core, o = {}) {
  const args = [];
  for (const { flag, key, takes } of optionTable(core)) {
    const v = key ? o[camel(key)] : undefined;
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (takes === 'nothing') args.push(flag);
    else if (takes === 'each') for (const item of [].concat(v)) args.push(flag, String(item));
    else if (takes === 'path=us') for (const [path, us] of Array.isArray(v) ? v : Object.entries(v)) args.push(flag, `${path}=${us}`);
    else args.push(flag, String(v));
  }
  return args;
}

/**
 * A merger fed source by source. Call delete() when done (or let merge() do it).
 * onProgress(stage, done, total): 'parse' (bytes of the source that is ending), 'plan' (stages
 * between the last source parsed and the first byte written, done of total) and
 * 'write' (events); return false to cancel. helper: parse sources in helper
 * instances too (Workers; Node or a module-worker context: scheduler.mjs) —
 * true: one per core beyond this one, within a heap budget; a number: that
 * many; a URL: one of that module (tests). They read the data themselves —
 * { path } of a file (Node), a Blob or bytes; a source one fails on is parsed
 * here. Call `await settle()` before merge(). Options the core rejects are a USAGE error.
 * @param {MergeOptions | string[]} [options] the options, or the CLI's flags
 * @param {{ core?: object, onProgress?: (stage: 'parse' | 'plan' | 'write', done: number, total: number) => boolean | void,
 *   helper?: boolean | number | URL }} [opts] core: a core from loadCore() (default: the shared one)
 * @returns {Promise<Merger>}
 */
export async function createMerger(options = {}, { core, onProgress, helper: withHelper = false } = {}) {
  core ??= await loadCore();
  const args = Array.isArray(options) ? options : optionsToArgs(core, options);
  const progress = (stage, done, total) => (onProgress ? onProgress(stage, done, total) !== false : true);
  let m;
  try {
    m = new core.Merger(args, progress, createStore());
  } catch (e) {
    throw wrapAbort(core, e, 0);
  }
  const usage = m.error();
  if (usage) {
    m.delete();
    throw new TraceMergeError({ code: 'USAGE', message: usage });
  }
  let bytesRead = 0;
  let alive = true;
  const count = withHelper instanceof URL ? 1 : withHelper ? helperCount(withHelper === true ? undefined : withHelper) : 0;
  let heapPeak = 0;  // of this heap plus the helpers'
  // Heaps only grow: while helpers run, the sum is at most this heap now plus
  // each running helper's last; a helper stops once it has answered every
  // source it kept (after settle() took back the ones it had not started).
  const notePeak = () => { heapPeak = Math.max(heapPeak, core.HEAP8.length + pool.heap); };
  const pool = new HelperPool(await Promise.all(Array.from({ length: count },
    () => startHelper(withHelper instanceof URL ? withHelper : undefined))), { perHelper: 4, beforeStop: notePeak });
  let helped = 0;    // sources the helpers parsed
  let helperError = null;
  const fellBack = new Map();  // why a helper gave no source back → how many it owed
  const inflight = new Set();
  let hereTurn = Promise.resolve();  // sources parsed here in a helper's stead: one at a time
  // The source's bytes from a helper — or, when it failed (or never
  // started), or gave it back, parsed here the same way: nothing is lost.
  const viaHelper = async (replied, name, data, hint, inFolder) => {
    const reply = await replied;
    if (reply.bytes) return { bytes: reply.bytes, byHelper: true };
    if (reply.error && alive) fellBack.set(reply.error, (fellBack.get(reply.error) ?? 0) + 1);
    const turn = hereTurn.then(async () => {
      const local = new core.Merger(args, undefined, undefined);
      try {
        local.beginSource(name, hint, inFolder);
        await feed(local, data);
        local.endSource();
        return { bytes: joined(local.exportSource()), byHelper: false };
      } finally {
        local.delete();
      }
    });
    hereTurn = turn.catch(() => {});
    return turn;
  };
  const guard = (fn, file = '') => {  // file: the source being read or taken in, if any
    if (!alive) throw new TraceMergeError({ code: 'USAGE', message: 'this merger was already used or deleted' });
    try {
      return fn();
    } catch (e) {
      alive = false;
      throw wrapAbort(core, e, bytesRead, file);
    }
  };
  return {
    get bytesRead() { return bytesRead; },
    // Streams one source in; `name` is its relative path ("job/framework/…").
    // onBytes() is called after every chunk (1 MB), for progress. sizeHint:
    // the inflated size, when data is an iterator (else it is read from data).
    // inFolder: found in a folder rather than named by itself (an earlier
    // merge's output found so is skipped).
    async addSource(name, data, { signal, onBytes, sizeHint: hint = sizeHint(core, data), inFolder = false } = {}) {
      if (pool.running) await nextTurn();  // (a helper's reply may be waiting)
      hint = await hint;
      const replied = pool.running && hint <= HELPER_MAX && helperCanRead(data)
        ? pool.push({ args, name, data, sizeHint: hint, inFolder }) : null;
      if (replied) {
        const arrival = guard(() => m.reserveArrival());
        const done = viaHelper(replied, name, data, hint, inFolder).then(({ bytes, byHelper }) => {
          if (!alive) return;  // deleted (cancelled) meanwhile
          notePeak();
          guard(() => {
            if (!m.importSource(bytes, arrival)) throw new Error(`${name}: the helper's bytes were refused`);
          }, name);
          helped += byHelper;
          notePeak();
          bytesRead += data.size ?? data.byteLength ?? 0;
          onBytes?.();
        }).catch((e) => {
          helperError ??= e;  // settle() throws it
        }).finally(() => {
          inflight.delete(done);
        });
        inflight.add(done);
        return;
      }
      guard(() => m.beginSource(name, hint, inFolder), name);
      if (signal?.aborted) throw cancelled(bytesRead);
      const into = {  // the merger, each call guarded
        chunkSize: (n) => guard(() => m.chunkSize(n), name),
        chunkRoom: (n) => guard(() => m.chunkRoom(n), name),
        appendRoom: (n) => guard(() => m.appendRoom(n), name),
      };
      await feed(into, data, (n) => {
        bytesRead += n;
        onBytes?.();
        if (signal?.aborted) throw cancelled(bytesRead);
      });
      guard(() => m.endSource(), name);
    },
    // Shares out the sources no helper has started — they go on with the
    // ones they started, this thread takes back the newest, a helper at a
    // time in turn —, takes them all in, and stops the helpers (their memory
    // goes); later sources are parsed here.
    async settle() {
      guard(() => m.doneReading());  // the helpers' last sources come in where the input buffer was
      notePeak();
      await pool.settle(() => hereTurn);
      while (inflight.size) await Promise.all([...inflight]);
      notePeak();
      pool.stop();
      if (helperError) throw helperError;
    },
    // How many sources the helpers parsed (those they failed on are parsed here).
    get helped() { return helped; },
    // How many helpers this merger started.
    get helpers() { return count; },
    // Why helpers failed on sources, which were parsed here instead (nothing is lost):
    // ["a helper exited (code 1); its 3 sources were parsed by the merging instance instead", …].
    get helperNotes() {
      return [...fellBack].map(([why, n]) => `${why}; ${n === 1 ? 'its source was' : `its ${n} sources were`} parsed by the merging instance instead`);
    },
    // The most memory the wasm heaps held at once (this one's and the helpers').
    get heapPeak() { return Math.max(heapPeak, core.HEAP8.length); },
    // Runs the merge; returns { chunks, result } where result has fatal, summary, outputName, report.
    // onView(view) gets a view into the wasm heap, valid only during the call
    // (write it out synchronously): one copy of the output less than onChunk.
    merge({ onChunk, onView } = {}) {
      if (inflight.size) throw new TraceMergeError({ code: 'USAGE', message: 'await settle() before merge()' });
      const chunks = [];
      // The view points into the wasm heap, which may move: copy it at once.
      const copy = onView ?? ((view) => (onChunk ? onChunk(view.slice()) : chunks.push(view.slice())));
      const json = guard(() => m.merge(copy));
      const reportText = m.reportJson();  // (as the core writes it: a --report file)
      this.delete();
      return { chunks, result: JSON.parse(json), reportText };
    },
    delete() {
      try {
        if (alive) m.delete();
      } catch {
        // (an instance that aborted is gone with its heap)
      }
      alive = false;
      pool.stop();
    },
  };
}

function cancelled(bytesRead) {
  return new TraceMergeError({ code: 'CANCELLED', message: 'merge cancelled', bytesRead });
}

function wrapAbort(core, e, bytesRead, file = '') {
  if (e instanceof TraceMergeError) return e;
  const reason = core.abortReason?.() ?? String(e?.message ?? e);
  resetCore();
  // The core said so (an allocation failed), or JS could not allocate a buffer.
  const oom = core.outOfMemory?.() || e instanceof RangeError;
  return new TraceMergeError({
    code: oom ? 'OUT_OF_MEMORY' : 'ABORT',
    message: oom
      ? `${file ? `out of memory while taking in ${file}, ` : 'out of memory '}after reading ${bytesRead} bytes of input ` +
        '(the browser allows a 4 GB wasm heap; one file\'s parse needs about 2.6 times its inflated size)'
      : `the merge engine stopped: ${reason}`,
    bytesRead,
    file,
  });
}

/**
 * Names a File the way a dropped folder names it: its path in the folder, else its path or name.
 * @param {File} file
 * @returns {string}
 */
export function sourceName(file) {
  return file.webkitRelativePath || file.path || file.name;
}

/**
 * A merge in one call: files = File[] | { name, data, inFolder }[] (a File is in a folder when it has a
 * webkitRelativePath). Resolves { blob | chunks, report, result }; a fatal result, or a cancel through
 * signal, rejects with a TraceMergeError. With onChunk(Uint8Array), the output goes there as it is
 * written and is not kept. helper: as createMerger's.
 * @param {Iterable<FileLike>} files
 * @param {MergeOptions} [options]
 * @param {{ onProgress?: (p: Progress) => void, signal?: AbortSignal, core?: object, output?: 'blob' | 'chunks',
 *   onChunk?: (bytes: Uint8Array) => void, helper?: boolean | number | URL }} [opts]
 * @returns {Promise<{ blob?: Blob, chunks?: Uint8Array[], report: Report, result: MergeResult, eventsTotal: number }>}
 */
export async function mergeFiles(files, options = {}, { onProgress, signal, core, output = 'blob', onChunk, helper } = {}) {
  const list = [...files].map((f) => ('data' in f && 'name' in f && !(f instanceof Blob) ? f
    : { name: sourceName(f), data: f, inFolder: !!f.webkitRelativePath }));
  const bytesTotal = list.reduce((n, f) => n + (f.data.size ?? f.data.byteLength ?? 0), 0);
  let eventsTotal = 0;
  let current = '';
  const merger = await createMerger(options, {
    core,
    helper,
    onProgress: (stage, done, total) => {
      if (stage === 'write') eventsTotal = total;
      onProgress?.(stage === 'parse'
        ? { stage, file: current, fileBytesDone: done, fileBytesTotal: total, bytesDone: merger.bytesRead, bytesTotal }
        : stage === 'plan'  // the stages between the last source parsed and the first byte written
          ? { stage, stepsDone: done, stepsTotal: total, bytesDone: bytesTotal, bytesTotal }
          : { stage, eventsDone: done, eventsTotal: total, bytesDone: bytesTotal, bytesTotal });
      return !signal?.aborted;
    },
  });
  try {
    for await (const f of readAhead(list)) {
      current = f.name;
      const read = () => onProgress?.({ stage: 'read', bytesDone: merger.bytesRead, bytesTotal, file: f.name });
      await merger.addSource(f.name, f.data, { signal, onBytes: read, inFolder: !!f.inFolder });
      read();
      if (signal?.aborted) throw cancelled(merger.bytesRead);
    }
    await merger.settle();
    if (signal?.aborted) throw cancelled(merger.bytesRead);
    const helped = merger.helped;
    const { chunks, result } = merger.merge({ onChunk });
    result.helperSources = helped;
    result.helperNotes = merger.helperNotes;
    if (result.fatal) throw new TraceMergeError({ ...result.fatal, result });
    const type = options.gzip ? 'application/gzip' : 'application/json';
    return {
      report: result.report,
      result,
      eventsTotal,
      ...(output === 'chunks' || typeof Blob === 'undefined' ? { chunks } : { blob: new Blob(chunks, { type }) }),
    };
  } finally {
    merger.delete();
  }
}

/**
 * Describes a job without merging it: time span, steps, sources with their kinds, warnings.
 * @param {Iterable<FileLike>} files
 * @param {MergeOptions} [options]
 * @param {object} [opts] as mergeFiles' (output aside)
 * @returns {Promise<MergeResult>} its report has job (and overview)
 */
export async function scanFiles(files, options = {}, opts = {}) {
  const { result } = await mergeFiles(files, { ...options, scan: true }, { ...opts, output: 'chunks' });
  return result;
}

/**
 * What a file is (kind, node, or why it is skipped), from its first bytes only: those of a
 * Blob, or bytes (a file's first ones, up to 64 KB, as the page has read them).
 * @param {string} name its path
 * @param {Blob | Uint8Array} data
 * @param {{ core?: object }} [opts]
 * @returns {Promise<{ kind: Kind, node: string, reason: string, quiet: boolean }>}
 */
export async function classifyFile(name, data, { core } = {}) {
  core ??= await loadCore();
  const head = data instanceof Uint8Array ? data.subarray(0, 65536) : new Uint8Array(await data.slice(0, 65536).arrayBuffer());
  return JSON.parse(core.classify(name, head));
}

/**
 * The window as the merge will resolve it, for the job's steps. This and pathMatches, offsetUs and
 * kindTable are the page's rules, asked of the core so that the page and the CLI cannot disagree:
 *   previewWindow(core, { unit: 'step', start: '2', end: '4' }, report.job.steps)
 *     → { error: null, fatal: null, bounded: true, start_us: …, end_us: …, start_step: 2, end_step: 4 }
 *     (error: the option is not understood; fatal: e.g. UNKNOWN_STEP naming the steps there are)
 * @param {object} core a core from loadCore()
 * @param {{ unit?: 'time' | 'step', start?: string | number, end?: string | number }} [window]
 * @param {[number, number][]} [steps] the job's steps: [number, first µs] (report.job.steps)
 * @returns {{ error: string | null, fatal: { code: ErrorCode, message: string } | null, bounded?: boolean,
 *   start_us?: number, end_us?: number, start_step?: number, end_step?: number, empty?: boolean }}
 */
export function previewWindow(core, { unit, start, end } = {}, steps = []) {
  const flat = [];
  for (const [step, ts] of steps) flat.push(String(step), String(ts));
  return JSON.parse(core.windowPreview(optionsToArgs(core, { unit, start, end }), flat));
}

/**
 * Whether an --offset's PATH picks the source at `path` (exact path, folder prefix or file name):
 *   pathMatches(core, 'job/rank-1.json', 'rank-1.json') → true
 * @param {object} core a core from loadCore()
 * @param {string} path a source's path
 * @param {string} pattern the PATH of --offset PATH=US
 * @returns {boolean}
 */
export function pathMatches(core, path, pattern) {
  return core.pathMatches(path, pattern);
}

/**
 * An offset's µs as the core reads --offset PATH=US (whole µs, as text), or null:
 *   offsetUs(core, '-1500') → '-1500'; offsetUs(core, '1.5') → null
 * @param {object} core a core from loadCore()
 * @param {string} text
 * @returns {string | null}
 */
export function offsetUs(core, text) {
  return core.offsetUs(text);
}

/**
 * The kinds of file the suffix filter (MergeOptions.only) knows:
 *   kindTable(core) → [{ key: 'pythontimeline', only: 'pythontimeline.json', label: 'pythontimeline' }, …]
 * @param {object} core a core from loadCore()
 * @returns {{ key: string, only: string, label: string }[]}
 */
export function kindTable(core) {
  return JSON.parse(core.kindTable());
}

/**
 * The order a merge reads its files in (core/driver.h FileOrder): by name, byte for byte, ties
 * as given — the CLIs order a folder's files so, and the page the files it is given:
 *   fileOrder(core, ['job/b.json', 'job/a/x.json']) → [1, 0]
 * @param {object} core a core from loadCore()
 * @param {string[]} names
 * @returns {number[]} the indices of `names`, in that order
 */
export function fileOrder(core, names) {
  return JSON.parse(core.fileOrder(names));
}

/**
 * Every error code, its severity and what its offset means (core/status.h):
 *   codeTable(core) → [{ code: 'TRUNCATED', severity: 'warning', offset: 'byte' }, …]
 * @param {object} core a core from loadCore()
 * @returns {{ code: ErrorCode, severity: 'error' | 'warning' | 'note', offset: 'byte' | 'byte_when_set' | 'nothing' }[]}
 */
export function codeTable(core) {
  return JSON.parse(core.codeTable());
}

/**
 * The CLI's flags as the core reads them: { error (a usage error, else null), help, version, quiet, output,
 * report, gzip, scan, threads, paths, usage, … }.
 * @param {string[]} argv the arguments after the program's name ([merge] [options] PATH...)
 * @returns {Promise<Record<string, unknown>>}
 */
export async function parseArgs(argv) {
  const core = await loadCore();
  return JSON.parse(core.parseArgs(argv));
}
