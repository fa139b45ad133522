// The page's side of the worker protocol (protocol.mjs): one worker, one merge
// at a time, progress callbacks, cancel, and a fresh worker after a crash.
//
//   const client = new MergeClient();
//   const { blob, result } = await client.merge(files, { unit: 'step', start: 2, end: 4 },
//                                               { onProgress: (p) => console.log(p.stage, p.mbPerSec) });
//   client.cancel();   // rejects the running merge with code CANCELLED
import { MSG, boundWorker, fromPieces } from './protocol.mjs';

const isNode = typeof process === 'object' && !!process.versions?.node;

/**
 * Merges in a worker (tracemerge-worker.mjs), one at a time, with progress and cancel; a
 * worker that crashes, hangs or cannot stop is replaced by a fresh one.
 */
export class MergeClient {
  // createWorker() → a Worker (browser) or worker_threads Worker (Node).
  // cancelAnswerMs: how long a worker cancelled while reading has to say it stopped (its
  // ERROR or DONE for that merge) before it is taken for stuck and replaced.
  // silenceMs: no silent wait — a merging worker that says nothing this long (no progress,
  // no ALIVE, which it sends four times as often when its thread is free: a synchronous
  // stage of the core reports progress as it goes) is taken for hung: the merge rejects
  // with ABORT and the worker is replaced.
  constructor({ workerUrl = new URL('./tracemerge-worker.mjs', import.meta.url), createWorker, cancelAnswerMs = 3000,
    silenceMs = 120000 } = {}) {
    this.cancelAnswerMs = cancelAnswerMs;
    this.silenceMs = silenceMs;
    this.silence = null;  // the timer of the running merge's next word
    this.settling = null;  // a cancelled merge's worker, until it says it stopped or is replaced
    this.createWorker = createWorker ?? (async () => (isNode
      ? new (await import('node:worker_threads')).Worker(workerUrl)
      : boundWorker(workerUrl)));
    this.workerUrl = workerUrl;
    this.worker = null;
    this.helpers = [];    // the helper Workers started for this worker (protocol.mjs: helper)
    this.pending = null;  // { id, resolve, reject, onProgress, stage }
    this.nextId = 1;
  }

  async ensureWorker() {
    if (this.worker) return this.worker;
    const w = await this.createWorker();
    const onMessage = (msg) => this.handle(msg);
    const onError = (e) => this.fail({ code: 'ABORT', message: `the merge worker crashed: ${e?.message ?? e}` }, true);
    if (typeof w.on === 'function') {
      w.on('message', onMessage);
      w.on('error', onError);
    } else {
      w.onmessage = (e) => onMessage(e.data);
      w.onerror = (e) => { e.preventDefault?.(); onError(e); };
    }
    this.worker = w;
    return w;
  }

  async merge(files, options = {}, { onProgress } = {}) {
    if (this.pending) throw Object.assign(new Error('a merge is already running'), { code: 'USAGE' });
    await this.settling;  // (a cancelled merge's worker: stopped, or replaced)
    const worker = await this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const list = [...files].map((f) => ('data' in f && 'name' in f && !(f instanceof Blob)
        ? f : { name: f.webkitRelativePath || f.name, data: f, inFolder: !!f.webkitRelativePath }));
      this.pending = { id, resolve, reject, onProgress, stage: 'read', gzip: !!options.gzip, list };
      this.listen();
      worker.postMessage({ type: MSG.MERGE, id, files: list, options, aliveMs: Math.max(1, this.silenceMs / 4) });
    });
  }

  cancel() {
    const p = this.pending;
    if (!p) return;
    this.worker?.postMessage({ type: MSG.CANCEL, id: p.id });
    // Reading yields between chunks and sees the cancel; a synchronous wasm
    // merge cannot, so the worker is replaced — and so is one that reported
    // reading but does not say it stopped within cancelAnswerMs (stuck anywhere).
    const reading = p.stage === 'read' && this.worker;
    this.fail({ code: 'CANCELLED', message: 'merge cancelled' }, !reading);
    if (!reading) return;
    const worker = this.worker;
    this.settling = new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.worker === worker) this.terminate();  // (which releases)
        else this.release?.();
      }, this.cancelAnswerMs);
      this.release = () => {
        clearTimeout(timer);
        this.stopped = this.release = null;
        resolve();
      };
      this.stopped = (msg) => { if (msg.id === p.id && (msg.type === MSG.ERROR || msg.type === MSG.DONE)) this.release(); };
    }).then(() => { this.settling = null; });
  }

  terminate() {
    this.worker?.terminate();
    this.worker = null;
    for (const h of this.helpers.splice(0)) h.terminate();
    this.release?.();  // (a cancelled merge's worker: gone now)
  }

  // (Re)arms the deadline of the running merge's next word.
  listen() {
    clearTimeout(this.silence);
    this.silence = null;
    if (!this.pending) return;
    this.silence = setTimeout(() => this.fail({ code: 'ABORT', message: `the merge worker said nothing for ` +
      `${+(this.silenceMs / 1000).toFixed(1)} s (no progress) and was stopped: merge again, or use the CLI` }, true), this.silenceMs);
  }

  handle(msg) {
    if (msg.type === MSG.HELPER) return msg.stop ? this.stopHelper(msg.req) : this.startHelper(msg.req);
    this.stopped?.(msg);
    const p = this.pending;
    if (!p || msg.id !== p.id) return;  // a late message of a cancelled merge
    this.listen();
    if (msg.type === MSG.READ) {
      this.readFor(p, msg);
    } else if (msg.type === MSG.PROGRESS) {
      p.stage = msg.stage;
      p.onProgress?.(msg);
    } else if (msg.type === MSG.DONE) {
      this.pending = null;
      this.listen();  // (clears it)
      fromPieces(msg.result).then((result) => {
        if (msg.blob) {  // a browser worker: the output is already a Blob
          return readable(msg.blob, msg.parts ?? [])
            .then(() => p.resolve({ blob: msg.blob, result, report: result.report }));
        }
        const chunks = msg.chunks.map((b) => new Uint8Array(b));
        const type = p.gzip ? 'application/gzip' : 'application/json';
        p.resolve({ chunks, result, report: result.report,
          ...(typeof Blob !== 'undefined' ? { blob: new Blob(chunks, { type }) } : {}) });
      }).catch(p.reject);
    } else if (msg.type === MSG.ERROR) {
      const dead = msg.error.code === 'OUT_OF_MEMORY' || msg.error.code === 'ABORT';
      this.fail(msg.error, dead);
    }
  }

  // A helper for the worker, started here (scheduler.mjs: a worker's own new Worker() hung
  // in Firefox), and a port between them. It lives as long as the worker, reused by its merges.
  startHelper(req) {
    const worker = this.worker;
    const answer = (msg, transfer = []) => worker?.postMessage({ type: MSG.HELPER, req, ...msg }, transfer);
    try {
      const helper = boundWorker(new URL('./tracemerge-helper.mjs', this.workerUrl));
      const { port1, port2 } = new MessageChannel();
      helper.onerror = (e) => {
        e.preventDefault?.();
        answer({ failed: `a helper failed (${e?.message ?? 'an error'})` });
      };
      helper.postMessage({ connect: port1 }, [port1]);
      helper.req = req;
      this.helpers.push(helper);
      answer({ port: port2 }, [port2]);
    } catch (e) {
      answer({ error: String(e?.message ?? e) });
    }
  }

  // The worker gave up on a helper (it said nothing within its deadline: scheduler.mjs).
  stopHelper(req) {
    const i = this.helpers.findIndex((h) => h.req === req);
    if (i >= 0) this.helpers.splice(i, 1)[0].terminate();
  }

  // Bytes of a File the worker cannot read itself (protocol.mjs: read → bytes).
  async readFor(p, { id, req, file, start, end }) {
    const reply = (msg, transfer) => this.pending === p && this.worker?.postMessage({ type: MSG.BYTES, id, req, ...msg }, transfer);
    try {
      const buffer = await p.list[file].data.slice(start, end).arrayBuffer();
      reply({ buffer }, [buffer]);
    } catch (e) {
      reply({ error: String(e?.message ?? e) });
    }
  }

  fail(error, replaceWorker) {
    const p = this.pending;
    this.pending = null;
    this.listen();
    if (replaceWorker) this.terminate();
    p?.reject(Object.assign(new Error(error.message), error));
  }
}

// A browser keeps Blobs within its Blob storage limit (in a private window, only in memory):
// past it, parts are unreadable. Say so rather than offer a download that breaks. (Checked
// here: in some pages the worker can read no Blob at all, storage or not.)
async function readable(blob, parts) {
  for (const at of parts) {
    try {
      await blob.slice(at, at + 1).arrayBuffer();
    } catch {
      const mb = Math.round(blob.size / 1e6);
      throw Object.assign(new Error(`the browser could not keep the ${mb} MB output (its Blob storage limit; private windows keep ` +
        'Blobs in memory only). Merge in a normal window, narrow the window or the kinds, or use the CLI.'), { code: 'TOO_LARGE' });
    }
  }
}
