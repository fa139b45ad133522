// The README's JS example runs and writes what the native CLI writes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CORPUS, NATIVE_CLI, WASM, run, tmpDir } from './helpers.mjs';
import { spawnSync } from 'node:child_process';

test('README example: node build/wasm/example.mjs OUT FILE...', () => {
  const dir = tmpDir('example');
  const out = path.join(dir, 'merged.json');
  const inputs = [path.join(CORPUS, 'real/viztracer/fib.json'), path.join(CORPUS, 'real/pytorch_kineto_hta/base.json.gz')];
  const r = spawnSync(process.execPath, [path.join(WASM, 'example.mjs'), out, ...inputs]);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.match(r.stderr.toString(), /events written/);
  const native = run(NATIVE_CLI, [...inputs, '-o', '-', '--quiet']);
  assert.ok(fs.readFileSync(out).equals(native.stdout));
  fs.rmSync(dir, { recursive: true, force: true });
});
