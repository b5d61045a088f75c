import {
  ApiError,
  abortRun,
  fetchInfo,
  fetchStatus,
  type ServerInfo,
  sendToolResults,
  startRecording,
  startRun,
} from './api.ts';
import type { FrontendToolsForm } from './blocks.ts';
import { Conversation, type Turn } from './conversation.ts';
import { el } from './dom.ts';
import { showModelNotice } from './model-notice.ts';
import { tabStorage } from './saved-conversation.ts';
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
  modelNotice: document.querySelector<HTMLElement>('#model-notice')!,
  newConversation: document.querySelector<HTMLButtonElement>('#new-conversation')!,
  keepNote: document.querySelector<HTMLElement>('#keep-note')!,
};

/** The run of one turn, possibly over several streams (resumes). */
interface Session {
  readonly turn: Turn;
  runId: string | undefined;
  /** Aborts the fetch of the stream being read. */
  connection: AbortController;
  stopRequested: boolean;
}

let session: Session | undefined;
let state: PageState = 'idle';
let watchButton: HTMLButtonElement | undefined;
const conversation = new Conversation(ui.transcript, tabStorage(), (form) => void answer(form));
/** Set once the model notice has no more to say (see hideModelNotice). */
let modelNoticeDone = false;

function setState(next: PageState, detail = ''): void {
  state = next;
  ui.status.dataset.state = next;
  const text =
    next === 'idle' && conversation.turns.length > 0
      ? 'Ask a follow-up question, or start a new conversation.'
      : STATUS_TEXT[next];
  ui.status.textContent = detail ? `${text} ${detail}` : text;
  const active = next === 'connecting' || next === 'streaming' || next === 'waiting';
  ui.stop.disabled = !active;
  ui.ask.disabled = active || next === 'stopping';
  ui.newConversation.disabled = active || next === 'stopping' || conversation.turns.length === 0;
  if (watchButton) watchButton.disabled = ui.ask.disabled;
  document.body.dataset.state = next;
}

/** A follow-up when the conversation has a history: the model sees the earlier turns. */
function ask(prompt: string): Promise<void> {
  const history = conversation.history;
  return begin(prompt, (signal) => startRun(prompt, history, signal));
}

/** Plays the server's recording as a turn of its own; it does not join the conversation. */
function watchRecording(): Promise<void> {
  if (ui.ask.disabled) return Promise.resolve();
  hideModelNotice();
  return begin('', startRecording);
}

/**
 * The "No model server" notice has said its part once a recording plays (its button played it)
 * or a run completes (a model server answered after all).
 */
function hideModelNotice(): void {
  modelNoticeDone = true;
  ui.modelNotice.hidden = true;
  ui.modelNotice.replaceChildren();
  watchButton = undefined;
}

async function begin(
  question: string,
  request: (signal: AbortSignal) => Promise<Response>,
): Promise<void> {
  session?.connection.abort();
  const current: Session = {
    turn: conversation.addTurn(question),
    runId: undefined,
    connection: new AbortController(),
    stopRequested: false,
  };
  session = current;
  setState('connecting');
  keep(current, false);
  let response: Response;
  try {
    response = await request(current.connection.signal);
  } catch (error) {
    requestFailed(current, error);
    return;
  }
  current.runId = response.headers.get('x-run-id') ?? undefined;
  const replay = response.headers.get('x-toolwire-replay');
  if (replay) {
    current.turn.markRecording(replay);
    hideModelNotice();
  }
  await consume(current, response);
}

/** Saves the conversation as it stands; says so when the browser would not keep it. */
function keep(current: Session, ended: boolean): void {
  ui.keepNote.hidden = conversation.settle(current.turn, ended);
}

/** Reads one stream of the session to its end and says how the run stands. */
async function consume(current: Session, response: Response): Promise<void> {
  const { view } = current.turn;
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
  if (outcome.final) hideModelNotice();
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
  keep(current, state !== 'waiting');
}

function requestFailed(current: Session, error: unknown): void {
  if (session !== current) return;
  if (current.stopRequested) {
    setState('stopped');
    keep(current, true);
    return;
  }
  const refused = error instanceof ApiError;
  const message = refused
    ? `The server refused the request (${error.status}): ${error.message}`
    : `Cannot reach the server: ${(error as Error).message}`;
  // A refused follow-up may be the conversation itself (too long, or not one the server takes).
  const hint = !refused
    ? 'Check that `toolwire serve` is running, then reload the page.'
    : conversation.history.length > 0 && (error.status === 400 || error.status === 413)
      ? 'Start a new conversation (the button at the top) to ask without the earlier turns.'
      : undefined;
  current.turn.view.showError({
    type: refused ? 'request_error' : 'stream_broken',
    message,
    ...(hint === undefined ? {} : { hint }),
  });
  setState(refused ? 'failed' : 'broken');
  keep(current, true);
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
    current.turn.view.closeForms('The run was stopped.');
    setState('stopped');
    keep(current, true);
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
  // Sent: the box is for the next question (Enter must not ask this one again).
  ui.prompt.value = '';
  void ask(prompt);
});
ui.prompt.addEventListener('keydown', (event) => {
  // Enter asks; Shift+Enter is a new line.
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.form.requestSubmit();
  }
});
/** Starts over; only between runs (the button is disabled while one is going). */
function newConversation(): void {
  if (ui.newConversation.disabled) return;
  session = undefined;
  conversation.clear();
  ui.keepNote.hidden = true;
  setState('idle');
  ui.prompt.focus();
}

ui.stop.addEventListener('click', () => void stop());
ui.newConversation.addEventListener('click', newConversation);
const discarded = conversation.restore();
// A recording played before a reload has been seen: the notice that offered it stays away.
if (conversation.turns.some((turn) => turn.recording !== undefined)) modelNoticeDone = true;
if (discarded !== undefined)
  ui.transcript.prepend(
    el('div', {
      class: 'block notice',
      attrs: { 'data-block': 'storage-notice' },
      text: `The conversation kept for this tab could not be read (${discarded}), so the page starts afresh.`,
    }),
  );
setState('idle');
fetchInfo().then(describeServer, () => {
  ui.server.textContent = 'server unreachable';
});
// Asked at once, not after a question: the page says so if no model server answers.
fetchStatus().then(
  (status) => {
    // A run that played or completed while the status was asked has answered it already.
    if (modelNoticeDone) return;
    watchButton = showModelNotice(ui.modelNotice, status, () => void watchRecording());
    if (watchButton) watchButton.disabled = ui.ask.disabled;
  },
  () => {
    // The info request above says the server is unreachable.
  },
);
