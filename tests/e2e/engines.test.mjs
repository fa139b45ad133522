// The page in Firefox ESR and WebKitGTK (Safari's engine), beside the Chromium suite: the
// hosted page (served, as scripts/run.sh serves it) and the single-file page from file://
// each draw the sample job's overview and merge it, and, given a real 8-rank Kineto job
// through the file input, give the native CLI's bytes; the notebook helper's saved page and
// its Jupyter cell (a sandboxed <iframe srcdoc>) merge their preloaded files to the CLI's
// bytes; and in Firefox, sample merges in a row never freeze (TRACEMERGE_FIREFOX_RUNS of them,
// default 20; 200 on demand: README, "Browsers it is tested in").
// Folders are Chromium's (page.test.mjs): neither driver uploads one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COMBINED, CORPUS, SUB_PATH, WEB, cli, notebookPage, serve, tmpDir } from './helpers.mjs';
import { launch, merged, version } from './engines.mjs';

const JOB = path.join(CORPUS, 'real/pytorch_kineto_multirank');
const files = fs.readdirSync(JOB).filter((f) => f.endsWith('.json.gz')).sort().map((f) => path.join(JOB, f));
const RUNS = Number(process.env.TRACEMERGE_FIREFOX_RUNS ?? 20);

const status = () => {
  const s = document.querySelector('[data-testid=status]');
  return { state: s.dataset.state, text: s.textContent };
};
const settled = () => ['done', 'error'].includes(document.querySelector('[data-testid=status]').dataset.state);
const lanes = () => (window.tracemerge?.overview.geometry()?.lanes.length ?? 0) > 0;

// The page once its script has run (window.tracemerge is its last line): WebKitWebDriver's
// get() may return before it, on a navigation that changes origin (file:// → http://), and a
// click or a file given then is lost.
async function openPage(e, url) {
  await e.open(url);
  await e.waitFor(() => !!window.tracemerge, 30000);
}

async function mergeJob(e, url) {
  await openPage(e, url);
  const input = '[data-testid=file-input]';
  // Each change the input fires, with its number of files, seen before the page's handler
  // (which empties the input once it has read it).
  await e.eval((sel) => {
    window.__picked = [];
    document.querySelector(sel).addEventListener('change', (ev) => window.__picked.push(ev.target.files.length), true);
  }, input);
  await e.setFiles(input, files);
  // (WebKitWebDriver's sendKeys, on a busy machine, now and then sets no file and fires no
  // change for over 10 s. Then the input is emptied and the files sent once more: sent to an
  // input that still holds them, WebDriver would append them, and the page get each twice.)
  const picked = () => window.__picked.length > 0;
  if (await e.waitFor(picked, 10000).then(() => false, () => true)) {
    await e.eval((sel) => { document.querySelector(sel).value = ''; }, input);
    await e.setFiles(input, files);
  }
  await e.waitFor(picked, 30000);
  assert.ok((await e.eval(() => window.__picked)).every((n) => n === files.length),
    `${e.name}: the file input was given other files than were sent: ${await e.eval(() => window.__picked)}`);
  await e.waitFor(() => !document.querySelector('[data-testid=merge]').disabled, 60000)
    .catch(async (err) => { throw new Error(`${err.message}; the page says: ${(await e.eval(status)).text}`); });
  await e.waitFor(lanes, 60000);
  await e.click('[data-testid=merge]');
  await e.waitFor(settled, 120000);
  const s = await e.eval(status);
  assert.equal(s.state, 'done', `${e.name}: ${s.text}`);
  const bytes = await merged(e);
  assert.ok(bytes.equals(cli(files.map((f) => path.basename(f)), [], { cwd: JOB })),
    `${e.name}: the page's bytes (${bytes.length}) are not the CLI's`);
  assert.deepEqual(e.errors, [], `${e.name}: uncaught errors`);
}

async function sampleJob(e, url) {
  await openPage(e, url);
  await e.click('#sample');
  await e.waitFor(settled, 60000)
    .catch(async (err) => { throw new Error(`${err.message}; the page says: ${(await e.eval(status)).text}`); });
  const s = await e.eval(status);
  assert.equal(s.state, 'done', s.text);
  assert.match(s.text, /^Merged 1,339 events/);
  await e.waitFor(lanes, 10000);  // (WebKit may draw it after the merge's end)
  return e.eval(() => window.tracemerge.state.merged.result.helperSources);
}

// The notebook's preloaded job merges on load (in `frame`, the cell's iframe) to the CLI's bytes.
async function notebookJob(e, url, frame) {
  await e.open(url);
  if (frame) await e.frame();
  await e.waitFor(settled, 120000);
  const s = await e.eval(status);
  assert.equal(s.state, 'done', `${e.name}: ${s.text}`);
  assert.ok((await merged(e)).equals(cli([COMBINED], ['--unit', 'step', '--start', '2', '--end', '4'])),
    `${e.name}: the notebook's bytes are not the CLI's`);
  assert.deepEqual(e.errors, [], `${e.name}: uncaught errors`);
}

let srv;
let tmp;
before(async () => {
  srv = await serve(WEB, SUB_PATH);
  tmp = tmpDir('engines');
  const job = `show(${JSON.stringify(COMBINED)}, unit="step", start=2, end=4)`;
  notebookPage(`${job}.save(${JSON.stringify(path.join(tmp, 'notebook.html'))})`);
  notebookPage(`open(${JSON.stringify(path.join(tmp, 'cell.html'))}, "w").write("<!doctype html><title>cell</title><body style='margin:0'>" + ${job}._repr_html_())`);
});
after(async () => {
  await srv?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const ENGINES = (process.env.TRACEMERGE_ENGINES ?? 'firefox,webkit').split(',');
for (const name of ENGINES) {
  describe(`${name} (${version(name)})`, () => {
    let e;
    before(async () => { e = await launch(name); });
    after(async () => { await e?.close(); });

    test('the hosted page draws the sample job\'s overview and merges it', async () => {
      const helped = await sampleJob(e, srv.url);
      assert.ok(helped > 0, `helpers parsed ${helped} of the sources (the path that froze in Firefox)`);
    });

    test('the single-file page from file:// draws the sample job\'s overview and merges it', async () => {
      await sampleJob(e, `file://${path.join(WEB, 'tracemerge.html')}`);
    });

    test('the hosted page merges a real 8-rank job given on its file input to the CLI\'s bytes', async () => {
      await mergeJob(e, srv.url);
    });

    test('the single-file page from file:// merges it to the same bytes', async () => {
      await mergeJob(e, `file://${path.join(WEB, 'tracemerge.html')}`);
    });

    test('the notebook helper\'s saved page merges its preloaded job on load to the CLI\'s bytes', async () => {
      await notebookJob(e, `file://${path.join(tmp, 'notebook.html')}`, false);
    });

    // (cell.html says no encoding: a browser may read it as windows-1252, as WebKit does.)
    test('its Jupyter cell (a sandboxed <iframe srcdoc>) does too', async () => {
      await notebookJob(e, `file://${path.join(tmp, 'cell.html')}`, true);
    });

    if (name === 'firefox') {
      test(`${RUNS} sample merges in a row, each done within 30 s (none freezes)`, async () => {
        const stuck = [];
        for (let i = 0; i < RUNS; i++) {
          await openPage(e, srv.url);
          await e.click('#sample');
          try {
            await e.waitFor(settled, 30000);
            const s = await e.eval(status);
            assert.equal(s.state, 'done', `run ${i}: ${s.text}`);
          } catch (err) {
            if (err.code === 'ERR_ASSERTION') throw err;
            stuck.push(`run ${i}: ${(await e.eval(status)).text}`);
          }
        }
        assert.deepEqual(stuck, [], `${stuck.length} of ${RUNS} merges froze`);
      });
    }
  });
}
