// The list of files found: one row per file (include checkbox, path, kind, size, node,
// clock, offset), and the kind checkboxes (the CLI's --only suffix filter).
// An entry: { name, file, size, kind, node, reason, include, offset, source }
//   kind: what classifyFile said; source: the scan/merge report's row for this path.
import { bytes, count, plural } from './format.mjs';

/**
 * A row of the table, as app.mjs makes it (size, kind, node and reason once classified; source after a scan).
 * @typedef {{ name: string, file: File, bytes: Uint8Array | null, inFolder: boolean, size: number | null,
 *   kind: string, node: string, reason: string, include: boolean, offset: string, source: SourceReport | null,
 *   scanning: boolean, offsetInvalid?: boolean }} Entry
 */
/**
 * The kinds of the suffix filter, with the table's labels (kindSet()'s answer).
 * @typedef {{ list: { key: string, only: string, label: string }[], label: (kind: string) => string | undefined,
 *   filterable: (kind: string) => boolean }} KindSet
 */

/**
 * The kinds of the suffix filter come from the core (rules.kinds, from kindTable()):
 *   kinds = kindSet(rules.kinds); kinds.list → [{ key, only, label }, …]; kinds.label('tf_metadata')
 * @param {{ key: string, only: string, label: string }[]} list kindTable()'s rows
 * @returns {KindSet} label(kind) also names the kinds the filter does not know (tf_metadata, skipped)
 */
export function kindSet(list) {
  const label = Object.fromEntries(list.map((k) => [k.key, k.label]));
  // Not kinds of the filter: how the table names the files it shows but cannot filter.
  label.tf_metadata ??= 'TF clock (.metadata)';
  label.skipped ??= 'skipped';
  return {
    list,
    label: (kind) => label[kind],
    filterable: (kind) => list.some((k) => k.key === kind),
  };
}

const h = (tag, props = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v);
  }
  el.append(...children.filter((c) => c !== null && c !== undefined));
  return el;
};
/**
 * h(tag, props, ...children) → a new element: props are its class, dataset, properties (values not
 * strings) and attributes; null and undefined children are left out.
 *   h('td', { class: 'path' }, 'job/', h('span', {}, 'a.json'))
 * @type {(tag: string, props?: Record<string, unknown>, ...children: (Node | string | null | undefined)[]) => HTMLElement}
 */
export { h };

/**
 * --only values, or undefined when every kind is on (the CLI's default: no --only).
 * @param {KindSet} kinds
 * @param {Map<string, boolean>} kindOn whether each kind (by key) is on
 * @returns {string[] | undefined}
 */
export function onlyOption(kinds, kindOn) {
  if (kinds.list.every((k) => kindOn.get(k.key))) return undefined;
  return kinds.list.filter((k) => kindOn.get(k.key)).map((k) => k.only);
}

/**
 * Why a merge of these entries would have no trace to merge, or '' when it would have one
 * (a file that holds a trace, ticked, of a kind that is on).
 * @param {Entry[]} entries
 * @param {KindSet} kinds
 * @param {Map<string, boolean>} kindOn
 * @returns {string}
 */
export function nothingToMerge(entries, kinds, kindOn) {
  if (!entries.length) return 'Choose a folder or files first.';
  const traces = entries.filter((e) => kinds.filterable(e.kind));
  if (!traces.length) return 'No file here holds a trace: there is nothing to merge.';
  if (!traces.some((e) => e.include)) return 'No file with a trace is selected in the table.';
  if (!traces.some((e) => e.include && kindOn.get(e.kind) !== false)) return 'Every kind with files is switched off under "Kinds to merge".';
  return '';
}

/**
 * The files handed to the merge: the checked ones. Skipped files and TF .metadata sidecars
 * stay in by default (the sidecar carries the TF clock; the report lists skipped files).
 * @param {Entry[]} entries
 * @returns {{ name: string, data: File | Uint8Array, inFolder: boolean }[]} as sourceOf()
 */
export function selectedFiles(entries) {
  return entries.filter((e) => e.include).map(sourceOf);
}

/**
 * What the worker is handed for an entry: its bytes when the page kept them (a small file, read
 * for its kind), else the File.
 * @param {Entry} e
 * @returns {{ name: string, data: File | Uint8Array, inFolder: boolean }} a FileLike
 */
export function sourceOf(e) {
  return { name: e.name, data: e.bytes ?? e.file, inFolder: !!e.inFolder };
}

/**
 * The offsets option (MergeOptions.offsets): the checked entries' offsets by path, those set only.
 * @param {Entry[]} entries
 * @returns {Record<string, string>} path → whole µs, as typed and read by the core
 */
export function offsetsOption(entries) {
  const out = {};
  for (const e of entries) if (e.include && e.offset !== '' && e.offset !== undefined) out[e.name] = e.offset;
  return out;
}

/**
 * Renders the kind checkboxes, one per kind of the filter with its count of files; onChange(key,
 * on) when one is ticked or unticked.
 * @param {HTMLFieldSetElement} fieldset its labels are replaced
 * @param {Entry[]} entries
 * @param {KindSet} kinds
 * @param {Map<string, boolean>} kindOn
 * @param {(key: string, on: boolean) => void} onChange
 * @returns {void}
 */
export function renderKinds(fieldset, entries, kinds, kindOn, onChange) {
  const counts = new Map();
  for (const e of entries) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  fieldset.querySelectorAll('label').forEach((l) => l.remove());
  for (const k of kinds.list) {
    const n = counts.get(k.key) ?? 0;
    const box = h('input', { type: 'checkbox', checked: kindOn.get(k.key), dataset: { kind: k.key } });
    box.addEventListener('change', () => onChange(k.key, box.checked));
    fieldset.append(h('label', { class: n ? '' : 'none', title: `--only ${k.only}` },
      box, k.label, h('span', { class: 'count' }, `(${n})`)));
  }
}

function clockCell(e) {
  const s = e.source;
  const cell = (props, ...content) => h('td', { ...props, 'data-label': 'Clock' }, ...content);
  if (e.kind === 'skipped' || e.kind === 'tf_metadata') return cell({ class: 'empty' }, '');
  if (!s) return cell({ class: `clock hint${e.scanning ? '' : ' empty'}` }, e.scanning ? 'scanning…' : '');
  if (s.kind === 'skipped') return cell({ class: 'empty' }, '');
  if (!s.absolute) {
    return cell({ class: 'clock none', title: s.time_base }, s.placed_us ? 'none — placed at the job start; set an offset' : 'none — set an offset');
  }
  // The core's name for its time base, and why that one where there was a choice (a TF
  // trace among its step folder's sidecars: "algo-2's: its Horovod ops line up").
  return cell({ class: 'clock', title: s.time_base }, s.time_base_label,
    s.time_base_why ? h('span', { class: 'hint why' }, ` — ${s.time_base_why}`) : null);
}

// The node the file names — or, a file of several ranks merged (its events say their rank), how many.
function nodeCell(e) {
  const node = e.source?.pieces > 1 ? `${e.source.pieces} ranks` : e.node || '';
  const title = e.source?.pieces > 1 ? 'its events say their rank (args.rank): each rank is read as a source of its own' : node;
  return h('td', { class: `node mono${node ? '' : ' empty'}`, title, 'data-label': 'Node' }, node);
}

function pathCell(name) {
  const i = name.lastIndexOf('/');
  return h('td', { class: 'path' }, i >= 0 ? h('span', { class: 'dir' }, name.slice(0, i + 1)) : null, name.slice(i + 1));
}

/**
 * Hundreds of files (a 1 024-rank job): the table shows them by kind and host, a row each,
 * until the user asks for every file; past FOLD_ROWS rows, the last one holds the rest.
 * FOLD_FILES: the most files the table shows a row each without being asked.
 * @type {number}
 */
export const FOLD_FILES = 100;
const FOLD_ROWS = 200;

// The host the scan found a file on ('' before the scan, or when nothing says it: a generic
// trace). The classification's node is no host: a generic trace's is its file name.
const hostOf = (e) => e.source?.identity?.host ?? '';
// A sum of sizes, '' while one is not known yet (it is read with the kind).
const sizeText = (list) => (list.every((e) => e.size !== null) ? bytes(list.reduce((n, e) => n + e.size, 0)) : '');

// The rows of a folded table: per kind and host — the files without a host one row per
// kind —, how many files and bytes, with a box that takes or leaves them all.
function foldedRows(entries, kinds, onChange, onUnfold) {
  const groups = new Map();
  for (const e of entries) {
    const host = hostOf(e);
    const key = `${e.kind}\u0000${host}`;
    if (!groups.has(key)) groups.set(key, { kind: e.kind, host, list: [] });
    groups.get(key).list.push(e);
  }
  let list = [...groups.values()];
  if (list.length > FOLD_ROWS) {
    const rest = list.splice(FOLD_ROWS - 1);
    const kindsThere = new Set(rest.map((g) => g.kind));
    list.push({ kind: kindsThere.size === 1 ? rest[0].kind : '', host: `${count(rest.length)} more hosts`, list: rest.flatMap((g) => g.list), rest: true });
  }
  const scanning = entries.some((e) => e.scanning);
  const rows = list.map((g) => {
    const all = g.list.every((e) => e.include);
    const kindText = g.rest && !g.kind ? 'several kinds' : kinds.label(g.kind) ?? (g.kind || '…');
    const hostText = g.host || (scanning ? '…' : 'no host');
    const box = h('input', { type: 'checkbox', checked: all, 'aria-label': `Include the ${g.list.length} ${g.rest ? '' : `${kindText} `}files of ${g.host || 'no host'}` });
    box.indeterminate = !all && g.list.some((e) => e.include);
    box.addEventListener('change', () => {
      for (const e of g.list) e.include = box.checked;
      onChange('include', -1);
    });
    return h('tr', { class: 'folded' },
      h('td', { class: 'c-check' }, box),
      h('td', { class: 'path' }, `${plural(g.list.length, 'file')}`),
      h('td', { 'data-label': 'Kind' }, h('span', { class: `kind ${g.kind}` }, kindText)),
      h('td', { class: 'c-num', 'data-label': 'Size' }, sizeText(g.list)),
      h('td', { class: g.host ? 'node mono' : 'node hint', 'data-label': 'Host' }, hostText),
      h('td', { class: 'empty' }, ''), h('td', { class: 'c-offset empty' }));
  });
  const open = h('button', { type: 'button', class: 'small', 'data-testid': 'show-all-files' }, `Show all ${count(entries.length)} files`);
  open.addEventListener('click', onUnfold);
  rows.push(h('tr', { class: 'folded-more' }, h('td', { colspan: '7' }, open)));
  return rows;
}

/**
 * Renders every row; calls onChange(what, index) after the user changes a row (the row
 * updates itself: re-rendering would take the focus away from an offset being typed);
 * offsetUs(text) is the core's reading of an offset (rules.offsetUs). fold: { folded,
 * onUnfold } — folded, the rows are per kind and host (foldedRows).
 * @param {HTMLTableSectionElement} tbody its rows are replaced
 * @param {Entry[]} entries
 * @param {KindSet} kinds
 * @param {Map<string, boolean>} kindOn
 * @param {(what: 'include' | 'offset', index: number) => void} onChange index -1: a folded row's files
 * @param {(text: string) => string | null} offsetUs
 * @param {{ folded?: boolean, onUnfold?: () => void }} [fold]
 * @returns {void}
 */
export function renderFiles(tbody, entries, kinds, kindOn, onChange, offsetUs, fold = {}) {
  if (fold.folded) {
    tbody.replaceChildren(...foldedRows(entries, kinds, onChange, fold.onUnfold));
    return;
  }
  // Keep the focus (and the caret) where it was: a scan may finish while the user types.
  const active = tbody.contains(document.activeElement) ? document.activeElement : null;
  const focus = active && { label: active.getAttribute('aria-label'), caret: active.selectionStart ?? null };
  const rows = entries.map((e, i) => {
    const include = h('input', { type: 'checkbox', checked: e.include, 'aria-label': `Include ${e.name}` });
    include.addEventListener('change', () => {
      e.include = include.checked;
      tr.classList.toggle('excluded', !e.include);  // eslint-disable-line no-use-before-define
      onChange('include', i);
    });
    // (a file the scan found not to be a trace says so at once, not when the merge leaves it out)
    const rejected = e.kind !== 'skipped' && e.source?.included === false && e.source?.note ? e.source.note : '';
    const reason = e.kind === 'skipped' ? (e.reason || e.source?.note || '') : rejected;
    const kindText = kinds.label(e.kind) ?? (e.kind || '…');
    let offsetCell = h('td', { class: 'c-offset empty' });
    if (kinds.filterable(e.kind)) {
      const input = h('input', { type: 'text', inputMode: 'numeric', value: e.offset ?? '', placeholder: '0',
        'aria-label': `Clock offset of ${e.name} in µs`, autocomplete: 'off', spellcheck: 'false' });
      input.addEventListener('input', () => {
        const v = input.value.trim();
        const us = v === '' ? '' : offsetUs(v);  // the core's reading of --offset PATH=US
        const ok = us !== null;
        input.setAttribute('aria-invalid', String(!ok));
        e.offset = ok ? us : '';
        e.offsetInvalid = !ok;
        onChange('offset', i);
      });
      offsetCell = h('td', { class: 'c-offset', 'data-label': 'Offset µs' }, input);
    }
    const off = kinds.filterable(e.kind) && !kindOn.get(e.kind);
    const tr = h('tr', { class: [off ? 'off' : '', e.include ? '' : 'excluded'].join(' ').trim() },
      h('td', { class: 'c-check' }, include),
      pathCell(e.name),
      h('td', { 'data-label': 'Kind' }, h('span', { class: `kind ${rejected ? 'skipped' : e.kind}` }, kindText), reason ? h('span', { class: 'hint' }, ` — ${reason}`) : null),
      h('td', { class: 'c-num', 'data-label': 'Size' }, bytes(e.size)),
      nodeCell(e),
      clockCell(e),
      offsetCell);
    if (off) tr.title = `${kinds.label(e.kind)} is switched off in "Kinds to merge"`;
    return tr;
  });
  tbody.replaceChildren(...rows);
  if (focus?.label) {
    const again = [...tbody.querySelectorAll('[aria-label]')].find((n) => n.getAttribute('aria-label') === focus.label);
    again?.focus();
    if (again && focus.caret !== null && 'setSelectionRange' in again && again.type === 'text') again.setSelectionRange(focus.caret, focus.caret);
  }
}

/**
 * "20,000 files (1.82 MB): 20,000 traces · 19,700 selected" — one pass: it is said again
 * at every change of the table.
 * @param {Entry[]} entries
 * @param {KindSet} kinds
 * @returns {string}
 */
export function summaryText(entries, kinds) {
  let total = 0;
  let sized = true;
  let chosen = 0;
  let traces = 0;
  let skipped = 0;
  for (const e of entries) {
    if (e.size === null) sized = false;
    else total += e.size;
    chosen += e.include;
    traces += kinds.filterable(e.kind);
    skipped += e.kind === 'skipped';
  }
  return `${plural(entries.length, 'file')}${sized ? ` (${bytes(total)})` : ''}: ${plural(traces, 'trace')}` +
    (skipped ? `, ${count(skipped)} skipped` : '') +
    (chosen !== entries.length ? ` · ${count(chosen)} selected` : '');
}
