// The page's other engines for the e2e tests, behind one small interface: Firefox ESR
// (puppeteer-core over WebDriver BiDi, no driver binary) and WebKitGTK, Safari's engine
// (Debian's WebKitWebDriver under xvfb-run, selenium-webdriver). Installed by
// `scripts/setup.sh --browser` (TOOLCHAIN.md, "Browser tests").
//
//   const e = await launch('firefox');   // or 'webkit'
//   await e.open(url);
//   await e.setFiles('[data-testid=file-input]', [path, …]);   // files only: neither driver uploads a folder
//   await e.waitFor(() => document.title !== '', 30000);         // a function run in the page
//   const x = await e.eval((a) => a + 1, 1);                     // its JSON-able value
//   await e.frame();                     // later calls go to the page's first <iframe> (open() returns to the top)
//   await e.close();
// (Neither records requests as the Chromium tests do: those check the page makes none
// beyond its own origin, policy.test.mjs.)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const FIREFOX = '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

// The engine's version, as its binary says it ("Mozilla Firefox 153.0esr", "WebKitGTK 2.50.6").
export function version(name) {
  if (name === 'firefox') return spawnSync(FIREFOX, ['--version']).stdout.toString().trim();
  const pc = spawnSync('dpkg-query', ['-W', '-f=${Version}', 'libwebkit2gtk-4.1-0']).stdout.toString();
  return `WebKitGTK ${pc.split('-')[0]}`;
}

export async function launch(name) {
  return name === 'firefox' ? firefox() : webkit();
}

async function firefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const b = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
  const page = await b.newPage();
  let at = page;  // the page or one of its frames
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e?.message ?? e)));
  return {
    name: 'firefox',
    errors,
    open: (url) => { at = page; return page.goto(url); },
    async frame() {
      const el = await page.waitForSelector('iframe');
      at = await el.contentFrame();
    },
    eval: (fn, ...args) => at.evaluate(fn, ...args),
    click: (selector) => at.click(selector),
    async setFiles(selector, files) {
      const input = await at.$(selector);
      await input.uploadFile(...files);
    },
    waitFor: (fn, timeout, ...args) => at.waitForFunction(fn, { timeout, polling: 100 }, ...args).then(() => {}),
    close: () => b.close(),
  };
}

const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

async function webkit() {
  const { Builder, By } = await import('selenium-webdriver');
  const port = await freePort();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tracemerge-webkit-'));  // (MiniBrowser saves downloads in $HOME)
  const driver = spawn('xvfb-run', ['-a', WEBKIT_DRIVER, `--port=${port}`], { detached: true, stdio: 'ignore', env: { ...process.env, HOME: home } });
  const stopDriver = () => {
    try { process.kill(-driver.pid, 'SIGTERM'); } catch {}
    fs.rmSync(home, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {  // until the driver listens
      const up = await new Promise((resolve) => net.connect(port, '127.0.0.1').on('connect', function () { this.end(); resolve(true); }).on('error', () => resolve(false)));
      if (up) break;
      if (i > 300) throw new Error(`WebKitWebDriver did not listen on ${port}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const d = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    }).build();
    const errors = [];
    // Uncaught errors, kept in the page (or frame) for eval() to read (WebKitWebDriver has no log).
    const WATCH = `window.__errors = []; addEventListener('error', (e) => __errors.push(String(e.message)));
      addEventListener('unhandledrejection', (e) => __errors.push(String(e.reason?.message ?? e.reason)));`;
    // (Selenium runs a function's text: its arguments come as `arguments`.)
    const call = (fn, args) => `return (${fn})(...arguments);`;
    return {
      name: 'webkit',
      errors,
      async open(url) {
        await d.switchTo().defaultContent();
        await d.get(url);
        await d.executeScript(WATCH);
      },
      async frame() {
        await d.switchTo().frame(await d.findElement(By.css('iframe')));
        await d.executeScript(WATCH);
      },
      async eval(fn, ...args) {
        const got = await d.executeAsyncScript(`const done = arguments[arguments.length - 1];
          Promise.resolve().then(() => (${fn})(...Array.prototype.slice.call(arguments, 0, -1))).then(
            (v) => done({ v }), (e) => done({ e: String(e?.message ?? e) }));`, ...args);
        if (got && 'e' in got) throw new Error(got.e);
        errors.splice(0, errors.length, ...(await d.executeScript('return window.__errors ?? []')));
        return got?.v;
      },
      click: async (selector) => (await d.findElement(By.css(selector))).click(),
      async setFiles(selector, files) {
        await (await d.findElement(By.css(selector))).sendKeys(files.join('\n'));
      },
      async waitFor(fn, timeout, ...args) {
        const end = Date.now() + timeout;
        for (;;) {
          if (await d.executeScript(call(fn), ...args)) return;
          if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${String(fn).slice(0, 120)}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      },
      async close() {
        try { await d.quit(); } finally { stopDriver(); }
      },
    };
  } catch (e) {
    stopDriver();
    throw e;
  }
}

// The page's output as bytes: the Blob the download button saves, read in the page (both
// drivers save downloads where a test would have to guess) and brought over in base64 pieces.
export async function merged(e) {
  const size = await e.eval(() => window.tracemerge.state.merged.blob.size);
  const parts = [];
  for (let at = 0; at < size; at += 1 << 21) {
    parts.push(Buffer.from(await e.eval(async (from) => {
      const bytes = new Uint8Array(await window.tracemerge.state.merged.blob.slice(from, from + (1 << 21)).arrayBuffer());
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(s);
    }, at), 'base64'));
  }
  return Buffer.concat(parts);
}
