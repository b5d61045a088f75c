/**
 * A streamed reply works however the modules loaded: here the proxy's module loads after another
 * app already serves with @hono/node-server, whose lightweight Response then stands in for the
 * global one (the "already written" marker made then was ignored, and a second head thrown).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runChild } from '../support/child-process.ts';
import { joinedChatStream } from './harness.ts';

const SCRIPT = fileURLToPath(new URL('./late-import.script.ts', import.meta.url));

describe('the proxy loaded after another @hono/node-server app serves', () => {
  it('streams its reply', () => {
    const { status, stdout, stderr } = runChild(process.execPath, [SCRIPT]);
    expect(stderr).not.toContain('ERR_HTTP_HEADERS_SENT');
    expect(status, stderr).toBe(0);
    const [code, ...rest] = stdout.split('\n');
    expect(code).toBe('200');
    expect(joinedChatStream(rest.join('\n')).content).toBe('late hello');
  });
});
