// TEMPORARY: moved to src/http/node-server.ts; remove when no file imports it
export * from '../http/node-server.ts';
