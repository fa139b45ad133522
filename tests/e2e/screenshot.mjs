// Takes the README's screenshot: the page after merging the built-in sample job.
//   node tests/e2e/screenshot.mjs [light|dark] [out.png]   (default: light, web/screenshot.png)
// Needs build/web (node web/build.mjs).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, browser, servers, waitDone } from './helpers.mjs';

const scheme = process.argv[2] ?? 'light';
const out = process.argv[3] ?? path.join(ROOT, 'web/screenshot.png');
const srv = await servers();
const b = await browser();
try {
  const page = await b.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1, colorScheme: scheme });
  await page.goto(srv.page.url);
  await page.getByRole('button', { name: 'Try with sample traces' }).click();
  await waitDone(page);
  await page.evaluate(() => document.activeElement?.blur());
  await page.mouse.move(0, 0);
  // From the top to the end of the merge card (the settings footer adds nothing).
  const box = await page.locator('#h-merge').locator('xpath=..').boundingBox();
  await page.screenshot({ path: out, fullPage: true, clip: { x: 0, y: 0, width: 1100, height: Math.ceil(box.y + box.height + 16) } });
  // Debian's pngquant (apt-get install pngquant), when present, makes it ~3x smaller.
  const q = spawnSync('pngquant', ['--force', '--skip-if-larger', '--quality=70-95', '--output', out, out]);
  console.log(`wrote ${out}${q.status === 0 ? ' (pngquant)' : ''}`);
} finally {
  await b.close();
  await srv.close();
}
