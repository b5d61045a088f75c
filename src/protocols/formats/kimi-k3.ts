/**
 * Kimi K3 (Moonshot): "XTML" elements made of special tokens,
 * `<|open|>TAG attr="v"<|sep|>BODY<|close|>TAG<|sep|>`. An assistant turn is a `think` element
 * (which the generation prompt leaves open), a `response` element holding the content, then a
 * `tools` element holding the calls:
 *
 * `<|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>print(1)<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`
 *
 * A `string` argument is written as it is, any other type as JSON (llama.cpp
 * `models/templates/Kimi-K3.jinja`; SGLang's `kimik3_detector.py` and vLLM's
 * `kimi_k3_tool_parser.py` read it so, JSON that does not read staying the text). Attribute values
 * are XML-escaped (`&quot;`, `&amp;`). The template's other spelling of the arguments, one
 * `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>` element (written when the arguments
 * are a string), is read too, though neither parser reads it. Results come back one message per
 * call, `role="tool"` with the tool's name.
 *
 * K3 sometimes leaves out the think element's closer in a tool-calling turn (vLLM #53246): the
 * tools element is read inside reasoning, and the response element or the message's closer ends
 * the reasoning, as vLLM's fix (#53249) reads such a turn. A call element written without the
 * tools element around it is read too (Dynamo's live K3 tests recover it).
 *
 * A detokenizer with `spaces_between_special_tokens` on (vLLM's and TensorRT-LLM's default where
 * the server does not turn it off) sets every special token off by a space:
 * `<|open|> tools <|sep|> <|open|> call tool="f" index="1" <|sep|> …`. Each marker is also read so
 * spelled (as vLLM's and Dynamo's K3 parsers read it); a value is taken as written, as vLLM takes
 * it, so a string keeps the spaces the join put around it (a typed value reads as JSON).
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, TaggedCallForm } from '../spec/types.ts';

const TOOLS_OPEN = '<|open|>tools<|sep|>';
const TOOLS_CLOSE = '<|close|>tools<|sep|>';

/**
 * The elements after `think` in a message: where the model left out the think element's closer,
 * the first of them ends it (as vLLM's fix for #53246 reads it). `<|open|>tools<|sep|>` ends it
 * too: the tools forms are read inside reasoning.
 */
const THINK_ENDS = [
  '<|open|>response<|sep|>',
  '<|close|>response<|sep|>',
  '<|close|>message<|sep|>',
  '<|open|> response <|sep|>',
  '<|close|> response <|sep|>',
  '<|close|> message <|sep|>',
];

/** `<|open|>TAG` as a detokenizer that puts spaces between special tokens writes it. */
const spacedOpen = (tag: string) => `<|open|> ${tag}`;
/** `<|close|>TAG<|sep|>` so written. */
const spacedClose = (tag: string) => `<|close|> ${tag} <|sep|>`;
/** `<|open|>TAG<|sep|>` so written. */
const spacedElement = (tag: string) => `<|open|> ${tag} <|sep|>`;

const KIMI_K3_SYNTAX: ParameterTagsSyntax = {
  callOpen: '<|open|>call',
  callClose: '<|close|>call<|sep|>',
  parameterOpen: '<|open|>argument',
  parameterClose: '<|close|>argument<|sep|>',
  headerClose: '<|sep|>',
  nameAttribute: 'tool',
  keyAttribute: 'key',
  typeAttribute: 'type',
  rawTypes: ['string'],
  // The template's other spelling: all the arguments as one JSON object.
  argumentsOpen: '<|open|>json',
  argumentsClose: '<|close|>json<|sep|>',
  // The template writes values as they are: every character between the tags is the value's.
  layout: 'exact',
};

/** The same elements with their markers spaced; a header's own trailing space is read as layout. */
const KIMI_K3_SPACED_SYNTAX: ParameterTagsSyntax = {
  ...KIMI_K3_SYNTAX,
  callOpen: spacedOpen('call'),
  callClose: spacedClose('call'),
  parameterOpen: spacedOpen('argument'),
  parameterClose: spacedClose('argument'),
  argumentsOpen: spacedOpen('json'),
  argumentsClose: spacedClose('json'),
};

export const kimiK3Spec: FormatSpec = {
  spec: 1,
  name: 'kimi-k3',
  aliases: ['kimi_k3', 'kimik3', 'xtml'],
  families: 'Kimi K3',
  models: ['kimi-k3', 'kimi_k3', 'kimik3'],
  reasoning: [
    // K3 leaves out `<|close|>think<|sep|>` in some tool-calling turns (vLLM #53246, ~5%): the
    // next element of the message ends the think element then, whether the prompt or the output
    // opened it.
    {
      open: '<|open|>think<|sep|>',
      close: '<|close|>think<|sep|>',
      closeAlternatives: THINK_ENDS,
    },
    { open: spacedElement('think'), close: spacedClose('think'), closeAlternatives: THINK_ENDS },
    // As every format reads them.
    { open: '<think>', close: '</think>' },
    { open: '<thinking>', close: '</thinking>' },
  ],
  // `<|open|>message role="assistant"<|sep|><|open|>think<|sep|>` is the generation prompt.
  startInReasoning: true,
  // The content's own element and the end of the message are framing, never content.
  markup: [
    '<|open|>response<|sep|>',
    '<|close|>response<|sep|>',
    '<|close|>message<|sep|>',
    '<|end_of_msg|>',
    spacedElement('response'),
    spacedClose('response'),
    spacedClose('message'),
  ],
  // Read inside reasoning too: special tokens, written there when the think close was left out.
  calls: [
    {
      codec: 'tagged',
      open: TOOLS_OPEN,
      close: TOOLS_CLOSE,
      syntax: KIMI_K3_SYNTAX,
      inReasoning: true,
    },
    {
      codec: 'tagged',
      open: spacedElement('tools'),
      close: spacedClose('tools'),
      syntax: KIMI_K3_SPACED_SYNTAX,
      inReasoning: true,
    },
    // A call written without its tools element (Dynamo's live K3 tests recover it); a
    // `<|close|>tools<|sep|>` written after it anyway is dropped.
    ...[
      { syntax: KIMI_K3_SYNTAX, strayClose: TOOLS_CLOSE },
      { syntax: KIMI_K3_SPACED_SYNTAX, strayClose: spacedClose('tools') },
    ].map(
      ({ syntax, strayClose }): TaggedCallForm => ({
        codec: 'tagged',
        open: syntax.callOpen,
        syntax,
        openConsumed: '',
        strayClose,
        inReasoning: true,
      }),
    ),
  ],
  write: {
    section: { open: TOOLS_OPEN, close: TOOLS_CLOSE },
    call: '<|open|>call tool="{name}" index="{index}"<|sep|>{arguments}<|close|>call<|sep|>',
    parameter: '<|open|>argument key="{key}" type="{type}"<|sep|>{value}<|close|>argument<|sep|>',
  },
  results: {
    each: '<|open|>message role="tool" tool="{name}" index="{index}"<|sep|>{output}<|close|>message<|sep|><|end_of_msg|>',
  },
  prompt: {
    text: [
      '# Tools',
      'Here are the available tools, described in JSONSchema.',
      '',
      '```json',
      '{tool_list}',
      '```',
      '',
      'To call tools, end your response with a tools element holding one call element per call, each argument in its own element (a string as it is, any other type as JSON):',
      '{example}',
    ].join('\n'),
  },
};

export const kimiK3Format: FormatEntry = formatEntryFromSpec(kimiK3Spec, {
  // The agent's feedback on invented tools: the names in call elements, spaced or not.
  toolNamesIn: (text) =>
    Array.from(
      text.matchAll(/<\|open\|> ?call[ \t]+tool="([^"<>\n]{1,100})"/g),
      (match) => match[1]!,
    ),
});
