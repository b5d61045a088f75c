import { describe, expect, it } from 'vitest';
import {
  canonicalBindHost,
  canonicalHost,
  isIpAddress,
  isLoopbackHostname,
} from '../../src/http/host-names.ts';
import { FOREIGN_HOSTS, LOOPBACK_HOST_SPELLINGS } from './host-spellings.ts';

describe('canonicalHost', () => {
  it('turns every loopback spelling, with or without a port, into a loopback hostname', () => {
    for (const spelling of LOOPBACK_HOST_SPELLINGS)
      for (const host of [spelling, `${spelling.replace(/\.$/, '')}:8787`]) {
        const canonical = canonicalHost(host);
        expect(canonical, host).toBeDefined();
        expect(isLoopbackHostname(canonical!.hostname), host).toBe(true);
      }
  });

  it('normalises IPv4 forms and IPv6 forms the way browsers do, keeping the port', () => {
    expect(canonicalHost('127.1:8787')).toEqual({ hostname: '127.0.0.1', host: '127.0.0.1:8787' });
    expect(canonicalHost('0x7f.1')).toEqual({ hostname: '127.0.0.1', host: '127.0.0.1' });
    expect(canonicalHost('[0:0:0:0:0:0:0:1]:80')).toEqual({ hostname: '[::1]', host: '[::1]' });
    expect(canonicalHost('[::ffff:127.0.0.1]:1')?.host).toBe('[::ffff:7f00:1]:1');
    expect(canonicalHost('LocalHost.:9')).toEqual({ hostname: 'localhost', host: 'localhost:9' });
  });

  it('finds no loopback in other names and addresses', () => {
    for (const host of FOREIGN_HOSTS) {
      const canonical = canonicalHost(host);
      expect(canonical, host).toBeDefined();
      expect(isLoopbackHostname(canonical!.hostname), host).toBe(false);
    }
  });

  it('refuses what is not a bare host[:port]', () => {
    for (const value of [
      '',
      'evil.com@127.0.0.1',
      '127.0.0.1@evil.com',
      '127.0.0.1/x',
      '127.0.0.1\\evil.com',
      '127.0.0.1?x',
      '127.0.0.1#x',
      '127.0.0.1 evil.com',
      '127.0.0.1:99999',
      '::1',
      '[::1',
      '1.2.3.4.5',
      '127.0.0.1:8787:1',
    ])
      expect(canonicalHost(value), value).toBeUndefined();
  });
});

describe('canonicalBindHost', () => {
  it('reads --host as users write it: bare or bracketed IPv6, IPv4 forms, names', () => {
    const loopback = [
      '127.0.0.1',
      '127.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.0.0.2',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '0::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      'localhost',
    ];
    for (const host of loopback)
      expect(isLoopbackHostname(canonicalBindHost(host)!.hostname), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '[::]', '192.168.1.5', 'fe80::1', 'devbox.lan'])
      expect(isLoopbackHostname(canonicalBindHost(host)!.hostname), host).toBe(false);
    expect(canonicalBindHost('0:0:0:0:0:0:0:1')?.hostname).toBe('[::1]');
    expect(canonicalBindHost('not a host')).toBeUndefined();
  });
});

describe('isIpAddress', () => {
  it('tells addresses from names (a rebinding page can only use a name)', () => {
    for (const host of ['1.2.3.4', '0x7f.1', '[fe80::1]', '[::ffff:7f00:1]', '2130706433'])
      expect(isIpAddress(canonicalHost(host)!.hostname), host).toBe(true);
    for (const host of ['evil.com', 'localhost', '1.2.3.4.evil.com', 'a1'])
      expect(isIpAddress(canonicalHost(host)!.hostname), host).toBe(false);
  });
});
