// The page's modules under Node (no browser): UTC text and durations, the window as the core
// resolves it (the page asks the core, rules.mjs), the overview's model and the steps table,
// the progress bar's arithmetic, grouped warnings, and the sample job.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { COMBINED, ROOT, WEB, cli, tmpDir } from './helpers.mjs';

const { duration, plural, ranges, utcFromMicros } = await import(path.join(ROOT, 'web/format.mjs'));
const { buildModel, timeTicks } = await import(path.join(ROOT, 'web/overview-model.mjs'));
const { createProgress } = await import(path.join(ROOT, 'web/progress.mjs'));
const { groupWarnings } = await import(path.join(ROOT, 'web/report.mjs'));
const { fileOriginNote, sizeWarning } = await import(path.join(ROOT, 'web/perfetto.mjs'));
const { sampleJob } = await import(path.join(ROOT, 'web/sample.mjs'));
const { kindSet, onlyOption } = await import(path.join(ROOT, 'web/table.mjs'));
// rules.mjs and window.mjs as built: next to the core (build/web/wasm/).
const { loadRules } = await import(path.join(WEB, 'rules.mjs'));
const { describeWindow, readWindow, stepWindow } = await import(path.join(WEB, 'window.mjs'));
const api = await import(path.join(WEB, 'wasm/tracemerge.mjs'));
const rules = await loadRules();

const folderFiles = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort()
  .map((f) => ({ name: `${path.basename(dir)}/${f}`, data: new Uint8Array(fs.readFileSync(path.join(dir, f))), inFolder: true }));

test('µs → UTC text, exact to the microsecond; durations carry their rounding', () => {
  assert.equal(utcFromMicros(1594662618874598), '2020-07-13 17:50:18.874598 UTC');
  assert.equal(utcFromMicros('1591160699457089.4'), '2020-06-03 05:04:59.457089 UTC');
  assert.equal(ranges([0, 1, 2, 3, 5, 7, 8]), '0–3, 5, 7–8');
  assert.equal(duration(599.99e6), '10 min 0 s');   // not "9 min 60 s"
  assert.equal(duration(59.996e6), '1 min 0 s');    // not "60.00 s"
  assert.equal(duration(999.6), '1.00 ms');         // not "1000 µs"
  assert.equal(duration(9996), '10.0 ms');
  assert.equal(duration(3599.6e6), '1 h 0 min');
  assert.equal(duration(86399e6), '1 d 0 h');
  assert.equal(duration(142e3), '142 ms');
  assert.equal(duration(-1500), '-1.50 ms');
  assert.equal(plural(1, 'source'), '1 source');
  assert.equal(plural(2, 'source'), '2 sources');
  assert.equal(plural(1024, 'file'), '1,024 files');
});

test('the window is resolved by the core: steps by the reference rule, date-times, problems under their field', async () => {
  const files = folderFiles(COMBINED);
  const scan = await api.scanFiles(files);
  const job = scan.report.job;
  const w = readWindow(rules, 'step', '2', '4', job);
  assert.deepEqual(w.problems, []);
  assert.deepEqual(w.options, { unit: 'step', start: '2', end: '4' });
  const merged = await api.scanFiles(files, w.options);
  assert.equal(w.preview.start_us, merged.report.window.start_us);
  assert.equal(w.preview.end_us, merged.report.window.end_us);
  assert.match(w.hints.start.text, /^Step 2 starts 2020-07-13 17:50:17\.507447 UTC$/);
  assert.match(describeWindow(w.preview, job), /^1594662617507447 \.\. 1594662617676640 µs/);

  const unknown = readWindow(rules, 'step', '2', '99', job);
  assert.equal(unknown.problems.length, 1);
  assert.equal(unknown.problems[0].field, 'end');
  assert.match(unknown.problems[0].text, /step 99 not found.*0-29/);
  // Before the scan, step numbers wait; their syntax does not.
  assert.equal(readWindow(rules, 'step', '2', '', null).pending, true);
  assert.equal(readWindow(rules, 'step', 'two', '', null).problems[0].field, 'start');

  // What the page passes on is the text typed; the core reads the date-time.
  const t = readWindow(rules, 'time', '2020-07-13 17:50:18.5', '', job);
  assert.deepEqual(t.options, { start: '2020-07-13 17:50:18.5' });
  assert.equal(t.preview.start_us, 1594662618500000);
  assert.equal(t.hints.start.text, '2020-07-13 17:50:18.500000 UTC');
  assert.equal(readWindow(rules, 'time', 'soon', '', null).problems[0].field, 'start');
  assert.equal(readWindow(rules, 'time', '', '12.5', null).problems[0].field, 'end');
  assert.match(readWindow(rules, 'time', '20', '10', null).problems[0].text, /after/);
  assert.equal(describeWindow(null, { steps: [] }), 'everything (no event with a time was found)');

  assert.deepEqual(stepWindow(3, job), { unit: 'step', start: '3', end: '4' });
  assert.deepEqual(stepWindow(29, job), { unit: 'step', start: '29', end: '' });
});

test('the kinds and the offsets\' paths are the core\'s', () => {
  const kinds = kindSet(rules.kinds);
  assert.deepEqual(kinds.list.map((k) => k.only), ['pythontimeline.json', 'model_timeline.json', 'horovod_timeline.json', 'trace.json.gz', 'system', 'other', 'xplane.pb']);
  const on = new Map(kinds.list.map((k) => [k.key, true]));
  assert.equal(onlyOption(kinds, on), undefined);
  on.set('system', false);
  assert.deepEqual(onlyOption(kinds, on), ['pythontimeline.json', 'model_timeline.json', 'horovod_timeline.json', 'trace.json.gz', 'other', 'xplane.pb']);
  assert.equal(rules.pathMatches('job/host-b/rank1.json', 'rank1.json'), true);
  assert.equal(rules.pathMatches('job/host-b/rank1.json', 'job/host-b'), true);
  assert.equal(rules.pathMatches('job/host-bb/rank1.json', 'job/host-b'), false);
  // An offset's µs: what --offset PATH=US takes, read by the core (the table's input uses it).
  assert.equal(rules.offsetUs('-1500'), '-1500');
  assert.equal(rules.offsetUs('9223372036854775807'), '9223372036854775807');
  for (const bad of ['1.5', '1e3', '', '9223372036854775808', '12us']) assert.equal(rules.offsetUs(bad), null, bad);
});

test('the overview model: lanes per source grouped by node, hidden and shifted as the table says; steps per group', async () => {
  const scan = await api.scanFiles(sampleJob().map((f) => ({ ...f, inFolder: true })));
  const report = scan.report;
  const all = buildModel(report);
  assert.equal(all.lanes.length, 6);
  assert.deepEqual(all.groups.map((g) => g.lanes.length), [4, 1, 1]);
  assert.equal(all.steps.length, 12);
  const system = all.lanes.find((l) => l.kind === 'system');
  assert.deepEqual(system.counters.map((c) => c.name), ['GPUUtilization', 'CPUUtilization', 'GPUMemoryUtilization']);
  assert.equal(system.rows, 3);
  // Unticked files are hidden; an offset moves its lane and widens the span.
  const rank1 = report.sources.find((s) => s.path.endsWith('rank1.pt.trace.json')).path;
  const some = buildModel(report, { visible: (p) => p !== rank1, shift: (p) => (p.endsWith('rank0.pt.trace.json') ? -5000 : 0) });
  assert.equal(some.lanes.length, 5);
  assert.equal(some.lanes.find((l) => l.path.endsWith('rank0.pt.trace.json')).shift, -5000);
  assert.equal(some.start, all.start - 5000);
  // The steps panel reads the core's waits: the sample's rank 1, busy longer in steps 2, 5, 8 and
  // 11, arrives last at all 8 all-reduces there — the others waited for it there and only there.
  const w = report.waits;
  assert.equal(w.from, 'NCCL kernels');
  assert.deepEqual(w.ranks.map((r) => r.label), ['rank 0 · host-a', 'rank 1 · host-b', 'algo-1 · pythontimeline', 'algo-1 · trace']);
  assert.equal(w.steps.length, 12);
  const held = w.steps.filter((s) => s.held_by.length).map((s) => [s.step, s.held_by.map((r) => w.ranks[r].label)]);
  assert.deepEqual(held, [2, 5, 8, 11].map((k) => [k, ['rank 1 · host-b']]));
  for (const s of w.steps) if (!s.held_by.length) assert.ok(s.why, `step ${s.step} says why no one is named`);
  assert.deepEqual(timeTicks(0, 1000, 4), { step: 500, ticks: [0, 500, 1000] });
});

test('the progress bar only moves forward over the stages a real merge reports, and ends full', async () => {
  // Many small files and one big one, with the second worker: stages take turns per file.
  const files = [...folderFiles(COMBINED), { name: 'big.json', data: new Uint8Array(Buffer.from(JSON.stringify(
    Array.from({ length: 60000 }, (_, i) => ({ ph: 'X', name: `e${i % 13}`, pid: 1, tid: i % 5, ts: i * 3, dur: 2 }))))) }];
  const reports = [];
  await api.mergeFiles(files, {}, { output: 'chunks', helper: true, onProgress: (p) => reports.push({ ...p }) });
  assert.ok(new Set(reports.map((p) => p.stage)).size >= 2, 'the merge reported fewer stages than expected');
  // Every report, and as the worker posts them (at most ten a second, each with the fields
  // of those left out before it; the last one always): here every 5th.
  const posted = [];
  const totals = {};
  reports.forEach((p, i) => {
    Object.assign(totals, p);
    if (i % 5 === 4 || i === reports.length - 1) posted.push({ ...totals });
  });
  for (const [what, list] of [['every report', reports], ['every 5th', posted]]) {
    const bar = { value: 0 };
    const text = { textContent: '' };
    const progress = createProgress(bar, text, files.map((f) => ({ name: f.name, data: { size: f.data.length } })));
    const seen = [];
    for (const p of list) {
      progress.update(p);
      seen.push(bar.value);
      // The bar never shows a step back; nor may the arithmetic need that rule much.
      assert.ok(progress.raw > bar.value - 0.02, `${what}: the estimate fell to ${progress.raw} below ${bar.value} at ${JSON.stringify(p)}`);
      // Every byte reported read counts, at least as read (reading and parsing: 0.6 of the bar).
      if (p.stage === 'read' || p.stage === 'parse') {
        assert.ok(progress.raw >= (0.3 * p.bytesDone) / p.bytesTotal - 1e-9, `${what}: ${progress.raw} with ${p.bytesDone} of ${p.bytesTotal} bytes read`);
      }
    }
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], `${what}: back from ${seen[i - 1]} to ${seen[i]} at report ${i}`);
    assert.ok(seen.at(-1) > 0.99, `${what}: ends at ${seen.at(-1)}`);
    assert.ok(seen.some((v) => v > 0.1 && v < 0.9), `${what}: no value in between`);
  }
});

test('warnings of one code are one line, their files folded under it; a big output is warned about before Perfetto', () => {
  const w = (code, file, offset) => ({ code, file, offset, message: `m${offset}` });
  const groups = groupWarnings([w('BAD_EVENT', 'a.json', 10), w('BAD_EVENT', 'a.json', 20), w('BAD_EVENT', 'b.json', 5), w('TRUNCATED', 'a.json', 30), w('BAD_EVENT', 'a.json', 40)]);
  assert.deepEqual(groups.map((g) => [g.code, g.count, g.files.map((f) => [f.file, f.count, f.offset])]),
    [['BAD_EVENT', 4, [['a.json', 3, 10], ['b.json', 1, 5]]], ['TRUNCATED', 1, [['a.json', 1, 30]]]]);
  const noClock = groupWarnings(Array.from({ length: 14 }, (_, i) => w('NO_CLOCK', `f${i}.json`, 0)));
  assert.equal(noClock.length, 1, '14 files without a clock: one line');
  assert.equal(noClock[0].files.length, 14);
  assert.equal(sizeWarning(900e6), '');
  assert.match(sizeWarning(2.4e9), /2\.4 GB.*16 GB.*memory64.*4 GB.*narrower window/);
  assert.match(sizeWarning(8e9), /8\.0 GB.*at most 16 GB.*may not open at all/);
  assert.equal(fileOriginNote('https:'), '');
  assert.match(fileOriginNote('file:'), /Open trace\?.*every time.*perfetto-ui\.zip/);
});

test('the sample job is deterministic, has two hosts whose clocks are 400 µs apart, and merges to the CLI bytes', async () => {
  const a = sampleJob();
  const b = sampleJob();
  assert.deepEqual(a.map((f) => f.name), b.map((f) => f.name));
  assert.ok(a.every((f, i) => Buffer.from(f.data).equals(Buffer.from(b[i].data))));
  assert.ok(a.reduce((n, f) => n + f.data.length, 0) < 200e3, 'the sample is inlined in the single-file page: keep it small');
  const folder = a.map((f) => ({ ...f, inFolder: true }));  // as the page drops it: a folder, one run
  const { chunks, report } = await api.mergeFiles(folder, {}, { output: 'chunks' });
  assert.deepEqual(report.sources.map((s) => [s.kind, s.absolute]).sort(),
    [['model_timeline', true], ['pythontimeline', true], ['system', true], ['trace', true], ['trace', true], ['trace', true]]);
  assert.deepEqual(report.warnings.map((w) => [w.code, w.file]), [['CLOCK_SKEW', 'sample_job/ranks/host-b/rank1.pt.trace.json']]);
  assert.equal(report.job.steps.length, 12);
  const dir = tmpDir('sample');
  for (const f of a) {
    fs.mkdirSync(path.join(dir, path.dirname(f.name)), { recursive: true });
    fs.writeFileSync(path.join(dir, f.name), f.data);
  }
  assert.ok(Buffer.concat(chunks).equals(cli([path.join(dir, 'sample_job')])));
  // Aligned by their collectives, host-b moves back by the 400 µs (±2 µs of jitter).
  const aligned = await api.mergeFiles(folder, { align: 'clocks' }, { output: 'chunks' });
  const moved = aligned.report.sources.find((s) => s.path.endsWith('rank1.pt.trace.json')).aligned_us;
  assert.ok(Math.abs(moved + 400) < 3, `moved by ${moved} µs`);
  assert.ok(!aligned.report.warnings.some((x) => x.code === 'CLOCK_SKEW'));
  assert.ok(Buffer.concat(aligned.chunks).equals(cli([path.join(dir, 'sample_job')], ['--align', 'clocks'])));
  fs.rmSync(dir, { recursive: true });
});
