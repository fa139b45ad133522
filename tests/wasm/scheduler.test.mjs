// The helper pool (wasm/scheduler.mjs) with fake helpers driven by hand: each
// step — a helper starts a source, answers it, is asked to give one back —
// happens when the test says, never after a wait.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { CORPUS, NATIVE_CLI, NODE_CLI, WASM, run } from './helpers.mjs';

const { HelperPool, helperCount } = await import(path.join(WASM, 'scheduler.mjs'));

// A helper as the pool sees it; the test starts and answers its sources.
function fake(name) {
  const jobs = [];  // { job, resolve, started, answered }
  const h = {
    name, heap: 0, stopped: false, asked: 0,
    parse(job) { return new Promise((resolve) => jobs.push({ job, resolve, started: false, answered: false })); },
    takeBack() {  // the newest not started, as tracemerge-helper.mjs does
      h.asked++;
      const j = jobs.findLast((x) => !x.started && !x.answered);
      if (!j) return Promise.resolve(null);
      j.answered = true;
      j.resolve({ takenBack: true });
      return Promise.resolve(j.job.id);
    },
    stop() { h.stopped = true; },
    start(id) { jobs.find((x) => x.job.id === id).started = true; },
    answer(id, heap = 0) {
      const j = jobs.find((x) => x.job.id === id);
      j.answered = true;
      j.resolve({ bytes: new Uint8Array([id]), heap });
    },
    kept: () => jobs.filter((x) => !x.answered).map((x) => x.job.id),
  };
  return h;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));  // lets settled promises run (not a wait for time)

test('push: to the helper with the fewest waiting, null when every one is full', () => {
  const a = fake('a'), b = fake('b');
  const pool = new HelperPool([a, b], { perHelper: 2 });
  const replies = [1, 2, 3, 4].map((id) => pool.push({ id }));
  assert.ok(replies.every((r) => r instanceof Promise));
  assert.deepEqual(a.kept(), [1, 3]);
  assert.deepEqual(b.kept(), [2, 4]);
  assert.equal(pool.push({ id: 5 }), null, 'full: the caller parses it itself');
});

test('an answer frees a place; replies pass through (bytes, errors) and heaps are counted', async () => {
  const a = fake('a');
  const pool = new HelperPool([a], { perHelper: 1 });
  const r1 = pool.push({ id: 1 });
  assert.equal(pool.push({ id: 2 }), null);
  a.start(1);
  a.answer(1, 5000);
  assert.deepEqual(await r1, { bytes: new Uint8Array([1]), heap: 5000 });
  assert.equal(pool.heap, 5000);
  assert.ok(pool.push({ id: 2 }) instanceof Promise, 'room again');
});

test('settle: the newest not started come back, a helper at a time in turn, while started ones finish', async () => {
  const a = fake('a'), b = fake('b');
  const stops = [];
  const pool = new HelperPool([a, b], { perHelper: 3, beforeStop: () => stops.push(pool.heap) });
  const replies = new Map([1, 2, 3, 4, 5, 6].map((id) => [id, pool.push({ id })]));  // a: 1 3 5, b: 2 4 6
  a.start(1);
  b.start(2);
  const back = [];
  const order = [];
  const settled = pool.settle(async () => { order.push(back.length); });
  for (const [id, r] of replies) r.then((reply) => { if (reply.takenBack) back.push(id); });
  await tick();
  await tick();
  // a gives back 5, b 6, a 3, b 4; 1 and 2 stay with them.
  while (back.length < 4) await tick();
  assert.deepEqual(back, [5, 6, 3, 4]);
  assert.deepEqual(a.kept(), [1]);
  assert.deepEqual(b.kept(), [2]);
  assert.equal(a.stopped || b.stopped, false, 'each still works on the one it started');
  a.answer(1, 100);
  await replies.get(1);
  await tick();
  assert.equal(a.stopped, true, 'a stops once it has answered all it kept');
  assert.equal(b.stopped, false);
  b.answer(2, 200);
  await settled;
  await tick();
  assert.equal(b.stopped, true);
  assert.equal(order.length, 4, 'the caller parsed each source taken back before the next was asked for');
  assert.deepEqual(stops, [100, 200], 'a heap still counts when its helper stops');
  assert.equal(pool.push({ id: 7 }), null, 'after settle, sources are parsed here');
});

test('a helper that fails answers with an error, which the caller gets (and parses that source itself)', async () => {
  const broken = { heap: 0, parse: () => Promise.resolve({ error: 'the helper stopped' }), takeBack: () => Promise.resolve(null), stop() {} };
  const pool = new HelperPool([broken]);
  assert.deepEqual(await pool.push({ id: 1 }), { error: 'the helper stopped' });
  await pool.settle();
  assert.equal(pool.running, 0);
});

test('helper count: one per core beyond this one, within the heap budget, or as asked', () => {
  assert.equal(helperCount(3), 3);
  assert.equal(helperCount(0), 0);
  assert.equal(helperCount(7, { budget: 2 * (232 << 20) }), 2, 'the budget holds two');
  assert.ok(helperCount(undefined) >= 0);
});

test('every thread count gives the same bytes: node --threads 1, 2, 3, 8 = native', () => {
  const job = path.join(CORPUS, 'smdebug/constructed/combined_job');
  const native = run(NATIVE_CLI, [job, '-o', '-', '--quiet', '--threads', '1']);
  assert.equal(native.status, 0, native.stderr);
  for (const threads of ['2', '3', '8'])
    assert.ok(run(NATIVE_CLI, [job, '-o', '-', '--quiet', '--threads', threads]).stdout.equals(native.stdout), `native ${threads}`);
  for (const threads of ['1', '2', '3', '8']) {
    const r = run(NODE_CLI, [job, '-o', '-', '--quiet', '--threads', threads]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.equals(native.stdout), `node --threads ${threads}`);
  }
});
