import type { DecodedEvent } from '../../src/stream/blocks.ts';
import {
  ApiError,
  abortRun,
  fetchInfo,
  fetchStatus,
  followRun,
  type ServerInfo,
  sendToolResults,
  startRecording,
  startRun,
} from './api.ts';
import type { FrontendToolsForm } from './blocks.ts';
import { Conversation, type Turn } from './conversation.ts';
import { el } from './dom.ts';
import { showModelNotice } from './model-notice.ts';
import { forgetRunPointer, loadRunPointer, saveRunPointer } from './run-pointer.ts';
import { tabStorage } from './saved-conversation.ts';
import { endsStream, RunStreamReader } from './stream-reader.ts';

/** Where the page is; `#status` carries it as `data-state` (tests and styles read it). */
type PageState =
  | 'idle'
  | 'connecting'
  | 'streaming'
  | 'reconnecting'
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
  reconnecting: 'The connection dropped; reconnecting…',
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

/** The run of one turn, possibly over several streams (resumes) and connections (reconnects). */
interface Session {
  readonly turn: Turn;
  runId: string | undefined;
  /** A recording played to this page only: not logged, so not read again after a drop. */
  replay: boolean;
  /** One decoder for every response of the run, so a reconnect continues where the last stopped. */
  readonly reader: RunStreamReader;
  /** Aborts the fetch of the stream being read (the page moved on); never stops the run. */
  connection: AbortController;
  stopRequested: boolean;
  /** Ends a reconnect's wait at once (Stop: the run's end is to be read now). */
  wake: (() => void) | undefined;
}

/** Waits before the n-th reconnect in a row (1-based): 0.5 s, doubling up to 8 s. */
const reconnectDelayMs = (attempt: number) => Math.min(500 * 2 ** (attempt - 1), 8000);
/** Reconnects in a row that read nothing before the page says the stream broke. */
const MAX_RECONNECTS = 8;
/** Reconnects in a row that found no server at all (it was stopped, not a dropped connection). */
const MAX_UNREACHABLE = 3;

let session: Session | undefined;
/** The run a reload reads again, while its response is awaited (no session yet). */
let resuming: { readonly runId: string; stopRequested: boolean } | undefined;
let state: PageState = 'idle';
let watchButton: HTMLButtonElement | undefined;
const storage = tabStorage();
const conversation = new Conversation(ui.transcript, storage, (form) => void answer(form));
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
  const active =
    next === 'connecting' || next === 'streaming' || next === 'reconnecting' || next === 'waiting';
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
  forgetRunPointer(storage);
  const current = newSession(conversation.addTurn(question));
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
    current.replay = true;
    current.turn.markRecording(replay);
    hideModelNotice();
  }
  // Stop was pressed before the run had an id: stop it now.
  if (current.stopRequested && current.runId) void abortRun(current.runId).catch(() => {});
  await consume(current, response);
}

function newSession(turn: Turn): Session {
  const current: Session = {
    turn,
    runId: undefined,
    replay: false,
    reader: new RunStreamReader(),
    connection: new AbortController(),
    stopRequested: false,
    wake: undefined,
  };
  session = current;
  return current;
}

/**
 * After a reload: the run the last turn was reading, if it was kept, is read again from the
 * start of its log (the transcript is rebuilt) in place of the saved transcript, live while it
 * runs, with its form while it waits for an answer. A run the server no longer has leaves the
 * saved transcript, saying the reload cut it short.
 */
async function resumeAfterReload(runId: string): Promise<void> {
  const open = conversation.openTurn;
  if (!open) return;
  const connection = new AbortController();
  const pending = { runId, stopRequested: false };
  resuming = pending;
  setState('connecting');
  let response: Response;
  try {
    response = await followRun(runId, undefined, connection.signal);
  } catch (error) {
    resuming = undefined;
    forgetRunPointer(storage);
    conversation.interrupted(
      open,
      error instanceof ApiError
        ? `the server cannot give its run again: ${error.message}`
        : `the server did not answer: ${(error as Error).message}`,
    );
    setState('idle');
    return;
  }
  resuming = undefined;
  // A question asked meanwhile is a turn of its own: this one is left as it was saved.
  if (session !== undefined || conversation.openTurn !== open) {
    connection.abort();
    return;
  }
  const current = newSession(conversation.reopen(open));
  current.runId = runId;
  current.connection = connection;
  // Stop pressed while the run was asked for: it was sent then; its end is read as usual.
  current.stopRequested = pending.stopRequested;
  if (current.stopRequested) setState('stopping');
  await consume(current, response);
}

/** Saves the conversation as it stands; says so when the browser would not keep it. */
function keep(current: Session, ended: boolean): void {
  ui.keepNote.hidden = conversation.settle(current.turn, ended);
}

/**
 * The run's id and its turn, so a reload can find the run again (it reads the run from the
 * start, so nothing that changes while it is read is kept).
 */
function noteRun(current: Session): void {
  if (current.runId === undefined || current.replay || session !== current) return;
  const turn = conversation.turns.indexOf(current.turn);
  if (turn < 0) return;
  saveRunPointer(storage, { runId: current.runId, turn });
}

/** Waits `ms` before a reconnect, or less when Stop wakes it or the page moves on. */
function reconnectWait(current: Session, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      current.connection.signal.removeEventListener('abort', done);
      current.wake = undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    current.wake = done;
    current.connection.signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Reads the session's stream until the run completes, pauses or ends. A connection that drops
 * before (broken, or closed by something between) is opened again after the last complete
 * event, with a growing wait, while the server answers; the transcript goes on as if nothing
 * happened. Then says how the run stands.
 */
async function consume(current: Session, response: Response): Promise<void> {
  const { view } = current.turn;
  view.beginStream();
  /** The last event read ended the stream: there is nothing to reconnect for. */
  let settled = false;
  const onEvents = (events: DecodedEvent[]) => {
    view.apply(events);
    if (events.length > 0) settled = endsStream(events.at(-1)!);
  };
  noteRun(current);
  let next: Response | undefined = response;
  let reason = 'the server closed it without finishing the run';
  /** Reconnects in a row that read nothing new, and that reached no server. */
  let idle = 0;
  let unreachable = 0;
  let fatal = false;
  while (true) {
    if (next) {
      if (!current.stopRequested) setState('streaming');
      const from = current.reader.lastEventId;
      const ended = await current.reader.read(next, onEvents);
      if (current.reader.lastEventId !== from) idle = 0;
      reason = ended.broken ? ended.reason : 'the server closed it without finishing the run';
    }
    if (session !== current) return;
    // A recording is played to this page only: there is nothing to read again.
    if (settled || current.runId === undefined || current.replay) break;
    current.reader.dropPartialMessage();
    idle++;
    if (idle > MAX_RECONNECTS || unreachable >= MAX_UNREACHABLE) break;
    if (!current.stopRequested) setState('reconnecting');
    if (!current.stopRequested) await reconnectWait(current, reconnectDelayMs(idle));
    if (session !== current) return;
    try {
      next = await followRun(current.runId, current.reader.lastEventId, current.connection.signal);
      unreachable = 0;
    } catch (error) {
      if (session !== current) return;
      next = undefined;
      if (error instanceof ApiError) {
        reason = `the server cannot give the rest of the run: ${error.message}`;
        // Unknown run, events no longer kept, a refused id: asking again changes nothing.
        fatal = error.status === 400 || error.status === 404 || error.status === 410;
        if (fatal) break;
      } else {
        unreachable++;
        reason = `the server did not answer: ${(error as Error).message}`;
      }
    }
  }
  current.reader.end(onEvents);
  view.flush();
  const outcome = view.streamOutcome;
  if (outcome.final) hideModelNotice();
  if (outcome.final) setState('done');
  else if (outcome.awaiting) setState('waiting');
  else if (current.stopRequested) setState('stopped');
  else if (settled) setState('failed');
  else {
    view.showError({
      type: 'stream_broken',
      message: `The connection to the server was lost before the run finished (${reason}).`,
      hint:
        current.runId === undefined || current.replay || fatal
          ? 'Check that `toolwire serve` is still running, then ask again.'
          : 'Check that `toolwire serve` is still running, then reload the page: the run is read again if the server still has it.',
    });
    setState('broken', `(${reason})`);
  }
  // A run that may still go on keeps its pointer, so a reload reads it again.
  const resumable = state === 'waiting' || (state === 'broken' && !fatal && !current.replay);
  if (!resumable) forgetRunPointer(storage);
  keep(current, !resumable);
}

function requestFailed(current: Session, error: unknown): void {
  if (session !== current) return;
  forgetRunPointer(storage);
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

/**
 * Stop asks the server to stop the run (the abort route: closing a connection never stops a
 * run), wherever it runs; the stream then ends with its "aborted" block. Before the run has an
 * id, `begin` asks once the id comes.
 */
async function stop(): Promise<void> {
  const current = session;
  if (!current) {
    if (resuming && !resuming.stopRequested) {
      resuming.stopRequested = true;
      setState('stopping');
      await abortRun(resuming.runId).catch(() => {});
    }
    return;
  }
  current.stopRequested = true;
  const wasWaiting = state === 'waiting';
  setState('stopping');
  if (current.runId) {
    try {
      await abortRun(current.runId);
    } catch {
      // Already over (409), or the server is away: the stream, or its reconnects, say how it ended.
    }
  }
  if (session !== current) return;
  if (wasWaiting) {
    forgetRunPointer(storage);
    current.turn.view.closeForms('The run was stopped.');
    setState('stopped');
    keep(current, true);
    return;
  }
  // A reconnect waiting its turn goes now, to read the run's end.
  current.wake?.();
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
  session?.connection.abort();
  session = undefined;
  forgetRunPointer(storage);
  conversation.clear();
  ui.keepNote.hidden = true;
  setState('idle');
  ui.prompt.focus();
}

ui.stop.addEventListener('click', () => void stop());
ui.newConversation.addEventListener('click', newConversation);
const pointer = loadRunPointer(storage);
const discarded = conversation.restore(pointer?.turn);
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
if (pointer !== undefined && conversation.openTurn !== undefined)
  void resumeAfterReload(pointer.runId);
else forgetRunPointer(storage);
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
