// Worker entry: runs merges off the page's thread. Works as a browser module
// Worker and as a Node worker_threads Worker. Protocol: protocol.mjs.
import { MSG, PROGRESS_INTERVAL_MS, errorData, toPieces, transferOf } from './protocol.mjs';
import { helpersFrom } from './scheduler.mjs';
import { TraceMergeError, mergeFiles } from './tracemerge.mjs';

const port = typeof self !== 'undefined' && typeof self.postMessage === 'function'
  ? self
  : (await import('node:worker_threads')).parentPort;
const post = (msg, transfer = []) => port.postMessage(msg, transfer);
const cancels = new Map();  // id → AbortController
// With a second core, a second instance parses every other source (a nested
// Worker; not in the single-file page, whose scripts are not modules).
const cores = globalThis.navigator?.hardwareConcurrency ?? 2;  // (Node before 21 has no navigator)
const canHelp = typeof import.meta.url === 'string' && cores > 1;

async function runMerge({ id, files, options, aliveMs }) {
  const abort = new AbortController();
  cancels.set(id, abort);
  const alive = aliveMs ? setInterval(() => post({ type: MSG.ALIVE, id }), aliveMs) : null;
  const started = Date.now();
  let lastPost = 0;
  const totals = { bytesDone: 0, bytesTotal: 0, eventsDone: 0, eventsTotal: 0 };
  const onProgress = (p) => {
    Object.assign(totals, p);
    const now = Date.now();
    // At most one a PROGRESS_INTERVAL_MS (a report a file: 20 000 messages for 20 000 files);
    // the last event written always.
    const last = p.stage === 'write' && p.eventsDone === p.eventsTotal;
    if (now - lastPost < PROGRESS_INTERVAL_MS && !last) return;
    lastPost = now;
    const seconds = Math.max((now - started) / 1000, 1e-3);
    post({ type: MSG.PROGRESS, id, ...totals, mbPerSec: totals.bytesDone / 1e6 / seconds });
  };
  // In a browser a big output goes to a file of the origin's private file
  // system (on disk, outside Blob storage); a small one, or where that is not
  // available, into Blobs of 64 MB parts.
  const inBrowser = typeof FileReaderSync === 'function';
  const inputBytes = files.reduce((n, f) => n + (f.data?.size ?? f.data?.byteLength ?? 0), 0);
  const toFile = options.outputFile ?? inputBytes > BIG_OUTPUT;
  const file = inBrowser && toFile ? await OutputFile.open() : null;
  const chunks = [];
  const blobs = [];
  let pending = 0;
  const onChunk = (c) => {
    if (file) return file.write(c);
    chunks.push(c);
    pending += c.length;
    if (inBrowser && pending >= 64 << 20) {
      blobs.push(new Blob(chunks.splice(0)));
      pending = 0;
    }
  };
  try {
    if (inBrowser) files = await readableHere(files, id);
    const { result } = await mergeFiles(files, options, { onProgress, signal: abort.signal, onChunk, helper: canHelp });
    const pieces = toPieces(result);
    if (file) {
      post({ type: MSG.DONE, id, blob: await file.finish(), result: pieces }, transferOf(pieces));
    } else if (inBrowser) {
      const type = options.gzip ? 'application/gzip' : 'application/json';
      blobs.push(new Blob(chunks));
      const parts = [];
      for (let i = 0, at = 0; i < blobs.length; at += blobs[i++].size) if (blobs[i].size) parts.push(at);
      post({ type: MSG.DONE, id, blob: new Blob(blobs, { type }), parts, result: pieces }, transferOf(pieces));
    } else {
      const buffers = chunks.map((c) => c.buffer);
      post({ type: MSG.DONE, id, chunks: buffers, result: pieces }, [...buffers, ...transferOf(pieces)]);
    }
  } catch (e) {
    await file?.remove();
    post({ type: MSG.ERROR, id, error: errorData(e) });
  } finally {
    clearInterval(alive);
    cancels.delete(id);
  }
}

const BIG_OUTPUT = 256e6;  // bytes of input from which the output goes to a file

// The output as a file in the origin private file system, written synchronously
// as the merge hands out chunks. One per worker: the previous one is deleted
// when the next merge starts (the page shows one result at a time).
class OutputFile {
  static last = null;
  static async open() {
    try {
      const root = await navigator.storage.getDirectory();
      if (OutputFile.last) await root.removeEntry(OutputFile.last).catch(() => {});
      const name = `tracemerge-output-${Date.now()}-${Math.random().toString(36).slice(2)}.json`;
      const handle = await root.getFileHandle(name, { create: true });
      OutputFile.last = name;
      return new OutputFile(root, name, handle, await handle.createSyncAccessHandle());
    } catch {
      return null;  // no private file system here: Blobs instead
    }
  }
  constructor(root, name, handle, access) {
    Object.assign(this, { root, name, handle, access, at: 0, error: null });
  }
  write(chunk) {
    if (this.error) return;
    try {
      const n = this.access.write(chunk, { at: this.at });
      this.at += n;
      if (n !== chunk.length) throw new Error('disk full');
    } catch (e) {
      this.error = e;  // reported when the merge returns
    }
  }
  async finish() {
    this.access.flush();
    this.access.close();
    if (this.error) {
      throw new TraceMergeError({
        code: 'IO',
        message: `could not write the output to the browser's storage after ${Math.round(this.at / 1e6)} MB ` +
          `(${this.error.message}); free disk space, narrow the window or the kinds, or use the CLI`,
      });
    }
    return this.handle.getFile();
  }
  async remove() {
    try {
      this.access.close();
    } catch {}
    await this.root.removeEntry(this.name).catch(() => {});
  }
}

// The files as this worker can read them. WebKit's worker started from a blob: URL of a
// file:// page (origin null) can read no Blob at all — NotReadableError, even for one it made —
// while the page's thread can: there each File becomes a PageBlob, its bytes asked of the page.
async function readableHere(files, id) {
  const first = files.find((f) => f.data instanceof Blob && f.data.size);
  if (!first || (await first.data.slice(0, 1).arrayBuffer().then(() => true, () => false))) return files;
  return files.map((f, file) => (f.data instanceof Blob ? { ...f, data: new PageBlob(id, file, 0, f.data.size) } : f));
}

const asked = new Map();  // req → { resolve, reject, timer } of a read; of a helper: { resolve, failed, timer }
let nextReq = 0;
// No silent wait on the page either: a helper or bytes asked of it and not given within
// ASK_MS (the page answers these at once; a read, and 1 MB/s) fail with a reason — no
// helper (the sources are parsed here), or the file's read an error naming it.
const ASK_MS = 30000;

// Helpers come from the page (scheduler.mjs says why): a port to each.
if (typeof FileReaderSync === 'function') {
  helpersFrom(() => new Promise((resolve) => {
    const req = nextReq++;
    const timer = setTimeout(() => onHelper({ req, error: `the page started no helper in ${ASK_MS / 1000} s` }), ASK_MS);
    asked.set(req, { resolve, failed: null, timer });
    post({ type: MSG.HELPER, req });
  }));
}

function onHelper({ req, port, error, failed }) {
  const r = asked.get(req);
  if (!r) return;
  if (failed) return r.failed?.(failed);
  clearTimeout(r.timer);
  if (r.given) {  // (a port after the deadline: that helper is not wanted now)
    port?.close();
    return port && post({ type: MSG.HELPER, req, stop: true });
  }
  r.given = true;
  r.resolve(port ? {
    port,
    onFail: (f) => { r.failed = f; },
    stop: () => { port.close(); post({ type: MSG.HELPER, req, stop: true }); },
  } : { port: null, error: error ?? 'no helper' });
}

// A File the page reads for this worker: the Blob calls io.mjs makes (size, slice,
// arrayBuffer, stream), each read a READ message answered by BYTES.
class PageBlob {
  constructor(id, file, start, end) {
    Object.assign(this, { id, file, start, end, size: end - start });
  }
  slice(from = 0, to = this.size) {
    const at = (x) => Math.min(Math.max(x < 0 ? this.size + x : x, 0), this.size);
    return new PageBlob(this.id, this.file, this.start + at(from), this.start + Math.max(at(from), at(to)));
  }
  arrayBuffer() {
    const req = nextReq++;
    return new Promise((resolve, reject) => {
      const ms = ASK_MS + this.size / 1000;  // (and 1 MB/s)
      const timer = setTimeout(() => onBytes({ req, error: `the page gave no bytes of this file in ${Math.round(ms / 1000)} s` }), ms);
      asked.set(req, { resolve, reject, timer });
      post({ type: MSG.READ, id: this.id, req, file: this.file, start: this.start, end: this.end });
    });
  }
  stream() {
    const blob = this;
    return new ReadableStream({
      async pull(controller) {
        controller.enqueue(new Uint8Array(await blob.arrayBuffer()));
        controller.close();
      },
    });
  }
}

function onBytes({ req, buffer, error }) {
  const r = asked.get(req);
  asked.delete(req);
  clearTimeout(r?.timer);
  if (error) r?.reject(new Error(error));
  else r?.resolve(buffer);
}

function onMessage(msg) {
  if (msg.type === MSG.MERGE) runMerge(msg);
  else if (msg.type === MSG.CANCEL) cancels.get(msg.id)?.abort();
  else if (msg.type === MSG.BYTES) onBytes(msg);
  else if (msg.type === MSG.HELPER) onHelper(msg);
}
if (typeof port.on === 'function') port.on('message', onMessage);  // Node worker_threads
else port.onmessage = (event) => onMessage(event.data);             // browser Worker
