// The page's states and words: one progress bar per merge that never goes back (watched from
// the page itself), Escape cancels, Merge disabled with its reason, an empty output as a
// warning, repeated warnings grouped, and the layout at 400 px (nothing leaves its card).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { COMBINED, openPage as open, waitDone, closeSession, openSession } from './helpers.mjs';

let session;
before(async () => {
  session = await openSession('states');
});
after(() => closeSession(session));

const openPage = (options) => open(session, options);

// Files of `events` X events each, for a merge long enough to watch.
function bigFiles(dir, files, events) {
  fs.mkdirSync(dir, { recursive: true });
  const out = [];
  for (let f = 0; f < files; f++) {
    const file = path.join(dir, `part${f}.json`);
    const parts = ['['];
    for (let i = 0; i < events; i++) {
      parts.push(`{"ph":"X","name":"op${i % 31}","pid":${f + 1},"tid":${i % 4},"ts":${i * 5 + f},"dur":3,"args":{"i":${i},"pad":"${'p'.repeat(30)}"}},`);
    }
    parts.push('{}]');
    fs.writeFileSync(file, parts.join('\n'));
    out.push(file);
  }
  return out;
}

test('the progress bar of a merge only moves forward, sampled from the page every frame and on every change', { timeout: 240000 }, async () => {
  const files = bigFiles(path.join(session.tmp, 'progress'), 8, 40000);
  const page = await openPage();
  await page.getByTestId('file-input').setInputFiles(files);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  // The page watches its own bar: a MutationObserver on its value, and a sample each frame.
  await page.evaluate(() => {
    const bar = document.querySelector('[data-testid=progress]');
    window.progressSeen = [];
    new MutationObserver(() => window.progressSeen.push(bar.value)).observe(bar, { attributes: true, attributeFilter: ['value'] });
    const frame = () => {
      if (!bar.closest('[hidden]')) window.progressSeen.push(bar.value);
      if (document.querySelector('[data-testid=status]').dataset.state !== 'done') requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  await page.getByTestId('merge').click();
  await waitDone(page);
  const seen = await page.evaluate(() => window.progressSeen);
  assert.ok(seen.length > 10, `only ${seen.length} samples`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1], `the bar went back from ${seen[i - 1]} to ${seen[i]} (sample ${i} of ${seen.length})`);
  assert.ok(seen.some((v) => v > 0.05 && v < 0.95), 'no value between start and end was seen');
  assert.equal(seen.at(-1), 1);
  assert.match(await page.locator('#progress-text').textContent(), /events/);

  // Escape cancels a running merge.
  await page.getByTestId('merge').click();
  await page.locator('[data-testid=status][data-state=merging]').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('[data-testid=status][data-state=idle]').waitFor();
  assert.match(await page.getByTestId('status').textContent(), /cancelled/i);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Merge is disabled with its reason when no file holds a trace; the window says so', async () => {
  const dir = path.join(session.tmp, 'no-trace');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'host.kernel_stats.pb'), 'not a trace');
  fs.writeFileSync(path.join(dir, 'events.out.tfevents.1596659864.host.profile-empty'), '');
  const page = await openPage();
  await page.getByTestId('folder-input').setInputFiles(dir);
  await page.locator('#merge-reason', { hasText: 'No file here holds a trace' }).waitFor();
  assert.equal(await page.getByTestId('merge').isDisabled(), true);
  const line = await page.locator('#window-before').textContent();
  assert.doesNotMatch(line, /→ \(\)|: →/);
  assert.match(line, /everything/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a merge that writes no event is a warning, not a success; 22 bad events are one line', async () => {
  const dir = path.join(session.tmp, 'bad');
  fs.mkdirSync(dir);
  const good = Array.from({ length: 5 }, (_, i) => `{"ph":"X","name":"ok","pid":1,"ts":${i},"dur":1}`);
  const bad = Array.from({ length: 22 }, () => '{"name":"bad","ts":1}');
  fs.writeFileSync(path.join(dir, 'bad22.json'), `[${[...good, ...bad].join(',\n')}]`);
  const page = await openPage();
  await page.getByTestId('file-input').setInputFiles(path.join(dir, 'bad22.json'));
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  await page.getByTestId('merge').click();
  await waitDone(page);
  const items = await page.locator('#warnings li').allTextContents();
  const grouped = items.filter((t) => /BAD_EVENT/.test(t));
  assert.equal(grouped.length, 1, items.join('\n'));
  assert.match(grouped[0], /^22 × BAD_EVENT ?in bad22\.json, first at byte \d+/);
  assert.match(await page.locator('#problems-title').textContent(), /23 warnings/);  // 22 + NO_CLOCK

  await page.getByTestId('start').fill('1000');
  await page.getByTestId('merge').click();
  await waitDone(page);
  const status = page.getByTestId('status');
  assert.equal(await status.getAttribute('data-level'), 'warning');
  assert.match(await status.textContent(), /Nothing in the window/);
  await page.close();
});

test('at 400 px the file table is a card per file and nothing leaves its card (light and dark)', { timeout: 120000 }, async () => {
  for (const colorScheme of ['light', 'dark']) {
    const page = await openPage({ viewport: { width: 400, height: 900 }, colorScheme });
    await page.getByTestId('folder-input').setInputFiles(COMBINED);
    await page.waitForFunction(() => window.tracemerge.overview.geometry()?.lanes.length > 0);
    await page.getByTestId('merge').click();
    await waitDone(page);
    await checkNarrow(page, 15);
    // The sample: a clock warning, a steps panel with the rank the others waited for marked.
    await page.getByRole('button', { name: 'Try with sample traces' }).click();
    await page.locator('#steps-panel td.held-rank').first().waitFor();
    await waitDone(page);
    await checkNarrow(page, 6);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

// The page at 400 px: no wider than that, the file table as cards, nothing outside its card.
async function checkNarrow(page, files) {
  const report = await page.evaluate(() => {
    const out = { width: document.scrollingElement.scrollWidth, rows: [], leaks: [] };
    for (const tr of document.querySelectorAll('#files tbody tr')) out.rows.push(getComputedStyle(tr).display);
    // A box inside a scrolling region may reach beyond it: it scrolls. Others may not.
    const scrolls = (n) => { for (let p = n.parentElement; p && !p.classList.contains('card'); p = p.parentElement) {
      if (/(auto|scroll|hidden)/.test(getComputedStyle(p).overflowX)) return true;
    } return false; };
    for (const card of document.querySelectorAll('.card:not([hidden])')) {
      const c = card.getBoundingClientRect();
      for (const n of card.querySelectorAll('*')) {
        const r = n.getBoundingClientRect();
        if (!r.width || scrolls(n) || n.closest('.visually-hidden')) continue;
        if (r.left < c.left - 0.5 || r.right > c.right + 0.5) out.leaks.push(`${n.tagName}#${n.id}.${n.className} ${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(c.left)}..${Math.round(c.right)}`);
      }
    }
    return out;
  });
  assert.ok(report.width <= 400, `the page is ${report.width} px wide`);
  assert.ok(report.rows.length === files && report.rows.every((d) => d === 'grid'), `rows: ${report.rows}`);
  assert.deepEqual(report.leaks, []);
}

// A result belongs to its options: after a merge, choosing to align the clocks (a rescan)
// or changing the window takes the result and its download away, and the status says why.
test('a merged result goes when the options change: no stale download', async () => {
  const page = await openPage();
  await page.getByTestId('folder-input').setInputFiles(COMBINED);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  await page.getByTestId('merge').click();
  await waitDone(page);
  const download = page.getByTestId('download');
  assert.equal(await download.isEnabled(), true);
  for (const change of [
    () => page.getByTestId('align').selectOption('clocks'),
    () => page.getByTestId('start').fill('1594662618874598'),
    () => page.getByTestId('group').selectOption('phase'),
  ]) {
    await change();
    await page.getByTestId('status').and(page.locator('[data-state=idle]')).waitFor();
    assert.match(await page.getByTestId('status').textContent(), /changed since the last merge: press Merge/);
    assert.equal(await download.isVisible() && await download.isEnabled(), false, 'no download of the old result');
    await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
    await page.getByTestId('merge').click();
    await waitDone(page);
    assert.equal(await download.isEnabled(), true, 'the new result downloads');
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
