// The hosted page from a sub-path over http on 127.0.0.1: choose a folder, merge, download;
// the bytes equal the native CLI's for the same options. A synthetic drop, a damaged file,
// cancel. No request leaves 127.0.0.1.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { COMBINED, cli, download, openPage as open, tmpDir, waitDone, closeSession, openSession } from './helpers.mjs';

let session;
before(async () => {
  session = await openSession();
});
after(() => closeSession(session));

const openPage = (query = '') => open(session, { query });

async function chooseFolder(page, dir) {
  await page.getByTestId('folder-input').setInputFiles(dir);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
}

const PY = 'combined_job/framework/pevents/2020071317/1594662624718694_905-b88ab1bb8259_pythontimeline.json';

test('a chosen folder merges to the CLI bytes: everything, a time window, a step window, more options', async () => {
  const page = await openPage();
  await chooseFolder(page, COMBINED);
  const rows = page.locator('#files tbody tr');
  assert.equal(await rows.count(), 15);
  await assert.doesNotReject(page.locator('#files tbody tr', { hasText: 'skipped' }).first().waitFor());

  const cases = [
    { ui: {}, flags: [], name: '1596659864838308_merged_timeline.json' },
    { ui: { start: '1594662618874598', end: '1594662623418701' }, flags: ['--start', '1594662618874598', '--end', '1594662623418701'],
      name: '1594662623418701_merged_timeline.json' },
    { ui: { unit: 'step', start: '2', end: '4' }, flags: ['--unit', 'step', '--start', '2', '--end', '4'],
      name: '1594662617676640_merged_timeline.json' },
    { ui: { unit: 'time', start: '', end: '', group: 'phase', gzip: true, off: ['system', 'horovod'], offset: [PY, '-1500'] },
      flags: ['--group', 'phase', '--only', 'pythontimeline.json', '--only', 'model_timeline.json', '--only', 'trace.json.gz',
        '--only', 'other', '--offset', `${PY}=-1500`, '--gzip'],
      name: '1596659864838308_merged_timeline.json.gz' },
  ];
  const stats = [];  // after each merge
  for (const { ui, flags, name } of cases) {
    if (ui.unit) await page.getByTestId('unit').selectOption(ui.unit);
    if (ui.start !== undefined) await page.getByTestId('start').fill(ui.start);
    if (ui.end !== undefined) await page.getByTestId('end').fill(ui.end);
    if (ui.group) await page.getByTestId('group').selectOption(ui.group);
    if (ui.gzip) await page.getByTestId('gzip').check();
    for (const kind of ui.off ?? []) await page.locator(`#kinds input[data-kind=${kind}]`).uncheck();
    if (ui.offset) await page.getByLabel(`Clock offset of ${ui.offset[0]} in µs`).fill(ui.offset[1]);
    await page.getByTestId('merge').click();
    await waitDone(page);
    const got = await download(page);
    assert.equal(got.name, name);
    assert.ok(got.bytes.equals(cli([COMBINED], flags)), `bytes differ from the CLI with ${flags.join(' ')}`);
    stats.push(await page.locator('#stats').textContent());
    if (ui.unit === 'step') {
      // The resolved µs window is shown before and after merging.
      assert.match(await page.locator('#window-before').textContent(), /1594662617507447 \.\. 1594662617676640 µs/);
      assert.match(await page.locator('#window-after').textContent(), /1594662617507447 \.\. 1594662617676640 µs.*step 2 up to step 4, not included/);
    }
  }
  // With two cores, helper workers parsed some of the sources (same bytes) —
  // in one merge at least: on a job this small, the worker may have taken back
  // every source before the second one started.
  if (await page.evaluate(() => navigator.hardwareConcurrency) > 1)
    assert.ok(stats.some((text) => /Parsed in parallel\d+ sources? by helper workers/.test(text)), stats.join('\n'));
  // An unknown step is refused with the steps that exist.
  await page.getByTestId('unit').selectOption('step');
  await page.getByTestId('start').fill('2');
  await page.getByTestId('end').fill('99');
  await page.getByTestId('merge').click();
  await page.locator('[data-testid=status][data-state=error]').waitFor();
  assert.match(await page.getByTestId('status').textContent(), /step 99 not found; steps in this job.*: 0-29/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('with ?memory-mb=0 every event leaves the wasm heap, with ?output-file=1 the output is a file; the bytes stay the CLI\'s', async () => {
  const page = await openPage('?memory-mb=0&output-file=1');
  await chooseFolder(page, COMBINED);
  await page.getByTestId('merge').click();
  await waitDone(page);
  const got = await download(page);
  assert.ok(got.bytes.equals(cli([COMBINED], [])), 'bytes differ from the CLI when events are kept outside the heap');
  const files = await page.evaluate(async () => {
    const names = [];
    for await (const name of (await navigator.storage.getDirectory()).keys()) names.push(name);
    return names;
  });
  assert.equal(files.filter((n) => n.startsWith('tracemerge-output-')).length, 1, `private files: ${files}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a synthetic drop of files merges like the CLI given the same files', async () => {
  const page = await openPage();
  const dir = path.join(COMBINED, 'framework/pevents/2020071317');
  const files = fs.readdirSync(dir).sort().map((f) => path.join(dir, f));
  files.push(path.join(COMBINED, 'system/incremental/1591748100.algo-1.json'));
  const payload = files.map((f) => ({ name: path.basename(f), b64: fs.readFileSync(f).toString('base64') }));
  const flat = tmpDir('drop');
  for (const f of files) fs.copyFileSync(f, path.join(flat, path.basename(f)));
  const dataTransfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of list) {
      const bin = atob(b64);
      const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], name, { type: 'application/json' }));
    }
    return dt;
  }, payload);
  await page.dispatchEvent('body', 'dragenter', { dataTransfer });
  assert.equal(await page.locator('#drop-overlay').isVisible(), true);
  await page.dispatchEvent('body', 'dragover', { dataTransfer });
  await page.dispatchEvent('body', 'drop', { dataTransfer });
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  assert.equal(await page.locator('#drop-overlay').isVisible(), false);
  assert.equal(await page.locator('#files tbody tr').count(), 4);
  await page.getByTestId('merge').click();
  await waitDone(page);
  const got = await download(page);
  assert.ok(got.bytes.equals(cli(payload.map((f) => f.name), [], { cwd: flat })), 'dropped files merge to different bytes than the CLI');
  fs.rmSync(flat, { recursive: true });
  await page.close();
});

test('a damaged file shows its warning with file and byte offset; the rest merges', async () => {
  const dir = tmpDir('damaged');
  fs.writeFileSync(path.join(dir, 'good.json'), '[{"ph":"X","name":"good","pid":1,"ts":1,"dur":1}]');
  fs.writeFileSync(path.join(dir, 'cut.json'), '[{"ph":"X","name":"a","pid":1,"ts":1,"dur":1},{"ph":"X","na');
  fs.writeFileSync(path.join(dir, 'bad.json.gz'), 'this is not gzip at all');
  // A cut .json.gz and one whose length field says 4 GB (0xF0000000): hints, not sizes.
  const events = (n) => `[${Array.from({ length: n }, (_, i) => `{"ph":"X","name":"z${i}","pid":2,"ts":${i},"dur":1}`).join(',')}]`;
  const gz = zlib.gzipSync(events(4000));
  fs.writeFileSync(path.join(dir, 'cut.json.gz'), gz.subarray(0, gz.length >> 1));
  const forged = zlib.gzipSync(events(2));
  forged.writeUInt32LE(0xF0000000, forged.length - 4);
  fs.writeFileSync(path.join(dir, 'forged.json.gz'), forged);
  const names = ['good.json', 'cut.json', 'bad.json.gz', 'cut.json.gz', 'forged.json.gz'];
  const page = await openPage();
  await page.getByTestId('file-input').setInputFiles(names.map((f) => path.join(dir, f)));
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  await page.getByTestId('merge').click();
  await waitDone(page);
  const warnings = page.locator('#warnings li');
  await warnings.first().waitFor();
  const texts = await warnings.allTextContents();
  assert.ok(texts.some((t) => /TRUNCATED/.test(t) && /cut\.json at byte 46/.test(t)), texts.join('\n'));
  assert.ok(texts.some((t) => /bad\.json\.gz/.test(t)), texts.join('\n'));
  assert.ok(texts.some((t) => /BAD_GZIP/.test(t) && /forged\.json\.gz/.test(t)), texts.join('\n'));
  assert.ok(texts.some((t) => /TRUNCATED/.test(t) && /cut\.json\.gz(,| at) .*byte [\d,]+/.test(t)), texts.join('\n'));
  const got = await download(page);
  const expected = cli([...names].sort(), [], { cwd: dir });
  assert.ok(got.bytes.equals(expected));
  assert.match(got.bytes.toString(), /"name":"good"/);
  fs.rmSync(dir, { recursive: true });
  await page.close();
});

test('cancel stops a running merge; the page stays usable', async () => {
  const dir = tmpDir('big');
  const file = path.join(dir, 'big.json');
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '[');
  const line = (i) => `{"ph":"X","name":"e${i % 97}","pid":1,"tid":${i % 7},"ts":${i},"dur":1,"args":{"k":"${'x'.repeat(40)}"}},\n`;
  for (let i = 0; i < 500000; i += 10000) {
    let chunk = '';
    for (let j = i; j < i + 10000; j++) chunk += line(j);
    fs.writeSync(fd, chunk);
  }
  fs.writeSync(fd, '{}]');
  fs.closeSync(fd);

  const page = await openPage();
  await page.getByTestId('file-input').setInputFiles(file);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  await page.getByTestId('merge').click();
  await page.locator('[data-testid=status][data-state=merging]').waitFor();
  await page.locator('#progress-row').waitFor();
  await page.getByTestId('cancel').click();
  await page.locator('[data-testid=status][data-state=idle]').waitFor();
  assert.match(await page.getByTestId('status').textContent(), /cancelled/i);
  assert.equal(await page.getByTestId('download').isDisabled(), true);
  assert.equal(await page.locator('#progress-row').isVisible(), false);

  // The next merge works (the worker is replaced if it was stopped mid-merge).
  await page.getByRole('button', { name: 'Try with sample traces' }).click();
  const text = await waitDone(page);
  assert.match(text, /Merged 1,339 events into 1710408414500000_merged_timeline\.json/);
  fs.rmSync(dir, { recursive: true });
  await page.close();
});

test('keyboard: the controls are labelled and reachable with Tab', async () => {
  const page = await openPage();
  for (const id of ['merge', 'cancel', 'download', 'open-perfetto', 'show-perfetto', 'start', 'end', 'unit', 'group', 'gzip', 'folder-input', 'file-input']) {
    const name = await page.getByTestId(id).evaluate((e) => e.labels?.[0]?.textContent || e.getAttribute('aria-label') || e.textContent);
    assert.ok(name.trim(), `${id} has no accessible name`);
  }
  // Tab from the top reaches "Choose folder…"; Enter on the sample button merges.
  const seen = [];
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Tab');
    seen.push(await page.evaluate(() => document.activeElement.textContent.trim()));
  }
  assert.ok(seen.includes('Try with sample traces'), seen.join(' | '));
  await page.getByRole('button', { name: 'Try with sample traces' }).focus();
  await page.keyboard.press('Enter');
  await waitDone(page);
  await page.close();
});

test('a dropped folder is walked recursively (webkitGetAsEntry) and named like the CLI names it', async () => {
  const page = await openPage();
  const names = await page.evaluate(async () => {
    const { fromDrop } = await import('./files.mjs');
    // FileSystemEntry stand-ins: readEntries hands out at most 2 entries per call, as the
    // real one hands out ~100, so the walk must call it until it returns none.
    const file = (dir, name) => ({ isFile: true, isDirectory: false, fullPath: `${dir}/${name}`,
      file: (ok) => ok(new File(['[]'], name)) });
    const folder = (path, children) => ({ isFile: false, isDirectory: true, fullPath: path,
      createReader: () => { let i = 0; return { readEntries: (ok) => { ok(children.slice(i, i + 2)); i += 2; } }; } });
    const job = folder('/job', [file('/job', 'a.json'), file('/job', 'b.json'),
      folder('/job/sub', [file('/job/sub', 'c.json'), folder('/job/sub/deeper', [file('/job/sub/deeper', 'd.json')])]),
      file('/job', 'e.json')]);
    const dt = { items: [{ kind: 'file', webkitGetAsEntry: () => job }, { kind: 'file', webkitGetAsEntry: () => file('', 'single.json') }] };
    return (await fromDrop(dt)).map((f) => f.name);
  });
  assert.deepEqual(names, ['job/a.json', 'job/b.json', 'job/sub/c.json', 'job/sub/deeper/d.json', 'job/e.json', 'single.json']);
  await page.close();
});

test('a helper the page cannot start loses nothing: its sources are parsed by the merge worker, same bytes', async () => {
  // The page starts the helpers the merge worker asks for (wasm/scheduler.mjs: a worker's own
  // new Worker() hung in Firefox); one whose script does not load reports its error to it.
  const blocked = (route) => route.abort('blockedbyclient');
  await session.ctx.route('**/tracemerge-helper.mjs', blocked);
  try {
    const page = await openPage();
    await chooseFolder(page, COMBINED);
    await page.getByTestId('merge').click();
    await waitDone(page);
    const got = await download(page);
    assert.ok(got.bytes.equals(cli([COMBINED], [])), 'bytes differ from the CLI');
    const { helpers, helped } = await page.evaluate(() => ({
      helpers: window.tracemerge.client.helpers.length, helped: window.tracemerge.state.merged.result.helperSources }));
    assert.ok(helpers >= 1, 'the worker asked the page for a helper');
    assert.equal(helped, 0, 'no source came from a helper that never started');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await session.ctx.unroute('**/tracemerge-helper.mjs', blocked);
  }
});

// Issue 39: no silent wait. Helpers that never answer, or crash on their first source: the
// merge worker stops waiting on the first past its deadline (wasm/scheduler.mjs
// helperDeadline, served here at 1 s instead of 30) and sees the second's error; their sources
// are parsed by the merge worker, the bytes are the CLI's, and the page says what happened.
test('a helper that hangs or crashes: the merge ends with the CLI\'s bytes and the page says why', { timeout: 120000 }, async () => {
  const helpers = {
    hangs: 'self.onmessage = (e) => { if (e.data?.connect) e.data.connect.onmessage = () => {}; };',
    crashes: "self.onmessage = (e) => { if (e.data?.connect) e.data.connect.onmessage = (m) => { if (!m.data.release) setTimeout(() => { throw new Error('helper crashed'); }); }; };",
  };
  const why = { hangs: /^a helper said nothing for 1\.\d s while it owed \d+ sources?, and was stopped; /, crashes: /^a helper failed \(.*helper crashed\); (its source was|its \d+ sources were) parsed by the merging instance instead$/ };
  const shorter = async (route) => {
    const text = await (await route.fetch()).text();
    assert.ok(text.includes('answerMs: 30000'), 'the deadline is where the test expects it');
    await route.fulfill({ contentType: 'text/javascript', body: text.replace('answerMs: 30000', 'answerMs: 1000') });
  };
  await session.ctx.route('**/scheduler.mjs', shorter);
  try {
    for (const [what, body] of Object.entries(helpers)) {
      const fake = (route) => route.fulfill({ contentType: 'text/javascript', body });
      await session.ctx.route('**/tracemerge-helper.mjs', fake);
      try {
        const page = await openPage();
        await chooseFolder(page, COMBINED);
        await page.getByTestId('merge').click();
        await waitDone(page);
        const got = await download(page);
        assert.ok(got.bytes.equals(cli([COMBINED], [])), `${what}: bytes differ from the CLI`);
        const { helped, notes } = await page.evaluate(() => ({
          helped: window.tracemerge.state.merged.result.helperSources, notes: window.tracemerge.state.merged.result.helperNotes }));
        assert.equal(helped, 0, what);
        assert.match(notes.join('\n'), why[what], what);
        assert.ok((await page.locator('#stats').textContent()).includes(notes[0]), `${what}: the page shows it`);
        await page.close();
      } finally {
        await session.ctx.unroute('**/tracemerge-helper.mjs', fake);
      }
    }
  } finally {
    await session.ctx.unroute('**/scheduler.mjs', shorter);
  }
});
