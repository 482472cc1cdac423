import t from 'tap'
import { ERROR_MESSAGES } from '../../../../common/languages/error-messages.js'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import { ACCOUNTS_FAILURE_MESSAGES } from '../../../../server/edge/upstream/accounts-proxy.js'
import { buildEdge, captureLog, jsonAnswer, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { followFlash, stateIn, postForm, postFormAndFollow } from '../../../fixtures/no-script/form-page.js'
import { SECOND_FACTOR_TEST_ROUTES } from '../../../fixtures/second-factor/second-factor.js'
import type { ServerResponse } from 'node:http'
import { KNOWN_BROWSER_COOKIE } from '../../../../server/edge/known-browsers/known-browser.js'

const ENV = { TRUST_PROXY: 'loopback', REDIRECT_ALLOWED_HOSTS: 'partner.test' }
const TOKENS = { auth: 'auth.token-1', refresh: 'refresh.token-1' }
const PASSWORD = 'correct horse battery staple'

const bodyOf = (request: RecordedRequest | undefined): unknown => JSON.parse(request?.body.toString('utf8') ?? 'null')

/** The Set-Cookie values of an answer, as a list. */
function setCookies (response: { headers: Record<string, unknown> }): string[] {
  const value = response.headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value as string[] : [value as string]
}

t.test('a login posted without scripts sends upstream the payload the page sends, sets the token cookies as the page and the edge do and goes to the redirect target', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, TOKENS))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  const before = Date.now()
  const response = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD },
    { query: 'redirect=https%3A%2F%2Fapp.example.com%2Fhome&allowed_org=one,two&allowed_org=three&resource_type=cluster&cluster_name=east' })

  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, 'https://app.example.com/home')
  t.equal(upstream.requests.length, 1)
  const call = upstream.requests[0]!
  t.equal(call.url, '/v2/login')
  t.equal(call.headers['content-type'], 'application/json')
  t.equal(call.headers['user-agent'], 'FormPostTest/1.0', 'the browser is named to the service as on the page\'s call')
  t.equal(call.headers['x-forwarded-for'], '203.0.113.7', 'the visitor\'s address, not the edge\'s own')
  t.same(bodyOf(call), {
    email: 'ada@example.com',
    password: PASSWORD,
    insecure_allowed_orgs: ['one', 'two', 'three'],
    resource_type: 'cluster',
    cluster_name: 'east'
  }, 'as client/sign-in/login-calls.ts login() sends it, context fields from the address')

  const cookies = setCookies(response)
  t.equal(cookies.length, 3, 'the token cookies, and the edge\'s note of a browser that signed in (docs/challenge.md)')
  const note = cookies.find((line) => line.startsWith(`${KNOWN_BROWSER_COOKIE}=`))
  t.ok(note?.split('; ').includes('Path=/'), 'the note is sent back with the next form post to `/`, not only with the page\'s login call')
  for (const [name, value, httpOnly] of [['auth', TOKENS.auth, false], ['refresh', TOKENS.refresh, true]] as const) {
    const cookie = cookies.find((line) => line.startsWith(`${name}=`))
    t.ok(cookie, `${name} is set`)
    const [pair, ...attributes] = cookie!.split('; ')
    t.equal(pair, `${name}=${value}`)
    t.ok(attributes.includes('Path=/'))
    t.ok(attributes.includes('Domain=example.com'), 'the cookie domain the edge decides for the host')
    t.ok(attributes.includes('Secure'))
    t.ok(attributes.includes('SameSite=Lax'))
    t.equal(attributes.includes('HttpOnly'), httpOnly, httpOnly ? 'refresh: HttpOnly, as the edge sets it for the page' : 'auth: readable, as the page writes it')
    const expires = Date.parse(attributes.find((attribute) => attribute.startsWith('Expires='))!.slice('Expires='.length))
    const days = (expires - before) / 86_400_000
    t.ok(days > 13.99 && days <= 14.01, `a lifetime of 14 days (${days.toFixed(3)})`)
  }
})

t.test('with AUTH_COOKIE_HTTPONLY a login posted without scripts sets both token cookies HttpOnly, each once', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, TOKENS))
  const app = await buildEdge(t, { env: { ...ENV, AUTH_COOKIE_HTTPONLY: 'true' }, accountsUpstream: upstream.url })
  const response = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: 'redirect=%2Fapp' })
  t.equal(response.statusCode, 303)
  // The edge's note of a browser that signed in (docs/challenge.md) is no token cookie.
  const cookies = setCookies(response).filter((line) => !line.startsWith(`${KNOWN_BROWSER_COOKIE}=`))
  t.same(cookies.map((line) => line.split('=', 1)[0]).sort(), ['auth', 'refresh'])
  for (const cookie of cookies) t.ok(cookie.split('; ').includes('HttpOnly'), `${cookie.split('=', 1)[0]}: HttpOnly`)
})

t.test('a hostile redirect sends the signed-in visitor to the site origin, as the page would', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, TOKENS))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  const hostile = ['https://evil.test/phish', '//evil.test/', 'javascript:alert(1)', 'http://app.example.com/', 'https://user:pw@app.example.com/', 'https://evil.test\\@app.example.com/']
  for (const target of hostile) {
    const response = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: `redirect=${encodeURIComponent(target)}` })
    t.equal(response.headers.location, 'https://signin.example.com/', `${target} is not followed`)
  }
  const allowed = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: 'redirect=https%3A%2F%2Fpartner.test%2Fwelcome' })
  t.equal(allowed.headers.location, 'https://partner.test/welcome', 'a host REDIRECT_ALLOWED_HOSTS lists is followed')
  const relative = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: 'redirect=%2Fdashboard%3Ftab%3D1' })
  t.equal(relative.headers.location, 'https://signin.example.com/dashboard?tab=1')
})

t.test('a wrong password re-renders the login view with the service\'s message and its status, the email kept and the password nowhere', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  const response = await postFormAndFollow(app, { form: 'login', email: 'ada@example.com', password: PASSWORD })
  t.equal(response.statusCode, 401)
  t.same(setCookies(response).filter((line) => /^(auth|refresh)=/.test(line)), [])
  t.same(stateIn(response.body), {
    view: 'login', email: 'ada@example.com', notice: { kind: 'error', text: 'Wrong email or password.' },
    invalid: true, verificationLinkOffered: false, secondFactorChallenge: null
  })
  t.notOk(response.body.includes(PASSWORD), 'the password is not in the page')
})

t.test('an unverified address is refused with the offer of a new link', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(403, { error: 'Please verify your email first.', reason: 'email_not_verified' }))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  const response = await postFormAndFollow(app, { form: 'login', email: 'ada@example.com', password: PASSWORD })
  t.equal(response.statusCode, 403)
  t.match(stateIn(response.body), { email: 'ada@example.com', verificationLinkOffered: true, notice: { text: 'Please verify your email first.' } })
})

t.test('a login whose code is due shows the code step, and the code step\'s post signs in with the browser remembered', async (t) => {
  const answers: Record<string, (request: RecordedRequest, response: ServerResponse) => void> = {
    '/v2/login': jsonAnswer(200, { second_factor: 'code', challenge: 'challenge-1', expires_in: 300 }),
    '/second-factor/verify': jsonAnswer(200, TOKENS, { 'set-cookie': 'second_factor_browser=remembered; Path=/; HttpOnly; Secure; SameSite=Lax' })
  }
  const upstream = await startUpstream(t, (request, response) => answers[request.url]!(request, response))
  const app = await buildEdge(t, { env: { ...ENV, SECOND_FACTOR: 'true' }, accountsUpstream: upstream.url, accountsRoutes: SECOND_FACTOR_TEST_ROUTES })

  const posted = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: 'redirect=%2Fapp' })
  t.equal(posted.statusCode, 303, 'the code step is shown after a redirect: the POST that carried the password leaves no page in history')
  t.equal(posted.headers.location, '/?redirect=%2Fapp', 'to the page\'s own address')
  t.notOk(setCookies(posted).some((line) => /^(auth|refresh)=/.test(line)), 'no token before the code')
  const login = await followFlash(app, posted)
  t.equal(login.statusCode, 200)
  t.same(stateIn(login.body), { view: 'login', email: 'ada@example.com', notice: null, invalid: false, verificationLinkOffered: false, secondFactorChallenge: 'challenge-1' })
  t.same(setCookies(login), ['__Host-threshold-form=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict'], 'the flash is cleared once shown')
  const embedded = JSON.parse(/<script type="application\/json" id="threshold-messages">([^<]*)<\/script>/.exec(login.body)![1]!) as { catalogue: Record<string, string>, laterTextsUrl?: string }
  t.equal(embedded.catalogue['secondFactor.codeHeading'], englishCatalogue['secondFactor.codeHeading'], 'the code step\'s page embeds the second factor\'s texts, which it hydrates with')
  t.equal(embedded.laterTextsUrl, undefined, 'and names no texts to fetch')

  const code = await postForm(app, { form: 'secondFactor', challenge: 'challenge-1', code: '123 456', remember: 'on' }, { query: 'redirect=%2Fapp', headers: { cookie: 'second_factor_browser=old; other=secret' } })
  t.equal(code.statusCode, 303)
  t.equal(code.headers.location, 'https://signin.example.com/app')
  const verify = upstream.requests[1]!
  t.equal(verify.url, '/second-factor/verify')
  t.same(bodyOf(verify), { challenge: 'challenge-1', code: '123456', remember_browser: true }, 'as CodeStep sends it')
  t.equal(verify.headers.cookie, 'second_factor_browser=old', 'only the cookies the page\'s call passes on')
  const cookies = setCookies(code)
  t.ok(cookies.some((line) => line.startsWith('second_factor_browser=remembered')), 'the service\'s remembered-browser cookie reaches the browser')
  t.ok(cookies.some((line) => line.startsWith('auth=auth.token-1')))
  t.ok(cookies.some((line) => line.startsWith('refresh=refresh.token-1')))
})

t.test('the code step sends a recovery code as one, and a refused code shows the step again with its challenge', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'That code is not right.' }))
  const app = await buildEdge(t, { env: { ...ENV, SECOND_FACTOR: 'true', SECOND_FACTOR_REMEMBER_BROWSER: 'false' }, accountsUpstream: upstream.url, accountsRoutes: SECOND_FACTOR_TEST_ROUTES })
  const response = await postForm(app, { form: 'secondFactor', challenge: 'challenge-2', code: 'rc1a-b1cd', remember: 'on' })
  t.same(bodyOf(upstream.requests[0]), { challenge: 'challenge-2', recovery_code: 'rc1a-b1cd', remember_browser: false }, 'no remembering where the edge does not offer it')
  t.equal(response.statusCode, 401)
  t.match(stateIn(response.body), { view: 'login', secondFactorChallenge: 'challenge-2', notice: { kind: 'error', text: 'That code is not right.' } })
})

t.test('a login that requires an enrolment first says it needs scripts', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { second_factor: 'enrol', challenge: 'challenge-3', expires_in: 300 }))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  const response = await postFormAndFollow(app, { form: 'login', email: 'ada@example.com', password: PASSWORD })
  t.equal(response.statusCode, 409)
  t.match(stateIn(response.body), { email: 'ada@example.com', secondFactorChallenge: null, notice: { text: englishCatalogue['server.secondFactorEnrolment'] } })
})

t.test('local-network mode makes no call: it needs scripts, or its host is refused as the page refuses it', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, TOKENS))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  const allowed = await postFormAndFollow(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: 'local_accounts_host=127.0.0.1' })
  t.equal(allowed.statusCode, 409)
  t.match(stateIn(allowed.body), { notice: { text: englishCatalogue['noScript.localNetwork'] } })
  const foreign = await postFormAndFollow(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: 'local_accounts_host=evil.test' })
  t.equal(foreign.statusCode, 400)
  t.match(stateIn(foreign.body), { notice: { text: 'This local accounts host is not allowed for this page.' } })
  const register = await postForm(app, { form: 'register', email: 'ada@example.com', password: PASSWORD }, { query: 'view=register&local_accounts_host=127.0.0.1' })
  t.match(stateIn(register.body), { view: 'register', notice: { text: ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED } })
  t.equal(upstream.requests.length, 0)
})

t.test('an answer with tokens that are not both there is no sign-in', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'only-auth' }))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  const response = await postFormAndFollow(app, { form: 'login', email: 'ada@example.com', password: PASSWORD })
  t.equal(response.statusCode, 502)
  t.same(setCookies(response).filter((line) => /^(auth|refresh)=/.test(line)), [])
  // The edge finds it unreadable before the page's parser does: an auth token whose refresh token it cannot keep.
  t.match(stateIn(response.body), { email: 'ada@example.com', notice: { text: ACCOUNTS_FAILURE_MESSAGES.unreadable } })
})

t.test('a form post is logged as the page\'s call is: one line for the post and one for its call, with no password, email, token or query', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, TOKENS))
  const { lines, logger } = captureLog()
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url, logger })
  const response = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: 'redirect=%2Fapp&token=reset-secret' })
  t.equal(response.statusCode, 303)
  const completed = lines.filter((line) => line.msg === 'request completed').map((line) => [(line.req as { method: string, url: string }).method, (line.req as { url: string }).url, (line.res as { statusCode: number }).statusCode])
  t.same(completed, [['POST', '/accounts/v2/login', 200], ['POST', '/', 303]])
  const text = JSON.stringify(lines)
  for (const secret of [PASSWORD, 'ada@example.com', TOKENS.auth, TOKENS.refresh, 'reset-secret']) t.notOk(text.includes(secret), 'nothing a visitor sent or received is logged')

  // A refusal re-rendered (the page written on the raw response) is logged with its own status.
  const refusing = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
  const refusedLog = captureLog()
  const refusingApp = await buildEdge(t, { env: ENV, accountsUpstream: refusing.url, logger: refusedLog.logger })
  t.equal((await postFormAndFollow(refusingApp, { form: 'login', email: 'ada@example.com', password: PASSWORD })).statusCode, 401)
  t.same(refusedLog.lines.filter((line) => line.msg === 'request completed').map((line) => [(line.req as { method: string }).method, (line.res as { statusCode: number }).statusCode]),
    [['POST', 401], ['POST', 303], ['GET', 401]])
})

t.test('the fallback of a refused redirect target is PUBLIC_URL\'s origin when set', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, TOKENS))
  const app = await buildEdge(t, { env: { ...ENV, PUBLIC_URL: 'https://signin.example.com:8443' }, accountsUpstream: upstream.url })
  const response = await postForm(app, { form: 'login', email: 'ada@example.com', password: PASSWORD }, { query: `redirect=${encodeURIComponent('https://evil.test/')}`, headers: { 'x-forwarded-proto': 'http' } })
  t.equal(response.headers.location, 'https://signin.example.com:8443/', 'PUBLIC_URL\'s origin, not the scheme and Host the request states')
})
