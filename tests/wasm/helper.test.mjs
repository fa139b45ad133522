// The second instance (createMerger's helper, tracemerge-helper.mjs, which the
// Node CLI starts on machines with two cores): sources it parses come back and
// merge to the same bytes and report as one instance alone — whichever data
// it is given (file paths, Blobs, bytes) — and a helper that fails loses
// nothing: those sources are parsed by the merger itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CORPUS, WASM, concat, readTree, tmpDir } from './helpers.mjs';

const { createMerger, TraceMergeError } = await import(path.join(WASM, 'tracemerge.mjs'));
const { helperDeadline } = await import(path.join(WASM, 'scheduler.mjs'));

// Merges files ({ name, data }) with the given helper option; { bytes, report, summary, heapPeak }.
// settle() takes back the sources the helper has not started, which on small
// inputs may be all of them while it starts: with `pause`, the helper gets
// half a second to take its first sources first.
async function merge(files, helper, args = [], { pause = false } = {}) {
  const merger = await createMerger(args, { helper });
  for (const f of files) await merger.addSource(f.name, f.data);
  if (pause) await new Promise((resolve) => setTimeout(resolve, 500));
  await merger.settle();
  const { heapPeak, helped, helperNotes } = merger;
  const { chunks, result } = merger.merge();
  return { bytes: concat(chunks), report: JSON.stringify(result.report), summary: result.summary, heapPeak, helped, helperNotes };
}

for (const dir of ['real', 'smdebug']) {
  test(`${dir} corpus: with a helper, the same bytes and report as without`, async () => {
    const files = readTree(path.join(CORPUS, dir));
    const alone = await merge(files, false);
    assert.ok(alone.bytes.length > 1000);
    const asBlobs = files.map((f) => ({ name: f.name, data: new Blob([f.data]) }));
    for (const [label, input] of [['bytes', files], ['blobs', asBlobs]]) {
      const helped = await merge(input, true, [], { pause: true });
      assert.ok(helped.bytes.equals(alone.bytes), `${dir} ${label}: bytes differ`);
      assert.equal(helped.report, alone.report, `${dir} ${label}: report differs`);
      assert.equal(helped.summary, alone.summary);
      assert.ok(helped.helped > 0 && helped.helped < files.length, `${helped.helped} of ${files.length} by the helper`);
      assert.ok(helped.heapPeak >= alone.heapPeak * 0.5);
    }
  });
}

test('file paths are read by the helper itself; gzip output too', async () => {
  const dir = path.join(CORPUS, 'smdebug/constructed/combined_job');
  const files = readTree(dir);
  const onDisk = files.map((f) => ({ name: f.name, data: { path: path.join(path.dirname(dir), f.name), size: f.data.length } }));
  const alone = await merge(files, false, ['--gzip']);
  const helped = await merge(onDisk, true, ['--gzip'], { pause: true });
  assert.ok(helped.bytes.equals(alone.bytes));
  assert.ok(helped.helped > 0);
  assert.equal(helped.report, alone.report);
});

test('a helper that fails, never starts or starts nothing loses nothing: its sources are parsed here', { timeout: 60000 }, async () => {
  const files = readTree(path.join(CORPUS, 'smdebug'));
  const alone = await merge(files, false);
  const dir = tmpDir('helper');
  const failing = path.join(dir, 'failing-helper.mjs');
  fs.writeFileSync(failing, `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, error: 'no' }));\n`);
  const broken = path.join(dir, 'broken-helper.mjs');
  fs.writeFileSync(broken, 'throw new Error("this helper does not start");\n');
  // One that keeps every source until settle() takes it back.
  const stalling = path.join(dir, 'stalling-helper.mjs');
  fs.writeFileSync(stalling, `import { parentPort } from 'node:worker_threads';
const kept = [];
parentPort.on('message', (m) => {
  if (!m.takeBack) return kept.push(m.id);
  const taken = kept.pop() ?? null;
  if (taken !== null) parentPort.postMessage({ id: taken, takenBack: true });
  parentPort.postMessage({ id: m.id, taken });
});\n`);
  for (const [helper, notes] of [[failing, /^no; its \d+ sources were parsed by the merging instance instead$/], [broken, /^a helper failed \(.*this helper does not start.*\); /], [stalling, null]]) {
    const helped = await merge(files, new URL(`file://${helper}`));
    assert.ok(helped.bytes.equals(alone.bytes), helper);
    assert.equal(helped.helped, 0);
    assert.equal(helped.report, alone.report);
    if (notes) assert.match(helped.helperNotes.join('\n'), notes, helper);
    else assert.deepEqual(helped.helperNotes, [], 'sources taken back are no failure');
  }
  fs.rmSync(dir, { recursive: true });
});

// No silent wait: a helper that never answers (its thread idle, or stuck in a loop) is
// stopped once it has said nothing past its deadline, and one that dies mid-merge is seen
// to; either way its sources are parsed here, to the same bytes, and the notes say why.
test('a helper that hangs, loops or dies mid-merge: the merge ends, the same bytes, the reason told', { timeout: 60000 }, async () => {
  const files = readTree(path.join(CORPUS, 'smdebug/constructed/combined_job'));
  const alone = await merge(files, false);
  const dir = tmpDir('helper');
  const write = (name, body) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `import { parentPort } from 'node:worker_threads';\n${body}\n`);
    return new URL(`file://${file}`);
  };
  const cases = [
    [write('silent.mjs', "parentPort.on('message', () => {});"), /^a helper said nothing for 0\.2 s while it owed \d+ sources?, and was stopped; /],
    [write('looping.mjs', "parentPort.on('message', (m) => { if (!m.release) for (;;); });"), /^a helper said nothing for 0\.2 s while it owed \d+ sources?, and was stopped; /],
    [write('dying.mjs', "parentPort.on('message', (m) => { if (!m.release) process.exit(3); });"), /^a helper exited \(code 3\); /],
  ];
  const saved = { ...helperDeadline };
  Object.assign(helperDeadline, { answerMs: 200, bytesPerMs: Infinity });
  try {
    for (const [helper, notes] of cases) {
      const helped = await merge(files, helper);
      assert.ok(helped.bytes.equals(alone.bytes), String(helper));
      assert.equal(helped.report, alone.report);
      assert.equal(helped.helped, 0);
      assert.match(helped.helperNotes.join('\n'), notes, String(helper));
    }
  } finally {
    Object.assign(helperDeadline, saved);
    fs.rmSync(dir, { recursive: true });
  }
});

test('merge() before settle() is refused while the helper still parses', async () => {
  const files = readTree(path.join(CORPUS, 'smdebug/constructed/combined_job'));
  const merger = await createMerger([], { helper: true });
  for (const f of files) await merger.addSource(f.name, f.data);
  assert.throws(() => merger.merge(), (e) => e instanceof TraceMergeError && e.code === 'USAGE');
  await merger.settle();
  const { result } = merger.merge();
  assert.equal(result.fatal, null);
  assert.ok(result.report.events > 0);
});

test('cancelling while the helper parses: CANCELLED, and its late replies are dropped quietly', async () => {
  const { mergeFiles } = await import(path.join(WASM, 'tracemerge.mjs'));
  const files = readTree(path.join(CORPUS, 'real'));
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    const abort = new AbortController();
    let reads = 0;
    const onProgress = (p) => { if (p.stage === 'read' && ++reads === 3) abort.abort(); };
    await assert.rejects(mergeFiles(files, {}, { helper: true, signal: abort.signal, onProgress, output: 'chunks' }),
      (e) => e instanceof TraceMergeError && e.code === 'CANCELLED');
    await new Promise((resolve) => setTimeout(resolve, 1500));  // the helper's replies, if any, come now
    assert.deepEqual(unhandled, []);
    const again = await mergeFiles(files, {}, { helper: true, output: 'chunks' });  // and the next merge works
    assert.ok(again.result.helperSources > 0);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('a stopped helper is the next merge\'s: the same worker, its sources dropped, a grown heap let go', async () => {
  const { startHelper } = await import(path.join(WASM, 'scheduler.mjs'));
  const [f] = readTree(path.join(CORPUS, 'smdebug/constructed/combined_job'));
  const job = (name, data) => ({ args: [], name, data, sizeHint: data.length, inFolder: false });
  const a = await startHelper();
  const first = await a.parse(job(f.name, f.data));
  assert.ok(first.bytes?.length > 0, JSON.stringify(first.error));
  // A 40 MB source grows its heap past 64 MB; the queue behind it is dropped at stop().
  const big = Buffer.from(`[${Array.from({ length: 400000 }, (_, i) => `{"name":"e","ph":"X","ts":${i},"dur":1,"pid":1,"tid":1,"args":{"pad":"${'x'.repeat(40)}"}}`).join(',')}]`);
  const grown = a.parse(job('big.json', big));
  const dropped = a.parse(job(f.name, f.data));
  const grownReply = await grown;
  assert.ok(grownReply.heap > 64 << 20, `heap ${grownReply.heap}`);
  a.stop();
  assert.deepEqual(await dropped, { error: 'the helper was stopped' });
  const b = await startHelper();
  assert.equal(b, a, 'the same helper, not a new worker');
  const again = await b.parse(job(f.name, f.data));
  assert.ok(Buffer.from(again.bytes).equals(Buffer.from(first.bytes)), 'the same bytes as before');
  assert.ok(again.heap < grownReply.heap, `its heap let go: ${again.heap} after ${grownReply.heap}`);
  const c = await startHelper();
  assert.notEqual(c, b, 'one in use is never handed out twice');
  b.stop();
  c.stop();
});
