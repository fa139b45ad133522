// The overview and the steps panel in the page: drawn for a folder before merging; windows
// picked by dragging, by a step's tick, by the keys and in the steps panel merge to the
// native CLI's bytes for those windows; lanes follow the table; the align control.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import path from 'node:path';
import { CORPUS, cli, download, sampleFolder, scannedPage, waitDone, closeSession, openSession } from './helpers.mjs';

let sample;  // the sample job as a folder on disk
let session;
before(async () => {
  session = await openSession('overview');
  sample = await sampleFolder(session.tmp);
});
after(() => closeSession(session));


const geometry = (page) => page.evaluate(() => window.tracemerge.overview.geometry());

// Drags across the overview from fraction a to fraction b of its plot, in the lanes.
async function drag(page, a, b) {
  const g = await geometry(page);
  await page.getByTestId('overview').scrollIntoViewIfNeeded();  // (the mouse does not scroll)
  const box = await page.getByTestId('overview').boundingBox();
  const y = box.y + (g.lanesY + g.lanesEnd) / 2;
  const x = (f) => box.x + g.x0 + f * (g.x1 - g.x0);
  await page.mouse.move(x(a), y);
  await page.mouse.down();
  for (let i = 1; i <= 5; i++) await page.mouse.move(x(a + ((b - a) * i) / 5), y);
  await page.mouse.up();
}

const fields = async (page) => ({
  unit: await page.getByTestId('unit').inputValue(),
  start: await page.getByTestId('start').inputValue(),
  end: await page.getByTestId('end').inputValue(),
});

async function mergeMatchesCli(page, flags) {
  await page.getByTestId('merge').click();
  await waitDone(page);
  const got = await download(page);
  assert.ok(got.bytes.equals(cli([sample], flags)), `the page's output differs from the CLI's with ${flags.join(' ')}`);
}

test('the overview is drawn before merging; two drags pick two windows inside the job that merge to the CLI bytes', { timeout: 180000 }, async () => {
  const page = await scannedPage(session, sample);
  assert.equal(await page.getByTestId('status').getAttribute('data-state'), 'idle', 'the overview needs no merge');
  const g = await geometry(page);
  assert.equal(g.lanes.length, 6);
  assert.deepEqual([...new Set(g.lanes.map((l) => l.group))], ['algo-1', 'rank 0 · host-a', 'rank 1 · host-b'], 'ranks by their label from the scan');
  const label = await page.getByTestId('overview').getAttribute('aria-label');
  assert.match(label, /overview/i);
  assert.match(await page.locator('#overview-desc').textContent(), /6 sources on 3 nodes or ranks.*12 steps/);
  const job = await page.evaluate(() => window.tracemerge.state.job);

  const windows = [];
  for (const [a, z] of [[0.2, 0.35], [0.55, 0.75]]) {
    await drag(page, a, z);
    const f = await fields(page);
    assert.equal(f.unit, 'time');
    assert.match(f.start, /^\d+$/);
    assert.match(f.end, /^\d+$/);
    const [s, e] = [Number(f.start), Number(f.end)];
    assert.ok(s >= job.start_us && e <= job.end_us && s < e, `${s}..${e} is not inside the job ${job.start_us}..${job.end_us}`);
    windows.push([s, e]);
    await mergeMatchesCli(page, ['--start', f.start, '--end', f.end]);
    assert.match(await page.locator('#window-after').textContent(), new RegExp(`${f.start} \\.\\. ${f.end} µs`));
  }
  assert.ok(windows[1][0] > windows[0][1], `the later drag gave ${windows[1]} after ${windows[0]}`);
  // Double-click: no window (everything).
  await page.getByTestId('overview').dblclick({ position: { x: g.x0 + 50, y: (g.lanesY + g.lanesEnd) / 2 } });
  assert.deepEqual(await fields(page), { unit: 'time', start: '', end: '' });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a step\'s tick, the steps panel and the keys pick windows the CLI resolves the same way', { timeout: 180000 }, async () => {
  const page = await scannedPage(session, sample);
  const g = await geometry(page);
  const tick = g.steps.find((s) => s.step === 3);
  await page.getByTestId('overview').click({ position: { x: tick.x, y: g.stepRowY } });
  assert.deepEqual(await fields(page), { unit: 'step', start: '3', end: '4' });
  await mergeMatchesCli(page, ['--unit', 'step', '--start', '3', '--end', '4']);
  assert.match(await page.locator('#window-after').textContent(), /step 3 up to step 4, not included/);

  // The steps panel: in step 5 the others waited for rank 1 (marked, named); a number picks its step.
  const row = page.locator('#steps-panel .steps-table tr[data-step="5"]');
  assert.equal(await row.locator('td.held-rank').count(), 1);
  assert.equal(await row.locator('td.held').textContent(), 'rank 1 · host-b');
  assert.match(await row.locator('td.lost').textContent(), /^[\d.]+ ms$/, 'the sample: one rank waited for the other');
  await page.getByRole('button', { name: 'Merge step 11' }).click();
  assert.deepEqual(await fields(page), { unit: 'step', start: '11', end: '' }, 'the last step: open to the end');
  await mergeMatchesCli(page, ['--unit', 'step', '--start', '11']);

  // Keys: Tab reaches the overview (after its zoom buttons and the clock warning's button);
  // ↓ selects the first step, Enter picks it; →, Shift+→ and Enter a time window.
  await page.locator('#zoom-fit').focus();
  const reached = [];
  for (let i = 0; i < 3 && reached.at(-1) !== 'overview'; i++) {
    await page.keyboard.press('Tab');
    reached.push(await page.evaluate(() => document.activeElement.id));
  }
  assert.equal(reached.at(-1), 'overview', `Tab went to ${reached.join(', ')}`);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.deepEqual(await fields(page), { unit: 'step', start: '0', end: '1' });
  for (const key of ['ArrowRight', 'ArrowRight', 'Shift+ArrowRight', 'Enter']) await page.keyboard.press(key);
  const f = await fields(page);
  assert.equal(f.unit, 'time');
  assert.ok(Number(f.end) > Number(f.start));
  await mergeMatchesCli(page, ['--start', f.start, '--end', f.end]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('lanes follow the file and kind check boxes and the offsets, without a new scan', { timeout: 120000 }, async () => {
  const page = await scannedPage(session, sample);
  const scans = () => page.evaluate(() => window.tracemerge.state.scans);
  const before = await scans();
  const rank1 = 'sample_job/ranks/host-b/rank1.pt.trace.json';
  await page.getByLabel(`Include ${rank1}`).uncheck();
  assert.ok(!(await geometry(page)).lanes.some((l) => l.path === rank1));
  await page.locator('#kinds input[data-kind=system]').uncheck();
  assert.equal((await geometry(page)).lanes.length, 4);
  const start = (await geometry(page)).view.start;
  await page.getByLabel('Clock offset of sample_job/ranks/host-a/rank0.pt.trace.json in µs').fill('-200000');
  const g = await geometry(page);
  assert.equal(g.lanes.find((l) => l.path.endsWith('rank0.pt.trace.json')).shift, -200000);
  assert.equal(g.view.start, start - 200000);
  assert.equal(await scans(), before, 'the page scanned again');
  await page.close();
});

test('a host\'s clock off is shown at the overview; "Align clocks" rescans and merges aligned, as the CLI', { timeout: 180000 }, async () => {
  const page = await scannedPage(session, sample);
  const skew = page.locator('#skew');
  await skew.waitFor();
  assert.match(await skew.textContent(), /host-b's clock is \+400\.\d+ µs ± [\d.]+ µs against host-a's \(96 of 96 NCCL kernels ends agree\)/);
  await page.getByTestId('align-clocks').click();
  assert.equal(await page.getByTestId('align').inputValue(), 'clocks');
  await page.locator('#aligned-note:not([hidden])').waitFor();
  assert.match(await page.locator('#aligned-note').textContent(), /moved -400\.\d+ µs/);
  assert.equal(await skew.isHidden(), true);
  await mergeMatchesCli(page, ['--align', 'clocks']);
  // Back to none: the warning is back.
  await page.getByTestId('align').selectOption('none');
  await skew.waitFor();
  await page.close();
});

test('a host that could not be checked is named with the reason; a host with no collectives is not', { timeout: 120000 }, async () => {
  // The sample: algo-1 (smdebug, system metrics) has no collectives to compare: nothing to say of it.
  const page = await scannedPage(session, sample);
  await page.locator('#skew li.skewed').waitFor();
  assert.equal(await page.locator('#skew li.unchecked').count(), 0);
  assert.doesNotMatch(await page.locator('#skew').textContent(), /algo-1/);
  // Two real sampled ranks of a 128-rank job: collectives that do not line up — rank 1 is named, with why.
  await page.getByTestId('file-input').setInputFiles(['sampled_rank-0.json.gz', 'sampled_rank-1.json.gz']
    .map((f) => path.join(CORPUS, 'real/pytorch_kineto_hta', f)));
  const unchecked = page.locator('#skew li.unchecked');
  await unchecked.waitFor();
  assert.equal(await unchecked.count(), 1);
  assert.match(await unchecked.textContent(), /^Not checked: .+ — .+\.$/);
  assert.equal(await page.locator('#skew li.skewed').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});
