// The README's JS example, kept runnable (tests/wasm/example.test.mjs runs it):
//   node build/wasm/example.mjs OUT.json FILE...
import fs from 'node:fs';
import { mergeFiles } from './tracemerge.mjs';

const [out, ...paths] = process.argv.slice(2);
const files = paths.map((p) => ({ name: p, data: new Blob([fs.readFileSync(p)]) }));
const { blob, result } = await mergeFiles(files, { group: 'source' }, {
  onProgress: (p) => process.stderr.write(`${p.stage} `),
});
fs.writeFileSync(out, Buffer.from(await blob.arrayBuffer()));
console.error(`\n${result.summary}`);
