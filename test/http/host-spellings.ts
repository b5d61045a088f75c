/** Host spellings shared by the host-name and request-guard tests. */

/** Every way a Host header can name loopback (IPv4 in inet_aton forms, IPv6, names). */
export const LOOPBACK_HOST_SPELLINGS = [
  '127.0.0.1',
  '127.1',
  '127.0.1',
  '2130706433',
  '0x7f.1',
  '0x7f000001',
  '0177.0.0.1',
  '0177.1',
  '127.255.255.254',
  '127.0.0.1.',
  '%31%32%37.0.0.1',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[0::1]',
  '[0000:0000:0000:0000:0000:0000:0000:0001]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:127.1.2.3]',
  '[::FFFF:7F00:1]',
  'localhost',
  'LOCALHOST',
  'localhost.',
  'app.localhost',
  'a.b.LOCALHOST',
];

/** Names and addresses that are not this machine's loopback. */
export const FOREIGN_HOSTS = [
  'evil.com',
  '127.0.0.1.evil.com',
  'localhost.evil.com',
  'localhost.evil.com.',
  'evillocalhost',
  'localhost-evil.com',
  '128.0.0.1',
  '0.0.0.0',
  '0',
  '10.0.0.1',
  '[::]',
  '[::2]',
  '[::ffff:128.0.0.1]',
  '[::7f00:1]',
  '[64:ff9b::7f00:1]',
  '[fe80::1]',
];
