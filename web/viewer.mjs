// The page's Perfetto buttons and settings: "Open in Perfetto" (new tab), "Show here"
// (embedded viewer), the address setting, and one status line for the hand-off
// ([data-testid=perfetto-status][data-state=idle|connecting|open|error]). The protocol
// itself is in perfetto.mjs.
//   const viewer = initViewer(el, () => merged, { download });   // merged: { blob, name } or null
//   viewer.showAddress();                                        // after a merge
import * as perfetto from './perfetto.mjs';

/**
 * Wires the Perfetto buttons and settings (see the top of this file) to the merged trace that
 * current() returns; download() is the status line's Download button.
 * @param {Record<string, HTMLElement>} el the page's elements (dom.mjs)
 * @param {() => { blob: Blob, name: string } | null} current the last merge's output, or null
 * @param {{ download: () => void }} actions
 * @returns {{ showAddress(): void, reset(): void }} showAddress: says (again) where traces go;
 *   reset: forgets the last hand-off's state (a new merge replaces the trace)
 */
export function initViewer(el, current, { download }) {
  let embed = null;  // AbortController of the running "Show here" hand-off

  // One line for the state of the last hand-off; on an error, the ways on: Download, Settings.
  function setState(state, text) {
    el.perfettoStatus.dataset.state = state;
    el.perfettoStatusText.textContent = text;
    el.perfettoStatus.hidden = state === 'idle';
    el.perfettoActions.hidden = state !== 'error';
  }

  function showAddress() {
    const a = perfetto.perfettoAddress();
    const m = current();
    el.perfettoNote.textContent = `Perfetto UI: ${a.url} (${a.from}; change it in Settings below). The trace is sent there only when you press a Perfetto button, for that tab alone (localOnly: Perfetto offers no sharing or upload of it).`;
    if (a.problem) el.perfettoNote.textContent += ` ${a.problem}`;
    el.perfettoConfirm.hidden = !a.pending;
    if (a.pending) {
      const origin = new URL(a.pending).origin;
      el.perfettoConfirmText.textContent = `This link's perfetto= parameter asks to send traces to ${origin}. ` +
        `Nothing goes there, and no tab of it is opened, unless you allow it: until then the Perfetto buttons use ${a.url}.`;
      el.perfettoAllow.textContent = `Send traces to ${origin} on this visit`;
      el.perfettoAllow.onclick = () => { perfetto.allow(a.pending); showAddress(); el.openPerfetto.focus(); };
    }
    const fromFile = perfetto.fileOriginNote(location.protocol);
    if (fromFile) el.perfettoNote.textContent += ` ${fromFile}`;
    const big = m ? perfetto.sizeWarning(m.blob.size) : '';
    el.perfettoSize.textContent = big;
    el.perfettoSize.hidden = !big;
    setState('idle', '');
  }

  function tracePayload() {
    const { blob, name } = current();
    // localOnly: the UI offers no sharing or upload of a posted trace (its default, said explicitly).
    return async () => ({ buffer: await blob.arrayBuffer(), title: `tracemerge · ${name}`, fileName: name, keepApiOpen: true, localOnly: true });
  }

  function openPerfetto() {
    if (!current()) return;
    const { url } = perfetto.perfettoAddress();
    const win = window.open(url, '_blank');  // now, inside the click: later it would be a blocked pop-up
    if (!win) {
      setState('error', 'The browser blocked the new tab. Allow pop-ups for this page, or use "Show here".');
      return;
    }
    const name = current().name;
    perfetto.handOff(() => win, url, tracePayload(), {
      onState: (state, message) => setState(state, state === 'open' ? `Sent ${name} to the Perfetto UI in the new tab.` : message),
    }).catch(() => {});  // (the state says it)
  }

  function showPerfetto() {
    if (!current()) return;
    const { url } = perfetto.perfettoAddress();
    embed?.abort();
    const abort = new AbortController();
    embed = abort;
    el.viewer.hidden = false;
    const src = perfetto.embeddedUrl(url);
    if (el.perfettoFrame.getAttribute('src') !== src) el.perfettoFrame.src = src;
    el.viewerNote.textContent = `Loading ${url}…`;
    el.viewer.scrollIntoView({ block: 'start' });
    const name = current().name;
    perfetto.handOff(() => el.perfettoFrame.contentWindow, url, tracePayload(), {
      signal: abort.signal,
      frame: el.perfettoFrame,
      onState: (state, message) => {
        if (embed !== abort) return;  // a newer hand-off speaks now
        setState(state, state === 'open' ? `Showing ${name} in the Perfetto UI below.` : message);
        el.viewerNote.textContent = state === 'open' ? name : message;
        if (state === 'error') hideFrame();  // a broken frame helps nobody: say why above instead
      },
    }).catch(() => {});
  }

  function hideFrame() {
    el.viewer.hidden = true;
    el.perfettoFrame.removeAttribute('src');
  }

  // A Perfetto address the page's Content-Security-Policy does not allow in a frame fails
  // silently otherwise: say so at once.
  document.addEventListener('securitypolicyviolation', (e) => {
    if (/frame-src|child-src/.test(e.effectiveDirective) && !el.viewer.hidden) {
      embed?.abort();
      hideFrame();
      setState('error', `This page may not embed ${e.blockedURI} (Content-Security-Policy frame-src). Use "Open in Perfetto", or host the Perfetto UI on https or on this page's own site.`);
    }
  });

  function closeViewer() {
    embed?.abort();
    hideFrame();
    setState('idle', '');
    el.showPerfetto.focus();
  }

  function openSettings() {
    el.settings.open = true;
    el.perfettoUrl.focus();
    el.settings.scrollIntoView({ block: 'nearest' });
  }

  function initSettings() {
    const a = perfetto.perfettoAddress();
    el.perfettoUrl.value = a.stored || '';
    el.perfettoUrl.placeholder = perfetto.DEFAULT_PERFETTO;
    const say = (text) => { el.perfettoSettingNote.textContent = text; };
    el.savePerfetto.addEventListener('click', () => {
      if (perfetto.saveAddress(el.perfettoUrl.value.trim())) {
        say(el.perfettoUrl.value.trim() ? `Saved: Perfetto UI at ${perfetto.checkUrl(el.perfettoUrl.value)}.` : `Saved: the default, ${perfetto.DEFAULT_PERFETTO}.`);
      } else {
        say('That is not an http(s) address (a relative one such as ../perfetto/ is fine).');
      }
      if (current()) showAddress();
    });
    el.resetPerfetto.addEventListener('click', () => {
      perfetto.saveAddress('');
      el.perfettoUrl.value = '';
      say(`Using the default, ${perfetto.DEFAULT_PERFETTO}.`);
      if (current()) showAddress();
    });
    if (a.from === 'url parameter') say(`This visit uses ${a.url} (from the perfetto= URL parameter).`);
    if (a.problem) say(a.problem);
  }

  el.openPerfetto.addEventListener('click', openPerfetto);
  el.showPerfetto.addEventListener('click', showPerfetto);
  el.closeViewer.addEventListener('click', closeViewer);
  el.perfettoDownload.addEventListener('click', download);
  el.perfettoSettings.addEventListener('click', openSettings);
  initSettings();
  return {
    showAddress,
    // A new merge replaces the trace: the last hand-off's state is about the old one.
    reset: () => setState('idle', ''),
  };
}
