// Shared by the Node tests of the wasm build: paths, running both CLIs, inputs.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const WASM = path.join(ROOT, 'build/wasm');
export const NATIVE_CLI = path.join(ROOT, 'build/native/tracemerge');
export const NODE_CLI = path.join(WASM, 'tracemerge-cli.mjs');
export const CORPUS = path.resolve(ROOT, '../shared/corpus');
export const GOLDEN = path.join(ROOT, 'tests/golden');

export function tmpDir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `tracemerge-${tag}-`));
}

// The golden cases (tests/golden/cases.tsv): { name, input, args }.
export function goldenCases() {
  return fs.readFileSync(path.join(GOLDEN, 'cases.tsv'), 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [name, input, options] = l.split('\t');
      return { name, input: path.join(CORPUS, input), args: options ? options.split(' ') : [] };
    });
}

// The command line that starts a CLI: [program, ...leading arguments].
export function cliCommand(cli) {
  return cli === NODE_CLI ? [process.execPath, NODE_CLI] : [cli];
}

// Runs a CLI; returns { status, stdout (Buffer), stderr (string) }.
export function run(cli, args) {
  const [cmd, ...lead] = cliCommand(cli);
  const r = spawnSync(cmd, [...lead, ...args], { maxBuffer: 1 << 30 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

// Every file under dir as { name: "<dir name>/<rel>", data: Uint8Array, inFolder: true }, sorted like the CLIs.
export function readTree(dir) {
  const label = path.basename(path.resolve(dir));
  const out = [];
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push({ name: `${label}/${r}`, data: new Uint8Array(fs.readFileSync(path.join(d, e.name))), inFolder: true });
    }
  };
  walk(dir, '');
  return out.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
}

export function concat(chunks) {
  return Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
}

export { execFileSync };
