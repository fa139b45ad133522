// How the hosted page (build/web/index.html) reaches the merge core: ES modules next to
// it (./wasm/), the merge in a module Worker. The single-file page swaps this module for
// platform-single.mjs at build time (web/build.mjs).
import { MergeClient } from './wasm/tracemerge-client.mjs';

/** Whether this is the single-file page's platform: false here (true in platform-single.mjs). */
export const singleFile = false;

/**
 * A client of the merge Worker (a module Worker next to the page).
 * @returns {MergeClient}
 */
export function createClient() {
  return new MergeClient();
}

// What a file is, from its first 64 KB (files.mjs readHead; the core is loaded on first use).
let api = null;  // (imported once: an import() a file cost 0.2 ms, 4 s for 20 000 files)
/**
 * What a file is, from its first bytes: classifyFile() of wasm/tracemerge.mjs.
 * @param {string} name its path
 * @param {Uint8Array} head its first bytes (up to 64 KB)
 * @returns {Promise<{ kind: Kind, node: string, reason: string, quiet: boolean }>}
 */
export async function classify(name, head) {
  api ??= import('./wasm/tracemerge.mjs');
  return (await api).classifyFile(name, head);
}
