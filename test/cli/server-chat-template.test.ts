import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { propsUrl, serverChatTemplate } from '../../src/cli/server-chat-template.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A model server on loopback answering with `handler`; its OpenAI base URL (`…/v1`). */
async function modelServer(handler: Handler): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const json =
  (body: unknown, status = 200): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

const TEMPLATE = '{% for message in messages %}{{ message.content }}{% endfor %}';

describe('propsUrl', () => {
  it("is the server's root, beside /v1", () => {
    expect(propsUrl('http://127.0.0.1:8080/v1')).toBe('http://127.0.0.1:8080/props');
    expect(propsUrl('http://127.0.0.1:8080/v1/')).toBe('http://127.0.0.1:8080/props');
    expect(propsUrl('http://host/llama')).toBe('http://host/llama/props');
  });
});

describe('serverChatTemplate', () => {
  it("reads llama.cpp's /props chat_template, sending the credentials given", async () => {
    let seen: IncomingMessage | undefined;
    const url = await modelServer((request, response) => {
      seen = request;
      json({ chat_template: TEMPLATE, total_slots: 1 })(request, response);
    });
    const found = await serverChatTemplate(url, { authorization: 'Bearer k' });
    expect(found).toEqual({ found: true, url: propsUrl(url), template: TEMPLATE });
    expect(seen?.url).toBe('/props');
    expect(seen?.headers.authorization).toBe('Bearer k');
  });

  it('prefers chat_template_tool_use, the template for requests with tools', async () => {
    const url = await modelServer(
      json({ chat_template: 'plain', chat_template_tool_use: TEMPLATE }),
    );
    expect(await serverChatTemplate(url)).toMatchObject({ found: true, template: TEMPLATE });
  });

  it.each([
    ['a 404', json({ error: 'no route' }, 404), 'it answered 404'],
    ['no template', json({ total_slots: 1 }), 'its answer has no chat_template'],
    ['an empty template', json({ chat_template: '  ' }), 'its answer has no chat_template'],
    ['a template that is not a string', json({ chat_template: 3 }), 'no chat_template'],
    ['a list', json([TEMPLATE]), 'its answer is not a JSON object'],
    [
      'text',
      ((_request, response) => response.end('<html>hello</html>')) as Handler,
      'its answer is not JSON',
    ],
    [
      'a redirect',
      ((_request, response) => {
        response.writeHead(302, { location: 'http://example.com/props' });
        response.end();
      }) as Handler,
      'it answered 302 (a redirect, not followed)',
    ],
  ])('finds none in %s, saying why', async (_name, handler, reason) => {
    const url = await modelServer(handler);
    const found = await serverChatTemplate(url);
    expect(found.found).toBe(false);
    if (!found.found) expect(found.reason).toContain(reason);
  });

  it('stops reading past the size cap, declared or streamed', async () => {
    const declared = await modelServer(json({ chat_template: 'x'.repeat(5000) }));
    expect(await serverChatTemplate(declared, { maxBytes: 1000 })).toMatchObject({
      found: false,
      reason: 'its answer is larger than 1000 bytes',
    });
    await new Promise((resolve) => server?.close(resolve));
    let written = 0;
    const streamed = await modelServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"chat_template":"');
      // Endless: only the reader's cap ends it.
      const more = () => {
        while (!response.destroyed && written < 64 * 1024 * 1024) {
          written += 1024;
          if (!response.write('y'.repeat(1024))) return response.once('drain', more);
        }
      };
      more();
    });
    expect(await serverChatTemplate(streamed, { maxBytes: 100_000 })).toMatchObject({
      found: false,
      reason: 'its answer is larger than 100000 bytes',
    });
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('gives up on a server that does not answer in time', async () => {
    // It never answers, so the time limit is what ends the question, however slow the machine.
    const url = await modelServer(() => {});
    expect(await serverChatTemplate(url, { timeoutMs: 200 })).toMatchObject({
      found: false,
      reason: 'it did not answer within 200 ms',
    });
  });

  it('gives up on an answer that never ends within the time limit', async () => {
    const url = await modelServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"chat_template": "{{');
    });
    expect(await serverChatTemplate(url, { timeoutMs: 100 })).toMatchObject({
      found: false,
      reason: 'it did not answer within 100 ms',
    });
  });

  it('asks through the fetch it is given', async () => {
    const asked: Array<{ url: string; authorization: string | null }> = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      asked.push({
        url: String(input),
        authorization: new Headers(init?.headers).get('authorization'),
      });
      return Response.json({ chat_template: TEMPLATE });
    }) as typeof globalThis.fetch;
    const found = await serverChatTemplate('http://model.test/v1', {
      fetch,
      authorization: 'Bearer k',
    });
    expect(found).toEqual({ found: true, url: 'http://model.test/props', template: TEMPLATE });
    expect(asked).toEqual([{ url: 'http://model.test/props', authorization: 'Bearer k' }]);
  });

  it('says why when nothing listens', async () => {
    const url = await modelServer(json({}));
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    const found = await serverChatTemplate(url);
    expect(found).toMatchObject({ found: false });
    if (!found.found) expect(found.reason).toContain('ECONNREFUSED');
  });
});
