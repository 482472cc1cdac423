import t, { type Test } from 'tap'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { canonicalHostName, parseHost } from '../../../../server/edge/http/host-header.js'
import { jsonAnswer, type Upstream, startEdgeWithUpstream } from '../../../fixtures/servers/edge.js'
import { rawExchange, rawRequest, type RawResponse } from '../../../fixtures/http/raw-http.js'

/**
 * The attack: a visitor (or a link, or a DNS rebinding page) names another
 * host, and a backend that builds reset links from X-Forwarded-Host mails
 * the victim a link to that host. With ALLOWED_HOSTS (or PUBLIC_URL) the
 * edge refuses such a request before any route, and a backend only ever
 * hears of a host on the list.
 */

const JSON_POST = { 'Content-Type': 'application/json' }

async function edgeWithUpstream (t: Test, env: Record<string, string>): Promise<{ base: string, upstream: Upstream }> {
  return await startEdgeWithUpstream(t, jsonAnswer(200, { success: 'Check your inbox.' }), { domainCheckToo: true, env })
}

async function one (base: string, bytes: string): Promise<RawResponse> {
  const exchange = await rawExchange(base, bytes)
  return exchange.responses[0] ?? { status: 0, headers: {}, body: Buffer.alloc(0) }
}

t.test('a foreign Host is refused with 421 everywhere, the hot path included, and never reaches a backend', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t, { ALLOWED_HOSTS: 'signin.example.test' })
  const page = await one(base, rawRequest('GET', '/', { Host: 'signin.example.test' }))
  t.equal(page.status, 200, 'the listed host gets the page')
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.body.toString())?.[1] ?? '/assets/missing.js'

  const foreign = 'evil-reset-links.test'
  const requests: Array<[string, string]> = [
    ['the page (hot path)', rawRequest('GET', '/?view=resetPassword', { Host: foreign })],
    ['an asset (hot path)', rawRequest('GET', script, { Host: foreign })],
    ['a password reset request', rawRequest('POST', '/accounts/resetPasswordRequest', { Host: foreign, ...JSON_POST }, '{"email":"victim@example.test"}')],
    ['the domain check', rawRequest('POST', CHECK_DOMAIN_AUTHORIZATION_PATH, { Host: foreign, 'Content-Type': 'application/grpc-web+proto' }, 'x')],
    ['a page that does not exist', rawRequest('GET', '/nothing-here', { Host: foreign })],
    ['the listed name with a port', rawRequest('GET', '/', { Host: `${foreign}:443` })],
    ['a sibling of the listed name', rawRequest('GET', '/', { Host: 'evil.signin.example.test' })],
    ['the listed name as a suffix', rawRequest('GET', '/', { Host: 'signin.example.test.evil.test' })]
  ]
  for (const [what, bytes] of requests) {
    const response = await one(base, bytes)
    t.equal(response.status, 421, `${what}: 421`)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${what}: with the security headers`)
    t.match(response.headers['content-security-policy'], /default-src 'none'/, `${what}: with the CSP`)
    t.notMatch(response.body.toString() + JSON.stringify(response.headers), /evil/, `${what}: the host is not repeated`)
  }
  const head = await rawExchange(base, rawRequest('HEAD', '/', { Host: foreign }))
  t.match(head.received, /^HTTP\/1\.1 421 /, 'the page by HEAD: 421')
  t.equal(upstream.requests.length, 0, 'no backend heard of the foreign host')
})

t.test('the listed host passes in any case, with a port or a final dot, and the backend is told the list\'s name', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t, { ALLOWED_HOSTS: 'SignIn.Example.Test, 192.0.2.10, ::1' })
  const hosts: Array<[string, string]> = [
    ['signin.example.test', 'signin.example.test'],
    ['SIGNIN.EXAMPLE.TEST:8443', 'signin.example.test:8443'],
    ['signin.example.test.', 'signin.example.test'],
    ['192.0.2.10:8080', '192.0.2.10:8080'],
    ['[0::1]', '[::1]']
  ]
  for (const [host, told] of hosts) {
    const response = await one(base, rawRequest('POST', '/accounts/resetPasswordRequest', { Host: host, ...JSON_POST }, '{}'))
    t.equal(response.status, 200, `${host}: served`)
    t.equal(upstream.requests.at(-1)?.headers['x-forwarded-host'], told, `${host}: stated as ${told}`)
  }
})

t.test('without ALLOWED_HOSTS, PUBLIC_URL\'s host is the one served', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t, { PUBLIC_URL: 'https://signin.example.test' })
  t.equal((await one(base, rawRequest('GET', '/', { Host: 'signin.example.test' }))).status, 200)
  t.equal((await one(base, rawRequest('GET', '/', { Host: 'localhost' }))).status, 421, 'not even localhost')
  t.equal((await one(base, rawRequest('POST', '/accounts/v2/login', { Host: 'evil.test', ...JSON_POST }, '{}'))).status, 421)
  t.equal(upstream.requests.length, 0)
})

t.test('with neither, any valid host is served (the start warns about it), but never a 5,000-character one', async (t) => {
  const { base, upstream } = await edgeWithUpstream(t, {})
  t.equal((await one(base, rawRequest('POST', '/accounts/v2/login', { Host: 'anything.test', ...JSON_POST }, '{}'))).status, 200)
  t.equal(upstream.requests[0]?.headers['x-forwarded-host'], 'anything.test')
  const huge = await one(base, rawRequest('POST', '/accounts/v2/login', { Host: `${'a'.repeat(60)}.`.repeat(82), ...JSON_POST }, '{}'))
  t.equal(huge.status, 400)
  t.equal(upstream.requests.length, 1, 'the long host was not forwarded')
})

t.test('the health probes answer whatever the host, as balancers call them by address', async (t) => {
  const { base } = await edgeWithUpstream(t, { ALLOWED_HOSTS: 'signin.example.test' })
  t.equal((await one(base, rawRequest('GET', '/healthz', { Host: '10.1.2.3:8080' }))).status, 200)
  const ready = (await one(base, rawRequest('GET', '/readyz', { Host: '10.1.2.3:8080' }))).status
  t.ok(ready === 200 || ready === 503, `/readyz answers (${ready})`)
  t.equal((await one(base, rawRequest('GET', '/healthz', { Host: 'a/b' }))).status, 400, 'a malformed host is still refused')
})

t.test('behind a trusted proxy the forwarded host is the one checked; from anyone else X-Forwarded-Host is ignored', async (t) => {
  const trusted = await edgeWithUpstream(t, { ALLOWED_HOSTS: 'signin.example.test', TRUST_PROXY: 'loopback' })
  const login = (host: string, forwardedHost: string) =>
    one(trusted.base, rawRequest('POST', '/accounts/v2/login', { Host: host, 'X-Forwarded-Host': forwardedHost, ...JSON_POST }, '{}'))
  t.equal((await login('threshold:8080', 'signin.example.test')).status, 200, 'the proxy\'s listed host passes, whatever the internal Host')
  t.equal(trusted.upstream.requests[0]?.headers['x-forwarded-host'], 'signin.example.test')
  t.equal((await login('signin.example.test', 'evil.test')).status, 421, 'a foreign forwarded host is refused')
  t.equal((await login('signin.example.test', 'evil.test, signin.example.test')).status, 200, 'the proxy\'s own (last) entry counts')
  const page = await one(trusted.base, rawRequest('GET', '/', { Host: 'signin.example.test', 'X-Forwarded-Host': 'evil.test' }))
  t.equal(page.status, 421, 'the hot path applies the same rule')

  const untrusted = await edgeWithUpstream(t, { ALLOWED_HOSTS: 'signin.example.test' })
  const response = await one(untrusted.base, rawRequest('POST', '/accounts/v2/login',
    { Host: 'signin.example.test', 'X-Forwarded-Host': 'evil.test', ...JSON_POST }, '{}'))
  t.equal(response.status, 200)
  t.equal(untrusted.upstream.requests[0]?.headers['x-forwarded-host'], 'signin.example.test', 'the visitor\'s X-Forwarded-Host is not passed on')
})

t.test('host names are read in one canonical form', async (t) => {
  t.same(parseHost('SignIn.Example.Test.:443'), { name: 'signin.example.test', port: '443' })
  t.same(parseHost('[0:0::1]:8080'), { name: '[::1]', port: '8080' })
  t.same(parseHost('threshold_edge'), { name: 'threshold_edge', port: null })
  for (const bad of ['', 'a b', 'a/b', 'user@host', 'host:', 'host:99999', '[::1', `${'a'.repeat(64)}.test`, 'a'.repeat(300)]) {
    t.equal(parseHost(bad), null, `${JSON.stringify(bad.slice(0, 20))} is not a host`)
  }
  t.equal(canonicalHostName('::1'), '[::1]', 'a bare IPv6 address, as a list names it')
  t.equal(canonicalHostName('signin.example.test:443'), null, 'a list entry has no port')
})
