// The list of files found: one row per file (include checkbox, path, kind, size, node,
// clock, offset), and the kind checkboxes (the CLI's --only suffix filter).
// An entry: { name, file, size, kind, node, reason, include, offset, source }
//   kind: what classifyFile said; source: the scan/merge report's row for this path.
import { bytes, count } from './format.mjs';

// The kinds the suffix filter knows, with the --only value of each.
export const KINDS = [
  { key: 'pythontimeline', label: 'pythontimeline', only: 'pythontimeline.json' },
  { key: 'model_timeline', label: 'model_timeline', only: 'model_timeline.json' },
  { key: 'tf_trace', label: 'TF trace', only: 'trace.json.gz' },
  { key: 'horovod', label: 'horovod', only: 'horovod_timeline.json' },
  { key: 'system', label: 'system metrics', only: 'system' },
  { key: 'trace', label: 'other trace', only: 'other' },
];
const KIND_LABEL = Object.fromEntries(KINDS.map((k) => [k.key, k.label]));
KIND_LABEL.tf_metadata = 'TF clock (.metadata)';
KIND_LABEL.skipped = 'skipped';

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
export { h };

const filterable = (kind) => KINDS.some((k) => k.key === kind);

// --only values, or undefined when every kind is on (the CLI's default: no --only).
export function onlyOption(kindOn) {
  if (KINDS.every((k) => kindOn.get(k.key))) return undefined;
  return KINDS.filter((k) => kindOn.get(k.key)).map((k) => k.only);
}

// The files handed to the merge: the checked ones. Skipped files and TF .metadata sidecars
// stay in by default (the sidecar carries the TF clock; the report lists skipped files).
export function selectedFiles(entries) {
  return entries.filter((e) => e.include).map((e) => ({ name: e.name, data: e.file, inFolder: !!e.inFolder }));
}

export function offsetsOption(entries) {
  const out = {};
  for (const e of entries) if (e.include && e.offset !== '' && e.offset !== undefined) out[e.name] = e.offset;
  return out;
}

export function renderKinds(fieldset, entries, kindOn, onChange) {
  const counts = new Map();
  for (const e of entries) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  fieldset.querySelectorAll('label').forEach((l) => l.remove());
  for (const k of KINDS) {
    const n = counts.get(k.key) ?? 0;
    const box = h('input', { type: 'checkbox', checked: kindOn.get(k.key), dataset: { kind: k.key } });
    box.addEventListener('change', () => onChange(k.key, box.checked));
    fieldset.append(h('label', { class: n ? '' : 'none', title: `--only ${k.only}` },
      box, k.label, h('span', { class: 'count' }, `(${n})`)));
  }
}

function clockCell(e) {
  const s = e.source;
  if (e.kind === 'skipped' || e.kind === 'tf_metadata') return h('td', {}, '');
  if (!s) return h('td', { class: 'clock hint' }, e.scanning ? 'scanning…' : '');
  if (s.kind === 'skipped') return h('td', {}, '');
  if (!s.absolute) return h('td', { class: 'clock none', title: s.time_base }, 'none — set an offset');
  const short = s.time_base.replace(/^smdebug header .*/, 'smdebug header')
    .replace(/^TF sidecar .*/, 'TF .metadata').replace(/=.*$/, '');
  return h('td', { class: 'clock', title: s.time_base }, short);
}

function pathCell(name) {
  const i = name.lastIndexOf('/');
  return h('td', { class: 'path' }, i >= 0 ? h('span', { class: 'dir' }, name.slice(0, i + 1)) : null, name.slice(i + 1));
}

// Renders every row; calls onChange(what, index) after the user changes a row (the row
// updates itself: re-rendering would take the focus away from an offset being typed).
export function renderFiles(tbody, entries, kindOn, onChange) {
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
    const reason = e.kind === 'skipped' ? (e.reason || e.source?.note || '') : '';
    const kindText = KIND_LABEL[e.kind] ?? (e.kind || '…');
    let offsetCell = h('td', { class: 'c-offset' });
    if (filterable(e.kind)) {
      const input = h('input', { type: 'text', inputMode: 'numeric', value: e.offset ?? '', placeholder: '0',
        'aria-label': `Clock offset of ${e.name} in µs`, autocomplete: 'off', spellcheck: 'false' });
      input.addEventListener('input', () => {
        const v = input.value.trim();
        const ok = v === '' || /^-?\d+$/.test(v);
        input.setAttribute('aria-invalid', String(!ok));
        e.offset = ok ? v : '';
        e.offsetInvalid = !ok;
        onChange('offset', i);
      });
      offsetCell = h('td', { class: 'c-offset' }, input);
    }
    const off = filterable(e.kind) && !kindOn.get(e.kind);
    const tr = h('tr', { class: [off ? 'off' : '', e.include ? '' : 'excluded'].join(' ').trim() },
      h('td', { class: 'c-check' }, include),
      pathCell(e.name),
      h('td', {}, h('span', { class: `kind ${e.kind}` }, kindText), reason ? h('span', { class: 'hint' }, ` — ${reason}`) : null),
      h('td', { class: 'c-num' }, bytes(e.size)),
      h('td', { class: 'node mono', title: e.node || '' }, e.node || ''),
      clockCell(e),
      offsetCell);
    if (off) tr.title = `${KIND_LABEL[e.kind]} is switched off in "Kinds to merge"`;
    return tr;
  });
  tbody.replaceChildren(...rows);
  if (focus?.label) {
    const again = [...tbody.querySelectorAll('[aria-label]')].find((n) => n.getAttribute('aria-label') === focus.label);
    again?.focus();
    if (again && focus.caret !== null && 'setSelectionRange' in again && again.type === 'text') again.setSelectionRange(focus.caret, focus.caret);
  }
}

export function summaryText(entries) {
  const total = entries.reduce((n, e) => n + e.size, 0);
  const chosen = entries.filter((e) => e.include);
  const traces = entries.filter((e) => filterable(e.kind)).length;
  const skipped = entries.filter((e) => e.kind === 'skipped').length;
  return `${count(entries.length)} file${entries.length === 1 ? '' : 's'} (${bytes(total)}): ${count(traces)} trace${traces === 1 ? '' : 's'}` +
    (skipped ? `, ${count(skipped)} skipped` : '') +
    (chosen.length !== entries.length ? ` · ${count(chosen.length)} selected` : '');
}
