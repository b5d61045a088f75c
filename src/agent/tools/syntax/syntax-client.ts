import { Worker } from 'node:worker_threads';
import { ToolwireError } from '../../../core/errors.ts';
import type { Pacer } from '../pacer.ts';
import type { SyntaxJob, SyntaxReply, SyntaxResults } from './syntax-jobs.ts';

/** The worker's module, beside this one (`.ts` when run from source, `.js` once built). */
const WORKER_URL = new URL(
  `./syntax-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** What a job threw on the worker (ast-grep refusing a pattern, for one). */
export class SyntaxJobError extends ToolwireError {
  constructor(message: string) {
    super('syntax-job-failed', message);
  }
}

interface Pending {
  readonly id: number;
  readonly job: SyntaxJob;
  resolve(result: unknown): void;
  reject(error: unknown): void;
  /** Removes the abort listener. */
  release(): void;
}

/**
 * Runs syntax jobs on one worker thread, one at a time in the order asked. Everything
 * ast-grep does — parsing, matching, and above all releasing large trees and hundreds of
 * thousands of nodes, which happens when the garbage collector decides and cannot be spread
 * out — then costs the worker's time, not the event loop's. A job whose call aborts leaves the
 * queue; if it is the one running, the worker is ended on the spot and a fresh one takes the
 * next job. The worker does not keep the process alive while idle.
 */
class SyntaxWorkerPool {
  #worker: Worker | undefined;
  #running: Pending | undefined;
  readonly #queue: Pending[] = [];
  #nextId = 0;

  run(job: SyntaxJob, signal: AbortSignal | undefined): Promise<unknown> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#cancel(pending, signal?.reason);
      const pending: Pending = {
        id: this.#nextId++,
        job,
        resolve,
        reject,
        release: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(pending);
      this.#startNext();
    });
  }

  #startNext(): void {
    if (this.#running !== undefined) return;
    const next = this.#queue.shift();
    if (next === undefined) {
      this.#worker?.unref();
      return;
    }
    this.#running = next;
    const worker = this.#ensureWorker();
    worker.ref();
    worker.postMessage({ id: next.id, job: next.job });
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(WORKER_URL);
    worker.on('message', (reply: SyntaxReply) => this.#settle(reply));
    worker.on('error', (error) => this.#lose(worker, error));
    worker.on('exit', (code) => {
      this.#lose(worker, new Error(`the syntax worker stopped (exit code ${code})`));
    });
    this.#worker = worker;
    return worker;
  }

  #settle(reply: SyntaxReply): void {
    const running = this.#running;
    if (running === undefined || running.id !== reply.id) return; // a cancelled job's answer
    this.#running = undefined;
    running.release();
    if (reply.ok) running.resolve(reply.result);
    else running.reject(new SyntaxJobError(reply.message));
    this.#startNext();
  }

  /** The worker died on its own: its job fails, the next one gets a new worker. */
  #lose(worker: Worker, error: unknown): void {
    if (this.#worker !== worker) return; // ended on purpose, already replaced
    this.#worker = undefined;
    const running = this.#running;
    this.#running = undefined;
    running?.release();
    running?.reject(error);
    this.#startNext();
  }

  #cancel(pending: Pending, reason: unknown): void {
    pending.release();
    if (this.#running === pending) {
      const worker = this.#worker;
      this.#worker = undefined;
      this.#running = undefined;
      void worker?.terminate();
    } else {
      const index = this.#queue.indexOf(pending);
      if (index !== -1) this.#queue.splice(index, 1);
    }
    pending.reject(reason);
    this.#startNext();
  }
}

const pool = new SyntaxWorkerPool();

/**
 * Runs `job` on the syntax worker and resolves to its result. Rejects with the pacer's signal
 * reason as soon as it aborts (the job is dropped or its worker ended), or with a
 * `SyntaxJobError` carrying what the job threw.
 */
export async function runOnSyntaxWorker<Job extends SyntaxJob>(
  job: Job,
  pacer: Pacer,
): Promise<SyntaxResults[Job['kind']]> {
  return (await pool.run(job, pacer.signal)) as SyntaxResults[Job['kind']];
}
