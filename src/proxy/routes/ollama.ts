/** Ollama's own API (`/api/chat`, `/api/tags`, `/api/show`): not served yet. */
import type { Hono } from 'hono';
import type { ProxyContext } from '../context.ts';

export function ollamaRoutes(_app: Hono, _proxy: ProxyContext): void {}
