import { describe, expect, it } from 'vitest';
import { createBlockDecoder, type DecodedEvent, decodeBlocks } from '../../src/stream/index.ts';
import {
  blocksOf,
  byteChunks,
  chunksOf,
  decodeChunks,
  decodeXml,
  everySplit,
  mergeDeltas,
  problemsOf,
} from './helpers.ts';

describe('decoder: the examples of seed 002', () => {
  it('reads every block type as the seed writes it', () => {
    const stream =
      '<meta_init data="{&quot;format&quot;:&quot;xml&quot;,&quot;user_query&quot;:&quot;Hello&quot;,&quot;agent_uuid&quot;:&quot;abc-123&quot;,&quot;model&quot;:&quot;claude-sonnet-4-5&quot;}"></meta_init>' +
      '<content-block-thinking>I should check the file first.</content-block-thinking>' +
      '<content-block-text>I found the issue and applied a fix.</content-block-text>' +
      '<content-block-tool_call id="toolu_01" name="grep_search" arguments="{&quot;pattern&quot;:&quot;TODO&quot;,&quot;path&quot;:&quot;src/&quot;}"></content-block-tool_call>' +
      '<content-block-server_tool_call id="srvtoolu_01" name="web_search" arguments="{&quot;query&quot;:&quot;latest ai news&quot;}"></content-block-server_tool_call>' +
      '<content-block-tool_result id="toolu_01" name="grep_search"><![CDATA[Found 4 matches]]></content-block-tool_result>' +
      '<content-block-tool_result id="toolu_img_01" name="image_tool">\n  <text><![CDATA[Generated image successfully]]></text>\n  <image src="data:image/png;base64,AAA..." media_type="image/png" />\n</content-block-tool_result>' +
      '<content-block-server_tool_result id="srvtoolu_01" name="web_search_tool_result"><![CDATA[{"results":[{"title":"Example"}]}]]></content-block-server_tool_result>' +
      '<citations>\n  <citation type="char_location" document_index="0" document_title="My Doc" start_char_index="10" end_char_index="35"><![CDATA[Quoted source text]]></citation>\n</citations>' +
      '<awaiting_frontend_tools data="[{&quot;tool_use_id&quot;:&quot;toolu_01&quot;,&quot;name&quot;:&quot;user_confirm&quot;,&quot;input&quot;:{&quot;question&quot;:&quot;Continue?&quot;}}]"></awaiting_frontend_tools>' +
      '<content-block-meta_files><![CDATA[{"files":[{"file_id":"file_01","filename":"report.pdf","storage_location":"https://..."}]}]]></content-block-meta_files>' +
      '<content-block-error><![CDATA[{"type":"api_error","message":"rate_limit"}]]></content-block-error>' +
      '<meta_final data="{&quot;stop_reason&quot;:&quot;end_turn&quot;,&quot;total_steps&quot;:3,&quot;generated_files&quot;:null,&quot;cost&quot;:null,&quot;cumulative_usage&quot;:{&quot;input_tokens&quot;:1000,&quot;output_tokens&quot;:300}}"></meta_final>';
    expect(decodeXml(stream)).toEqual([
      {
        type: 'meta-init',
        data: {
          format: 'xml',
          user_query: 'Hello',
          agent_uuid: 'abc-123',
          model: 'claude-sonnet-4-5',
        },
      },
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'I should check the file first.' },
      { type: 'thinking-end' },
      { type: 'text-start' },
      { type: 'text-delta', delta: 'I found the issue and applied a fix.' },
      { type: 'text-end' },
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
        arguments: '{"query":"latest ai news"}',
      },
      {
        type: 'tool-result',
        kind: 'client',
        id: 'toolu_01',
        name: 'grep_search',
        content: 'Found 4 matches',
      },
      {
        type: 'tool-result',
        kind: 'client',
        id: 'toolu_img_01',
        name: 'image_tool',
        content: [
          { type: 'text', text: 'Generated image successfully' },
          { type: 'image', src: 'data:image/png;base64,AAA...', mediaType: 'image/png' },
        ],
      },
      {
        type: 'tool-result',
        kind: 'server',
        id: 'srvtoolu_01',
        name: 'web_search_tool_result',
        content: '{"results":[{"title":"Example"}]}',
      },
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
        ],
      },
      {
        type: 'awaiting-frontend-tools',
        tools: [
          { tool_use_id: 'toolu_01', name: 'user_confirm', input: { question: 'Continue?' } },
        ],
      },
      {
        type: 'meta-files',
        files: [{ file_id: 'file_01', filename: 'report.pdf', storage_location: 'https://...' }],
      },
      { type: 'error', error: { type: 'api_error', message: 'rate_limit' } },
      {
        type: 'meta-final',
        data: {
          stop_reason: 'end_turn',
          total_steps: 3,
          generated_files: null,
          cost: null,
          cumulative_usage: { input_tokens: 1000, output_tokens: 300 },
        },
      },
    ]);
  });

  it('accepts any *_tool_result tag as a server result, keeping the tag', () => {
    expect(
      blocksOf(
        decodeXml(
          '<content-block-web_search_tool_result id="s1"><![CDATA[r]]></content-block-web_search_tool_result>' +
            '<bash_code_execution_tool_result id="s2" name="bash">out</bash_code_execution_tool_result>',
        ),
      ),
    ).toEqual([
      {
        type: 'tool-result',
        kind: 'server',
        id: 's1',
        name: '',
        content: 'r',
        tag: 'content-block-web_search_tool_result',
      },
      {
        type: 'tool-result',
        kind: 'server',
        id: 's2',
        name: 'bash',
        content: 'out',
        tag: 'bash_code_execution_tool_result',
      },
    ]);
  });

  it('reads chart and table inside text as embeds, and nowhere else', () => {
    expect(
      decodeXml(
        '<content-block-text>Sales: <chart type="bar">{"q":[1,2]}</chart> and <table><tr><td>1</td></tr></table>.</content-block-text>' +
          '<content-block-thinking>a <table>b</table></content-block-thinking><chart>x</chart>',
      ),
    ).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'Sales: ' },
      { type: 'text-embed', name: 'chart', attributes: { type: 'bar' }, content: '{"q":[1,2]}' },
      { type: 'text-delta', delta: ' and ' },
      { type: 'text-embed', name: 'table', attributes: {}, content: '<tr><td>1</td></tr>' },
      { type: 'text-delta', delta: '.' },
      { type: 'text-end' },
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'a <table>b</table>' },
      { type: 'thinking-end' },
      { type: 'stray-text', text: '<chart>x</chart>' },
    ]);
  });
});

describe('decoder: text, markup and entities', () => {
  it('keeps unknown tags as text exactly as written, quotes and > in attributes included', () => {
    const tags = `<b class="x > y" data-a='1'>bold</b> <br/> <img src=x> a<b`;
    expect(decodeXml(`<content-block-text>${tags}</content-block-text>`)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: tags },
      { type: 'text-end' },
    ]);
    expect(decodeXml('<outer><inner>nested</inner></outer>')).toEqual([
      { type: 'stray-text', text: '<outer><inner>nested</inner></outer>' },
    ]);
  });

  it('decodes XML entities and character references; anything else stays as written', () => {
    const body =
      'a &lt;b&gt; &amp; &quot;&apos; &#128512;&#x1F600; &nbsp; & alone &#xD800; &#x110000; &#; &amp';
    expect(decodeXml(`<content-block-text>${body}</content-block-text>`)[1]).toEqual({
      type: 'text-delta',
      delta: 'a <b> & "\' 😀😀 &nbsp; & alone \uFFFD &#x110000; &#; &amp',
    });
  });

  it('reads single-quoted attributes, entities in attributes, and self-closing blocks', () => {
    expect(
      decodeXml(
        `<content-block-tool_call id='t1' name="say" arguments='{"q": "it&#x27;s &lt;ok&gt;"}'/>` +
          '<content-block-text/><meta_init data="{&quot;format&quot;:&quot;raw&quot;}" />',
      ),
    ).toEqual([
      { type: 'tool-call', kind: 'client', id: 't1', name: 'say', arguments: `{"q": "it's <ok>"}` },
      { type: 'text-start' },
      { type: 'text-end' },
      { type: 'meta-init', data: { format: 'raw' } },
    ]);
  });

  it('a streamed call: tool-call-start at the open tag, the body as deltas', () => {
    expect(
      decodeChunks(
        [
          'data: <content-block-tool_call id="c" name="f">\n\n',
          'data: <![CDATA[{"a":]]>\n\n',
          'data: <![CDATA[1}]]>\n\ndata: </content-block-tool_call>\n\n',
        ],
        {},
      ),
    ).toEqual([
      { type: 'tool-call-start', kind: 'client', id: 'c', name: 'f' },
      { type: 'tool-call-delta', id: 'c', delta: '{"a":' },
      { type: 'tool-call-delta', id: 'c', delta: '1}' },
      { type: 'tool-call-end', id: 'c' },
    ]);
  });

  it('multimodal results drop layout white space but keep any other text as a part', () => {
    expect(
      blocksOf(
        decodeXml(
          '<content-block-tool_result id="r" name="n">intro <text>a</text>\n <image src="s" media_type="image/gif"></image><![CDATA[ ]]></content-block-tool_result>',
        ),
      ),
    ).toEqual([
      {
        type: 'tool-result',
        kind: 'client',
        id: 'r',
        name: 'n',
        content: [
          { type: 'text', text: 'intro ' },
          { type: 'text', text: 'a' },
          { type: 'image', src: 's', mediaType: 'image/gif' },
          { type: 'text', text: ' ' },
        ],
      },
    ]);
  });

  it('reads citations that do not fit their type, and any other type, as "other"', () => {
    const [event] = blocksOf(
      decodeXml(
        '<citations><citation type="char_location" document_index="x" document_title="t" start_char_index="1" end_char_index="2">a</citation>' +
          '<citation type="web_search_result_location" url="u" title="t" encrypted_index="e">b</citation>' +
          '<citation type="page_location" document_index="0" document_title="t" start_page_number="1" end_page_number="2"/>' +
          '<citation __proto__="p" document_index="3">c</citation></citations>',
      ),
    );
    expect(event).toEqual({
      type: 'citations',
      citations: [
        {
          type: 'other',
          citationType: 'char_location',
          attributes: {
            document_index: 'x',
            document_title: 't',
            start_char_index: '1',
            end_char_index: '2',
          },
          citedText: 'a',
        },
        {
          type: 'other',
          citationType: 'web_search_result_location',
          attributes: { url: 'u', title: 't', encrypted_index: 'e' },
          citedText: 'b',
        },
        {
          type: 'page_location',
          documentIndex: 0,
          documentTitle: 't',
          startPageNumber: 1,
          endPageNumber: 2,
          citedText: '',
        },
        {
          type: 'other',
          citationType: '',
          attributes: JSON.parse('{"__proto__":"p","document_index":"3"}'),
          citedText: 'c',
        },
      ],
    });
    const last = (event as unknown as { citations: { attributes: object }[] }).citations[3]!
      .attributes;
    // An attribute named __proto__ is an own property, never a prototype.
    expect(Object.getPrototypeOf(last)).toBe(Object.prototype);
    expect(Object.hasOwn(last, '__proto__')).toBe(true);
  });
});

describe('decoder: malformed input is reported, never dropped', () => {
  it('a known tag with broken markup is a malformed-tag problem carrying its raw text', () => {
    const events = decodeXml(
      '<content-block-tool_call id="a" name><content-block-text>x</content-block-text>',
    );
    expect(problemsOf(events)).toEqual([
      {
        code: 'malformed-tag',
        message: '<content-block-tool_call> is not well formed (at 0)',
        offset: 0,
        raw: '<content-block-tool_call id="a" name',
        tag: 'content-block-tool_call',
      },
    ]);
    expect(blocksOf(events)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'x' },
      { type: 'text-end' },
    ]);
    expect(events).toContainEqual({ type: 'stray-text', text: '>' });
  });

  it('a broken <chart> or <table> in text is text, not a problem', () => {
    expect(decodeXml('<content-block-text>use <table border> here</content-block-text>')).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'use <table border> here' },
      { type: 'text-end' },
    ]);
  });

  it('a < that does not begin a tag is text', () => {
    expect(
      decodeXml(
        '<content-block-text>if a < b or a<2 or <!DOCTYPE x> or </ 3</content-block-text>',
      )[1],
    ).toEqual({
      type: 'text-delta',
      delta: 'if a < b or a<2 or <!DOCTYPE x> or </ 3',
    });
  });

  it('data that is not JSON of the right shape is reported with the block and its attributes', () => {
    const events = decodeXml(
      '<meta_init data="test"></meta_init><awaiting_frontend_tools data="{}"/>' +
        '<content-block-meta_files>not json</content-block-meta_files><content-block-error>plain words</content-block-error>',
    );
    expect(
      problemsOf(events).map(({ code, tag, attributes, raw }) => ({ code, tag, attributes, raw })),
    ).toEqual([
      { code: 'invalid-json', tag: 'meta_init', attributes: { data: 'test' }, raw: 'test' },
      {
        code: 'invalid-json',
        tag: 'awaiting_frontend_tools',
        attributes: { data: '{}' },
        raw: '{}',
      },
      { code: 'invalid-json', tag: 'content-block-meta_files', attributes: {}, raw: 'not json' },
    ]);
    // An error body that is not JSON is the error's text.
    expect(blocksOf(events)).toEqual([{ type: 'error', error: 'plain words' }]);
  });

  it('content where a block has none, and a closing tag of a block that is not open', () => {
    const events = decodeXml(
      '<meta_init data="{}">oops</meta_init></content-block-text></unknown>',
    );
    expect(problemsOf(events).map((problem) => [problem.code, problem.raw])).toEqual([
      ['unexpected-content', 'oops'],
      ['unexpected-end-tag', '</content-block-text>'],
    ]);
    expect(events.at(-1)).toEqual({ type: 'stray-text', text: '</unknown>' });
  });

  it('a block that begins while another is open closes it, with a problem', () => {
    const events = decodeXml(
      '<content-block-text>cut<content-block-tool_result id="r" name="n">half<content-block-thinking>t</content-block-thinking>',
    );
    expect(events).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'cut' },
      { type: 'text-end' },
      {
        type: 'decode-error',
        problem: {
          code: 'unclosed-block',
          message: '<content-block-text> was not closed: <content-block-tool_result> began (at 0)',
          offset: 0,
          tag: 'content-block-text',
          attributes: {},
        },
      },
      {
        type: 'decode-error',
        problem: {
          code: 'unclosed-block',
          message: '<content-block-tool_result> was not closed; what arrived is in raw (at 23)',
          offset: 23,
          raw: 'half',
          tag: 'content-block-tool_result',
          attributes: { id: 'r', name: 'n' },
        },
      },
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 't' },
      { type: 'thinking-end' },
    ]);
  });

  it('the end of the stream closes what is open and says where it stopped', () => {
    expect(problemsOf(decodeXml('<content-block-text><![CDATA[ab]')).map((p) => p.code)).toEqual([
      'unclosed-cdata',
      'unclosed-block',
    ]);
    expect(decodeXml('<content-block-text><![CDATA[ab]').slice(0, 3)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'ab' },
      { type: 'text-delta', delta: ']' },
    ]);
    // A tag cut off: an unknown one is text, a known one a problem with what arrived.
    expect(mergeDeltas(decodeXml('hi <foo a="1'))).toEqual([
      { type: 'stray-text', text: 'hi <foo a="1' },
    ]);
    expect(problemsOf(decodeXml('<content-block-tool_call id="a" arguments="{'))).toEqual([
      {
        code: 'unclosed-block',
        message: 'the stream ended inside the <content-block-tool_call> tag (at 0)',
        offset: 0,
        raw: '<content-block-tool_call id="a" arguments="{',
        tag: 'content-block-tool_call',
        attributes: { id: 'a' },
      },
    ]);
  });
});

describe('decoder: size caps', () => {
  it('drops a buffered block past maxBlockChars, keeps its first characters, and goes on', () => {
    const events = decodeXml(
      '<content-block-tool_result id="r" name="n"><![CDATA[0123456789abcdef]]></content-block-tool_result><content-block-text>next</content-block-text>',
    );
    expect(blocksOf(events)[0]).toMatchObject({ type: 'tool-result', content: '0123456789abcdef' });
    const capped = decodeChunks(
      [
        '<content-block-tool_result id="r" name="n"><![CDATA[0123456789',
        'abcdef]]></content-block-tool_result><content-block-text>next</content-block-text>',
      ],
      { framing: 'xml', maxBlockChars: 12 },
    );
    expect(problemsOf(capped)).toEqual([
      {
        code: 'too-large',
        message: '<content-block-tool_result> grew past 12 characters; 4 were dropped (at 0)',
        offset: 0,
        raw: '0123456789ab',
        tag: 'content-block-tool_result',
        attributes: { id: 'r', name: 'n' },
      },
    ]);
    expect(blocksOf(capped)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'next' },
      { type: 'text-end' },
    ]);
  });

  it('drops a tag longer than the cap with its content, and never buffers streamed text', () => {
    const long = 'x'.repeat(50);
    const events = decodeChunks(
      [
        `<content-block-tool_call id="a" name="f" arguments="${long}"></content-block-tool_call>`,
        `<content-block-text>${long}${long}</content-block-text>`,
      ],
      { framing: 'xml', maxBlockChars: 20 },
    );
    expect(problemsOf(events).map((problem) => problem.code)).toEqual(['too-large']);
    expect(blocksOf(events)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: long + long },
      { type: 'text-end' },
    ]);
  });

  it('an SSE message past maxMessageChars is reported and the stream goes on', () => {
    const body = `data: <content-block-text>${'y'.repeat(100)}</content-block-text>\n\ndata: <content-block-text>ok</content-block-text>\n\n`;
    for (const size of [7, 16, 64]) {
      const events = decodeChunks(chunksOf(body.replaceAll('\n', '\r\n'), size), {
        maxMessageChars: 64,
      });
      // The rest of the oversized message is dropped with it, not read as lines of its own.
      expect(problemsOf(events).map((problem) => problem.code)).toEqual(['too-large']);
      expect(blocksOf(events)).toEqual([
        { type: 'text-start' },
        { type: 'text-delta', delta: 'ok' },
        { type: 'text-end' },
      ]);
    }
    const events = decodeChunks(chunksOf(body, 16), { maxMessageChars: 64 });
    expect(blocksOf(events).slice(-3)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'ok' },
      { type: 'text-end' },
    ]);
  });
});

describe('decoder: SSE framing and bytes', () => {
  it('joins data lines with newlines; comments, named events and CRLF are SSE, not content', () => {
    const events = decodeBlocks(
      ': keep-alive\r\nevent: ping\r\ndata: ignored\r\n\r\ndata:<content-block-text><![CDATA[a\r\ndata: b]]></content-block-text>\r\n\r\n',
    );
    expect(events).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'a\nb' },
      { type: 'text-end' },
    ]);
  });

  it('a last message without its blank line still counts; a broken line is a problem', () => {
    expect(decodeBlocks('data: <content-block-text>end</content-block-text>')).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'end' },
      { type: 'text-end' },
    ]);
    expect(problemsOf(decodeBlocks('garbage line\n\n'))).toEqual([
      expect.objectContaining({ code: 'sse', raw: 'garbage line' }),
    ]);
  });

  it('gives one delta per SSE message, however the bytes are cut', () => {
    const body =
      'data: <content-block-text>\n\ndata: <![CDATA[one]]>\n\ndata: <![CDATA[two]]>\n\ndata: </content-block-text>\n\n';
    const expected: DecodedEvent[] = [
      { type: 'text-start' },
      { type: 'text-delta', delta: 'one' },
      { type: 'text-delta', delta: 'two' },
      { type: 'text-end' },
    ];
    for (const chunks of everySplit(body)) expect(decodeChunks(chunks)).toEqual(expected);
    expect(decodeBlocks(body)).toEqual(expected);
  });

  it('reads UTF-8 split anywhere, drops a byte order mark, and reads bad bytes as U+FFFD', () => {
    const body = '\uFEFFdata: <content-block-text><![CDATA[é😀中]]></content-block-text>\n\n';
    const bytes = new TextEncoder().encode(body);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const events = decodeChunks([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(events[1]).toEqual({ type: 'text-delta', delta: 'é😀中' });
    }
    expect(decodeChunks([body])[1]).toEqual({ type: 'text-delta', delta: 'é😀中' });
    const broken = new Uint8Array([
      ...new TextEncoder().encode('data: <content-block-text>a'),
      0xff,
      0xf0,
      0x9f,
    ]);
    expect(decodeChunks([broken])).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'a\uFFFD\uFFFD' },
      { type: 'text-end' },
      expect.objectContaining({ type: 'decode-error' }),
    ]);
  });
});

describe('decoder: UTF-8 chunks that end inside a character and inside none', () => {
  const body =
    'data: <content-block-text><![CDATA[a\uFEFFb é😀 中\uFEFF]]></content-block-text>\n\n';
  const bytes = new TextEncoder().encode(body);

  it('keeps U+FEFF inside the stream, whatever chunk it begins', () => {
    const start = bytes.indexOf(0xef);
    for (const chunks of [
      [bytes.subarray(0, start), bytes.subarray(start)],
      [bytes.subarray(0, start + 1), bytes.subarray(start + 1)],
    ])
      expect(decodeChunks(chunks)[1]).toEqual({
        type: 'text-delta',
        delta: 'a\uFEFFb é😀 中\uFEFF',
      });
  });

  it('one byte at a time, and every pair of cuts', () => {
    const single = Array.from(bytes, (byte) => new Uint8Array([byte]));
    expect(decodeChunks(single)[1]).toEqual({ type: 'text-delta', delta: 'a\uFEFFb é😀 中\uFEFF' });
    for (let first = 30; first < bytes.length; first += 3)
      for (let second = first; second < bytes.length; second += 5)
        expect(decodeChunks(byteChunks(body, [first, second]))[1]).toEqual({
          type: 'text-delta',
          delta: 'a\uFEFFb é😀 中\uFEFF',
        });
  });

  it('a character cut off by the end of the stream reads as U+FFFD', () => {
    const cut = new TextEncoder().encode('data: <content-block-text>😀');
    expect(decodeChunks([cut.subarray(0, cut.length - 2)], {}).slice(0, 2)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: '\uFFFD' },
    ]);
    // Strings after bytes: the unfinished character ends before the string.
    expect(
      decodeChunks([cut.subarray(0, cut.length - 1), '</content-block-text>\n\n'], {}),
    ).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: '\uFFFD' },
      { type: 'text-end' },
    ]);
  });
});

describe('decoder: chunk boundaries anywhere give the same result', () => {
  const legacy =
    `<meta_init data="{&quot;format&quot;:&quot;xml&quot;,&quot;user_query&quot;:&quot;q &amp; a&quot;,&quot;agent_uuid&quot;:&quot;u&quot;,&quot;model&quot;:&quot;m&quot;}"></meta_init>` +
    `<content-block-text>Raw &amp; text <b>x</b> <chart k='v'>{"a":1}</chart> a < b</content-block-text>` +
    `<content-block-tool_call id="t" name="n" arguments='{"s":"&lt;]]&gt;"}'></content-block-tool_call>` +
    `<content-block-tool_result id="t" name="n"><![CDATA[x]]]]><![CDATA[>y]]] ]]></content-block-tool_result>` +
    `<content-block-x_tool_result id="s"> <text>p</text> <image src="i" media_type="image/png"/> </content-block-x_tool_result>` +
    `junk &#65; <content-block-text><![CDATA[unclosed`;

  it('every split of a stream with legacy forms, compatibility tags and broken bits', () => {
    const expected = mergeDeltas(decodeXml(legacy));
    expect(problemsOf(expected).map((problem) => problem.code)).toEqual([
      'unclosed-cdata',
      'unclosed-block',
    ]);
    for (const chunks of everySplit(legacy))
      expect(mergeDeltas(decodeXml(chunks))).toEqual(expected);
    for (const cut of [1, 17, 100, 333])
      expect(
        mergeDeltas(decodeChunks(byteChunks(legacy, [cut, cut * 2, cut * 3]), { framing: 'xml' })),
      ).toEqual(expected);
  });

  it('long broken tags: the same text or the same report, wherever the chunks end', () => {
    const long = 'y'.repeat(3000);
    const input =
      `<content-block-text>x <table a="${long}" b> z</content-block-text>` +
      `<content-block-tool_call id="${long}" name><content-block-text>after</content-block-text>`;
    const expected = mergeDeltas(decodeXml(input));
    expect(expected[1]).toEqual({ type: 'text-delta', delta: `x <table a="${long}" b> z` });
    const [problem] = problemsOf(expected);
    expect(problem?.code).toBe('malformed-tag');
    expect(problem?.raw).toBe(`<content-block-tool_call id="${long}"`.slice(0, 1024) + '…');
    for (const size of [1, 100, 1000, 1023, 1025, 2999])
      expect(mergeDeltas(decodeXml(chunksOf(input, size)))).toEqual(expected);
  });

  it('reports the block being received, then forgets everything on reset', () => {
    const decoder = createBlockDecoder({ framing: 'xml' });
    decoder.push('<content-block-tool_result id="r" name="n"><![CDATA[partial');
    expect(decoder.receiving).toEqual({
      tag: 'content-block-tool_result',
      attributes: { id: 'r', name: 'n' },
      offset: 0,
    });
    decoder.reset();
    expect(decoder.receiving).toBeUndefined();
    expect(decoder.push('<content-block-text>fresh</content-block-text>')).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'fresh' },
      { type: 'text-end' },
    ]);
    expect(decoder.end()).toEqual([]);
  });
});
