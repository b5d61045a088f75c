import { describe, it } from 'vitest';
import { protocolByName } from '../../../../src/index.ts';
import { expectLinearEngineWork } from '../../../support/growth.ts';
import { TOOLS } from '../../helpers.ts';

/**
 * A whole text of many JSON calls whose closer never comes: each call's body is made afresh, and
 * what one search learned about the rest of the text (no closer in it, no backslash in it) must
 * not be searched for again by the next call's body. It was, to the text's end at every call
 * (the closer by the whole-call reader, a backslash by each call's tokenizer): 4x the calls cost
 * 16x the work.
 */

const hermes = protocolByName('hermes');

const UNITS = {
  'a name that is not a string': '<tool_call>{"name": 1}\n',
  'a whole call, no closer': '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}\n',
  'a call cut inside a string': '<tool_call>{"name": "get_weather", "arguments": {"city": "Pa\n',
  'an unknown tool': '<tool_call>{"name": "nope", "arguments": {"q": "some words here"}}\n',
};

describe('hermes whole text of calls with no closer: linear work', () => {
  it.each(Object.entries(UNITS))('%s', (_label, unit) => {
    expectLinearEngineWork(
      (calls) => unit.repeat(calls),
      (text) => {
        hermes.parseGeneratedText(text, { tools: TOOLS });
      },
      500,
    );
  });
});
