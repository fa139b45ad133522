// tracemerge/helper: a helper Worker entry module (no exports); the merge starts helpers itself.
export {};
