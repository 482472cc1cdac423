import t, { type Test } from 'tap'
import { ACCOUNT_STATE_ELEMENT_ID, type AccountState } from '../../../../common/account/account-state.js'
import { ACCOUNT, ACCOUNT_ROUTES, accountAnswers, answeringByPath, authTokenFor, type AccountAnswers } from '../../../fixtures/account/account-upstream.js'
import { startEdgeWithUpstream } from '../../../fixtures/servers/edge.js'
import { stateIn } from '../../../fixtures/no-script/form-page.js'
import { startReference } from '../../../fixtures/servers/reference.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'

/*
 * GET ?view=account at the edge (docs/account-view.md): the gate, the calls
 * it makes with the visitor's token, and the AccountState it embeds for the
 * view (ACCOUNT_STATE_ELEMENT_ID) and renders with.
 */

const ENV = { TRUST_PROXY: 'loopback' }
const AUTH = authTokenFor('ada@example.com')
const GET_HEADERS = { host: 'signin.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7', 'user-agent': 'AccountViewTest/1.0' }

async function edgeAnswering (t: Test, answers: () => AccountAnswers) {
  return await startEdgeWithUpstream(t, answeringByPath(answers), { env: ENV, accountsRoutes: ACCOUNT_ROUTES })
}

/** The AccountState a page embeds, as the view reads it; null when it embeds none. */
function accountIn (html: string): AccountState | null {
  const match = new RegExp(`<script type="application/json" id="${ACCOUNT_STATE_ELEMENT_ID}">(.*?)</script>`, 's').exec(html)
  return match === null ? null : JSON.parse(match[1]!) as AccountState
}

const setCookies = (headers: Record<string, unknown>): string[] => {
  const value = headers['set-cookie']
  return Array.isArray(value) ? value as string[] : typeof value === 'string' ? [value] : []
}

t.test('without a token cookie the account view sends the visitor to sign in first, coming back to it', async (t) => {
  const { app, upstream } = await edgeAnswering(t, () => accountAnswers())
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: GET_HEADERS })
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, '/?redirect=%2F%3Fview%3Daccount')
  t.equal(upstream.requests.length, 0, 'the service is not asked')

  const arabic = await app.inject({ method: 'GET', url: '/?view=account&ui_locales=ar', headers: GET_HEADERS })
  t.equal(new URLSearchParams(String(arabic.headers.location).slice(2)).get('redirect'), '/?view=account&ui_locales=ar', 'the language comes back too')
})

t.test('signed in, the edge fetches the overview and the lists its features name with the token, and embeds the state', async (t) => {
  const { app, upstream } = await edgeAnswering(t, () => accountAnswers())
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}; refresh=r-1`, 'accept-encoding': 'gzip, deflate, br, zstd' } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-encoding'], undefined, 'attack (BREACH): the account view, its sessions\' ids beside the address\'s query, is never compressed')
  t.same(accountIn(response.body), ACCOUNT)
  t.same(upstream.requests.map((request) => request.url).sort(), ['/account/overview', '/activity/list', '/passkeys/list', '/sessions/list'])
  for (const request of upstream.requests) {
    t.equal(request.headers.authorization, `Bearer ${AUTH}`, `${request.url} bears the token`)
    t.equal(request.headers['user-agent'], 'AccountViewTest/1.0', `${request.url} names the browser`)
  }
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(String(response.headers['content-security-policy']), /script-src 'self' https:/)
})

t.test('a backend\'s passkeys and second factor are left out where this edge forwards none of their calls', async (t) => {
  const { app, upstream } = await startEdgeWithUpstream(t, answeringByPath(() => accountAnswers()),
    { env: { ...ENV, PASSKEYS: 'false', SECOND_FACTOR: 'false' }, accountsRoutes: ACCOUNT_ROUTES })
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}; refresh=r-1` } })
  t.equal(response.statusCode, 200)
  t.same(accountIn(response.body)?.overview.features, ['sessions', 'password', 'email', 'activity', 'delete'], 'no section that could not load or change anything')
  t.notOk(upstream.requests.some((request) => request.url === '/passkeys/list'), 'its list is not asked for')
})

t.test('only the lists the backend serves are asked for; its extra fields and unknown kinds never reach the page', async (t) => {
  const overview = { ...ACCOUNT.overview, features: ['password', 'sessions', 'telepathy'], secret: 'internal-note' }
  const { app, upstream } = await edgeAnswering(t, () => ({
    ...accountAnswers(),
    '/account/overview': { status: 200, body: overview },
    '/sessions/list': { status: 200, body: { sessions: [{ ...ACCOUNT.sessions![0]!, internal: 'row-17' }, { id: 42 }] } }
  }))
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}` } })
  t.same(upstream.requests.map((request) => request.url).sort(), ['/account/overview', '/sessions/list'])
  t.same(accountIn(response.body), { overview: { ...ACCOUNT.overview, features: ['password', 'sessions'] }, sessions: [ACCOUNT.sessions![0]], passkeys: null, activity: null })
  t.notMatch(response.body, 'internal-note')
  t.notMatch(response.body, 'row-17')
})

t.test('the overview\'s sign-in methods are embedded, each connection linked or not, and only their own fields, where the edge forwards their calls', async (t) => {
  const social = [
    { provider: 'github', email: 'ada@users.example', linkedAt: 1_764_000_000_000, subject: '583231' },
    { provider: 'microsoft', email: null, linkedAt: null },
    { provider: 42 },
    { provider: 'gitlab', email: 'stale@example.test', linkedAt: null }
  ]
  const answers = (): AccountAnswers => ({ ...accountAnswers(), '/account/overview': { status: 200, body: { ...ACCOUNT.overview, features: [...ACCOUNT.overview.features, 'social'], social } } })
  const connections = JSON.stringify([
    { type: 'github', client_id: 'gh-client', client_secret: 'gh-secret' },
    { type: 'microsoft', client_id: 'ms-client', client_secret: 'ms-secret' },
    { type: 'oidc', id: 'gitlab', name: 'GitLab', issuer: 'https://gitlab.example', client_id: 'gl-client', client_secret: 'gl-secret' }
  ])
  const { app } = await startEdgeWithUpstream(t, answeringByPath(answers), { env: { ...ENV, SOCIAL_CONNECTIONS: connections }, accountsRoutes: ACCOUNT_ROUTES })
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}` } })
  t.ok(accountIn(response.body)?.overview.features.includes('social'), 'the section is offered')
  t.same(accountIn(response.body)?.overview.social, [
    { provider: 'github', email: 'ada@users.example', linkedAt: 1_764_000_000_000 },
    { provider: 'microsoft', email: null, linkedAt: null },
    { provider: 'gitlab', email: null, linkedAt: null }
  ], 'what the view\'s "Sign-in methods" lists')
  t.notMatch(response.body, '583231', 'the provider\'s subject never reaches the page')
  t.match(response.body, 'Sign-in methods', 'the section is rendered')
  t.match(response.body, 'Connect Microsoft', 'with a provider\'s connect button')

  const without = await edgeAnswering(t, answers)
  const elsewhere = await without.app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}` } })
  t.notOk(accountIn(elsewhere.body)?.overview.features.includes('social'), 'an edge with no connection, which forwards none of their calls, leaves the section out')
  t.notMatch(elsewhere.body, 'Sign-in methods')
})

t.test('a browser name written to break out of the page is embedded as text', async (t) => {
  const hostile = '</script><script>alert(1)</script>'
  const { app } = await edgeAnswering(t, () => ({
    ...accountAnswers(),
    '/sessions/list': { status: 200, body: { sessions: [{ ...ACCOUNT.sessions![0]!, browser: hostile }] } }
  }))
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}` } })
  t.notMatch(response.body, hostile)
  t.equal(accountIn(response.body)?.sessions?.[0]?.browser, hostile, 'the scripts read it back as it was')
})

t.test('a backend without the account calls gets a view with no features, naming the token\'s address', async (t) => {
  const { app } = await edgeAnswering(t, () => ({}))
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}` } })
  t.equal(response.statusCode, 200)
  t.same(accountIn(response.body), {
    overview: {
      account: { email: 'ada@example.com', firstName: null, lastName: null, emailVerified: false, hasPassword: false, google: false },
      secondFactor: { enrolled: false, recoveryCodesLeft: 0, rememberedBrowsers: 0 },
      features: []
    },
    sessions: null,
    passkeys: null,
    activity: null
  })
})

t.test('an expired token is refreshed once through the refresh cookie, and the new cookies are written', async (t) => {
  let refreshed = false
  const { app, upstream } = await edgeAnswering(t, () => ({
    ...accountAnswers(),
    '/token/refresh': { status: 200, body: { auth: 'new-auth-token', refresh: 'new-refresh-token' } },
    ...refreshed ? {} : { '/account/overview': { status: 401, body: { error: 'Sign in again.', reason: 'signed_out' } } }
  }))
  upstream.server.on('request', (request) => { if (request.url === '/token/refresh') refreshed = true })
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}; refresh=old-refresh-token` } })
  t.equal(response.statusCode, 200)
  t.same(accountIn(response.body), ACCOUNT)
  const refresh = upstream.requests.filter((request) => request.url === '/token/refresh')
  t.equal(refresh.length, 1, 'refreshed once')
  t.same(JSON.parse(refresh[0]!.body.toString('utf8')), { refresh: 'old-refresh-token' })
  t.same(upstream.requests.filter((request) => request.url !== '/token/refresh' && request.url !== '/account/overview').map((request) => request.headers.authorization),
    ['Bearer new-auth-token', 'Bearer new-auth-token', 'Bearer new-auth-token'], 'the lists bear the new token')
  const lines = setCookies(response.headers)
  t.ok(lines.some((line) => line.startsWith('refresh=new-refresh-token;') && line.includes('HttpOnly')), 'the new refresh cookie, HttpOnly')
  t.ok(lines.some((line) => line.startsWith('auth=new-auth-token;') && !line.includes('HttpOnly')), 'the new auth cookie, as the page writes it')
  t.notMatch(response.body, 'new-refresh-token', 'the refresh token stays out of the page')
})

t.test('a session that has ended, or a refresh the service refuses, sends the visitor to sign in again', async (t) => {
  const ended = await edgeAnswering(t, () => ({ '/account/overview': { status: 401, body: { error: 'Your session has ended.', reason: 'session_ended' } } }))
  const response = await ended.app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}; refresh=r-1` } })
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, '/?redirect=%2F%3Fview%3Daccount')
  t.notOk(ended.upstream.requests.some((request) => request.url === '/token/refresh'), 'an ended session is not refreshed')

  const refused = await edgeAnswering(t, () => ({
    '/account/overview': { status: 401, body: { error: 'Sign in again.', reason: 'signed_out' } },
    '/token/refresh': { status: 401, body: { error: 'Sign in again.' } }
  }))
  const again = await refused.app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: 'refresh=spent' } })
  t.equal(again.statusCode, 303)
  t.same(refused.upstream.requests.map((request) => request.url), ['/token/refresh'], 'no auth cookie: refreshed first, then nothing more')
})

t.test('a service that fails shows the account view\'s failure, and no state', async (t) => {
  const { app } = await edgeAnswering(t, () => ({ '/account/overview': { status: 503, body: {} } }))
  const response = await app.inject({ method: 'GET', url: '/?view=account', headers: { ...GET_HEADERS, cookie: `auth=${AUTH}` } })
  t.equal(response.statusCode, 503)
  t.equal(accountIn(response.body), null)
  t.match(stateIn(response.body), { view: 'account', notice: { kind: 'error' } })
})

t.test('signed in at the reference service, the account view embeds the account\'s state', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'viewer@example.test')
  const { auth } = await loginTokens(base, 'viewer@example.test')
  const response = await fetch(`${base}/?view=account`, { headers: { cookie: `auth=${auth}` }, redirect: 'manual' })
  t.equal(response.status, 200)
  const account = accountIn(await response.text())
  t.equal(account?.overview.account.email, 'viewer@example.test')
})
