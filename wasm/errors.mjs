/**
 * Errors of the JS API: { code, message, file, offset } — the core's codes
 * (tracemerge.d.ts ErrorCode, from core/status.h) — thrown as TraceMergeError.
 * Further fields of the constructor's argument (bytesRead, result) are kept too.
 */
export class TraceMergeError extends Error {
  constructor({ code, message, file = '', offset = 0, ...extra }) {
    super(message);
    this.name = 'TraceMergeError';
    Object.assign(this, { code, file, offset }, extra);
  }
}
