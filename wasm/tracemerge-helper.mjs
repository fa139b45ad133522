// A second wasm instance that parses whole sources for a merger on another
// thread (wasm has no threads here: the page cannot be cross-origin isolated).
// createMerger({ helper: true }) starts it as a Worker (worker_threads in Node).
// Message in:  { id, args, name, data, sizeHint, inFolder } — data a Blob, bytes, or
//              { path } of a file (Node); args the merger's options — or
//              { id, takeBack: true }: the newest source not started is
//              answered at once with { id: its id, takenBack: true }, for the
//              caller to parse, then this with { id, taken: its id or null } — or
//              { release: true, heapOver }: the merge is over (scheduler.mjs keeps
//              this worker for the next): the sources not started are dropped and,
//              once the one parsing is done, the wasm instance too if its heap grew
//              past heapOver bytes (the next parse loads a fresh one).
// Message out: { id, bytes, heap } — the parsed source (Merger.exportSource,
//              for importSource) and this heap's size — or { id, error }.
// In a browser the page starts it (tracemerge-client.mjs) and sends { connect: port }:
// then it talks with its merger in the merge worker through that MessagePort.
import { feed, joined, nextTurn } from './io.mjs';
import { loadCore, releaseCore } from './tracemerge.mjs';

const isNode = typeof process === 'object' && !!process.versions?.node;
// The core loads as the worker starts (compiling it takes a few hundred ms),
// not when the first source comes.
let ready = loadCore();
ready.catch(() => {});  // (a failure shows on the first parse)

async function parse({ args, name, data, sizeHint, inFolder }) {
  ready ??= loadCore();
  const core = await ready;
  const m = new core.Merger(args, undefined, undefined);
  try {
    m.beginSource(name, sizeHint, !!inFolder);
    await feed(m, data);
    m.endSource();
    return { bytes: joined(m.exportSource()), heap: core.HEAP8.length };
  } finally {
    m.delete();
  }
}

let port = isNode ? (await import('node:worker_threads')).parentPort : self;
const reply = (msg, transfer) => port.postMessage(msg, transfer);
let queue = Promise.resolve();  // one source at a time, in the order they came
const waiting = new Set();      // ids queued, not started
const onMessage = (msg) => {
  if (msg.release) {
    waiting.clear();
    queue = queue.then(async () => {
      const core = await ready?.catch(() => null);
      if (core && core.HEAP8.length > msg.heapOver) {
        releaseCore();
        ready = null;
      }
    });
    return;
  }
  if (msg.takeBack) {
    const taken = [...waiting].pop() ?? null;  // (a Set keeps the order they came in)
    if (taken !== null) {
      waiting.delete(taken);
      reply({ id: taken, takenBack: true });
    }
    return reply({ id: msg.id, taken });
  }
  waiting.add(msg.id);
  queue = queue.then(async () => {
    await nextTurn();  // a takeBack that came meanwhile goes first
    if (!waiting.delete(msg.id)) return;  // taken back
    try {
      const { bytes, heap } = await parse(msg);
      reply({ id: msg.id, bytes, heap }, [bytes.buffer]);
    } catch (e) {
      releaseCore();  // (an instance that threw may have aborted: the next parse loads another)
      ready = null;
      reply({ id: msg.id, error: String(e?.message ?? e) });
    }
  });
};
if (isNode) port.on('message', onMessage);
else {
  port.onmessage = (e) => {
    if (!e.data?.connect) return onMessage(e.data);
    port = e.data.connect;
    port.onmessage = (m) => onMessage(m.data);
  };
}
