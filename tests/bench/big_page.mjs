// The page (build/web, served on 127.0.0.1) merging a folder in headless Chromium,
// for jobs larger than the 4 GB wasm heap: scripts/bench-big.sh --page runs it.
//   node tests/bench/big_page.mjs JOB_DIR OUT_FILE
// Prints the merge time and the output size; fails if the page reports an error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { servers } from '../e2e/helpers.mjs';

const [dir, out] = process.argv.slice(2);
const srv = await servers();
// A normal (on-disk) profile, as a user's browser has: a private window keeps
// the browser's storage in memory.
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tracemerge-profile-'));
const b = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium', acceptDownloads: true, args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await b.newPage();
  page.setDefaultTimeout(0);
  await page.goto(srv.page.url);
  await page.getByTestId('folder-input').setInputFiles(dir);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  const t0 = Date.now();
  await page.getByTestId('merge').click();
  await page.locator('[data-testid=status][data-state=done], [data-testid=status][data-state=error]').waitFor();
  const seconds = (Date.now() - t0) / 1000;
  const status = await page.getByTestId('status').textContent();
  if ((await page.getByTestId('status').getAttribute('data-state')) !== 'done') throw new Error(status);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
  await dl.saveAs(out);
  const size = fs.statSync(out).size;
  const fd = fs.openSync(out, 'r');
  const tail = Buffer.alloc(200);
  fs.readSync(fd, tail, 0, 200, size - 200);
  fs.closeSync(fd);
  if (!tail.toString().includes('"warnings":[')) throw new Error('the output does not end with the report');
  console.log(`page: merged in ${seconds.toFixed(0)} s, output ${(size / 1e9).toFixed(2)} GB; ${status}`);
} finally {
  await b.close();
  await srv.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
