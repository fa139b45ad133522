// The page's Perfetto buttons and settings: "Open in Perfetto" (new tab), "Show here"
// (embedded viewer), the address setting. The protocol itself is in perfetto.mjs.
//   const viewer = initViewer(el, () => merged);   // merged: { blob, name } or null
//   viewer.showAddress();                          // after a merge
import * as perfetto from './perfetto.mjs';

export function initViewer(el, current) {
  let embed = null;  // AbortController of the running "Show here" hand-off

  function showAddress() {
    const a = perfetto.perfettoAddress();
    el.perfettoNote.textContent = `Perfetto UI: ${a.url} (${a.from}; change it in Settings below). The trace is sent there only when you press a Perfetto button.`;
    if (a.problem) el.perfettoNote.textContent += ` ${a.problem}`;
  }

  function tracePayload() {
    const { blob, name } = current();
    return async () => ({ buffer: await blob.arrayBuffer(), title: `tracemerge · ${name}`, fileName: name, keepApiOpen: true });
  }

  function openPerfetto() {
    if (!current()) return;
    const { url } = perfetto.perfettoAddress();
    const win = window.open(url, '_blank');  // now, inside the click: later it would be a blocked pop-up
    if (!win) {
      el.perfettoNote.textContent = 'The browser blocked the new tab. Allow pop-ups for this page, or use "Show here".';
      return;
    }
    el.perfettoNote.textContent = `Waiting for Perfetto at ${url} to answer…`;
    perfetto.handOff(() => win, url, tracePayload())
      .then(() => { el.perfettoNote.textContent = `Sent ${current()?.name ?? 'the trace'} to Perfetto in the new tab.`; })
      .catch((e) => { el.perfettoNote.textContent = e.message; });
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
    perfetto.handOff(() => el.perfettoFrame.contentWindow, url, tracePayload(), { signal: abort.signal })
      .then(() => { el.viewerNote.textContent = current()?.name ?? ''; })
      .catch((e) => { if (e.code !== 'CANCELLED') el.viewerNote.textContent = e.message; });
  }

  // A Perfetto address the page's Content-Security-Policy does not allow in a frame fails
  // silently otherwise: say so at once.
  document.addEventListener('securitypolicyviolation', (e) => {
    if (/frame-src|child-src/.test(e.effectiveDirective) && !el.viewer.hidden) {
      embed?.abort();
      el.viewerNote.textContent = `This page may not embed ${e.blockedURI} (Content-Security-Policy frame-src). Use "Open in Perfetto", or host the Perfetto UI on https or on this page's own site.`;
    }
  });

  function closeViewer() {
    embed?.abort();
    el.viewer.hidden = true;
    el.perfettoFrame.removeAttribute('src');
    el.showPerfetto.focus();
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
  initSettings();
  return { showAddress };
}
