/**
 * What the model is told about `tool_choice`, in words shared by every surface that enforces it
 * (the AI SDK middleware and the proxy), so a model sees the same demand whichever one asks.
 */

/** A tool choice that demands a call: any tool (`required`), or the named one. */
export interface ToolChoiceDemand {
  readonly type: 'required' | 'tool';
  readonly toolName?: string;
}

/** Told to the model when tools are turned off for one reply (`tool_choice: none`). */
export const TOOLS_UNAVAILABLE =
  'Tools are not available for this reply. Do not write any tool call: answer in plain text. ' +
  'Tool calls and results earlier in the conversation are there for reference only.';

/** The demand in words, for messages: `a tool call` or `a call of the tool "x"`. */
export function describeDemand(demand: ToolChoiceDemand): string {
  return demand.type === 'tool' ? `a call of the tool "${demand.toolName}"` : 'a tool call';
}

/** The sentence that follows the tools section when a call is demanded. */
export function demandSentence(demand: ToolChoiceDemand): string {
  return demand.type === 'tool'
    ? `You must call the tool "${demand.toolName}" in this reply, written in the format above.`
    : 'You must call at least one of the tools above in this reply, written in the format above.';
}

/** The corrective message of the retry when the model answered a demand without a call. */
export function correctionText(demand: ToolChoiceDemand): string {
  const what =
    demand.type === 'tool'
      ? `call the tool "${demand.toolName}"`
      : 'call at least one of the tools you were given';
  return (
    `Your reply did not contain ${describeDemand(demand)}, but this reply must ${what}. ` +
    'Write the call now, exactly in the tool-call format you were given.'
  );
}

/** Most of the model's answer a "not followed" message quotes. */
const QUOTED_ANSWER_CHARS = 200;

/**
 * Why a reply failed its demand, for errors: `setting` is how the caller wrote the choice
 * (`toolChoice 'required'`, `tool_choice`), `text` what the model wrote across `attempts`.
 */
export function notFollowedMessage(
  setting: string,
  demand: ToolChoiceDemand,
  text: string,
  attempts: number,
): string {
  const shown = text.length > QUOTED_ANSWER_CHARS ? `${text.slice(0, QUOTED_ANSWER_CHARS)}…` : text;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  return `${setting} demanded ${describeDemand(demand)}, but the model answered without one${tries}. It wrote: ${JSON.stringify(shown)}`;
}
