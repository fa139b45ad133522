// The page at 20 000 one-event files (TRACEMERGE_MANY_FILES of them; 300 with their host in
// the name, the rest with none), chosen on the file input: the file table folds them — the
// files without a host too — within 2 s; no task of the page's main thread runs 200 ms from
// then through the table, the scan, the merge and the download; the download is the Node
// CLI's bytes for the same files; and the page's merge takes at most twice the Node CLI's time
// (each the faster of two: the CLI timed before and after the page, the page merging twice —
// this machine's speed drifts by a third over minutes, and one slow run of either decides nothing).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { count } from '../../web/format.mjs';
import { FOLD_FILES } from '../../web/table.mjs';
import { closeSession, openSession } from './helpers.mjs';
import { mergeOnPage, nodeCli, oneEventFiles } from './many-files.mjs';

const FILES = Number(process.env.TRACEMERGE_MANY_FILES || 20000);
const HOSTED = Math.min(300, Math.floor(FILES / 10));  // on 3 hosts
assert.ok(FILES > FOLD_FILES, `TRACEMERGE_MANY_FILES=${FILES}: more than ${FOLD_FILES}, or the table does not fold`);

let session;
before(async () => {
  session = await openSession('many');
});
after(() => closeSession(session));

test(`${count(FILES)} one-event files: folded table in 2 s, no long task, the CLI's bytes in at most twice its time`, { timeout: 600000 }, async () => {
  const dir = path.join(session.tmp, 'files');
  const names = oneEventFiles(dir, FILES, HOSTED);
  const out = path.join(session.tmp, 'cli.json');
  const cliBefore = nodeCli(dir, names, out);
  const run = await mergeOnPage(session, dir, names, { merges: 2 });
  const cliAfter = nodeCli(dir, names, out);
  const cli = Math.min(cliBefore, cliAfter);
  const longest = run.longTasks.filter((t) => t.at >= 0).reduce((a, t) => (t.ms > a.ms ? t : a), { at: 0, ms: 0 });
  const browsers = run.longTasks.filter((t) => t.at < 0).reduce((n, t) => Math.max(n, t.ms), 0);
  console.log(`${count(FILES)} files: table ${run.tableMs.toFixed(0)} ms, scan ${(run.scanMs / 1000).toFixed(1)} s, ` +
    `merge ${run.mergeS.toFixed(1)} s (Node CLI ${cliBefore.toFixed(1)} s before, ${cliAfter.toFixed(1)} s after), ` +
    `longest task ${longest.ms.toFixed(0)} ms at ${(longest.at / 1000).toFixed(1)} s; the browser's own before the page had the files: ${browsers.toFixed(0)} ms`);

  assert.ok(run.tableMs < 2000, `the file table came ${run.tableMs.toFixed(0)} ms after the files`);
  // Folded: the files without a host one row, each host one, then the button that opens them all.
  const hostless = count(FILES - HOSTED);
  const noHost = run.rows.filter((r) => /\bno host\b/.test(r));
  assert.equal(noHost.length, 1, run.rows.join('\n'));
  assert.match(noHost[0], new RegExp(`^\\s*${hostless} files\\t`));
  assert.equal(run.rows.length, 1 + (HOSTED ? 3 : 0), run.rows.join('\n'));
  assert.equal(run.showAll, `Show all ${count(FILES)} files`);
  assert.match(run.status, new RegExp(`^Merged ${count(FILES)} events`));

  assert.ok(longest.ms < 200, `a task of ${longest.ms.toFixed(0)} ms on the page's thread, ${(longest.at / 1000).toFixed(1)} s after the files came`);
  assert.ok(run.bytes.equals(fs.readFileSync(out)), 'the page\'s download differs from the Node CLI\'s output');
  assert.ok(run.mergeS <= 2 * cli, `the page merged in ${run.mergeS.toFixed(1)} s, the Node CLI in ${cli.toFixed(1)} s`);
});
