// Types of tracemerge/client: a merge in a Worker (browser) or a worker_threads Worker (Node).
import type { FileLike, MergeOptions, MergeResult, Progress, Report } from './tracemerge.js';

export declare class MergeClient {
  /** workerUrl: the worker module (default: ./tracemerge-worker.mjs beside this one);
   *  createWorker: makes the Worker instead; cancelAnswerMs: how long a cancelled worker has
   *  to answer before it is taken for stuck and replaced (default 3000). */
  constructor(opts?: { workerUrl?: URL | string; createWorker?: () => unknown | Promise<unknown>; cancelAnswerMs?: number });
  /** One merge at a time; rejects with a TraceMergeError (code CANCELLED after cancel()). */
  merge(files: Iterable<FileLike | File>, options?: MergeOptions, opts?: { onProgress?: (p: Progress) => void }):
    Promise<{ blob?: Blob; chunks?: Uint8Array[]; report: Report; result: MergeResult }>;
  /** Cancels the running merge (a worker that does not answer is replaced). */
  cancel(): void;
  /** Ends the worker. */
  terminate(): void;
}
