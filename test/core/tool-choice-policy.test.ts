import { describe, expect, it } from 'vitest';
import { correctionText, notFollowedMessage } from '../../src/core/tool-choice.ts';
import {
  type FinishCause,
  finishCauseFor,
  isInterrupted,
  isToolChoiceConflict,
  judgeAttempt,
  meetsDemand,
  planToolChoice,
  retryTurns,
} from '../../src/core/tool-choice-policy.ts';

const weather = { name: 'get_weather' };
const time = { name: 'get_time' };
const tools = [weather, time];

describe('planToolChoice', () => {
  it('auto: no demand; every tool offered and read', () => {
    expect(planToolChoice({ type: 'auto' }, tools)).toEqual({
      demand: undefined,
      prompt: 'tools',
      offered: tools,
      read: tools,
    });
  });

  it('none: the tools are said to be unavailable, none offered, no call read', () => {
    expect(planToolChoice({ type: 'none' }, tools)).toEqual({
      demand: undefined,
      prompt: 'tools-unavailable',
      offered: [],
      read: [],
    });
  });

  it('auto and none without tools: nothing to say', () => {
    expect(planToolChoice({ type: 'auto' }, []).prompt).toBe('no-tools');
    expect(planToolChoice({ type: 'none' }, []).prompt).toBe('no-tools');
  });

  it('required: any call is demanded; every tool offered and read', () => {
    expect(planToolChoice({ type: 'required' }, tools)).toEqual({
      demand: { type: 'required' },
      prompt: 'tools',
      offered: tools,
      read: tools,
    });
  });

  it("named: that tool's call is demanded; only that tool is offered and read", () => {
    expect(planToolChoice({ type: 'tool', toolName: 'get_time' }, tools)).toEqual({
      demand: { type: 'tool', toolName: 'get_time' },
      prompt: 'tools',
      offered: [time],
      read: [time],
    });
  });

  it('conflicts: required without tools, a named tool not declared', () => {
    const noTools = planToolChoice({ type: 'required' }, []);
    expect(noTools).toEqual({ conflict: 'no-tools' });
    expect(isToolChoiceConflict(noTools)).toBe(true);
    expect(planToolChoice({ type: 'tool', toolName: 'get_wether' }, tools)).toEqual({
      conflict: 'unknown-tool',
      toolName: 'get_wether',
    });
    expect(isToolChoiceConflict(planToolChoice({ type: 'auto' }, []))).toBe(false);
  });
});

describe('meetsDemand', () => {
  it('any call meets required; only the named tool meets a named choice; no demand is met', () => {
    expect(meetsDemand(undefined, 'x')).toBe(true);
    expect(meetsDemand({ type: 'required' }, 'x')).toBe(true);
    expect(meetsDemand({ type: 'tool', toolName: 'get_time' }, 'get_time')).toBe(true);
    expect(meetsDemand({ type: 'tool', toolName: 'get_time' }, 'get_weather')).toBe(false);
  });
});

describe('finish', () => {
  const causes: FinishCause[] = [
    'stop',
    'length',
    'content-filter',
    'tool-calls',
    'error',
    'interrupted',
    'other',
  ];

  it('only the model ending by itself is not an interruption; no finish at all is one', () => {
    expect(causes.filter((cause) => !isInterrupted(cause))).toEqual([
      'stop',
      'tool-calls',
      'other',
    ]);
    expect(isInterrupted(undefined)).toBe(true);
  });

  it('calls read turn stop and other into tool-calls; a reason that says more is kept', () => {
    expect(causes.map((cause) => finishCauseFor(cause, 1))).toEqual([
      'tool-calls',
      'length',
      'content-filter',
      'tool-calls',
      'error',
      'interrupted',
      'tool-calls',
    ]);
    // Without calls read, every reason stays (tool-calls may be the provider's own calls).
    expect(causes.map((cause) => finishCauseFor(cause, 0))).toEqual(causes);
  });
});

describe('judgeAttempt and retryTurns', () => {
  const demand = { type: 'required' } as const;
  const base = { demand, demandMet: false, interrupted: false, number: 1, retries: 1 };

  it('accepts without a demand, with the demand met, or after an interruption', () => {
    expect(judgeAttempt({ ...base, demand: undefined })).toBe('accept');
    expect(judgeAttempt({ ...base, demandMet: true })).toBe('accept');
    expect(judgeAttempt({ ...base, interrupted: true })).toBe('accept');
  });

  it('retries while attempts are left, then refuses', () => {
    expect(judgeAttempt(base)).toBe('retry');
    expect(judgeAttempt({ ...base, number: 2 })).toBe('refuse');
    expect(judgeAttempt({ ...base, retries: 0 })).toBe('refuse');
    expect(judgeAttempt({ ...base, number: 3, retries: 3 })).toBe('retry');
  });

  it("a retry adds the model's answer (when it wrote one) and the correction", () => {
    expect(retryTurns('No.', demand)).toEqual([
      { role: 'assistant', text: 'No.' },
      { role: 'user', text: correctionText(demand) },
    ]);
    expect(retryTurns('', demand)).toEqual([{ role: 'user', text: correctionText(demand) }]);
  });

  it('the message of a demand not followed quotes at most 200 characters', () => {
    expect(notFollowedMessage('tool_choice', demand, 'No.', 1)).toBe(
      'tool_choice demanded a tool call, but the model answered without one. It wrote: "No."',
    );
    const long = notFollowedMessage('tool_choice', demand, 'x'.repeat(300), 2);
    expect(long).toContain('after 2 attempts');
    expect(long).toContain(`"${'x'.repeat(200)}…"`);
  });
});
