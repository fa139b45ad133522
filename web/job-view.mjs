// The overview card: the scanned job drawn (overview.mjs), its steps per node or rank
// (steps.mjs), the clock check (the report's clock_check: hosts whose clock is off, with
// a button that aligns the clocks, and hosts that could not be checked, with the reason),
// and, after a merge, what was merged.
//   const jv = createJobView(el, { onPick, onClear, onAlignClocks, lanes: () => ({ visible, shift, kindLabel }) });
//   jv.show(scanReport); jv.refresh(); jv.setWindow(preview); jv.setMerged(mergeReport, eventsWritten);
//   jv.setMerged(null) once that result is gone
import { count, duration, moment, plural } from './format.mjs';
import { buildModel, runTable } from './overview-model.mjs';
import { createOverview } from './overview.mjs';
import { renderSteps } from './steps.mjs';
import { h } from './table.mjs';

const NATURAL = new Intl.Collator('en', { numeric: true });  // host2 before host10
const SKEW_LINES = 6;  // clock lines shown before the rest fold

/**
 * The overview card on the page's elements (see the top of this file): onPick and onClear as the
 * overview's, onAlignClocks() from the clock check's button; lanes() says, at each redraw, which
 * sources are drawn, how far each is moved and what its kind is called.
 * @param {Record<string, HTMLElement>} el the page's elements (dom.mjs)
 * @param {{ onPick: (w: { unit: 'time', start: string, end: string } | { step: number }) => void, onClear: () => void,
 *   onAlignClocks: () => void, lanes: () => { visible?: (path: string) => boolean, shift?: (path: string) => number,
 *   kindLabel?: (kind: string) => string | undefined } }} handlers
 * @returns {{ show(scanReport: Report): void, clear(): void, refresh(): void, setWindow(preview: object | null, step: number | null): void,
 *   setMerged(mergeReport: Report | null, eventsWritten?: number): void, overview: ReturnType<typeof createOverview> }}
 */
export function createJobView(el, { onPick, onClear, onAlignClocks, lanes }) {
  let report = null;
  let model = null;
  let merged = null;
  let picked = null;  // the step the fields pick, marked in the steps panel
  // "rank 3 · host-b" as a merge's report names a source, for scan reports that do not
  // (the core names ranks while it plans tracks, which a scan does not do).
  const labels = new Map();
  const expanded = new Set();  // the hosts of a big job opened into their ranks
  const overview = createOverview(el.overview, {
    onPick,
    onClear,
    onToggleHost: (key) => {
      if (!expanded.delete(key)) expanded.add(key);
      refresh();
    },
    describe: (text) => { el.overviewLive.textContent = text; },
  });
  el.zoomIn.addEventListener('click', () => overview.zoom(0.5));
  el.zoomOut.addEventListener('click', () => overview.zoom(2));
  el.zoomFit.addEventListener('click', () => overview.fit());
  el.alignClocks.addEventListener('click', onAlignClocks);

  function refresh() {
    model = report ? buildModel(report, { ...lanes(), label: (path) => labels.get(path), expanded }) : null;
    el.overviewCard.hidden = !model;
    if (!model) return;
    overview.setModel(model);
    const sources = model.lanes.length;
    const groups = model.groups.length;
    const noClock = model.lanes.filter((l) => l.noClock).length;
    const job = report.job;
    const timed = job?.start_us !== undefined;
    el.overviewDesc.textContent = `${plural(sources, 'source')} on ${plural(groups, 'node or rank', 'nodes or ranks')}, ` +
      (!timed ? 'no event with a time, ' : job.clock === false
        ? `${duration(model.end - model.start)} of relative times (no file has a clock), `
        : `from ${moment(model.start, job)} to ${moment(model.end, job)} (${duration(model.end - model.start)}), `) +
      `${plural(model.steps.length, 'step')}${noClock ? `; ${plural(noClock, 'source')} without a clock of ${noClock === 1 ? 'its' : 'their'} own` : ''}. ` +
      'Drag across it, or use the arrow keys and Enter, to pick the window to merge.';
    // "128 hosts drawn folded, …", "The 19,700 sources without a host drawn as one lane", or both.
    const hosts = model.folded ? `${plural(model.folded, 'host')} drawn folded, each one lane for all its sources` : '';
    const none = model.noHost ? `${hosts ? 'and the' : 'The'} ${count(model.noHost)} sources without a host drawn as one lane` : '';
    el.foldNote.hidden = !hosts && !none;
    el.foldNote.textContent = hosts || none ? `${[hosts, none].filter(Boolean).join(', ')}: click a name on the overview to open it (and again to fold it).` : '';
    steps();
    caption();
  }

  function steps() {
    renderSteps(el.stepsPanel, report?.waits, { onPick: (s) => onPick({ step: s }), selected: picked, runs: runTable(model), job: report?.job });
  }

  function caption() {
    const job = report.job;
    const parts = [job?.start_us === undefined ? 'no event with a time was found'
      : job.clock === false ? '0 = the first event (no file has a clock)' : `0 = job start, ${moment(model.start, job)}`];
    if (!model.lanes.length) parts.push('no source with events is selected');
    if (merged) {
      parts.push(`dashed: the merged window, ${count(merged.events)} events written of ${count(merged.read)} read` +
        (merged.outside ? `, ${count(merged.outside)} outside the window` : ''));
    }
    el.overviewCaption.textContent = parts.join(' · ');
  }

  // The clock check, host by host: how far off (± its uncertainty, and its drift), from
  // what; or why it could not be told. Hosts without collectives go unmentioned.
  function skew() {
    const check = report?.clock_check;
    const hosts = check?.attempted ? check.hosts : [];
    const byName = (a, b) => NATURAL.compare(a.label, b.label);  // host2 before host10
    const checked = report.align === 'clocks' ? [] : hosts.filter((c) => c.status === 'checked');  // (else moved)
    const off = checked.filter((c) => c.skew && !c.relative).sort(byName);
    const placeable = checked.filter((c) => c.relative).sort(byName);  // no clock of its own; its collectives place it
    const unchecked = hosts.filter((c) => c.status === 'unchecked' && c.collectives).sort(byName);  // (without: nothing to check)
    const us = (x) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x)} µs`;
    el.skew.hidden = !off.length && !placeable.length && !unchecked.length;
    el.alignClocks.hidden = !off.length && !placeable.length;
    const lines = [
      ...off.map((c) => h('li', { class: 'skewed', 'data-host': c.host }, h('strong', {}, 'Clocks apart: '),
        `${c.label}'s clock is ${us(c.offset_us)} ± ${c.uncertainty_us} µs against ${c.reference}'s` +
        (c.rate_ppm !== undefined ? `, drifting ${c.rate_ppm > 0 ? '+' : ''}${c.rate_ppm} ± ${c.rate_uncertainty_ppm} ppm` : '') +
        ` (${count(c.anchors)} of ${count(c.matched)} ${c.from} ends agree).`)),
      ...placeable.map((c) => h('li', { class: 'skewed', 'data-host': c.host }, h('strong', {}, 'No clock: '),
        `${c.label} has no clock of its own; its ${c.from} line up with ${c.reference}'s ` +
        `(${count(c.anchors)} of ${count(c.matched)} ends agree): Align clocks places it by them.`)),
      ...unchecked.map((c) => h('li', { class: 'unchecked', 'data-host': c.host }, h('strong', {}, 'Not checked: '),
        `${c.label} — ${c.reason}.`))];
    // Many hosts: the first few, the rest folded (the overview stays in view).
    if (lines.length > SKEW_LINES) {
      const worst = Math.max(...off.map((c) => Math.abs(c.offset_us)), 0);
      const rest = lines.splice(SKEW_LINES - 1);
      lines.push(h('li', { class: 'more' }, h('details', {}, h('summary', {},
        `${plural(rest.length, 'more host')}${off.length ? ` (clocks up to ${worst} µs apart in all)` : ''}`), h('ul', {}, ...rest))));
    }
    el.skewList.replaceChildren(...lines);
    const moved = (report?.sources ?? []).filter((s) => s.aligned_us);
    el.alignedNote.hidden = !moved.length;
    if (moved.length) {
      const by = new Map();
      for (const s of moved) by.set(s.label || labels.get(s.path) || s.node || s.path, s.aligned_us);
      el.alignedNote.textContent = `Aligned (${report.align}): ` +
        [...by].map(([who, us]) => `${who} moved ${us > 0 ? '+' : ''}${us} µs`).join(', ') + '.';
    }
  }

  return {
    show(scanReport) {
      report = scanReport;
      merged = null;
      overview.setMerged(null);
      skew();
      refresh();
    },
    clear() {
      report = null;
      merged = null;
      labels.clear();
      expanded.clear();
      refresh();
    },
    refresh,
    setWindow(preview, step) {
      overview.setWindow(preview);
      if (picked !== step) {
        picked = step;
        if (model) steps();
      }
    },
    setMerged(mergeReport, eventsWritten) {
      if (!mergeReport) {  // (the result went: the files or options changed)
        merged = null;
        overview.setMerged(null);
        if (model) caption();
        return;
      }
      const used = mergeReport.sources.filter((s) => s.included);
      merged = {
        events: eventsWritten,
        read: used.reduce((n, s) => n + (s.events ?? 0), 0),
        outside: used.reduce((n, s) => n + (s.outside_window ?? 0), 0),
      };
      overview.setMerged({ start_us: mergeReport.window?.start_us, end_us: mergeReport.window?.end_us });
      // The model changes where the merge names a source the scan did not name (a rank):
      // 20 000 sources named alike by both are no reason to rebuild it.
      const named = new Set((report?.sources ?? []).filter((s) => s.label).map((s) => s.path));
      let renamed = false;
      for (const s of mergeReport.sources) {
        if (!s.label || labels.get(s.path) === s.label) continue;
        labels.set(s.path, s.label);
        renamed ||= !named.has(s.path);
      }
      if (renamed) refresh();
      else if (model) caption();
    },
    overview,
  };
}
