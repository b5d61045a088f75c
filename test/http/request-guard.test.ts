import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import { hostGuard, hostPolicy, sameOriginGuard } from '../../src/http/request-guard.ts';
import {
  createServerApp,
  LOOPBACK_HOSTNAMES,
  parseRecording,
  type RunningServer,
  type ServerAppOptions,
  startServer,
} from '../../src/server/index.ts';
import { statusFor } from '../server/helpers.ts';
import { FOREIGN_HOSTS, LOOPBACK_HOST_SPELLINGS } from './host-spellings.ts';

const RECORDING = parseRecording(': replayed\n\n', 'demo.sse');

function appWith(options: Partial<ServerAppOptions> = {}) {
  return createServerApp({
    replay: { recording: RECORDING, delayMs: 0 },
    webRoot: '/nonexistent/toolwire-web',
    ...options,
  });
}

/** A request as a browser addresses it: the URL's host and the Host header agree. */
function addressed(host: string, path: string, init: RequestInit = {}): [string, RequestInit] {
  const headers = new Headers(init.headers);
  headers.set('host', host);
  return [`http://${host}${path}`, { ...init, headers }];
}

function startRun(headers: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ prompt: 'hi' }),
  };
}

async function errorOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: string }).error;
}

describe('the Host check (DNS rebinding)', () => {
  it('is on by default and admits every spelling of loopback, with or without a port', async () => {
    const { app } = appWith();
    for (const spelling of LOOPBACK_HOST_SPELLINGS)
      for (const host of [spelling, `${spelling.replace(/\.$/, '')}:8787`]) {
        const response = await app.request(...addressed(host, '/api/info'));
        expect(response.status, host).toBe(200);
      }
  });

  it('refuses foreign hosts with 403 on every route, and starts no run for them', async () => {
    const server = appWith();
    for (const foreign of FOREIGN_HOSTS)
      for (const host of [foreign, `${foreign.replace(/\.$/, '')}:8787`])
        for (const [path, init] of [
          ['/api/info', {}],
          ['/api/runs', startRun({})],
          ['/', {}],
        ] as const) {
          const response = await server.app.request(...addressed(host, path, init));
          expect(response.status, `${host} ${path}`).toBe(403);
          expect(await errorOf(response), host).toContain('DNS rebinding protection');
        }
    expect(await server.store.stats()).toMatchObject({ running: 0, finished: 0 });
  });

  it('checks the Host header and the URL alike (an absolute-form target has its own host)', async () => {
    const { app } = appWith();
    const headerForeign = await app.request('http://127.0.0.1:8787/api/info', {
      headers: { host: 'evil.com:8787' },
    });
    expect(headerForeign.status).toBe(403);
    const urlForeign = await app.request('http://evil.com:8787/api/info', {
      headers: { host: '127.0.0.1:8787' },
    });
    expect(urlForeign.status).toBe(403);
    // Not a bare host: user info would otherwise hide the real name.
    const userInfo = await app.request('http://127.0.0.1/api/info', {
      headers: { host: 'evil.com@127.0.0.1' },
    });
    expect(userInfo.status).toBe(403);
  });

  it('admits the names given, in any case, and IP addresses only when asked', async () => {
    const named = appWith({ allowedHostnames: ['DevBox.lan'] });
    expect((await named.app.request(...addressed('devbox.lan:8787', '/api/info'))).status).toBe(
      200,
    );
    expect((await named.app.request(...addressed('127.0.0.1:8787', '/api/info'))).status).toBe(403);
    expect((await named.app.request(...addressed('10.0.0.5:8787', '/api/info'))).status).toBe(403);

    const network = appWith({
      allowedHostnames: [...LOOPBACK_HOSTNAMES, 'devbox.lan'],
      allowIpAddressHosts: true,
    });
    for (const host of ['10.0.0.5:8787', '[fe80::1]:8787', '127.1:8787', 'devbox.lan'])
      expect((await network.app.request(...addressed(host, '/api/info'))).status, host).toBe(200);
    const refused = await network.app.request(...addressed('evil.com:8787', '/api/info'));
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toContain(
      'address this server as localhost, 127.0.0.1, [::1], devbox.lan, its IP address',
    );
  });

  it("is off only when asked with 'any', and refuses names that are not hosts", async () => {
    const open = appWith({ allowedHostnames: 'any' });
    expect((await open.app.request(...addressed('evil.com', '/api/info'))).status).toBe(200);
    expect(() => appWith({ allowedHostnames: ['evil.com/path'] })).toThrow(
      'allowedHostnames: "evil.com/path" is not a host name',
    );
  });
});

describe('the Origin check', () => {
  const HOST = '127.0.0.1:8787';

  it('refuses a foreign or null Origin with 403, on state-changing and reading routes alike', async () => {
    const server = appWith();
    const origins = [
      'null',
      'http://evil.com',
      'http://evil.com:8787',
      'http://127.0.0.1:8788',
      'http://localhost:8787',
      'https://127.0.0.1.evil.com:8787',
      'file://',
      'chrome-extension://abc',
      'http://127.0.0.1:8787/path',
      'not an origin',
    ];
    const routes: [string, RequestInit][] = [
      ['/api/runs', startRun({})],
      ['/api/runs/some-id/abort', startRun({})],
      ['/api/runs/some-id/tool-results', startRun({})],
      ['/api/info', {}],
    ];
    for (const origin of origins)
      for (const [path, init] of routes) {
        const headers = { ...(init.headers as Record<string, string>), origin };
        const response = await server.app.request(...addressed(HOST, path, { ...init, headers }));
        expect(response.status, `${origin} ${path}`).toBe(403);
        expect(await errorOf(response)).toContain(`requests from ${JSON.stringify(origin)}`);
      }
    expect(await server.store.stats()).toMatchObject({ running: 0, finished: 0 });
  });

  it('admits the server’s own origin (in any spelling of it) and requests without one', async () => {
    const { app } = appWith();
    for (const origin of ['http://127.0.0.1:8787', 'http://127.1:8787', undefined]) {
      const headers: Record<string, string> = origin === undefined ? {} : { origin };
      const info = await app.request(...addressed(HOST, '/api/info', { headers }));
      expect(info.status, origin).toBe(200);
      const run = await app.request(...addressed(HOST, '/api/runs', startRun(headers)));
      expect(run.status, origin).toBe(200);
      expect(await run.text()).toBe(': replayed\n\n');
    }
    const ipv6 = await app.request(
      ...addressed('[::1]:8787', '/api/info', { headers: { origin: 'http://[::1]:8787' } }),
    );
    expect(ipv6.status).toBe(200);
  });

  it('refuses cross-site and same-site fetches by their Sec-Fetch-Site, even without an Origin', async () => {
    const { app } = appWith();
    for (const site of ['cross-site', 'same-site']) {
      const response = await app.request(
        ...addressed(HOST, '/api/info', { headers: { 'sec-fetch-site': site } }),
      );
      expect(response.status, site).toBe(403);
      expect(await errorOf(response)).toContain(`a ${site} request is refused`);
    }
    for (const site of ['same-origin', 'none']) {
      const response = await app.request(
        ...addressed(HOST, '/api/info', { headers: { 'sec-fetch-site': site } }),
      );
      expect(response.status, site).toBe(200);
    }
  });
});

describe('a server bound to loopback, in any spelling', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('checks the Host whatever the bind spelling, and prints its canonical URL', async () => {
    const cases: [bind: string, connect: string, url: string][] = [
      ['127.1', '127.0.0.1', 'http://127.0.0.1:'],
      ['2130706433', '127.0.0.1', 'http://127.0.0.1:'],
      ['0:0:0:0:0:0:0:1', '::1', 'http://[::1]:'],
      ['[::1]', '::1', 'http://[::1]:'],
      ['::ffff:127.0.0.1', '127.0.0.1', 'http://[::ffff:7f00:1]:'],
    ];
    for (const [bind, connect, url] of cases) {
      running = await startServer(appWith(), { port: 0, host: bind });
      expect(running.url, bind).toBe(`${url}${running.port}`);
      const port = running.port;
      expect(await statusFor(connect, port, `evil.com:${port}`), bind).toBe(403);
      expect(await statusFor(connect, port, `127.0.0.1.evil.com:${port}`), bind).toBe(403);
      expect(await statusFor(connect, port, `localhost:${port}`), bind).toBe(200);
      expect(await statusFor(connect, port, `127.1:${port}`), bind).toBe(200);
      await running.close();
      running = undefined;
    }
  });
});

describe('the guards on any Hono app', () => {
  /** A bare app with the guards, its refusals as their HttpError's status and message. */
  function guarded(names: readonly string[], ipAddresses = false): Hono {
    const app = new Hono();
    app.onError((error) =>
      HttpError.isInstance(error)
        ? Response.json({ kind: error.kind, message: error.message }, { status: error.status })
        : Response.json({ unexpected: String(error) }, { status: 500 }),
    );
    app.use(hostGuard(hostPolicy(names, ipAddresses)));
    app.use(sameOriginGuard());
    app.get('/', (c) => c.text('ok'));
    return app;
  }

  it('served by Node, check an absolute-form target by its own host, and an origin-form one by Host', async () => {
    const server = await startServer(
      { app: guarded(['localhost']), close() {} },
      { port: 0, host: '127.0.0.1' },
    );
    /** The status line of a request written by hand (fetch cannot send an absolute-form target). */
    const statusOf = (target: string, host: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () =>
          socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
        );
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (part: string) => {
          text += part;
        });
        socket.on('end', () => resolve(text.slice(0, text.indexOf('\r\n'))));
        socket.on('error', reject);
      });
    try {
      expect(await statusOf('/', 'localhost')).toBe('HTTP/1.1 200 OK');
      expect(await statusOf('/', 'evil.example')).toBe('HTTP/1.1 403 Forbidden');
      expect(await statusOf('http://evil.example/', 'localhost')).toBe('HTTP/1.1 403 Forbidden');
      expect(await statusOf('http://localhost/', 'localhost')).toBe('HTTP/1.1 200 OK');
    } finally {
      await server.close();
    }
  });

  it('refuse with an HttpError (403, request-refused) that names how to address the app', async () => {
    const app = guarded(['localhost', 'devbox.lan']);
    expect(await (await app.request('http://localhost/')).text()).toBe('ok');
    expect(await (await app.request('http://devbox.lan/')).text()).toBe('ok');
    const foreign = await app.request('http://evil.example/');
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({
      kind: 'request-refused',
      message:
        'requests for host "evil.example" are refused (DNS rebinding protection); address this server as localhost, 127.0.0.1, [::1], devbox.lan',
    });
    const crossSite = await app.request('http://localhost/', {
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { kind: string }).kind).toBe('request-refused');
  });

  it('hostPolicy refuses an entry that is not a host name', () => {
    expect(() => hostPolicy(['evil.example@127.0.0.1'], false)).toThrow(TypeError);
    expect(hostPolicy([], false).described).toBe('nothing (no host name is allowed)');
  });
});
