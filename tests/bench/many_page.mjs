// The page (build/web, served on 127.0.0.1, headless Chromium) with N one-event files chosen
// on its file input, beside the Node CLI merging the same files: scripts/bench.sh --many-files
// runs it.
//   node tests/bench/many_page.mjs [N]     (default 20 000; the files are kept in build/bench/many<N>)
// Prints a table: the page's file table (ms after the files reached the page), its scan (s,
// from the table to the overview), its merge (s, Merge pressed → done), the Node CLI's merge
// (the faster of a run before and one after the page), the ratio, and the longest task on the
// page's main thread from the files' arrival to the download (ms; the browser's own, making
// the FileList before the page has it, apart). Fails if the page's download differs from the
// CLI's output.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, closeSession, openSession } from '../e2e/helpers.mjs';
import { mergeOnPage, nodeCli, oneEventFiles } from '../e2e/many-files.mjs';

const count = Number(process.argv[2] ?? 20000);
const dir = path.join(ROOT, `build/bench/many${count}`);
if (!fs.existsSync(dir)) oneEventFiles(dir, count, Math.min(300, Math.floor(count / 10)));
const names = fs.readdirSync(dir).sort();

const session = await openSession('many-bench');
try {
  const out = path.join(session.tmp, 'cli.json');
  const before = nodeCli(dir, names, out);
  const run = await mergeOnPage(session, dir, names);
  const after = nodeCli(dir, names, out);
  if (!run.bytes.equals(fs.readFileSync(out))) throw new Error('the page\'s download differs from the Node CLI\'s output');
  const cli = Math.min(before, after);
  const longest = (pick) => Math.max(0, ...run.longTasks.filter(pick).map((t) => t.ms));
  console.log('| files | table ms | scan s | page merge s | Node CLI merge s | page ÷ CLI | longest task ms | browser\'s FileList task ms |');
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(`| ${count} | ${run.tableMs.toFixed(0)} | ${(run.scanMs / 1000).toFixed(1)} | ${run.mergeS.toFixed(2)} | ` +
    `${cli.toFixed(2)} (${before.toFixed(2)} before, ${after.toFixed(2)} after) | ${(run.mergeS / cli).toFixed(2)}× | ` +
    `${longest((t) => t.at >= 0).toFixed(0)} | ${longest((t) => t.at < 0).toFixed(0)} |`);
} finally {
  await closeSession(session);
}
