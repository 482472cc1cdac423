import t, { type Test } from 'tap'
import { ERROR_MESSAGES } from '../../../../common/languages/error-messages.js'
import { MESSAGES_ELEMENT_ID } from '../../../../common/languages/message-catalogue.js'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import { KNOWN_BROWSER_COOKIE } from '../../../../server/edge/known-browsers/known-browser.js'
import {
  EMAIL_CODE_BROWSER_COOKIE, emailCodeStandIn, STAND_IN_CODE, STAND_IN_SENT, STAND_IN_TOKENS
} from '../../../fixtures/email-codes/email-code-stand-in.js'
import { followFlash, postForm, postFormAndFollow, stateIn } from '../../../fixtures/no-script/form-page.js'
import { startEdgeWithUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'

/*
 * The emailed code without scripts (docs/no-script.md): `email-code-request`
 * and `email-code` posted to the real edge, whose inner calls reach a
 * stand-in accounts service on a loopback port.
 */

const ENV = { TRUST_PROXY: 'loopback', REDIRECT_ALLOWED_HOSTS: 'partner.test' }
const ADA = 'ada@example.com'

async function edgeWith (t: Test, env: Record<string, string> = {}) {
  const standIn = emailCodeStandIn()
  const { app, upstream } = await startEdgeWithUpstream(t, standIn.handler, { env: { ...ENV, ...env } })
  return { app, upstream, standIn }
}

function setCookies (response: { headers: Record<string, unknown> }): string[] {
  const value = response.headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value as string[] : [value as string]
}

const bodyOf = (request: RecordedRequest | undefined): unknown => JSON.parse(request?.body.toString('utf8') ?? 'null')

/** The texts a page embeds for its scripts (MESSAGES_ELEMENT_ID), as JSON text. */
function embeddedTexts (html: string): string {
  return new RegExp(`<script type="application/json" id="${MESSAGES_ELEMENT_ID}">(.*?)</script>`, 's').exec(html)?.[1] ?? ''
}

t.test('asking for a code sends the address, passes the browser\'s binding back and opens the code step with the service\'s text and the step\'s texts', async (t) => {
  const { app, upstream, standIn } = await edgeWith(t)
  const response = await postForm(app, { form: 'email-code-request', email: ADA }, { headers: { cookie: 'tracking=someone-else' } })
  t.equal(response.statusCode, 200, 'answered at once: the request carries no secret to keep out of the history')
  t.equal(upstream.requests[0]?.url, '/email-code/send')
  t.same(bodyOf(upstream.requests[0]), { email: ADA }, 'as the page\'s request step sends it')
  t.equal(upstream.requests[0]?.headers.cookie, undefined, 'none of the browser\'s other cookies go up')
  t.ok(setCookies(response).some((line) => line.startsWith(`${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!};`)), 'the binding is set in the visitor\'s browser')
  t.same(stateIn(response.body), {
    view: 'login', email: ADA, emailCodeSent: true, notice: { kind: 'success', text: STAND_IN_SENT },
    invalid: false, verificationLinkOffered: false, secondFactorChallenge: null
  })
  const texts = embeddedTexts(response.body)
  t.ok(texts.includes('"emailCode.codeHeading"') && texts.includes('"emailCode.resend"'), 'the code step\'s texts come with the page, as the second factor\'s do')
  t.notOk(embeddedTexts((await app.inject({ method: 'GET', url: '/', headers: { host: 'signin.example.com' } })).body).includes('"emailCode.codeHeading"'), 'and not with the plain page')
  // The page renders its code step from PageFormState.emailCodeSent (client/email-codes/CodeStep.tsx).
  t.match(response.body, /name="form" value="email-code"/, 'the rendered code step is a form named email-code')
})

t.test('the code signs in as the login form does: the binding goes up, the code made comparable, the login context sent, the token cookies set, then the redirect', async (t) => {
  const { app, upstream, standIn } = await edgeWith(t)
  await postForm(app, { form: 'email-code-request', email: ADA })
  const binding = `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!}`
  const response = await postForm(app, { form: 'email-code', email: ADA, code: ' abcd-2345 ' },
    { query: 'redirect=https%3A%2F%2Fpartner.test%2Fhome&allowed_org=one&resource_type=cluster&cluster_name=east', headers: { cookie: `${binding}; tracking=x` } })
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, 'https://partner.test/home')
  const sent = upstream.requests.at(-1)
  t.equal(sent?.url, '/email-code/login')
  t.equal(sent?.headers.cookie, binding, 'the browser\'s binding, and nothing else')
  t.same(bodyOf(sent), { email: ADA, code: STAND_IN_CODE, insecure_allowed_orgs: ['one'], resource_type: 'cluster', cluster_name: 'east' })
  const cookies = setCookies(response)
  t.ok(cookies.some((line) => line.startsWith(`auth=${STAND_IN_TOKENS.auth};`)))
  t.ok(cookies.some((line) => line.startsWith(`refresh=${STAND_IN_TOKENS.refresh};`) && line.includes('HttpOnly')))
  t.ok(cookies.some((line) => line.startsWith(`${KNOWN_BROWSER_COOKIE}=`)), 'the browser is noted as one that signed in, as after a login')
  t.notOk(response.body.includes(STAND_IN_TOKENS.refresh))
})

t.test('a wrong code shows the code step again after the redirect, the address kept, the code never written back', async (t) => {
  const { app, standIn } = await edgeWith(t)
  await postForm(app, { form: 'email-code-request', email: ADA })
  const posted = await postForm(app, { form: 'email-code', email: ADA, code: 'WXYZ2345' }, { headers: { cookie: `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!}` } })
  t.equal(posted.statusCode, 303, 'post/redirect/get: the code is not kept in the history as a post')
  const response = await followFlash(app, posted)
  t.equal(response.statusCode, 401)
  t.match(stateIn(response.body), { view: 'login', email: ADA, emailCodeSent: true, invalid: true, notice: { kind: 'error', text: 'That code is not right.' } })
  t.notOk(response.body.includes('WXYZ2345'))
  t.ok(embeddedTexts(response.body).includes('"emailCode.codeHeading"'), 'the step\'s texts again')
})

t.test('attack: a code posted from a browser that did not ask for it is refused by the service\'s binding', async (t) => {
  const { app } = await edgeWith(t)
  await postForm(app, { form: 'email-code-request', email: ADA })
  const response = await postFormAndFollow(app, { form: 'email-code', email: ADA, code: STAND_IN_CODE }, { headers: { 'x-forwarded-for': '198.51.100.4' } })
  t.equal(response.statusCode, 401)
  t.match(stateIn(response.body), { emailCodeSent: true, notice: { text: 'This code was asked for in another browser.' } })
  t.notOk(setCookies(response).some((line) => line.startsWith('refresh=')))
})

t.test('what cannot be a code is refused before any call, so no try is counted', async (t) => {
  const { app, upstream } = await edgeWith(t)
  for (const code of ['', 'ABCD234', 'ABCD-23450', 'ABCD-OIL1']) {
    const response = await postFormAndFollow(app, { form: 'email-code', email: ADA, code })
    t.equal(response.statusCode, 400, JSON.stringify(code))
    t.match(stateIn(response.body), { emailCodeSent: true, email: ADA, notice: { text: englishCatalogue['emailCode.codeIncomplete'] } })
  }
  t.equal(upstream.requests.length, 0)
})

t.test('a second factor due after the code shows its code step; the emailed code is one factor', async (t) => {
  const { app, standIn } = await edgeWith(t)
  standIn.answer = 'second-factor'
  await postForm(app, { form: 'email-code-request', email: ADA })
  const response = await postFormAndFollow(app, { form: 'email-code', email: ADA, code: STAND_IN_CODE }, { headers: { cookie: `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!}` } })
  t.equal(response.statusCode, 200)
  t.match(stateIn(response.body), { view: 'login', email: ADA, secondFactorChallenge: 'challenge-from-code' })
  t.notOk(setCookies(response).some((line) => line.startsWith('refresh=')), 'no tokens yet')
})

t.test('login_method is respected: a form for the code where the address does not offer it is refused without a call', async (t) => {
  const { app, upstream } = await edgeWith(t)
  for (const query of ['login_method=GOOGLE', 'login_method=THRESHOLD', 'login_method=SAML,OIDC']) {
    for (const fields of [{ form: 'email-code-request', email: ADA }, { form: 'email-code', email: ADA, code: STAND_IN_CODE }] as Array<Record<string, string>>) {
      const posted = await postForm(app, fields, { query })
      const response = posted.statusCode === 303 ? await followFlash(app, posted) : posted
      t.equal(response.statusCode, 403, `${fields.form} with ${query}`)
      t.match(stateIn(response.body), { view: 'login', email: ADA, notice: { kind: 'error' } })
    }
  }
  const local = await postForm(app, { form: 'email-code-request', email: ADA }, { query: 'local_accounts_host=127.0.0.1' })
  t.match(stateIn(local.body), { notice: { text: ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED } }, 'local-network mode offers none')
  t.equal(upstream.requests.length, 0)

  for (const query of ['login_method=EMAIL_CODE', 'login_method=google,email_code', 'login_method=SOMETHING_NEW', '']) {
    t.equal((await postForm(app, { form: 'email-code-request', email: `${query.length}@example.com` }, { query })).statusCode, 200, `allowed with "${query}"`)
  }
})

t.test('EMAIL_CODES=false: both forms are refused and nothing is called', async (t) => {
  const { app, upstream } = await edgeWith(t, { EMAIL_CODES: 'false' })
  t.equal((await postForm(app, { form: 'email-code-request', email: ADA })).statusCode, 403)
  t.equal((await postFormAndFollow(app, { form: 'email-code', email: ADA, code: STAND_IN_CODE })).statusCode, 403)
  t.equal(upstream.requests.length, 0)
})

t.test('a double click sends one code; "Send a new code" later sends another', async (t) => {
  const { app, upstream, standIn } = await edgeWith(t)
  const [first, second] = await Promise.all([
    postForm(app, { form: 'email-code-request', email: ADA }),
    postForm(app, { form: 'email-code-request', email: ADA })
  ])
  t.equal(upstream.requests.length, 1, 'one send')
  t.equal(second.statusCode, first.statusCode)
  t.ok(setCookies(second).some((line) => line.startsWith(`${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!};`)), 'the repeat carries the same binding')
  // The browser now sends its binding: a new post, a new send.
  await postForm(app, { form: 'email-code-request', email: ADA }, { headers: { cookie: `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!}` } })
  t.equal(upstream.requests.length, 2)
  t.equal(upstream.requests[1]?.headers.cookie, `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!}`, 'with the earlier binding, for the service to void that browser\'s earlier codes')
})

t.test('a refused request shows the login view with the service\'s text and its status, Retry-After passed on', async (t) => {
  const { app } = await startEdgeWithUpstream(t, (_request, response) => {
    const text = JSON.stringify({ error: 'Too many codes asked for. Try again in an hour.', retry_after: 3600 })
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' }).end(text)
  }, { env: ENV })
  const response = await postForm(app, { form: 'email-code-request', email: ADA })
  t.equal(response.statusCode, 429)
  t.equal(response.headers['retry-after'], '3600')
  const state = stateIn(response.body)
  t.match(state, { view: 'login', email: ADA, invalid: true, notice: { kind: 'error', text: 'Too many codes asked for. Try again in an hour.' } })
  t.equal(state.emailCodeSent, undefined, 'no code step')
})

t.test('attack on the logs: no line holds a code, the address, the binding or a token, whatever the outcome', async (t) => {
  const standIn = emailCodeStandIn()
  const { app, lines } = await startEdgeWithUpstream(t, standIn.handler, { env: ENV, logged: true })
  await postForm(app, { form: 'email-code-request', email: ADA })
  const binding = `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings[0]!}`
  await postForm(app, { form: 'email-code', email: ADA, code: 'WXYZ-2345' }, { headers: { cookie: binding } })
  await postForm(app, { form: 'email-code', email: ADA, code: 'nope' })
  await postForm(app, { form: 'email-code', email: ADA, code: STAND_IN_CODE }, { headers: { cookie: binding } })
  const logged = JSON.stringify(lines)
  t.ok(lines.length > 0, 'the posts were logged')
  for (const secret of [ADA, 'WXYZ', 'ABCD2345', standIn.bindings[0]!, STAND_IN_TOKENS.auth, STAND_IN_TOKENS.refresh]) t.notOk(logged.includes(secret), `${secret.slice(0, 4)}…: nowhere in the log`)
})
