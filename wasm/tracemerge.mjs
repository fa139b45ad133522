// tracemerge — the merge core as an ES module (browser, worker or Node).
//
//   import { mergeFiles } from './tracemerge.mjs';
//   const { blob, report } = await mergeFiles(fileList, { start: 1594662618874598, end: 1594662623418701 });
//
// Files are streamed into the wasm heap chunk by chunk (never one giant string);
// output leaves as JS-owned Uint8Array chunks. Errors are objects
// { code, message, file, offset } — thrown as TraceMergeError.

const isNode = typeof process === 'object' && !!process.versions?.node;

export class TraceMergeError extends Error {
  constructor({ code, message, file = '', offset = 0, ...extra }) {
    super(message);
    this.name = 'TraceMergeError';
    Object.assign(this, { code, file, offset }, extra);
  }
}

let corePromise = null;

// Loads (once) the Emscripten module. `factory` overrides it (tests use a small-heap build).
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

// A wasm abort (out of memory, a bug) leaves the instance unusable: forget it.
function resetCore() { corePromise = null; }

// { start, end, unit, only, group, offsets, align, gzip, maxFileMb, maxStringMb, scan, memoryMb } → the CLI's flags.
export function optionsToArgs(o = {}) {
  const args = [];
  if (o.start !== undefined && o.start !== null && o.start !== '') args.push('--start', String(o.start));
  if (o.end !== undefined && o.end !== null && o.end !== '') args.push('--end', String(o.end));
  if (o.unit) args.push('--unit', o.unit);
  if (o.group) args.push('--group', o.group);
  for (const kind of o.only ?? []) args.push('--only', kind);
  const offsets = Array.isArray(o.offsets) ? o.offsets : Object.entries(o.offsets ?? {});
  for (const [path, us] of offsets) args.push('--offset', `${path}=${us}`);
  if (o.align && o.align !== 'none') args.push('--align', o.align);
  if (o.gzip) args.push('--gzip');
  if (o.maxFileMb) args.push('--max-file-mb', String(o.maxFileMb));
  if (o.maxStringMb) args.push('--max-string-mb', String(o.maxStringMb));
  if (o.scan) args.push('--scan');
  if (o.memoryMb !== undefined && o.memoryMb !== null) args.push('--memory-mb', String(o.memoryMb));
  return args;
}

const CHUNK = 1 << 20;

// The expected inflated size, so the wasm side allocates once (gzip keeps it in its last 4 bytes).
async function sizeHint(core, data) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  if (bytes instanceof Uint8Array) {
    return bytes.length >= 6 ? core.gzipSizeHint(bytes.subarray(0, 2), bytes.subarray(-4), bytes.length) : bytes.length;
  }
  if (data && typeof data.slice === 'function' && typeof data.size === 'number') {
    if (data.size < 6) return data.size;
    const [head, tail] = await Promise.all([data.slice(0, 2).arrayBuffer(), data.slice(-4).arrayBuffer()]);
    return core.gzipSizeHint(new Uint8Array(head), new Uint8Array(tail), data.size);
  }
  return 0;  // an iterator: unknown
}

// Yields Uint8Array chunks of a File/Blob, Uint8Array or ArrayBuffer, or
// those of an iterator (feed() reads a Node { path } itself).
async function* chunksOf(data) {
  if (data instanceof Uint8Array) {
    for (let i = 0; i < data.length; i += CHUNK) yield data.subarray(i, i + CHUNK);
  } else if (data instanceof ArrayBuffer) {
    yield* chunksOf(new Uint8Array(data));
  } else if (data && typeof data.slice === 'function' && typeof data.size === 'number') {
    for (let i = 0; i < data.size; i += CHUNK) yield new Uint8Array(await data.slice(i, i + CHUNK).arrayBuffer());
  } else if (data && (data[Symbol.asyncIterator] || data[Symbol.iterator])) {
    yield* data;  // an iterator of Uint8Array chunks (each is copied before the next is read)
  } else {
    throw new TraceMergeError({ code: 'USAGE', message: 'file data must be a Blob, File, Uint8Array, ArrayBuffer or chunk iterator' });
  }
}

// Where the core puts event templates beyond its heap budget (--memory-mb,
// default 512): ArrayBuffers outside the wasm heap, so that jobs larger than
// the 4 GB heap merge (the page's worker and Node alike; Blobs would depend on
// the browser's Blob storage, which is small in private windows).
// put/get never throw: a failure is false/null, which the core reports.
export function createStore() {
  const keys = [];  // key → { at: [piece start…], pieces: [Uint8Array…], size }
  return {
    put(key, view) {
      try {
        const k = (keys[key] ??= { at: [], pieces: [], size: 0 });
        k.at.push(k.size);
        k.pieces.push(view.slice());
        k.size += view.length;
        return true;
      } catch {
        return false;
      }
    },
    get(key, offset, length) {
      try {
        const k = keys[key];
        if (!k || offset + length > k.size) return null;
        let lo = 0;  // the last piece starting at or before offset
        for (let hi = k.at.length - 1; lo < hi;) {
          const mid = (lo + hi + 1) >> 1;
          if (k.at[mid] <= offset) lo = mid;
          else hi = mid - 1;
        }
        const out = new Uint8Array(length);
        for (let done = 0, i = lo; done < length; i++) {
          const from = offset + done - k.at[i];
          const bytes = k.pieces[i].subarray(from, from + length - done);
          out.set(bytes, done);
          done += bytes.length;
        }
        return out;
      } catch {
        return null;
      }
    },
  };
}

// A second wasm instance in a Worker (tracemerge-helper.mjs) that parses
// whole sources while this one parses others: the parse on two cores.
async function startHelper(url = new URL('./tracemerge-helper.mjs', import.meta.url)) {
  const worker = isNode
    ? new (await import('node:worker_threads')).Worker(url)
    : new Worker(url, { type: 'module' });
  const waiting = new Map();  // id → resolve
  let next = 0;
  let failed = null;  // why the worker stopped, if it did
  const onReply = (msg) => {
    waiting.get(msg.id)?.(msg);
    waiting.delete(msg.id);
  };
  const onFail = (e) => {  // the worker itself failed: every parse, now or later, falls back
    failed ??= String(e?.message ?? e ?? 'the helper stopped');
    for (const resolve of waiting.values()) resolve({ error: failed });
    waiting.clear();
  };
  if (isNode) worker.on('message', onReply).on('error', onFail).on('exit', onFail);
  else Object.assign(worker, { onmessage: (e) => onReply(e.data), onerror: onFail });
  return {
    heap: 0,  // the largest its heap was
    // Resolves { bytes } or { error }; never rejects.
    parse(job) {
      const id = next++;
      return new Promise((resolve) => {
        if (failed) return resolve({ error: failed });
        waiting.set(id, resolve);
        worker.postMessage({ ...job, id });
      });
    },
    // Takes back the newest source it has not started (whose parse() then
    // resolves { takenBack }); resolves that source's id, or null.
    takeBack() {
      const id = next++;
      return new Promise((resolve) => {
        if (failed) return resolve(null);
        waiting.set(id, (msg) => resolve(msg.taken ?? null));
        worker.postMessage({ takeBack: true, id });
      });
    },
    stop() {
      worker.terminate();
      onFail('the helper was stopped');  // (a browser drops its replies still on the way)
    },
  };
}

// Streams a source's bytes into a core Merger `m` (or an object with its
// chunkRoom and appendRoom): each chunk into the room the heap has for it —
// Node reads files straight there; each(n) after every chunk. (Exported for
// tracemerge-helper.mjs.)
export async function feed(m, data, each) {
  if (isNode && typeof data?.path === 'string') {
    const fs = await import('node:fs');
    const fd = fs.openSync(data.path, 'r');
    try {
      // (no JS runs between chunkRoom() and the read: the view stays valid)
      for (let n; (n = fs.readSync(fd, m.chunkRoom(CHUNK), 0, CHUNK, null)) > 0;) {
        m.appendRoom(n);
        each?.(n);
      }
    } finally {
      fs.closeSync(fd);
    }
    return;
  }
  for await (const chunk of chunksOf(data)) {
    m.chunkRoom(chunk.length).set(chunk);
    m.appendRoom(chunk.length);
    each?.(chunk.length);
  }
}

// Merger.exportSource()'s two views into the heap, copied into one array.
// (Exported for tracemerge-helper.mjs.)
export function joined([head, tail]) {
  const bytes = new Uint8Array(head.length + tail.length);
  bytes.set(head);
  bytes.set(tail, head.length);
  return bytes;
}

// Sources the helper takes: up to this inflated size (its bytes are copied
// into this heap whole, which must keep room under the memory budget).
const HELPER_MAX = 64 << 20;
const HELPER_JOBS = 4;  // sources sent to it at once (it parses one at a time)

// Whether the helper can read the data itself: a file path (Node), a Blob, bytes.
const helperCanRead = (data) =>
  data instanceof Uint8Array || (isNode && typeof data?.path === 'string') ||
  (typeof Blob !== 'undefined' && data instanceof Blob);

// Lets a finished helper's reply in (or, in the helper, a takeBack): a
// Worker's message waits for the event loop, which reading a file in Node
// (synchronous) does not reach. (Exported for tracemerge-helper.mjs.)
export const nextTurn = () => new Promise((resolve) => {
  if (isNode) return setImmediate(resolve);
  const channel = new MessageChannel();  // (setTimeout would wait 4 ms once nested)
  channel.port1.onmessage = () => resolve(channel.port1.close());
  channel.port2.postMessage(0);
});

// A merger fed source by source. Call delete() when done (or let merge() do it).
// onProgress(stage, done, total): 'parse' (bytes of the source that is ending) and
// 'write' (events); return false to cancel. helper: parse some sources in a
// second instance (a Worker; Node or a module-worker context), whose data it
// reads itself — { path } of a file (Node), a Blob or bytes; a source it
// fails on is parsed here. Call `await settle()` before merge(). (A URL
// instead of true: the helper module to start, for tests.)
export async function createMerger(options = {}, { core, onProgress, helper: withHelper = false } = {}) {
  core ??= await loadCore();
  const args = Array.isArray(options) ? options : optionsToArgs(options);
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
  const helper = withHelper ? await startHelper(withHelper === true ? undefined : withHelper) : null;
  // Sources sent and not yet taken in: up to four, so that the helper never
  // waits while this thread parses one; once the last source is added, this
  // thread takes back the ones it has not started (settle()).
  let helperJobs = 0;
  let unanswered = 0;  // of those, the ones the helper has not answered
  let helperStopped = false, settling = false;
  let heapPeak = 0;  // of this heap plus the helper's
  // Both heaps only grow: while the helper runs, their sum is at most this
  // one's now plus the helper's last. Once it has answered every source sent
  // (after settle() took back the ones it had not started), it stops.
  const notePeak = () => {
    if (!helperStopped) heapPeak = Math.max(heapPeak, core.HEAP8.length + helper.heap);
  };
  const stopHelper = () => {
    if (helper && !helperStopped) notePeak();
    helper?.stop();
    helperStopped = true;
  };
  let helped = 0;    // sources the helper parsed
  let helperError = null;
  const inflight = new Set();
  let hereTurn = Promise.resolve();  // sources parsed here in its stead: one at a time
  // The source's bytes from the helper — or, when it failed (or never
  // started), or gave it back, parsed here the same way: nothing is lost.
  const viaHelper = async (name, data, hint, inFolder) => {
    const reply = await helper.parse({ args, name, data, sizeHint: hint, inFolder });
    helper.heap = Math.max(helper.heap, reply.heap ?? 0);
    if (--unanswered === 0 && settling) stopHelper();
    if (reply.bytes) return { bytes: reply.bytes, byHelper: true };
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
  const guard = (fn) => {
    if (!alive) throw new TraceMergeError({ code: 'USAGE', message: 'this merger was already used or deleted' });
    try {
      return fn();
    } catch (e) {
      alive = false;
      throw wrapAbort(core, e, bytesRead);
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
      if (helper) await nextTurn();
      hint = await hint;
      if (helper && !helperStopped && helperJobs < HELPER_JOBS && hint <= HELPER_MAX && helperCanRead(data)) {
        helperJobs++;
        unanswered++;
        const arrival = guard(() => m.reserveArrival());
        const done = viaHelper(name, data, hint, inFolder).then(({ bytes, byHelper }) => {
          if (!alive) return;  // deleted (cancelled) meanwhile
          notePeak();
          guard(() => {
            if (!m.importSource(bytes, arrival)) throw new Error(`${name}: the helper's bytes were refused`);
          });
          helped += byHelper;
          notePeak();
          bytesRead += data.size ?? data.byteLength ?? 0;
          onBytes?.();
        }).catch((e) => {
          helperError ??= e;  // settle() throws it
        }).finally(() => {
          helperJobs--;
          inflight.delete(done);
        });
        inflight.add(done);
        return;
      }
      guard(() => m.beginSource(name, hint, inFolder));
      if (signal?.aborted) throw cancelled(bytesRead);
      const into = {  // the merger, each call guarded
        chunkRoom: (n) => guard(() => m.chunkRoom(n)),
        appendRoom: (n) => guard(() => m.appendRoom(n)),
      };
      await feed(into, data, (n) => {
        bytesRead += n;
        onBytes?.();
        if (signal?.aborted) throw cancelled(bytesRead);
      });
      guard(() => m.endSource());
    },
    // Shares out the sources the helper has not started — it goes on from
    // the first, this thread takes back the newest, one after the other —,
    // takes them all in, and stops the helper (its memory goes); later
    // sources are parsed here.
    async settle() {
      settling = true;
      guard(() => m.doneReading());  // the helper's last sources come in where the input buffer was
      if (unanswered === 0) stopHelper();
      while (!helperStopped && (await helper.takeBack()) !== null) await hereTurn;
      while (inflight.size) await Promise.all([...inflight]);
      stopHelper();
      if (helperError) throw helperError;
    },
    // How many sources the helper parsed (those it failed on are parsed here).
    get helped() { return helped; },
    // The most memory the wasm heaps held at once (this one's and the helper's).
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
      if (alive) m.delete();
      alive = false;
      stopHelper();
    },
  };
}

function cancelled(bytesRead) {
  return new TraceMergeError({ code: 'CANCELLED', message: 'merge cancelled', bytesRead });
}

function wrapAbort(core, e, bytesRead) {
  if (e instanceof TraceMergeError) return e;
  const reason = core.abortReason?.() ?? String(e?.message ?? e);
  resetCore();
  // The core said so (an allocation failed), or JS could not allocate a buffer.
  const oom = core.outOfMemory?.() || e instanceof RangeError;
  return new TraceMergeError({
    code: oom ? 'OUT_OF_MEMORY' : 'ABORT',
    message: oom
      ? `out of memory after reading ${bytesRead} bytes of input (the browser allows a 4 GB wasm heap)`
      : `the merge engine stopped: ${reason}`,
    bytesRead,
  });
}

// Names a File the way a dropped folder names it.
export function sourceName(file) {
  return file.webkitRelativePath || file.path || file.name;
}

// One call: files = File[] | { name, data, inFolder }[] (a File is in a folder when it has a
// webkitRelativePath). Resolves { blob | chunks, report, result }.
// With onChunk(Uint8Array), the output goes there as it is written and is not kept.
// helper: as createMerger's (a second instance parses every other source).
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
        : { stage, eventsDone: done, eventsTotal: total, bytesDone: bytesTotal, bytesTotal });
      return !signal?.aborted;
    },
  });
  try {
    for (const f of list) {
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

// Describes a job without merging it: time span, steps, sources with their kinds, warnings.
export async function scanFiles(files, options = {}, opts = {}) {
  const { result } = await mergeFiles(files, { ...options, scan: true }, { ...opts, output: 'chunks' });
  return result;
}

// What a file is (kind, node, or why it is skipped), from its first bytes only.
export async function classifyFile(name, blob, { core } = {}) {
  core ??= await loadCore();
  const head = new Uint8Array(await blob.slice(0, 65536).arrayBuffer());
  return JSON.parse(core.classify(name, head));
}

// The page's rules, asked of the core so that the page and the CLI cannot
// disagree (a core from loadCore()):
//   previewWindow(core, { unit: 'step', start: '2', end: '4' }, report.job.steps)
//     → { error: null, fatal: null, bounded: true, start_us: …, end_us: …, start_step: 2, end_step: 4 }
//     (error: the option is not understood; fatal: e.g. UNKNOWN_STEP naming the steps there are)
//   pathMatches(core, 'job/rank-1.json', 'rank-1.json') → true (how --offset PATH picks sources)
//   kindTable(core) → [{ key: 'pythontimeline', only: 'pythontimeline.json', label: 'pythontimeline' }, …]
export function previewWindow(core, { unit, start, end } = {}, steps = []) {
  const flat = [];
  for (const [step, ts] of steps) flat.push(String(step), String(ts));
  return JSON.parse(core.windowPreview(optionsToArgs({ unit, start, end }), flat));
}

export function pathMatches(core, path, pattern) {
  return core.pathMatches(path, pattern);
}

export function kindTable(core) {
  return JSON.parse(core.kindTable());
}

export async function parseArgs(argv) {
  const core = await loadCore();
  return JSON.parse(core.parseArgs(argv));
}
