/**
 * Makes examples/recorded-run.sse, the run `toolwire serve --replay` ships with: a scripted
 * model (no real one) answers a question about a small repository with thinking, a search call
 * whose arguments stream, its result, and a Markdown answer. The blocks are made exactly as the
 * server makes them (AgentBlockAdapter, then the encoder).
 *
 *   node test/server/record-example.ts            # rewrites examples/recorded-run.sse
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../src/agent/index.ts';
import { AgentBlockAdapter, serverTools } from '../../src/server/index.ts';
import { type BlockEvent, encodeBlocks } from '../../src/stream/index.ts';
import { scriptedModel } from '../agent/scripted-model.ts';

export const RECORDING_LABEL =
  'A scripted run recorded by test/server/record-example.ts: no model was involved.';

const QUESTION = 'How does login work in this project?';

const TURNS = [
  '<thinking>The user asks how login works. I will search the code for the login function ' +
    'before answering.</thinking>\n<search>\n<query>loginUser</query>\n</search>',
  '<thinking>src/auth/login.ts has loginUser: it looks the user up, checks the password hash ' +
    'and starts a session. That answers the question.</thinking>\n<attempt_completion>\n<result>' +
    'Login is handled by **`loginUser`** in `src/auth/login.ts`:\n\n' +
    '1. it finds the user by email (`findUser`);\n' +
    '2. it checks the password against the stored hash (`verifyHash`);\n' +
    '3. on success it starts a session with `startSession` and returns its token.\n\n' +
    'A wrong email or password gives *the same* error, so nobody can probe which emails exist:\n\n' +
    '```ts\nif (!user || !(await verifyHash(password, user.hash))) throw new LoginError();\n```\n\n' +
    'See the [OWASP authentication cheat sheet](https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html) for why.' +
    '</result>\n</attempt_completion>',
];

const LOGIN_TS = `import { findUser } from './users';
import { verifyHash } from './hash';
import { startSession } from './session';

export class LoginError extends Error {}

/** Signs a user in; returns the session token. */
export async function loginUser(email: string, password: string): Promise<string> {
  const user = await findUser(email);
  if (!user || !(await verifyHash(password, user.hash))) throw new LoginError();
  return startSession(user.id);
}
`;

/** The recording's text (an SSE body). The same every time: ids are fixed. */
export async function recordExampleRun(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'toolwire-recording-'));
  mkdirSync(join(root, 'src', 'auth'), { recursive: true });
  writeFileSync(join(root, 'src', 'auth', 'login.ts'), LOGIN_TS);
  const { model } = scriptedModel(TURNS, { chunkSize: 7 });
  let id = 0;
  const run = runAgent({
    model,
    tools: serverTools(root),
    prompt: QUESTION,
    generateId: () => `toolu_${String(++id).padStart(2, '0')}`,
  });
  const adapter = new AgentBlockAdapter();
  const events: BlockEvent[] = [
    {
      type: 'meta-init',
      data: {
        format: 'xml',
        user_query: QUESTION,
        agent_uuid: 'recorded-run',
        model: 'scripted model (recording)',
        protocol: 'xml',
        recording: RECORDING_LABEL,
      },
    },
  ];
  for await (const event of run) events.push(...adapter.push(event));
  events.push(...adapter.finish(await run.result));
  return encodeBlocks(events);
}

if (import.meta.main) {
  const target = new URL('../../examples/recorded-run.sse', import.meta.url);
  writeFileSync(target, await recordExampleRun());
  process.stdout.write(`wrote ${target.pathname}\n`);
}
