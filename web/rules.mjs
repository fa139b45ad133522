// The core's rules, asked of the core itself so that the page and the CLI cannot disagree:
// in which order files are read, how a window resolves (units, date-times, steps), how an
// offset's PATH picks a source and what its µs may be, which kinds the suffix filter knows,
// and what each error code means (its severity, and whether its offset is a byte of the
// file). The page restates none of them.
//   const rules = await loadRules();
//   rules.preview({ unit: 'step', start: '2', end: '4' }, job.steps)
//     → { error: null, fatal: null, bounded: true, start_us, end_us, start_step: 2, end_step: 4 }
//   rules.pathMatches('job/a/rank-1.json', 'rank-1.json') → true
//   rules.offsetUs('-1500') → '-1500', rules.offsetUs('1.5') → null (an offset is whole µs)
//   rules.order(['job/b.json', 'job/a/x.json']) → [1, 0] (the order the CLIs read files in)
//   rules.kinds → [{ key: 'pythontimeline', only: 'pythontimeline.json', label: 'pythontimeline' }, …]
//   rules.codes.get('TRUNCATED') → { code: 'TRUNCATED', severity: 'warning', offset: 'byte' }
//   rules.version → '0.1.0' (the footer's)
// The hosted page loads ./wasm/tracemerge.mjs; the single-file build bundles the same module
// (its core is the inlined classic script), so both pages ask the same code.
import { codeTable, fileOrder, kindTable, loadCore, offsetUs, pathMatches, previewWindow } from './wasm/tracemerge.mjs';

/**
 * Loads the core and returns its rules (see the top of this file), bound to it.
 * @returns {Promise<{ preview: (window: { unit?: 'time' | 'step', start?: string | number, end?: string | number },
 *   steps?: [number, number][]) => ReturnType<typeof previewWindow>, pathMatches: (path: string, pattern: string) => boolean,
 *   offsetUs: (text: string) => string | null, order: (names: string[]) => number[],
 *   kinds: { key: string, only: string, label: string }[],
 *   codes: Map<ErrorCode, { code: ErrorCode, severity: 'error' | 'warning' | 'note', offset: 'byte' | 'byte_when_set' | 'nothing' }>,
 *   version: string }>} version: the CMake project's
 */
export async function loadRules() {
  const core = await loadCore();
  return {
    preview: (window, steps) => previewWindow(core, window, steps ?? []),
    pathMatches: (path, pattern) => pathMatches(core, path, pattern),
    offsetUs: (text) => offsetUs(core, text),
    order: (names) => fileOrder(core, names),
    kinds: kindTable(core),
    codes: new Map(codeTable(core).map((c) => [c.code, c])),
    version: core.version,  // the CMake project's, as every artifact's
  };
}
