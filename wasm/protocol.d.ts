// Types of tracemerge/protocol: the messages between a MergeClient and its worker.
export declare const MSG: Readonly<{ MERGE: 'merge'; CANCEL: 'cancel'; PROGRESS: 'progress'; DONE: 'done'; ERROR: 'error'; READ: 'read'; BYTES: 'bytes'; HELPER: 'helper' }>;
/** How often (ms) a worker sends progress. */
export declare const PROGRESS_INTERVAL_MS: number;
/** An error as the protocol carries it. */
export declare function errorData(e: unknown): { code: string; message: string; file: string; offset: number; bytesRead: number };
/** A module Worker bound by the page's own Content-Security-Policy (a blob: wrapper that imports url). */
export declare function boundWorker(url: URL | string): Worker;
/** A result as pieces of JSON: its long arrays in slices of UTF-8 bytes (the worker's DONE carries it). */
export interface Pieces { json: string; slices: { path: string[]; bytes: Uint8Array }[] }
export declare function toPieces(value: unknown, slice?: number): Pieces;
/** The slices' buffers, for the transfer list of the message that carries the pieces. */
export declare function transferOf(pieces: Pieces): ArrayBuffer[];
/** The value back, a slice parsed a task each. */
export declare function fromPieces(pieces: Pieces): Promise<any>;
