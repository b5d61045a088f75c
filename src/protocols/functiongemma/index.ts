import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import { DOT, LEFT_BRACE, MINUS } from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { createJsonValueStreamer, type JsonValueStreamer } from '../../scan/json-value-streamer.ts';
import { LiteralFinder } from '../../scan/literal-finder.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { createValuePolicy } from '../../schema/index.ts';
import { isNamePart } from '../codecs/python/python-call-values.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import { CallAssembler, MAX_KEPT_ARGUMENT_CHARS } from '../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import type { ResultTextGuard } from '../results/result-text.ts';
import { ForeignCallBody, type ForeignCallMarkup } from './foreign-call.ts';
import {
  formatFunctionGemmaToolCall,
  formatFunctionGemmaToolResponse,
  formatFunctionGemmaTools,
} from './format.ts';
import { GemmaValueReader } from './values.ts';

const CALL_PREFIX = 'call:';
const CLOSER = '<end_function_call>';
const MAX_NAME = 256;

/**
 * Whether the opener is the call token (explicit) or a bare `call:` that begins the output (the
 * server stripped FunctionGemma's special tokens).
 */
interface GemmaCall {
  readonly explicit: boolean;
  /** Another model's tokens around a `call:NAME{…}`: reported, never read (ForeignCallBody). */
  readonly foreign?: ForeignCallMarkup;
}

const GEMMA4: ForeignCallMarkup = {
  family: 'Gemma 4',
  closer: '<tool_call|>',
  stringDelimiter: '<|"|> tokens',
};

/**
 * A bare `call:NAME{…}` is read only where it begins the output: a literal that starts with a
 * line break is matched at the start of the output (and, by the engine's name-line rule, only
 * before a line that starts with a tag, where no call can follow it). So prose, a result or
 * another format's markup that mentions a call is never read as one. Gemma 4's `<|tool_call>`
 * around a `call:NAME{…}` is another grammar: its block is reported, never run.
 */
const OPENERS: readonly Opener<GemmaCall>[] = [
  { literal: '<start_function_call>', delimited: false, data: { explicit: true } },
  { literal: `\n${CALL_PREFIX}`, delimited: false, data: { explicit: false } },
  { literal: '<|tool_call>', delimited: false, data: { explicit: true, foreign: GEMMA4 } },
];

/**
 * What a text result may not hold as it is: the `<escape>` that would end its string, the
 * response and call tags (a bare `call:` opens a call only at the output's start).
 */
const RESULT_GUARD: ResultTextGuard = {
  tags: [
    'escape',
    'start_function_response',
    'end_function_response',
    'start_function_call',
    'end_function_call',
  ],
};

const Phase = {
  Prefix: 0,
  Name: 1,
  Value: 2,
  AfterValue: 3,
  Done: 4,
  /**
   * An explicit call of a tool the request did not declare: text through its closing token, and
   * nothing in its arguments is read again (by this format or by `auto`).
   */
  Undeclared: 5,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** A call of a bare block, read whole and held until the block is known to be all calls. */
interface HeldCall {
  readonly tool: ToolDefinition;
  readonly streamer: JsonValueStreamer;
  readonly json: string[];
}

/**
 * FunctionGemma's calls after their opener.
 *
 * Explicit, `<start_function_call>call:NAME{key:<escape>text<escape>,n:5}<end_function_call>`:
 * the arguments stream as JSON typed by the tool's schema, and the call runs once its closing
 * token came (or the output ended there, not cut off: a stop sequence may take the token).
 *
 * Bare, once a server stripped the tokens: `call:NAME{…}` calls one after another, white space
 * between, at the start of the output and up to its end. Their strings may be bare text (the
 * `<escape>` tokens are gone too). Nothing marks where such a block ends but the end of the
 * output, so its calls are held and run only then; anything else after them fails the block.
 *
 * Either way the arguments are FunctionGemma's grammar and nothing else (see GemmaValueReader):
 * a token or delimiter it does not define fails the call.
 */
class GemmaCallBody implements CallBody {
  private readonly context: CallContext;
  private readonly explicit: boolean;
  private phase: Phase;
  private prefixMatched = 0;
  private name = '';
  private tool: ToolDefinition | undefined;
  private assembler: CallAssembler | undefined;
  private streamer: JsonValueStreamer | undefined;
  private reader: GemmaValueReader | undefined;
  /** Finds the closing token of an undeclared tool's explicit call (Phase.Undeclared). */
  private undeclaredEnd: LiteralFinder | undefined;
  private closerMatched = 0;
  private doneAt = -1;
  /** The calls of a bare block read so far. */
  private readonly held: HeldCall[] = [];

  constructor(context: CallContext, call: GemmaCall) {
    this.context = context;
    this.explicit = call.explicit;
    this.phase = call.explicit ? Phase.Prefix : Phase.Name;
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    while (index < end && this.doneAt === -1) {
      const code = text.charCodeAt(index);
      switch (this.phase) {
        case Phase.Prefix:
          if (this.prefixMatched === 0 && isWhiteSpace(code)) index++;
          else if (code !== CALL_PREFIX.charCodeAt(this.prefixMatched)) {
            return this.explicit
              ? this.malformed(index, 'expected call:NAME{…} after <start_function_call>')
              : this.blockFails(index, 'text follows');
          } else if (++this.prefixMatched === CALL_PREFIX.length) {
            this.phase = Phase.Name;
            index++;
          } else index++;
          break;
        case Phase.Name: {
          let stop = index;
          while (stop < end && isToolNamePart(text.charCodeAt(stop))) stop++;
          this.name += text.slice(index, stop);
          if (this.name.length > MAX_NAME) return this.notACall(stop, 'the tool name is too long');
          if (stop === end) return -1;
          if (text.charCodeAt(stop) !== LEFT_BRACE) {
            return this.notACall(stop, `expected "{" after call:${this.name}`);
          }
          this.tool = this.context.options.toolsByName.get(this.name);
          if (!this.tool && this.explicit) {
            this.undeclaredEnd = new LiteralFinder(CLOSER);
            this.phase = Phase.Undeclared;
            index = stop;
            break;
          }
          if (!this.tool) {
            return this.held.length > 0
              ? this.blockFails(stop, `"${this.name}" is not a declared tool`)
              : this.settleText(stop);
          }
          this.begin(this.tool);
          index = stop;
          break;
        }
        case Phase.Undeclared: {
          const found = this.undeclaredEnd!.find(text, index, end);
          return found === -1 ? -1 : this.settleText(found);
        }
        case Phase.Value: {
          const reader = this.reader!;
          const stop = reader.write(text, index, end);
          if (stop === -1) {
            if (reader.status === 'failed') {
              return this.fault(
                reader.stoppedAt,
                reader.tooDeep ? 'too-deep' : 'malformed-call',
                `the arguments of "${this.name}" could not be read: ${reader.failure}`,
              );
            }
            return -1;
          }
          this.phase = Phase.AfterValue;
          index = stop;
          break;
        }
        default: {
          if (this.closerMatched === 0 && isWhiteSpace(code)) {
            index++;
          } else if (!this.explicit) {
            // The next bare call of the block, or text that fails it.
            this.phase = Phase.Prefix;
            this.prefixMatched = 0;
            this.name = '';
          } else if (code === CLOSER.charCodeAt(this.closerMatched)) {
            index++;
            if (++this.closerMatched === CLOSER.length) {
              this.complete();
              return this.done(index);
            }
          } else {
            return this.fault(
              index,
              'malformed-call',
              `expected ${CLOSER} after the arguments of "${this.name}"; the call was not run`,
            );
          }
        }
      }
    }
    return this.doneAt;
  }

  private begin(tool: ToolDefinition): void {
    const policy = createValuePolicy(tool.inputSchema);
    if (this.explicit) {
      this.assembler = new CallAssembler(this.context, tool);
      this.streamer = createJsonValueStreamer(policy, this.assembler.delta, {
        maxKeptStringChars: MAX_KEPT_ARGUMENT_CHARS,
      });
      this.assembler.start();
    } else {
      const json: string[] = [];
      this.streamer = createJsonValueStreamer(policy, (piece) => json.push(piece), {
        maxKeptStringChars: MAX_KEPT_ARGUMENT_CHARS,
      });
      this.held.push({ tool, streamer: this.streamer, json });
    }
    this.reader = new GemmaValueReader(this.streamer, {
      bareText: !this.explicit,
      maxDepth: this.context.options.maxDepth,
    });
    this.phase = Phase.Value;
  }

  private complete(): void {
    const streamer = this.streamer!;
    const assembler = this.assembler!;
    const readBack = !streamer.keptStreamedStrings && this.context.options.validate;
    assembler.complete(readBack ? JSON.parse(assembler.inputText()) : streamer.value);
  }

  /** The output ended after a bare block: each call runs, in order. */
  private runHeld(): void {
    for (const call of this.held) {
      const json = call.json.join('');
      const value = call.streamer.keptStreamedStrings ? JSON.parse(json) : call.streamer.value;
      new CallAssembler(this.context, call.tool).completeWhole(json, value);
    }
  }

  private done(index: number): number {
    this.phase = Phase.Done;
    this.doneAt = index;
    return index;
  }

  private settleText(index: number): number {
    this.context.settle({ kind: 'not-a-call' });
    return this.done(index);
  }

  /** Not `call:NAME{`: text where a bare block would begin, a fault anywhere else. */
  private notACall(index: number, message: string): number {
    if (this.explicit) return this.malformed(index, message);
    return this.held.length > 0 ? this.blockFails(index, message) : this.settleText(index);
  }

  private malformed(index: number, message: string): number {
    this.context.settle({ kind: 'fault', code: 'malformed-call', message });
    return this.done(index);
  }

  /** Something other than a bare call follows bare calls: none of them runs. */
  private blockFails(index: number, reason: string): number {
    return this.malformed(
      index,
      `${reason} after call:NAME{…} written without FunctionGemma's tokens, which is read only when the whole output is such calls; none was run`,
    );
  }

  private fault(
    index: number,
    code: 'malformed-call' | 'too-deep' | 'incomplete-call',
    message: string,
  ): number {
    if (this.assembler) this.assembler.fail(code, message);
    else this.context.settle({ kind: 'fault', code, message, toolName: this.name });
    return this.done(index);
  }

  finish(interrupted: boolean): void {
    if (this.phase === Phase.Done) return;
    if (this.phase === Phase.Undeclared) {
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    if (this.phase === Phase.AfterValue) {
      if (interrupted) {
        this.fault(
          0,
          'incomplete-call',
          `the output was cut off after the arguments of "${this.name}"; the call was not run`,
        );
      } else if (this.explicit) {
        this.complete();
        // A closing token cut short is text, not a lost part of the output.
        const at = this.context.callLength;
        if (this.closerMatched > 0) {
          this.context.emitText(this.context.callText(at - this.closerMatched, at));
        }
      } else this.runHeld();
      return;
    }
    if (this.phase === Phase.Value) {
      this.fault(
        0,
        'incomplete-call',
        `the output ${interrupted ? 'was cut off' : 'ended'} inside the arguments of "${this.name}"; the call was not run`,
      );
      return;
    }
    if (this.explicit) {
      this.context.settle({
        kind: 'fault',
        code: 'incomplete-call',
        message: 'the output ended right after <start_function_call>',
      });
    } else if (this.held.length > 0) {
      this.fault(0, 'incomplete-call', `the output ended inside call:${this.name}; none was run`);
    } else this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.assembler?.end();
  }
}

function isToolNamePart(code: number): boolean {
  return isNamePart(code) || code === MINUS || code === DOT;
}

/**
 * FunctionGemma's calls: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`,
 * one block per call. Keys are bare, strings sit between `<escape>` tokens, numbers and booleans
 * are bare, objects and arrays nest; anything else (Gemma 4's `<|"|>`, quotes, other tokens)
 * fails the call. Without the tokens (a server stripped them), `call:NAME{…}` calls are read
 * only when they make up the whole output, from its first character to its end.
 */
export function functionGemmaProtocol(): ToolCallProtocol {
  return defineProtocol<GemmaCall>({
    name: 'functiongemma',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: () => OPENERS,
      openCall: (call, context) =>
        call.foreign
          ? new ForeignCallBody(context, call.foreign)
          : new GemmaCallBody(context, call),
    },
    formatTools: formatFunctionGemmaTools,
    formatToolCall: formatFunctionGemmaToolCall,
    formatToolResponse: (results) => formatFunctionGemmaToolResponse(results, RESULT_GUARD),
    formatToolResponseForAnyReader: (results) => formatFunctionGemmaToolResponse(results),
  });
}

export const functionGemmaFormat: FormatEntry = {
  name: 'functiongemma',
  aliases: ['function-gemma', 'function_gemma'],
  families: 'FunctionGemma',
  example: '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>',
  create: functionGemmaProtocol,
  models: [/functiongemma/, /function-gemma/],
  agent: CALLS_RUN_TOGETHER,
};
