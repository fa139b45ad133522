// The one message protocol between the page (tracemerge-client.mjs) and the
// worker (tracemerge-worker.mjs). Every message carries the request id.
//
// page → worker
//   { type: 'merge',  id, files: [{ name, data: File|Blob|Uint8Array|ArrayBuffer, inFolder }], options,
//     aliveMs }                                     (say ALIVE at least this often while merging)
//   { type: 'cancel', id }
// worker → page
//   { type: 'progress', id, stage: 'read'|'parse'|'write', bytesDone, bytesTotal,
//     eventsDone, eventsTotal, mbPerSec }                       (at most ~10 per second)
//   { type: 'done',  id, blob: Blob (browser) and parts: where each of its Blob parts starts
//                    (the page checks each can be read) | chunks: ArrayBuffer[] (Node, transferred),
//     result: the result in pieces of JSON (toPieces; its slices' buffers transferred) }
//   { type: 'error', id, error: { code, message, file, offset, bytesRead } }
//   { type: 'alive', id }                          while merging, every aliveMs its thread is free
//                                                  (a worker silent for the client's silenceMs
//                                                  — no progress, no alive — is taken for hung)
//   { type: 'read', id, req, file, start, end }  bytes of files[file] from the page: where the
//                                                worker cannot read the Files it was given
//   { type: 'helper', req }   start a helper (tracemerge-helper.mjs) and give me a port to it
//   { type: 'helper', req, stop: true }   end that helper: it said nothing within its deadline
// (Each ask has a deadline: tracemerge-worker.mjs ASK_MS, scheduler.mjs helperDeadline.)
// page → worker, their answers
//   { type: 'bytes', id, req, buffer: ArrayBuffer (transferred) } | { type: 'bytes', id, req, error }
//   { type: 'helper', req, port: MessagePort (transferred) } | { type: 'helper', req, error }
//   { type: 'helper', req, failed }   that helper failed (its worker's error event)
import { nextTurn } from './io.mjs';

/** The `type` of each message above, by name. */
export const MSG = Object.freeze({
  MERGE: 'merge',
  CANCEL: 'cancel',
  PROGRESS: 'progress',
  DONE: 'done',
  ERROR: 'error',
  READ: 'read',
  BYTES: 'bytes',
  HELPER: 'helper',
  ALIVE: 'alive',
});

/** How often (ms) a worker sends progress, at most. */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * An error as the protocol carries it: Error objects cross postMessage as plain data. A missing
 * code is ABORT.
 * @param {unknown} e
 * @returns {{ code: string, message: string, file: string, offset: number, bytesRead: number }}
 */
export function errorData(e) {
  return {
    code: e?.code ?? 'ABORT',
    message: e?.message ?? String(e),
    file: e?.file ?? '',
    offset: e?.offset ?? 0,
    bytesRead: e?.bytesRead ?? 0,
  };
}

const SLICE = 1000;  // items of a long array a piece
/**
 * A result as pieces: its long arrays (a scan's sources and overview lanes: 27 MB of JSON for
 * 20 000 files) in slices of UTF-8 JSON bytes, the rest JSON text. The slices' buffers go in the
 * message's transfer list (transferOf): no copy of them lands on the receiving thread's heap,
 * and fromPieces decodes and parses one a task. (As one parse, as a cloned object or as cloned
 * strings, the receiving page froze for 0.2–0.4 s: the copy and the collector's pause with it.)
 *   toPieces({ a: 1, list: [1, 2, 3] }, 2) → { json: '{"a":1,"list":[]}', slices: [{ path: ['list'], bytes: <[1,2]> }, { path: ['list'], bytes: <[3]> }] }
 *   await fromPieces(that) → { a: 1, list: [1, 2, 3] }
 * @param {unknown} value plain JSON data
 * @param {number} [slice] items of a long array a slice (arrays longer than it are cut)
 * @returns {Pieces}
 */
export function toPieces(value, slice = SLICE) {
  const slices = [];
  const utf8 = new TextEncoder();
  const cut = (v, path) => {
    if (Array.isArray(v) && v.length > slice) {
      for (let i = 0; i < v.length; i += slice) slices.push({ path, bytes: utf8.encode(JSON.stringify(v.slice(i, i + slice))) });
      return [];
    }
    if (!v || typeof v !== 'object') return v;
    const out = Array.isArray(v) ? [] : {};
    for (const [k, x] of Object.entries(v)) out[k] = cut(x, [...path, k]);
    return out;
  };
  return { json: JSON.stringify(cut(value, [])), slices };
}

/**
 * The buffers of a Pieces' slices, for the transfer list of the message that carries it.
 * @param {Pieces} pieces
 * @returns {ArrayBuffer[]}
 */
export function transferOf(pieces) {
  return pieces.slices.map((s) => s.bytes.buffer);
}

/**
 * The value toPieces cut, back: its JSON parsed, then each slice decoded, parsed and its items
 * pushed onto their array, a task each.
 * @param {Pieces} pieces
 * @returns {Promise<any>}
 */
export async function fromPieces({ json, slices }) {
  const value = JSON.parse(json);
  const utf8 = new TextDecoder();
  for (const { path, bytes } of slices) {
    await nextTurn();  // (a task each)
    const list = path.reduce((v, k) => v[k], value);
    for (const item of JSON.parse(utf8.decode(bytes))) list.push(item);
  }
  return value;
}

/**
 * A module Worker on `url` that is bound by its creator's Content-Security-Policy. A worker
 * takes no policy from the page's <meta> — only from its script's HTTP headers, which a plain
 * static host does not send — but one started from a blob: URL inherits its creator's: so it
 * starts from a blob that imports the script (which then loads as 'self' allows), and the
 * helpers it starts are bound the same way.
 * @param {URL | string} url
 * @returns {Worker}
 */
export function boundWorker(url) {
  if (String(url).startsWith('blob:')) return new Worker(url, { type: 'module' });  // (inherits already)
  const blobUrl = URL.createObjectURL(new Blob([`import ${JSON.stringify(String(url))};`], { type: 'text/javascript' }));
  const worker = new Worker(blobUrl, { type: 'module' });
  setTimeout(() => URL.revokeObjectURL(blobUrl), 60000);  // (once it surely loaded)
  return worker;
}
