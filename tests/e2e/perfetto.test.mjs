// The Perfetto hand-off against a local stand-in that speaks Perfetto's postMessage protocol
// (tests/e2e/fake-perfetto.html): the buffer that arrives equals the merged output, in a new
// tab and in the embedded <iframe>; the address comes from ?perfetto= or from the setting.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import path from 'node:path';
import { COMBINED, cli, closedPort, download, serve, sha256, waitDone, closeSession, openSession } from './helpers.mjs';

let expected;
let session;
before(async () => {
  session = await openSession();
  expected = cli([COMBINED]);
});
after(() => closeSession(session));

// The page, merged; a perfetto= address the link names is allowed as a user would (another
// origin than the page's: it is not used before), unless allow is false.
async function mergedPage(query = '', { allow = true } = {}) {
  const page = await session.ctx.newPage();
  await page.goto(session.srv.page.url + query);
  await page.getByTestId('folder-input').setInputFiles(COMBINED);
  await page.getByTestId('merge').and(page.locator(':enabled')).waitFor();
  await page.getByTestId('merge').click();
  await waitDone(page);
  if (allow && query.includes('perfetto=')) await page.getByTestId('perfetto-allow').click();
  return page;
}

async function received(target) {
  await target.waitForFunction(() => window.received.length > 0);
  return target.evaluate(() => window.received[0]);
}

function checkArrival(got, page) {
  assert.equal(got.isArrayBuffer, true);
  assert.equal(got.byteLength, expected.length);
  assert.equal(got.sha256, sha256(expected), 'the buffer Perfetto got differs from the merged output');
  assert.equal(got.fileName, '1596659864838308_merged_timeline.json');
  assert.match(got.title, /1596659864838308_merged_timeline\.json/);
  assert.equal(got.keepApiOpen, true);
  assert.equal(got.localOnly, true, 'no sharing or upload of the trace, said explicitly');
  assert.equal(got.origin, new URL(page.url()).origin);
}

test('nothing goes to Perfetto before the user asks', async () => {
  const before = session.ctx.requests.length;
  const page = await mergedPage(`?perfetto=${encodeURIComponent(session.srv.perfetto.url)}`);  // (allowed, not clicked)
  const perfettoPort = new URL(session.srv.perfetto.url).port;
  assert.ok(!session.ctx.requests.slice(before).some((u) => u.includes(`:${perfettoPort}/`)), 'Perfetto was contacted without a click');
  assert.match(await page.locator('#perfetto-note').textContent(), new RegExp(`Perfetto UI: ${session.srv.perfetto.url}.*url parameter`));
  await page.close();
});

// A crafted link (?perfetto=<an origin the page does not know>): shown, not used. One click on
// "Open in Perfetto" goes to the address the user saved; the link's origin gets no request
// and no tab — until the user allows it, and then it is that origin.
test('a perfetto= address from a link is used only once the user allows its origin', { timeout: 120000 }, async () => {
  const attacker = await serve(path.dirname(session.srv.perfettoIndex), '/');
  try {
    const port = new URL(attacker.url).port;
    const seen = () => session.ctx.requests.filter((u) => new URL(u).port === port).length;
    const setup = await session.ctx.newPage();  // the user's saved address: the stand-in
    await setup.goto(session.srv.page.url);
    await setup.evaluate((u) => localStorage.setItem('tracemerge.perfettoUrl', u), session.srv.perfetto.url);
    await setup.close();
    const page = await mergedPage(`?perfetto=${encodeURIComponent(attacker.url)}`, { allow: false });
    const confirm = page.getByTestId('perfetto-confirm');
    assert.equal(await confirm.isVisible(), true);
    assert.match(await confirm.textContent(), new RegExp(`asks to send traces to ${new URL(attacker.url).origin}\\.`));
    assert.match(await page.locator('#perfetto-note').textContent(), new RegExp(`Perfetto UI: ${session.srv.perfetto.url} \\(setting`));
    const [tab] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('open-perfetto').click()]);
    checkArrival(await received(tab), page);
    assert.equal(new URL(tab.url()).origin, new URL(session.srv.perfetto.url).origin, 'the saved address, not the link\'s');
    assert.equal(seen(), 0, 'the link\'s origin got a request');
    await tab.close();
    // Allowed: now it is the link's.
    await page.getByTestId('perfetto-allow').click();
    assert.equal(await confirm.isVisible(), false);
    const [tab2] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('open-perfetto').click()]);
    checkArrival(await received(tab2), page);
    assert.equal(new URL(tab2.url()).origin, new URL(attacker.url).origin);
    assert.ok(seen() > 0);
    await tab2.close();
    await page.close();
  } finally {
    const setup = await session.ctx.newPage();
    await setup.goto(session.srv.page.url);
    await setup.evaluate(() => localStorage.removeItem('tracemerge.perfettoUrl'));
    await setup.close();
    await attacker.close();
  }
});

test('"Open in Perfetto" opens a tab, PINGs until PONG and posts the merged bytes', { timeout: 120000 }, async () => {
  const page = await mergedPage(`?perfetto=${encodeURIComponent(session.srv.perfetto.url)}`);
  const [tab] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('open-perfetto').click()]);
  const got = await received(tab);
  checkArrival(got, page);
  assert.equal(new URL(tab.url()).origin, new URL(session.srv.perfetto.url).origin);
  assert.ok(await tab.evaluate(() => window.pings) >= 1);
  await page.locator('[data-testid=perfetto-status][data-state=open]', { hasText: 'Sent' }).waitFor();
  // The downloaded file is the same bytes.
  assert.equal(sha256((await download(page)).bytes), got.sha256);
  await tab.close();
  await page.close();
});

test('"Show here" embeds Perfetto with mode=embedded and posts the merged bytes', { timeout: 120000 }, async () => {
  const page = await mergedPage(`?perfetto=${encodeURIComponent(session.srv.perfetto.url)}`);
  await page.getByTestId('show-perfetto').click();
  const iframe = page.locator('#perfetto-frame');
  await iframe.waitFor();
  assert.equal(await iframe.getAttribute('src'), `${session.srv.perfetto.url}#!/?mode=embedded`);
  const frame = await (await iframe.elementHandle()).contentFrame();
  const got = await received(frame);
  checkArrival(got, page);
  assert.equal(got.hash, '#!/?mode=embedded');
  // keepApiOpen: a second merge is sent to the same embedded UI.
  await page.getByTestId('merge').click();
  await waitDone(page);
  await page.getByTestId('show-perfetto').click();
  await frame.waitForFunction(() => window.received.length === 2);
  await page.close();
});

test('a Perfetto UI where nothing listens is an error within 10 s that names its address, embedded and in a tab', { timeout: 120000 }, async () => {
  const address = `http://127.0.0.1:${await closedPort()}/`;
  const page = await mergedPage(`?perfetto=${encodeURIComponent(address)}`);
  const status = page.getByTestId('perfetto-status');
  const error = page.locator('[data-testid=perfetto-status][data-state=error]');

  let started = Date.now();
  await page.getByTestId('show-perfetto').click();
  await page.locator('[data-testid=perfetto-status][data-state=connecting]').waitFor();
  await error.waitFor({ timeout: 10000 });
  assert.ok(Date.now() - started < 10000);
  assert.match(await status.textContent(), new RegExp(`The Perfetto UI at ${address} did not answer \\(offline\\? blocked\\?\\)`));
  assert.equal(await page.locator('#viewer').isHidden(), true, 'the broken frame is still shown');
  // The ways on: the download, and the address in Settings.
  assert.equal(await page.locator('#perfetto-download').isVisible(), true);
  await page.locator('#perfetto-settings').click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'perfetto-url');
  assert.equal((await download(page)).bytes.length, expected.length);

  started = Date.now();
  const [tab] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('open-perfetto').click()]);
  await page.locator('[data-testid=perfetto-status][data-state=connecting]').waitFor();
  await error.waitFor({ timeout: 10000 });
  assert.ok(Date.now() - started < 10000);
  assert.match(await status.textContent(), new RegExp(`${address} did not answer.*Still listening`));
  await tab.close();
  await page.close();
});

test('the Perfetto address setting is remembered in localStorage', { timeout: 120000 }, async () => {
  const page = await session.ctx.newPage();
  await page.goto(session.srv.page.url);
  await page.locator('#settings summary').click();
  await page.getByLabel('Perfetto UI address').fill(session.srv.perfetto.url);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#perfetto-setting-note', { hasText: 'Saved' }).waitFor();
  await page.close();

  const again = await mergedPage();  // no URL parameter: the setting applies
  assert.match(await again.locator('#perfetto-note').textContent(), new RegExp(`${session.srv.perfetto.url} \\(setting`));
  await again.getByTestId('show-perfetto').click();
  const frame = await (await again.locator('#perfetto-frame').elementHandle()).contentFrame();
  checkArrival(await received(frame), again);
  await again.locator('#settings summary').click();
  await again.getByRole('button', { name: 'Use default' }).click();
  assert.equal(await again.evaluate(() => localStorage.getItem('tracemerge.perfettoUrl')), null);
  await again.close();
});
