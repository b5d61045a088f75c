import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol } from '../../src/core/protocol.ts';
import { HttpError } from '../../src/http/http-error.ts';
import type { ServerSettings } from '../../src/server/options.ts';
import { resumeProtocol } from '../../src/server/resume-protocol.ts';
import type { StoredRun } from '../../src/store/run-store.ts';

const house = { name: 'house-format' } as unknown as ToolCallProtocol;
const settings = (defaultProtocol: ServerSettings['defaultProtocol']) =>
  ({ defaultProtocol }) as ServerSettings;
const paused = (protocol: string, customProtocol: boolean): StoredRun => ({
  runId: 'r1',
  status: 'paused',
  wire: 'blocks',
  log: 'r1',
  protocol,
  customProtocol,
  prompt: 'Q',
  seenAt: 0,
  createdAt: 0,
});

describe('resumeProtocol', () => {
  it('a run in a named format goes on in it; one in a protocol object, in this server’s object of that name', () => {
    expect(resumeProtocol(settings(house), paused('hermes', false))).toBe('hermes');
    expect(resumeProtocol(settings(house), paused('house-format', true))).toBe(house);
  });

  it('a run in a protocol object this server lacks is a 409 naming the run as the route does', () => {
    const others: ServerSettings['defaultProtocol'][] = [
      'xml',
      { name: 'other' } as unknown as ToolCallProtocol,
    ];
    for (const defaultProtocol of others) {
      const refusal = (() => {
        try {
          resumeProtocol(
            settings(defaultProtocol),
            paused('house-format', true),
            'the thread’s run',
          );
        } catch (error) {
          return error;
        }
      })();
      expect(refusal).toBeInstanceOf(HttpError);
      expect(refusal).toMatchObject({
        status: 409,
        message:
          'the thread’s run was started in the protocol object "house-format", which this server does not have; answer it on a server configured with it',
      });
    }
    expect(() => resumeProtocol(settings('xml'), paused('house-format', true))).toThrow(
      /^run r1 was started in the protocol object/,
    );
  });
});
