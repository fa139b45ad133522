// tracemerge/worker: a Worker entry module (no exports); MergeClient starts it.
export {};
