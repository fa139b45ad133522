// Collects the files the user gives: a dropped folder (walked recursively through
// DataTransferItem.webkitGetAsEntry), dropped files, a folder input or a file input.
// Names follow the CLI: a folder "job" gives "job/<relative path>", a single file its name.
//   fromInput(input)          → [{ name, file, inFolder }]
//   await fromDrop(dataTransfer) → [{ name, file, inFolder }]
// inFolder: the file came with a folder (an earlier merge's output found so is skipped).

export function fromInput(input) {
  return [...input.files].map((file) => ({ name: file.webkitRelativePath || file.name, file, inFolder: !!file.webkitRelativePath }));
}

// The DataTransfer is only readable during the drop event: take the entries (or the plain
// files, for a DataTransfer that has no file system behind it) before the first await.
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
