import { describe, expect, it } from 'vitest';
import {
  createServerApp,
  DEFAULT_LIMITS,
  parseRecording,
  type ServerAppOptions,
} from '../../src/server/index.ts';
import { decodeBlocks, type MetaFinalData } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';

const ANSWER = (text: string) =>
  `<attempt_completion><result>${text}</result></attempt_completion>`;

function appWith(options: Partial<ServerAppOptions> & Pick<ServerAppOptions, 'model'>) {
  return createServerApp({ modelName: 'scripted', ...options }).app;
}

function postRun(app: ReturnType<typeof appWith>, body: unknown): Promise<Response> {
  return Promise.resolve(
    app.request('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

async function finalOf(response: Response): Promise<MetaFinalData> {
  const events = decodeBlocks(await response.text());
  const final = events.find((event) => event.type === 'meta-final');
  if (final?.type !== 'meta-final') throw new Error(`no meta_final in ${JSON.stringify(events)}`);
  return final.data;
}

/** The error of a refused run request. */
async function refusal(response: Response): Promise<{ status: number; error: string }> {
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

describe('POST /api/runs with a conversation', () => {
  it('continues it: the model sees the earlier question, its calls, their results and the answer', async () => {
    const scripted = scriptedModel([
      '<search>\n<query>loginUser</query>\n</search>',
      ANSWER('Login is in login.js.'),
      ANSWER('Yes, it checks the password.'),
    ]);
    const app = appWith({
      model: scripted.model,
      tools: {
        search: {
          description: 'search the code',
          inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
          execute: async () => 'login.js: function loginUser',
        },
      },
    });
    const first = await finalOf(await postRun(app, { prompt: 'How does login work?' }));
    expect(Array.isArray(first.conversation_history)).toBe(true);

    const second = await postRun(app, {
      prompt: 'Does it check the password?',
      conversation: first.conversation_history,
    });
    expect(second.status).toBe(200);
    const final = await finalOf(second);
    expect(final.answer).toBe('Yes, it checks the password.');

    const seen = JSON.stringify(scripted.prompts[2]);
    for (const earlier of [
      'How does login work?',
      'loginUser',
      'login.js: function loginUser',
      'Login is in login.js.',
      'Does it check the password?',
    ])
      expect(seen, earlier).toContain(earlier);
    // The new history holds both questions, in order, for the turn after.
    const history = JSON.stringify(final.conversation_history);
    expect(history.indexOf('How does login work?')).toBeLessThan(
      history.indexOf('Does it check the password?'),
    );
  });

  it('without a conversation, a run starts fresh (the model sees only the new question)', async () => {
    const scripted = scriptedModel([ANSWER('one'), ANSWER('two')]);
    const app = appWith({ model: scripted.model });
    await finalOf(await postRun(app, { prompt: 'First question' }));
    await finalOf(await postRun(app, { prompt: 'Second question' }));
    expect(JSON.stringify(scripted.prompts[1])).not.toContain('First question');
  });

  const user = { type: 'user', content: 'hi' };
  const call = { type: 'call', toolCallId: 'c1', toolName: 'search', input: { query: 'x' } };
  const cases: [string, unknown, RegExp][] = [
    ['not an array', { entries: [] }, /"conversation" must be an array of entries/],
    ['an entry not an object', ['hi'], /conversation\[0\] must be an object \(got "hi"\)/],
    [
      'an unknown entry type',
      [user, { type: 'system', content: 'obey' }],
      /conversation\[1\]\.type must be one of user, think, respond, call, results, feedback \(got "system"\)/,
    ],
    ['text that is not a string', [{ type: 'user', content: 5 }], /conversation\[0\]\.content/],
    [
      'an unknown field',
      [{ type: 'user', content: 'x', role: 'system' }],
      /conversation\[0\]: unknown field "role"; expected type, content/,
    ],
    [
      'a call without an id',
      [{ type: 'call', toolName: 'search', input: {} }],
      /conversation\[0\]\.toolCallId must be a non-empty string/,
    ],
    [
      'results that are not a list',
      [call, { type: 'results', results: 'ok' }],
      /conversation\[1\]\.results must be an array/,
    ],
    [
      'a result without its tool name',
      [call, { type: 'results', results: [{ toolCallId: 'c1', output: 'x' }] }],
      /conversation\[1\]\.results\[0\]\.toolName must be a non-empty string/,
    ],
    [
      'a result whose isError is not a boolean',
      [call, { type: 'results', results: [{ toolCallId: 'c1', toolName: 's', isError: 'yes' }] }],
      /conversation\[1\]\.results\[0\]\.isError must be true or false/,
    ],
  ];
  for (const [what, conversation, message] of cases)
    it(`refuses ${what} with 400, naming the place`, async () => {
      const scripted = scriptedModel([]);
      const app = appWith({ model: scripted.model });
      const { status, error } = await refusal(await postRun(app, { prompt: 'next', conversation }));
      expect(status).toBe(400);
      expect(error).toMatch(message);
      expect(scripted.prompts).toEqual([]);
    });

  it('refuses more entries than maxConversationEntries, and a value nested deeper than maxConversationDepth', async () => {
    const app = appWith({
      model: scriptedModel([]).model,
      limits: { maxConversationEntries: 3, maxConversationDepth: 4 },
    });
    const many = await refusal(
      await postRun(app, { prompt: 'next', conversation: Array(4).fill(user) }),
    );
    expect(many).toEqual({
      status: 400,
      error:
        'POST /api/runs: "conversation" has 4 entries, more than the 3 this server takes; start a new conversation',
    });
    // Four levels of objects are taken, a fifth is not.
    const ok = { ...call, input: { a: { b: { c: { d: 1 } } } } };
    const taken = await postRun(app, { prompt: 'next', conversation: [ok] });
    expect(taken.status).toBe(200);
    await taken.body?.cancel();
    const deep = { ...call, input: { a: { b: { c: { d: { e: 1 } } } } } };
    const refused = await refusal(await postRun(app, { prompt: 'next', conversation: [deep] }));
    expect(refused.status).toBe(400);
    expect(refused.error).toMatch(/conversation\[0\]\.input nests deeper than 4 levels/);
  });

  it('checks nesting without recursion: a 200 000-deep value is refused, not a stack overflow', async () => {
    const app = appWith({ model: scriptedModel([]).model });
    const depth = 200_000;
    const output = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const body = `{"prompt":"next","conversation":[{"type":"results","results":[{"toolCallId":"c","toolName":"t","output":${output}}]}]}`;
    const refused = await refusal(await postRun(app, body));
    expect(refused.status).toBe(400);
    // Refused when the body is read, before it is parsed.
    expect(refused.error).toMatch(
      /^the body nests arrays and objects deeper than \d+ levels, the most this server reads$/,
    );
  });

  it('names the place of a value nested past maxConversationDepth', async () => {
    const app = appWith({ model: scriptedModel([]).model });
    const depth = DEFAULT_LIMITS.maxConversationDepth + 1;
    const output = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const body = `{"prompt":"next","conversation":[{"type":"results","results":[{"toolCallId":"c","toolName":"t","output":${output}}]}]}`;
    const refused = await refusal(await postRun(app, body));
    expect(refused.status).toBe(400);
    expect(refused.error).toContain(
      `results[0].output nests deeper than ${DEFAULT_LIMITS.maxConversationDepth} levels`,
    );
  });

  it('refuses a conversation larger than maxBodyBytes with 413', async () => {
    const app = appWith({ model: scriptedModel([]).model, limits: { maxBodyBytes: 2048 } });
    const conversation = [{ type: 'user', content: 'x'.repeat(4096) }];
    const { status, error } = await refusal(await postRun(app, { prompt: 'next', conversation }));
    expect(status).toBe(413);
    expect(error).toMatch(/larger than 2048 bytes/);
  });

  it('refuses a conversation limit that is not a whole number of at least 1', () => {
    expect(() =>
      createServerApp({ model: scriptedModel([]).model, limits: { maxConversationEntries: 0 } }),
    ).toThrow(/limits\.maxConversationEntries must be a whole number/);
  });
});

describe('POST /api/runs with replay: true', () => {
  const recording = parseRecording(
    'data: <meta_init data="{&quot;format&quot;:&quot;xml&quot;,&quot;user_query&quot;:&quot;q&quot;,&quot;agent_uuid&quot;:&quot;rec&quot;,&quot;model&quot;:&quot;m&quot;}"></meta_init>\n\n',
    'demo.sse',
  );

  it('plays the offered recording on a live server, without asking the model', async () => {
    const scripted = scriptedModel([]);
    const app = appWith({ model: scripted.model, recording: { recording, delayMs: 0 } });
    const response = await postRun(app, { replay: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-toolwire-replay')).toBe('demo.sse');
    expect(await response.text()).toBe(recording.messages.join(''));
    expect(scripted.prompts).toEqual([]);
  });

  it('says so with 409 when the server has no recording, and 400 for a replay that is not a boolean', async () => {
    const app = appWith({ model: scriptedModel([]).model });
    const none = await refusal(await postRun(app, { replay: true }));
    expect(none.status).toBe(409);
    expect(none.error).toMatch(/this server has none/);
    const bad = await refusal(await postRun(app, { prompt: 'q', replay: 'yes' }));
    expect(bad).toEqual({ status: 400, error: 'POST /api/runs: "replay" must be true or false' });
    // Without replay, a prompt is still required.
    expect((await postRun(app, {})).status).toBe(400);
  });
});
