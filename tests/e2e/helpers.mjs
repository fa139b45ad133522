// Shared by the browser tests: static servers on 127.0.0.1, Chromium via playwright-core,
// a record of every request, and the native CLI for expected bytes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const WEB = path.join(ROOT, 'build/web');
export const NATIVE_CLI = path.join(ROOT, 'build/native/tracemerge');
export const CORPUS = path.resolve(ROOT, '../shared/corpus');
export const COMBINED = path.join(CORPUS, 'smdebug/constructed/combined_job');
export const SUB_PATH = '/some/sub/path/';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.ts': 'text/plain', '.py': 'text/plain',
};

// Serves `dir` under `prefix` on 127.0.0.1 at a free port. Plain static files: no special headers.
export async function serve(dir, prefix = '/') {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let rel = decodeURIComponent(url.pathname);
    if (!rel.startsWith(prefix)) { res.writeHead(404).end('not here'); return; }
    rel = rel.slice(prefix.length) || 'index.html';
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(dir, rel);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) { res.writeHead(404).end('not found'); return; }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

// The page under a sub-path, and the Perfetto stand-in (tests/e2e/fake-perfetto.html) on another port.
export async function servers() {
  const page = await serve(WEB, SUB_PATH);
  const perfettoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracemerge-fake-perfetto-'));
  fs.copyFileSync(path.join(here, 'fake-perfetto.html'), path.join(perfettoDir, 'index.html'));
  const perfetto = await serve(perfettoDir, '/');
  return { page, perfetto, perfettoIndex: path.join(perfettoDir, 'index.html'), close: async () => { await page.close(); await perfetto.close(); fs.rmSync(perfettoDir, { recursive: true }); } };
}

// Chromium with no network beyond 127.0.0.1 in mind. playwright's launch() always starts
// from a fresh temporary profile (--user-data-dir), removed when the browser closes.
export async function browser() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

const isLocal = (u) => {
  const url = new URL(u);
  return ['data:', 'blob:', 'file:', 'about:'].includes(url.protocol) || url.hostname === '127.0.0.1';
};

// A context that records every request (pages, workers, frames, pop-ups) and stops any
// that would leave 127.0.0.1, so a bug cannot reach the internet during the tests.
export async function context(b) {
  const ctx = await b.newContext({ acceptDownloads: true });
  ctx.requests = [];
  ctx.on('request', (r) => ctx.requests.push(r.url()));
  await ctx.route((url) => !isLocal(url.href), (route) => route.abort('blockedbyclient'));
  return ctx;
}

// No request may leave 127.0.0.1 (data:, blob: and file: never leave the machine).
export function assertLocalOnly(requests) {
  assert.ok(requests.length > 0, 'no request was recorded at all');
  for (const u of requests) assert.ok(isLocal(u), `request to another host: ${u}`);
}

// The native CLI's bytes for the same inputs and flags. The CLI names a file by the path it
// is given, the page by its file name: run it in the files' folder (cwd) with bare names.
export function cli(inputs, flags = [], { cwd } = {}) {
  const r = spawnSync(NATIVE_CLI, [...inputs, ...flags, '-o', '-', '--quiet'], { maxBuffer: 1 << 30, cwd });
  assert.equal(r.status, 0, r.stderr.toString());
  return r.stdout;
}

// Waits for the merge to finish; returns the status text. Fails with the page's message on
// error — and, past the page's own deadlines (a helper silent for 30 s is given up, a merge
// worker silent for 120 s: wasm/scheduler.mjs, tracemerge-client.mjs), with what it says then.
export async function waitDone(page) {
  const status = page.locator('[data-testid=status]');
  await page.locator('[data-testid=status][data-state=done], [data-testid=status][data-state=error]').waitFor({ timeout: 150000 })
    .catch(async (e) => { throw new Error(`${e.message}; the page says: ${await status.textContent()}`); });
  const [state, text] = [await status.getAttribute('data-state'), await status.textContent()];
  assert.equal(state, 'done', `merge failed: ${text}`);
  return text;
}

// Clicks download; returns { name, bytes }.
export async function download(page) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
}

export const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

export function tmpDir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `tracemerge-${tag}-`));
}

// The page's sample job (web/sample.mjs) as a folder on disk: <dir>/sample_job/…
export async function sampleFolder(dir) {
  const { sampleJob } = await import(path.join(ROOT, 'web/sample.mjs'));
  for (const f of sampleJob()) {
    fs.mkdirSync(path.join(dir, path.dirname(f.name)), { recursive: true });
    fs.writeFileSync(path.join(dir, f.name), f.data);
  }
  return path.join(dir, 'sample_job');
}

// A port on 127.0.0.1 where nothing listens (it was free a moment ago).
export async function closedPort() {
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// One browser for a test file: the servers, a context that records requests and, with a
// tag, a temporary folder; closeSession closes and removes them, and fails if a request
// left 127.0.0.1.
export async function openSession(tag) {
  const srv = await servers();
  const b = await browser();
  return { srv, b, ctx: await context(b), tmp: tag ? tmpDir(tag) : undefined };
}
// A page of the session's site (its URL + query), its uncaught errors collected in
// page.errors (with a viewport or other page options, in a context of its own).
export async function openPage(s, { query = '', ...options } = {}) {
  const page = await (options.viewport ? s.b.newPage(options) : s.ctx.newPage());
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(s.srv.page.url + query);
  return page;
}
// Such a page with the folder `dir` dropped on it, once its overview shows lanes.
export async function scannedPage(s, dir, { timeout = 30000 } = {}) {
  const page = await openPage(s);
  await page.getByTestId('folder-input').setInputFiles(dir);
  await page.getByTestId('overview').waitFor({ timeout });
  await page.waitForFunction(() => window.tracemerge.overview.geometry()?.lanes.length > 0, null, { timeout });
  return page;
}
export async function closeSession(s) {
  const requests = s?.ctx?.requests ?? [];
  await s?.b?.close();
  await s?.srv?.close();
  if (s?.tmp) fs.rmSync(s.tmp, { recursive: true, force: true });
  assertLocalOnly(requests);
}

// Runs Python `code` after `from tracemerge_notebook import show` (the notebook helper).
export function notebookPage(code) {
  const r = spawnSync('python3', ['-c', `from tracemerge_notebook import show\n${code}`], {
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'web/notebook') }, encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
}
