/**
 * The old name of live-runs.ts (it held a RunRegistry once). Kept for this session so the
 * modules that still import it build; they move to './live-runs.ts' and this file goes.
 */
export * from './live-runs.ts';
