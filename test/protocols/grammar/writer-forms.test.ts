/**
 * The write data of a spec whose writer is a hook says what the hook writes, for the calls a
 * model writes (the grammar follows the data): Command R's list, one call a line, indented 4.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { commandRProtocol, commandRSpec } from '../../../src/protocols/command-r/index.ts';
import { callWriter } from '../../../src/protocols/spec/writers.ts';

it("Command R's spec writes its calls as its writer hook does (ids the writer's counters)", () => {
  const fromData = callWriter(commandRSpec);
  const protocol = commandRProtocol();
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          toolName: fc.string({ minLength: 1, maxLength: 8 }),
          input: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
        }),
        { maxLength: 4 },
      ),
      (calls) => {
        expect(fromData(calls)).toBe(protocol.formatToolCall(calls));
      },
    ),
  );
});
