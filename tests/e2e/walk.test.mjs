// One folder, one list of files in one order, whoever walks it: the native CLI, the Node CLI,
// the notebook helper and the page (the rule is the core's: core/driver.h NameFolderFiles,
// FileOrder — "<folder>/<relative path>", byte order). The names are chosen so that byte
// order and JavaScript's string order differ ('ｆ' U+FF46 against '😀' U+1F600) and so that a
// folder's files sort among its subfolders' ('a b/', 'a.json', 'a/'). (A merge's output does not
// depend on the order its files come in: the core orders its sources by the same rule.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { NATIVE_CLI, ROOT, cli, closeSession, download, openPage, openSession, waitDone } from './helpers.mjs';

const NAMES = ['b.json', 'Z.json', 'a.json', 'a/x.json', 'a b/c.json', 'ｆ.json', '😀.json', 'é/deep/er/d.json'];
const BYTE_ORDER = NAMES.map((n) => `job/${n}`).sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));

let session;
let job;  // the tree the page is given: regular files only (a browser's folder walk is its own)
let odd;  // the same plus what a walk must pass over: links to a folder and nowhere, a pipe
before(async () => {
  session = await openSession('walk');
  job = path.join(session.tmp, 'one', 'job');
  odd = path.join(session.tmp, 'two', 'job');
  for (const root of [job, odd]) {
    NAMES.forEach((n, i) => {
      fs.mkdirSync(path.dirname(path.join(root, n)), { recursive: true });
      fs.writeFileSync(path.join(root, n), JSON.stringify({ traceEvents: [
        { name: `event of ${n}`, ph: 'X', ts: 1000 + i, dur: 5, pid: 1, tid: 1 },
        { name: 'process_name', ph: 'M', pid: 1, args: { name: n } }] }));
    });
  }
  const outside = path.join(session.tmp, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'y.json'), '{"traceEvents":[]}');
  fs.writeFileSync(path.join(outside, 'target.json'), JSON.stringify({ traceEvents: [{ name: 'linked', ph: 'i', ts: 1, pid: 2, tid: 2 }] }));
  fs.symlinkSync(outside, path.join(odd, 'folder-link'));
  fs.symlinkSync(path.join(outside, 'target.json'), path.join(odd, 'a', 'link.json'));
  fs.symlinkSync(path.join(outside, 'missing.json'), path.join(odd, 'broken.json'));
  assert.equal(spawnSync('mkfifo', [path.join(odd, 'pipe.json')]).status, 0);
});
after(() => closeSession(session));

// The report's sources, in the order the merge read them.
function reportPaths(command, args, dir) {
  const report = path.join(dir, '..', `report-${path.basename(command)}.json`);
  const r = spawnSync(command, [...args, dir, '--scan', '--quiet', '--report', report], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(fs.readFileSync(report, 'utf8')).sources.map((s) => s.path);
}
const native = (dir) => reportPaths(NATIVE_CLI, [], dir);
const nodeCli = (dir) => reportPaths(process.execPath, [path.join(ROOT, 'build/wasm/tracemerge-cli.mjs'), '--threads', '1'], dir);

function notebookNames(dir) {
  const r = spawnSync('python3', ['-c', 'import json, sys, tracemerge_notebook as tn\n' +
    'print(json.dumps([name for name, _, in_folder in tn._collect(sys.argv[1]) if in_folder]))', dir], {
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'web/notebook') }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('both CLIs name and order a folder by the core\'s rule, and pass over what is no regular file', () => {
  assert.deepEqual(native(job), BYTE_ORDER);
  assert.deepEqual(nodeCli(job), BYTE_ORDER);
  const withLink = [...BYTE_ORDER, 'job/a/link.json'].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  assert.deepEqual(native(odd), withLink);
  assert.deepEqual(nodeCli(odd), withLink);
});

test('the notebook helper takes the same files under the same names', () => {
  assert.deepEqual(notebookNames(job).sort(), [...BYTE_ORDER].sort());
  assert.deepEqual(notebookNames(odd).sort(), [...BYTE_ORDER, 'job/a/link.json'].sort());
});

test('the page names a chosen folder\'s files so, lists them in that order and merges to the CLI\'s bytes', async () => {
  const page = await openPage(session);
  await page.getByTestId('folder-input').setInputFiles(job);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  const listed = await page.locator('#files tbody input[type=checkbox]').evaluateAll((boxes) =>
    boxes.map((b) => b.getAttribute('aria-label').replace(/^Include /, '')));
  assert.deepEqual(listed, BYTE_ORDER);
  assert.notDeepEqual([...BYTE_ORDER].sort(), BYTE_ORDER, 'the names no longer tell the two orders apart');
  await page.getByTestId('merge').click();
  await waitDone(page);
  assert.ok((await download(page)).bytes.equals(cli([job])), 'the page\'s output differs from the CLI\'s for the same folder');
});
