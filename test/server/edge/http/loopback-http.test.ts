import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { FORM_FLASH_COOKIE, FORM_FLASH_LOOPBACK_COOKIE } from '../../../../server/edge/no-script/form-flash.js'
import { KNOWN_BROWSER_COOKIE } from '../../../../server/edge/known-browsers/known-browser.js'
import { buildEdge, jsonAnswer, listen, startUpstream } from '../../../fixtures/servers/edge.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { registerAccount, verifyAddress } from '../../../fixtures/registration/registration.js'
import { injectJson } from '../../../fixtures/http/post-json.js'
import { injectLogin } from '../../../fixtures/sign-in/sign-in.js'
import { postForm } from '../../../fixtures/no-script/form-page.js'

/*
 * WebKit keeps no Secure cookie set over plain http, even on localhost: on
 * a loopback page over http, and only there, every cookie that reaches the
 * browser goes without Secure (server/edge/http/loopback-http.ts). Each
 * cookie-setting call is made as a loopback http visit and as the visits an
 * attacker or a misconfigured proxy could make look loopback; the second
 * kind keeps Secure on every cookie.
 */

const EDGE_ENV = { CHALLENGE: 'pow', EDGE_SECRET: 'an edge secret of at least thirty-two characters', TRUST_PROXY: 'loopback' }
const OWNER = 'owner@example.com'

/** How a browser reaches the edge: the headers every call of the visit carries, and the peer it connects from. */
interface Visit {
  readonly name: string
  readonly headers: Readonly<Record<string, string>>
  /** The connection's address; 127.0.0.1 (the trusted proxy) unless named. */
  readonly remoteAddress?: string
}

/** Loopback pages over plain http: their cookies go without Secure. */
const LOOPBACK_VISITS: readonly Visit[] = [
  { name: 'http://localhost:8080', headers: { host: 'localhost:8080', origin: 'http://localhost:8080' } },
  { name: 'http://127.0.0.1:8080', headers: { host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' } },
  { name: 'http://[::1]:8080', headers: { host: '[::1]:8080', origin: 'http://[::1]:8080' } },
  { name: 'http://signin.localhost', headers: { host: 'signin.localhost', origin: 'http://signin.localhost' } },
  { name: 'a trusted proxy saying http://localhost', headers: { host: 'edge:8080', 'x-forwarded-host': 'localhost:3000', 'x-forwarded-proto': 'http', origin: 'http://localhost:3000' } }
]

/** Everything else, the attacks among them: every cookie keeps Secure. */
const SECURE_VISITS: readonly Visit[] = [
  { name: 'a public host over plain http', headers: { host: 'signin.example.com', origin: 'http://signin.example.com' } },
  { name: 'a trusted proxy saying http for a public host', headers: { host: 'localhost:8080', 'x-forwarded-host': 'signin.example.com', 'x-forwarded-proto': 'http', origin: 'http://signin.example.com' } },
  { name: 'Host: localhost forwarded from https by a trusted proxy', headers: { host: 'localhost:8080', 'x-forwarded-proto': 'https', origin: 'https://localhost:8080' } },
  {
    name: 'Host: localhost with X-Forwarded-Proto: https from a proxy the edge does not trust',
    headers: { host: 'localhost:8080', 'x-forwarded-proto': 'https' },
    remoteAddress: '203.0.113.7'
  },
  { name: 'Host: localhost with Forwarded: proto=https from a proxy the edge does not trust', headers: { host: 'localhost:8080', forwarded: 'for=198.51.100.1;proto=https' }, remoteAddress: '203.0.113.7' },
  { name: 'Host: 127.0.0.1 from a TLS-ending proxy that says nothing, the browser on https', headers: { host: '127.0.0.1:8080', origin: 'https://signin.example.com' } },
  { name: 'Host: localhost, the browser\'s Origin on another loopback scheme', headers: { host: 'localhost:8080', origin: 'https://localhost:8080' } }
]

const PAGE_CALL = { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }

/** The Set-Cookie values of an answer. */
const setCookies = (answer: LightMyRequestResponse): string[] => [answer.headers['set-cookie'] ?? []].flat().map(String)
const hasSecure = (cookie: string): boolean => /;\s*secure\s*(;|$)/i.test(cookie)
const named = (cookies: readonly string[], name: string): string | undefined => cookies.find((cookie) => cookie.startsWith(`${name}=`))

/** A JSON call of the page, made as `visit` makes it. */
async function pageCall (edge: FastifyInstance, visit: Visit, path: string, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await edge.inject({
    method: 'POST',
    url: path,
    remoteAddress: visit.remoteAddress ?? '127.0.0.1',
    headers: { ...PAGE_CALL, ...visit.headers, ...headers },
    payload: JSON.stringify(body)
  })
}

/** Checks that `cookies` holds each of `names` and that every cookie is as `loopback` says: without Secure or `__Host-`, or with Secure. */
function expectCookies (t: Test, cookies: readonly string[], names: readonly string[], loopback: boolean, what: string): void {
  for (const name of names) t.ok(named(cookies, name) !== undefined, `${what}: sets ${name}`)
  if (loopback) {
    t.same(cookies.filter(hasSecure), [], `${what}: no cookie is Secure`)
    t.same(cookies.filter((cookie) => cookie.startsWith('__Host-')), [], `${what}: no __Host- cookie`)
  } else {
    t.same(cookies.filter((cookie) => !hasSecure(cookie)), [], `${what}: every cookie is Secure`)
  }
}

t.test('the reference service behind the edge: login, refresh, known browsers, passkey state and the no-script forms', async (t) => {
  const reference = await startReference(t, { edgeEnv: EDGE_ENV })
  const browser = await registerAccount(reference.base, OWNER)
  await verifyAddress(reference.base, reference.dataDir, OWNER, browser)
  const edge = reference.edge

  for (const [visits, loopback] of [[LOOPBACK_VISITS, true], [SECURE_VISITS, false]] as const) {
    for (const visit of visits) {
      const login = await pageCall(edge, visit, '/accounts/v2/login', { email: OWNER, password: GOOD_PASSWORD })
      t.equal(login.statusCode, 200, `${visit.name}: signed in`)
      const loginCookies = setCookies(login)
      // refresh: the edge's; threshold_edge_browser: the challenge gate's hook; threshold_browser: the reference service's, through the proxy.
      expectCookies(t, loginCookies, ['refresh', KNOWN_BROWSER_COOKIE, 'threshold_browser'], loopback, `${visit.name}, the page's login`)

      const refreshCookie = named(loginCookies, 'refresh')!.split(';', 1)[0]!
      const refreshed = await pageCall(edge, visit, '/accounts/token/refresh', {}, { cookie: refreshCookie })
      t.equal(refreshed.statusCode, 200, `${visit.name}: refreshed`)
      expectCookies(t, setCookies(refreshed), ['refresh'], loopback, `${visit.name}, a token refresh`)

      const options = await pageCall(edge, visit, '/accounts/passkeys/login/options', {})
      t.equal(options.statusCode, 200, `${visit.name}: passkey options`)
      expectCookies(t, setCookies(options), ['passkey_challenge'], loopback, `${visit.name}, the passkey state`)

      const remote = visit.remoteAddress === undefined ? {} : { remoteAddress: visit.remoteAddress }
      const formLogin = await edge.inject({
        method: 'POST',
        url: '/?view=login',
        ...remote,
        headers: { ...visit.headers, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        payload: new URLSearchParams({ form: 'login', email: OWNER, password: GOOD_PASSWORD }).toString()
      })
      t.equal(formLogin.statusCode, 303, `${visit.name}: the form login's 303`)
      expectCookies(t, setCookies(formLogin), ['auth', 'refresh', KNOWN_BROWSER_COOKIE], loopback, `${visit.name}, the no-script login's 303`)
    }
  }
})

t.test('the no-script flash: no __Host- prefix on a loopback http page, read back and cleared under that name; __Host- and Secure elsewhere', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
  const edge = await buildEdge(t, { env: { TRUST_PROXY: 'loopback' }, accountsUpstream: upstream.url })
  const fields = { form: 'login', email: 'ada@example.com', password: GOOD_PASSWORD }

  const loopback = await postForm(edge, fields, { query: 'view=login', headers: { host: 'localhost:8080', 'x-forwarded-proto': 'http', origin: 'http://localhost:8080' } })
  t.equal(loopback.statusCode, 303)
  expectCookies(t, setCookies(loopback), [FORM_FLASH_LOOPBACK_COOKIE], true, 'http://localhost, the flash')
  const flash = named(setCookies(loopback), FORM_FLASH_LOOPBACK_COOKIE)!.split(';', 1)[0]!
  const shown = await edge.inject({ method: 'GET', url: String(loopback.headers.location), headers: { host: 'localhost:8080', 'x-forwarded-proto': 'http', cookie: flash } })
  t.match(shown.body, 'Wrong email or password.', 'the page after the 303 shows the flashed notice')
  t.same(setCookies(shown), [`${FORM_FLASH_LOOPBACK_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`], 'and clears the flash it read')

  const secure = await postForm(edge, fields, { query: 'view=login', headers: { host: 'localhost:8080', 'x-forwarded-proto': 'https', origin: 'https://localhost:8080' } })
  expectCookies(t, setCookies(secure), [FORM_FLASH_COOKIE], false, 'Host: localhost forwarded from https, the flash')
  const prefixed = named(setCookies(secure), FORM_FLASH_COOKIE)!.split(';', 1)[0]!
  const shownSecure = await edge.inject({ method: 'GET', url: String(secure.headers.location), headers: { host: 'localhost:8080', 'x-forwarded-proto': 'https', cookie: prefixed } })
  t.match(shownSecure.body, 'Wrong email or password.')
  t.same(setCookies(shownSecure), [`${FORM_FLASH_COOKIE}=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict`], 'cleared with __Host- and Secure')
})

t.test('an operator\'s own backend: its SSO state and prefixed cookies pass without Secure only to a loopback http page', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { sso_url: 'https://idp.example.test/start' }, {
    'set-cookie': ['sso_state=abc; Path=/accounts; HttpOnly; Secure; SameSite=Lax', '__Host-own=1; Path=/; Secure', '__Secure-mine=2; Path=/; secure']
  }))
  const edge = await buildEdge(t, { env: { TRUST_PROXY: 'loopback' }, accountsUpstream: upstream.url })
  for (const [visits, loopback] of [[LOOPBACK_VISITS, true], [SECURE_VISITS, false]] as const) {
    for (const visit of visits) {
      const answer = await pageCall(edge, visit, '/accounts/auth/login/sso', { email: 'ada@corp.example.com' })
      t.equal(answer.statusCode, 200, visit.name)
      expectCookies(t, setCookies(answer), ['sso_state', loopback ? 'own' : '__Host-own', loopback ? 'mine' : '__Secure-mine'], loopback, `${visit.name}, the SSO state`)
    }
  }
  const loopbackAnswer = await pageCall(edge, LOOPBACK_VISITS[0]!, '/accounts/auth/login/sso', { email: 'ada@corp.example.com' })
  t.same(setCookies(loopbackAnswer), ['sso_state=abc; Path=/accounts; HttpOnly; SameSite=Lax', 'own=1; Path=/', 'mine=2; Path=/'], 'only Secure and the prefixes go; every other attribute stays')
})

t.test('PUBLIC_URL on https keeps Secure whatever the request says; a direct connection to http://127.0.0.1 drops it', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'a.b.c', refresh: 'refresh-token' }))
  const publicEdge = await buildEdge(t, { env: { PUBLIC_URL: 'https://signin.example.com', ALLOWED_HOSTS: 'signin.example.com,localhost', CHALLENGE: 'off' }, accountsUpstream: upstream.url })
  const answer = await injectLogin(publicEdge, 'ada@example.com', GOOD_PASSWORD, { headers: { host: 'localhost:8080', origin: 'http://localhost:8080', 'sec-fetch-site': 'same-origin' } })
  expectCookies(t, setCookies(answer), ['refresh'], false, 'PUBLIC_URL https, Host: localhost over http')

  const localEdge = await buildEdge(t, { env: { CHALLENGE: 'off' }, accountsUpstream: upstream.url })
  const base = await listen(localEdge)
  const direct = await fetch(`${base}/accounts/v2/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com', password: GOOD_PASSWORD }) })
  await direct.text()
  const cookies = direct.headers.getSetCookie()
  t.ok(named(cookies, 'refresh') !== undefined && cookies.every((cookie) => !hasSecure(cookie)), 'real HTTP to http://127.0.0.1: refresh without Secure')
  const injected = await injectJson(localEdge, '/accounts/v2/login', { email: 'ada@example.com', password: GOOD_PASSWORD }, { host: 'signin.example.com' })
  expectCookies(t, setCookies(injected), ['refresh'], false, 'the same edge, a public host')
})
