// The ES module API: options round-trip to the same bytes as the native CLI,
// errors carry file and offset, cancel works, out-of-memory recovers, no leaks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CORPUS, GOLDEN, NATIVE_CLI, WASM, concat, readTree, run } from './helpers.mjs';

const api = await import(path.join(WASM, 'tracemerge.mjs'));
const { mergeFiles, createMerger, loadCore, optionTable, optionsToArgs, TraceMergeError } = api;
const MERGE_TRACES = path.join(CORPUS, 'smdebug/tests/profiler/resources/merge_traces');
const COMBINED = path.join(CORPUS, 'smdebug/constructed/combined_job');

test('options objects round-trip to the native CLI flags and bytes', async () => {
  const cases = [
    [{}, []],
    [{ start: 1594662618874598, end: 1594662623418701 }, ['--start', '1594662618874598', '--end', '1594662623418701']],
    [{ unit: 'step', start: 2, end: 4, group: 'phase' }, ['--start', '2', '--end', '4', '--unit', 'step', '--group', 'phase']],
    [{ only: ['pythontimeline.json', 'system'] }, ['--only', 'pythontimeline.json', '--only', 'system']],
    [{ offsets: { 'combined_job/system': 1500 } }, ['--offset', 'combined_job/system=1500']],
    [{ gzip: true, array: true, nameTag: 'n', memoryMb: 0, outputFile: true, unit: '', end: null }, ['--gzip', '--array', '--name-tag', 'n', '--memory-mb', '0']],
  ];
  const core = await loadCore();
  for (const [options, flags] of cases) {
    assert.deepEqual(optionsToArgs(core, options), flags);
    const { chunks } = await mergeFiles(readTree(COMBINED), options, { output: 'chunks' });
    const native = run(NATIVE_CLI, [COMBINED, ...flags, '-o', '-', '--quiet']);
    assert.equal(native.status, 0, native.stderr);
    assert.ok(concat(chunks).equals(native.stdout), `bytes differ for ${JSON.stringify(options)}`);
  }
});

// The options the .d.ts declares are the core's (camelCase keys of `tracemerge --options`), but
// for the CLI's own file and thread options and the page's outputFile; each flag is the native
// CLI's.
test('MergeOptions are the core\'s option table', async () => {
  const table = optionTable(await loadCore());
  const native = JSON.parse(run(NATIVE_CLI, ['--options']).stdout);
  assert.deepEqual(table, native);
  const dts = fs.readFileSync(path.join(WASM, 'tracemerge.d.ts'), 'utf8');
  const body = dts.slice(dts.indexOf('export interface MergeOptions {'), dts.indexOf('\n}\n', dts.indexOf('export interface MergeOptions {')));
  const declared = [...body.matchAll(/^  (\w+)\?:/gm)].map((m) => m[1]).sort();
  const keys = table.filter((o) => o.key).map((o) => o.key.replace(/_([a-z])/g, (_, c) => c.toUpperCase()));
  const notInJs = ['outputDir', 'report', 'threads'];  // (the CLI's: where it writes, how many threads)
  assert.deepEqual(declared, [...keys.filter((k) => !notInJs.includes(k)), 'outputFile'].sort());
});

test('Blob inputs in 1 MB slices give the golden bytes', async () => {
  const files = readTree(MERGE_TRACES).map((f) => ({ name: f.name, data: new Blob([f.data]) }));
  const { blob, report } = await mergeFiles(files, { start: 1594662618874598, end: 1594662623418701 });
  const expected = fs.readFileSync(path.join(GOLDEN, 'expected/merge_traces_time.json'));
  assert.ok(Buffer.from(await blob.arrayBuffer()).equals(expected));
  assert.equal(report.events, 234);
});

test('Blobs: small ones read whole ahead of their turn, big ones in slices, one that cannot be read an IO error naming it', async () => {
  const files = [...readTree(MERGE_TRACES), { name: 'big.json', data: bigTrace(40000) }];  // (2.6 MB: in slices)
  const asBytes = await mergeFiles(files, {}, { output: 'chunks' });
  const asBlobs = await mergeFiles(files.map((f) => ({ name: f.name, data: new Blob([f.data]) })), {}, { output: 'chunks' });
  assert.ok(concat(asBlobs.chunks).equals(concat(asBytes.chunks)));
  const gone = { size: 10, slice: () => gone, stream: () => new ReadableStream({ pull: (c) => c.error(new Error('the file is gone')) }) };
  await assert.rejects(mergeFiles([...files, { name: 'job/gone.json', data: gone }], {}, { output: 'chunks' }),
    (e) => e.code === 'IO' && e.file === 'job/gone.json' && /job\/gone\.json: cannot read it \(the file is gone\)/.test(e.message));
});

test('errors carry the file and the byte offset; the other files merge', async () => {
  const files = [
    { name: 'job/good.json', data: new TextEncoder().encode('[{"ph":"X","name":"good","pid":1,"ts":1,"dur":1}]') },
    { name: 'job/cut.json', data: new TextEncoder().encode('[{"ph":"X","name":"a","pid":1,"ts":1,"dur":1},{"ph":"X","na') },
  ];
  const { report } = await mergeFiles(files, {}, { output: 'chunks' });
  const w = report.warnings.find((x) => x.code === 'TRUNCATED');
  assert.deepEqual([w.file, w.offset], ['job/cut.json', 46]);
  assert.equal(report.sources.find((s) => s.path === 'job/good.json').kept, 1);

  await assert.rejects(mergeFiles(readTree(MERGE_TRACES), { unit: 'step', start: 2, end: 999 }),
    (e) => e instanceof TraceMergeError && e.code === 'UNKNOWN_STEP' && /steps in this job/.test(e.message));
  await assert.rejects(mergeFiles([], { unit: 'minutes' }), (e) => e.code === 'USAGE');
});

function bigTrace(events) {
  const parts = ['['];
  for (let i = 0; i < events; i++) parts.push(`{"ph":"X","name":"e${i % 97}","pid":1,"tid":${i % 7},"ts":${i},"dur":1},`);
  parts.push(']');
  return new TextEncoder().encode(parts.join(''));
}

test('cancel: while reading and in the middle of the merge', async () => {
  const data = bigTrace(300000);
  const reading = new AbortController();
  const p1 = mergeFiles([{ name: 'a.json', data }, { name: 'b.json', data }], {}, {
    signal: reading.signal,
    onProgress: (p) => { if (p.stage === 'read') reading.abort(); },
  });
  await assert.rejects(p1, (e) => e.code === 'CANCELLED');

  const merging = new AbortController();
  const stages = [];
  const p2 = mergeFiles([{ name: 'a.json', data }], {}, {
    signal: merging.signal,
    onProgress: (p) => { stages.push(p.stage); if (p.stage === 'parse') merging.abort(); },
  });
  await assert.rejects(p2, (e) => e.code === 'CANCELLED');
  assert.ok(stages.includes('parse'));

  const { report } = await mergeFiles([{ name: 'a.json', data }], {}, { output: 'chunks' });
  assert.equal(report.events, 300000, 'a merge after cancels still works');
});

test('out of memory becomes OUT_OF_MEMORY naming the file and the bytes read, and the next merge works', async () => {
  const small = (await import(path.join(WASM, 'tracemerge-core-small.mjs'))).default;  // 128 MB heap
  const core = await loadCore(small);
  const data = bigTrace(1500000);  // ~90 MB of JSON: its index outgrows 128 MB
  await assert.rejects(
    mergeFiles([{ name: 'a.json', data }, { name: 'b.json', data }], { memoryMb: 4096 }, { core, output: 'chunks' }),
    (e) => e.code === 'OUT_OF_MEMORY' && e.bytesRead > 0 && /^[ab]\.json$/.test(e.file) &&
      new RegExp(`out of memory while taking in ${e.file}, after reading \\d+ bytes`).test(e.message));
  assert.equal(core.outOfMemory(), true, "the core's allocation-failure handler said so (not a guess from stderr)");
  const fresh = await loadCore(small);
  const { report } = await mergeFiles(readTree(MERGE_TRACES), {}, { core: fresh, output: 'chunks' });
  assert.equal(report.events, 706);
});

test('events beyond memoryMb leave the heap and come back byte for byte', async () => {
  const files = readTree(path.join(CORPUS, 'real'));
  const inHeap = await mergeFiles(files, {}, { output: 'chunks' });
  for (const memoryMb of [0, 1]) {
    const stored = await mergeFiles(files, { memoryMb }, { output: 'chunks' });
    assert.ok(concat(stored.chunks).equals(concat(inHeap.chunks)), `bytes differ with memoryMb ${memoryMb}`);
  }
});

test('a job larger than the whole wasm heap merges (its events kept outside)', async () => {
  const small = (await import(path.join(WASM, 'tracemerge-core-small.mjs'))).default;  // 128 MB heap
  const core = await loadCore(small);
  const pad = 'x'.repeat(1000);
  const fat = (n, k) => {  // ~30 MB: 30000 events with 1 KB of args each
    const parts = ['['];
    for (let i = 0; i < n; i++) parts.push(`{"ph":"X","name":"f${k}","pid":1,"tid":1,"ts":${i * 6 + k},"dur":1,"args":{"p":"${pad}"}},`);
    parts.push(']');
    return new TextEncoder().encode(parts.join(''));
  };
  const files = [0, 1, 2, 3, 4, 5].map((k) => ({ name: `rank-${k}.json`, data: fat(30000, k) }));
  const total = files.reduce((n, f) => n + f.data.length, 0);
  assert.ok(total > 170e6, `input is ${total} bytes`);
  let bytes = 0;
  const { report } = await mergeFiles(files, { memoryMb: 16 }, {
    core,
    output: 'chunks',
    onChunk: (c) => { bytes += c.length; },
  });
  assert.equal(report.events, 180000);
  assert.ok(bytes > total * 0.9, `wrote ${bytes} bytes`);
  assert.ok(core.HEAP8.length <= 128 * 1024 * 1024);
});

test('no leaked Embind handles or heap growth after 100 merges', async () => {
  const core = await loadCore();
  const files = readTree(MERGE_TRACES);
  await mergeFiles(files, {}, { core, output: 'chunks' });
  const handles = core.count_emval_handles();
  const heap = core.HEAP8.length;
  for (let i = 0; i < 100; i++) await mergeFiles(files, { gzip: i % 2 === 1 }, { core, output: 'chunks' });
  assert.equal(core.count_emval_handles(), handles);
  assert.equal(core.HEAP8.length, heap, 'the heap grew across identical merges');
  const m = await createMerger({}, { core });
  m.delete();
  assert.equal(core.count_emval_handles(), handles);
});

test('merge({ onView }) sees the same bytes as onChunk, without copies', async () => {
  const core = await loadCore();
  const files = readTree(MERGE_TRACES);
  const merged = async (opts) => {
    const m = await createMerger({}, { core });
    for (const f of files) await m.addSource(f.name, f.data);
    return m.merge(opts);
  };
  const copies = [];
  await merged({ onChunk: (bytes) => copies.push(bytes) });
  const views = [];
  let sameBuffer = true;
  await merged({
    onView: (view) => {
      sameBuffer &&= view.buffer === core.HEAP8.buffer;  // a view of the heap, not a copy
      views.push(Buffer.from(view));  // consumed during the call
    },
  });
  assert.ok(sameBuffer);
  assert.ok(views.length > 0);
  assert.ok(concat(views).equals(concat(copies)));
});

// The unions are made from core/formats/registry.h (wasm/CMakeLists.txt): what the core
// reports of a job of every format is in them, and its kind table's keys too.
test("tracemerge.d.ts's Format, Kind and TimeBaseKind hold what the core reports", async () => {
  const dts = fs.readFileSync(path.join(WASM, 'tracemerge.d.ts'), 'utf8');
  const union = (name) => [...dts.match(new RegExp(`export type ${name} = ([^;]+);`))[1].matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
  const formats = union('Format'), kinds = union('Kind'), bases = union('TimeBaseKind');
  assert.ok(formats.length >= 6 && kinds.length >= 9 && bases.length >= 7, `${formats} / ${kinds} / ${bases}`);
  for (const k of api.kindTable(await loadCore())) assert.ok(kinds.includes(k.key), k.key);
  const files = [...readTree(COMBINED), ...readTree(path.join(CORPUS, 'real/xprof_gpu_multi_worker')),
    ...readTree(path.join(CORPUS, 'real/pytorch_kineto_multirank')).slice(0, 1)];
  const { report } = await mergeFiles(files, {}, { output: 'chunks' });
  const seen = { formats: new Set(), kinds: new Set(), bases: new Set() };
  for (const s of report.sources) {
    assert.ok(kinds.includes(s.kind), s.kind);
    seen.kinds.add(s.kind);
    if (!s.included) continue;
    assert.ok(formats.includes(s.identity.format), `${s.path}: ${s.identity.format}`);
    assert.ok(bases.includes(s.time_base_kind), `${s.path}: ${s.time_base_kind}`);
    seen.formats.add(s.identity.format);
    seen.bases.add(s.time_base_kind);
  }
  assert.ok(seen.formats.size >= 5 && seen.kinds.has('xplane') && seen.kinds.has('skipped'), JSON.stringify([...seen.formats, ...seen.kinds]));
});

test("tracemerge.d.ts's ErrorCode lists the core's codes, in status.h's order", async () => {
  const core = await loadCore();
  const dts = fs.readFileSync(path.join(WASM, 'tracemerge.d.ts'), 'utf8');
  const union = dts.match(/export type ErrorCode = ([^;]+);/)[1];
  const listed = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]);
  assert.deepEqual(listed, core.errorCodes());
  assert.ok(listed.includes('NOT_A_TRACE') && listed.includes('OUT_OF_MEMORY'));
});
