// The page's elements by id, camel-cased: el.mergeReason is #merge-reason. One list, so that a
// renamed id fails here, at load, rather than later in a handler.
const $ = (id) => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
};
/**
 * The page's elements by id, camel-cased: el.mergeReason is #merge-reason (a missing id throws at load).
 * @type {Record<string, HTMLElement>}
 */
export const el = Object.fromEntries([
  'drop-overlay', 'choose-folder', 'choose-files', 'sample', 'folder-input', 'file-input', 'job', 'job-summary',
  'clear', 'kinds', 'files', 'all-files', 'unit', 'start', 'end', 'align', 'start-hint', 'end-hint', 'unit-hint', 'group',
  'gzip', 'window-before', 'merge', 'cancel', 'merge-reason', 'progress-row', 'progress', 'progress-text', 'status',
  'result', 'window-after', 'stats', 'download', 'open-perfetto', 'show-perfetto', 'perfetto-note', 'perfetto-size',
  'perfetto-status', 'perfetto-status-text', 'perfetto-actions', 'perfetto-download', 'perfetto-settings', 'problems',
  'problems-title', 'warnings', 'skipped-details', 'skipped-summary', 'skipped', 'summary-details', 'summary', 'viewer',
  'viewer-note', 'close-viewer', 'perfetto-frame', 'settings', 'perfetto-url', 'save-perfetto', 'reset-perfetto',
  'perfetto-setting-note', 'perfetto-confirm', 'perfetto-confirm-text', 'perfetto-allow', 'version', 'overview-card', 'overview', 'overview-desc', 'overview-live', 'overview-caption',
  'steps-panel', 'fold-note', 'skew', 'skew-list', 'align-clocks', 'aligned-note', 'zoom-in', 'zoom-out', 'zoom-fit',
].map((id) => [id.replace(/-(\w)/g, (_, c) => c.toUpperCase()), $(id)]));
