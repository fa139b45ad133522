// Types for build/wasm/tracemerge.mjs and tracemerge-client.mjs.

export interface MergeOptions {
  /** Window start: Unix µs (unit "time") or a step number (unit "step"). */
  start?: number | string;
  end?: number | string;
  unit?: 'time' | 'step';
  /** Suffix filter: "pythontimeline.json", "model_timeline.json", "trace.json.gz",
   *  "horovod_timeline.json", "system", "other". Default: all. */
  only?: string[];
  group?: 'source' | 'phase';
  /** Manual clock offsets in µs by path (exact path, folder prefix or file name). */
  offsets?: Record<string, number> | [string, number][];
  gzip?: boolean;
  /** Only describe the job (report.job: span and steps); no output. */
  scan?: boolean;
  /** Per-file inflated size limit in MB (default 4096). */
  maxFileMb?: number;
  /** Longest JSON string in an event, in MB (default 64). */
  maxStringMb?: number;
  /** MB of events kept in the wasm heap (default 512); the rest is kept outside
   *  it (ArrayBuffers), so jobs beyond the 4 GB heap merge. */
  memoryMb?: number;
  /** In a browser worker (MergeClient): write the output to a file of the origin private
   *  file system instead of Blobs. Default: when the input is over 256 MB. */
  outputFile?: boolean;
}

export interface Diagnostic { code: string; file: string; offset: number; message: string; }

export interface SourceReport {
  path: string; kind: string; node: string; included: boolean; note: string;
  bytes: number; inflated_bytes: number; events: number; kept: number; dropped: number;
  outside_window: number; metadata_merged: number; metadata_unused: number;
  time_base: string; absolute: boolean; offset_us: number;
}

export interface Report {
  version: string;
  window: { start_us?: number; end_us?: number; start_step?: number; end_step?: number; text: string };
  events: number;
  sources: SourceReport[];
  warnings: Diagnostic[];
}

export interface MergeResult {
  fatal: (Diagnostic & { code: string }) | null;
  summary: string;
  outputName: string;
  eventsWritten: number;
  bytesWritten: number;
  report: Report;
  /** mergeFiles: how many sources the helper parsed. */
  helperSources?: number;
}

export interface Progress {
  stage: 'read' | 'parse' | 'write';
  bytesDone?: number; bytesTotal?: number; eventsDone?: number; eventsTotal?: number;
  fileBytesDone?: number; fileBytesTotal?: number;
  mbPerSec?: number; file?: string;
}

export type FileLike = File | { name: string; data: Blob | Uint8Array | ArrayBuffer | Iterable<Uint8Array> | AsyncIterable<Uint8Array> };

export declare class TraceMergeError extends Error {
  code: 'USAGE' | 'CANCELLED' | 'OUT_OF_MEMORY' | 'ABORT' | 'UNKNOWN_STEP' | 'NOT_A_TRACE' | string;
  file: string;
  offset: number;
  bytesRead?: number;
}

export interface Merger {
  readonly bytesRead: number;
  /** sizeHint: the inflated size, when data is an iterator (otherwise it is read from data). */
  addSource(name: string, data: FileLike['data'] | Blob | { path: string; size?: number },
    opts?: { signal?: AbortSignal; onBytes?: () => void; sizeHint?: number }): Promise<void>;
  /** Takes back the sources the helper has not started (parsed here), waits for the one it
   *  parses, and takes them all in; call before merge(). */
  settle(): Promise<void>;
  /** Sources the helper parsed; the most memory both wasm heaps held at once. */
  readonly helped: number;
  readonly heapPeak: number;
  // onView gets a view into the wasm heap that is valid only during the call
  // (write it synchronously, e.g. fs.writeSync): one copy less than onChunk.
  merge(opts?: { onChunk?: (bytes: Uint8Array) => void; onView?: (bytes: Uint8Array) => void }): {
    chunks: Uint8Array[];
    result: MergeResult;
  };
  delete(): void;
}

/** onProgress: 'parse' (bytes of the source that is ending) and 'write' (events); false cancels. */
/** helper: a second instance in a Worker parses every other source (data it can read:
 *  Blob, bytes, or { path } in Node); a URL names the helper module (tests). */
export declare function createMerger(options?: MergeOptions | string[], opts?: {
  onProgress?: (stage: 'parse' | 'write', done: number, total: number) => boolean | void;
  helper?: boolean | URL }): Promise<Merger>;
export declare function scanFiles(files: Iterable<FileLike>, options?: MergeOptions): Promise<MergeResult>;
export declare function classifyFile(name: string, blob: Blob): Promise<{ kind: string; node: string; reason: string; quiet: boolean }>;
export declare function mergeFiles(files: Iterable<FileLike>, options?: MergeOptions,
  opts?: { onProgress?: (p: Progress) => void; signal?: AbortSignal; output?: 'blob' | 'chunks';
    /** Receives the output as it is written (then it is not kept). */
    onChunk?: (bytes: Uint8Array) => void;
    helper?: boolean | URL }):
  Promise<{ blob?: Blob; chunks?: Uint8Array[]; report: Report; result: MergeResult }>;
export declare function optionsToArgs(options: MergeOptions): string[];
/** Where the core keeps events beyond memoryMb: ArrayBuffers outside the wasm heap. */
export declare function createStore(): {
  put(key: number, bytes: Uint8Array): boolean;
  get(key: number, offset: number, length: number): Uint8Array | null;
};
export declare function sourceName(file: File): string;

export declare class MergeClient {
  constructor(opts?: { workerUrl?: URL | string; createWorker?: () => Promise<Worker> });
  merge(files: Iterable<FileLike>, options?: MergeOptions, opts?: { onProgress?: (p: Progress) => void }):
    /** blob in a browser (built in 64 MB parts by the worker); chunks (and blob) in Node. */
    Promise<{ blob?: Blob; chunks?: Uint8Array[]; report: Report; result: MergeResult }>;
  cancel(): void;
  terminate(): void;
}
