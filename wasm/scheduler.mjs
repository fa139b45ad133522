// The helpers of one merge: wasm instances in Workers (tracemerge-helper.mjs)
// that parse whole sources while the merging instance parses others — wasm
// has no threads here, so this is how a merge uses the other cores. The pool
// has the native pool's semantics (core/worker_pool.h):
//   push      a source goes to the helper with the fewest waiting, if one has
//             room (perHelper); else null: the caller parses it itself;
//   take back once the last source is pushed, settle() takes back the
//             sources no helper has started — newest first, a helper at a
//             time in turn — for the caller to parse while the helpers go on
//             with the ones they started;
//   settle    … until none is left; each helper stops once it has answered
//             every source it kept (its memory goes).
//
//   const pool = new HelperPool([await startHelper(), await startHelper()], { perHelper: 2 });
//   const reply = pool.push(job);   // a Promise of { bytes, heap } | { takenBack } | { error }, or null
//   await pool.settle(() => parsedHere);   // awaited after each source taken back
//
// A helper is { parse(job) → Promise<reply>, takeBack() → Promise<id|null>,
// stop(), heap }; parse never rejects. Tests drive fake ones by hand.
import { boundWorker } from './protocol.mjs';
const isNode = typeof process === 'object' && !!process.versions?.node;

/**
 * The helpers of one merge, as above: push() gives a helper a source, settle() takes back
 * those none started and stops each helper once it has answered the rest.
 */
export class HelperPool {
  // beforeStop(): called before a helper stops (its heap still counted).
  constructor(helpers, { perHelper = 2, beforeStop = () => {} } = {}) {
    this.perHelper = perHelper;
    this.beforeStop = beforeStop;
    this.slots = helpers.map((helper) => ({ helper, waiting: 0, stopped: false }));
    this.settling = false;
  }

  // The helpers still running.
  get running() { return this.slots.filter((s) => !s.stopped).length; }

  // The largest heap of each helper still running, summed (heaps only grow).
  get heap() { return this.slots.reduce((n, s) => n + (s.stopped ? 0 : s.helper.heap ?? 0), 0); }

  push(job) {
    if (this.settling) return null;
    let slot = null;
    for (const s of this.slots)
      if (!s.stopped && s.waiting < this.perHelper && (!slot || s.waiting < slot.waiting)) slot = s;
    if (!slot) return null;
    slot.waiting++;
    return slot.helper.parse(job).then((reply) => {
      slot.helper.heap = Math.max(slot.helper.heap ?? 0, reply.heap ?? 0);
      slot.waiting--;
      this.stopWhenDone(slot);
      return reply;
    });
  }

  // Takes back, in turn, a source from each helper that has one not started;
  // afterEach() is awaited after each (the caller parses it meanwhile).
  async settle(afterEach = async () => {}) {
    this.settling = true;
    for (const s of this.slots) this.stopWhenDone(s);
    const left = new Set(this.slots.filter((s) => !s.stopped));
    while (left.size) {
      for (const s of [...left]) {
        if (s.stopped || (await s.helper.takeBack()) === null) {
          left.delete(s);
          continue;
        }
        await afterEach();
      }
    }
  }

  stop() {
    for (const s of this.slots) this.stopSlot(s);
  }

  stopWhenDone(slot) {
    if (this.settling && slot.waiting === 0) this.stopSlot(slot);
  }

  stopSlot(slot) {
    if (slot.stopped) return;
    this.beforeStop();
    slot.stopped = true;
    slot.helper.stop();
  }
}

/** The largest source (bytes, inflated) a merger gives a helper; it parses bigger ones itself. */
export const HELPER_MAX = 64 << 20;  // inflated size of a source a helper takes
/** The heap (bytes) a helper may grow to: about 3× the largest source it parses, plus its ~40 MB. */
export const HELPER_HEAP = 3 * HELPER_MAX + (40 << 20);
/**
 * How many helpers a merge may start: one per core beyond this one, no more
 * than the heap budget holds (each helper's heap grows to about 3× the
 * largest source it parses, HELPER_MAX at most, plus its ~40 MB), and never
 * more than `asked` (a number: --threads N - 1), nor 63.
 * @param {number | undefined} asked how many were asked for; undefined: as many as the cores
 * @param {{ budget?: number }} [opts] the heap budget in bytes of all the helpers (default 1.5 GB)
 * @returns {number}
 */
export function helperCount(asked, { budget = 1536 << 20 } = {}) {
  const cores = isNode
    ? (globalThis.process.getBuiltinModule?.('node:os') ?? null)?.availableParallelism?.() ?? coresFromNavigator()
    : coresFromNavigator();
  const byCores = Math.max(0, cores - 1);
  const byBudget = Math.max(0, Math.floor(budget / HELPER_HEAP));
  const wanted = typeof asked === 'number' ? asked : byCores;
  return Math.max(0, Math.min(wanted, byBudget, 63));
}
function coresFromNavigator() {
  return globalThis.navigator?.hardwareConcurrency ?? 2;
}

const idle = new Map();  // url → helpers stopped, ready for the next merge
const RELEASE_HEAP = 64 << 20;
let connect = null;
/**
 * Sets how helpers are started in a browser worker. A Worker's own new Worker() hung for good
 * now and then in Firefox (3 in 250 sample merges, the first helper of a fresh page); one the
 * page starts never did. So the merge worker asks the page (tracemerge-worker.mjs sets this):
 * connect(url) → a Promise of { port, onFail(callback), stop() }, port a MessagePort to a helper
 * the page started, stop() asks the page to end it (or { port: null, error } when it started none).
 * @param {(url: URL | string) => Promise<{ port: MessagePort | null, error?: string,
 *   onFail?: (callback: (why: string) => void) => void, stop?: () => void }>} fn
 */
export function helpersFrom(fn) { connect = fn; }

/**
 * No silent wait: a helper that owes answers and says nothing for answerMs, plus the time
 * the largest source it owes takes at bytesPerMs (1 MB/s: a twentieth of the slowest parse
 * measured in any engine here), is taken for hung — stopped for good, every source it owes
 * answered { error } (so parsed by its merger instead, which says so: result.helperNotes).
 * (Tests shorten it.)
 */
export const helperDeadline = { answerMs: 30000, bytesPerMs: 1000 };
const jobBytes = (job) => Math.max(job.sizeHint ?? 0, job.data?.size ?? job.data?.byteLength ?? 0);
/**
 * Starts a helper Worker (worker_threads in Node) running tracemerge-helper.mjs — or takes
 * one that an earlier merge stopped: a helper lives as long as the thread that started it
 * and is reused. Creating and terminating workers between a scan and its merge froze Firefox
 * now and then (a new Worker() that never returned, 4 in 162 merges); stop() only releases it
 * (its queue dropped, its wasm instance too once the heap grew past RELEASE_HEAP, so its
 * memory goes) and, in Node, lets the process end without it.
 * @param {URL | string} [url] the helper module (default: tracemerge-helper.mjs beside this one)
 * @returns {Promise<{ heap: number, parse(job: object): Promise<object>, takeBack(): Promise<number | null>,
 *   stop(): void, take(): void }>} the helper, as HelperPool takes it
 */
export async function startHelper(url = new URL('./tracemerge-helper.mjs', import.meta.url)) {
  const key = String(url);
  const reused = idle.get(key)?.pop();
  if (reused) {
    reused.take();
    return reused;
  }
  const linked = !isNode && connect ? await connect(url) : null;
  const worker = linked ? linked.port ?? { postMessage() {} } : (isNode
    ? new (await import('node:worker_threads')).Worker(url)
    : boundWorker(url));
  const waiting = new Map();  // id → resolve
  const owed = new Map();     // id → bytes of the source (0: a takeBack)
  let next = 0;
  let failed = linked && !linked.port ? linked.error : null;  // why the worker stopped, if it did
  let stopped = false;  // released, until the next merge takes it
  let timer = null;     // the deadline of its next word, while it owes answers
  const watch = () => {
    clearTimeout(timer);
    timer = null;
    if (!owed.size || failed || stopped) return;
    const ms = helperDeadline.answerMs + Math.max(...owed.values()) / helperDeadline.bytesPerMs;
    timer = setTimeout(() => {
      const n = [...owed.values()].filter((b) => b > 0).length;
      onFail(`a helper said nothing for ${(ms / 1000).toFixed(1)} s while it owed ${n} source${n === 1 ? '' : 's'}, and was stopped`);
      try {
        if (linked) linked.stop?.();
        else worker.terminate();
      } catch {}
    }, ms);
  };
  const ask = (id, bytes, msg, resolve) => {
    waiting.set(id, resolve);
    owed.set(id, bytes);
    worker.postMessage(msg);
    watch();
  };
  const onReply = (msg) => {
    waiting.get(msg.id)?.(msg);
    waiting.delete(msg.id);
    owed.delete(msg.id);
    watch();  // (any word is a sign of life)
  };
  const answerAll = (why) => {
    for (const resolve of waiting.values()) resolve({ error: why });
    waiting.clear();
    owed.clear();
    watch();
  };
  const onFail = (e) => {  // the worker itself failed: every parse, now or later, falls back
    failed ??= String(e?.message ?? e ?? 'the helper stopped');
    answerAll(failed);
    const list = idle.get(key);
    if (list?.includes(helper)) list.splice(list.indexOf(helper), 1);
  };
  const crashed = (e) => onFail(`a helper failed (${e?.message ?? e ?? 'an error'})`);
  if (isNode) worker.on('message', onReply).on('error', crashed).on('exit', (code) => onFail(`a helper exited (code ${code})`));
  else Object.assign(worker, { onmessage: (e) => onReply(e.data), onerror: crashed });
  linked?.onFail(onFail);
  const helper = {
    heap: 0,  // the largest its heap was
    // Resolves { bytes, heap }, { takenBack } or { error }; never rejects.
    parse(job) {
      const id = next++;
      return new Promise((resolve) => {
        if (failed || stopped) return resolve({ error: failed ?? 'the helper was stopped' });
        ask(id, jobBytes(job), { ...job, id }, resolve);
      });
    },
    // Takes back the newest source it has not started (whose parse() then
    // resolves { takenBack }); resolves that source's id, or null.
    takeBack() {
      const id = next++;
      return new Promise((resolve) => {
        if (failed || stopped) return resolve(null);
        ask(id, 0, { takeBack: true, id }, (msg) => resolve(msg.taken ?? null));
      });
    },
    // Releases it for the next merge: the sources it has not started are dropped, a reply
    // still on the way is not waited for, its memory goes.
    stop() {
      if (stopped || failed) return;
      stopped = true;
      answerAll('the helper was stopped');
      worker.postMessage({ release: true, heapOver: RELEASE_HEAP });
      if (isNode) worker.unref();
      if (!idle.has(key)) idle.set(key, []);
      idle.get(key).push(helper);
    },
    take() {
      stopped = false;
      helper.heap = 0;
      if (isNode) worker.ref();
    },
  };
  return helper;
}
