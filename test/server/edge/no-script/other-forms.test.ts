import t, { type Test } from 'tap'
import { ERROR_MESSAGES } from '../../../../common/languages/error-messages.js'
import { SUCCESS_MESSAGES } from '../../../../common/languages/page-texts.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { buildEdge, captureLog, jsonAnswer, startUpstream, type RecordedRequest, startEdgeWithUpstream } from '../../../fixtures/servers/edge.js'
import { stateIn, postForm } from '../../../fixtures/no-script/form-page.js'

const ENV = { TRUST_PROXY: 'loopback' }
const PASSWORD = 'a new password, long enough'

const bodyOf = (request: RecordedRequest | undefined): unknown => JSON.parse(request?.body.toString('utf8') ?? 'null')

async function edgeAnswering (t: Test, answer: Parameters<typeof startUpstream>[1]) {
  return await startEdgeWithUpstream(t, answer, { env: ENV, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES, passwordResetCompletion: true })
}

t.test('a registration sends the register view\'s fields and ends on the login view with the success text and the email kept', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, {}))
  const response = await postForm(app, { form: 'register', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', password: PASSWORD, confirm_password: PASSWORD }, { query: 'view=register' })
  t.equal(upstream.requests[0]!.url, '/register')
  t.same(bodyOf(upstream.requests[0]), { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', password: PASSWORD, confirm_password: PASSWORD }, 'as useRegister sends it')
  t.equal(response.statusCode, 200)
  t.same(stateIn(response.body), {
    view: 'login', email: 'ada@example.com', notice: { kind: 'success', text: SUCCESS_MESSAGES.REGISTERED },
    invalid: false, verificationLinkOffered: false, secondFactorChallenge: null
  })
  t.notOk(response.body.includes(PASSWORD))
})

t.test('a registration without the optional names sends them empty, as the page does; a refusal stays on the register view', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(409, { error: 'This email is already registered.' }))
  const response = await postForm(app, { form: 'register', email: 'ada@example.com', password: PASSWORD }, { query: 'view=register' })
  t.same(bodyOf(upstream.requests[0]), { first_name: '', last_name: '', email: 'ada@example.com', password: PASSWORD, confirm_password: '' })
  t.equal(response.statusCode, 409)
  t.match(stateIn(response.body), { view: 'register', email: 'ada@example.com', invalid: true, notice: { kind: 'error', text: 'This email is already registered.' } })
})

t.test('a reset request ends on the login view with the service\'s own success text, or the page\'s', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, { success: 'Check your inbox.' }))
  const response = await postForm(app, { form: 'resetPassword', email: 'ada@example.com' }, { query: 'view=resetPassword' })
  t.equal(upstream.requests[0]!.url, '/resetPasswordRequest')
  t.same(bodyOf(upstream.requests[0]), { email: 'ada@example.com' })
  t.match(stateIn(response.body), { view: 'login', email: 'ada@example.com', notice: { kind: 'success', text: 'Check your inbox.' } })

  const quiet = await edgeAnswering(t, jsonAnswer(200, {}))
  const defaulted = await postForm(quiet.app, { form: 'resetPassword', email: 'ada@example.com' }, { query: 'view=resetPassword' })
  t.match(stateIn(defaulted.body), { notice: { text: SUCCESS_MESSAGES.RESET_REQUESTED } })
})

t.test('setting a password sends the address\'s token with the new password', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, {}))
  const response = await postForm(app, { form: 'setPassword', password: PASSWORD, confirm_password: PASSWORD }, { query: 'view=setPassword&token=reset-token-1' })
  t.equal(upstream.requests[0]!.url, '/resetPassword')
  t.same(bodyOf(upstream.requests[0]), { token: 'reset-token-1', password: PASSWORD, confirm_password: PASSWORD }, 'as useSetPassword sends it')
  t.equal(response.statusCode, 200)
  t.match(stateIn(response.body), { view: 'login', notice: { kind: 'success', text: SUCCESS_MESSAGES.PASSWORD_SET } })

  const refused = await edgeAnswering(t, jsonAnswer(400, { error: 'This link has expired.' }))
  const expired = await postForm(refused.app, { form: 'setPassword', password: PASSWORD, confirm_password: PASSWORD }, { query: 'view=setPassword&token=old' })
  t.equal(expired.statusCode, 400)
  t.match(stateIn(expired.body), { view: 'setPassword', notice: { kind: 'error', text: 'This link has expired.' } })
})

t.test('a password set without scripts says what was added lately and how to remove it, in the success text, without the review token', async (t) => {
  const review = 'r'.repeat(43)
  const { app } = await edgeAnswering(t, jsonAnswer(200, {
    success: 'Your password has been changed.',
    recent_factors: {
      passkeys: [{ id: 'cGFzc2tleS0x', name: 'Chrome on Windows', created_at: '2026-11-18T10:00:00.000Z' }],
      second_factor: { enrolled_at: '2026-11-20T23:30:00.000Z' }
    },
    review_token: review
  }))
  const response = await postForm(app, { form: 'setPassword', password: PASSWORD, confirm_password: PASSWORD }, { query: 'view=setPassword&token=reset-token-1' })
  t.equal(response.statusCode, 200)
  t.match(stateIn(response.body), {
    view: 'login',
    notice: {
      kind: 'success',
      text: 'Your password has been changed. Added to your account in the last 30 days: the passkey “Chrome on Windows” (November 18, 2026) and ' +
        'an authenticator app (November 20, 2026). If you did not add them yourself, turn on JavaScript and ask for a new reset link: the page that follows can remove them.'
    }
  })
  t.notOk(response.body.includes(review), 'the page holds no review token: nothing on it can use one')
})

t.test('a new verification link: sent ends the offer, refused keeps it', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, {}))
  const sent = await postForm(app, { form: 'verificationLink', email: 'ada@example.com' })
  t.equal(upstream.requests[0]!.url, '/verifyEmailRequest')
  t.same(bodyOf(upstream.requests[0]), { email: 'ada@example.com' })
  t.match(stateIn(sent.body), { view: 'login', email: 'ada@example.com', verificationLinkOffered: false, notice: { kind: 'success', text: SUCCESS_MESSAGES.VERIFICATION_LINK_SENT } })

  const limited = await edgeAnswering(t, jsonAnswer(429, { error: 'Please wait before asking again.' }))
  const refused = await postForm(limited.app, { form: 'verificationLink', email: 'ada@example.com' })
  t.equal(refused.statusCode, 429)
  t.match(stateIn(refused.body), { verificationLinkOffered: true, notice: { kind: 'error', text: 'Please wait before asking again.' } })
})

t.test('a double click: two identical register posts at once make one call, and both are answered with its success', async (t) => {
  const { upstream, app } = await edgeAnswering(t, (request, response) => { setTimeout(() => jsonAnswer(200, {}, { 'set-cookie': 'seen=1; Path=/; Secure' })(request, response), 200) })
  const fields = { form: 'register', email: 'ada@example.com', password: PASSWORD, confirm_password: PASSWORD }
  const [first, second] = await Promise.all([postForm(app, fields, { query: 'view=register' }), postForm(app, fields, { query: 'view=register' })])
  t.equal(upstream.requests.length, 1, 'one registration reached the service')
  for (const response of [first, second]) {
    t.equal(response.statusCode, 200)
    t.match(stateIn(response.body), { view: 'login', email: 'ada@example.com', notice: { kind: 'success', text: SUCCESS_MESSAGES.REGISTERED } })
    t.match(response.headers['set-cookie'], /^seen=1/, 'the service\'s cookie on both answers')
  }
  const later = await postForm(app, fields, { query: 'view=register' })
  t.equal(later.statusCode, 200)
  t.equal(upstream.requests.length, 1, 'a repeat just after is answered the same, without a call')
  await postForm(app, fields, { query: 'view=register', headers: { 'x-forwarded-for': '198.51.100.20' } })
  await postForm(app, { ...fields, email: 'bob@example.com' }, { query: 'view=register' })
  t.equal(upstream.requests.length, 3, 'another visitor, or another body, is a post of its own')
})

t.test('an SSO start sends the page\'s payload and goes on to the identity provider by a page (meta refresh and link), with the service\'s state cookie', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, { sso_url: 'https://idp.example.com/sso?request=1&next="><script>x</script>' }, { 'set-cookie': 'sso_state=state-1; Path=/accounts; HttpOnly; Secure; SameSite=Lax' }))
  const response = await postForm(app, { form: 'sso', email: 'ada@corp.example' }, { query: 'view=register&redirect=%2Fapp&allowed_org=acme&resource_type=cluster&cluster_name=east', headers: { cookie: 'sso_state=old; unrelated=1' } })
  t.equal(upstream.requests[0]!.url, '/auth/login/sso')
  t.same(bodyOf(upstream.requests[0]), {
    email: 'ada@corp.example', source: 'register', redirect: '/app',
    insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'east'
  }, 'as useSsoStart sends it')
  t.equal(upstream.requests[0]!.headers.cookie, 'sso_state=old')
  t.equal(response.statusCode, 200, 'not a 303: form-action names only where a login may lead')
  t.equal(response.headers.location, undefined)
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.headers['content-type'], /^text\/html/)
  const target = 'https://idp.example.com/sso?request=1&#38;next=%22%3E%3Cscript%3Ex%3C/script%3E'
  t.ok(response.body.includes(`<meta http-equiv="refresh" content="0;url=${target}">`), 'the meta refresh, escaped')
  t.ok(response.body.includes(`<a href="${target}">Continue to your identity provider</a>`), 'the link, escaped')
  t.notOk(response.body.includes('<script'), 'nothing the answer said runs')
  t.match(response.headers['content-security-policy'], /form-action 'self'(;|$)/)
  t.match(response.headers['set-cookie'], /^sso_state=state-1; /)
})

t.test('an SSO start to a provider over http is refused, but for loopback', async (t) => {
  for (const ssoUrl of ['http://idp.example.com/sso', 'http://10.0.0.5/sso']) {
    const { app } = await edgeAnswering(t, jsonAnswer(200, { sso_url: ssoUrl }))
    const response = await postForm(app, { form: 'sso', email: 'ada@corp.example' })
    t.equal(response.statusCode, 502, ssoUrl)
    t.match(stateIn(response.body), { notice: { text: ERROR_MESSAGES.GENERIC } })
  }
  for (const ssoUrl of ['http://localhost:9000/sso', 'http://127.0.0.1:9000/sso', 'http://[::1]:9000/sso']) {
    const { app } = await edgeAnswering(t, jsonAnswer(200, { sso_url: ssoUrl }))
    const response = await postForm(app, { form: 'sso', email: 'ada@corp.example' })
    t.equal(response.statusCode, 200, ssoUrl)
    t.ok(response.body.includes(`url=${ssoUrl}"`), `${ssoUrl}: followed`)
  }
})

t.test('an SSO start whose answer is no safe http(s) address, or a refusal, stays on the view with the message', async (t) => {
  for (const ssoUrl of ['javascript:alert(1)', 'data:text/html,x', 'https://user:pw@idp.example.com/', '/relative']) {
    const { app } = await edgeAnswering(t, jsonAnswer(200, { sso_url: ssoUrl }))
    const response = await postForm(app, { form: 'sso', email: 'ada@corp.example' })
    t.equal(response.statusCode, 502, ssoUrl)
    t.equal(response.headers.location, undefined)
    t.match(stateIn(response.body), { view: 'login', email: 'ada@corp.example', notice: { text: ERROR_MESSAGES.GENERIC } })
  }
  const { app } = await edgeAnswering(t, jsonAnswer(404, { error: 'No identity provider for this email.' }))
  const unknown = await postForm(app, { form: 'sso', email: 'ada@nowhere.example' })
  t.equal(unknown.statusCode, 404)
  t.match(stateIn(unknown.body), { notice: { text: 'No identity provider for this email.' } })
})

t.test('a render that throws answering a form post is logged as a warning with the request id, never the query; the page still goes out', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const { lines, logger } = captureLog()
  const app = await buildEdge(t, {
    env: ENV, accountsUpstream: upstream.url, logger,
    pageRenderer: () => ({ render () { throw new Error('renderer bug') } })
  })
  const response = await postForm(app, { form: 'resetPassword', email: 'ada@example.com' }, { query: 'view=resetPassword&token=query-secret' })
  t.equal(response.statusCode, 200)
  t.match(stateIn(response.body), { notice: { kind: 'success' } }, 'the state is embedded for the scripts to render')
  const warnings = lines.filter((line) => line.msg === 'form post page render failed')
  t.equal(warnings.length, 1)
  t.equal(warnings[0]!.level, 40)
  t.type(warnings[0]!.reqId, 'string')
  t.notOk(JSON.stringify(lines).includes('query-secret'), 'no query in the log')
})
