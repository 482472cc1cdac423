import t, { type Test } from 'tap'
import { buildEdge, captureLog, jsonAnswer, listen, startUpstream } from '../../../fixtures/servers/edge.js'
import { openRaw, rawExchange, rawRequest, type RawExchange } from '../../../fixtures/http/raw-http.js'
import { PERMISSIONS_POLICY } from '../../../../server/edge/http/security-headers.js'
import { OBSERVATORY_CSP_POINTS, observatoryCspResult, type ObservatoryCspResult } from '../../../fixtures/http/observatory-csp.js'

type Headers = Record<string, string | string[] | number | undefined>

function expectStrictHeaders (t: Test, headers: Headers, what: string): void {
  const csp = String(headers['content-security-policy'])
  t.match(csp, /default-src 'none'/, `${what}: default-src 'none'`)
  t.match(csp, /base-uri 'none'/, `${what}: base-uri`)
  t.match(csp, /object-src 'none'/, `${what}: object-src`)
  t.match(csp, /frame-ancestors 'none'/, `${what}: frame-ancestors`)
  t.match(csp, /form-action 'self'[^;]*/, `${what}: form-action`)
  t.notMatch(csp, /form-action[^;]* (https?:|\*)( |;|$)/, `${what}: form-action names no bare scheme or wildcard`)
  t.match(csp, /script-src 'self' https:\/\/accounts\.google\.com\/gsi\/client(;|$)/, `${what}: script-src`)
  t.match(csp, /style-src 'self' https:\/\/accounts\.google\.com\/gsi\/style/, `${what}: style-src`)
  t.match(csp, /connect-src 'self' https:\/\/accounts\.google\.com\/gsi\//, `${what}: connect-src`)
  t.match(csp, /frame-src https:\/\/accounts\.google\.com\/gsi\//, `${what}: frame-src`)
  t.match(csp, /img-src 'self' data:/, `${what}: img-src`)
  t.match(csp, /media-src 'self'/, `${what}: media-src`)
  t.notMatch(csp, /unsafe-inline|unsafe-eval/, `${what}: nothing unsafe`)
  t.equal(headers['strict-transport-security'], 'max-age=63072000; includeSubDomains', `${what}: HSTS two years`)
  t.equal(headers['cross-origin-opener-policy'], 'same-origin-allow-popups', `${what}: COOP`)
  t.equal(headers['cross-origin-resource-policy'], 'same-origin', `${what}: CORP`)
  t.equal(headers['referrer-policy'], 'strict-origin-when-cross-origin', `${what}: Referrer-Policy`)
  t.equal(headers['x-content-type-options'], 'nosniff', `${what}: nosniff`)
  t.equal(headers['x-frame-options'], 'DENY', `${what}: X-Frame-Options`)
  t.equal(headers['permissions-policy'], PERMISSIONS_POLICY, `${what}: Permissions-Policy`)
  t.equal(headers['x-powered-by'], undefined, `${what}: no X-Powered-By`)
}

t.test('the page, an asset, a 404, health and an API answer all carry the strict header set', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { error: 'Invalid email or password.' }, {
    'content-security-policy': "default-src *; script-src 'unsafe-inline'",
    'x-powered-by': 'Express',
    'cache-control': 'public, max-age=600'
  }))
  const app = await buildEdge(t, { accountsUpstream: upstream.url })
  const base = await listen(app)

  const page = await fetch(`${base}/?view=register`)
  expectStrictHeaders(t, Object.fromEntries(page.headers), 'page (hot path)')
  t.equal(page.headers.get('cache-control'), 'private, no-cache', 'an opening view: revalidated, kept by no shared cache (server/edge/page/page-caching.ts)')

  const html = await page.text()
  const asset = /src="(\/assets\/main-[^"]+\.js)"/.exec(html)?.[1]
  t.ok(asset, 'the page names its script')
  const script = await fetch(`${base}${asset}`)
  expectStrictHeaders(t, Object.fromEntries(script.headers), 'asset')
  t.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable')

  const missing = await fetch(`${base}/no/such/page`)
  t.equal(missing.status, 404)
  expectStrictHeaders(t, Object.fromEntries(missing.headers), '404 page')
  t.equal(missing.headers.get('cache-control'), 'no-store')
  t.match(missing.headers.get('content-type'), /text\/html/)

  const health = await fetch(`${base}/healthz`)
  expectStrictHeaders(t, Object.fromEntries(health.headers), 'health')

  const api = await fetch(`${base}/accounts/v2/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.test","password":"x"}'
  })
  expectStrictHeaders(t, Object.fromEntries(api.headers), 'API answer')
  t.equal(api.headers.get('cache-control'), 'no-store', 'a backend cannot make an API answer cacheable')
  t.notMatch(String(api.headers.get('content-security-policy')), /default-src \*/, 'a backend cannot weaken the CSP')
})

t.test('Node\'s own answers (malformed requests, oversized headers, slow requests, unmet expectations) carry the strict header set', async (t) => {
  const { lines, logger } = captureLog('debug')
  const app = await buildEdge(t, { logger, env: { ALLOWED_HOSTS: 'localhost' }, timeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 2000 } })
  const base = await listen(app)
  const slow = await openRaw(base)
  slow.write('GET / HTTP/1.1\r\nHost: localhost\r\n')
  const answers: Array<[string, Promise<RawExchange>, number]> = [
    ['a malformed request line', rawExchange(base, 'GET /<script> HTTP/1.1 extra\r\nHost: localhost\r\n\r\n'), 400],
    ['a header without a colon', rawExchange(base, 'GET / HTTP/1.1\r\nHost: localhost\r\nBroken header\r\n\r\n'), 400],
    ['headers over 16 KiB', rawExchange(base, rawRequest('GET', '/', { Cookie: 'a'.repeat(20_000) })), 431],
    ['headers that never end', slow.finish(5000), 408],
    ['an Expect other than 100-continue', rawExchange(base, rawRequest('POST', '/accounts/v2/login', { 'Content-Type': 'application/json', Expect: 'x-evil' }, '{}')), 417]
  ]
  for (const [what, pending, status] of answers) {
    const exchange = await pending
    const response = exchange.responses[0]
    t.equal(response?.status, status, `${what}: ${status}`)
    expectStrictHeaders(t, response?.headers ?? {}, what)
    t.equal(response?.headers['cache-control'], 'no-store', `${what}: no-store`)
    t.match(JSON.parse(response?.body.toString() ?? '{}'), { error: String }, `${what}: the edge's JSON error`)
    t.notMatch(exchange.received, /<script>|aaaa|x-evil/, `${what}: nothing of the request repeated`)
    t.ok(exchange.closedByServer, `${what}: the connection is closed`)
  }
  t.same(lines.filter((line) => line.level >= 40 || line.err !== undefined), [], 'no warning, no error, no stack in the log')
})

t.test('inject reaches the same page and asset answers as the hot path', async (t) => {
  const app = await buildEdge(t)
  const page = await app.inject({ url: '/?anything=1' })
  t.equal(page.statusCode, 200)
  expectStrictHeaders(t, page.headers, 'page (inject)')
  const asset = /href="(\/assets\/favicon-[^"]+\.svg)"/.exec(page.body)?.[1]
  const icon = await app.inject({ url: asset! })
  t.equal(icon.statusCode, 200)
  expectStrictHeaders(t, icon.headers, 'asset (inject)')
})

t.test('attack: an injected inline script finds no way in through the page\'s CSP, with every source the page may add', async (t) => {
  // The page has no inline script and no 'strict-dynamic': its script-src needs neither a nonce nor a hash, and
  // names none, so markup injected into the page (a reflected query, say) cannot run a script of its own.
  for (const [what, env] of [
    ['the defaults', {}],
    ['a brand colour (its inline style by hash)', { BRAND_COLOR: '#1d5fa8' }],
    ['a challenge provider', { CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: 'site-key', CHALLENGE_SECRET: 'provider-secret' }],
    ['local-network mode', { LOCAL_ACCOUNTS_ALLOWED_HOSTS: 'accounts.lan' }]
  ] as const) {
    const app = await buildEdge(t, { env })
    const base = await listen(app)
    for (const url of ['/', '/?view=register&local_accounts_host=accounts.lan', '/?home_page_banner=%3Cscript%3Ealert(1)%3C%2Fscript%3E']) {
      const response = await fetch(`${base}${url}`)
      const html = await response.text()
      const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(String(response.headers.get('content-security-policy')))?.[1]
      t.ok(scriptSrc !== undefined, `${what}, ${url}: a script-src`)
      const sources = scriptSrc?.split(' ') ?? []
      t.equal(sources[0], "'self'", `${what}, ${url}: scripts from the page's own origin`)
      t.same(sources.filter((source) => /^'(unsafe-inline|unsafe-hashes|strict-dynamic|nonce-.*|sha(256|384|512)-.*)'$/i.test(source)), [],
        `${what}, ${url}: no 'unsafe-inline', nonce, hash or 'strict-dynamic': no inline script can be allowed`)
      t.notMatch(html, /<script(?![^>]*type="application\/json")(?![^>]*\ssrc=)[^>]*>/, `${what}, ${url}: the page has no inline script of its own`)
      t.notMatch(html, /nonce=/, `${what}, ${url}: no nonce attribute left in the page`)
    }
  }
})

t.test('the page\'s form-action is exactly where a login may lead: itself, the cookie domain, REDIRECT_ALLOWED_HOSTS over https, and loopback over http only from a loopback page', async (t) => {
  const app = await buildEdge(t, { env: { TRUST_PROXY: 'loopback', REDIRECT_ALLOWED_HOSTS: 'partner.test,*.apps.example.net' } })
  const formActionOn = async (host: string, proto = 'https'): Promise<string | undefined> => {
    const page = await app.inject({ method: 'GET', url: '/', headers: { host, 'x-forwarded-proto': proto } })
    return /form-action ([^;]*)/.exec(String(page.headers['content-security-policy']))?.[1]
  }
  t.equal(await formActionOn('signin.example.com'), "'self' https://example.com:* https://*.example.com:* https://partner.test:* https://*.apps.example.net:*",
    'a public host: no http source at all (the MDN HTTP Observatory takes its CSP credit for one)')
  t.equal(await formActionOn('203.0.113.9:8443'), "'self' https://partner.test:* https://*.apps.example.net:*", 'a public address: none either')
  for (const host of ['localhost:3000', '127.0.0.1:8080', '127.8.9.10', '[::1]:8080', 'signin.localhost']) {
    t.equal(await formActionOn(host, 'http'), "'self' https://partner.test:* https://*.apps.example.net:* http://localhost:* http://127.0.0.1:*",
      `a loopback page (${host}): loopback over http, and no cookie domain`)
  }
  const api = await app.inject({ method: 'GET', url: '/healthz', headers: { host: 'signin.example.com' } })
  t.match(String(api.headers['content-security-policy']), /form-action 'self'(;|$)/, 'no form outside the page leads anywhere else')
})

t.test('the page on a public host over https gets the MDN HTTP Observatory\'s best CSP result, as its grader (reproduced: it cannot run offline) scores it', async (t) => {
  const policyOn = async (env: Record<string, string>, host: string, proto: string): Promise<string> => {
    const app = await buildEdge(t, { env: { TRUST_PROXY: 'loopback', ...env } })
    const page = await app.inject({ method: 'GET', url: '/', headers: { host, 'x-forwarded-proto': proto } })
    t.equal(page.statusCode, 200)
    return String(page.headers['content-security-policy'])
  }
  const provider = { CHALLENGE: 'turnstile', CHALLENGE_SITE_KEY: 'site-key', CHALLENGE_SECRET: 'provider-secret' }
  for (const [what, env] of [
    ['the defaults', {}],
    ['REDIRECT_ALLOWED_HOSTS and COOKIE_DOMAIN', { REDIRECT_ALLOWED_HOSTS: 'partner.test,*.apps.example.net', COOKIE_DOMAIN: 'example.com' }],
    ['a brand colour (the inline style by its hash)', { BRAND_COLOR: '#1d5fa8' }],
    ['a challenge provider', provider],
    ['Google sign-in', { GOOGLE_CLIENT_ID: '1234-abc.apps.googleusercontent.com' }]
  ] as const) {
    const policy = await policyOn(env, 'signin.example.com', 'https')
    t.equal(observatoryCspResult(policy, 'https:'), 'csp-implemented-with-no-unsafe-default-src-none', `${what}: +${OBSERVATORY_CSP_POINTS['csp-implemented-with-no-unsafe-default-src-none']}`)
  }

  // The grader's verdict on the policy a loopback page keeps, had it been served over https: what every
  // public page got while form-action named loopback over http (80 points, B+).
  const loopbackPolicy = await policyOn({}, 'localhost:8080', 'http')
  t.equal(observatoryCspResult(loopbackPolicy, 'https:'), 'csp-implemented-with-insecure-scheme', 'http://localhost:* in form-action costs 20 points')
  t.equal(observatoryCspResult(loopbackPolicy, 'http:'), 'csp-implemented-with-no-unsafe-default-src-none', 'on the http page it is served with, no insecure scheme is counted')
})

t.test('the reproduced Observatory CSP test tells the grader\'s results apart', async (t) => {
  const cases: Array<[string | undefined, ObservatoryCspResult]> = [
    [undefined, 'csp-not-implemented'],
    ["default-src 'none'; script-src 'self'; script-src 'self'", 'csp-header-invalid'],
    ["default-src 'none'; script-src 'self' 'unsafe-inline'", 'csp-implemented-with-unsafe-inline'],
    ["default-src 'none'; script-src 'self' 'nonce-abc' 'unsafe-inline'", 'csp-implemented-with-no-unsafe-default-src-none'],
    ["default-src 'none'; object-src https:", 'csp-implemented-with-unsafe-inline'],
    ["default-src 'none'; form-action 'self' http://localhost:*", 'csp-implemented-with-insecure-scheme'],
    ["default-src 'none'; script-src 'self' 'unsafe-eval'", 'csp-implemented-with-unsafe-eval'],
    ["default-src 'none'; img-src http://images.example.com", 'csp-implemented-with-insecure-scheme-in-passive-content-only'],
    ["default-src 'none'; style-src 'self' 'unsafe-inline'", 'csp-implemented-with-unsafe-inline-in-style-src-only'],
    ["default-src 'self'", 'csp-implemented-with-no-unsafe']
  ]
  for (const [policy, result] of cases) t.equal(observatoryCspResult(policy, 'https:'), result, String(policy))
})
