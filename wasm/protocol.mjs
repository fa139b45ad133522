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
//     result: the result in pieces of JSON text (toPieces) }
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
 * A result as pieces of JSON text, and back: its long arrays (a scan's sources and overview
 * lanes: 27 MB of JSON for 20 000 files) in slices, which fromPieces parses a task each — one
 * parse, or unpacking the same as a cloned object, froze the page for 0.2–0.4 s.
 *   toPieces({ a: 1, list: [1, 2, 3] }, 2) → { json: '{"a":1,"list":[]}', slices: [{ path: ['list'], json: '[1,2]' }, { path: ['list'], json: '[3]' }] }
 *   await fromPieces(that) → { a: 1, list: [1, 2, 3] }
 * @param {unknown} value plain JSON data
 * @param {number} [slice] items of a long array a slice (arrays longer than it are cut)
 * @returns {Pieces}
 */
export function toPieces(value, slice = SLICE) {
  const slices = [];
  const cut = (v, path) => {
    if (Array.isArray(v) && v.length > slice) {
      for (let i = 0; i < v.length; i += slice) slices.push({ path, json: JSON.stringify(v.slice(i, i + slice)) });
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
 * The value toPieces cut, back: its JSON parsed, then each slice's items pushed onto their array, a task each.
 * @param {Pieces} pieces
 * @returns {Promise<any>}
 */
export async function fromPieces({ json, slices }) {
  const value = JSON.parse(json);
  for (const { path, json: part } of slices) {
    await nextTurn();  // (a task each)
    const list = path.reduce((v, k) => v[k], value);
    for (const item of JSON.parse(part)) list.push(item);
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
