/**
 * The visible conformance set for chat templates (test/fixtures/chat-templates, 27 vLLM templates
 * and 81 turns rendered from them): each template through `protocolFromChatTemplate`, then its
 * parser on each turn, whole and in 1-, 3- and 7-character chunks, must give exactly the turn's
 * calls, and the text and reasoning the case names.
 *
 * The turns toolwire does not read yet are listed below with why; each is expected to fail (so
 * that one starting to pass, as families land, shows here and leaves the list).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ParseOptions, ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { protocolFromChatTemplate } from '../../../src/protocols/derive/chat-template.ts';
import { collectContent } from '../../../src/protocols/engine/collect-content.ts';
import { chunksOf, streamEvents } from '../helpers.ts';

const FIXTURES = new URL('../../fixtures/chat-templates/', import.meta.url);

interface TemplateSettings {
  readonly template: string;
  readonly bos_token?: string;
  readonly eos_token?: string;
}

interface ConformanceCase {
  readonly id: string;
  readonly template: string;
  readonly text: string;
  readonly calls: readonly { readonly name: string; readonly input: unknown }[];
  readonly text_equals?: string;
  readonly text_contains?: readonly string[];
  readonly reasoning_contains?: readonly string[];
}

const data = JSON.parse(readFileSync(new URL('chat-template-cases.json', FIXTURES), 'utf8')) as {
  templates: TemplateSettings[];
  cases: ConformanceCase[];
};
const tools = JSON.parse(
  readFileSync(new URL('chat-template-tools.json', FIXTURES), 'utf8'),
) as ToolDefinition[];

/** Turns toolwire does not read yet, and why (none today: keep the list for what comes). */
const NOT_READ_YET: Readonly<Record<string, string>> = {};

const protocols = new Map<string, ToolCallProtocol | Error>();

function protocolFor(template: string): ToolCallProtocol {
  let protocol = protocols.get(template);
  if (protocol === undefined) {
    const settings = data.templates.find((each) => each.template === template);
    try {
      protocol = protocolFromChatTemplate(readFileSync(new URL(template, FIXTURES), 'utf8'), {
        ...(settings?.bos_token === undefined ? {} : { bosToken: settings.bos_token }),
        ...(settings?.eos_token === undefined ? {} : { eosToken: settings.eos_token }),
      });
    } catch (error) {
      protocol = error as Error;
    }
    protocols.set(template, protocol);
  }
  if (protocol instanceof Error) throw protocol;
  return protocol;
}

/** What a parse gave: calls (input parsed), text and reasoning. */
function readOf(protocol: ToolCallProtocol, text: string, chunkSize: number | undefined) {
  const options: ParseOptions = { tools };
  const content =
    chunkSize === undefined
      ? protocol.parseGeneratedText(text, options)
      : collectContent(streamEvents(protocol, chunksOf(text, chunkSize), options));
  return {
    calls: content
      .filter((part) => part.type === 'tool-call')
      .map((part) => ({ name: part.toolName, input: JSON.parse(part.input) as unknown })),
    errors: content.filter((part) => part.type === 'error'),
    text: content
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join(''),
    reasoning: content
      .filter((part) => part.type === 'reasoning')
      .map((part) => part.text)
      .join(''),
  };
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

function checkCase(conformance: ConformanceCase): void {
  const protocol = protocolFor(conformance.template);
  for (const chunkSize of [undefined, 1, 3, 7]) {
    const read = readOf(protocol, conformance.text, chunkSize);
    const where = chunkSize === undefined ? 'whole' : `${chunkSize}-char chunks`;
    expect(read.calls, where).toEqual(conformance.calls);
    expect(read.errors, where).toEqual([]);
    if (conformance.text_equals !== undefined) {
      expect(collapse(read.text), where).toBe(collapse(conformance.text_equals));
    }
    for (const part of conformance.text_contains ?? []) expect(read.text, where).toContain(part);
    for (const part of conformance.reasoning_contains ?? []) {
      expect(read.reasoning, where).toContain(part);
    }
  }
}

describe('chat templates: protocolFromChatTemplate reads what each template renders', () => {
  for (const conformance of data.cases) {
    const why = NOT_READ_YET[conformance.id];
    if (why === undefined) {
      it(conformance.id, () => checkCase(conformance));
    } else {
      it.fails(`${conformance.id} (not read yet: ${why.slice(0, 60)}…)`, () =>
        checkCase(conformance));
    }
  }

  it('reads all 81 cases (a list names any other, with why)', () => {
    expect(data.cases.length).toBe(81);
    expect(data.cases.length - Object.keys(NOT_READ_YET).length).toBe(81);
    for (const id of Object.keys(NOT_READ_YET)) {
      expect(data.cases.some((conformance) => conformance.id === id)).toBe(true);
    }
  });
});
