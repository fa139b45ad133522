// Takes the README's screenshots of the page with the built-in sample job.
//   node tests/e2e/screenshot.mjs [light|dark] [out.png] [--width N]
//       the page after merging the sample (default: light, 1100 px, web/screenshot.png);
//       at --width 400 the whole page, as a phone shows it
//   node tests/e2e/screenshot.mjs align [out.png] [--scheme light|dark]
//       the sample's two hosts before and after "Align clocks": the overview near step 3,
//       zoomed in so that 400 µs show, stacked (default web/screenshot-align.png)
//   node tests/e2e/screenshot.mjs waits [out.png] [--scheme light|dark] [--width N] [--job "GEN_ARGS"]
//       who waits for whom: the steps panel of a generated 6-rank job whose rank 3 arrives
//       2 ms late at every all-reduce of steps 3-5 (default web/screenshot-waits.png), or of
//       the job tests/bench/gen_ranks.py makes with GEN_ARGS
//   node tests/e2e/screenshot.mjs damaged [out.png] [--scheme light|dark] [--width N]
//       a generated 2-rank job with a cut and a forged .json.gz beside it, merged: the file
//       table, the warnings and the result (default web/screenshot-damaged.png); then "Align
//       clocks" pressed — the result of the old options gone, said so — as <out>-stale.png
//   node tests/e2e/screenshot.mjs many [out.png] [--scheme light|dark] [--width N] [--files N]
//       20 000 one-event files (tests/e2e/many-files.mjs) chosen and merged: the file table
//       folded by kind and host, the overview by host (default web/screenshot-20000.png, 1280 px)
// Needs build/web (node web/build.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT, browser, servers, tmpDir, waitDone } from './helpers.mjs';
import { oneEventFiles } from './many-files.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const widthOption = option('--width', null);
const files = Number(option('--files', 20000));
const jobArgs = option('--job', '--hosts 3 --ranks-per-host 2 --straggler 3 --straggler-steps 3-5 --straggler-ms 2 --seed 8');
const schemeOption = option('--scheme', 'light');
const mode = args[0] ?? 'light';
const many = mode === 'many';
const width = Number(widthOption ?? (many ? 1280 : 1100));
const align = mode === 'align';
const waits = mode === 'waits';
const damaged = mode === 'damaged';
const scheme = align || waits || damaged || many ? schemeOption : mode;
const out = args[1] ?? path.join(ROOT, align ? 'web/screenshot-align.png' : waits ? 'web/screenshot-waits.png'
  : damaged ? 'web/screenshot-damaged.png' : many ? 'web/screenshot-20000.png' : 'web/screenshot.png');

const srv = await servers();
const b = await browser();
try {
  const page = await b.newPage({ viewport: { width, height: 900 }, deviceScaleFactor: 1, colorScheme: scheme });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(srv.page.url);
  if (waits) {
    await waitsShot(page, out);
  } else if (damaged) {
    await damagedShots(page, out);
  } else if (many) {
    await manyFiles(page);
  } else {
    await page.getByRole('button', { name: 'Try with sample traces' }).click();
    await waitDone(page);
  }
  await page.evaluate(() => document.activeElement?.blur());
  await page.mouse.move(0, 0);
  if (waits || damaged) {
    // (taken in waitsShot, damagedShots)
  } else if (align) {
    await alignShots(page, out);
  } else if (width < 600) {
    await page.screenshot({ path: out, fullPage: true });
  } else {
    // From the top to the end of the merge card (the settings footer adds nothing).
    const box = await page.locator('#h-merge').locator('xpath=..').boundingBox();
    await page.screenshot({ path: out, fullPage: true, clip: { x: 0, y: 0, width, height: Math.ceil(box.y + box.height + 16) } });
  }
  if (errors.length) throw new Error(`the page failed: ${errors.join('; ')}`);
  // Debian's pngquant (apt-get install pngquant), when present, makes it ~3x smaller.
  const q = spawnSync('pngquant', ['--force', '--skip-if-larger', '--quality=70-95', '--output', out, out]);
  console.log(`wrote ${out}${q.status === 0 ? ' (pngquant)' : ''}`);
} finally {
  await b.close();
  await srv.close();
}

// The steps panel of a generated job with a straggler (rank 3, steps 3-5), scanned.
async function waitsShot(page, file) {
  const dir = tmpDir('shot');
  try {
    const job = path.join(dir, 'job');
    const r = spawnSync('python3', [path.join(ROOT, 'tests/bench/gen_ranks.py'), job, ...jobArgs.split(' ')]);
    if (r.status !== 0) throw new Error(r.stderr.toString());
    await page.getByTestId('folder-input').setInputFiles(job);
    await page.locator('#steps-panel .waits-table').waitFor();
    await page.evaluate(() => document.activeElement?.blur());
    await page.locator('#steps-panel').screenshot({ path: file });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// `files` one-event files chosen on the file input, scanned and merged.
async function manyFiles(page) {
  const dir = tmpDir('shot');
  try {
    const names = oneEventFiles(dir, files, Math.min(300, Math.floor(files / 10)));
    page.setDefaultTimeout(300000);
    await page.getByTestId('file-input').setInputFiles(names.map((n) => path.join(dir, n)));
    await page.waitForFunction(() => window.tracemerge.overview.geometry()?.lanes.length > 0, null, { polling: 500 });
    await page.getByTestId('merge').click();
    await waitDone(page);
    await page.evaluate(() => window.scrollTo(0, 0));  // (the clip below is measured from the top)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// A job with a cut and a forged .json.gz beside its good files, merged: every file's row, the
// warnings naming the file and byte, the result; then the options changed: the result gone.
async function damagedShots(page, file) {
  const dir = tmpDir('shot');
  try {
    const job = path.join(dir, 'job');
    const r = spawnSync('python3', [path.join(ROOT, 'tests/bench/gen_ranks.py'), job, '--hosts', '2', '--ranks-per-host', '1',
      '--steps', '4', '--offsets-us', '0,400', '--seed', '3']);
    if (r.status !== 0) throw new Error(r.stderr.toString());
    const gz = zlib.gzipSync(fs.readFileSync(path.join(job, 'host-b/rank1.pt.trace.json')));
    fs.writeFileSync(path.join(job, 'host-b/rank1-copy-cut.pt.trace.json.gz'), gz.subarray(0, gz.length >> 1));
    const forged = Buffer.from(gz);
    forged.writeUInt32LE(0xF0000000, forged.length - 4);
    fs.writeFileSync(path.join(job, 'host-b/rank1-copy-forged.pt.trace.json.gz'), forged);
    await page.getByTestId('folder-input').setInputFiles(job);
    await page.locator('#steps-panel .waits-table').waitFor();
    await page.getByTestId('merge').click();
    await waitDone(page);
    await page.evaluate(() => document.activeElement?.blur());
    const upTo = async (selector, name) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      const box = await page.locator(selector).boundingBox();
      await page.screenshot({ path: name, fullPage: true, clip: { x: 0, y: 0, width: page.viewportSize().width, height: Math.ceil(box.y + box.height + 16) } });
    };
    await upTo('#h-merge >> xpath=..', file);
    await page.getByTestId('align-clocks').click();
    await page.locator('[data-testid=status][data-state=idle]').waitFor();
    await page.evaluate(() => document.activeElement?.blur());
    const card = page.locator('#h-merge >> xpath=..');
    await card.screenshot({ path: file.replace(/\.png$/, '-stale.png') });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The overview card before and after "Align clocks", zoomed in on the start of step 3 —
// where host-b's rank starts its step 400 µs "late" before and with host-a's after — then
// both images stacked on one page with a caption each, and that page shot.
async function alignShots(page, file) {
  const zoom = () => page.evaluate(() => new Promise((resolve) => {
    const t = window.tracemerge.state.job.steps.find(([n]) => n === 3)[1];
    window.tracemerge.overview.zoomTo(t - 1200, t + 1800);
    requestAnimationFrame(() => requestAnimationFrame(resolve));
  }));
  // The card down to the caption under the canvas (the steps panel does not change).
  const shot = async () => {
    await page.evaluate(() => window.scrollTo(0, 0));  // (boxes are in the viewport, the clip in the page)
    const card = await page.locator('#overview-card').boundingBox();
    const caption = await page.locator('#overview-caption').boundingBox();
    return page.screenshot({ fullPage: true, clip: { x: card.x, y: card.y, width: card.width, height: caption.y + caption.height + 12 - card.y } });
  };
  await zoom();
  const before = await shot();
  await page.getByTestId('align-clocks').click();
  await page.locator('#aligned-note:not([hidden])').waitFor();
  await zoom();
  const after = await shot();
  const img = (buf) => `data:image/png;base64,${buf.toString('base64')}`;
  const sheet = await b.newPage({ viewport: { width: page.viewportSize().width, height: 600 }, deviceScaleFactor: 1, colorScheme: scheme });
  await sheet.setContent(`<!doctype html><meta name="color-scheme" content="light dark">
    <style>body{margin:0;padding:8px 0;font:600 15px system-ui,sans-serif;background:Canvas;color:CanvasText}
    p{margin:10px 22px 4px}img{display:block;width:100%}</style>
    <p>Before: the clocks as recorded — host-b's clock runs 400 µs ahead, so its rank 1 seems to start step 3 late</p><img src="${img(before)}">
    <p>After “Align clocks” (align = clocks): host-b moved back by the offset its NCCL kernels show</p><img src="${img(after)}">`);
  await sheet.evaluate(() => Promise.all([...document.images].map((i) => i.decode())));
  await sheet.screenshot({ path: file, fullPage: true });
  await sheet.close();
}
