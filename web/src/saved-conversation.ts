/**
 * The conversation the page keeps across a reload, in the tab's `sessionStorage` (a new tab
 * starts afresh): what the model will see next (`history`, the `conversation_history` of the
 * last completed run) and what was shown (each turn's question and blocks, as text). Stored
 * under a version; whatever is read back is checked, and anything else is discarded with a
 * reason, so a corrupt or foreign value never breaks the page.
 */

import { parseJsonText } from '../../src/core/parse-json.ts';

export const STORAGE_KEY = 'toolwire.conversation';
const VERSION = 1;

export interface SavedTurn {
  /** The question asked; empty for a recording played on request. */
  readonly question: string;
  /** The recording's label, when the turn played one instead of asking the model. */
  readonly recording?: string;
  /** The turn's blocks (see `transcriptText`). */
  readonly transcript: string;
  /** False while the run was still going: a reload cut it short. */
  readonly ended: boolean;
}

export interface SavedConversation {
  /** Conversation entries as the server sent them; the server checks them when they go back. */
  readonly history: readonly unknown[];
  readonly turns: readonly SavedTurn[];
}

export const EMPTY_CONVERSATION: SavedConversation = { history: [], turns: [] };

export type LoadedConversation =
  | { readonly conversation: SavedConversation; readonly problem?: undefined }
  /** Something was stored but could not be used (it is removed); the page starts afresh. */
  | { readonly conversation: typeof EMPTY_CONVERSATION; readonly problem: string };

/** The tab's storage, or undefined when the browser refuses it (privacy settings, sandbox). */
export function tabStorage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

export function loadConversation(storage: Storage | undefined): LoadedConversation {
  let text: string | null;
  try {
    text = storage?.getItem(STORAGE_KEY) ?? null;
  } catch {
    return { conversation: EMPTY_CONVERSATION };
  }
  if (text === null) return { conversation: EMPTY_CONVERSATION };
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch {
    return discard(storage, 'it is not JSON');
  }
  const problem = whatIsWrong(value);
  if (problem) return discard(storage, problem);
  const saved = value as SavedConversation & { version: number };
  return { conversation: { history: saved.history, turns: saved.turns } };
}

/** Stores the conversation; false when the browser would not (its storage is full or off). */
export function saveConversation(
  storage: Storage | undefined,
  conversation: SavedConversation,
): boolean {
  if (!storage) return false;
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify({ version: VERSION, ...conversation }));
    return true;
  } catch {
    return false;
  }
}

export function forgetConversation(storage: Storage | undefined): void {
  try {
    storage?.removeItem(STORAGE_KEY);
  } catch {
    // Nothing kept, nothing to forget.
  }
}

function discard(storage: Storage | undefined, problem: string): LoadedConversation {
  forgetConversation(storage);
  return { conversation: EMPTY_CONVERSATION, problem };
}

/** Why a stored value is not a saved conversation of this version, or undefined when it is. */
function whatIsWrong(value: unknown): string | undefined {
  if (!isRecord(value)) return 'it is not an object';
  if (value.version !== VERSION)
    return `it has version ${JSON.stringify(value.version) ?? 'none'}, not ${VERSION}`;
  if (!Array.isArray(value.history)) return 'its history is not a list';
  if (!value.history.every((entry) => isRecord(entry) && typeof entry.type === 'string'))
    return 'its history holds something that is not a conversation entry';
  if (!Array.isArray(value.turns)) return 'its turns are not a list';
  const bad = value.turns.findIndex((turn) => !isTurn(turn));
  return bad >= 0 ? `turn ${bad + 1} is not a question with its transcript` : undefined;
}

function isTurn(value: unknown): value is SavedTurn {
  return (
    isRecord(value) &&
    typeof value.question === 'string' &&
    typeof value.transcript === 'string' &&
    typeof value.ended === 'boolean' &&
    (value.recording === undefined || typeof value.recording === 'string')
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
