import type { ParseEvent, ToolCallProtocol, ToolDefinition } from '../core/index.ts';

export interface ParseCommandInput {
  readonly protocol: ToolCallProtocol;
  readonly tools: readonly ToolDefinition[];
  readonly text: string;
  /** Push the text in pieces of this many characters; whole at once when undefined. */
  readonly chunkSize?: number;
}

/** Runs the stream parser over the text as the CLI would, returning every event in order. */
export function runParse({ protocol, tools, text, chunkSize }: ParseCommandInput): ParseEvent[] {
  const parser = protocol.createStreamParser({ tools });
  const events: ParseEvent[] = [];
  if (chunkSize === undefined) {
    events.push(...parser.push(text));
  } else {
    for (let start = 0; start < text.length; start += chunkSize) {
      for (const event of parser.push(text.slice(start, start + chunkSize))) events.push(event);
    }
  }
  for (const event of parser.end()) events.push(event);
  return events;
}
