import t from 'tap'
import { ERROR_MESSAGES } from '../../../../common/languages/error-messages.js'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import { ACCOUNTS_FAILURE_MESSAGES } from '../../../../server/edge/upstream/accounts-proxy.js'
import { buildEdge, captureLog, DEAD_UPSTREAM, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'
import { startEdgeAuthResponder } from '../../../fixtures/domain-check/edge-auth.js'
import { followFlash, formBody, PAGE_POST_HEADERS, stateIn, postForm, postFormAndFollow } from '../../../fixtures/no-script/form-page.js'

const ENV = { TRUST_PROXY: 'loopback' }
const PASSWORD = 'a password never shown'
const LOGIN = { form: 'login', email: 'ada@example.com', password: PASSWORD }

t.test('a form posted from another site is refused as the page\'s JSON calls are, and nothing is called', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'a', refresh: 'r' }))
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url })
  // The attack: a page on evil.test auto-submits a login form (or a register, a reset) to the sign-in page.
  const attacks: Array<Record<string, string>> = [
    { 'sec-fetch-site': 'cross-site', origin: 'https://evil.test' },
    { 'sec-fetch-site': 'same-site', origin: 'https://app.example.com' },
    { 'sec-fetch-site': '', origin: 'https://evil.test' }
  ]
  for (const headers of attacks) {
    const response = await postForm(app, formBody(LOGIN), { headers })
    t.equal(response.statusCode, 403, JSON.stringify(headers))
    t.match(stateIn(response.body), { notice: { kind: 'error', text: 'Cross-site requests are not allowed.' }, email: '' })
  }
  const { 'sec-fetch-site': _site, ...withoutFetchMetadata } = PAGE_POST_HEADERS
  const oldBrowser = await app.inject({ method: 'POST', url: '/', headers: { ...withoutFetchMetadata, origin: 'https://evil.test' }, payload: formBody(LOGIN) })
  t.equal(oldBrowser.statusCode, 403, 'without Sec-Fetch-Site, the Origin decides')
  t.equal(upstream.requests.length, 0)
})

t.test('bodies that are not a small URL-encoded form of the page are refused with a page that says why', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'a', refresh: 'r' }))
  const { lines, logger } = captureLog()
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url, logger })
  const cases: Array<[string, string | Buffer, Record<string, string>, number, string]> = [
    ['JSON', JSON.stringify(LOGIN), { 'content-type': 'application/json' }, 415, englishCatalogue['server.formType']],
    ['multipart', 'x', { 'content-type': 'multipart/form-data; boundary=x' }, 415, englishCatalogue['server.formType']],
    ['text/plain', formBody(LOGIN), { 'content-type': 'text/plain' }, 415, englishCatalogue['server.formType']],
    ['over 16 KiB', formBody({ ...LOGIN, email: 'a'.repeat(17 * 1024) }), {}, 413, englishCatalogue['server.formTooLarge']],
    ['not UTF-8', Buffer.concat([Buffer.from('form=login&email='), Buffer.from([0xff, 0xfe]), Buffer.from('&password=x')]), {}, 400, englishCatalogue['server.formUnreadable']],
    ['a repeated field', formBody([['form', 'login'], ['email', 'ada@example.com'], ['email', 'eve@example.com'], ['password', PASSWORD]]), {}, 400, englishCatalogue['server.formUnreadable']],
    ['a repeated form', formBody([['form', 'login'], ['form', 'register'], ['email', 'ada@example.com'], ['password', PASSWORD]]), {}, 400, englishCatalogue['server.formUnreadable']],
    ['a missing field', formBody({ form: 'login', email: 'ada@example.com' }), {}, 400, englishCatalogue['server.formUnreadable']],
    ['no form field', formBody({ email: 'ada@example.com', password: PASSWORD }), {}, 400, englishCatalogue['server.formUnreadable']],
    ['an unknown form', formBody({ form: 'constructor', email: 'ada@example.com' }), {}, 400, englishCatalogue['server.formUnreadable']],
    ['an empty body', '', {}, 400, englishCatalogue['server.formUnreadable']]
  ]
  for (const [name, payload, headers, status, text] of cases) {
    const response = await postForm(app, payload, { headers, query: 'view=register' })
    t.equal(response.statusCode, status, name)
    t.match(stateIn(response.body), { view: 'register', notice: { kind: 'error', text } }, name)
  }
  t.equal(upstream.requests.length, 0)
  const reasons = lines.filter((line) => line.msg === 'form post refused: form unreadable').map((line) => line.reason)
  t.same(reasons, ['not UTF-8', 'field "email" repeated', 'field "form" repeated', 'field "password" missing', 'field "form" missing', 'unknown form', 'field "form" missing'])
  t.notOk(JSON.stringify(lines).includes(PASSWORD), 'no password in the log')
})

t.test('a form post counts against the visitor\'s rate limit of the JSON call it makes, and the limit\'s text is shown', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
  const app = await buildEdge(t, { env: { ...ENV, RATE_LIMIT_PER_MINUTE: '3' }, accountsUpstream: upstream.url })
  // One JSON call from the page and two form posts use up the visitor's three.
  const json = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...PAGE_POST_HEADERS, 'content-type': 'application/json' }, payload: JSON.stringify({ email: 'ada@example.com', password: 'x' }) })
  t.equal(json.statusCode, 401)
  // Each post its own (another password): the same post again within 10 s is answered as the first, without a call (server/edge/no-script/repeated-posts.ts).
  for (let attempt = 0; attempt < 2; attempt++) t.equal((await postFormAndFollow(app, formBody({ ...LOGIN, password: `${PASSWORD} ${attempt}` }))).statusCode, 401)
  const limitedPost = await postForm(app, formBody(LOGIN))
  t.ok(limitedPost.headers['retry-after'], 'Retry-After passed on')
  const limited = await followFlash(app, limitedPost)
  t.equal(limited.statusCode, 429)
  t.match(stateIn(limited.body), { email: 'ada@example.com', notice: { kind: 'error', text: /^Too many requests\. Please wait \d+ seconds and try again\.$/ } })
  const otherVisitor = await postFormAndFollow(app, formBody(LOGIN), { headers: { 'x-forwarded-for': '198.51.100.20' } })
  t.equal(otherVisitor.statusCode, 401, 'another visitor\'s posts are counted apart')
  t.equal(upstream.requests.length, 4)
})

t.test('an accounts service down, slow or answering garbage: the failure text re-rendered, email kept, password absent', async (t) => {
  const slow = await startUpstream(t, () => { /* never answers */ })
  const garbage = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<html>Oops</html>')
  })
  const cases: Array<[string, string, number, string]> = [
    ['down', DEAD_UPSTREAM, 503, ACCOUNTS_FAILURE_MESSAGES.unavailable],
    ['slow', slow.url, 504, ACCOUNTS_FAILURE_MESSAGES.timeout],
    ['garbage', garbage.url, 502, ACCOUNTS_FAILURE_MESSAGES.unreadable]
  ]
  for (const [name, upstream, status, text] of cases) {
    const app = await buildEdge(t, { env: { ...ENV, UPSTREAM_TIMEOUT_MS: '300' }, accountsUpstream: upstream })
    for (const form of [LOGIN, { form: 'register', email: 'ada@example.com', password: PASSWORD, confirm_password: PASSWORD }]) {
      const options = { query: form.form === 'register' ? 'view=register' : '' }
      const response = form.form === 'login' ? await postFormAndFollow(app, formBody(form), options) : await postForm(app, formBody(form), options)
      t.equal(response.statusCode, status, `${name}: ${form.form}`)
      t.match(stateIn(response.body), { view: form.form, email: 'ada@example.com', notice: { kind: 'error', text }, invalid: true })
      t.notOk(response.body.includes(PASSWORD))
    }
  }
})

t.test('the domain check runs first when the address asks for it, and refuses as the page does', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'a', refresh: 'r', sso_url: 'https://idp.example.com/sso' }))
  const edgeAuth = await startEdgeAuthResponder(t, { authorized: ['example.com'], unauthorized: ['blocked.test'] })
  const app = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url, edgeAuthUpstream: edgeAuth })
  const query = 'supports_domain_auth_check=true'

  const blocked = await postFormAndFollow(app, formBody({ ...LOGIN, email: 'eve@blocked.test' }), { query })
  t.equal(blocked.statusCode, 403)
  t.match(stateIn(blocked.body), { email: 'eve@blocked.test', notice: { text: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED } })
  const blockedSso = await postForm(app, formBody({ form: 'sso', email: 'eve@blocked.test' }), { query: `${query}&view=register` })
  t.equal(blockedSso.statusCode, 403)
  t.match(stateIn(blockedSso.body), { view: 'register', notice: { text: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED } })
  t.equal(upstream.requests.length, 0, 'a refused login reaches no accounts service')

  const allowed = await postForm(app, formBody(LOGIN), { query })
  t.equal(allowed.statusCode, 303)
  const unchecked = await postForm(app, formBody({ ...LOGIN, email: 'eve@blocked.test' }))
  t.equal(unchecked.statusCode, 303, 'without the parameter, no check (as on the page)')

  const down = await buildEdge(t, { env: ENV, accountsUpstream: upstream.url, edgeAuthUpstream: DEAD_UPSTREAM })
  const failed = await postFormAndFollow(down, formBody(LOGIN), { query })
  t.equal(failed.statusCode, 503)
  t.match(stateIn(failed.body), { notice: { text: ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED } })
})

t.test('the domain check gives up at DOMAIN_CHECK_TIMEOUT_MS, as the page does', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'a', refresh: 'r' }))
  const slowCheck = await startUpstream(t, () => { /* never answers */ })
  const app = await buildEdge(t, { env: { ...ENV, DOMAIN_CHECK_TIMEOUT_MS: '200', UPSTREAM_TIMEOUT_MS: '5000' }, accountsUpstream: upstream.url, edgeAuthUpstream: slowCheck.url })
  const started = Date.now()
  const response = await postFormAndFollow(app, formBody(LOGIN), { query: 'supports_domain_auth_check=true' })
  t.ok(Date.now() - started < 2000, 'answered well before the upstream timeout')
  t.equal(response.statusCode, 503)
  t.match(stateIn(response.body), { notice: { text: ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED } })
  t.equal(upstream.requests.length, 0)
})

