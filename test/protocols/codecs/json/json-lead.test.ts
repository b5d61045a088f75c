import { describe, expect, it } from 'vitest';
import {
  JsonLeadReader,
  LEAD_NEEDS_MORE,
  LEAD_REFUSED,
} from '../../../../src/protocols/codecs/json/json-lead.ts';

/** Reads `text` in pieces of `size`: where the lead ended (in `text`), or refused, or needs more. */
function readLead(objectToOpen: boolean, text: string, size: number): string {
  const reader = new JsonLeadReader({ objectToOpen, keys: ['name', 'tool_call_id'] });
  for (let start = 0; start < text.length; start += size) {
    const end = Math.min(text.length, start + size);
    const read = reader.scan(text, start, end);
    if (read === LEAD_REFUSED) return `refused at ${reader.refusedAt}`;
    if (read !== LEAD_NEEDS_MORE) return `ends at ${read} (${reader.key})`;
  }
  return 'needs more';
}

describe('JsonLeadReader', () => {
  it.each([
    [true, ' \t\n\r{ \n"name": 1', 'ends at 13 (name)'],
    [true, '{"tool_call_id"', 'ends at 15 (tool_call_id)'],
    [false, '\n\n  "name"', 'ends at 10 (name)'],
    [false, '"name', 'needs more'],
    [false, ' \t ', 'needs more'],
    [true, '  [', 'refused at 2'],
    [true, ' x', 'refused at 1'],
    [false, '{"name"', 'refused at 0'],
    [false, '  "nom"', 'refused at 4'],
    [false, '"names"', 'refused at 5'],
    [false, '"tool"', 'refused at 5'],
    [false, '"na\\u006de"', 'refused at 3'],
    [false, '\u00a0"name"', 'refused at 0'],
  ])('objectToOpen %s, %j: %s, in pieces of any size', (objectToOpen, text, outcome) => {
    for (let size = 1; size <= text.length; size++) {
      expect(readLead(objectToOpen, text, size), `pieces of ${size}`).toBe(outcome);
    }
  });
});
