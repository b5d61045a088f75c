// TEMPORARY: moved to src/http/host-names.ts; remove when no file imports it
export * from '../http/host-names.ts';
