// Worker entry: runs merges off the page's thread. Works as a browser module
// Worker and as a Node worker_threads Worker. Protocol: protocol.mjs.
import { MSG, PROGRESS_INTERVAL_MS, errorData } from './protocol.mjs';
import { TraceMergeError, mergeFiles } from './tracemerge.mjs';

const port = typeof self !== 'undefined' && typeof self.postMessage === 'function'
  ? self
  : (await import('node:worker_threads')).parentPort;
const post = (msg, transfer = []) => port.postMessage(msg, transfer);
const cancels = new Map();  // id → AbortController

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
  // In a browser the output goes into Blobs every 64 MB, which the browser may
  // keep on disk: a multi-GB output never sits in the worker's memory at once.
  const inBrowser = typeof FileReaderSync === 'function';
  const chunks = [];
  const blobs = [];
  let pending = 0;
  const onChunk = (c) => {
    chunks.push(c);
    pending += c.length;
    if (inBrowser && pending >= 64 << 20) {
      blobs.push(new Blob(chunks.splice(0)));
      pending = 0;
    }
  };
  try {
    const { result } = await mergeFiles(files, options, { onProgress, signal: abort.signal, onChunk });
    if (inBrowser) {
      const type = options.gzip ? 'application/gzip' : 'application/json';
      blobs.push(new Blob(chunks));
      await checkReadable(blobs);
      post({ type: MSG.DONE, id, blob: new Blob(blobs, { type }), result });
    } else {
      const buffers = chunks.map((c) => c.buffer);
      post({ type: MSG.DONE, id, chunks: buffers, result }, buffers);
    }
  } catch (e) {
    post({ type: MSG.ERROR, id, error: errorData(e) });
  } finally {
    cancels.delete(id);
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
