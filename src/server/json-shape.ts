// TEMPORARY: moved to src/http/json-shape.ts; remove when no file imports it
export * from '../http/json-shape.ts';
