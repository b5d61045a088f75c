import {
  ApiError,
  abortRun,
  fetchInfo,
  type ServerInfo,
  sendToolResults,
  startRun,
} from './api.ts';
import type { FrontendToolsForm } from './blocks.ts';
import { el } from './dom.ts';
import { RunView } from './run-view.ts';
import { readBlockStream } from './stream-reader.ts';

/** Where the page is; `#status` carries it as `data-state` (tests and styles read it). */
type PageState =
  | 'idle'
  | 'connecting'
  | 'streaming'
  | 'waiting'
  | 'done'
  | 'stopping'
  | 'stopped'
  | 'failed'
  | 'broken';

const STATUS_TEXT: Readonly<Record<PageState, string>> = {
  idle: 'Ask a question about the code.',
  connecting: 'Connecting…',
  streaming: 'Streaming…',
  waiting: 'Waiting for your answer above.',
  done: 'Done.',
  stopping: 'Stopping…',
  stopped: 'Stopped.',
  failed: 'The run did not finish: see the message above.',
  broken: 'The stream broke before the run finished.',
};

const ui = {
  form: document.querySelector<HTMLFormElement>('#ask-form')!,
  prompt: document.querySelector<HTMLTextAreaElement>('#prompt')!,
  ask: document.querySelector<HTMLButtonElement>('#ask')!,
  stop: document.querySelector<HTMLButtonElement>('#stop')!,
  status: document.querySelector<HTMLElement>('#status')!,
  transcript: document.querySelector<HTMLElement>('#transcript')!,
  banner: document.querySelector<HTMLElement>('#banner')!,
  server: document.querySelector<HTMLElement>('#server')!,
};

/** One question and its run, possibly over several streams (resumes). */
interface Session {
  readonly view: RunView;
  runId: string | undefined;
  /** Aborts the fetch of the stream being read. */
  connection: AbortController;
  stopRequested: boolean;
}

let session: Session | undefined;
let state: PageState = 'idle';

function setState(next: PageState, detail = ''): void {
  state = next;
  ui.status.dataset.state = next;
  ui.status.textContent = detail ? `${STATUS_TEXT[next]} ${detail}` : STATUS_TEXT[next];
  const active = next === 'connecting' || next === 'streaming' || next === 'waiting';
  ui.stop.disabled = !active;
  ui.ask.disabled = active || next === 'stopping';
  document.body.dataset.state = next;
}

async function ask(prompt: string): Promise<void> {
  session?.connection.abort();
  ui.transcript.replaceChildren(el('div', { class: 'question', text: prompt }));
  const view = new RunView(ui.transcript, (form) => void answer(form));
  const current: Session = {
    view,
    runId: undefined,
    connection: new AbortController(),
    stopRequested: false,
  };
  session = current;
  setState('connecting');
  let response: Response;
  try {
    response = await startRun(prompt, current.connection.signal);
  } catch (error) {
    requestFailed(current, error);
    return;
  }
  current.runId = response.headers.get('x-run-id') ?? undefined;
  const replay = response.headers.get('x-toolwire-replay');
  if (replay)
    ui.transcript.append(
      el(
        'div',
        { class: 'block meta recording', attrs: { 'data-block': 'replay-notice' } },
        el('span', { class: 'badge', text: 'Recording' }),
        ` Replaying ${replay}: a recorded run, not an answer to your question.`,
      ),
    );
  await consume(current, response);
}

/** Reads one stream of the session to its end and says how the run stands. */
async function consume(current: Session, response: Response): Promise<void> {
  const { view } = current;
  view.beginStream();
  setState('streaming');
  let broken: string | undefined;
  try {
    await readBlockStream(response, (events) => view.apply(events));
  } catch (error) {
    broken = (error as Error).message || String(error);
  }
  view.flush();
  if (session !== current) return;
  const outcome = view.streamOutcome;
  if (outcome.final) setState('done');
  else if (outcome.awaiting) setState('waiting');
  else if (current.stopRequested) setState('stopped');
  else if (outcome.error) setState('failed');
  else {
    const reason = broken ? `(${broken})` : '(the server closed it without finishing the run)';
    view.showError({
      type: 'stream_broken',
      message: `The connection to the server was lost before the run finished ${reason}.`,
      hint: 'Check that `toolwire serve` is still running, then ask again.',
    });
    setState('broken', reason);
  }
}

function requestFailed(current: Session, error: unknown): void {
  if (session !== current) return;
  if (current.stopRequested) {
    setState('stopped');
    return;
  }
  const message =
    error instanceof ApiError
      ? `The server refused the request (${error.status}): ${error.message}`
      : `Cannot reach the server: ${(error as Error).message}`;
  current.view.showError({
    type: error instanceof ApiError ? 'request_error' : 'stream_broken',
    message,
    ...(error instanceof ApiError
      ? {}
      : { hint: 'Check that `toolwire serve` is running, then reload the page.' }),
  });
  setState(error instanceof ApiError ? 'failed' : 'broken');
}

async function answer(form: FrontendToolsForm): Promise<void> {
  const current = session;
  if (!current?.runId || state !== 'waiting') return;
  form.setBusy(true, 'Sending…');
  current.connection = new AbortController();
  setState('connecting');
  let response: Response;
  try {
    response = await sendToolResults(current.runId, form.results(), current.connection.signal);
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) {
      // The run still waits: let the user try again.
      form.setBusy(false, error.message);
      setState('waiting');
      return;
    }
    form.setBusy(false, '');
    requestFailed(current, error);
    return;
  }
  form.close(form.declined ? 'Declined.' : 'Answer sent.');
  await consume(current, response);
}

async function stop(): Promise<void> {
  const current = session;
  if (!current) return;
  current.stopRequested = true;
  const wasWaiting = state === 'waiting';
  setState('stopping');
  try {
    if (current.runId) await abortRun(current.runId);
    else current.connection.abort();
  } catch {
    // The server did not take it: closing the connection aborts the run too.
    current.connection.abort();
  }
  if (wasWaiting) {
    current.view.closeForms('The run was stopped.');
    setState('stopped');
    return;
  }
  // The stream ends with the server's "aborted" block; if it does not come soon, hang up.
  setTimeout(() => {
    if (session === current && state === 'stopping') current.connection.abort();
  }, 3000);
}

function describeServer(info: ServerInfo): void {
  if (info.mode === 'replay') {
    ui.banner.hidden = false;
    ui.banner.replaceChildren(
      el('span', { class: 'badge', text: 'Recording' }),
      ` This server replays ${info.recording ?? 'a recorded run'} for every question: no model is asked.`,
    );
    ui.server.textContent = 'replay mode';
    return;
  }
  ui.server.textContent = `${info.model}${info.baseURL ? ` at ${info.baseURL}` : ''} · ${info.protocol}`;
}

ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const prompt = ui.prompt.value.trim();
  if (prompt.length === 0 || ui.ask.disabled) return;
  void ask(prompt);
});
ui.prompt.addEventListener('keydown', (event) => {
  // Enter asks; Shift+Enter is a new line.
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.form.requestSubmit();
  }
});
ui.stop.addEventListener('click', () => void stop());
setState('idle');
fetchInfo().then(describeServer, () => {
  ui.server.textContent = 'server unreachable';
});
