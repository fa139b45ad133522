// The damaged-input suite on the page (issue 34: one path for bad input): each damaged
// file, dropped alone and among good files, is read, inflated and salvaged as the native
// CLI does — the same bytes out (warnings, file and byte offset included, are in the
// report the output carries), or, where the CLI has nothing to write, the same error code,
// shown in the page — and a damaged file never takes the good ones with it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';
import { NATIVE_CLI, closeSession, download, openPage, openSession } from './helpers.mjs';

let session;
before(async () => { session = await openSession('damage'); });
after(() => closeSession(session));

const events = (n, pid) => `[${Array.from({ length: n }, (_, i) => `{"ph":"X","name":"e${i}","pid":${pid},"tid":1,"ts":${1000 + i},"dur":1}`).join(',')}]`;
const TRACE = events(40, 7);
const gz = zlib.gzipSync(events(3000, 8));
const forged = zlib.gzipSync(events(2, 9));
forged.writeUInt32LE(0xF0000000, forged.length - 4);
const corrupt = Buffer.from(gz);
for (let i = 20; i < 40; i++) corrupt[i] ^= 0xff;
let seed = 7;
const garbage = Buffer.from(Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 256));

// name → bytes: the kinds of damage the native and wasm damage tests make, one of each.
const CASES = {
  'cut-early.json': TRACE.slice(0, 20),
  'cut-mid.json': TRACE.slice(0, TRACE.length >> 1),
  'cut-last.json': TRACE.slice(0, -1),
  'cut.json.gz': gz.subarray(0, gz.length >> 1),
  'forged.json.gz': forged,
  'corrupt.json.gz': corrupt,
  'not-gzip.json.gz': 'this is not gzip at all',
  'garbage.json': garbage,
  'empty.json': '',
  'nested.json': `[{"ph":"i","ts":1,"args":${'['.repeat(200000)}`,
  'ts-1e400.json': '[{"ph":"X","name":"a","ts":1e400,"dur":1},{"ph":"X","name":"b","ts":5,"dur":1}]',
  'negative-dur.json': '[{"ph":"X","name":"a","ts":1,"dur":-5},{"ph":"X","name":"b","ts":5,"dur":1}]',
  'wrong-types.json': '[{"ph":5,"name":"a","ts":1},{"ph":"X","name":{},"ts":"x","dur":1},{"ph":"X","name":"ok","ts":3,"dur":1}]',
  'utf8.json': Buffer.concat([Buffer.from('[{"ph":"i","name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b","ts":1},{"ph":"i","name":"c","ts":2}]')]),
  'nan.json': '[{"ph":"X","name":"a","ts":NaN,"dur":1},{"ph":"X","name":"b","ts":2,"dur":1}]',
};
const GOOD = { 'good.json': '[{"ph":"X","name":"good","pid":1,"tid":1,"ts":1,"dur":1}]', 'good.json.gz': zlib.gzipSync(events(5, 2)) };

function write(dir, files) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes);
  return Object.keys(files).sort().map((name) => path.join(dir, name));
}

// The native CLI on the files: { status, out, code } (code: the error's, when it wrote nothing).
function native(dir, names) {
  const r = spawnSync(NATIVE_CLI, [...names.map((n) => path.basename(n)), '-o', '-', '--quiet'], { cwd: dir, maxBuffer: 1 << 28 });
  const code = /\b([A-Z][A-Z_]+):/.exec(r.stderr.toString())?.[1] ?? '';
  return { status: r.status, out: r.stdout, code };
}

// The page on the same files: { state, text, bytes? }.
async function inPage(files) {
  const page = await openPage(session);
  await page.getByTestId('file-input').setInputFiles(files);
  const merge = page.getByTestId('merge');
  await page.waitForFunction(() => !document.querySelector('#merge-reason')?.textContent.startsWith('Looking'));
  if (await merge.isDisabled()) {
    const reason = await page.locator('#merge-reason').textContent();
    await page.close();
    return { state: 'disabled', text: reason };
  }
  await merge.click();
  const status = page.getByTestId('status');
  await page.locator('[data-testid=status][data-state=done], [data-testid=status][data-state=error]').waitFor({ timeout: 60000 });
  const got = { state: await status.getAttribute('data-state'), text: await status.textContent() };
  if (got.state === 'done') got.bytes = (await download(page)).bytes;
  got.errors = page.errors;
  await page.close();
  return got;
}

for (const [name, bytes] of Object.entries(CASES)) {
  test(`damage on the page: ${name}, alone and among good files, as the CLI`, { timeout: 120000 }, async () => {
    // Among good files: the page merges them all and writes the CLI's bytes.
    const among = path.join(session.tmp, `${name}-among`);
    const files = write(among, { ...GOOD, [name]: bytes });
    const want = native(among, files);
    assert.equal(want.status, 0, `the CLI merges the good files beside ${name}`);
    const got = await inPage(files);
    assert.equal(got.state, 'done', got.text);
    assert.ok(got.bytes.equals(want.out), `${name} among good files: the page's bytes differ from the CLI's`);
    const report = JSON.parse(got.bytes.toString()).metadata.tracemerge;
    for (const good of Object.keys(GOOD)) assert.ok(report.sources.find((s) => s.path === good).kept > 0, `${good} kept`);
    assert.deepEqual(got.errors, []);

    // Alone: the same bytes, or where the CLI writes nothing the page says the CLI's error.
    const alone = path.join(session.tmp, `${name}-alone`);
    const one = write(alone, { [name]: bytes });
    const mine = native(alone, one);
    const page = await inPage(one);
    if (mine.status === 0) {
      if (page.state === 'disabled') assert.fail(`${name} alone: the CLI merges it, the page says "${page.text}"`);
      assert.equal(page.state, 'done', page.text);
      assert.ok(page.bytes.equals(mine.out), `${name} alone: the page's bytes differ from the CLI's`);
    } else {
      assert.notEqual(page.state, 'done', `${name} alone: the CLI fails (${mine.code}), the page merged`);
      if (page.state === 'error') assert.match(page.text, new RegExp(mine.code), `${name} alone: the page's error is not the CLI's ${mine.code}`);
      else assert.match(page.text, /no file here holds a trace|nothing to merge/i, page.text);
    }
  });
}
