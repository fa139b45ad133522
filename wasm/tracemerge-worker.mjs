// Worker entry: runs merges off the page's thread. Works as a browser module
// Worker and as a Node worker_threads Worker. Protocol: protocol.mjs.
import { MSG, PROGRESS_INTERVAL_MS, errorData } from './protocol.mjs';
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

async function runMerge({ id, files, options }) {
  const abort = new AbortController();
  cancels.set(id, abort);
  const started = Date.now();
  let last = 0;
  const totals = { bytesDone: 0, bytesTotal: 0, eventsDone: 0, eventsTotal: 0 };
  const onProgress = (p) => {
    Object.assign(totals, p);
    const now = Date.now();
    if (now - last < PROGRESS_INTERVAL_MS && p.eventsDone !== p.eventsTotal) return;
    last = now;
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
    const { result } = await mergeFiles(files, options, { onProgress, signal: abort.signal, onChunk, helper: canHelp });
    if (file) {
      post({ type: MSG.DONE, id, blob: await file.finish(), result });
    } else if (inBrowser) {
      const type = options.gzip ? 'application/gzip' : 'application/json';
      blobs.push(new Blob(chunks));
      await checkReadable(blobs);
      post({ type: MSG.DONE, id, blob: new Blob(blobs, { type }), result });
    } else {
      const buffers = chunks.map((c) => c.buffer);
      post({ type: MSG.DONE, id, chunks: buffers, result }, buffers);
    }
  } catch (e) {
    await file?.remove();
    post({ type: MSG.ERROR, id, error: errorData(e) });
  } finally {
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

// A browser keeps Blobs within its Blob storage limit (in a private window,
// only in memory): past it, parts are unreadable. Say so rather than offer a
// download that breaks.
async function checkReadable(parts) {
  for (const part of parts) {
    try {
      if (part.size) await part.slice(0, 1).arrayBuffer();
    } catch {
      const mb = Math.round(parts.reduce((n, b) => n + b.size, 0) / 1e6);
      throw new TraceMergeError({
        code: 'TOO_LARGE',
        message: `the browser could not keep the ${mb} MB output (its Blob storage limit; private windows keep ` +
          'Blobs in memory only). Merge in a normal window, narrow the window or the kinds, or use the CLI.',
      });
    }
  }
}

function onMessage(msg) {
  if (msg.type === MSG.MERGE) runMerge(msg);
  else if (msg.type === MSG.CANCEL) cancels.get(msg.id)?.abort();
}
if (typeof port.on === 'function') port.on('message', onMessage);  // Node worker_threads
else port.onmessage = (event) => onMessage(event.data);             // browser Worker
