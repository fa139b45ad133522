// The Options card ↔ merge options, both ways: what the fields, the table and the URL ask
// for as the options of a merge (the CLI's names, see wasm/tracemerge.mjs optionsToArgs),
// and the notebook helper's options into the fields. Texts pass through unchanged: what
// they mean is the core's to say (rules.mjs).
//   mergeOptions(el, window, { kinds, kindOn, entries }) → { unit, start, end, align, only, offsets, … }
//   applyOptions(el, options, { kinds, kindOn })
import { offsetsOption, onlyOption } from './table.mjs';

export function mergeOptions(el, w, { kinds, kindOn, entries }) {
  // ?memory-mb=N: MB of events kept in the wasm heap (default 512), the rest outside it;
  // ?output-file=1|0: the output to the browser's private file system, or not (default:
  // for inputs over 256 MB).
  const q = new URLSearchParams(location.search);
  const mb = q.get('memory-mb');
  const file = q.get('output-file');
  const only = onlyOption(kinds, kindOn);
  const offsets = offsetsOption(entries);
  return {
    ...w.options,
    ...(el.align.value !== 'none' ? { align: el.align.value } : {}),
    ...(el.group.value !== 'source' ? { group: el.group.value } : {}),
    ...(only ? { only } : {}),
    ...(Object.keys(offsets).length ? { offsets } : {}),
    ...(el.gzip.checked ? { gzip: true } : {}),
    ...(mb !== null && /^\d+$/.test(mb) ? { memoryMb: Number(mb) } : {}),
    ...(file === '1' || file === '0' ? { outputFile: file === '1' } : {}),
  };
}

// The options as the notebook passed them (show(start="2020-07-13 17:50:18.5", …)).
export function applyOptions(el, o, { kinds, kindOn }) {
  if (o.unit) el.unit.value = o.unit;
  if (o.start !== undefined && o.start !== null) el.start.value = String(o.start);
  if (o.end !== undefined && o.end !== null) el.end.value = String(o.end);
  if (o.group) el.group.value = o.group;
  if (o.align) el.align.value = o.align;
  el.gzip.checked = !!o.gzip;
  if (Array.isArray(o.only) && o.only.length) {
    for (const k of kinds.list) kindOn.set(k.key, o.only.includes(k.only) || o.only.includes(k.key));
  }
}
