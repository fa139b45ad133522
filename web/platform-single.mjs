// platform.mjs for the single-file page (build/web/tracemerge.html), which must work from
// file://, where Chromium refuses module scripts and module workers. web/build.mjs inlines:
//   <script id="tm-core">   the classic Emscripten core (defines createTraceMergeCore)
//   <script type="text/plain" id="tm-worker">   the worker bundle (not run by the page)
// and the worker starts from a Blob URL of both texts.
import { MergeClient } from './wasm/tracemerge-client.mjs';
import { classifyFile } from './wasm/tracemerge.mjs';

export const singleFile = true;

let workerUrl = null;

function inlineWorkerUrl() {
  if (!workerUrl) {
    const text = (id) => document.getElementById(id).textContent;
    workerUrl = URL.createObjectURL(new Blob([text('tm-core'), '\n', text('tm-worker')], { type: 'text/javascript' }));
  }
  return workerUrl;
}

export function createClient() {
  // workerUrl is given so the client never evaluates import.meta.url (empty in a bundle).
  return new MergeClient({ workerUrl: 'inline', createWorker: async () => new Worker(inlineWorkerUrl()) });
}

export function classify(name, head) {
  return classifyFile(name, head);
}
