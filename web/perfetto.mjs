// Hands the merged trace to the Perfetto UI with its postMessage protocol: open it (new tab)
// or embed it (<iframe>, #!/?mode=embedded), send 'PING' until it answers 'PONG', then post
//   { perfetto: { buffer: ArrayBuffer, title, fileName, keepApiOpen: true } }.
// The address is configurable: ?perfetto=<url> for one visit, or a setting kept in
// localStorage; default https://ui.perfetto.dev/. Nothing is sent anywhere until the user asks.

export const DEFAULT_PERFETTO = 'https://ui.perfetto.dev/';
const STORAGE_KEY = 'tracemerge.perfettoUrl';
const PING_EVERY_MS = 100;
const GIVE_UP_MS = 30000;

// localStorage throws in sandboxed frames (the notebook view) and may be disabled.
function storage() {
  try { return window.localStorage; } catch { return null; }
}

// An absolute http(s) URL, or null. Relative addresses ("../perfetto/") resolve against the page.
export function checkUrl(text) {
  try {
    const u = new URL(String(text).trim(), location.href);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

// { url, from: 'url parameter' | 'setting' | 'default', stored, problem }
export function perfettoAddress() {
  const param = new URLSearchParams(location.search).get('perfetto');
  const stored = storage()?.getItem(STORAGE_KEY) ?? '';
  if (param) {
    const url = checkUrl(param);
    if (url) return { url, from: 'url parameter', stored };
    return { url: checkUrl(stored) ?? DEFAULT_PERFETTO, from: stored ? 'setting' : 'default', stored,
      problem: `The perfetto= parameter "${param}" is not an http(s) address; it is ignored.` };
  }
  if (stored && checkUrl(stored)) return { url: checkUrl(stored), from: 'setting', stored };
  return { url: DEFAULT_PERFETTO, from: 'default', stored };
}

export function saveAddress(text) {
  const store = storage();
  if (!text) { store?.removeItem(STORAGE_KEY); return true; }
  if (!checkUrl(text)) return false;
  store?.setItem(STORAGE_KEY, String(text).trim());
  return true;
}

export function embeddedUrl(url) {
  return `${url.replace(/#.*$/, '')}#!/?mode=embedded`;
}

function targetOrigin(url) {
  const origin = new URL(url).origin;
  return origin === 'null' ? '*' : origin;
}

// Waits for PONG from the window `target()` returns, then posts the trace.
// `payload()` is awaited only once the UI answered (it builds the ArrayBuffer).
export function handOff(target, url, payload, { signal } = {}) {
  const origin = targetOrigin(url);
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (error) => {
      if (done) return;
      done = true;
      clearInterval(pinger);
      clearTimeout(deadline);
      window.removeEventListener('message', onMessage);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error); else resolve();
    };
    const onMessage = async (e) => {
      const w = target();
      if (done || !w || e.source !== w || e.data !== 'PONG') return;
      if (origin !== '*' && e.origin !== origin) return;
      clearInterval(pinger);
      try {
        const p = await payload();
        w.postMessage({ perfetto: p }, origin, [p.buffer]);
        finish();
      } catch (err) {
        finish(err);
      }
    };
    const onAbort = () => finish(Object.assign(new Error('cancelled'), { code: 'CANCELLED' }));
    const ping = () => {
      const w = target();
      if (!w || w.closed) return finish(new Error('The Perfetto window was closed before it answered.'));
      try { w.postMessage('PING', origin); } catch { /* still loading another origin */ }
    };
    window.addEventListener('message', onMessage);
    signal?.addEventListener('abort', onAbort);
    const pinger = setInterval(ping, PING_EVERY_MS);
    const deadline = setTimeout(() => finish(new Error(
      `Perfetto at ${url} did not answer within ${GIVE_UP_MS / 1000} s. Check the address in Settings, ` +
      'or that the page may reach it.')), GIVE_UP_MS);
    ping();
  });
}
