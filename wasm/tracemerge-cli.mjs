#!/usr/bin/env node
// The native CLI's twin on the wasm core: same flags (parsed by the same C++),
// same folder walk and source names, byte-identical output.
//   node build/wasm/tracemerge-cli.mjs [merge] [options] PATH...
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMerger, loadCore, TraceMergeError } from './tracemerge.mjs';

// Folders are walked like a dropped folder: "<folder name>/<relative path>", sorted.
function collect(arg, inputs, errors) {
  let st;
  try {
    st = fs.statSync(arg);
  } catch {
    errors.push(`${arg}: no such file or folder`);
    return;
  }
  if (st.isDirectory()) {
    const label = path.basename(path.resolve(arg)) || path.resolve(arg);
    const found = [];
    const walk = (dir, rel) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(full, r);
        else if (e.isFile()) found.push({ disk: full, name: `${label}/${r}` });
      }
    };
    walk(arg, '');
    // Byte order, as the native CLI's std::sort on std::string.
    found.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
    inputs.push(...found);
  } else {
    let name = arg.split(path.sep).join('/');
    while (name.startsWith('./')) name = name.slice(2);
    inputs.push({ disk: arg, name });
  }
}

// What the file of `size` bytes inflates to (a gzip's last 4 bytes say), so that its buffer is allocated once.
function fileSizeHint(core, file, size) {
  if (size < 6) return size;
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(2), tail = Buffer.alloc(4);
    fs.readSync(fd, head, 0, 2, 0);
    fs.readSync(fd, tail, 0, 4, size - 4);
    return core.gzipSizeHint(head, tail, size);
  } finally {
    fs.closeSync(fd);
  }
}

// A pipe on stdout may be non-blocking (Node makes it so once a Worker, the
// helper, shares the process's stdout): when it is full, wait a little.
const pause = new Int32Array(new SharedArrayBuffer(4));
function writeSome(fd, bytes, off) {
  for (;;) {
    try {
      return fs.writeSync(fd, bytes, off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}

async function main(argv) {
  const core = await loadCore();
  const args = JSON.parse(core.parseArgs(argv));
  if (args.error) {
    process.stderr.write(`tracemerge: ${args.error}\n\n${args.usage}`);
    return 2;
  }
  if (args.help) return process.stdout.write(args.usage), 0;
  if (args.version) return process.stdout.write(`${args.version_text}\n`), 0;
  if (!args.paths.length) {
    process.stderr.write(`tracemerge: no input: give files or folders\n\n${args.usage}`);
    return 2;
  }
  const inputs = [];
  const errors = [];
  for (const p of args.paths) collect(p, inputs, errors);
  for (const e of errors) process.stderr.write(`tracemerge: ${e}\n`);
  if (!inputs.length) {
    process.stderr.write('tracemerge: no input files found\n');
    return 1;
  }

  // With a second core, a second instance (a Worker) parses every other source.
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const merger = await createMerger(argv, { core, helper: cores > 1 });
  const t0 = performance.now();
  for (const input of inputs) {
    try {
      fs.accessSync(input.disk, fs.constants.R_OK);
    } catch (e) {
      process.stderr.write(`tracemerge: ${input.disk}: ${e.message}\n`);
      continue;
    }
    const size = fs.statSync(input.disk).size;
    await merger.addSource(input.name, { path: input.disk, size }, { sizeHint: fileSizeHint(core, input.disk, size) });
  }
  await merger.settle();

  if (args.scan) {  // describe the job, write nothing
    const { result } = merger.merge();
    process.stdout.write(result.summary);
    return result.fatal ? 1 : 0;
  }

  const toStdout = args.output === '-';
  let dir = '.';
  if (args.output && !toStdout) dir = path.dirname(args.output);
  else if (!args.output && fs.statSync(args.paths[0], { throwIfNoEntry: false })?.isDirectory()) dir = args.paths[0];
  // A device or a pipe (-o /dev/null, a FIFO) is written in place: renaming a
  // temporary file over it would replace the device with a regular file.
  const target = args.output && !toStdout ? fs.statSync(args.output, { throwIfNoEntry: false }) : undefined;
  const inPlace = target !== undefined && !target.isFile() && !target.isDirectory();
  const tmp = inPlace ? args.output : path.join(dir, `.tracemerge-${process.pid}.tmp`);
  let fd;
  try {
    fd = toStdout ? 1 : fs.openSync(tmp, 'w');
  } catch (e) {
    process.stderr.write(`tracemerge: cannot write in ${dir}: ${e.message}\n`);
    return 1;
  }
  let writeFailed = false;
  const tRead = performance.now();
  let tFirst = 0;
  const { result } = merger.merge({
    onView: (bytes) => {  // written before the call returns: no copy needed
      tFirst ||= performance.now();
      try {
        for (let off = 0; off < bytes.length;) off += writeSome(fd, bytes, off);
      } catch {
        writeFailed = true;
      }
    },
  });
  if (!toStdout) fs.closeSync(fd);
  // For scripts/bench.sh: the wasm heaps only grow; heapPeak bounds what both held at once.
  if (process.env.TRACEMERGE_STATS) {
    const secs = (a, b) => ((b - a) / 1000).toFixed(3);
    const tEnd = performance.now();
    process.stderr.write(`phase-seconds read+parse ${secs(t0, tRead)} plan ${secs(tRead, tFirst || tEnd)} ` +
                         `write ${secs(tFirst || tEnd, tEnd)}\nwasm-heap-bytes ${merger.heapPeak}\n`);
  }
  if (result.fatal || writeFailed) {
    if (!toStdout && !inPlace) fs.rmSync(tmp, { force: true });
    process.stderr.write(result.summary);
    if (writeFailed) process.stderr.write('tracemerge: writing the output failed\n');
    return 1;
  }
  const finalName = args.output || path.join(dir, result.outputName);
  if (!toStdout && !inPlace) {
    try {
      // A file of that name goes first: renamed over, ext4 would write out
      // the new one's blocks before the rename returns (auto_da_alloc).
      if (fs.statSync(finalName, { throwIfNoEntry: false })?.isFile()) fs.rmSync(finalName);
      fs.renameSync(tmp, finalName);
    } catch (e) {
      process.stderr.write(`tracemerge: cannot create ${finalName}: ${e.message}\n`);
      fs.rmSync(tmp, { force: true });
      return 1;
    }
  }
  if (args.report) fs.writeFileSync(args.report, `${JSON.stringify(result.report)}\n`);
  if (!args.quiet) {
    process.stderr.write(result.summary);
    if (!toStdout) process.stderr.write(`wrote ${finalName}\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e) => {
    const err = e instanceof TraceMergeError ? `${e.code}: ${e.message}` : e.stack ?? String(e);
    process.stderr.write(`tracemerge: ${err}\n`);
    process.exitCode = 1;
  },
);
