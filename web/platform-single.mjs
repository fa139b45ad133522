// platform.mjs for the single-file page (build/web/tracemerge.html), which must work from
// file://, where Chromium refuses module scripts and module workers. web/build.mjs inlines:
//   <script id="tm-core">   the classic Emscripten core (defines createTraceMergeCore)
//   <script type="text/plain" id="tm-worker">   the worker bundle (not run by the page)
// and the worker starts from a Blob URL of both texts.
import { MergeClient } from './wasm/tracemerge-client.mjs';
import { classifyFile } from './wasm/tracemerge.mjs';

/** Whether this is the single-file page's platform: true here (false in platform.mjs). */
export const singleFile = true;

let workerUrl = null;

function inlineWorkerUrl() {
  if (!workerUrl) {
    const text = (id) => document.getElementById(id).textContent;
    workerUrl = URL.createObjectURL(new Blob([text('tm-core'), '\n', text('tm-worker')], { type: 'text/javascript' }));
  }
  return workerUrl;
}

/**
 * A client of the merge Worker, started from the inlined core and worker bundle (a Blob URL).
 * @returns {MergeClient}
 */
export function createClient() {
  // workerUrl is given so the client never evaluates import.meta.url (empty in a bundle).
  return new MergeClient({ workerUrl: 'inline', createWorker: async () => new Worker(inlineWorkerUrl()) });
}

/**
 * What a file is, from its first bytes: classifyFile() of the bundled core.
 * @param {string} name its path
 * @param {Uint8Array} head its first bytes (up to 64 KB)
 * @returns {Promise<{ kind: Kind, node: string, reason: string, quiet: boolean }>}
 */
export function classify(name, head) {
  return classifyFile(name, head);
}
