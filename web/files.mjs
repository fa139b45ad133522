// Collects the files the user gives: a dropped folder (walked recursively through
// DataTransferItem.webkitGetAsEntry), dropped files, a folder input or a file input.
// Names follow the CLI: a folder "job" gives "job/<relative path>", a single file its name.
//   fromInput(input)          → [{ name, file, inFolder }]
//   await fromDrop(dataTransfer) → [{ name, file, inFolder }]
// inFolder: the file came with a folder (an earlier merge's output found so is skipped).
// Also: initDrop (drops anywhere on the page), readHead (a file's first bytes) and readPreload
// (the notebook helper's files).

/**
 * The files of a folder or file input, named as the CLI names them:
 *   fromInput(input) → [{ name, file, inFolder }]
 * @param {HTMLInputElement} input a file input (webkitdirectory or not)
 * @returns {{ name: string, file: File, inFolder: boolean }[]}
 */
export function fromInput(input) {
  return [...input.files].map((file) => ({ name: file.webkitRelativePath || file.name, file, inFolder: !!file.webkitRelativePath }));
}

/**
 * The files of a drop, a dropped folder walked recursively:
 *   await fromDrop(dataTransfer) → [{ name, file, inFolder }]
 * The DataTransfer is only readable during the drop event: take the entries (or the plain
 * files, for a DataTransfer that has no file system behind it) before the first await.
 * @param {DataTransfer} dataTransfer the drop event's
 * @returns {Promise<{ name: string, file: File, inFolder: boolean }[]>}
 */
export function fromDrop(dataTransfer) {
  const items = [...(dataTransfer.items ?? [])].filter((i) => i.kind === 'file');
  const roots = [];
  for (const item of items) {
    const entry = item.webkitGetAsEntry?.();
    roots.push(entry ? { entry } : { file: item.getAsFile() });
  }
  if (!items.length) for (const file of dataTransfer.files ?? []) roots.push({ file });
  return (async () => {
    const out = [];
    for (const r of roots) {
      if (r.entry) await walk(r.entry, out, false);
      else if (r.file) out.push({ name: r.file.name, file: r.file, inFolder: false });
    }
    return out;
  })();
}

const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));
const readBatch = (reader) => new Promise((resolve, reject) => reader.readEntries(resolve, reject));

async function walk(entry, out, inFolder) {
  if (entry.isFile) {
    out.push({ name: entry.fullPath.replace(/^\/+/, ''), file: await fileOf(entry), inFolder });
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    // readEntries returns at most ~100 entries per call: read until it returns none.
    for (let batch = await readBatch(reader); batch.length; batch = await readBatch(reader)) {
      for (const e of batch) await walk(e, out, true);
    }
  }
}

/**
 * The first `max` bytes of a file (its kind is read from them) and whether that is all of it:
 *   await readHead(file) → { head: Uint8Array, whole: true }
 * Through its stream: Chromium's slice() and arrayBuffer() of a picked File wait for the
 * browser on the page's thread (about 0.5 ms each: 10 s for 20 000 files); a stream does not.
 * @param {Blob} file
 * @param {number} [max] how many bytes at most (default 64 KB)
 * @returns {Promise<{ head: Uint8Array, whole: boolean }>}
 */
export async function readHead(file, max = 65536) {
  const reader = file.stream().getReader();
  const parts = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { head: joinParts(parts, n), whole: true };
    parts.push(value);
    n += value.length;
    if (n >= max) {
      reader.cancel().catch(() => {});
      return { head: joinParts(parts, n).subarray(0, max), whole: false };
    }
  }
}

function joinParts(parts, n) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Files dropped anywhere on the page: an overlay while something is dragged over it, and
 * onFiles(list) for what was dropped. busy() → true refuses drops (a merge is running).
 * @param {HTMLElement} overlay shown while files are dragged over the page
 * @param {{ busy: () => boolean, onFiles: (list: { name: string, file: File, inFolder: boolean }[]) => void,
 *   onError: (e: unknown) => void }} handlers onError: reading the drop failed
 * @returns {void}
 */
export function initDrop(overlay, { busy, onFiles, onError }) {
  let depth = 0;
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  document.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = busy();
  });
  document.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = busy() ? 'none' : 'copy';
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    if (busy() || !e.dataTransfer) return;
    fromDrop(e.dataTransfer).then(onFiles, onError);
  });
}

/**
 * The notebook helper's files and options (web/notebook/tracemerge_notebook.py puts them in
 * a JSON <script id="tm-preload">), or null on a page without them.
 *   → { files: [{ name, file }], options: { start, end, unit, … }, merge: true|false }
 * @returns {{ files: { name: string, file: File, inFolder: boolean }[], options: object, merge: boolean } | null}
 */
export function readPreload() {
  const node = document.getElementById('tm-preload');
  if (!node) return null;
  const data = JSON.parse(node.textContent);
  const decode = (text) => {
    const bin = atob(text);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };
  return {
    files: data.files.map((f) => ({ name: f.name, file: new File([decode(f.data)], f.name.slice(f.name.lastIndexOf('/') + 1)),
      inFolder: !!f.inFolder })),
    options: data.options ?? {},
    merge: data.merge !== false,
  };
}

/**
 * Offers a Blob as a download named `name`.
 * @param {Blob} blob
 * @param {string} name the file name the browser suggests
 * @returns {void}
 */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);  // (revoked at once, some browsers cancel it)
}
