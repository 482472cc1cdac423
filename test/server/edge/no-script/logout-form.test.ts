import t, { type Test } from 'tap'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { jsonAnswer, startEdgeWithUpstream, type startUpstream } from '../../../fixtures/servers/edge.js'
import { followFlash, PAGE_POST_HEADERS, postForm, stateIn } from '../../../fixtures/no-script/form-page.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'

/*
 * The sign-out URL a product links to (docs/account-view.md): the GET is a
 * page with one button; its POST ends the session at the service, clears
 * both token cookies as the page sets them, and follows a safe `redirect`
 * only. The page is at https://signin.example.com (PAGE_POST_HEADERS), whose
 * cookie domain is example.com.
 */

const ENV = { TRUST_PROXY: 'loopback' }
const REFRESH = 'refresh-token-of-this-browser'
const SIGNED_IN = { cookie: `auth=auth-token; refresh=${REFRESH}` }
const GET_HEADERS = { host: 'signin.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' }

async function edgeAnswering (t: Test, answer: Parameters<typeof startUpstream>[1]) {
  return await startEdgeWithUpstream(t, answer, { env: ENV, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
}

/** The Set-Cookie lines of an answer. */
function setCookies (headers: Record<string, unknown>): string[] {
  const value = headers['set-cookie']
  return Array.isArray(value) ? value as string[] : typeof value === 'string' ? [value] : []
}

/** The lines that remove the token cookie `name`. */
const clearing = (lines: string[], name: string): string[] => lines.filter((line) => line.startsWith(`${name}=;`) && /Max-Age=0/.test(line))

t.test('the sign-out URL shows a page whose one form posts to the same address, and nothing ends on a GET', async (t) => {
  const { app, upstream } = await edgeAnswering(t, jsonAnswer(200, { success: true }))
  const response = await app.inject({ method: 'GET', url: '/?view=logout&redirect=https%3A%2F%2Fapp.example.com%2Fbye', headers: { ...GET_HEADERS, ...SIGNED_IN } })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/html/)
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.body, /<h1>Sign out of Threshold\?<\/h1>/)
  t.match(response.body, '<form method="post" action="/?view=logout&#38;redirect=https%3A%2F%2Fapp.example.com%2Fbye">')
  t.match(response.body, '<input type="hidden" name="form" value="logout">')
  t.match(response.body, '<button type="submit">Sign out</button>')
  t.notMatch(response.body, /<script/, 'the page runs no script')
  const policy = String(response.headers['content-security-policy'])
  t.match(policy, /script-src 'self'[^;]*;/)
  t.match(policy, /form-action 'self' https:\/\/example\.com:\* https:\/\/\*\.example\.com:\*/, 'the 303 to a product on the cookie domain is not held by form-action')
  t.equal(response.headers['x-frame-options'], 'DENY', 'no other site frames the button')
  t.same(setCookies(response.headers), [], 'no cookie is touched')
  t.equal(upstream.requests.length, 0, 'the service is not called')
})

t.test('the sign-out page speaks the address\'s language, right to left included', async (t) => {
  const { app } = await edgeAnswering(t, jsonAnswer(200, { success: true }))
  const response = await app.inject({ method: 'GET', url: '/?view=logout&ui_locales=ar', headers: GET_HEADERS })
  t.match(response.body, '<html lang="ar" dir="rtl">')
  t.match(response.body, 'تسجيل الخروج')
})

t.test('signing out revokes this browser\'s refresh token, clears both cookies as the page sets them, and follows a safe redirect', async (t) => {
  const { app, upstream } = await edgeAnswering(t, jsonAnswer(200, { success: true }))
  const response = await postForm(app, { form: 'logout' }, { query: 'view=logout&redirect=https%3A%2F%2Fapp.example.com%2Fbye', headers: SIGNED_IN })
  t.equal(upstream.requests.length, 1)
  t.equal(upstream.requests[0]!.url, '/token/revoke')
  t.same(JSON.parse(upstream.requests[0]!.body.toString('utf8')), { refresh: REFRESH }, 'the token is the refresh cookie\'s')
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, 'https://app.example.com/bye')
  const lines = setCookies(response.headers)
  t.same(clearing(lines, 'refresh'), ['refresh=; Max-Age=0; Path=/; Domain=example.com; Secure; HttpOnly; SameSite=Lax'], 'once, with the attributes it was set with')
  t.same(clearing(lines, 'auth'), ['auth=; Max-Age=0; Path=/; Domain=example.com; Secure; SameSite=Lax'])
})

t.test('an unsafe redirect is never followed: the visitor is signed out and lands on the login view, told so', async (t) => {
  const { app } = await edgeAnswering(t, jsonAnswer(200, { success: true }))
  for (const target of ['https://evil.example.net/', '//evil.example.net/', 'http://app.example.com/', 'javascript:alert(1)', 'https://user:pass@app.example.com/']) {
    const response = await postForm(app, { form: 'logout' }, { query: `view=logout&redirect=${encodeURIComponent(target)}`, headers: SIGNED_IN })
    t.equal(response.statusCode, 303, target)
    t.equal(response.headers.location, '/', `${target}: the login view`)
    t.equal(clearing(setCookies(response.headers), 'refresh').length, 1, `${target}: signed out all the same`)
    const page = await followFlash(app, response)
    t.match(stateIn(page.body), { view: 'login', notice: { kind: 'success', text: 'You\'re signed out.' } })
  }
})

t.test('a sign-out posted from another site is refused: the session lives on, no cookie is cleared', async (t) => {
  const { app, upstream } = await edgeAnswering(t, jsonAnswer(200, { success: true }))
  for (const headers of [{ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example.net' }, { 'sec-fetch-site': 'same-site', origin: 'https://app.example.com' }]) {
    const response = await postForm(app, { form: 'logout' }, { query: 'view=logout&redirect=https%3A%2F%2Fapp.example.com%2F', headers: { ...SIGNED_IN, ...headers } })
    t.equal(response.statusCode, 403, headers['sec-fetch-site'])
    t.same(clearing(setCookies(response.headers), 'refresh'), [])
    t.same(clearing(setCookies(response.headers), 'auth'), [])
  }
  t.equal(upstream.requests.length, 0, 'the service is not called')
})

t.test('two visitors behind one address who sign out at once each end their own session', async (t) => {
  const { app, upstream } = await edgeAnswering(t, jsonAnswer(200, { success: true }))
  await postForm(app, { form: 'logout' }, { query: 'view=logout', headers: { cookie: 'refresh=first-visitor' } })
  await postForm(app, { form: 'logout' }, { query: 'view=logout', headers: { cookie: 'refresh=second-visitor' } })
  t.same(upstream.requests.map((request) => JSON.parse(request.body.toString('utf8')) as unknown), [{ refresh: 'first-visitor' }, { refresh: 'second-visitor' }],
    'the second post is not taken for a repeat of the first')
})

t.test('without cookies there is nothing to end at the service: the cookies are cleared all the same and the redirect followed', async (t) => {
  const { app, upstream } = await edgeAnswering(t, jsonAnswer(200, { success: true }))
  const response = await postForm(app, { form: 'logout' }, { query: 'view=logout&redirect=%2Fsigned-out' })
  t.equal(upstream.requests.length, 0)
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, 'https://signin.example.com/signed-out')
  t.equal(clearing(setCookies(response.headers), 'refresh').length, 1)
  t.equal(clearing(setCookies(response.headers), 'auth').length, 1)
})

t.test('a token the service no longer knows leaves nothing to end; a service that fails keeps the cookies and says so', async (t) => {
  const unknown = await edgeAnswering(t, jsonAnswer(401, { error: 'Your session has ended.' }))
  const ended = await postForm(unknown.app, { form: 'logout' }, { query: 'view=logout&redirect=https%3A%2F%2Fapp.example.com%2F', headers: SIGNED_IN })
  t.equal(ended.statusCode, 303)
  t.equal(clearing(setCookies(ended.headers), 'refresh').length, 1)

  const failing = await edgeAnswering(t, jsonAnswer(500, { error: 'database on fire' }))
  const failed = await postForm(failing.app, { form: 'logout' }, { query: 'view=logout&redirect=https%3A%2F%2Fapp.example.com%2F', headers: SIGNED_IN })
  t.equal(failed.statusCode, 500)
  t.match(failed.body, '<p role="alert">Signing out did not work. Please try again.</p>')
  t.match(failed.body, '<input type="hidden" name="form" value="logout">', 'the button is there to try again')
  t.notMatch(failed.body, 'database on fire', 'the service\'s own words stay with it')
  t.same(clearing(setCookies(failed.headers), 'refresh'), [], 'the session may live on: its cookies stay')
})

t.test('signed out through the reference service, the refresh token no longer works', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'leaving@example.test')
  const { refresh } = await loginTokens(base, 'leaving@example.test', GOOD_PASSWORD)
  const response = await fetch(`${base}/?view=logout&redirect=%2Fbye`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': PAGE_POST_HEADERS['content-type']!, 'sec-fetch-site': 'same-origin', origin: base, cookie: `refresh=${refresh}` },
    body: 'form=logout'
  })
  t.equal(response.status, 303)
  t.equal(response.headers.get('location'), `${base}/bye`)
  t.ok(response.headers.getSetCookie().some((line) => line.startsWith('refresh=;')), 'the refresh cookie is cleared')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh })).status, 401, 'the session has ended at the service')
})
