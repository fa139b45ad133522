// Builds the page into build/web/ (run after the wasm build: `node web/build.mjs`).
//   build/web/index.html, *.mjs, style.css   the hosted page; relative URLs only, so it works
//   build/web/wasm/                           from any sub-path of a static host
//   build/web/tracemerge.html                 one self-contained file (core, worker, app and CSS
//                                             inlined as classic scripts) that works from file://
//   build/web/notebook/tracemerge_notebook.py the notebook helper, next to the file it embeds
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const WEB = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(WEB, '..');
const WASM = path.join(ROOT, 'build/wasm');
const OUT = path.join(ROOT, 'build/web');

// The page: every .html/.css/.mjs in web/ except this script and the single-file platform.
const PAGE_FILES = fs.readdirSync(WEB).filter((f) => /\.(html|css|mjs)$/.test(f) && !['build.mjs', 'platform-single.mjs'].includes(f));
const WASM_FILES = ['tracemerge.mjs', 'tracemerge-core.mjs', 'protocol.mjs', 'tracemerge-client.mjs',
  'tracemerge-worker.mjs', 'tracemerge-helper.mjs', 'scheduler.mjs', 'io.mjs', 'errors.mjs', 'tracemerge.d.ts'];
const CLASSIC_CORE = 'tracemerge-core-classic.js';

function fail(message) {
  console.error(`[web] ERROR: ${message}`);
  process.exit(1);
}

for (const f of [...WASM_FILES, CLASSIC_CORE]) {
  if (!fs.existsSync(path.join(WASM, f))) fail(`build/wasm/${f} is missing: run scripts/build.sh (the wasm build) first`);
}

// The project's license and the notices of what it links (NOTICE, LICENSE at the root): in the
// page's footer, and beside the hosted page's files.
const LICENSES = ['NOTICE', 'LICENSE'].map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')).join('\n\n');
const LICENSES_MARK = /<!-- tracemerge:licenses[^>]*-->/;
function withLicenses(html) {
  if (!LICENSES_MARK.test(html)) fail('web/index.html: cannot find the licenses mark');
  const text = LICENSES.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return html.replace(LICENSES_MARK, () => text);
}

// ---- 1. the hosted page --------------------------------------------------------------------
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(path.join(OUT, 'wasm'), { recursive: true });
fs.mkdirSync(path.join(OUT, 'notebook'), { recursive: true });
for (const f of PAGE_FILES) fs.copyFileSync(path.join(WEB, f), path.join(OUT, f));
fs.writeFileSync(path.join(OUT, 'index.html'), withLicenses(fs.readFileSync(path.join(WEB, 'index.html'), 'utf8')));
for (const f of ['NOTICE', 'LICENSE']) fs.copyFileSync(path.join(ROOT, f), path.join(OUT, f));
for (const f of WASM_FILES) fs.copyFileSync(path.join(WASM, f), path.join(OUT, 'wasm', f));
fs.copyFileSync(path.join(WEB, 'notebook/tracemerge_notebook.py'), path.join(OUT, 'notebook/tracemerge_notebook.py'));

// ---- 2. the single-file page -----------------------------------------------------------------
// Classic scripts only: the page bundle (platform.mjs swapped for platform-single.mjs) and the
// worker bundle, both reaching the core through the global createTraceMergeCore.
const STAGE = fs.mkdtempSync(path.join(ROOT, 'build/.web-stage-'));
try {
  for (const f of PAGE_FILES.filter((f) => f.endsWith('.mjs'))) fs.copyFileSync(path.join(WEB, f), path.join(STAGE, f));
  fs.copyFileSync(path.join(WEB, 'platform-single.mjs'), path.join(STAGE, 'platform.mjs'));
  fs.mkdirSync(path.join(STAGE, 'wasm'));
  for (const f of WASM_FILES) fs.copyFileSync(path.join(WASM, f), path.join(STAGE, 'wasm', f));

  const singleFile = {
    name: 'single-file',
    setup(build) {
      build.onResolve({ filter: /tracemerge-core\.mjs$/ }, () => ({ path: 'core', namespace: 'classic' }));
      build.onLoad({ filter: /.*/, namespace: 'classic' }, () => ({
        contents: 'export default (options) => globalThis.createTraceMergeCore(options);',
        loader: 'js',
      }));
      // The worker finds its port with a top-level await that only Node needs; classic
      // scripts cannot have one, and in a browser the port is `self`.
      build.onLoad({ filter: /tracemerge-worker\.mjs$/ }, (args) => {
        const text = fs.readFileSync(args.path, 'utf8');
        const nodePort = /\(\s*await import\(\s*['"]node:worker_threads['"]\s*\)\s*\)\.parentPort/;
        if (!nodePort.test(text)) {
          throw new Error('tracemerge-worker.mjs no longer finds its Node port with "(await import(\'node:worker_threads\')).parentPort": update the single-file patch in web/build.mjs');
        }
        return { contents: text.replace(nodePort, 'null'), loader: 'js' };
      });
    },
  };
  const bundle = async (entry) => {
    const r = await esbuild.build({
      entryPoints: [path.join(STAGE, entry)],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      external: ['node:*'],
      plugins: [singleFile],
      logOverride: { 'empty-import-meta': 'silent' },
      legalComments: 'none',
      charset: 'utf8',
    });
    return r.outputFiles[0].text;
  };
  const app = await bundle('app.mjs');
  const worker = await bundle('wasm/tracemerge-worker.mjs');
  const core = fs.readFileSync(path.join(WASM, CLASSIC_CORE), 'utf8');
  const css = fs.readFileSync(path.join(WEB, 'style.css'), 'utf8');

  for (const [name, text] of Object.entries({ app, worker, core })) {
    // Inside <script>, these would end the element early or change how it is parsed.
    if (/<\/script|<!--|<script/i.test(text)) fail(`the ${name} script contains "</script", "<script" or "<!--"`);
  }
  const sha = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
  const frames = "'self' https: http://127.0.0.1:* http://localhost:*";
  const csp = [
    "default-src 'none'",
    `script-src ${sha(core)} ${sha(app)} 'wasm-unsafe-eval'`,  // only these two inline scripts run
    'worker-src blob:',
    `style-src ${sha(css)}`,
    'img-src data: blob:',
    'connect-src data:',
    `frame-src ${frames}`,
    `child-src blob: ${frames}`,
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ');

  let html = withLicenses(fs.readFileSync(path.join(WEB, 'index.html'), 'utf8'));
  const replaceOnce = (pattern, replacement, what) => {
    if (!pattern.test(html)) fail(`web/index.html: cannot find ${what}`);
    html = html.replace(pattern, () => replacement);
  };
  replaceOnce(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, `<meta http-equiv="Content-Security-Policy" content="${csp}">`, 'the CSP <meta>');
  replaceOnce(/\s*<link rel="stylesheet" href="style.css">/, `\n  <style>${css}</style>`, 'the style.css <link>');
  replaceOnce(/\s*<script type="module" src="app.mjs"><\/script>/, '', 'the app.mjs <script>');
  // The notebook helper puts its files (a JSON <script>, never run) where the marker is, and
  // checks its options against the core's spec of those the page takes and its `only` against
  // the core's kinds, both written before it (it restates no rule).
  const { kindTable, loadCore, optionTable } = await import(pathToFileURL(path.join(WASM, 'tracemerge.mjs')).href);
  const { PAGE_OPTIONS } = await import(pathToFileURL(path.join(WEB, 'options.mjs')).href);
  const kinds = JSON.stringify(kindTable(await loadCore()).map((k) => k.only));
  const options = JSON.stringify(optionTable(await loadCore()).filter((o) => PAGE_OPTIONS.includes(o.key)));
  replaceOnce(/<\/body>/, [
    `<script type="application/json" id="tm-kinds">${kinds}</script>`,
    `<script type="application/json" id="tm-options">${options}</script>`,
    '<!-- tracemerge:preload -->',
    `<script id="tm-core">${core}</script>`,
    `<script type="text/plain" id="tm-worker">${worker}</script>`,
    `<script id="tm-app">${app}</script>`,
    '</body>',
  ].join('\n'), '</body>');
  fs.writeFileSync(path.join(OUT, 'tracemerge.html'), html);
} finally {
  fs.rmSync(STAGE, { recursive: true, force: true });
}

const size = (f) => `${(fs.statSync(path.join(OUT, f)).size / 1e6).toFixed(2)} MB`;
console.log(`[web] build/web/ (hosted page) and build/web/tracemerge.html (${size('tracemerge.html')}, single file)`);
