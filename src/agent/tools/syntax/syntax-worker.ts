/**
 * The syntax worker's entry point: runs the jobs `syntax-client.ts` sends, one at a time, and
 * answers each with its result or its error message.
 */
import { parentPort } from 'node:worker_threads';
import { runSyntaxJob, type SyntaxReply, type SyntaxRequest } from './syntax-jobs.ts';

const port = parentPort;
if (port === null) throw new Error('syntax-worker.ts runs as a worker thread only');

port.on('message', ({ id, job }: SyntaxRequest) => {
  let reply: SyntaxReply;
  try {
    reply = { id, ok: true, result: runSyntaxJob(job) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
