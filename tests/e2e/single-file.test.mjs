// build/web/tracemerge.html on its own from file:// (classic scripts, a Blob worker): it
// merges and downloads the CLI's bytes and hands off to Perfetto. The notebook helper's
// page, and its Jupyter <iframe srcdoc> form, merge their preloaded files on load.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { COMBINED, WEB, cli, download, notebookPage, sha256, waitDone, closeSession, openSession } from './helpers.mjs';

const SINGLE = path.join(WEB, 'tracemerge.html');
let session;
before(async () => {
  session = await openSession('single');
});
after(() => closeSession(session));

test('the single file works from file://: merge, download, Perfetto', { timeout: 120000 }, async () => {
  // A copy alone in an empty folder: nothing next to it can help.
  const alone = path.join(session.tmp, 'alone');
  fs.mkdirSync(alone);
  fs.copyFileSync(SINGLE, path.join(alone, 'tracemerge.html'));
  const page = await session.ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${pathToFileURL(path.join(alone, 'tracemerge.html')).href}?perfetto=${encodeURIComponent(session.srv.perfetto.url)}`);
  await page.getByTestId('folder-input').setInputFiles(COMBINED);
  // The overview is drawn here too (the core's rules and the scan from inlined scripts).
  await page.waitForFunction(() => window.tracemerge.overview.geometry()?.lanes.length === 9);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  await page.getByTestId('unit').selectOption('step');
  await page.getByTestId('start').fill('2');
  await page.getByTestId('end').fill('4');
  await page.getByTestId('merge').click();
  await waitDone(page);
  const got = await download(page);
  const expected = cli([COMBINED], ['--unit', 'step', '--start', '2', '--end', '4']);
  assert.equal(got.name, '1594662617676640_merged_timeline.json');
  assert.ok(got.bytes.equals(expected));

  // From file:// the page has no origin: the link's Perfetto address is used once allowed.
  await page.getByTestId('perfetto-allow').click();
  await page.getByTestId('show-perfetto').click();
  const frame = await (await page.locator('#perfetto-frame').elementHandle()).contentFrame();
  await frame.waitForFunction(() => window.received.length > 0);
  assert.equal((await frame.evaluate(() => window.received[0])).sha256, sha256(expected));
  assert.deepEqual(errors, []);
  // Every script on the page is inline: no module, no sibling file.
  assert.equal(await page.locator('script[src], link[rel=stylesheet]').count(), 0);
  await page.close();
});

test('the notebook helper\'s page merges its preloaded files on load', { timeout: 120000 }, async () => {
  const out = path.join(session.tmp, 'notebook.html');
  notebookPage(`show(${JSON.stringify(COMBINED)}, unit="step", start=2, end=4, gzip=True).save(${JSON.stringify(out)})`);
  const page = await session.ctx.newPage();
  await page.goto(pathToFileURL(out).href);
  await waitDone(page);
  assert.equal(await page.getByTestId('unit').inputValue(), 'step');
  const got = await download(page);
  assert.equal(got.name, '1594662617676640_merged_timeline.json.gz');
  assert.ok(got.bytes.equals(cli([COMBINED], ['--unit', 'step', '--start', '2', '--end', '4', '--gzip'])));
  await page.close();
});

test('the Jupyter form (sandboxed <iframe srcdoc>) merges a date-time window; result and Download show without scrolling', { timeout: 120000 }, async () => {
  const out = path.join(session.tmp, 'cell.html');
  // A UTC date-time as the page takes it: the notebook passes the text on, the core reads it.
  notebookPage(`open(${JSON.stringify(out)}, "w").write("<!doctype html><title>cell</title><body style='margin:0'>" + show(${JSON.stringify(COMBINED)}, start="2020-07-13 17:50:18.5")._repr_html_())`);
  const page = await session.ctx.newPage();
  await page.setViewportSize({ width: 1000, height: 900 });
  await page.goto(pathToFileURL(out).href);
  const iframe = page.locator('iframe');
  const frame = await (await iframe.elementHandle()).contentFrame();
  await waitDone(frame);
  assert.equal(await frame.getByTestId('start').inputValue(), '2020-07-13 17:50:18.5');
  // The cell's frame is as tall as the notebook made it; nothing has scrolled in it.
  const cell = await iframe.boundingBox();
  assert.equal(await frame.evaluate(() => window.scrollY), 0);
  for (const id of ['status', 'download']) {
    const box = await frame.getByTestId(id).boundingBox();
    assert.ok(box.y >= cell.y && box.y + box.height <= cell.y + cell.height, `${id} is not visible in the cell without scrolling`);
  }
  const [dl] = await Promise.all([page.waitForEvent('download'), frame.getByTestId('download').click()]);
  assert.ok(fs.readFileSync(await dl.path()).equals(cli([COMBINED], ['--start', '2020-07-13 17:50:18.5'])));
  await page.close();
});
