import { parseJsonText } from '../../src/core/parse-json.ts';

/**
 * The run a turn is reading, kept in the tab's `sessionStorage` beside the conversation, so a
 * reload finds it and reads it again (from the start of its log: the transcript is rebuilt)
 * while it still runs or waits for an answer. Forgotten once the turn has ended.
 */
export const RUN_POINTER_KEY = 'toolwire.run';

export interface RunPointer {
  readonly runId: string;
  /** Which turn of the conversation reads it (0-based). */
  readonly turn: number;
}

export function saveRunPointer(storage: Storage | undefined, pointer: RunPointer): void {
  try {
    storage?.setItem(RUN_POINTER_KEY, JSON.stringify(pointer));
  } catch {
    // A full or refused storage: a reload will not resume this run, nothing else changes.
  }
}

export function forgetRunPointer(storage: Storage | undefined): void {
  try {
    storage?.removeItem(RUN_POINTER_KEY);
  } catch {
    // Refused storage keeps nothing anyway.
  }
}

/** The pointer kept, or undefined when none is, or what is kept is not one (it is removed). */
export function loadRunPointer(storage: Storage | undefined): RunPointer | undefined {
  let text: string | null;
  try {
    text = storage?.getItem(RUN_POINTER_KEY) ?? null;
  } catch {
    return undefined;
  }
  if (text === null) return undefined;
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch {
    value = undefined;
  }
  const pointer = value as Partial<RunPointer> | undefined;
  if (
    typeof pointer === 'object' &&
    pointer !== null &&
    typeof pointer.runId === 'string' &&
    pointer.runId.length > 0 &&
    Number.isSafeInteger(pointer.turn) &&
    (pointer.turn as number) >= 0
  )
    return { runId: pointer.runId, turn: pointer.turn as number };
  forgetRunPointer(storage);
  return undefined;
}
