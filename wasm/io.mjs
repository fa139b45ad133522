// Bytes into and out of a wasm heap: files streamed in 1 MB chunks (Node reads
// them straight into the heap), a source's exported bytes joined, the store
// for events beyond the heap's budget, and the turn that lets a Worker's
// replies in. Used by tracemerge.mjs and tracemerge-helper.mjs.
import { TraceMergeError } from './errors.mjs';

const isNode = typeof process === 'object' && !!process.versions?.node;

const CHUNK = 1 << 20;
const isBlob = (data) => !!data && typeof data.slice === 'function' && typeof data.size === 'number';

/**
 * The expected inflated size, so the wasm side allocates once (gzip keeps it in its last 4 bytes).
 * @param {object} core a core from loadCore()
 * @param {SourceData} data
 * @returns {Promise<number>} the size in bytes; 0 for an iterator (unknown)
 */
export async function sizeHint(core, data) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  if (bytes instanceof Uint8Array) {
    return bytes.length >= 6 ? core.gzipSizeHint(bytes.subarray(0, 2), bytes.subarray(-4), bytes.length) : bytes.length;
  }
  if (isBlob(data)) {
    if (data.size < 6) return data.size;
    const [head, tail] = await Promise.all([data.slice(0, 2).arrayBuffer(), data.slice(-4).arrayBuffer()]);
    return core.gzipSizeHint(new Uint8Array(head), new Uint8Array(tail), data.size);
  }
  return 0;  // an iterator: unknown
}

/**
 * Yields Uint8Array chunks (1 MB) of a File/Blob, Uint8Array or ArrayBuffer, or
 * those of an iterator (feed() reads a Node { path } itself). Other data is a USAGE error.
 * @param {SourceData} data
 * @returns {AsyncGenerator<Uint8Array>}
 */
export async function* chunksOf(data) {
  if (data instanceof Uint8Array) {
    for (let i = 0; i < data.length; i += CHUNK) yield data.subarray(i, i + CHUNK);
  } else if (data instanceof ArrayBuffer) {
    yield* chunksOf(new Uint8Array(data));
  } else if (isBlob(data)) {
    // (a slice of a File costs a round trip to the browser of its own: a small one is read whole)
    if (data.size <= CHUNK) yield await readWhole(data);
    else for (let i = 0; i < data.size; i += CHUNK) yield new Uint8Array(await data.slice(i, i + CHUNK).arrayBuffer());
  } else if (data && (data[Symbol.asyncIterator] || data[Symbol.iterator])) {
    yield* data;  // an iterator of Uint8Array chunks (each is copied before the next is read)
  } else {
    throw new TraceMergeError({ code: 'USAGE', message: 'file data must be a Blob, File, Uint8Array, ArrayBuffer or chunk iterator' });
  }
}

/**
 * Where the core puts event templates beyond its heap budget (--memory-mb,
 * default 512): ArrayBuffers outside the wasm heap, so that jobs larger than
 * the 4 GB heap merge (the page's worker and Node alike; Blobs would depend on
 * the browser's Blob storage, which is small in private windows).
 * put/get never throw: a failure is false/null, which the core reports.
 * @returns {{ put: (key: number, bytes: Uint8Array) => boolean,
 *   get: (key: number, offset: number, length: number) => Uint8Array | null }}
 */
export function createStore() {
  const keys = [];  // key → { at: [piece start…], pieces: [Uint8Array…], size }
  return {
    put(key, view) {
      try {
        const k = (keys[key] ??= { at: [], pieces: [], size: 0 });
        k.at.push(k.size);
        k.pieces.push(view.slice());
        k.size += view.length;
        return true;
      } catch {
        return false;
      }
    },
    get(key, offset, length) {
      try {
        const k = keys[key];
        if (!k || offset + length > k.size) return null;
        let lo = 0;  // the last piece starting at or before offset
        for (let hi = k.at.length - 1; lo < hi;) {
          const mid = (lo + hi + 1) >> 1;
          if (k.at[mid] <= offset) lo = mid;
          else hi = mid - 1;
        }
        const out = new Uint8Array(length);
        for (let done = 0, i = lo; done < length; i++) {
          const from = offset + done - k.at[i];
          const bytes = k.pieces[i].subarray(from, from + length - done);
          out.set(bytes, done);
          done += bytes.length;
        }
        return out;
      } catch {
        return null;
      }
    },
  };
}

/**
 * Streams a source's bytes into a core Merger `m` (or an object with its
 * chunkSize, chunkRoom and appendRoom): each chunk into the room the heap has for it —
 * Node reads files straight there; each(n) after every chunk.
 * @param {{ chunkSize(max: number): number, chunkRoom(n: number): Uint8Array, appendRoom(n: number): void }} m
 * @param {SourceData | { path: string }} data
 * @param {(n: number) => void} [each] gets the bytes of each chunk taken in
 * @returns {Promise<void>}
 */
export async function feed(m, data, each) {
  if (isNode && typeof data?.path === 'string') {
    const fs = await import('node:fs');
    const fd = fs.openSync(data.path, 'r');
    try {
      // Chunks of the size the core asks (no room past the size hint: the
      // source's buffer would regrow). (No JS runs between chunkRoom() and the
      // read: the view stays valid.)
      for (;;) {
        const want = m.chunkSize(CHUNK);
        const n = fs.readSync(fd, m.chunkRoom(want), 0, want, null);
        if (n === 0) break;
        m.appendRoom(n);
        each?.(n);
      }
    } finally {
      fs.closeSync(fd);
    }
    return;
  }
  for await (const chunk of chunksOf(data)) {
    m.chunkRoom(chunk.length).set(chunk);
    m.appendRoom(chunk.length);
    each?.(chunk.length);
  }
}

/**
 * The files of a merge in their order, each small Blob (a File the page was given) read whole
 * ahead of its turn, up to `files` of them and `bytes` at once: a Blob read is a round trip to
 * the browser's file system (about 1 ms here) whoever waits for it, and 20 000 one-event files
 * read one at a time spent most of their merge waiting. Yields { name, data, inFolder } with
 * data the bytes read (bigger Blobs, bytes and paths as they came: fed in chunks in their turn).
 * A file that cannot be read is an IO error naming it, in its turn.
 * @param {{ name: string, data: SourceData | { path: string }, inFolder?: boolean }[]} list
 * @param {{ files?: number, bytes?: number }} [ahead] how many files (default 64) and bytes (32 MB) read ahead
 * @returns {AsyncGenerator<{ name: string, data: SourceData | { path: string }, inFolder?: boolean }>}
 */
export async function* readAhead(list, { files = 64, bytes = 32 << 20 } = {}) {
  const ahead = [];  // { file, read: Promise of { data } | { error } }, in order
  let next = 0;
  let held = 0;
  const small = (f) => isBlob(f.data) && f.data.size <= CHUNK;
  const fill = () => {
    for (; next < list.length && ahead.length < files && held < bytes; next++) {
      const f = list[next];
      if (!small(f)) {
        ahead.push({ file: f, read: null });
        continue;
      }
      held += f.data.size;
      ahead.push({ file: f, read: readWhole(f.data).then((data) => ({ data }), (error) => ({ error })) });
    }
  };
  for (fill(); ahead.length; fill()) {
    const { file, read } = ahead.shift();
    if (!read) {
      yield file;
      continue;
    }
    const got = await read;
    held -= file.data.size;
    if (got.error) {
      throw new TraceMergeError({ code: 'IO', message: `${file.name}: cannot read it (${got.error.message ?? got.error})`, file: file.name });
    }
    yield { ...file, data: got.data };
  }
}

/**
 * A Blob's bytes, through its stream: Chromium's arrayBuffer() and slice() of a File wait for
 * the browser on the calling thread (about 0.5 ms each); a stream's reads do not.
 * @param {Blob} blob
 * @returns {Promise<Uint8Array>}
 */
export async function readWhole(blob) {
  const reader = blob.stream().getReader();
  const parts = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return parts.length === 1 ? parts[0] : joinAll(parts);
}

function joinAll(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Merger.exportSource()'s two views into the heap, copied into one array.
 * @param {[Uint8Array, Uint8Array]} views
 * @returns {Uint8Array}
 */
export function joined([head, tail]) {
  return joinAll([head, tail]);
}

/**
 * Whether the helper can read the data itself: a file path (Node), a Blob, bytes.
 * @param {SourceData | { path: string }} data
 * @returns {boolean}
 */
export const helperCanRead = (data) =>
  data instanceof Uint8Array || (isNode && typeof data?.path === 'string') ||
  (typeof Blob !== 'undefined' && data instanceof Blob);

/**
 * Resolves on the event loop's next turn, which lets a finished helper's reply in (or, in the
 * helper, a takeBack): a Worker's message waits for the event loop, which reading a file in Node
 * (synchronous) does not reach.
 * @returns {Promise<void>}
 */
export const nextTurn = () => new Promise((resolve) => {
  if (isNode) return setImmediate(resolve);
  const channel = new MessageChannel();  // (setTimeout would wait 4 ms once nested)
  channel.port1.onmessage = () => resolve(channel.port1.close());
  channel.port2.postMessage(0);
});

