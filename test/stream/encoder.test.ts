import { describe, expect, it } from 'vitest';
import { isErrorOfKind, ToolwireError } from '../../src/core/errors.ts';
import {
  BlockEncodeError,
  BlockEncoder,
  type BlockEvent,
  cdata,
  encodeBlocks,
  escapeAttribute,
  frameSse,
} from '../../src/stream/index.ts';
import { decodeXml } from './helpers.ts';

function xml(events: BlockEvent[]): string {
  return encodeBlocks(events, { framing: 'xml' });
}

describe('escaping rule', () => {
  it('escapes & < > " and every control character in attributes, nothing else', () => {
    expect(escapeAttribute(`a&b<c>d"e'f`)).toBe("a&amp;b&lt;c&gt;d&quot;e'f");
    expect(escapeAttribute('line\nnext\r\ttab\u0000\u001f\u007f')).toBe(
      'line&#10;next&#13;&#9;tab&#0;&#31;&#127;',
    );
    expect(escapeAttribute('plain text, 😀, \\ backslash')).toBe('plain text, 😀, \\ backslash');
  });

  it('wraps bodies in CDATA, splitting ]]> and carriage returns out of the section', () => {
    expect(cdata('')).toBe('');
    expect(cdata('a < b & c')).toBe('<![CDATA[a < b & c]]>');
    expect(cdata('x]]>y')).toBe('<![CDATA[x]]]]><![CDATA[>y]]>');
    expect(cdata(']]>]]>')).toBe('<![CDATA[]]]]><![CDATA[>]]]]><![CDATA[>]]>');
    expect(cdata('a\r\nb')).toBe('<![CDATA[a]]>&#13;<![CDATA[\nb]]>');
  });

  it('frames one payload as one SSE message, a data: line per line', () => {
    expect(frameSse('<x>')).toBe('data: <x>\n\n');
    expect(frameSse('a\n\n b')).toBe('data: a\ndata: \ndata:  b\n\n');
    expect(() => frameSse('a\rb')).toThrow(/carriage return/);
  });
});

describe('encoder: one block per seed 002 type', () => {
  it('meta_init and meta_final carry escaped JSON in data', () => {
    expect(
      xml([
        {
          type: 'meta-init',
          data: { format: 'xml', user_query: 'Hi "you" & <me>', agent_uuid: 'u-1', model: 'm' },
        },
      ]),
    ).toBe(
      '<meta_init data="{&quot;format&quot;:&quot;xml&quot;,&quot;user_query&quot;:&quot;Hi \\&quot;you\\&quot; &amp; &lt;me&gt;&quot;,&quot;agent_uuid&quot;:&quot;u-1&quot;,&quot;model&quot;:&quot;m&quot;}"></meta_init>',
    );
    expect(
      xml([
        {
          type: 'meta-final',
          data: {
            conversation_history: [],
            stop_reason: 'end_turn',
            total_steps: 3,
            generated_files: null,
            cost: null,
            cumulative_usage: { input_tokens: 1000, output_tokens: 300 },
          },
        },
      ]),
    ).toBe(
      '<meta_final data="{&quot;conversation_history&quot;:[],&quot;stop_reason&quot;:&quot;end_turn&quot;,&quot;total_steps&quot;:3,&quot;generated_files&quot;:null,&quot;cost&quot;:null,&quot;cumulative_usage&quot;:{&quot;input_tokens&quot;:1000,&quot;output_tokens&quot;:300}}"></meta_final>',
    );
  });

  it('text and thinking stream: start, a CDATA section per delta, end', () => {
    expect(
      xml([
        { type: 'thinking-start' },
        { type: 'thinking-delta', delta: 'I should check ' },
        { type: 'thinking-delta', delta: 'the <file> first.' },
        { type: 'thinking-end' },
        { type: 'text-start' },
        { type: 'text-delta', delta: 'Done & ]]> fixed' },
        { type: 'text-end' },
      ]),
    ).toBe(
      '<content-block-thinking><![CDATA[I should check ]]><![CDATA[the <file> first.]]></content-block-thinking>' +
        '<content-block-text><![CDATA[Done & ]]]]><![CDATA[> fixed]]></content-block-text>',
    );
  });

  it('embeds chart and table elements inside text', () => {
    expect(
      xml([
        { type: 'text-start' },
        { type: 'text-delta', delta: 'See:' },
        { type: 'text-embed', name: 'chart', attributes: { kind: 'bar' }, content: '{"a":[1,2]}' },
        { type: 'text-end' },
      ]),
    ).toBe(
      '<content-block-text><![CDATA[See:]]><chart kind="bar"><![CDATA[{"a":[1,2]}]]></chart></content-block-text>',
    );
  });

  it('a whole call carries id, name and arguments as attributes; a server call has its own tag', () => {
    expect(
      xml([
        {
          type: 'tool-call',
          kind: 'client',
          id: 'toolu_01',
          name: 'grep_search',
          arguments: '{"pattern":"TODO","path":"src/"}',
        },
        {
          type: 'tool-call',
          kind: 'server',
          id: 'srvtoolu_01',
          name: 'web_search',
          arguments: '{"query":"a\\"b"}',
        },
      ]),
    ).toBe(
      '<content-block-tool_call id="toolu_01" name="grep_search" arguments="{&quot;pattern&quot;:&quot;TODO&quot;,&quot;path&quot;:&quot;src/&quot;}"></content-block-tool_call>' +
        '<content-block-server_tool_call id="srvtoolu_01" name="web_search" arguments="{&quot;query&quot;:&quot;a\\&quot;b&quot;}"></content-block-server_tool_call>',
    );
  });

  it('a streamed call opens with id and name, and its arguments follow as CDATA deltas', () => {
    expect(
      xml([
        { type: 'tool-call-start', kind: 'client', id: 'c1', name: 'write' },
        { type: 'tool-call-delta', id: 'c1', delta: '{"text":"' },
        { type: 'tool-call-delta', id: 'c1', delta: 'a]]>b"}' },
        { type: 'tool-call-end', id: 'c1' },
      ]),
    ).toBe(
      '<content-block-tool_call id="c1" name="write"><![CDATA[{"text":"]]><![CDATA[a]]]]><![CDATA[>b"}]]></content-block-tool_call>',
    );
  });

  it('tool results: plain CDATA, multimodal parts, server results, the error flag, compatibility tags', () => {
    expect(
      xml([
        { type: 'tool-result', kind: 'client', id: 'toolu_01', name: 'grep', content: 'Found 4' },
        {
          type: 'tool-result',
          kind: 'client',
          id: 'img',
          name: 'image_tool',
          content: [
            { type: 'text', text: 'Generated' },
            { type: 'image', src: 'data:image/png;base64,AAA', mediaType: 'image/png' },
          ],
        },
        {
          type: 'tool-result',
          kind: 'server',
          id: 's1',
          name: 'web_search_tool_result',
          content: '{"results":[]}',
        },
        { type: 'tool-result', kind: 'client', id: 'e', name: 'f', content: 'boom', isError: true },
        {
          type: 'tool-result',
          kind: 'server',
          id: 's2',
          name: 'x',
          content: 'r',
          tag: 'content-block-web_search_tool_result',
        },
      ]),
    ).toBe(
      '<content-block-tool_result id="toolu_01" name="grep"><![CDATA[Found 4]]></content-block-tool_result>' +
        '<content-block-tool_result id="img" name="image_tool"><text><![CDATA[Generated]]></text><image src="data:image/png;base64,AAA" media_type="image/png" /></content-block-tool_result>' +
        '<content-block-server_tool_result id="s1" name="web_search_tool_result"><![CDATA[{"results":[]}]]></content-block-server_tool_result>' +
        '<content-block-tool_result id="e" name="f" is_error="true"><![CDATA[boom]]></content-block-tool_result>' +
        '<content-block-web_search_tool_result id="s2" name="x"><![CDATA[r]]></content-block-web_search_tool_result>',
    );
  });

  it('citations of all three location types, and any other type with its attributes', () => {
    expect(
      xml([
        {
          type: 'citations',
          citations: [
            {
              type: 'char_location',
              documentIndex: 0,
              documentTitle: 'My Doc',
              startCharIndex: 10,
              endCharIndex: 35,
              citedText: 'Quoted source text',
            },
            {
              type: 'page_location',
              documentIndex: 1,
              documentTitle: 'Report',
              startPageNumber: 2,
              endPageNumber: 3,
              citedText: 'p',
            },
            {
              type: 'web_search_result_location',
              url: 'https://a.example/?x=1&y=2',
              title: 'A',
              citedText: '',
            },
            {
              type: 'other',
              citationType: 'content_block_location',
              attributes: { document_index: '4', start_block_index: '1' },
              citedText: 'c',
            },
          ],
        },
      ]),
    ).toBe(
      '<citations>' +
        '<citation type="char_location" document_index="0" document_title="My Doc" start_char_index="10" end_char_index="35"><![CDATA[Quoted source text]]></citation>' +
        '<citation type="page_location" document_index="1" document_title="Report" start_page_number="2" end_page_number="3"><![CDATA[p]]></citation>' +
        '<citation type="web_search_result_location" url="https://a.example/?x=1&amp;y=2" title="A"></citation>' +
        '<citation type="content_block_location" document_index="4" start_block_index="1"><![CDATA[c]]></citation>' +
        '</citations>',
    );
  });

  it('awaiting_frontend_tools, meta_files and error', () => {
    expect(
      xml([
        {
          type: 'awaiting-frontend-tools',
          tools: [
            { tool_use_id: 'toolu_01', name: 'user_confirm', input: { question: 'Continue?' } },
          ],
        },
        { type: 'meta-files', files: [{ file_id: 'file_01', filename: 'report.pdf' }] },
        { type: 'error', error: { type: 'api_error', message: 'rate_limit' } },
      ]),
    ).toBe(
      '<awaiting_frontend_tools data="[{&quot;tool_use_id&quot;:&quot;toolu_01&quot;,&quot;name&quot;:&quot;user_confirm&quot;,&quot;input&quot;:{&quot;question&quot;:&quot;Continue?&quot;}}]"></awaiting_frontend_tools>' +
        '<content-block-meta_files><![CDATA[{"files":[{"file_id":"file_01","filename":"report.pdf"}]}]]></content-block-meta_files>' +
        '<content-block-error><![CDATA[{"type":"api_error","message":"rate_limit"}]]></content-block-error>',
    );
  });
});

describe('encoder: streaming and sequence rules', () => {
  it('writes each delta as its own SSE message the moment it is encoded', () => {
    const encoder = new BlockEncoder();
    expect(encoder.encode({ type: 'text-start' })).toBe('data: <content-block-text>\n\n');
    expect(encoder.encode({ type: 'text-delta', delta: 'two\nlines' })).toBe(
      'data: <![CDATA[two\ndata: lines]]>\n\n',
    );
    expect(encoder.encode({ type: 'text-delta', delta: '' })).toBe('');
    expect(encoder.encode({ type: 'text-end' })).toBe('data: </content-block-text>\n\n');
  });

  it('its refusals are toolwire errors of kind block-stream-invalid', () => {
    let thrown: unknown;
    try {
      new BlockEncoder().encode({ type: 'text-end' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BlockEncodeError);
    expect(ToolwireError.isInstance(thrown)).toBe(true);
    expect(BlockEncodeError.isInstance(thrown)).toBe(true);
    expect(isErrorOfKind(thrown, 'block-stream-invalid')).toBe(true);
    expect((thrown as Error).name).toBe('BlockEncodeError');
    expect((thrown as Error).message).toMatch(/text-end needs an open text block/);
  });

  it('refuses a delta with no open block, a block inside another, and a delta for another call', () => {
    const encoder = new BlockEncoder();
    expect(() => encoder.encode({ type: 'text-delta', delta: 'x' })).toThrow(BlockEncodeError);
    encoder.encode({ type: 'thinking-start' });
    expect(() => encoder.encode({ type: 'text-start' })).toThrow(/thinking block is open/);
    expect(() => encoder.encode({ type: 'text-delta', delta: 'x' })).toThrow(/open text block/);
    encoder.encode({ type: 'thinking-end' });
    encoder.encode({ type: 'tool-call-start', kind: 'client', id: 'a', name: 'f' });
    expect(() => encoder.encode({ type: 'tool-call-delta', id: 'b', delta: '{' })).toThrow(
      /call "b" needs that call open/,
    );
    expect(() =>
      encoder.encode({ type: 'tool-result', kind: 'client', id: 'a', name: 'f', content: '' }),
    ).toThrow(/end that block first/);
  });

  it('refuses names that are not XML names and tags that would read back as something else', () => {
    const encoder = new BlockEncoder({ framing: 'xml' });
    encoder.encode({ type: 'text-start' });
    expect(() =>
      encoder.encode({
        type: 'text-embed',
        name: 'chart',
        attributes: { 'a b': '1' },
        content: '',
      }),
    ).toThrow(/not an attribute name/);
    encoder.encode({ type: 'text-end' });
    for (const tag of ['content-block-tool_result', 'results', 'bad tag_tool_result'])
      expect(() =>
        encoder.encode({
          type: 'tool-result',
          kind: 'server',
          id: 'a',
          name: 'b',
          content: '',
          tag,
        }),
      ).toThrow(BlockEncodeError);
    expect(() =>
      encoder.encode({
        type: 'citations',
        citations: [
          {
            type: 'char_location',
            documentIndex: 1.5,
            documentTitle: '',
            startCharIndex: 0,
            endCharIndex: 0,
            citedText: '',
          },
        ],
      }),
    ).toThrow(/not an integer/);
  });

  it('end() closes a block an aborted run left open', () => {
    const encoder = new BlockEncoder({ framing: 'xml' });
    encoder.encode({ type: 'tool-call-start', kind: 'server', id: 'a', name: 'f' });
    encoder.encode({ type: 'tool-call-delta', id: 'a', delta: '{"x":' });
    expect(encoder.openBlock).toBe('call');
    expect(encoder.openCallId).toBe('a');
    expect(encoder.end()).toBe('</content-block-server_tool_call>');
    expect(encoder.openBlock).toBeUndefined();
    expect(encoder.end()).toBe('');
  });

  it('lone surrogates become U+FFFD; a pair split across two deltas is kept whole', () => {
    const events: BlockEvent[] = [
      { type: 'text-start' },
      { type: 'text-delta', delta: 'a\uD83D' },
      { type: 'text-delta', delta: '\uDE00b\uDC00' },
      { type: 'text-delta', delta: 'end\uD83D' },
      { type: 'text-end' },
      { type: 'tool-result', kind: 'client', id: '\uD800', name: 'f', content: 'x\uDBFF' },
    ];
    const text = encodeBlocks(events, { framing: 'xml' });
    expect(text).toBe(
      '<content-block-text><![CDATA[a]]><![CDATA[😀b\uFFFD]]><![CDATA[end]]><![CDATA[\uFFFD]]></content-block-text>' +
        '<content-block-tool_result id="\uFFFD" name="f"><![CDATA[x\uFFFD]]></content-block-tool_result>',
    );
    // What goes out is well formed, so UTF-8 carries it unchanged.
    expect(new TextDecoder().decode(new TextEncoder().encode(text))).toBe(text);
    expect(decodeXml(text).filter((event) => event.type === 'text-delta')).toEqual([
      { type: 'text-delta', delta: 'a😀b\uFFFDend\uFFFD' },
    ]);
  });
});
