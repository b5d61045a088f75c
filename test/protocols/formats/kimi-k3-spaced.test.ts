/**
 * Kimi K3's markers as a detokenizer writes them with `spaces_between_special_tokens` on: each
 * special token set off by a space from the tag name beside it (`<|open|> tools <|sep|>`).
 * TensorRT-LLM #16972 ("Preserve compact Kimi-K3 special tokens") and TensorRT-LLM's Responses handler
 * test (`test_responses_handler_decodes_k3_markers_compactly`) saw this in served output; vLLM's
 * `kimi_k3_tool_parser.py` and Dynamo's K3 parser read markers with white space inside them.
 * Vectors: Dynamo's `test_kimi_k3_added_token_spacing_is_chunk_boundary_independent`
 * (ai-dynamo/dynamo `lib/parsers/src/reasoning/mod.rs`), and the same turn with every special
 * token set off on both sides (the detokenizer's join), in test/fixtures/families/kimi-k3-spaced.txt.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { autoProtocol, type ToolDefinition } from '../../../src/index.ts';
import { kimiK3Format, kimiK3Spec } from '../../../src/protocols/formats/kimi-k3.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { readAtEverySplit, taggedSpecChecks } from './tagged-spec-checks.ts';

const protocol = defineFormat(kimiK3Spec);

const calc: ToolDefinition = {
  name: 'calc',
  inputSchema: { type: 'object', properties: { x: { type: 'number' } } },
};
const python: ToolDefinition = {
  name: 'python',
  inputSchema: { type: 'object', properties: { code: { type: 'string' } } },
};
const tools = [calc, python];

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/families/${name}`, import.meta.url), 'utf8').trimEnd();

describe('kimi-k3, spaced markers', () => {
  it("reads Dynamo's vector: white space inside each marker, none around the value", () => {
    const text = [
      'Use the calculator.',
      '<|close|> think <|sep|>',
      '<|open|> tools <|sep|>',
      '<|open|> call tool="calc" index="1" <|sep|>',
      '<|open|> argument key="x" type="number" <|sep|>5',
      '<|close|> argument <|sep|>',
      '<|close|> call <|sep|>',
      '<|close|> tools <|sep|>',
      '<|close|> message <|sep|>',
      '<|end_of_msg|>',
    ].join('');
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [['calc', { x: 5 }]],
      text: '',
      reasoning: 'Use the calculator.',
      errors: [],
    });
  });

  it('reads a turn whose every special token is set off by spaces, the wrappers out of the text', () => {
    const read = readAtEverySplit(protocol, fixture('kimi-k3-spaced.txt'), { tools });
    expect(read.calls).toEqual([
      ['calc', { x: 5 }],
      // A string is taken as written, as vLLM's parser takes it: the spaces the join put
      // around it stay (a typed value reads as JSON, which skips them).
      ['python', { code: ' print(1) ' }],
    ]);
    expect(read.reasoning).toBe('Need both. ');
    expect(read.text.trim()).toBe('Running them.');
    expect(read.text).not.toContain('<|');
    expect(read.errors).toEqual([]);
  });

  it('reads the spaced think element the output opens itself, and the spaced JSON arguments', () => {
    const text =
      '<|open|> think <|sep|>Plan.<|close|> think <|sep|><|open|> tools <|sep|><|open|> call tool="python" index="1" <|sep|><|open|> json type="object" <|sep|>{"code": "x"}<|close|> json <|sep|><|close|> call <|sep|><|close|> tools <|sep|>';
    expect(readAtEverySplit(protocol, text, { tools, startInReasoning: false })).toEqual({
      calls: [['python', { code: 'x' }]],
      text: '',
      reasoning: 'Plan.',
      errors: [],
    });
  });

  it('keeps prose that names a marker with spaces as text', () => {
    const text = 'The element <|open|> tools is opened by a special token.';
    expect(readAtEverySplit(protocol, text, { tools, startInReasoning: false })).toMatchObject({
      calls: [],
      text,
      errors: [],
    });
  });

  it('names the tools of spaced call elements', () => {
    expect(kimiK3Format.toolNamesIn!(fixture('kimi-k3-spaced.txt'))).toEqual(['calc', 'python']);
  });

  describe('guarantees, with the spaced markers among the markup', () => {
    taggedSpecChecks(defineFormat({ ...kimiK3Spec, startInReasoning: false }), [
      '<|close|> argument <|sep|>',
      '<|open|> argument',
      '<|close|> call <|sep|>',
      '<|close|> tools <|sep|>',
      '<|open|> tools <|sep|>',
      '<|open|> call',
      ' <|sep|>',
      '<|close|>argument<|sep|>',
      '<|open|>call',
      '<|open|> json type="object" <|sep|>',
      '<|close|> json <|sep|>',
      '<|close|> think <|sep|>',
    ]);
  });

  it('is read by auto too', () => {
    const read = readAtEverySplit(autoProtocol(), fixture('kimi-k3-spaced.txt'), {
      tools,
      startInReasoning: true,
    });
    expect(read.calls).toEqual([
      ['calc', { x: 5 }],
      ['python', { code: ' print(1) ' }],
    ]);
    expect(read.text).not.toContain('<|');
  });
});
