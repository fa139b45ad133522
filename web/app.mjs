// The page: files in (drop, pickers, sample, notebook preload) → table and job scan →
// overview and options → merge in a Worker (progress, cancel) → download or Perfetto. The
// worker does the work and the core (rules.mjs) says what the options mean; this module only
// paints. Stable hooks for automation: data-testid attributes and
// [data-testid=status][data-state=idle|merging|done|error].
import { createClient, classify } from './platform.mjs';
import { el } from './dom.mjs';
import { fromInput, initDrop, readHead, readPreload, saveBlob } from './files.mjs';
import { bytes, duration, plural, utcFromMicros } from './format.mjs';
import { createJobView } from './job-view.mjs';
import { createProgress } from './progress.mjs';
import { errorText, renderProblems, showMerged } from './report.mjs';
import { applyOptions, mergeOptions, renderWindowFields } from './options.mjs';
import { loadRules } from './rules.mjs';
import { sampleJob } from './sample.mjs';
import { FOLD_FILES, kindSet, nothingToMerge, renderFiles, renderKinds, selectedFiles, sourceOf, summaryText } from './table.mjs';
import { initViewer } from './viewer.mjs';
import { readWindow, stepList, stepWindow } from './window.mjs';

const state = {
  entries: [],
  byName: new Map(),
  kindOn: new Map(),
  report: null,         // the last scan's report: job, sources, overview, warnings
  job: null,            // report.job: { start_us, end_us, steps, steps_from }
  generation: 0,        // bumps when the file set changes; late answers for older sets are dropped
  scans: 0,             // bumps with every scan
  classifying: false,
  scanning: false,
  merging: false,
  merged: null,         // { blob, name, result, seconds, bytesIn }
  filesOpen: false,     // a big job's file table shows every file (else a row per kind and host)
};
let rules = null;       // the core's rules (rules.mjs), once loaded
let kinds = null;       // kindSet(rules.kinds)
const ready = loadRules().then((r) => {
  rules = r;
  kinds = kindSet(r.kinds);
  el.version.textContent = r.version;
  for (const k of kinds.list) if (!state.kindOn.has(k.key)) state.kindOn.set(k.key, true);
  renderWindow();
});
const client = createClient();
const viewer = initViewer(el, () => state.merged, { download });
const jobView = createJobView(el, {
  onPick: pickWindow,
  onClear: () => pickWindow({ unit: el.unit.value, start: '', end: '' }),
  onAlignClocks: () => { el.align.value = 'clocks'; rescan(); },
  lanes: () => ({
    visible: (path) => { const e = state.byName.get(path); return !e || (e.include && state.kindOn.get(e.kind) !== false); },
    shift: (path) => Number(state.byName.get(path)?.offset || 0),
    kindLabel: (k) => kinds?.label(k),
  }),
});

// A report of 20 000 files takes tasks to arrive, and its table and overview one each: between
// them the page answers (none freezes it for long).
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// ---- status -----------------------------------------------------------------------------
// level 'warning': done, but not a success to celebrate (an empty output).
function setStatus(stateName, text, level = '') {
  el.status.dataset.state = stateName;
  if (level) el.status.dataset.level = level; else delete el.status.dataset.level;
  el.status.textContent = text;
}

function setBusy(busy) {
  state.merging = busy;
  el.cancel.disabled = !busy;
  el.progressRow.hidden = !busy;
  for (const b of [el.chooseFolder, el.chooseFiles, el.sample, el.clear]) b.disabled = busy;
  updateMergeButton();
  updateResultButtons();
}

// Merge is enabled only when it has something to merge; otherwise the reason is beside it.
function updateMergeButton() {
  const reason = !state.entries.length ? 'Choose a folder or files first.'
    : state.classifying || !kinds ? 'Looking at the files…' : nothingToMerge(state.entries, kinds, state.kindOn);
  el.merge.disabled = state.merging || !!reason;
  el.mergeReason.textContent = state.merging ? 'Esc cancels.' : reason;
}

function updateResultButtons() {
  const ready = !!state.merged && !state.merging;
  for (const b of [el.download, el.openPerfetto, el.showPerfetto]) b.disabled = !ready;
  // (the name may break after its "_" and "." on a narrow page, not inside a word)
  el.download.replaceChildren(...(ready ? ['Download ', ...state.merged.name.split(/(?<=[_.])/).flatMap((part, i) => (i ? [document.createElement('wbr'), part] : [part]))] : ['Download']));
}

// ---- loading files ------------------------------------------------------------------------
// Small files are kept as they were read for their kind, up to this many bytes in all: the scan
// and the merge take them from here. Read again by each, a file costs the browser about 0.5 ms:
// 10 s for 20 000 files, twice.
const KEEP_BYTES = 64 << 20;

// then: what follows once the files are classified: 'scan' the job, 'scan-merge' (scan,
// then merge: the sample and the notebook), or 'none'.
async function load(list, { then = 'scan' } = {}) {
  if (state.merging) return;
  const gen = ++state.generation;
  stopScan();
  clearResult();
  state.job = null;
  state.report = null;
  jobView.clear();
  state.filesOpen = false;
  // (size: read with the kind — a picked File's size costs the page a round trip to the browser)
  state.entries = list.filter((f) => f.file).map((f) => ({
    name: f.name, file: f.file, bytes: null, inFolder: !!f.inFolder, size: null, kind: '', node: '', reason: '',
    include: true, offset: '', source: null, scanning: true,
  }));
  state.byName = new Map(state.entries.map((e) => [e.name, e]));
  el.allFiles.checked = true;
  state.classifying = true;
  updateMergeButton();
  if (!state.entries.length) {
    el.job.hidden = true;
    state.classifying = false;
    setStatus('idle', 'No files found there. Choose a folder or trace files.');
    return;
  }
  el.job.hidden = false;
  setStatus('idle', `Looking at ${plural(state.entries.length, 'file')}…`);
  await ready;
  if (gen === state.generation) {  // in the core's order (rules.order), as the CLIs read them
    const all = state.entries;
    state.entries = rules.order(all.map((e) => e.name)).map((i) => all[i]);
  }
  renderAll();
  // The first 64 KB of each file say what it is; a few at a time keeps the page responsive.
  const entries = state.entries;
  let next = 0;
  let kept = 0;
  const worker = async () => {
    while (next < entries.length && gen === state.generation) {
      const e = entries[next++];
      try {
        const { head, whole } = await readHead(e.file);
        if (whole && kept + head.length <= KEEP_BYTES) {
          e.bytes = head;
          kept += head.length;
        }
        // (a File handed to the worker has its size asked on this thread as it is cloned — 20 000
        // in one long task: here instead, one a turn)
        e.size = e.bytes ? head.length : e.file.size;
        Object.assign(e, await classify(e.name, head));
      } catch (err) {
        Object.assign(e, { kind: 'trace', reason: '', size: e.file.size });
        console.warn('classify failed', e.name, err);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  if (gen !== state.generation) return;
  state.classifying = false;
  renderAll();
  const traces = state.entries.some((e) => kinds.filterable(e.kind));
  setStatus('idle', traces ? `Ready: ${summaryText(state.entries, kinds)}. Pick a window (or merge everything) and press Merge.`
    : `${summaryText(state.entries, kinds)}: none of them holds a trace.`);
  if (traces && then !== 'none') scan(gen, then === 'scan-merge');
}

// A scan reads every file once in the worker: the job's time span, its steps, each file's
// clock and the overview. All files, whatever is ticked: unticking only hides a lane. A
// merge asked for meanwhile starts when it ends (one worker, one job at a time).
async function scan(gen, thenMerge = false) {
  const token = ++state.scans;  // a rescan replaces this one: its late answer is dropped
  const current = () => gen === state.generation && token === state.scans && state.scanning;
  state.scanning = true;
  renderJobSummary();
  const align = el.align.value;
  await nextTask();  // (the table was drawn in this task: the files go to the worker in the next)
  if (!current()) return;
  try {
    const files = state.entries.map(sourceOf);
    const summary = summaryText(state.entries, kinds);
    const r = await client.merge(files, { scan: true, ...(align !== 'none' ? { align } : {}) }, {
      onProgress: (p) => {
        if (current() && p.bytesTotal) {
          el.jobSummary.textContent = `${summary} · scanning the job… ${Math.floor((100 * p.bytesDone) / p.bytesTotal)}%`;
        }
      },
    });
    await nextTask();
    if (!current()) return;
    state.report = r.result.report;
    applyReport(r.result.report);
    await nextTask();  // (the overview of 20 000 sources is a task of its own: ~0.1 s)
    if (!current()) return;
    jobView.show(r.result.report);
    await nextTask();  // (then the table)
  } catch (e) {
    if (current() && e.code !== 'CANCELLED') state.scanProblem = errorText(e, rules?.codes);
  } finally {
    if (current()) {
      state.scanning = false;
      for (const e of state.entries) e.scanning = false;
      renderAll();
      const asked = state.mergeAfterScan;
      state.mergeAfterScan = false;
      if (thenMerge || asked) runMerge();
    }
  }
}

function rescan() {
  if (state.merging || !state.entries.length || state.classifying) return;
  resultIsStale();
  stopScan();
  scan(state.generation);
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
  for (const s of report.sources) {
    const e = state.byName.get(s.path);
    if (e && !s.piece) e.source = s;  // (a file of several ranks is a source per rank: its row shows the first)
  }
}

// ---- rendering ---------------------------------------------------------------------------------
// The file table: every file, or — hundreds of them — a row per kind and host until asked.
function drawFiles() {
  const folded = state.entries.length > FOLD_FILES && !state.filesOpen;
  renderFiles(el.files.tBodies[0], state.entries, kinds, state.kindOn, onRowChange, rules.offsetUs,
    { folded, onUnfold: () => { state.filesOpen = true; drawFiles(); } });
}

function renderAll() {
  if (!kinds) return;
  renderKinds(el.kinds, state.entries, kinds, state.kindOn, (key, on) => {
    state.kindOn.set(key, on);
    drawFiles();
    onRowChange('kind');
  });
  drawFiles();
  renderJobSummary();
  renderWindow();
  updateMergeButton();
}

// A result belongs to the files and options it was merged with: once they change, it goes
// (its download with it), and the status says why.
function resultIsStale() {
  if (!state.merged || state.merging) return;
  clearResult();
  jobView.setMerged(null);
  setStatus('idle', 'The files or options changed since the last merge: press Merge for a result with them.');
}

// A ticked file, a kind or an offset changed: the overview hides or moves lanes (no rescan).
function onRowChange(what) {
  resultIsStale();
  if (what === 'include') {
    el.allFiles.checked = state.entries.every((e) => e.include);
    el.allFiles.indeterminate = !el.allFiles.checked && state.entries.some((e) => e.include);
  }
  renderJobSummary();
  updateMergeButton();
  jobView.refresh();
}

function renderJobSummary() {
  if (!kinds) return;
  const parts = [summaryText(state.entries, kinds)];
  const job = state.job;
  if (job && job.start_us !== undefined) {
    parts.push(job.clock === false ? `job of ${duration(job.end_us - job.start_us)}, times relative: no file has a clock`
      : `job ${utcFromMicros(job.start_us)} → ${utcFromMicros(job.end_us)} (${duration(job.end_us - job.start_us)})`);
    parts.push(job.steps?.length ? `${plural(job.steps.length, 'step')} ${stepList(job)} (${job.steps_from})` : 'no steps');
  } else if (state.scanning) {
    parts.push('scanning the job…');
  }
  if (state.scanProblem) parts.push(`scan failed: ${state.scanProblem}`);
  el.jobSummary.textContent = parts.join(' · ');
}

function currentWindow() {
  return readWindow(rules, el.unit.value, el.start.value, el.end.value, state.job);
}

function renderWindow() {
  if (!rules) return;
  const w = currentWindow();
  renderWindowFields(el, w, state.job);
  jobView.setWindow(w.preview, el.unit.value === 'step' ? w.preview?.start_step ?? null : null);
}

// The overview or the steps panel picked a window: { unit, start, end } or { step }.
function pickWindow(w) {
  const pick = w.step !== undefined ? stepWindow(w.step, state.job) : w;
  el.unit.value = pick.unit;
  el.start.value = pick.start;
  el.end.value = pick.end;
  resultIsStale();
  renderWindow();
}

function clearResult() {
  state.merged = null;
  el.result.hidden = true;
  el.problems.hidden = true;
  el.summaryDetails.hidden = true;
  el.perfettoNote.textContent = '';
  el.perfettoSize.hidden = true;
  viewer.reset();
  updateResultButtons();
}

// ---- merging -----------------------------------------------------------------------------
async function runMerge() {
  if (state.merging || el.merge.disabled || !rules) return;
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
  // A scan running: the merge waits for it (one worker, one job at a time) — the overview
  // it draws is not thrown away by a click.
  if (state.scanning) {
    state.mergeAfterScan = true;
    setStatus('merging', 'Merging as soon as the scan of the files ends…');
    return;
  }
  const files = selectedFiles(state.entries);
  const options = mergeOptions(el, w, { kinds, kindOn: state.kindOn, entries: state.entries });
  const gen = state.generation;
  stopScan();
  clearResult();
  setBusy(true);
  const progress = createProgress(el.progress, el.progressText, files);
  setStatus('merging', `Merging ${plural(files.length, 'file')}…`);
  const started = performance.now();
  const bytesIn = state.entries.reduce((n, e) => n + (e.include ? e.size : 0), 0);
  try {
    const r = await client.merge(files, options, { onProgress: (p) => progress.update(p) });
    await nextTask();
    if (gen !== state.generation) return;
    progress.finish();
    const seconds = (performance.now() - started) / 1000;
    state.merged = { blob: r.blob, name: r.result.outputName, result: r.result, seconds, bytesIn };
    applyReport(r.result.report);
    for (const e of state.entries) e.scanning = false;
    renderAll();
    await nextTask();  // (then the result and its overview)
    if (gen !== state.generation) return;
    showResult();
    const what = `${r.result.outputName} (${bytes(r.result.bytesWritten)}) in ${duration(seconds * 1e6)}`;
    if (r.result.eventsWritten === 0) {
      setStatus('done', `Nothing in the window: wrote ${what} without events. Widen the window (the overview shows where the events are) or switch more kinds on.`, 'warning');
    } else {
      setStatus('done', `Merged ${plural(r.result.eventsWritten, 'event')} into ${what}.`);
    }
  } catch (e) {
    if (e.code === 'CANCELLED') {
      setStatus('idle', 'Merge cancelled. Nothing was written; press Merge to start again.');
    } else {
      setStatus('error', `Could not merge: ${errorText(e, rules?.codes)}`);
      if (e.result?.report) renderProblems(el, e.result.report.warnings, rules?.codes);
    }
  } finally {
    setBusy(false);
  }
}

function showResult() {
  showMerged(el, state.merged, state.job, rules.codes);
  jobView.setMerged(state.merged.result.report, state.merged.result.eventsWritten);
  updateResultButtons();
  viewer.showAddress();
}

function download() {
  if (state.merged) saveBlob(state.merged.blob, state.merged.name);
}

// ---- the notebook helper's preloaded files -----------------------------------------------
async function loadPreload() {
  const data = readPreload();
  if (!data) return;
  document.body.classList.add('embedded');  // the notebook's cell: result first (style.css)
  await ready;
  applyOptions(el, data.options, { kinds, kindOn: state.kindOn });
  await load(data.files, { then: 'none' });
  const offsets = Object.entries(data.options.offsets ?? {});
  for (const e of state.entries) {
    for (const [pattern, us] of offsets) if (rules.pathMatches(e.name, pattern)) e.offset = String(us);
  }
  renderAll();
  scan(state.generation, data.merge);
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
    load(list, { then: 'scan-merge' });
  });
  el.clear.addEventListener('click', () => {
    stopScan();
    state.generation++;
    state.entries = [];
    state.byName = new Map();
    state.job = null;
    state.report = null;
    jobView.clear();
    clearResult();
    el.job.hidden = true;
    renderWindow();
    updateMergeButton();
    setStatus('idle', 'Choose a folder or files to begin.');
    el.chooseFolder.focus();
  });
  el.allFiles.addEventListener('change', () => {
    for (const e of state.entries) e.include = el.allFiles.checked;
    drawFiles();
    onRowChange('all');
  });
  for (const input of [el.unit, el.start, el.end]) input.addEventListener('input', renderWindow);
  el.unit.addEventListener('change', renderWindow);
  for (const input of [el.unit, el.start, el.end, el.group, el.gzip]) {
    input.addEventListener('input', resultIsStale);
    input.addEventListener('change', resultIsStale);
  }
  el.align.addEventListener('change', rescan);
  el.merge.addEventListener('click', runMerge);
  for (const input of [el.start, el.end]) {
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !el.merge.disabled) runMerge(); });
  }
  el.cancel.addEventListener('click', () => client.cancel());
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.merging && !e.defaultPrevented) client.cancel();
  });
  el.download.addEventListener('click', download);
  initDrop(el.dropOverlay, {
    busy: () => state.merging,
    onFiles: (list) => load(list),
    onError: (err) => setStatus('error', `Could not read the dropped items: ${err.message}`),
  });
  updateMergeButton();
  loadPreload().catch((e) => setStatus('error', `Could not load the embedded files: ${e.message}`));
}

init();
// For scripts and tests: the page's state, read-only by convention; the overview's geometry.
window.tracemerge = { state, get client() { return client; }, overview: jobView.overview };
