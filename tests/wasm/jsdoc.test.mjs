// Every top-level export of the JS sources (wasm/*.mjs, web/*.mjs) has a JSDoc block: the
// nearest non-blank text before it is the end of a `/** … */` comment. Reads the sources
// (no build needed). The scanner knows strings, template literals, comments and regular
// expressions well enough that an `export` inside one of them is not taken for one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = ['wasm', 'web'];

// The characters and words after which a `/` starts a regular expression (else it divides).
const REGEX_AFTER = new Set('(,=:[!&|?{};+-*%<>~^'.split(''));
const REGEX_WORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case',
  'do', 'else', 'yield', 'await']);

// The source's block comments ({ start, end, text }) and its top-level exports ({ at, line }): an
// `export` word in code, at brace depth 0, first on its line.
function scan(src) {
  const comments = [];
  const exports = [];
  const braces = [];  // per open `{`: 'code', or 'template' for a `${`
  let prev = '';      // the last significant code character ('' at the start), or the last word
  let i = 0;
  const lineOf = (at) => src.slice(0, at).split('\n').length;
  const firstOnLine = (at) => /^[ \t]*$/.test(src.slice(src.lastIndexOf('\n', at - 1) + 1, at));
  const template = () => {  // from just after a backtick, or a `}` closing a `${`: to its end or a `${`
    for (; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === '`') { i++; return; }
      else if (src[i] === '$' && src[i + 1] === '{') { braces.push('template'); i += 2; prev = '{'; return; }
    }
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end;
    } else if (c === '/' && src[i + 1] === '*') {
      const close = src.indexOf('*/', i + 2);
      const end = close < 0 ? src.length : close + 2;
      comments.push({ start: i, end, text: src.slice(i, end) });
      i = end;
    } else if (c === '"' || c === "'") {
      for (i++; i < src.length && src[i] !== c && src[i] !== '\n'; i++) if (src[i] === '\\') i++;
      i++;
      prev = 'a';
    } else if (c === '`') {
      i++;
      template();
      prev = 'a';
    } else if (c === '/' && (prev === '' || REGEX_AFTER.has(prev) || REGEX_WORDS.has(prev))) {
      let inClass = false;
      for (i++; i < src.length && src[i] !== '\n'; i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
        else if (src[i] === '/' && !inClass) break;
      }
      i++;
      while (/[a-z]/i.test(src[i] ?? '')) i++;
      prev = 'a';
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[A-Za-z_$][\w$]*/.exec(src.slice(i, i + 64))[0];
      if (word === 'export' && braces.length === 0 && firstOnLine(i)) exports.push({ at: i, line: lineOf(i) });
      i += word.length;
      prev = word;
    } else if (c === '{') {
      braces.push('code');
      i++;
      prev = c;
    } else if (c === '}') {
      i++;
      if (braces.pop() === 'template') template();
      prev = ')';  // (after a block or an object a `/` is taken to divide)
    } else {
      if (!/\s/.test(c)) prev = /[\w$)\]]/.test(c) ? 'a' : c;
      i++;
    }
  }
  return { comments, exports };
}

// The names an export statement gives: `export async function* f` → ['f'],
// `export { a as b, c }` → ['b', 'c'], `export const X = …` → ['X'].
function exportedNames(statement) {
  const list = /^export\s*\{([^}]*)\}/.exec(statement);
  if (list) return list[1].split(',').map((s) => s.trim()).filter(Boolean).map((s) => s.split(/\s+as\s+/).pop());
  const decl = /^export\s+(?:default\s+)?(?:async\s+)?(?:function\s*\*?|class|const|let|var)\s*([\w$]+|[[{][^=]*)/.exec(statement);
  if (decl) return [decl[1].trim()];
  if (/^export\s+default\b/.test(statement)) return ['default'];
  return [statement.split('\n')[0]];
}

// The exports of one file that have no JSDoc block: ['web/x.mjs:12 f', …], and how many it has.
function undocumented(file, src) {
  const { comments, exports } = scan(src);
  const missing = [];
  for (const { at, line } of exports) {
    const before = src.slice(0, src.lastIndexOf('\n', at) + 1).trimEnd();
    const block = comments.find((c) => c.end === before.length);
    const ok = block && /^\/\*\*(?!\/)/.test(block.text) && block.text.slice(3, -2).replace(/[\s*]/g, '') !== '';
    if (!ok) missing.push(`${file}:${line} ${exportedNames(src.slice(at, at + 300)).join(', ')}`);
  }
  return { missing, count: exports.length };
}

const sources = DIRS.flatMap((dir) => fs.readdirSync(path.join(ROOT, dir))
  .filter((f) => f.endsWith('.mjs')).sort().map((f) => `${dir}/${f}`));

test('every top-level export in wasm/*.mjs and web/*.mjs has a /** … */ block right above it', () => {
  let count = 0;
  const missing = [];
  for (const file of sources) {
    const r = undocumented(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
    count += r.count;
    missing.push(...r.missing);
  }
  assert.ok(sources.length >= 20 && count >= 100, `found only ${count} exports in ${sources.length} files: the scan is broken`);
  assert.ok(missing.length === 0, `${missing.length} exports without a JSDoc block (a /** … */ comment right above them):\n  ${missing.join('\n  ')}`);
});

test('the scanner: what counts as an export and as its JSDoc block', () => {
  const src = [
    '/** Documented. */',
    'export function a() {}',
    '// A line comment is not JSDoc.',
    'export const b = 1;',
    '/* Nor is a plain block comment. */',
    'export { b as c, a };',
    '/** Blank lines between are fine. */',
    '',
    'export async function* d() {',
    '  const s = `',
    'export function inTemplate() {}',
    '${ { x: 1 }.x }`;',
    "  const q = 'export const inString = 1';",
    '  const r = /export\\/[}]/g;',
    '}',
    '/*',
    'export function inComment() {}',
    '*/',
    'export class E {}',
    '/** */',
    'export let f;',
  ].join('\n');
  assert.deepEqual(undocumented('x.mjs', src).missing, ['x.mjs:4 b', 'x.mjs:6 c, a', 'x.mjs:19 E', 'x.mjs:21 f']);
  assert.equal(undocumented('x.mjs', src).count, 6);
});
