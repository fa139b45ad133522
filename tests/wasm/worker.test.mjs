// The worker protocol (protocol.mjs) end to end with Node worker_threads:
// progress events, transferred result, structured errors, cancel + fresh worker.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CORPUS, GOLDEN, WASM, concat, readTree } from './helpers.mjs';

const { MergeClient } = await import(path.join(WASM, 'tracemerge-client.mjs'));
const MERGE_TRACES = path.join(CORPUS, 'smdebug/tests/profiler/resources/merge_traces');

test('a merge through the worker: progress, then the golden bytes', async () => {
  const client = new MergeClient();
  const progress = [];
  const { chunks, result } = await client.merge(readTree(MERGE_TRACES), { unit: 'step', start: 2, end: 4 },
    { onProgress: (p) => progress.push(p) });
  const expected = fs.readFileSync(path.join(GOLDEN, 'expected/merge_traces_step_2_4.json'));
  assert.ok(concat(chunks).equals(expected));
  assert.equal(result.fatal, null);
  assert.ok(progress.length > 0);
  assert.ok(progress.every((p) => typeof p.mbPerSec === 'number' && p.id));
  client.terminate();
});

test('2 000 small files: at most ten progress messages a second, the last event written among them', async () => {
  const client = new MergeClient();
  const files = Array.from({ length: 2000 }, (_, i) => ({ name: `job/f${i}.json`, inFolder: true,
    data: new TextEncoder().encode(`[{"ph":"X","name":"e","pid":${i},"tid":1,"ts":${i},"dur":1}]`) }));
  const progress = [];
  const t0 = performance.now();
  const { result } = await client.merge(files, {}, { onProgress: (p) => progress.push(p) }).finally(() => client.terminate());
  const seconds = (performance.now() - t0) / 1000;
  assert.equal(result.eventsWritten, 2000);
  assert.ok(progress.length <= 10 * seconds + 2, `${progress.length} progress messages in ${seconds.toFixed(1)} s`);
  assert.deepEqual([progress.at(-1).stage, progress.at(-1).eventsDone], ['write', 2000]);
});

test('a result crosses in pieces: its long arrays in slices of bytes, transferred, parsed back the same', async () => {
  const { toPieces, fromPieces, transferOf } = await import(path.join(WASM, 'protocol.mjs'));
  const result = { eventsWritten: 2500, report: { overview: { lanes: [{ density: [0, 2, 1] }] },
    sources: Array.from({ length: 2500 }, (_, i) => ({ path: `f${i}.json · ü`, identity: { host: i % 2 ? 'a' : '' } })) } };
  const pieces = toPieces(result);
  assert.deepEqual(pieces.slices.map((s) => s.path.join('.')), ['report.sources', 'report.sources', 'report.sources']);
  const { port1, port2 } = new MessageChannel();
  const arrived = new Promise((resolve) => { port2.onmessage = (e) => resolve(e.data); });
  port1.postMessage(pieces, transferOf(pieces));
  assert.ok(pieces.slices.every((s) => s.bytes.byteLength === 0), 'the slices moved, not copied');
  assert.deepEqual(await fromPieces(await arrived), result);
  port1.close();
  port2.close();
});

test('structured errors and cancel with a fresh worker afterwards', async () => {
  const client = new MergeClient();
  await assert.rejects(client.merge(readTree(MERGE_TRACES), { unit: 'step', start: 1, end: 99999 }),
    (e) => e.code === 'UNKNOWN_STEP' && typeof e.offset === 'number');

  const parts = ['['];
  for (let i = 0; i < 400000; i++) parts.push(`{"ph":"i","name":"e","pid":1,"ts":${i}},`);
  const big = new TextEncoder().encode(`${parts.join('')}]`);
  const running = client.merge([{ name: 'big.json', data: big }], {}, {
    onProgress: (p) => { if (p.stage === 'parse' || p.stage === 'read') client.cancel(); },
  });
  await assert.rejects(running, (e) => e.code === 'CANCELLED');

  const { result } = await client.merge(readTree(MERGE_TRACES), {});
  assert.equal(result.eventsWritten, 706);
  client.terminate();
});

// Issue 41: every entry point ends. Each fatal error class, through the page's path (a worker,
// its helper parsing beside it), rejects within seconds with its code, and the next merge works.
test('every fatal error through the worker, helpers running, rejects within seconds; the next merge works', { timeout: 120000 }, async () => {
  const client = new MergeClient();
  const job = readTree(MERGE_TRACES);
  const notATrace = [{ name: 'job/notes.json', data: new TextEncoder().encode('{"hello": "world"}'), inFolder: true }];
  const cases = [
    ['UNKNOWN_STEP', job, { unit: 'step', start: 1, end: 99999 }],
    ['NOT_A_TRACE', notATrace, {}],
    ['USAGE', job, { unit: 'week' }],
    ['USAGE', job, { offsets: { 'no-such-file.json': 5 } }],
  ];
  for (const [code, files, options] of cases) {
    let timer;
    const deadline = new Promise((resolve) => { timer = setTimeout(() => resolve('no answer in 10 s'), 10000); });
    const outcome = await Promise.race([client.merge(files, options).then(() => 'merged', (e) => e.code), deadline]);
    clearTimeout(timer);
    assert.equal(outcome, code, JSON.stringify(options));
  }
  const { result } = await client.merge(job, {});
  assert.equal(result.eventsWritten, 706, 'the worker still merges');
  client.terminate();
});

test('a worker that dies mid-merge rejects with ABORT and is replaced', async () => {
  const { Worker } = await import('node:worker_threads');
  let made = 0;
  const client = new MergeClient({
    createWorker: async () => (made++ === 0
      ? new Worker("require('node:worker_threads').parentPort.on('message', () => { throw new Error('boom'); });", { eval: true })
      : new Worker(new URL(`file://${path.join(WASM, 'tracemerge-worker.mjs')}`))),
  });
  await assert.rejects(client.merge(readTree(MERGE_TRACES), {}), (e) => e.code === 'ABORT' && /crashed/.test(e.message));
  const { result } = await client.merge(readTree(MERGE_TRACES), {});
  assert.equal(result.eventsWritten, 706);
  assert.equal(made, 2);
  client.terminate();
});

// Issue 42: a stuck worker never traps the page. A worker that hangs at any stage it reported
// — reading, parsing, writing — is replaced on Cancel (reading: once it has not said it stopped
// within the deadline), and the next merge works on a fresh worker; one that says it stopped
// in time is kept.
test('Cancel replaces a worker stuck at any stage; one that answers in time is kept', { timeout: 60000 }, async () => {
  const { Worker } = await import('node:worker_threads');
  const real = () => new Worker(new URL(`file://${path.join(WASM, 'tracemerge-worker.mjs')}`));
  // A worker that reports `stage` and then never answers again (nor stops on a cancel).
  const stuck = (stage) => new Worker(`const { parentPort } = require('node:worker_threads');
    parentPort.on('message', (m) => { if (m.type === 'merge') parentPort.postMessage({ type: 'progress', id: m.id, stage: ${JSON.stringify(stage)} }); });`, { eval: true });
  for (const stage of ['read', 'parse', 'write']) {
    const made = [];
    const client = new MergeClient({ cancelAnswerMs: 300, createWorker: async () => { const w = made.length ? real() : stuck(stage); made.push(w); return w; } });
    const first = client.merge(readTree(MERGE_TRACES), {}, { onProgress: () => client.cancel() });
    await assert.rejects(first, (e) => e.code === 'CANCELLED', stage);
    const started = Date.now();
    const { result } = await client.merge(readTree(MERGE_TRACES), {});
    assert.equal(result.eventsWritten, 706, stage);
    assert.equal(made.length, 2, `${stage}: the stuck worker was replaced`);
    assert.ok(Date.now() - started < 10000, stage);
    client.terminate();
  }
  // A worker that stops when cancelled while reading (it answers CANCELLED) is kept.
  const made = [];
  const client = new MergeClient({ cancelAnswerMs: 5000, createWorker: async () => { const w = real(); made.push(w); return w; } });
  let cancelled = false;
  const first = client.merge(readTree(MERGE_TRACES), {}, { onProgress: (p) => { if (!cancelled && p.stage === 'read') { cancelled = true; client.cancel(); } } });
  await assert.rejects(first, (e) => e.code === 'CANCELLED');
  const { result } = await client.merge(readTree(MERGE_TRACES), {});
  assert.equal(result.eventsWritten, 706);
  assert.ok(cancelled, 'cancelled while reading');
  assert.equal(made.length, 1, 'the worker that stopped in time is kept');
  client.terminate();
});

// Issue 39: no silent wait. A merge worker that says nothing — it never answers, or its thread
// is stuck in a loop — fails the merge with ABORT once silenceMs passed, and is replaced; a
// real worker, saying ALIVE between its progress, is never taken for hung at the same deadline.
test('a merge worker that goes silent fails the merge with a reason and is replaced; a working one is not taken for hung', { timeout: 60000 }, async () => {
  const { Worker } = await import('node:worker_threads');
  const real = () => new Worker(new URL(`file://${path.join(WASM, 'tracemerge-worker.mjs')}`));
  const silent = {
    quiet: "require('node:worker_threads').parentPort.on('message', () => {});",
    looping: "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => { if (m.type === 'merge') { parentPort.postMessage({ type: 'progress', id: m.id, stage: 'parse' }); for (;;); } });",
  };
  for (const [what, body] of Object.entries(silent)) {
    const made = [];
    const client = new MergeClient({ silenceMs: 400, createWorker: async () => { const w = made.length ? real() : new Worker(body, { eval: true }); made.push(w); return w; } });
    const started = Date.now();
    await assert.rejects(client.merge(readTree(MERGE_TRACES), {}),
      (e) => e.code === 'ABORT' && /the merge worker said nothing for 0.4 s \(no progress\) and was stopped/.test(e.message), what);
    assert.ok(Date.now() - started < 5000, `${what}: rejected in ${Date.now() - started} ms`);
    const { result } = await client.merge(readTree(MERGE_TRACES), {});
    assert.equal(result.eventsWritten, 706, what);
    assert.equal(made.length, 2, `${what}: replaced`);
    client.terminate();
  }
  // A real worker, helpers and all, over the whole smdebug corpus at a 1.5 s deadline.
  const client = new MergeClient({ silenceMs: 1500 });
  const alone = new MergeClient();
  const files = readTree(path.join(CORPUS, 'smdebug'));
  const [a, b] = [await client.merge(files, {}), await alone.merge(files, {})];
  assert.ok(Buffer.concat(a.chunks).equals(Buffer.concat(b.chunks)));
  client.terminate();
  alone.terminate();
});
