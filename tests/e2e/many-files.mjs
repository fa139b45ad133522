// The page with many small files, as tests/e2e/many-files.test.mjs checks it and
// tests/bench/many_page.mjs reports it (scripts/bench.sh --many-files):
//   const names = oneEventFiles(dir, 20000, 300);         // f00301.json …, host-0_1001.….pt.trace.json …
//   const run = await mergeOnPage(session, dir, names);    // the page, timed, its download
//   const cli = nodeCli(dir, names, out);                  // the Node CLI, timed
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, waitDone } from './helpers.mjs';

const NODE_CLI = path.join(ROOT, 'build/wasm/tracemerge-cli.mjs');
const BASE_US = 1700000000000000;  // 2023-11-14: Unix µs, so every file has a clock

// `count` files of one X event each in `dir`. The first `hosted` are named as PyTorch's
// profiler names its traces, "<host>_<pid>.<ns>.pt.trace.json", on three hosts (the scan
// believes the name: its pid is the event's, its stamp after it); the others, "f01234.json",
// say no host. Returns the names, sorted.
export function oneEventFiles(dir, count, hosted = 0) {
  fs.mkdirSync(dir, { recursive: true });
  const names = [];
  for (let i = 1; i <= count; i++) {
    const ts = BASE_US + i * 10;
    const pid = 1000 + i;
    const name = i <= hosted ? `host-${i % 3}_${pid}.${(ts + 1000) * 1000}.pt.trace.json` : `f${String(i).padStart(5, '0')}.json`;
    const event = { ph: 'X', name: `e${i}`, pid, tid: 1, ts, dur: 5 };
    fs.writeFileSync(path.join(dir, name), JSON.stringify({ traceEvents: [event] }));
    names.push(name);
  }
  return names.sort();
}

// The Node CLI merging `names` (in `dir`, named as given: as the page names picked files) to
// `out` with its default options and helpers; returns the wall time in seconds.
export function nodeCli(dir, names, out) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [NODE_CLI, ...names, '-o', out, '--quiet'], { cwd: dir, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`the Node CLI failed: ${r.stderr}`);
  return seconds;
}

// Before the page's scripts: every long task of its main thread ({ at, ms }, performance.now()
// time) and when a file input last changed (the files reached the page).
function watch() {
  window.longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.longTasks.push({ at: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  addEventListener('change', (e) => {
    if (e.target.type === 'file') window.filesChosenAt = performance.now();
  }, true);
}

// A page of the session (helpers.mjs openSession) with the files `names` of `dir` chosen on
// its file input (or, input 'folder-input', the folder), scanned, merged with its default
// options and downloaded. Returns
//   { tableMs: the folded table's first rows after the files reached the page,
//     scanMs: from then to the overview, mergeS: Merge pressed → done (the fastest of `merges`
//     merges, one after the other; the download is the last one's), rows: the folded rows'
//     texts once scanned, showAll: its button's text, bytes: the download,
//     longTasks: [{ at: ms after the files reached the page, ms }] (before: the browser's own,
//     making the FileList), status }
export async function mergeOnPage(session, dir, names, { input = 'file-input', timeout = 300000, merges = 1 } = {}) {
  const page = await session.ctx.newPage();
  page.setDefaultTimeout(timeout);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(watch);
  await page.goto(session.srv.page.url);
  const since = () => page.evaluate(() => performance.now() - window.filesChosenAt);
  await page.getByTestId(input).setInputFiles(input === 'folder-input' ? dir : names.map((n) => path.join(dir, n)));
  await page.locator('#files tbody tr.folded').first().waitFor();
  const tableMs = await since();
  await page.waitForFunction(() => window.tracemerge.overview.geometry()?.lanes.length > 0, null, { polling: 100 });
  const scanMs = await since() - tableMs;
  const rows = await page.locator('#files tbody tr.folded').allInnerTexts();
  const showAll = await page.getByTestId('show-all-files').textContent();
  let mergeS = Infinity;
  let status = '';
  for (let i = 0; i < merges; i++) {  // (Merge again: the page merges anew, its result replaced)
    const t0 = performance.now();
    await page.getByTestId('merge').click();
    assert.equal(await page.getByTestId('status').getAttribute('data-state'), 'merging');
    status = await waitDone(page);
    mergeS = Math.min(mergeS, (performance.now() - t0) / 1000);
  }
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
  const bytes = fs.readFileSync(await dl.path());
  const longTasks = await page.evaluate(() => window.longTasks.map((t) => ({ at: t.at - window.filesChosenAt, ms: t.ms })));
  await page.close();
  if (errors.length) throw new Error(`the page threw: ${errors.join('; ')}`);
  return { tableMs, scanMs, mergeS, rows, showAll, bytes, longTasks, status };
}
