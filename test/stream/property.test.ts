import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import {
  type BlockEvent,
  type Citation,
  encodeBlocks,
  type JsonValue,
  type MetaFinalData,
  type MetaInitData,
  type ToolResultPart,
} from '../../src/stream/index.ts';
import { byteChunks, decodeChunks, mergeDeltas, splitAt } from './helpers.ts';

// ── arbitraries ─────────────────────────────────────────────────────────────────────────────

/** What tends to break escaping: markup, CDATA ends, line ends, quotes, emoji, SSE prefixes. */
const tricky = fc.constantFrom(
  '<',
  '>',
  '&',
  '&amp;',
  '&#13;',
  ']]>',
  ']]',
  ']',
  '\\',
  '\\n',
  '\n',
  '\r',
  '\r\n',
  '"',
  "'",
  '😀',
  '<![CDATA[',
  '</content-block-text>',
  '<content-block-tool_call id="x">',
  'data: ',
  '\n\ndata: ',
  ': comment\n',
  '\u0000',
  '\u001f',
  '\u2028',
  '\uFEFF',
  '\t',
  ' ',
);

/** Any well-formed string (lone surrogates are tested apart: they become U+FFFD). */
const text = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), tricky), { maxLength: 6 })
  .map((parts) => parts.join(''));
const nonEmptyText = text.filter((value) => value.length > 0);
const xmlName = fc.stringMatching(/^[a-z_][a-z0-9_.:-]{0,7}$/);
/** JSON values as JSON carries them (-0 is 0 there). */
const json: fc.Arbitrary<JsonValue> = fc
  .jsonValue({ maxDepth: 2 })
  .map((value) => parseJsonText(JSON.stringify(value)) as JsonValue);
const index = fc.nat({ max: 1_000_000 });

const citation: fc.Arbitrary<Citation> = fc.oneof(
  fc.record({
    type: fc.constant('char_location' as const),
    documentIndex: index,
    documentTitle: text,
    startCharIndex: index,
    endCharIndex: index,
    citedText: text,
  }),
  fc.record({
    type: fc.constant('page_location' as const),
    documentIndex: index,
    documentTitle: text,
    startPageNumber: index,
    endPageNumber: index,
    citedText: text,
  }),
  fc.record({
    type: fc.constant('web_search_result_location' as const),
    url: text,
    title: text,
    citedText: text,
  }),
  fc.record({
    type: fc.constant('other' as const),
    citationType: text.filter(
      (value) => !['char_location', 'page_location', 'web_search_result_location'].includes(value),
    ),
    attributes: fc.dictionary(
      xmlName.filter((name) => name !== 'type'),
      text,
      { maxKeys: 3 },
    ),
    citedText: text,
  }),
);

const part: fc.Arbitrary<ToolResultPart> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('image' as const), src: text, mediaType: text }),
);

const kind = fc.constantFrom('client' as const, 'server' as const);

const streamedText = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: nonEmptyText.map((delta) => ({ type: 'text-delta' as const, delta })),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          type: fc.constant('text-embed' as const),
          name: fc.constantFrom('chart' as const, 'table' as const),
          attributes: fc.dictionary(xmlName, text, { maxKeys: 2 }),
          content: text,
        }),
      },
    ),
    { maxLength: 5 },
  )
  .map((body): BlockEvent[] => [{ type: 'text-start' }, ...body, { type: 'text-end' }]);

const thinking = fc
  .array(nonEmptyText, { maxLength: 5 })
  .map((deltas): BlockEvent[] => [
    { type: 'thinking-start' },
    ...deltas.map((delta) => ({ type: 'thinking-delta' as const, delta })),
    { type: 'thinking-end' },
  ]);

const streamedCall = fc
  .record({ kind, id: text, name: text, deltas: fc.array(nonEmptyText, { maxLength: 5 }) })
  .map(({ kind, id, name, deltas }): BlockEvent[] => [
    { type: 'tool-call-start', kind, id, name },
    ...deltas.map((delta) => ({ type: 'tool-call-delta' as const, id, delta })),
    { type: 'tool-call-end', id },
  ]);

const wholeCall = fc
  .record({ kind, id: text, name: text, arguments: text })
  .map((call): BlockEvent[] => [{ type: 'tool-call', ...call }]);

const toolResult = fc
  .record({
    kind,
    id: text,
    name: text,
    content: fc.oneof(text, fc.array(part, { minLength: 1, maxLength: 3 })),
    isError: fc.boolean(),
    tag: fc.option(
      fc.constantFrom('content-block-web_search_tool_result', 'bash_code_execution_tool_result'),
      { nil: undefined },
    ),
  })
  .map(({ isError, tag, ...result }): BlockEvent[] => [
    {
      type: 'tool-result',
      ...result,
      ...(isError ? { isError: true as const } : {}),
      ...(tag !== undefined && result.kind === 'server' ? { tag } : {}),
    },
  ]);

const metaInit = fc
  .record(
    {
      format: fc.constantFrom('xml', 'raw'),
      user_query: text,
      agent_uuid: text,
      model: text,
      message_history: fc.array(json, { maxLength: 2 }),
    },
    { requiredKeys: ['format', 'user_query', 'agent_uuid', 'model'] },
  )
  .map((data): BlockEvent[] => [{ type: 'meta-init', data: data as MetaInitData }]);

const metaFinal = fc
  .record({
    conversation_history: json,
    stop_reason: fc.option(text, { nil: null }),
    total_steps: index,
    generated_files: json,
    cost: json,
    cumulative_usage: json,
  })
  .map((data): BlockEvent[] => [{ type: 'meta-final', data: data as MetaFinalData }]);

const others: fc.Arbitrary<BlockEvent[]> = fc.oneof(
  fc
    .array(citation, { maxLength: 3 })
    .map((citations) => [{ type: 'citations' as const, citations }]),
  fc
    .array(fc.record({ tool_use_id: text, name: text, input: json }), { maxLength: 2 })
    .map((tools) => [{ type: 'awaiting-frontend-tools' as const, tools }]),
  fc
    .array(fc.dictionary(text, json, { maxKeys: 3 }), { maxLength: 2 })
    .map((files) => [{ type: 'meta-files' as const, files }]),
  json.map((error) => [{ type: 'error' as const, error }]),
);

const blockEvents: fc.Arbitrary<BlockEvent[]> = fc
  .array(
    fc.oneof(
      streamedText,
      thinking,
      streamedCall,
      wholeCall,
      toolResult,
      metaInit,
      metaFinal,
      others,
    ),
    { maxLength: 8 },
  )
  .map((blocks) => blocks.flat());

const cuts = fc.array(fc.nat(), { maxLength: 12 });

// ── properties ──────────────────────────────────────────────────────────────────────────────

describe('round trip: encode, cut anywhere, decode', () => {
  it('SSE as text chunks gives back exactly the events, delta for delta', () => {
    fc.assert(
      fc.property(blockEvents, cuts, (events, points) => {
        const body = encodeBlocks(events);
        expect(decodeChunks(splitAt(body, points))).toEqual(events);
      }),
      { numRuns: 300 },
    );
  });

  it('SSE as UTF-8 byte chunks (characters split anywhere) gives back exactly the events', () => {
    fc.assert(
      fc.property(blockEvents, cuts, (events, points) => {
        const body = encodeBlocks(events);
        expect(decodeChunks(byteChunks(body, points))).toEqual(events);
      }),
      { numRuns: 300 },
    );
  });

  it('bare XML, cut anywhere, gives back the events with the same text per block', () => {
    fc.assert(
      fc.property(blockEvents, cuts, (events, points) => {
        const xml = encodeBlocks(events, { framing: 'xml' });
        expect(mergeDeltas(decodeChunks(splitAt(xml, points), { framing: 'xml' }))).toEqual(
          mergeDeltas(events),
        );
      }),
      { numRuns: 300 },
    );
  });
});

/** Pieces of markup, so random input often looks like (broken) blocks. */
const markup = fc.constantFrom(
  '<content-block-text>',
  '</content-block-text>',
  '<content-block-thinking>',
  '</content-block-thinking>',
  '<content-block-tool_call id="a" name="f" arguments="{}">',
  '<content-block-tool_call id="a" name="f">',
  '</content-block-tool_call>',
  '<content-block-tool_result id="r" name="n">',
  '</content-block-tool_result>',
  '<x_tool_result id="s">',
  '</x_tool_result>',
  '<text>',
  '</text>',
  '<image src="s" media_type="m"/>',
  '<citations>',
  '<citation type="char_location" document_index="1">',
  '</citation>',
  '</citations>',
  '<meta_init data="{}">',
  '<meta_init data="x"/>',
  '</meta_init>',
  '<content-block-error>',
  '</content-block-error>',
  '<chart a="1">',
  '</chart>',
  '<![CDATA[',
  ']]>',
  '&amp;',
  '&#x41;',
  '&',
  '<',
  '</',
  '>',
  '/>',
  '"',
  "'",
  '=',
  ' ',
  '\n',
  '\r\n',
  'data: ',
  'event: e\n',
  '\n\n',
  'a',
  '😀',
);
const noise = fc
  .array(fc.oneof({ weight: 4, arbitrary: markup }, { weight: 1, arbitrary: text }), {
    maxLength: 30,
  })
  .map((parts) => parts.join(''));

describe('any input: never throws, and the chunking never changes the result', () => {
  it('XML framing, text and byte chunks', () => {
    fc.assert(
      fc.property(noise, cuts, fc.nat({ max: 64 }), (input, points, cap) => {
        const options = { framing: 'xml' as const, maxBlockChars: 8 + cap };
        const whole = mergeDeltas(decodeChunks([input], options));
        expect(mergeDeltas(decodeChunks(splitAt(input, points), options))).toEqual(whole);
        expect(mergeDeltas(decodeChunks(byteChunks(input, points), options))).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });

  it('SSE framing: the same events, message for message', () => {
    fc.assert(
      fc.property(noise, cuts, (input, points) => {
        const whole = decodeChunks([input]);
        expect(decodeChunks(splitAt(input, points))).toEqual(whole);
        expect(decodeChunks(byteChunks(input, points))).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });
});
