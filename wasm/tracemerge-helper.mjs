// A second wasm instance that parses whole sources for a merger on another
// thread (wasm has no threads here: the page cannot be cross-origin isolated).
// createMerger({ helper: true }) starts it as a Worker (worker_threads in Node).
// Message in:  { id, args, name, data, sizeHint } — data a Blob, bytes, or
//              { path } of a file (Node); args the merger's options.
// Message out: { id, bytes, heap } — the parsed source (Merger.exportSource,
//              for importSource) and this heap's size — or { id, error }.
import { loadCore } from './tracemerge.mjs';

const isNode = typeof process === 'object' && !!process.versions?.node;
const CHUNK = 1 << 20;

async function* chunks(data) {
  if (data instanceof Uint8Array) {
    for (let i = 0; i < data.length; i += CHUNK) yield data.subarray(i, i + CHUNK);
  } else if (data?.path !== undefined && isNode) {
    const fs = await import('node:fs');
    const fd = fs.openSync(data.path, 'r');
    try {
      const buf = new Uint8Array(CHUNK);
      for (let n; (n = fs.readSync(fd, buf, 0, CHUNK, null)) > 0;) yield buf.subarray(0, n);
    } finally {
      fs.closeSync(fd);
    }
  } else {  // a Blob
    for (let i = 0; i < data.size; i += CHUNK) yield new Uint8Array(await data.slice(i, i + CHUNK).arrayBuffer());
  }
}

async function parse({ args, name, data, sizeHint }) {
  const core = await loadCore();
  const m = new core.Merger(args, undefined, undefined);
  try {
    m.beginSource(name, sizeHint);
    for await (const chunk of chunks(data)) m.appendChunk(chunk);
    m.endSource();
    const [head, tail] = m.exportSource();  // views into the heap: copied at once
    const bytes = new Uint8Array(head.length + tail.length);
    bytes.set(head);
    bytes.set(tail, head.length);
    return { bytes, heap: core.HEAP8.length };
  } finally {
    m.delete();
  }
}

const port = isNode ? (await import('node:worker_threads')).parentPort : self;
const reply = (msg, transfer) => port.postMessage(msg, transfer);
let queue = Promise.resolve();  // one source at a time, in the order they came
const onMessage = (msg) => {
  queue = queue.then(async () => {
    try {
      const { bytes, heap } = await parse(msg);
      reply({ id: msg.id, bytes, heap }, [bytes.buffer]);
    } catch (e) {
      reply({ id: msg.id, error: String(e?.message ?? e) });
    }
  });
};
if (isNode) port.on('message', onMessage);
else port.onmessage = (e) => onMessage(e.data);
