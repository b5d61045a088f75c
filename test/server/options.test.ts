import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  DEFAULT_REPLAY_DELAY_MS,
  serverSettings,
} from '../../src/server/options.ts';
import { parseRecording } from '../../src/server/replay.ts';
import { BODY_SHAPE_LIMITS } from '../../src/server/requests.ts';

const RECORDING = parseRecording(': replayed\n\n', 'demo.sse');

describe('serverSettings', () => {
  it('fills in the defaults of a replay server', () => {
    const settings = serverSettings({ replay: { recording: RECORDING } });
    expect(settings).toMatchObject({
      limits: DEFAULT_LIMITS,
      replayDelayMs: DEFAULT_REPLAY_DELAY_MS,
      playableDelayMs: DEFAULT_REPLAY_DELAY_MS,
      modelName: 'replay',
      defaultProtocol: 'xml',
      tools: {},
    });
    expect(settings.playable?.recording).toBe(RECORDING);
  });

  it('lets a body nest 16 levels above the conversation depth, never less than the default', () => {
    const replay = { recording: RECORDING };
    expect(serverSettings({ replay }).bodyShape).toEqual(BODY_SHAPE_LIMITS);
    expect(
      serverSettings({ replay, limits: { maxConversationDepth: 200 } }).bodyShape.maxDepth,
    ).toBe(216);
  });

  it('refuses what cannot be used with a TypeError naming it', () => {
    expect(() => serverSettings({})).toThrow('give a model, or a recording to replay');
    expect(() =>
      serverSettings({ replay: { recording: RECORDING }, limits: { maxBodyBytes: 0 } }),
    ).toThrow('limits.maxBodyBytes must be a whole number');
    expect(() => serverSettings({ replay: { recording: RECORDING, delayMs: -1 } })).toThrow(
      'replay.delayMs must be a whole number',
    );
    expect(() =>
      serverSettings({ replay: { recording: RECORDING }, protocol: 'nope' as never }),
    ).toThrow(TypeError);
  });
});
