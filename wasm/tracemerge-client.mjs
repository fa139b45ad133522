// The page's side of the worker protocol (protocol.mjs): one worker, one merge
// at a time, progress callbacks, cancel, and a fresh worker after a crash.
//
//   const client = new MergeClient();
//   const { blob, result } = await client.merge(files, { unit: 'step', start: 2, end: 4 },
//                                               { onProgress: (p) => console.log(p.stage, p.mbPerSec) });
//   client.cancel();   // rejects the running merge with code CANCELLED
import { MSG, boundWorker } from './protocol.mjs';

const isNode = typeof process === 'object' && !!process.versions?.node;

export class MergeClient {
  // createWorker() → a Worker (browser) or worker_threads Worker (Node).
  // cancelAnswerMs: how long a worker cancelled while reading has to say it stopped (its
  // ERROR or DONE for that merge) before it is taken for stuck and replaced.
  constructor({ workerUrl = new URL('./tracemerge-worker.mjs', import.meta.url), createWorker, cancelAnswerMs = 3000 } = {}) {
    this.cancelAnswerMs = cancelAnswerMs;
    this.settling = null;  // a cancelled merge's worker, until it says it stopped or is replaced
    this.createWorker = createWorker ?? (async () => (isNode
      ? new (await import('node:worker_threads')).Worker(workerUrl)
      : boundWorker(workerUrl)));
    this.worker = null;
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
      this.pending = { id, resolve, reject, onProgress, stage: 'read', gzip: !!options.gzip };
      const list = [...files].map((f) => ('data' in f && 'name' in f && !(f instanceof Blob)
        ? f : { name: f.webkitRelativePath || f.name, data: f, inFolder: !!f.webkitRelativePath }));
      worker.postMessage({ type: MSG.MERGE, id, files: list, options });
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
    this.release?.();  // (a cancelled merge's worker: gone now)
  }

  handle(msg) {
    this.stopped?.(msg);
    const p = this.pending;
    if (!p || msg.id !== p.id) return;  // a late message of a cancelled merge
    if (msg.type === MSG.PROGRESS) {
      p.stage = msg.stage;
      p.onProgress?.(msg);
    } else if (msg.type === MSG.DONE) {
      this.pending = null;
      if (msg.blob) {  // a browser worker: the output is already a Blob
        p.resolve({ blob: msg.blob, result: msg.result, report: msg.result.report });
        return;
      }
      const chunks = msg.chunks.map((b) => new Uint8Array(b));
      const type = p.gzip ? 'application/gzip' : 'application/json';
      p.resolve({ chunks, result: msg.result, report: msg.result.report,
        ...(typeof Blob !== 'undefined' ? { blob: new Blob(chunks, { type }) } : {}) });
    } else if (msg.type === MSG.ERROR) {
      const dead = msg.error.code === 'OUT_OF_MEMORY' || msg.error.code === 'ABORT';
      this.fail(msg.error, dead);
    }
  }

  fail(error, replaceWorker) {
    const p = this.pending;
    this.pending = null;
    if (replaceWorker) this.terminate();
    p?.reject(Object.assign(new Error(error.message), error));
  }
}
