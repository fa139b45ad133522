#!/usr/bin/env node
// The native CLI's twin on the wasm core: the same flags, folder names, output
// plan, messages and exit status (all from the core's driver, core/driver.h),
// byte-identical output; this file does only the I/O.
//   node build/wasm/tracemerge-cli.mjs [merge] [options] PATH...
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMerger, loadCore, TraceMergeError } from './tracemerge.mjs';

// A folder is walked recursively; the core (core/driver.h) names and orders its files.
function collect(core, arg, inputs, errors) {
  let st;
  try {
    st = fs.statSync(arg);
  } catch {
    errors.push(`${arg}: no such file or folder`);
    return;
  }
  if (!st.isDirectory()) {
    inputs.push({ disk: arg, name: core.nameFile(arg.split(path.sep).join('/')) });
    return;
  }
  const relative = [];
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      // (a symlink to a file is its file, named where it is, as the native CLI has it; not one to a folder)
      else if (e.isFile() || (e.isSymbolicLink() && fs.statSync(path.join(dir, e.name), { throwIfNoEntry: false })?.isFile()))
        relative.push(r);
    }
  };
  walk(arg, '');
  for (const f of JSON.parse(core.nameFolder(fs.realpathSync(arg), relative)))
    inputs.push({ disk: path.join(arg, f.relative), name: f.name, inFolder: true });
}

// What a path is now, for the output plan: 0 missing, 1 a file, 2 a folder, 3 a device or a pipe.
function targetKind(p) {
  const st = p ? fs.statSync(p, { throwIfNoEntry: false }) : undefined;
  return st === undefined ? 0 : st.isFile() ? 1 : st.isDirectory() ? 2 : 3;
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

// Ctrl-C (or SIGTERM) cancels the merge, as the native CLI's: between files while reading, or
// once the core returns — nothing written, the temporary file removed, exit 130. A second one
// ends the process at once (the temporary file still removed).
let interrupted = false;
let temporary = '';  // the output being written, until renamed
const removeTemporary = () => {
  if (temporary) fs.rmSync(temporary, { force: true });
  temporary = '';
};
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (interrupted) {
      removeTemporary();
      process.exit(130);
    }
    interrupted = true;
  });
}
process.on('exit', removeTemporary);
const INTERRUPTED = 130;
const turn = () => new Promise((resolve) => setImmediate(resolve));
const sayInterrupted = () => {
  removeTemporary();
  process.stderr.write('tracemerge: interrupted; nothing written\n');
  return INTERRUPTED;
};

// A file of ours created afresh ('wx': never another's opened); a temporary file of this name
// left by a process that died (its pid reused) is removed first.
function createNew(path) {
  try {
    return fs.openSync(path, 'wx');
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
    fs.rmSync(path, { force: true });
    return fs.openSync(path, 'wx');
  }
}

async function main(argv) {
  const core = await loadCore();
  const start = JSON.parse(core.cliStart(argv));
  process.stdout.write(start.out);
  process.stderr.write(start.err);
  if (start.exit >= 0) return start.exit;
  const { args } = start;
  const inputs = [];
  const errors = [];
  for (const p of args.paths) collect(core, p, inputs, errors);
  for (const e of errors) process.stderr.write(core.cliError(e));
  const seen = new Map();  // device:inode → its first name: a file given twice is read once (core/driver.h)
  for (let i = 0; i < inputs.length; i++) {
    const st = fs.statSync(inputs[i].disk, { bigint: true, throwIfNoEntry: false });
    if (!st) continue;
    const key = `${st.dev}:${st.ino}`;
    if (!seen.has(key)) seen.set(key, inputs[i].name);
    else process.stderr.write(core.cliSameFile(inputs[i].name, seen.get(key))), inputs.splice(i--, 1);
  }
  if (!inputs.length) {
    process.stderr.write(core.cliError('no input files found'));
    return 1;
  }

  // Helper instances (Workers) parse sources beside this one: --threads N
  // asks for N - 1, the default one per core beyond this one.
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const merger = await createMerger(argv, { core, helper: Math.max(0, (args.threads || cores) - 1),
    onProgress: () => !interrupted });
  const t0 = performance.now();
  try {
    for (const input of inputs) {
      try {
        fs.accessSync(input.disk, fs.constants.R_OK);
      } catch (e) {
        process.stderr.write(core.cliError(`${input.disk}: ${e.message}`));
        continue;
      }
      const size = fs.statSync(input.disk).size;
      await merger.addSource(input.name, { path: input.disk, size },
        { sizeHint: fileSizeHint(core, input.disk, size), inFolder: !!input.inFolder });
      await turn();  // (a signal's handler runs on a turn of the event loop, not between microtasks)
      if (interrupted) break;
    }
    await merger.settle();
    for (const note of merger.helperNotes) process.stderr.write(`tracemerge: note: ${note}\n`);  // (the output is whole)
    await new Promise((resolve) => setTimeout(resolve, 0));  // (a whole turn: the signals' poll runs before timers)
    if (interrupted) {
      merger.delete();
      return sayInterrupted();
    }
  } catch (e) {
    merger.delete();  // the helpers stop: a fatal error ends the process, never a wait
    throw e;
  }

  const firstIsDir = targetKind(args.paths[0]) === 2;
  const target = targetKind(args.output !== '-' ? args.output : '');
  // The end of the run (what to print, the exit status), by the core's rules.
  const finish = (result, writeFailed, finalName = '') => {
    const end = JSON.parse(core.finishCli(argv, !!result.fatal, result.summary, writeFailed, firstIsDir, target,
                                          process.pid, finalName));
    process.stdout.write(end.out);
    process.stderr.write(end.err);
    return end.exit;
  };
  const writeReport = (text) => {
    if (!args.report) return true;
    try {
      fs.writeFileSync(args.report, `${text}\n`);
      return true;
    } catch {
      process.stderr.write(core.cliError(`cannot write report ${args.report}`));
      return false;
    }
  };
  if (args.scan) {  // describe the job only (the report has the page's overview too)
    const { result, reportText } = merger.merge();
    return writeReport(reportText) ? finish(result, false) : 1;
  }

  const plan = JSON.parse(core.planOutput(argv, firstIsDir, target, process.pid));
  let fd;
  try {
    fd = plan.toStdout ? 1 : plan.inPlace ? fs.openSync(plan.tmp, 'w') : createNew(plan.tmp);
    if (!plan.toStdout && !plan.inPlace) temporary = plan.tmp;
  } catch (e) {
    process.stderr.write(core.cliError(`cannot write in ${plan.dir}: ${e.message}`));
    return 1;
  }
  let writeFailed = false;
  const tRead = performance.now();
  let tFirst = 0;
  const { result, reportText } = merger.merge({
    onView: (bytes) => {  // written before the call returns: no copy needed
      tFirst ||= performance.now();
      try {
        for (let off = 0; off < bytes.length;) off += writeSome(fd, bytes, off);
      } catch {
        writeFailed = true;
      }
    },
  });
  if (!plan.toStdout) fs.closeSync(fd);
  // For scripts/bench.sh: the wasm heaps only grow; heapPeak bounds what both held at once.
  if (process.env.TRACEMERGE_STATS) {
    const secs = (a, b) => ((b - a) / 1000).toFixed(3);
    const tEnd = performance.now();
    process.stderr.write(`phase-seconds read+parse ${secs(t0, tRead)} plan ${secs(tRead, tFirst || tEnd)} ` +
                         `write ${secs(tFirst || tEnd, tEnd)} clock-check ${result.clockCheckSeconds.toFixed(3)}\n` +
                         `wasm-heap-bytes ${merger.heapPeak}\n`);
  }
  const renamed = !plan.toStdout && !plan.inPlace;
  if (interrupted) return sayInterrupted();
  if (result.fatal || writeFailed) {
    if (renamed) fs.rmSync(plan.tmp, { force: true });
    return finish(result, writeFailed);
  }
  const finalName = core.finalName(argv, firstIsDir, target, process.pid, result.outputName);
  if (renamed) {
    try {
      // A file of that name goes first: renamed over, ext4 would write out
      // the new one's blocks before the rename returns (auto_da_alloc).
      if (targetKind(finalName) === 1) fs.rmSync(finalName);
      fs.renameSync(plan.tmp, finalName);
      temporary = '';
    } catch (e) {
      process.stderr.write(core.cliError(`cannot create ${finalName}: ${e.message}`));
      fs.rmSync(plan.tmp, { force: true });
      return 1;
    }
  }
  if (!writeReport(reportText)) return 1;
  return finish(result, false, finalName);
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e) => {
    const err = e instanceof TraceMergeError ? `${e.code}: ${e.message}` : e.stack ?? String(e);
    process.stderr.write(`tracemerge: ${err}\n`);
    process.exitCode = 1;
  },
);
