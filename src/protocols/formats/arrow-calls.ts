/**
 * The `[TOOL_CALL] {tool => "NAME", args => {…}} [/TOOL_CALL]` arrow form: what MiniMax M2.5 and
 * M2.7 write in plain text when they do not use their `<minimax:tool_call>` XML (agents' parsers
 * call it "mmx bracket-arrow"; no chat template teaches it and no server parser reads it). The
 * arguments come in several dialects: CLI flags (`{ --query "Python" --top_k 20 }`), JSON, JSON
 * with bare keys (`{path: "README.md"}`), Perl pairs (`{query => "topic", k => 3}`).
 *
 * No codec of the spec reads this envelope, so the reading is a `callBody` hook (`ArrowCallBody`,
 * the whole block read at its closer; the arguments do not stream). The spec says everything
 * else: how calls and results are written, and the result guard. Only a declared tool's call is
 * a call: anything else between the markers stays text (a model quoting the form, an invented
 * tool), and a block naming a declared tool whose arguments cannot be read is reported with its
 * text, never run.
 */

import type { ToolCallProtocol } from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { parseLenientJson } from '../../scan/lenient-json.ts';
import { LiteralFinder } from '../../scan/literal-finder.ts';
import { createValuePolicy } from '../../schema/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { CallAssembler } from '../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

const OPEN = '[TOOL_CALL]';
const CLOSE = '[/TOOL_CALL]';

export const arrowCallsSpec: FormatSpec = {
  spec: 1,
  name: 'arrow-calls',
  aliases: ['tool-call-arrow', 'mmx-arrow'],
  families: 'MiniMax M2.5 / M2.7 plain-text fallback',
  models: [],
  example: '[TOOL_CALL]\n{tool => "get_weather", args => {--city "Oslo"}}\n[/TOOL_CALL]',
  calls: [
    // The reading is ArrowCallBody's (the callBody hook); the forms give the writer and the guard.
    { codec: 'json', open: OPEN, close: CLOSE, certainty: 'speculative' },
    { codec: 'json', open: 'TOOL_CALL\n', close: '/TOOL_CALL', certainty: 'speculative' },
  ],
  write: { call: `${OPEN}\n{tool => {name_json}, args => {arguments}}\n${CLOSE}` },
  results: { each: '<tool_result name="{name}">\n{output}\n</tool_result>', join: '\n' },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these tools, given as JSON:',
      '{tools}',
      '',
      'To call a tool, write the call like this, with its arguments as a JSON object:',
      '{example}',
      '',
      'Several calls may follow one another. Each result comes back to you after your calls.',
    ].join('\n'),
  },
};

/** What a block between the markers holds. */
export type ArrowBlock =
  | { readonly kind: 'call'; readonly name: string; readonly input: unknown }
  /** The block names a tool but its arguments cannot be read. */
  | { readonly kind: 'malformed'; readonly name: string; readonly reason: string }
  /** Not the arrow envelope at all (prose, a placeholder): text. */
  | { readonly kind: 'text' };

const TEXT: ArrowBlock = { kind: 'text' };

/** A cursor over the block's text: every step moves forward, so reading is linear. */
class Cursor {
  index = 0;
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  get done(): boolean {
    return this.index >= this.text.length;
  }

  peek(): string {
    return this.text.charAt(this.index);
  }

  skipSpace(): void {
    while (!this.done && isSpace(this.text.charCodeAt(this.index))) this.index++;
  }

  /** Consumes `literal` when it comes next. */
  take(literal: string): boolean {
    if (!this.text.startsWith(literal, this.index)) return false;
    this.index += literal.length;
    return true;
  }

  /** A double- or single-quoted string from the current quote, decoded; undefined if unclosed. */
  quoted(): string | undefined {
    const quote = this.peek();
    const start = this.index;
    let index = start + 1;
    while (index < this.text.length && this.text[index] !== quote) {
      index += this.text[index] === '\\' ? 2 : 1;
    }
    if (index >= this.text.length) return undefined;
    this.index = index + 1;
    const body = this.text.slice(start + 1, index);
    const decoded = parseLenientJson(`"${quote === '"' ? body : body.replaceAll('"', '\\"')}"`);
    return typeof decoded === 'string' ? decoded : body;
  }

  /** Characters up to white space, a comma or a closing brace. */
  bareWord(): string {
    const start = this.index;
    while (!this.done) {
      const code = this.text.charCodeAt(this.index);
      if (isSpace(code) || code === 0x2c || code === 0x7d) break;
      this.index++;
    }
    return this.text.slice(start, this.index);
  }

  /** From a `{`, the text up to its matching `}` (quoted strings skipped); undefined if unclosed. */
  braced(): string | undefined {
    const start = this.index;
    let depth = 0;
    let index = start;
    while (index < this.text.length) {
      const character = this.text[index];
      if (character === '"' || character === "'") {
        index++;
        while (index < this.text.length && this.text[index] !== character) {
          index += this.text[index] === '\\' ? 2 : 1;
        }
      } else if (character === '{') depth++;
      else if (character === '}' && --depth === 0) {
        this.index = index + 1;
        return this.text.slice(start + 1, index);
      }
      index++;
    }
    return undefined;
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** A bare value: a number, `true`, `false` or `null` as JSON, anything else as the string. */
function bareValue(word: string): unknown {
  if (/^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/.test(word))
    return parseJsonText(word);
  return word;
}

/** `--key "value" --flag --n 20`: each flag a key, a flag with no value `true`. */
function readCliFlags(text: string): Record<string, unknown> | string {
  const cursor = new Cursor(text);
  const input: Record<string, unknown> = {};
  for (cursor.skipSpace(); !cursor.done; cursor.skipSpace()) {
    if (!cursor.take('--'))
      return `expected --name at "${text.slice(cursor.index, cursor.index + 20)}"`;
    const start = cursor.index;
    while (
      !cursor.done &&
      !isSpace(cursor.text.charCodeAt(cursor.index)) &&
      cursor.peek() !== '='
    ) {
      cursor.index++;
    }
    const key = text.slice(start, cursor.index);
    if (key.length === 0) return 'a flag with no name';
    if (!cursor.take('=')) cursor.skipSpace();
    if (cursor.done || cursor.text.startsWith('--', cursor.index)) {
      input[key] = true;
    } else if (cursor.peek() === '"' || cursor.peek() === "'") {
      const value = cursor.quoted();
      if (value === undefined) return `the value of --${key} is not closed`;
      input[key] = value;
    } else input[key] = bareValue(cursor.bareWord());
  }
  return input;
}

/** `key => value, …` (Perl pairs): bare or quoted keys, quoted or bare values. */
function readArrowPairs(text: string): Record<string, unknown> | string {
  const cursor = new Cursor(text);
  const input: Record<string, unknown> = {};
  for (cursor.skipSpace(); !cursor.done; cursor.skipSpace()) {
    const quote = cursor.peek();
    const key = quote === '"' || quote === "'" ? cursor.quoted() : cursor.bareWord();
    if (!key) return 'a pair with no key';
    cursor.skipSpace();
    if (!cursor.take('=>')) return `expected => after "${key}"`;
    cursor.skipSpace();
    const next = cursor.peek();
    if (next === '"' || next === "'") {
      const value = cursor.quoted();
      if (value === undefined) return `the value of "${key}" is not closed`;
      input[key] = value;
    } else input[key] = bareValue(cursor.bareWord());
    cursor.skipSpace();
    cursor.take(',');
  }
  return input;
}

/** The arguments between `args => {` and their `}`: an object, or why not. */
function readArguments(inner: string): Record<string, unknown> | string | undefined {
  const trimmed = inner.trim();
  if (trimmed.length === 0) return {};
  // `{...}`: a placeholder copied from an example, not arguments.
  if (trimmed === '...' || trimmed === '…') return undefined;
  if (trimmed.startsWith('--')) return readCliFlags(trimmed);
  const json = parseLenientJson(`{${inner}}`);
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    return json as Record<string, unknown>;
  }
  if (trimmed.includes('=>')) return readArrowPairs(trimmed);
  return 'the arguments are neither JSON, --flags nor key => value pairs';
}

/** Reads one block's text (between the markers) as the arrow envelope. Linear in its length. */
export function readArrowBlock(text: string): ArrowBlock {
  const cursor = new Cursor(text);
  cursor.skipSpace();
  if (!cursor.take('{')) return TEXT;
  cursor.skipSpace();
  if (!cursor.take('tool')) return TEXT;
  cursor.skipSpace();
  if (!cursor.take('=>')) return TEXT;
  cursor.skipSpace();
  if (cursor.peek() !== '"' && cursor.peek() !== "'") return TEXT;
  const name = cursor.quoted();
  if (!name) return TEXT;
  cursor.skipSpace();
  let input: unknown = {};
  if (cursor.take(',')) {
    cursor.skipSpace();
    if (!cursor.take('args'))
      return { kind: 'malformed', name, reason: 'expected args => after the name' };
    cursor.skipSpace();
    if (!cursor.take('=>')) return { kind: 'malformed', name, reason: 'expected => after args' };
    cursor.skipSpace();
    if (cursor.peek() !== '{')
      return { kind: 'malformed', name, reason: 'the arguments are not in braces' };
    const inner = cursor.braced();
    if (inner === undefined)
      return { kind: 'malformed', name, reason: 'the arguments are not closed' };
    const read = readArguments(inner);
    if (read === undefined) return TEXT;
    if (typeof read === 'string') return { kind: 'malformed', name, reason: read };
    input = read;
    cursor.skipSpace();
  }
  // The envelope's `}`, and any extra ones models add.
  if (!cursor.take('}'))
    return { kind: 'malformed', name, reason: 'the call is not closed with }' };
  for (cursor.skipSpace(); cursor.take('}'); cursor.skipSpace());
  if (!cursor.done)
    return { kind: 'malformed', name, reason: 'text follows the call in its block' };
  return { kind: 'call', name, input };
}

/**
 * A block from its opener to its closer (or the end of the output), read whole when it ends:
 * a call to a declared tool, a fault for such a call whose arguments cannot be read, otherwise text.
 */
export class ArrowCallBody implements CallBody {
  private readonly context: CallContext;
  private readonly closer: LiteralFinder;
  /** Where the block's text begins in the call's raw text (just after the opener). */
  private readonly contentStart: number;
  /** Only white space has come since the opener: the envelope's `{` is still to come. */
  private beforeBrace = true;

  constructor(context: CallContext, close: string) {
    this.context = context;
    this.closer = new LiteralFinder(close);
    this.contentStart = context.callLength;
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    if (this.beforeBrace) {
      while (index < end && isSpace(text.charCodeAt(index))) index++;
      if (index === end) return -1;
      // Not the envelope: the marker is prose, and what follows is read again as text.
      if (text[index] !== '{') {
        this.context.settle({ kind: 'not-a-call' });
        return index;
      }
      this.beforeBrace = false;
    }
    const found = this.closer.find(text, index, end);
    if (found === -1) return -1;
    const closeAt = this.context.callLength - (end - found) - this.closer.literal.length;
    this.settle(this.context.callText(this.contentStart, closeAt), false);
    return found;
  }

  finish(interrupted: boolean): void {
    // The closer is missing: the block is whatever came, complete only if its envelope closed.
    this.settle(this.context.callText(this.contentStart), interrupted);
  }

  abandon(): void {}

  private settle(content: string, interrupted: boolean): void {
    const block = readArrowBlock(content);
    const tool =
      block.kind === 'text' ? undefined : this.context.options.toolsByName.get(block.name);
    if (!tool || block.kind === 'text') {
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    if (block.kind === 'malformed' || interrupted) {
      this.context.settle({
        kind: 'fault',
        code: interrupted ? 'incomplete-call' : 'malformed-call',
        message: interrupted
          ? `the output was cut off inside the call to "${tool.name}"; it was not run`
          : `the call to "${tool.name}" cannot be read: ${block.kind === 'malformed' ? block.reason : ''}; it was not run`,
        toolName: tool.name,
      });
      return;
    }
    const value = createValuePolicy(tool.inputSchema).coerce(block.input);
    new CallAssembler(this.context, tool).completeWhole(JSON.stringify(value) ?? '{}', value);
  }
}

/** The arrow form: the spec, its bodies read by ArrowCallBody (the `callBody` hook). */
export const arrowCallsFormat: FormatEntry = formatEntryFromSpec(arrowCallsSpec, {
  hooks: { callBody: (form, context) => new ArrowCallBody(context, form.close ?? CLOSE) },
  toolNamesIn: arrowToolNamesIn,
});

export function arrowCallsProtocol(): ToolCallProtocol {
  return arrowCallsFormat.create();
}

const MAX_NAME_SEARCH = 300;

/** The names the text's arrow blocks call, declared or not, each once (the agent's feedback). */
export function arrowToolNamesIn(text: string): string[] {
  const names = new Set<string>();
  for (let at = text.indexOf('{tool'); at !== -1; at = text.indexOf('{tool', at + 1)) {
    // A name is short: a string left open looks no further than this.
    const cursor = new Cursor(text.slice(at, at + MAX_NAME_SEARCH));
    cursor.index = '{tool'.length;
    cursor.skipSpace();
    if (!cursor.take('=>')) continue;
    cursor.skipSpace();
    if (cursor.peek() !== '"' && cursor.peek() !== "'") continue;
    const name = cursor.quoted();
    if (name) names.add(name);
  }
  return [...names];
}
