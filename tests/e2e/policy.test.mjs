// The page's Content-Security-Policy binds every worker too (issue 41), served as
// scripts/run.sh serves it — a plain static host, no headers: a fetch to another origin
// is refused from the page, from its merge worker and from the helper workers it starts,
// and the other origin receives nothing.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { closeSession, openPage, openSession, waitDone } from './helpers.mjs';

let session;
let probe;
const hits = [];
before(async () => {
  session = await openSession();
  probe = http.createServer((req, res) => { hits.push(req.url); res.writeHead(200, { 'access-control-allow-origin': '*' }).end('leaked'); });
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
});
after(async () => {
  await new Promise((r) => { probe.closeAllConnections(); probe.close(r); });
  await closeSession(session);
});

const attempt = (url) => fetch(url).then(() => 'fetched', (e) => `blocked: ${e.message}`);

test('a fetch to another origin is blocked from the page and from every worker, under a header-less host', { timeout: 120000 }, async () => {
  const url = `http://127.0.0.1:${probe.address().port}/probe`;
  const page = await openPage(session);
  const workers = new Set();
  page.on('worker', (w) => workers.add(w));
  assert.match(await page.evaluate(attempt, `${url}?from=page`), /^blocked/);
  // The sample merges with helper workers (more than one core); each is probed while alive.
  const results = [];
  page.on('worker', async (w) => {
    try { results.push([w.url(), await w.evaluate(attempt, `${url}?from=worker`)]); } catch { /* ended before it was asked */ }
  });
  await page.getByRole('button', { name: 'Try with sample traces' }).click();
  await waitDone(page);
  for (const w of workers) {
    try { results.push([w.url(), await w.evaluate(attempt, `${url}?from=worker-after`)]); } catch { /* ended */ }
  }
  assert.ok(results.length >= 1, 'no worker was probed');
  for (const [where, got] of results) assert.match(got, /^blocked/, `${where}: ${got}`);
  assert.deepEqual(hits, [], 'the other origin received requests');
  assert.deepEqual(page.errors, []);
  console.log(`probed ${results.length} workers: ${results.map(([u]) => u.slice(0, 40)).join(', ')}`);
  await page.close();
});
