// Hands the merged trace to the Perfetto UI with its postMessage protocol: open it (new tab)
// or embed it (<iframe>, #!/?mode=embedded), send 'PING' until it answers 'PONG', then post
//   { perfetto: { buffer: ArrayBuffer, title, fileName, keepApiOpen: true } }.
// The address is configurable: ?perfetto=<url> for one visit (once trusted: see trusted()), or a
// setting kept in localStorage; default https://ui.perfetto.dev/. Nothing is sent anywhere until
// the user asks, and never to an address a link chose until the user allowed it.

/** The public Perfetto UI: the address used when no setting or trusted perfetto= parameter names another. */
export const DEFAULT_PERFETTO = 'https://ui.perfetto.dev/';
const STORAGE_KEY = 'tracemerge.perfettoUrl';
const PING_EVERY_MS = 100;

// localStorage throws in sandboxed frames (the notebook view) and may be disabled.
function storage() {
  try { return window.localStorage; } catch { return null; }
}

/**
 * An absolute http(s) URL, or null. Relative addresses ("../perfetto/") resolve against the page.
 * @param {string} text an address as typed or given
 * @returns {string | null} the resolved URL (href)
 */
export function checkUrl(text) {
  try {
    const u = new URL(String(text).trim(), location.href);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

// Where a trace may go without asking: the public Perfetto UI, this page's own site, the
// origins the site's owner lists in <meta name="tracemerge-perfetto-origins" content="https://…">,
// the address the user saved, and those the user allowed on this visit. A link's perfetto=
// parameter names any address it likes: it is used only once it is one of these.
const allowed = new Set();  // origins the user allowed on this visit
const originOf = (url) => { try { return new URL(url).origin; } catch { return 'null'; } };
/**
 * Whether a trace may go to `url` without asking (the rule above).
 * @param {string} url
 * @param {string} [stored] the saved address (default: the one in localStorage)
 * @returns {boolean}
 */
export function trusted(url, stored = storage()?.getItem(STORAGE_KEY) ?? '') {
  const origin = originOf(url);
  if (origin === 'null') return false;
  const listed = document.querySelector('meta[name="tracemerge-perfetto-origins"]')?.content.split(/\s+/).filter(Boolean) ?? [];
  return origin === originOf(DEFAULT_PERFETTO) || origin === location.origin || listed.map(originOf).includes(origin) ||
    (checkUrl(stored) !== null && origin === originOf(checkUrl(stored))) || allowed.has(origin);
}
/**
 * Trusts `url`'s origin for the rest of this visit (the user allowed it).
 * @param {string} url
 * @returns {void}
 */
export function allow(url) { allowed.add(originOf(url)); }

/**
 * The Perfetto UI address to use, and where it came from:
 *   { url, from: 'url parameter' | 'setting' | 'default', stored, problem, pending }
 * pending: a perfetto= address not trusted yet — not used (url is the setting's or the
 * default) until the user allows its origin (allow()).
 * @returns {{ url: string, from: 'url parameter' | 'setting' | 'default', stored: string, problem?: string, pending?: string }}
 *   stored: the saved setting ('' when none); problem: why the perfetto= parameter is ignored
 */
export function perfettoAddress() {
  const param = new URLSearchParams(location.search).get('perfetto');
  const stored = storage()?.getItem(STORAGE_KEY) ?? '';
  const fallback = stored && checkUrl(stored) ? { url: checkUrl(stored), from: 'setting', stored } : { url: DEFAULT_PERFETTO, from: 'default', stored };
  if (param) {
    const url = checkUrl(param);
    if (url && trusted(url, stored)) return { url, from: 'url parameter', stored };
    if (url) return { ...fallback, pending: url };
    return { ...fallback, problem: `The perfetto= parameter "${param}" is not an http(s) address; it is ignored.` };
  }
  return fallback;
}

/**
 * Saves the Perfetto UI address setting (in localStorage); an empty text removes it.
 * @param {string} text
 * @returns {boolean} false when the text is not an http(s) address (nothing saved)
 */
export function saveAddress(text) {
  const store = storage();
  if (!text) { store?.removeItem(STORAGE_KEY); return true; }
  if (!checkUrl(text)) return false;
  store?.setItem(STORAGE_KEY, String(text).trim());
  return true;
}

/**
 * The address of the Perfetto UI in embedded mode, for an <iframe>: embeddedUrl('https://ui.perfetto.dev/')
 * → 'https://ui.perfetto.dev/#!/?mode=embedded'.
 * @param {string} url
 * @returns {string}
 */
export function embeddedUrl(url) {
  return `${url.replace(/#.*$/, '')}#!/?mode=embedded`;
}

function targetOrigin(url) {
  const origin = new URL(url).origin;
  return origin === 'null' ? '*' : origin;
}

/**
 * Perfetto UI keeps a trace in its trace processor's memory: the 64-bit (memory64) build,
 * up to 16 GB, where the browser supports memory64, else the 32-bit one, 4 GB; a JSON trace
 * takes a few times its size there. Above these many bytes of output, say so before handing
 * it over (and suggest a narrower window).
 * @type {number}
 */
export const PERFETTO_WARN_BYTES = 1.5e9;
const PERFETTO_64_BYTES = 6e9;

/**
 * What to say before handing a trace of `size` bytes to the Perfetto UI: '' up to
 * PERFETTO_WARN_BYTES, else that it may not open (and to merge a narrower window).
 * @param {number} size the output's bytes
 * @returns {string}
 */
export function sizeWarning(size) {
  if (!(size > PERFETTO_WARN_BYTES)) return '';
  const gb = `This trace is ${(size / 1e9).toFixed(1)} GB.`;
  const narrower = 'Drag across the overview to pick a narrower window and merge again.';
  if (size > PERFETTO_64_BYTES) {
    return `${gb} Perfetto UI holds at most 16 GB in the browser (its 64-bit build, where the browser supports ` +
      `memory64) and a JSON trace takes a few times its size there, so it may not open at all. ${narrower}`;
  }
  return `${gb} Perfetto UI holds up to 16 GB where the browser supports memory64 (recent Chrome and Firefox), but only ` +
    `4 GB elsewhere, and a JSON trace takes a few times its size there: without memory64 it may not open. ${narrower}`;
}

/**
 * From file:// (the single-file page opened from disk) the page's origin is "null": Perfetto
 * UI cannot trust it, and asks "Open trace?" every time, without "Always trust".
 * @param {string} protocol the page's location.protocol
 * @returns {string} the note to show, '' unless protocol is 'file:'
 */
export function fileOriginNote(protocol) {
  if (protocol !== 'file:') return '';
  return 'This page was opened from a file, so Perfetto UI will ask "Open trace?" every time (a file has no origin it can ' +
    'trust). Serve the page (any static server, or scripts/run.sh), or put a self-hosted perfetto-ui.zip next to it, ' +
    'to open traces without the question.';
}

/**
 * The message for a Perfetto UI that did not answer.
 * @param {string} url
 * @returns {string}
 */
export const noAnswer = (url) => `The Perfetto UI at ${url} did not answer (offline? blocked?).`;

/**
 * Waits for PONG from the window `target()` returns, then posts the trace.
 * `payload()` is awaited only once the UI answered (it builds the ArrayBuffer).
 * onState(state, message): 'connecting' at once; 'open' once the trace is posted; 'error'
 * when no answer came — for an embedded UI (frame: its <iframe>) as soon as the frame has
 * loaded and `loadedMs` passed without a PONG (the hand-off then ends, rejected); for a tab,
 * after `slowMs`, while it still listens (a late PONG still opens the trace) until `giveUpMs`.
 * @param {() => Window | null} target the tab's or the frame's window
 * @param {string} url the Perfetto UI's address (the messages go to its origin)
 * @param {() => Promise<{ buffer: ArrayBuffer, title: string, fileName: string, keepApiOpen: boolean }>} payload
 *   the message's `perfetto` object (its buffer is transferred)
 * @param {{ signal?: AbortSignal, frame?: HTMLIFrameElement, onState?: (state: 'connecting' | 'open' | 'error', message: string) => void,
 *   slowMs?: number, loadedMs?: number, giveUpMs?: number }} [opts]
 * @returns {Promise<void>} resolves once the trace is posted; rejects with an Error whose code is
 *   'NO_ANSWER', 'CLOSED' (the tab was closed) or 'CANCELLED' (signal), or with payload()'s error
 */
export function handOff(target, url, payload, { signal, frame, onState, slowMs = 5000, loadedMs = 5000, giveUpMs = 60000 } = {}) {
  const origin = targetOrigin(url);
  const say = (state, message = '') => onState?.(state, message);
  return new Promise((resolve, reject) => {
    let done = false;
    let answered = false;
    const timers = [];
    const finish = (error) => {
      if (done) return;
      done = true;
      clearInterval(pinger);
      for (const t of timers) clearTimeout(t);
      window.removeEventListener('message', onMessage);
      signal?.removeEventListener('abort', onAbort);
      frame?.removeEventListener('load', onLoad);
      if (error) {
        if (error.code !== 'CANCELLED') say('error', error.message);
        reject(error);
      } else {
        say('open');
        resolve();
      }
    };
    const fail = (message, code = 'NO_ANSWER') => finish(Object.assign(new Error(message), { code }));
    const onMessage = async (e) => {
      const w = target();
      if (done || answered || !w || e.source !== w || e.data !== 'PONG') return;
      if (origin !== '*' && e.origin !== origin) return;
      answered = true;
      clearInterval(pinger);
      try {
        const p = await payload();
        w.postMessage({ perfetto: p }, origin, [p.buffer]);
        finish();
      } catch (err) {
        finish(err);
      }
    };
    const onAbort = () => fail('cancelled', 'CANCELLED');
    // A frame that has loaded and still does not answer is not the Perfetto UI (an error
    // page, a site that is not it): waiting longer would not help.
    const onLoad = () => timers.push(setTimeout(() => { if (!answered) fail(noAnswer(url)); }, loadedMs));
    const ping = () => {
      const w = target();
      if (!w || w.closed) return fail('The Perfetto window was closed before it answered.', 'CLOSED');
      try { w.postMessage('PING', origin); } catch { /* still loading another origin */ }
    };
    window.addEventListener('message', onMessage);
    signal?.addEventListener('abort', onAbort);
    frame?.addEventListener('load', onLoad);
    say('connecting', `Waiting for the Perfetto UI at ${url} to answer…`);
    const pinger = setInterval(ping, PING_EVERY_MS);
    if (!frame) timers.push(setTimeout(() => { if (!answered) say('error', `${noAnswer(url)} Still listening, in case it is only slow.`); }, slowMs));
    timers.push(setTimeout(() => fail(noAnswer(url)), giveUpMs));
    ping();
  });
}
