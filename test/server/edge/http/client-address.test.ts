import t from 'tap'
import { NO_CLIENT_ADDRESS_KEY, normaliseAddress, rateLimitKey } from '../../../../server/edge/http/client-address.js'
import { rateLimitBucketName, rateLimitOptions } from '../../../../server/edge/http/rate-limit.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

t.test('addresses lose their port, IPv4-mapped IPv6 becomes IPv4, IPv6 takes its shortest form', async (t) => {
  const cases: Array<[string | undefined, string | null]> = [
    ['198.51.100.9', '198.51.100.9'],
    ['198.51.100.9:40000', '198.51.100.9'],
    ['2001:db8::1', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['::ffff:198.51.100.9', '198.51.100.9'],
    ['[::ffff:198.51.100.9]:8080', '198.51.100.9'],
    ['fe80::1%eth0', 'fe80::1'],
    [' 203.0.113.7 ', '203.0.113.7'],
    [undefined, null],
    ['', null],
    ['unknown', null],
    ['198.51.100.9:', null],
    ['999.1.1.1', null],
    ['2001:db8::1:443', '2001:db8::1:443']
  ]
  for (const [raw, expected] of cases) t.equal(normaliseAddress(raw), expected, `${JSON.stringify(raw)} → ${expected}`)
})

t.test('a bucket is an IPv4 address, an IPv6 /64, or the one bucket of requests without an address', async (t) => {
  t.equal(rateLimitKey('198.51.100.9'), '198.51.100.9')
  t.equal(rateLimitKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  t.equal(rateLimitKey('2001:db8::1'), '2001:db8:0:0::/64')
  t.equal(rateLimitKey('2001:db8:0:0:ffff::9'), rateLimitKey('2001:db8::1'), 'the same /64')
  t.equal(rateLimitKey('::1'), '0:0:0:0::/64')
  t.equal(rateLimitKey(null), NO_CLIENT_ADDRESS_KEY)
})

t.test('a request whose connection is gone before its address is read is counted, not crashed on', async (t) => {
  // What the key generator reads once the socket has been reset: Fastify's `ip` is undefined.
  const addressKey = Buffer.alloc(32, 7)
  const keyFor = rateLimitOptions({ perMinute: 1, addressKey, shared: null }, 'accounts').keyGenerator!
  t.equal(await keyFor({ ip: undefined } as never), rateLimitBucketName(addressKey, NO_CLIENT_ADDRESS_KEY))
})

t.test('behind a proxy that appends ports, every connection of one client shares one rate-limit bucket', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const app = await buildEdge(t, { accountsUpstream: upstream.url, env: { RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'loopback' } })
  const call = (forwardedFor: string) =>
    app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_HEADERS, 'x-forwarded-for': forwardedFor }, payload: '{}' })

  const ipv4 = []
  for (const port of [40000, 40001, 40002, 40003]) ipv4.push((await call(`198.51.100.9:${port}`)).statusCode)
  t.same(ipv4, [200, 200, 200, 429], 'a new source port each time buys no new allowance')
  t.equal((await call('198.51.100.9')).statusCode, 429, 'nor does leaving the port out')
  t.equal((await call('::ffff:198.51.100.9')).statusCode, 429, 'nor the IPv4-mapped form')

  const ipv6 = []
  for (const address of ['[2001:db8:5:6::1]:443', '[2001:db8:5:6::2]:444', '2001:db8:5:6::3', '[2001:db8:5:6:ffff::1]:1']) {
    ipv6.push((await call(address)).statusCode)
  }
  t.same(ipv6, [200, 200, 200, 429], 'an IPv6 client is one /64, whatever its ports and interface ids')
  t.equal((await call('[2001:db8:5:7::1]:443')).statusCode, 200, 'the next /64 is another client')

  const chained = []
  for (const port of [1, 2, 3, 4]) chained.push((await call(`203.0.113.5:${port}, 127.0.0.1:${5000 + port}`)).statusCode)
  t.same(chained, [200, 200, 200, 429], 'a trusted hop with a port is still recognised as the proxy')
})
