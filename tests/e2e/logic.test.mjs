// The page's pure helpers under Node (no browser): time parsing and UTC text, the step
// window resolved as the core resolves it, and the sample job.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { COMBINED, ROOT, cli, tmpDir } from './helpers.mjs';

const { parseMicros, parseStep, utcFromMicros, ranges } = await import(path.join(ROOT, 'web/format.mjs'));
const { readWindow } = await import(path.join(ROOT, 'web/window.mjs'));
const { sampleJob } = await import(path.join(ROOT, 'web/sample.mjs'));
const { onlyOption, KINDS } = await import(path.join(ROOT, 'web/table.mjs'));
const api = await import(path.join(ROOT, 'build/web/wasm/tracemerge.mjs'));

test('µs ↔ UTC text, exact to the microsecond', () => {
  assert.equal(utcFromMicros(1594662618874598), '2020-07-13 17:50:18.874598 UTC');
  assert.equal(utcFromMicros('1591160699457089.4'), '2020-06-03 05:04:59.457089 UTC');
  assert.equal(parseMicros('2020-07-13 17:50:18.874598'), '1594662618874598');
  assert.equal(parseMicros('2020-07-13T17:50:18Z'), '1594662618000000');
  assert.equal(parseMicros(' 1594662618874598 '), '1594662618874598');
  assert.equal(parseMicros(''), '');
  assert.equal(parseMicros('12.5'), null);  // the core takes whole µs only
  assert.equal(parseMicros('yesterday'), null);
  assert.equal(parseStep('4'), '4');
  assert.equal(parseStep('-1'), null);
  assert.equal(ranges([0, 1, 2, 3, 5, 7, 8]), '0–3, 5, 7–8');
});

test('the step window resolves like the core: first event of the start step, 1 µs before the end step', async () => {
  const files = fs.readdirSync(COMBINED, { recursive: true }).filter((f) => fs.statSync(path.join(COMBINED, f)).isFile())
    .map((f) => ({ name: `combined_job/${f}`, data: new Uint8Array(fs.readFileSync(path.join(COMBINED, f))) }));
  const scan = await api.scanFiles(files);
  const w = readWindow('step', '2', '4', scan.report.job);
  assert.deepEqual(w.problems, []);
  assert.deepEqual(w.options, { unit: 'step', start: '2', end: '4' });
  const merged = await api.scanFiles(files, w.options);
  assert.equal(w.resolved.start_us, merged.report.window.start_us);
  assert.equal(w.resolved.end_us, merged.report.window.end_us);
  assert.match(readWindow('step', '2', '99', scan.report.job).problems[0].text, /Step 99 is not in this job; its steps are 0–29/);
  assert.equal(readWindow('time', 'soon', '', null).problems[0].field, 'start');
  assert.match(readWindow('time', '20', '10', null).problems[0].text, /before the start/);
});

test('the kind checkboxes map to --only; all on means no --only', () => {
  const on = new Map(KINDS.map((k) => [k.key, true]));
  assert.equal(onlyOption(on), undefined);
  on.set('system', false);
  assert.deepEqual(onlyOption(on), ['pythontimeline.json', 'model_timeline.json', 'trace.json.gz', 'horovod_timeline.json', 'other']);
});

test('the sample job is deterministic, has every clock and merges to the CLI bytes', async () => {
  const a = sampleJob();
  const b = sampleJob();
  assert.deepEqual(a.map((f) => f.name), b.map((f) => f.name));
  assert.ok(a.every((f, i) => Buffer.from(f.data).equals(Buffer.from(b[i].data))));
  const { chunks, report } = await api.mergeFiles(a, {}, { output: 'chunks' });
  assert.deepEqual(report.sources.map((s) => [s.kind, s.absolute]).sort(),
    [['model_timeline', true], ['pythontimeline', true], ['system', true], ['trace', true]]);
  assert.deepEqual(report.warnings, []);
  assert.equal(report.job.steps.length, 12);
  const dir = tmpDir('sample');
  for (const f of a) {
    fs.mkdirSync(path.join(dir, path.dirname(f.name)), { recursive: true });
    fs.writeFileSync(path.join(dir, f.name), f.data);
  }
  assert.ok(Buffer.concat(chunks).equals(cli([path.join(dir, 'sample_job')])));
  fs.rmSync(dir, { recursive: true });
});
