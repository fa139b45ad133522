// Who waits for whom, two runs side by side, and a big job at a glance, in the page, on
// jobs from the project's generator (tests/bench/gen_ranks.py): the steps panel names a
// planted straggler for its steps and the time lost, the ranks × steps map has it hot, a
// cell picks its step; two smdebug runs list each step in both and the difference,
// sortable; 1 024 ranks draw as 128 hosts (one opens into its ranks), the file table folds
// by kind and host, and 128 NO_CLOCK warnings are one line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, cli, closeSession, download, openPage, openSession, scannedPage, waitDone } from './helpers.mjs';
import fs from 'node:fs';

let session;
before(async () => { session = await openSession('waits'); });
after(() => closeSession(session));

function generate(name, args, script = 'gen_ranks.py') {
  const out = path.join(session.tmp, name);
  const r = spawnSync('python3', [path.join(ROOT, 'tests/bench', script), out, ...args.split(' ')]);
  assert.equal(r.status, 0, r.stderr.toString());
  return out;
}

const scanned = (dir) => scannedPage(session, dir, { timeout: 120000 });  // (1 024 ranks take a while)

const fields = async (page) => ({
  unit: await page.getByTestId('unit').inputValue(),
  start: await page.getByTestId('start').inputValue(),
  end: await page.getByTestId('end').inputValue(),
});

test('the steps panel names a planted straggler for its steps, with the time lost; its map cell picks the step', { timeout: 180000 }, async () => {
  const dir = generate('late', '--hosts 3 --ranks-per-host 2 --straggler 3 --straggler-steps 3-5 --straggler-ms 2 --seed 8');
  const page = await scanned(dir);
  const named = page.locator('#steps-panel .steps-table td.held.named');
  await named.first().waitFor();
  assert.equal(await named.count(), 3, 'steps 3, 4 and 5');
  for (let i = 0; i < 3; i++) assert.equal(await named.nth(i).textContent(), 'rank 3 · host-b');
  assert.deepEqual(await named.evaluateAll((tds) => tds.map((td) => td.closest('tr').dataset.step)), ['3', '4', '5']);
  for (let i = 0; i < 3; i++) {
    assert.match(await named.nth(i).locator('xpath=following-sibling::td[1]').textContent(), /^[\d.]+ ms each, [\d.]+ ms in all$/, 'what the others lost, said as what it is');
  }
  const calm = page.locator('#steps-panel .steps-table tr[data-step="0"] td.held');
  assert.equal(await calm.locator('[aria-hidden]').textContent(), '—', 'no straggler: no name');
  assert.ok((await calm.getAttribute('title')).length > 10, 'and why');
  // The ranks × steps map: rank 3 first (the others waited for it), its planted steps outlined.
  const rows = page.locator('#steps-panel .waits-table tbody tr');
  assert.equal(await rows.count(), 6);
  assert.match(await rows.first().locator('th').textContent(), /^rank 3 · host-b/);
  assert.equal(await rows.first().locator('td.held-rank').count(), 3);
  await rows.first().locator('td[data-step="4"]').click();
  assert.deepEqual(await fields(page), { unit: 'step', start: '4', end: '5' });
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A JAX job as the TF >= 2.11 / JAX profiler writes it (tests/bench/gen_xplane.py, a seed used
// nowhere else): an XSpace per host, a source per GPU plane. The hosts' planted clock offsets
// are shown as measured, host-c's GPUs are named for the steps they held up, and the merge is
// the CLI's bytes, aligned by the clocks too.
test('an XSpace folder (JAX, 3 hosts): clocks checked, the straggler host\'s GPUs named, the CLI\'s bytes', { timeout: 180000 }, async () => {
  const dir = generate('jax', '--hosts 3 --gpus-per-host 2 --offsets-us 0,350,-5800 --steps 4 --collectives 6 ' +
    '--straggler 2 --straggler-steps 1-2 --straggler-ms 2 --seed 9090', 'gen_xplane.py');
  const truth = JSON.parse(fs.readFileSync(`${dir}.truth.json`, 'utf8'));
  const page = await scanned(dir);
  assert.ok((await page.evaluate(() => window.tracemerge.overview.geometry().lanes.length)) >= 9, 'a lane per plane (3 host planes, 6 GPUs)');
  const named = page.locator('#steps-panel .steps-table td.held.named');
  await named.first().waitFor();
  assert.deepEqual(await named.evaluateAll((tds) => tds.map((td) => td.closest('tr').dataset.step)), ['1', '2']);
  const late = truth.hosts[truth.straggler.host];
  for (const text of await named.allTextContents()) assert.match(text, new RegExp(`^${late} · GPU \\d, ${late} · GPU \\d$`));
  const skew = await page.locator('#skew-list').textContent();
  const planted = (host) => truth.offsets_us[truth.hosts.indexOf(host)] - truth.offsets_us[0];
  for (const host of ['host-b', 'host-c']) {
    const m = skew.match(new RegExp(`${host}'s clock is ([+−][\\d,.]+) µs`));  // (a minus sign, not a hyphen)
    assert.ok(m, `${host} in: ${skew}`);
    assert.ok(Math.abs(Number(m[1].replace(/,/g, '').replace('−', '-')) - planted(host)) < 3, `${host}: ${m[1]} µs, planted ${planted(host)}`);
  }
  for (const flags of [[], ['--align', 'clocks']]) {
    if (flags.length) {
      await page.getByTestId('align-clocks').click();
      await page.locator('#aligned-note:not([hidden])').waitFor();
    }
    await page.getByTestId('merge').click();
    await waitDone(page);
    assert.ok((await download(page)).bytes.equals(cli([dir], flags)), `the page's bytes are not the CLI's with ${flags.join(' ')}`);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Issue 34's cases: two ranks busy in send/recv while two wait in the all-reduce for them —
// both named, not the waiting ones; one file per step per rank — one row per rank.
test('ranks busy in send/recv are named, not those waiting for them; one file per step per rank is one rank', { timeout: 180000 }, async () => {
  const page = await scanned(generate('p2p', '--hosts 2 --ranks-per-host 2 --p2p 1,2 --p2p-steps 2-4 --seed 23'));
  const named = page.locator('#steps-panel .steps-table td.held.named');
  await named.first().waitFor();
  assert.deepEqual(await named.evaluateAll((tds) => tds.map((td) => [td.closest('tr').dataset.step, td.textContent])),
    [['2', 'rank 1 · host-a, rank 2 · host-b'], ['3', 'rank 1 · host-a, rank 2 · host-b'], ['4', 'rank 1 · host-a, rank 2 · host-b']]);
  const heads = await page.locator('#steps-panel .steps-table thead th').allTextContents();
  assert.deepEqual(heads, ['Step', 'Starts (UTC)', 'rank 0 · host-a', 'rank 1 · host-a', 'rank 2 · host-b', 'rank 3 · host-b', 'Held up by', 'Lost waiting']);
  await page.close();

  const steps = await scanned(generate('fps', '--hosts 2 --ranks-per-host 2 --steps 5 --files-per-step --seed 31'));
  await steps.locator('#steps-panel .waits-table').waitFor();
  assert.deepEqual(await steps.locator('#steps-panel .waits-table tbody th').evaluateAll((ths) => ths.map((th) => th.textContent).sort()),
    ['rank 0 · host-a', 'rank 1 · host-a', 'rank 2 · host-b', 'rank 3 · host-b']);
  assert.equal(await steps.locator('#steps-panel .steps-table tbody tr').count(), 5);
  assert.deepEqual(steps.errors, []);
  await steps.close();
});

// Ranks merged into one file as TraceLens writes it (args.rank): a column and a row per rank, the
// straggler named; the file's row in the table says how many ranks it holds.
test('ranks merged into one file are ranks: a row each, the straggler named', { timeout: 180000 }, async () => {
  const page = await scanned(generate('fused', '--hosts 2 --ranks-per-host 2 --fuse --straggler 2 --straggler-steps 2-3 --seed 44'));
  const named = page.locator('#steps-panel .steps-table td.held.named');
  await named.first().waitFor();
  assert.deepEqual(await named.evaluateAll((tds) => tds.map((td) => [td.closest('tr').dataset.step, td.textContent])),
    [['2', 'rank 2'], ['3', 'rank 2']]);
  assert.deepEqual(await page.locator('#steps-panel .waits-table tbody th').evaluateAll((ths) => ths.map((th) => th.textContent).sort()),
    ['rank 0', 'rank 1', 'rank 2', 'rank 3']);
  assert.equal(await page.locator('#files tbody tr').count(), 1);
  assert.equal(await page.locator('#files tbody td.node').textContent(), '4 ranks');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A rank that lost its clock beside one with a clock: not "Clocks apart" by decades — the banner
// says it has none and that its collectives place it; Align clocks does.
test('a clockless rank is placed by its collectives, not called decades apart', { timeout: 180000 }, async () => {
  const args = '--hosts 2 --ranks-per-host 1 --steps 4 --offsets-us 0,400 --seed 61';
  const withClock = generate('with', args);
  const without = generate('without', `${args} --no-clock`);
  const job = path.join(session.tmp, 'mixed');
  fs.cpSync(path.join(withClock, 'host-a'), path.join(job, 'host-a'), { recursive: true });
  fs.cpSync(path.join(without, 'host-b'), path.join(job, 'host-b'), { recursive: true });
  const page = await scanned(job);
  const lines = page.locator('#skew-list li');
  await lines.first().waitFor();
  assert.deepEqual(await lines.allTextContents(),
    ["No clock: host-b has no clock of its own; its NCCL kernels line up with host-a's (32 of 32 ends agree): Align clocks places it by them."]);
  await page.getByTestId('align-clocks').click();
  await page.locator('#aligned-note:not([hidden])').waitFor();
  assert.match(await page.locator('#aligned-note').textContent(), /host-b/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('two runs side by side: each step in both, the difference, sortable by it', { timeout: 180000 }, async () => {
  generate('runs/monday', '--format smdebug --hosts 2 --ranks-per-host 1 --steps 5 --seed 11');
  generate('runs/thursday', '--format smdebug --hosts 2 --ranks-per-host 1 --steps 5 --seed 12 --straggler 1 --straggler-steps 2-2 --straggler-ms 5 --base-us 1700259200000000');
  const page = await scanned(path.join(session.tmp, 'runs'));
  const table = page.locator('#steps-panel .runs-table');
  await table.waitFor();
  assert.deepEqual(await table.locator('thead th').allTextContents(), ['Step', 'runs/monday', 'runs/thursday', 'Difference']);
  const steps = async () => table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.step));
  assert.deepEqual(await steps(), ['0', '1', '2', '3', '4']);
  await page.getByRole('button', { name: 'Difference' }).click();
  const sorted = await steps();
  assert.equal(sorted[0], '2', 'step 2 got slower on thursday: first when sorted by the difference');
  assert.match(await table.locator('tbody tr').first().locator('td.diff').textContent(), /^\+[\d.]+ ms$/);
  await table.locator('tbody tr').first().getByRole('button').click();
  assert.deepEqual(await fields(page), { unit: 'step', start: '2', end: '3' });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('1 024 ranks at a glance: hosts folded in the overview and the table, warnings of one code one line', { timeout: 400000 }, async () => {
  const dir = generate('big', '--hosts 128 --ranks-per-host 8 --steps 3 --collectives 4 --no-clock --seed 5');
  const page = await scanned(dir);
  const g = await page.evaluate(() => window.tracemerge.overview.geometry());
  assert.equal(g.lanes.length, 128, 'a lane per host');
  assert.match(await page.locator('#fold-note').textContent(), /^128 hosts drawn folded/);
  // A host's name opens it into its ranks.
  const canvas = page.getByTestId('overview');
  await canvas.scrollIntoViewIfNeeded();
  await canvas.hover({ position: { x: 20, y: g.lanesY + 1 } });
  assert.match(await canvas.getAttribute('title'), /\(8 ranks\) · 8 sources: click to open it into its ranks$/);
  await canvas.click({ position: { x: 20, y: g.lanesY + 1 } });
  await page.waitForFunction(() => window.tracemerge.overview.geometry().lanes.length === 135);
  await canvas.hover({ position: { x: 20, y: g.lanesY + 1 } });
  assert.match(await canvas.getAttribute('title'), /^rank \d+ · host-\d+: click to fold its host$/);
  // The file table: by kind and host until asked.
  assert.equal(await page.locator('#files tbody tr.folded').count(), 128);
  await page.getByTestId('show-all-files').click();
  assert.equal(await page.locator('#files tbody tr').count(), 1024);
  // Merged: 128 NO_CLOCK warnings (one per host: a recording each) are one line.
  await page.getByTestId('merge').click();
  await waitDone(page);
  const noClock = page.locator('#warnings > li').filter({ hasText: 'NO_CLOCK' });
  assert.equal(await noClock.count(), 1);
  assert.match(await noClock.textContent(), /^128 × NO_CLOCK\s*in 128 files/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// SageMaker's multi-node TF layout: each trace's row says which node's sidecar placed it and
// why; a step window keeps every trace on its node's clock (none NO_CLOCK), as the truth says.
test('SageMaker TF traces: the file table says whose sidecar placed each, the step window keeps their clocks', { timeout: 120000 }, async () => {
  const dir = generate('sagemaker', '--sagemaker --hosts 3 --steps 14 --tf-steps 5-12 --offsets-us 0,0,0 --seed 91');
  const truth = JSON.parse(fs.readFileSync(`${dir}.truth.json`, 'utf8'));
  const page = await scanned(dir);
  await page.locator('#files td[data-label=Clock] .why').first().waitFor();
  const rows = await page.locator('#files tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    path: tr.querySelector('td.path')?.textContent ?? '',
    why: tr.querySelector('td[data-label=Clock] .why')?.textContent ?? '',
    title: tr.querySelector('td[data-label=Clock]')?.title ?? '' })));
  let tied = 0;
  for (const t of truth.tf) {
    const row = rows.find((r) => r.path === t.path);
    assert.ok(row, t.path);
    if (row.why === ` — ${t.host}'s: its Horovod ops line up`) {
      tied++;
      assert.match(row.title, new RegExp(`line up with ${t.host}'s timeline: ${t.host} [\\d.]+ µs \\(median of 8 ops\\)`));
    } else {
      assert.match(row.why, / — 3 sidecars agree within \d+ µs; host not known/, t.path);  // (two nodes began the step together)
    }
  }
  assert.ok(tied >= 16, `${tied} of 24 tied to their node`);  // (the others: nodes that began a step within µs)
  await page.getByTestId('unit').selectOption('step');
  await page.getByTestId('start').fill('5');
  await page.getByTestId('end').fill('12');
  await page.getByTestId('merge').click();
  await waitDone(page);
  const report = JSON.parse((await download(page)).bytes.toString()).metadata.tracemerge;
  for (const t of truth.tf) {
    const s = report.sources.find((x) => x.path.endsWith(t.path.slice(t.path.indexOf('/'))));
    assert.ok(s, t.path);
    if (s.identity.host) assert.equal(s.time_base_value, t.sidecar, t.path);
    assert.ok(s.identity.host === t.host || s.identity.host === '', `${t.path}: ${s.identity.host}`);
  }
  assert.ok(report.sources.filter((x) => x.kind === 'tf_trace').reduce((n, x) => n + x.kept, 0) > 1000, 'steps 5-11 of every node');
  assert.deepEqual(report.warnings.filter((w) => w.code === 'NO_CLOCK' || w.code === 'UNSURE_CLOCK'), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Issue 34 item 6: a job of clockless files is not dated 1970 anywhere — times read as time
// after its first event —, and a folder of files without a timed event is not dated 2262.
test('no clock, no dates: relative times read as such; a folder without a timed event says so', { timeout: 120000 }, async () => {
  const page = await scanned(generate('clockless', '--hosts 2 --ranks-per-host 1 --steps 3 --no-clock --seed 4'));
  await page.locator('#steps-panel .steps-table').waitFor();
  const texts = [await page.locator('#overview-desc').textContent(), await page.locator('#overview-caption').textContent(),
    await page.locator('#job-summary').textContent(), await page.locator('#steps-panel').textContent(),
    await page.locator('#start-hint, #end-hint').allTextContents().then((t) => t.join(' '))];
  for (const t of texts) assert.doesNotMatch(t, /19[67]\d-\d\d-\d\d/, t);
  assert.match(texts[0], /of relative times \(no file has a clock\)/);
  assert.match(texts[1], /^0 = the first event \(no file has a clock\)/);
  assert.match(texts[2], /times relative: no file has a clock/);
  assert.match(texts[3], /Starts \(after the first event\)/);
  await page.close();

  const bad = path.join(session.tmp, 'bad');
  fs.mkdirSync(bad, { recursive: true });
  fs.writeFileSync(path.join(bad, 'a.json'), '[{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}}]');
  fs.writeFileSync(path.join(bad, 'b.json'), '[{"ph":"X","name":"x","pid":1,"ts":"soon","dur":1}]');
  const none = await openPage(session);
  await none.getByTestId('folder-input').setInputFiles(bad);
  await none.locator('#overview-caption').filter({ hasText: /./ }).waitFor();
  const caption = await none.locator('#overview-caption').textContent();
  assert.match(caption, /^no event with a time was found/);
  assert.doesNotMatch(await none.locator('body').textContent(), /2262-/);
  assert.deepEqual(none.errors, []);
  await none.close();
});

// A JSON file that is not a trace (a package.json beside the traces) says so in the table once
// the scan has read it, not only in the merge's warnings.
test('a JSON file that is not a trace says so in the file table after the scan', { timeout: 60000 }, async () => {
  const dir = path.join(session.tmp, 'nontrace');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"x","version":"1.0"}');
  fs.writeFileSync(path.join(dir, 't.json'), '[{"ph":"X","name":"a","pid":1,"ts":1700000000000000,"dur":1}]');
  const page = await scanned(dir);
  const row = page.locator('#files tbody tr').filter({ hasText: 'package.json' });
  await row.locator('td[data-label=Kind] .hint').waitFor();
  assert.match(await row.locator('td[data-label=Kind]').textContent(), /not a trace/);
  assert.doesNotMatch(await page.locator('#files tbody tr').filter({ hasText: 't.json' }).locator('td[data-label=Kind]').textContent(), /not a trace/);
  await page.close();
});

// Issue 34 item 5: 256 ranks on 32 hosts read at a glance — the steps table keeps its headers and
// numbers (the busy range per step, who held the others up, what they lost), the map every rank's
// name beside its cells; and two runs each have their own steps table and map, never one ranking.
test('256 ranks and two runs stay readable: headers, numbers, runs apart', { timeout: 300000 }, async () => {
  const page = await scanned(generate('r256', '--hosts 32 --ranks-per-host 8 --steps 6 --collectives 4 --straggler 37 --straggler-steps 2-3 --straggler-ms 3 --seed 5'));
  const table = page.locator('#steps-panel .steps-table');
  await table.waitFor();
  assert.deepEqual(await table.locator('thead th').allTextContents(), ['Step', 'Starts (UTC)', 'Busy (ranks)', 'Held up by', 'Lost waiting']);
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.equal(rows.length, 6);
  for (const r of rows) assert.match(r[2], /^[\d.]+ (µs|ms) – [\d.]+ (µs|ms)$/, r.join(' | '));
  const named = rows.filter((r) => !r[3].startsWith('—'));
  assert.deepEqual(named.map((r) => [r[0], r[3]]), [['2', 'rank 37 · host-e'], ['3', 'rank 37 · host-e']]);
  for (const r of named) assert.match(r[4], /^[\d.]+ ms each, [\d.]+ (ms|s) in all$/);
  for (const r of rows.filter((x) => x[3].startsWith('—'))) assert.match(r[3], /^—no one named: .{10,}/, 'and why');
  const map = page.locator('#steps-panel .waits-table');
  assert.equal(await map.locator('tbody tr').count(), 32);
  assert.match(await map.locator('tbody tr').first().locator('th').textContent(), /^rank 37 · host-e/);
  assert.match(await page.locator('#steps-panel').textContent(), /32 of 256 ranks are shown/);
  const sticky = await map.locator('tbody th').first().evaluate((th) => getComputedStyle(th).position);
  assert.equal(sticky, 'sticky', 'rank names stay in view while the map scrolls');
  await page.close();

  generate('two/monday', '--format smdebug --hosts 2 --ranks-per-host 1 --steps 4 --seed 11');
  generate('two/thursday', '--format smdebug --hosts 2 --ranks-per-host 1 --steps 4 --seed 12 --base-us 1700259200000000');
  const runs = await scanned(path.join(session.tmp, 'two'));
  await runs.locator('#steps-panel .steps-table').first().waitFor();
  assert.deepEqual(await runs.locator('#steps-panel h4.run-name').allTextContents(), ['Run two/monday', 'Run two/thursday']);
  assert.equal(await runs.locator('#steps-panel .steps-table').count(), 2);
  for (const t of await runs.locator('#steps-panel .steps-table').all()) assert.equal(await t.locator('tbody tr').count(), 4);
  await runs.close();
});

// Issue 42's race: Merge pressed while the scan runs waits for the scan — the overview still
// appears, and the merge then runs.
test('Merge during the scan waits for it: the overview appears and the merge runs', { timeout: 300000 }, async () => {
  const dir = generate('race', '--hosts 16 --ranks-per-host 8 --steps 6 --seed 9');
  const page = await openPage(session);
  await page.getByTestId('folder-input').setInputFiles(dir);
  await page.locator('#job-summary', { hasText: 'scanning the job' }).waitFor();
  await page.getByTestId('merge').and(page.locator(':enabled')).click();
  await waitDone(page);
  await page.waitForFunction(() => window.tracemerge.overview.geometry()?.lanes.length > 0);
  assert.match(await page.getByTestId('status').textContent(), /^Merged [\d,]+ events/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Issue 42's other race: when the scan ends and fills in each file's clock (one line: the rows
// keep their height) and the overview appears above, Merge, in view, does not move under a
// pending click (the browser keeps what is in view in place).
test('Merge stays where it is when the scan ends', { timeout: 120000 }, async () => {
  const dir = generate('still', '--sagemaker --hosts 2 --steps 4 --tf-steps 1-2 --seed 3');
  const page = await openPage(session);
  await page.getByTestId('folder-input').setInputFiles(dir);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  await page.getByTestId('merge').scrollIntoViewIfNeeded();  // (where a user about to click has it)
  const before = await page.getByTestId('merge').boundingBox();
  await page.waitForFunction(() => window.tracemerge.overview.geometry()?.lanes.length > 0);
  await page.locator('#files td[data-label=Clock] .why').first().waitFor();
  const after = await page.getByTestId('merge').boundingBox();
  assert.ok(Math.abs(after.y - before.y) < 2, `Merge moved from ${before.y} to ${after.y} when the scan ended`);
  await page.close();
});
