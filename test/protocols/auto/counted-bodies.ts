/**
 * A format whose call bodies count the characters they read: how far `auto` lets a format read
 * a call that is another format's, measured as work rather than time.
 */
import type { ToolCallProtocol } from '../../../src/index.ts';
import { defineProtocol, grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import type { CallBody } from '../../../src/protocols/engine/call-body.ts';

export interface CountedFormat {
  readonly protocol: ToolCallProtocol;
  /** Characters the format's bodies consumed (a write that ended the call counts up to its end). */
  read(): number;
  reset(): void;
}

export function countedFormat(format: ToolCallProtocol): CountedFormat {
  const grammar = grammarOf(format)!;
  let consumed = 0;
  const counted = (body: CallBody): CallBody => ({
    get leftover() {
      return body.leftover;
    },
    write(text, start, end) {
      const stop = body.write(text, start, end);
      consumed += (stop === -1 ? end : stop) - start;
      return stop;
    },
    finish: (interrupted) => body.finish(interrupted),
    abandon: () => body.abandon(),
  });
  const protocol = defineProtocol<unknown>({
    name: format.name,
    grammar: {
      reasoningTags: grammar.reasoningTags,
      callOpeners: (options) => grammar.callOpeners(options),
      openCall: (data, context) => counted(grammar.openCall(data, context)),
    },
    formatTools: (tools) => format.formatTools(tools),
    formatToolCall: (calls) => format.formatToolCall(calls),
    formatToolResponse: (results) => format.formatToolResponse(results),
  });
  return {
    protocol,
    read: () => consumed,
    reset: () => {
      consumed = 0;
    },
  };
}
