// The page: files in (drop, pickers, sample, notebook preload) → table and job scan →
// options → merge in a Worker (progress, cancel) → download or Perfetto. The worker does
// the work; this module only paints. Stable hooks for automation: data-testid attributes
// and [data-testid=status][data-state=idle|merging|done|error].
import { createClient, classify } from './platform.mjs';
import { fromDrop, fromInput } from './files.mjs';
import { bytes, count, duration, utcFromMicros } from './format.mjs';
import { sampleJob } from './sample.mjs';
import { KINDS, offsetsOption, onlyOption, renderFiles, renderKinds, selectedFiles, summaryText } from './table.mjs';
import { describeMerged, describeWindow, fieldHint, readWindow, stepList } from './window.mjs';
import { errorText, renderProblems, renderStats } from './report.mjs';
import { initViewer } from './viewer.mjs';

const $ = (id) => document.getElementById(id);
const el = Object.fromEntries([
  'drop-overlay', 'choose-folder', 'choose-files', 'sample', 'folder-input', 'file-input', 'job', 'job-summary',
  'clear', 'kinds', 'files', 'all-files', 'steps-details', 'steps-summary', 'steps', 'unit', 'start', 'end',
  'start-hint', 'end-hint', 'unit-hint', 'group', 'gzip', 'window-before', 'merge', 'cancel', 'progress-row', 'progress',
  'progress-text', 'status', 'result', 'window-after', 'stats', 'download', 'open-perfetto', 'show-perfetto',
  'perfetto-note', 'problems', 'problems-title', 'warnings', 'skipped-details', 'skipped-summary', 'skipped',
  'summary-details', 'summary', 'viewer', 'viewer-note', 'close-viewer', 'perfetto-frame', 'settings',
  'perfetto-url', 'save-perfetto', 'reset-perfetto', 'perfetto-setting-note', 'version',
].map((id) => [id.replace(/-(\w)/g, (_, c) => c.toUpperCase()), $(id)]));

const state = {
  entries: [],
  kindOn: new Map(KINDS.map((k) => [k.key, true])),
  job: null,            // report.job: { start_us, end_us, steps, steps_from }
  generation: 0,        // bumps when the file set changes; late answers for older sets are dropped
  scanning: false,
  merging: false,
  merged: null,         // { blob, name, result, seconds, bytesIn }
};
const client = createClient();
const viewer = initViewer(el, () => state.merged);

// ---- status -----------------------------------------------------------------------------
function setStatus(stateName, text) {
  el.status.dataset.state = stateName;
  el.status.textContent = text;
}

function setBusy(busy) {
  state.merging = busy;
  el.merge.disabled = busy || !state.entries.length;
  el.cancel.disabled = !busy;
  el.progressRow.hidden = !busy;
  for (const b of [el.chooseFolder, el.chooseFiles, el.sample, el.clear]) b.disabled = busy;
  updateResultButtons();
}

function updateResultButtons() {
  const ready = !!state.merged && !state.merging;
  for (const b of [el.download, el.openPerfetto, el.showPerfetto]) b.disabled = !ready;
  el.download.textContent = ready ? `Download ${state.merged.name}` : 'Download';
}

// ---- loading files ------------------------------------------------------------------------
const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

// then: what follows once the files are classified: 'scan' the job, 'merge' it, or 'none'.
async function load(list, { then = 'scan' } = {}) {
  if (state.merging) return;
  const gen = ++state.generation;
  stopScan();
  clearResult();
  state.job = null;
  state.entries = list.filter((f) => f.file).sort(byName).map((f) => ({
    name: f.name, file: f.file, inFolder: !!f.inFolder, size: f.file.size, kind: '', node: '', reason: '',
    include: true, offset: '', source: null, scanning: true,
  }));
  el.allFiles.checked = true;
  el.merge.disabled = true;  // until the files are classified
  if (!state.entries.length) {
    el.job.hidden = true;
    setStatus('idle', 'No files found there. Choose a folder or trace files.');
    return;
  }
  el.job.hidden = false;
  setStatus('idle', `Looking at ${count(state.entries.length)} files…`);
  renderAll();
  // The first 64 KB of each file say what it is; a few at a time keeps the page responsive.
  const queue = [...state.entries];
  const worker = async () => {
    for (let e = queue.shift(); e; e = queue.shift()) {
      try {
        Object.assign(e, await classify(e.name, e.file));
      } catch (err) {
        Object.assign(e, { kind: 'trace', reason: '' });
        console.warn('classify failed', e.name, err);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  if (gen !== state.generation) return;
  el.merge.disabled = false;
  renderAll();
  setStatus('idle', `Ready: ${summaryText(state.entries)}. Choose options and press Merge.`);
  if (then === 'merge') runMerge();
  else if (then === 'scan') scan(gen);
}

// A scan reads every file once in the worker: the job's time span, its steps and each
// file's clock. A merge started meanwhile cancels it (one worker, one job at a time).
async function scan(gen) {
  state.scanning = true;
  renderJobSummary();
  try {
    const r = await client.merge(selectedFiles(state.entries), { scan: true }, {
      onProgress: (p) => {
        if (gen === state.generation && state.scanning && p.bytesTotal) {
          el.jobSummary.textContent = `${summaryText(state.entries)} · scanning the job… ${Math.floor((100 * p.bytesDone) / p.bytesTotal)}%`;
        }
      },
    });
    if (gen !== state.generation) return;
    applyReport(r.result.report);
  } catch (e) {
    if (gen === state.generation && e.code !== 'CANCELLED') state.scanProblem = errorText(e);
  } finally {
    if (gen === state.generation) {
      state.scanning = false;
      for (const e of state.entries) e.scanning = false;
      renderAll();
    }
  }
}

function stopScan() {
  state.scanProblem = '';
  if (state.scanning) {
    state.scanning = false;
    client.cancel();
  }
}

function applyReport(report) {
  if (report.job) state.job = report.job;
  const rows = new Map(report.sources.map((s) => [s.path, s]));
  for (const e of state.entries) {
    const s = rows.get(e.name);
    if (s) e.source = s;
  }
  if (report.version) el.version.textContent = report.version;
}

// ---- rendering ---------------------------------------------------------------------------------
function renderAll() {
  renderKinds(el.kinds, state.entries, state.kindOn, (key, on) => {
    state.kindOn.set(key, on);
    renderFiles(el.files.tBodies[0], state.entries, state.kindOn, onRowChange);
  });
  renderFiles(el.files.tBodies[0], state.entries, state.kindOn, onRowChange);
  renderJobSummary();
  renderSteps();
  renderWindow();
}

function onRowChange(what) {
  if (what === 'include') {
    el.allFiles.checked = state.entries.every((e) => e.include);
    el.allFiles.indeterminate = !el.allFiles.checked && state.entries.some((e) => e.include);
  }
  renderJobSummary();
}

function renderJobSummary() {
  const parts = [summaryText(state.entries)];
  const job = state.job;
  if (job && job.start_us !== undefined) {
    parts.push(`job ${utcFromMicros(job.start_us)} → ${utcFromMicros(job.end_us)} (${duration(job.end_us - job.start_us)})`);
    parts.push(job.steps?.length ? `${count(job.steps.length)} steps ${stepList(job)} (${job.steps_from})` : 'no steps');
  } else if (state.scanning) {
    parts.push('scanning the job…');
  }
  if (state.scanProblem) parts.push(`scan failed: ${state.scanProblem}`);
  el.jobSummary.textContent = parts.join(' · ');
}

function renderSteps() {
  const steps = state.job?.steps ?? [];
  el.stepsDetails.hidden = !steps.length;
  el.stepsSummary.textContent = `Steps ${stepList(state.job)} and when each starts`;
  const sorted = [...steps].sort((a, b) => a[0] - b[0]);
  el.steps.tBodies[0].replaceChildren(...sorted.map(([step, ts]) => {
    const tr = document.createElement('tr');
    for (const [text, cls] of [[step, 'c-num'], [utcFromMicros(ts), 'mono'], [ts, 'c-num mono']]) {
      const td = document.createElement('td');
      td.className = cls;
      td.textContent = String(text);
      tr.append(td);
    }
    return tr;
  }));
}

function currentWindow() {
  return readWindow(el.unit.value, el.start.value, el.end.value, state.job);
}

function renderWindow() {
  const w = currentWindow();
  const unit = el.unit.value;
  el.unitHint.textContent = unit === 'step'
    ? 'From the first event of the start step to just before the end step (the end step is excluded, as in smdebug).'
    : 'Unix µs or a UTC date-time; an event is kept when it overlaps the window.';
  el.start.placeholder = unit === 'step' ? 'first step' : 'job start';
  el.end.placeholder = unit === 'step' ? 'last step' : 'job end';
  for (const which of ['start', 'end']) {
    const hint = fieldHint(unit, w[which], state.job, which);
    const problem = w.problems.find((p) => p.field === which);
    const node = el[`${which}Hint`];
    node.textContent = problem && w[which] !== null ? problem.text : hint.text;
    node.classList.toggle('bad', !!(hint.bad || problem));
    el[which].setAttribute('aria-invalid', String(!!(hint.bad || problem)));
  }
  el.windowBefore.classList.toggle('bad', w.problems.length > 0);
  if (w.problems.length) el.windowBefore.textContent = w.problems.map((p) => p.text).join(' ');
  else if (w.resolved.pending) el.windowBefore.textContent = 'Window to merge: resolved from the steps once the job is scanned (or by the merge).';
  else el.windowBefore.textContent = `Window to merge: ${describeWindow(w.resolved, state.job)}`;
}

function clearResult() {
  state.merged = null;
  el.result.hidden = true;
  el.problems.hidden = true;
  el.summaryDetails.hidden = true;
  el.perfettoNote.textContent = '';
  updateResultButtons();
}

// ---- merging -----------------------------------------------------------------------------
function progressText(p, t) {
  const now = performance.now();
  if (p.stage !== t.stage) Object.assign(t, { stage: p.stage, since: now, from: p.bytesDone ?? 0 });
  const seconds = Math.max((now - t.since) / 1000, 1e-3);
  const rate = p.stage === 'read' ? p.mbPerSec : ((p.bytesDone ?? 0) - t.from) / 1e6 / seconds;
  const mbps = Number.isFinite(rate) && rate > 0 ? ` · ${rate.toFixed(rate < 10 ? 1 : 0)} MB/s` : '';
  const frac = (a, b) => (b > 0 ? Math.min(a / b, 1) : 0);
  if (p.stage === 'write') {
    return { value: 0.8 + 0.2 * frac(p.eventsDone, p.eventsTotal), text: `Writing: ${count(p.eventsDone)} of ${count(p.eventsTotal)} events` };
  }
  const f = frac(p.bytesDone, p.bytesTotal);
  const verb = p.stage === 'read' ? 'Reading' : 'Parsing';
  return { value: (p.stage === 'read' ? 0 : 0.4) + 0.4 * f, text: `${verb}: ${bytes(p.bytesDone)} of ${bytes(p.bytesTotal)}${mbps}` };
}

async function runMerge() {
  if (state.merging || !state.entries.length) return;
  const w = currentWindow();
  const problem = w.problems[0];
  if (problem) {  // a typo or an unknown step: the merge would fail the same way, say it now
    setStatus('error', problem.text);
    el[problem.field].focus();
    return;
  }
  if (state.entries.some((e) => e.include && e.offsetInvalid)) {
    setStatus('error', 'An offset is not a whole number of µs (e.g. -1500). Fix it in the file table.');
    return;
  }
  const only = onlyOption(state.kindOn);
  if (only && !only.length) {
    setStatus('error', 'Every kind is switched off under "Kinds to merge": switch at least one on.');
    return;
  }
  const files = selectedFiles(state.entries);
  if (!files.length) {
    setStatus('error', 'No file is selected in the table.');
    return;
  }
  const offsets = offsetsOption(state.entries);
  // ?memory-mb=N: MB of events kept in the wasm heap (default 512); the rest
  // are kept as Blobs, which the browser may hold on disk.
  // ?output-file=1|0: the output to the browser's private file system, or not
  // (default: for inputs over 256 MB).
  const memoryOption = () => {
    const q = new URLSearchParams(location.search);
    const mb = q.get('memory-mb'), file = q.get('output-file');
    return {
      ...(mb !== null && /^\d+$/.test(mb) ? { memoryMb: Number(mb) } : {}),
      ...(file === '1' || file === '0' ? { outputFile: file === '1' } : {}),
    };
  };
  const options = {
    ...w.options,
    ...(el.group.value !== 'source' ? { group: el.group.value } : {}),
    ...(only ? { only } : {}),
    ...(Object.keys(offsets).length ? { offsets } : {}),
    ...(el.gzip.checked ? { gzip: true } : {}),
    ...memoryOption(),
  };
  const gen = state.generation;
  stopScan();
  clearResult();
  setBusy(true);
  el.progress.value = 0;
  el.progressText.textContent = 'Starting…';
  setStatus('merging', `Merging ${count(files.length)} files…`);
  const started = performance.now();
  const track = { stage: '' };
  const bytesIn = files.reduce((n, f) => n + f.data.size, 0);
  try {
    const r = await client.merge(files, options, {
      onProgress: (p) => {
        const { value, text } = progressText(p, track);
        el.progress.value = value;
        el.progressText.textContent = text;
      },
    });
    if (gen !== state.generation) return;
    const seconds = (performance.now() - started) / 1000;
    state.merged = { blob: r.blob, name: r.result.outputName, result: r.result, seconds, bytesIn };
    applyReport(r.result.report);
    for (const e of state.entries) e.scanning = false;
    renderAll();
    showResult();
    setStatus('done', `Merged ${count(r.result.eventsWritten)} events into ${r.result.outputName} (${bytes(r.result.bytesWritten)}) in ${duration(seconds * 1e6)}.`);
  } catch (e) {
    if (e.code === 'CANCELLED') {
      setStatus('idle', 'Merge cancelled. Nothing was written; press Merge to start again.');
    } else {
      setStatus('error', `Could not merge: ${errorText(e)}`);
      if (e.result?.report) renderProblems(problemEls(), e.result.report.warnings);
    }
  } finally {
    setBusy(false);
  }
}

const problemEls = () => ({ problems: el.problems, title: el.problemsTitle, warnings: el.warnings,
  skipped: el.skipped, skippedSummary: el.skippedSummary, skippedDetails: el.skippedDetails });

function showResult() {
  const { result } = state.merged;
  el.result.hidden = false;
  el.windowAfter.textContent = `Merged window: ${describeMerged(result.report.window, state.job)}`;
  renderStats(el.stats, state.merged);
  renderProblems(problemEls(), result.report.warnings);
  el.summary.textContent = result.summary;
  el.summaryDetails.hidden = false;
  updateResultButtons();
  viewer.showAddress();
}

function download() {
  if (!state.merged) return;
  const url = URL.createObjectURL(state.merged.blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = state.merged.name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// ---- drop anywhere on the page ------------------------------------------------------------
function initDrop() {
  let depth = 0;
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  document.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    el.dropOverlay.hidden = state.merging;
  });
  document.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = state.merging ? 'none' : 'copy';
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (!depth) el.dropOverlay.hidden = true;
  });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    el.dropOverlay.hidden = true;
    if (state.merging || !e.dataTransfer) return;
    fromDrop(e.dataTransfer).then((list) => load(list), (err) => setStatus('error', `Could not read the dropped items: ${err.message}`));
  });
}

// ---- the notebook helper's preloaded files -----------------------------------------------
function decodeBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function applyOptions(o = {}) {
  if (o.unit) el.unit.value = o.unit;
  if (o.start !== undefined && o.start !== null) el.start.value = String(o.start);
  if (o.end !== undefined && o.end !== null) el.end.value = String(o.end);
  if (o.group) el.group.value = o.group;
  el.gzip.checked = !!o.gzip;
  if (Array.isArray(o.only) && o.only.length) {
    for (const k of KINDS) state.kindOn.set(k.key, o.only.includes(k.only) || o.only.includes(k.key));
  }
}

function matchesPath(path, pattern) {
  return path === pattern || path.startsWith(pattern.endsWith('/') ? pattern : `${pattern}/`) || path.endsWith(`/${pattern}`);
}

async function loadPreload() {
  const node = document.getElementById('tm-preload');
  if (!node) return false;
  const data = JSON.parse(node.textContent);
  applyOptions(data.options);
  const list = data.files.map((f) => ({
    name: f.name,
    file: new File([decodeBase64(f.data)], f.name.slice(f.name.lastIndexOf('/') + 1)),
  }));
  const offsets = Object.entries(data.options?.offsets ?? {});
  await load(list, { then: 'none' });
  for (const e of state.entries) {
    for (const [pattern, us] of offsets) if (matchesPath(e.name, pattern)) e.offset = String(us);
  }
  renderAll();
  if (data.merge === false) scan(state.generation);
  else runMerge();
  return true;
}

// ---- wiring -----------------------------------------------------------------------------
function init() {
  el.chooseFolder.addEventListener('click', () => el.folderInput.click());
  el.chooseFiles.addEventListener('click', () => el.fileInput.click());
  for (const input of [el.folderInput, el.fileInput]) {
    input.addEventListener('change', () => {
      const list = fromInput(input);
      input.value = '';  // choosing the same folder again is a change too
      load(list);
    });
  }
  el.sample.addEventListener('click', () => {
    const list = sampleJob().map(({ name, data }) => ({ name, file: new File([data], name.slice(name.lastIndexOf('/') + 1)), inFolder: true }));
    load(list, { then: 'merge' });
  });
  el.clear.addEventListener('click', () => {
    stopScan();
    state.generation++;
    state.entries = [];
    state.job = null;
    clearResult();
    el.job.hidden = true;
    el.merge.disabled = true;
    renderWindow();
    setStatus('idle', 'Choose a folder or files to begin.');
    el.chooseFolder.focus();
  });
  el.allFiles.addEventListener('change', () => {
    for (const e of state.entries) e.include = el.allFiles.checked;
    renderFiles(el.files.tBodies[0], state.entries, state.kindOn, onRowChange);
    renderJobSummary();
  });
  for (const input of [el.unit, el.start, el.end]) input.addEventListener('input', renderWindow);
  el.unit.addEventListener('change', renderWindow);
  el.merge.addEventListener('click', runMerge);
  for (const input of [el.start, el.end]) {
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !el.merge.disabled) runMerge(); });
  }
  el.cancel.addEventListener('click', () => client.cancel());
  el.download.addEventListener('click', download);
  initDrop();
  renderWindow();
  loadPreload().catch((e) => setStatus('error', `Could not load the embedded files: ${e.message}`));
}

init();
// For scripts and tests: the page's state, read-only by convention.
window.tracemerge = { state, get client() { return client; } };
