// The one message protocol between the page (tracemerge-client.mjs) and the
// worker (tracemerge-worker.mjs). Every message carries the request id.
//
// page → worker
//   { type: 'merge',  id, files: [{ name, data: File|Blob|ArrayBuffer }], options }
//   { type: 'cancel', id }
// worker → page
//   { type: 'progress', id, stage: 'read'|'parse'|'write', bytesDone, bytesTotal,
//     eventsDone, eventsTotal, mbPerSec }                       (at most ~10 per second)
//   { type: 'done',  id, blob: Blob (browser) | chunks: ArrayBuffer[] (Node, transferred), result }
//   { type: 'error', id, error: { code, message, file, offset, bytesRead } }
export const MSG = Object.freeze({
  MERGE: 'merge',
  CANCEL: 'cancel',
  PROGRESS: 'progress',
  DONE: 'done',
  ERROR: 'error',
});

export const PROGRESS_INTERVAL_MS = 100;

// Error objects cross postMessage as plain data.
export function errorData(e) {
  return {
    code: e?.code ?? 'ABORT',
    message: e?.message ?? String(e),
    file: e?.file ?? '',
    offset: e?.offset ?? 0,
    bytesRead: e?.bytesRead ?? 0,
  };
}

// A module Worker on `url` that is bound by its creator's Content-Security-Policy. A worker
// takes no policy from the page's <meta> — only from its script's HTTP headers, which a plain
// static host does not send — but one started from a blob: URL inherits its creator's: so it
// starts from a blob that imports the script (which then loads as 'self' allows), and the
// helpers it starts are bound the same way.
export function boundWorker(url) {
  if (String(url).startsWith('blob:')) return new Worker(url, { type: 'module' });  // (inherits already)
  const blobUrl = URL.createObjectURL(new Blob([`import ${JSON.stringify(String(url))};`], { type: 'text/javascript' }));
  const worker = new Worker(blobUrl, { type: 'module' });
  setTimeout(() => URL.revokeObjectURL(blobUrl), 60000);  // (once it surely loaded)
  return worker;
}
