import type { FrontendToolsForm } from './blocks.ts';
import { el } from './dom.ts';
import { RunView } from './run-view.ts';
import {
  EMPTY_CONVERSATION,
  forgetConversation,
  loadConversation,
  type SavedConversation,
  type SavedTurn,
  saveConversation,
} from './saved-conversation.ts';
import { transcriptEvents, transcriptText } from './transcript-text.ts';

/** One question (or a recording played) and its run, in its own section of the transcript. */
export class Turn {
  readonly question: string;
  readonly view: RunView;
  readonly section: HTMLElement;
  /** The recording's label, once the server said it played one. */
  recording: string | undefined;
  /** The run has ended (completed, failed, stopped): its blocks no longer change. */
  ended = false;
  /** The transcript text once ended, so a save does not encode it again. */
  private text: string | undefined;

  constructor(question: string, section: HTMLElement, onAnswer: (form: FrontendToolsForm) => void) {
    this.question = question;
    this.section = section;
    this.view = new RunView(section, onAnswer);
  }

  /** Shows, at the top of the turn, that its blocks are a recording. */
  markRecording(label: string): void {
    this.recording = label;
    const notice = el(
      'div',
      { class: 'block meta recording', attrs: { 'data-block': 'replay-notice' } },
      el('span', { class: 'badge', text: 'Recording' }),
      this.question
        ? ` Replaying ${label}: a recorded run, not an answer to your question.`
        : ` Replaying ${label}: a recorded run, no model was asked.`,
    );
    const question = this.section.querySelector('.question');
    if (question) question.after(notice);
    else this.section.prepend(notice);
  }

  saved(): SavedTurn {
    const transcript = this.text ?? transcriptText(this.view.document.blocks);
    if (this.ended) this.text = transcript;
    return {
      question: this.question,
      ...(this.recording === undefined ? {} : { recording: this.recording }),
      transcript,
      ended: this.ended,
    };
  }
}

/**
 * The page's conversation: its turns on screen, and the history the model sees next (the
 * `conversation_history` of the last completed run), kept in the tab's storage so a reload
 * shows the same and continues the same. A recording's history is never taken: it answered
 * nothing.
 */
export class Conversation {
  private readonly container: HTMLElement;
  private readonly storage: Storage | undefined;
  private readonly onAnswer: (form: FrontendToolsForm) => void;
  private turnList: Turn[] = [];
  private historyEntries: readonly unknown[] = [];

  constructor(
    container: HTMLElement,
    storage: Storage | undefined,
    onAnswer: (form: FrontendToolsForm) => void,
  ) {
    this.container = container;
    this.storage = storage;
    this.onAnswer = onAnswer;
  }

  /** What the next question is sent with. */
  get history(): readonly unknown[] {
    return this.historyEntries;
  }

  get turns(): readonly Turn[] {
    return this.turnList;
  }

  /** A new turn at the end of the transcript (an empty question: a recording on request). */
  addTurn(question: string): Turn {
    const section = el('section', {
      class: 'turn',
      attrs: { 'data-turn': String(this.turnList.length + 1) },
    });
    if (question) section.append(el('div', { class: 'question', text: question }));
    this.container.append(section);
    const turn = new Turn(question, section, this.onAnswer);
    this.turnList.push(turn);
    return turn;
  }

  /**
   * A stream of `turn` has ended (or its request failed): a completed run's history becomes the
   * conversation, and everything is saved. Returns false when the browser would not keep it.
   */
  settle(turn: Turn, ended: boolean): boolean {
    turn.ended = ended;
    const history = turn.recording === undefined ? turn.view.conversationHistory : undefined;
    if (history) this.historyEntries = history;
    return this.save();
  }

  save(): boolean {
    const saved: SavedConversation = {
      history: this.historyEntries,
      turns: this.turnList.map((turn) => turn.saved()),
    };
    return saveConversation(this.storage, saved);
  }

  /**
   * Shows the conversation kept before the reload. A run the reload cut short says so, and a
   * question the agent was waiting on can no longer be answered, except in the turn
   * `resumable` (an index): if it is the last one and had not ended, it is left open (not
   * ended, no notice) for the page to read its run again (`reopen`) or say it cannot
   * (`interrupted`). Returns why a stored value was discarded, if one was.
   */
  restore(resumable?: number): string | undefined {
    const { conversation, problem } = loadConversation(this.storage);
    this.historyEntries = conversation.history;
    let cutShort = false;
    const last = conversation.turns.length - 1;
    conversation.turns.forEach((saved, index) => {
      const turn = this.addTurn(saved.question);
      if (saved.recording !== undefined) turn.markRecording(saved.recording);
      turn.view.apply(transcriptEvents(saved.transcript));
      turn.view.flush();
      turn.view.closeForms('The page was reloaded: this question can no longer be answered.');
      if (!saved.ended && index === last && index === resumable) return;
      if (!saved.ended) {
        cutShort = true;
        this.showInterrupted(turn);
      }
      turn.ended = true;
    });
    if (cutShort) this.save();
    return problem;
  }

  /** The last turn, left open by `restore`, if one was. */
  get openTurn(): Turn | undefined {
    const turn = this.turnList.at(-1);
    return turn === undefined || turn.ended ? undefined : turn;
  }

  /**
   * A fresh turn in place of `turn` (the last one), with the same question, for its run read
   * again from the start: the transcript is rebuilt from the run's own log.
   */
  reopen(turn: Turn): Turn {
    if (this.turnList.at(-1) !== turn) throw new Error('only the last turn can be reopened');
    this.turnList.pop();
    turn.section.remove();
    return this.addTurn(turn.question);
  }

  /** The open turn's run cannot be read again (`why`): it says the reload cut it short. */
  interrupted(turn: Turn, why: string): void {
    this.showInterrupted(turn, why);
    turn.ended = true;
    this.save();
  }

  private showInterrupted(turn: Turn, why?: string): void {
    turn.view.showError({
      type: 'interrupted',
      message: `The page was reloaded before this run finished${why === undefined ? '' : ` (${why})`}.`,
    });
  }

  /** Starts over: no turns, no history, nothing kept. */
  clear(): void {
    this.turnList = [];
    this.historyEntries = EMPTY_CONVERSATION.history;
    this.container.replaceChildren();
    forgetConversation(this.storage);
  }
}
