// The damaged-input suite on the wasm build: no throw, no hang, valid JSON, the
// intact file merged, the damaged file named with an offset — and the same bytes
// as the native CLI for a sample of the damaged files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'node:test';
import { CORPUS, NATIVE_CLI, WASM, concat, run, tmpDir } from './helpers.mjs';

const { mergeFiles } = await import(path.join(WASM, 'tracemerge.mjs'));
const enc = new TextEncoder();
const INTACT = { name: 'job/intact.json', inFolder: true, data: enc.encode('{"traceEvents":[{"ph":"X","name":"ok1","pid":1,"tid":1,"ts":10,"dur":5},'
  + '{"ph":"i","name":"ok2","pid":1,"tid":1,"ts":12},{"ph":"C","name":"ok3","pid":1,"ts":13,"args":{"v":1}}]}') };
const SMALL = new Uint8Array(fs.readFileSync(path.join(CORPUS, 'real/chrome_catapult/trivial_trace.json')));

async function check(what, data, { named = true, options = {} } = {}) {
  const damaged = { name: 'job/damaged.json', inFolder: true, data };  // (as the CLI's folder walk)
  const { chunks, report } = await mergeFiles([INTACT, damaged], options, { output: 'chunks' });
  const text = Buffer.from(concat(chunks)).toString('utf8');
  assert.doesNotThrow(() => JSON.parse(text), `${what}: output is not valid JSON`);
  assert.equal(report.sources.find((s) => s.path === INTACT.name).kept, 3, what);
  const mine = report.warnings.filter((w) => w.file === damaged.name);
  if (named) assert.ok(mine.length > 0 && mine.every((w) => Number.isInteger(w.offset)), `${what}: not named`);
  return text;
}

function rng(seed) {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

test('truncated at every byte', async () => {
  for (let cut = 0; cut < SMALL.length; cut++) {
    const rest = Buffer.from(SMALL.subarray(cut)).toString();
    await check(`cut ${cut}`, SMALL.subarray(0, cut), { named: rest.trim() !== '' });
  }
});

test('random byte flips, garbage, empty, broken gzip', async () => {
  const r = rng(42);
  for (let round = 0; round < 200; round++) {
    const s = SMALL.slice();
    for (let k = 0; k <= round % 5; k++) s[Math.floor(r() * s.length)] = Math.floor(r() * 256);
    await check(`flip ${round}`, s, { named: false });
  }
  await check('garbage', Uint8Array.from({ length: 4096 }, () => Math.floor(r() * 256)));
  await check('empty', new Uint8Array());
  const gz = new Uint8Array(zlib.gzipSync(SMALL));
  await check('truncated gzip', gz.subarray(0, gz.length >> 1));
  const bad = gz.slice();
  for (let i = 20; i < 40; i++) bad[i] ^= 0xff;
  await check('corrupt gzip', bad);
});

test('deep nesting, out-of-range numbers, invalid UTF-8, limits', async () => {
  await check('200000 [', enc.encode(`[{"ph":"i","ts":1,"args":${'['.repeat(200000)}`));
  await check('200000 balanced', enc.encode(`[{"ph":"i","ts":1,"args":${'['.repeat(200000)}${']'.repeat(200000)}},{"ph":"i","name":"after","ts":2}]`));
  await check('ts 1e400', enc.encode('[{"ph":"X","name":"a","ts":1e400,"dur":1}]'));
  await check('negative dur', enc.encode('[{"ph":"X","name":"a","ts":1,"dur":-5}]'));
  await check('20-digit pid', enc.encode('[{"ph":"X","name":"a","ts":1,"dur":1,"pid":12345678901234567890}]'), { named: false });
  await check('invalid UTF-8', Uint8Array.from([...enc.encode('[{"ph":"i","name":"'), 0xc3, 0x28, ...enc.encode('","ts":2}]')]));
  const bomb = new Uint8Array(zlib.gzipSync(Buffer.alloc(64 << 20, 32)));
  await check('gzip bomb', bomb, { options: { maxFileMb: 8 } });
  const long = enc.encode(`[{"ph":"i","name":"${'x'.repeat(2 << 20)}","ts":1},{"ph":"i","name":"b","ts":2}]`);
  await check('long string', long, { options: { maxStringMb: 1 } });
});

test('damaged files: wasm output equals the native CLI output', async () => {
  const dir = tmpDir('damage');
  fs.mkdirSync(path.join(dir, 'job'));
  fs.writeFileSync(path.join(dir, 'job/intact.json'), INTACT.data);
  for (const [i, data] of [SMALL.subarray(0, 200), SMALL.subarray(0, 91), enc.encode('[{"ph":"X","ts":tru}]')].entries()) {
    fs.writeFileSync(path.join(dir, 'job/damaged.json'), data);
    const text = await check(`sample ${i}`, data);
    const native = run(NATIVE_CLI, [path.join(dir, 'job'), '-o', '-', '--quiet']);
    assert.equal(native.stdout.toString('utf8'), text, `sample ${i}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
