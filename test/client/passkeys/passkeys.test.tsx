import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { PASSKEY_OFFER_DECLINED_KEY, passkeyTimings } from '../../../client/passkeys/passkey-timing.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { PASSKEY_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import { jsonAnswer, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { startEdgeAuthResponder } from '../../fixtures/domain-check/edge-auth.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { installStandInBrowser, standInCredential, type StandInOptions } from '../../fixtures/passkeys/webauthn-browser.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

const RP_ID = 'localhost'
const PASSKEYS_ON = { passkeyRpId: RP_ID }
const requestOptions = { challenge: 'Y2hhbGxlbmdl', rpId: RP_ID, userVerification: 'required', allowCredentials: [] }
const creationOptions = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { id: RP_ID, name: 'Threshold' },
  user: { id: 'dXNlcg', name: 'ada@example.test', displayName: 'Ada' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  excludeCredentials: [{ type: 'public-key', id: 'Y3JlZC0x' }]
}
const assertion = { id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA', userHandle: 'dXNlcg' } }
const attestation = { id: 'cred-2', rawId: 'cred-2', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' } }
const passkeyTokens = { auth: 'eyJ.passkey', refresh: 'refresh-pk', email: 'ada@example.test', name: 'Ada Lovelace', user_id: 'dXNlcg', credential_ids: ['cred-1', 'cred-3'] }

function routes (answers: Record<string, [number, unknown]>) {
  return (request: RecordedRequest, response: ServerResponse) => {
    const [status, body] = answers[request.url.split('?')[0]!] ?? [404, { error: 'Not found.' }]
    jsonAnswer(status, body)(request, response)
  }
}

const DEFAULT_ANSWERS: Record<string, [number, unknown]> = {
  '/passkeys/login/options': [200, { options: requestOptions }],
  '/passkeys/login': [200, passkeyTokens],
  '/passkeys/register/options': [200, { options: creationOptions }],
  '/passkeys/register': [200, { success: 'Passkey saved.' }],
  '/token/revoke': [200, { success: 'Logged out.' }],
  '/v2/login': [200, { auth: 'eyJ.password', refresh: 'refresh-pw' }]
}

async function setUp (t: Test, options: {
  answers?: Record<string, [number, unknown]>, browser?: StandInOptions, edgeAuthUpstream?: string
} = {}) {
  const browser = installStandInBrowser(t, options.browser)
  const { base, upstream } = await startBackend(t, routes({ ...DEFAULT_ANSWERS, ...options.answers }), {
    accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES),
    ...(options.edgeAuthUpstream === undefined ? {} : { edgeAuthUpstream: options.edgeAuthUpstream })
  })
  localStorage.clear()
  document.cookie = 'auth=; max-age=0; path=/'
  document.cookie = 'refresh=; max-age=0; path=/'
  return { browser, base, upstream }
}

const gets = (browser: ReturnType<typeof installStandInBrowser>) => browser.calls.filter((call) => call.kind === 'get')
const creates = (browser: ReturnType<typeof installStandInBrowser>) => browser.calls.filter((call) => call.kind === 'create')
const paths = (upstream: { requests: RecordedRequest[] }) => upstream.requests.map((request) => request.url)

t.test('passkeys off: no button, and the Email field offers no passkeys', async (t) => {
  const { browser, base } = await setUp(t)
  renderPage(t, base, '', { passkeyRpId: null })
  t.equal(screen.getByLabelText('Email').getAttribute('autocomplete'), 'username')
  t.equal(screen.queryByRole('button', { name: 'Sign in with a passkey' }), null)
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(browser.calls.length, 0, 'no ceremony')
})

t.test('no passkeys in local-network mode, nor when login_method leaves out the product\'s own method', async (t) => {
  const { base } = await setUp(t)
  renderPage(t, base, '?local_accounts_host=127.0.0.1', PASSKEYS_ON)
  t.equal(screen.queryByRole('button', { name: 'Sign in with a passkey' }), null, 'local-network mode')
  t.equal(screen.getByLabelText('Email').getAttribute('autocomplete'), 'username')
})

t.test('passkeys on: the Email field offers them, and the autofill request starts with the login view', async (t) => {
  const { browser, base } = await setUp(t)
  renderPage(t, base, '', PASSKEYS_ON)
  t.equal(screen.getByLabelText('Email').getAttribute('autocomplete'), 'username webauthn')
  t.ok(screen.getByRole('button', { name: 'Sign in with a passkey' }))
  await eventually(t, () => gets(browser).length, 1, 'one conditional request')
  const call = gets(browser)[0]!
  t.equal(call.options.mediation, 'conditional')
  t.equal(call.options.signal?.aborted, false, 'pending')
  t.equal((call.options.publicKey as PublicKeyCredentialRequestOptions).challenge.byteLength, 9, 'the challenge decoded from base64url')
})

t.test('no autofill request where the browser has no conditional mediation', async (t) => {
  const { browser, base } = await setUp(t, { browser: { conditionalMediation: false } })
  renderPage(t, base, '', PASSKEYS_ON)
  await new Promise((resolve) => setTimeout(resolve, 150))
  t.equal(gets(browser).length, 0)
  t.ok(screen.getByRole('button', { name: 'Sign in with a passkey' }), 'the button still works')
})

t.test('typing a password aborts the autofill request', async (t) => {
  const { browser, base } = await setUp(t)
  const { user } = renderPage(t, base, '', PASSKEYS_ON)
  await eventually(t, () => gets(browser).length, 1)
  await user.type(screen.getByLabelText('Password'), 'x')
  t.equal(gets(browser)[0]!.options.signal?.aborted, true)
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(gets(browser).length, 1, 'not started again while the password is there')
})

t.test('switching view aborts the autofill request', async (t) => {
  const { browser, base } = await setUp(t)
  const { user } = renderPage(t, base, '', PASSKEYS_ON)
  await eventually(t, () => gets(browser).length, 1)
  await user.click(screen.getByRole('link', { name: 'Sign Up' }))
  await eventually(t, () => gets(browser)[0]!.options.signal?.aborted, true)
})

t.test('opening the SSO modal aborts the autofill request; closing it starts a new one', async (t) => {
  const { browser, base } = await setUp(t)
  const { user } = renderPage(t, base, '', PASSKEYS_ON)
  await eventually(t, () => gets(browser).length, 1)
  await user.click(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  await eventually(t, () => gets(browser)[0]!.options.signal?.aborted, true)
  await screen.findByRole('dialog')
  await user.keyboard('{Escape}')
  await eventually(t, () => gets(browser).length, 2, 'a new autofill request')
})

t.test('a passkey picked from the autofill menu signs in: the tokens are stored, the password manager told, the page leaves', async (t) => {
  const { browser, base, upstream } = await setUp(t)
  browser.answerGet = (call) => call.options.mediation === 'conditional' ? { credential: standInCredential(assertion) } : 'never'
  renderPage(t, base, '?redirect=%2Fapp&allowed_org=acme&resource_type=cluster&cluster_name=prod', PASSKEYS_ON)
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(upstream, '/passkeys/login'), { credential: assertion, insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod', mediation: 'conditional' })
  t.match(document.cookie, /auth=eyJ\.passkey/)
  t.same(browser.signals, [
    { method: 'signalAllAcceptedCredentials', options: { rpId: RP_ID, userId: 'dXNlcg', allAcceptedCredentialIds: ['cred-1', 'cred-3'] } },
    { method: 'signalCurrentUserDetails', options: { rpId: RP_ID, userId: 'dXNlcg', name: 'ada@example.test', displayName: 'Ada Lovelace' } }
  ])
  t.notOk(paths(upstream).includes('/passkeys/register/options'), 'no upgrade after a passkey sign-in')
})

t.test('the button aborts the autofill request and starts the modal prompt; a browser without the Signal API still signs in', async (t) => {
  const { browser, base, upstream } = await setUp(t, { browser: { signalApi: false } })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  await eventually(t, () => gets(browser).length, 1)
  browser.answerGet = () => ({ credential: standInCredential(assertion) })
  await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }))
  t.equal(gets(browser)[0]!.options.signal?.aborted, true, 'the autofill request is aborted first')
  await eventually(t, () => window.location.href, `${base}/app`)
  const modal = gets(browser)[1]!
  t.equal(modal.options.mediation, undefined, 'the modal prompt')
  t.equal((lastBody(upstream, '/passkeys/login') as { mediation?: unknown }).mediation, 'button', 'the edge counts it as the button')
})

t.test('while the button\'s prompt is open, the aborted autofill request starts no other and leaves the page busy', async (t) => {
  const { browser, base } = await setUp(t)
  const { user } = renderPage(t, base, '', PASSKEYS_ON)
  await eventually(t, () => gets(browser).length, 1)
  await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }))
  await eventually(t, () => gets(browser).length, 2, 'the prompt')
  await new Promise((resolve) => setTimeout(resolve, 150))
  t.equal(gets(browser).length, 2, 'no new autofill request beside the prompt')
  t.ok(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'the page stays busy')
})

t.test('the visitor\'s cancel of the prompt says nothing and leaves the page usable', async (t) => {
  const { browser, base } = await setUp(t)
  const { user } = renderPage(t, base, '', PASSKEYS_ON)
  browser.answerGet = (call) => call.options.mediation === 'conditional' ? 'never' : { error: 'NotAllowedError' }
  await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }))
  await eventuallyOk(t, () => !screen.getByRole('button', { name: 'Sign in with a passkey' }).hasAttribute('disabled'))
  t.equal(screen.getByRole('alert').textContent, '', 'no error')
  t.equal(window.location.pathname, '/')
})

t.test('a passkey the service does not know: the password manager is told to forget it, and the refusal shows', async (t) => {
  const { browser, base } = await setUp(t, {
    answers: { '/passkeys/login': [401, { error: 'This passkey is not known here.', reason: 'unknown_credential', credential_id: 'cred-gone' }] }
  })
  browser.answerGet = (call) => call.options.mediation === 'conditional' ? 'never' : { credential: standInCredential({ ...assertion, id: 'cred-gone' }) }
  const { user } = renderPage(t, base, '', PASSKEYS_ON)
  await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }))
  await eventually(t, () => screen.getByRole('alert').textContent, 'This passkey is not known here.')
  t.same(browser.signals, [{ method: 'signalUnknownCredential', options: { rpId: RP_ID, credentialId: 'cred-gone' } }])
  t.equal(window.location.pathname, '/')
})

t.test('with the domain check, an unauthorized domain after a passkey: the spec\'s message, the refresh token revoked, nothing stored', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['example.test'] })
  const { browser, base, upstream } = await setUp(t, { edgeAuthUpstream: responder })
  browser.answerGet = (call) => call.options.mediation === 'conditional' ? 'never' : { credential: standInCredential(assertion) }
  const { user } = renderPage(t, base, '?supports_domain_auth_check=true&redirect=%2Fapp', PASSKEYS_ON)
  await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }))
  await eventually(t, () => screen.getByRole('alert').textContent, english('error.DOMAIN_NOT_AUTHORIZED'))
  await eventuallyOk(t, () => paths(upstream).includes('/token/revoke'), 'the refresh token is revoked')
  t.same(lastBody(upstream, '/token/revoke'), { refresh: 'refresh-pk' })
  t.notMatch(document.cookie, /auth=|refresh=/, 'no token stored')
  t.equal(browser.signals.length, 0, 'no signals for a refused sign-in')
  t.equal(window.location.pathname, '/')
})

t.test('after a password sign-in, a browser that creates passkeys without a prompt gets one, and the page leaves', async (t) => {
  const { browser, base, upstream } = await setUp(t, { browser: { capabilities: { conditionalCreate: true } } })
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  await eventually(t, () => gets(browser).length, 1)
  await signInOnView(user)
  await eventually(t, () => window.location.href, `${base}/app`)
  t.equal(gets(browser)[0]!.options.signal?.aborted, true, 'the autofill request was aborted')
  const create = creates(browser)[0]!
  t.equal(create.options.mediation, 'conditional')
  t.same(lastBody(upstream, '/passkeys/register/options'), { conditional: true })
  t.equal(upstream.requests.find((request) => request.url === '/passkeys/register/options')!.headers.authorization, 'Bearer eyJ.password')
  t.same(lastBody(upstream, '/passkeys/register'), { credential: attestation, conditional: true }, 'the edge counts it as the automatic upgrade')
  t.match(document.cookie, /auth=eyJ\.password/, 'the password sign-in\'s tokens were stored')
})

t.test('a conditional create that never settles is aborted at the bound, and the offer shows', async (t) => {
  const { browser, base } = await setUp(t, { browser: { capabilities: { conditionalCreate: true } } })
  const bound = passkeyTimings.upgradeBoundMs
  passkeyTimings.upgradeBoundMs = 200
  t.teardown(() => { passkeyTimings.upgradeBoundMs = bound })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  await signInOnView(user)
  const heading = await screen.findByRole('heading', { name: english('passkey.offerHeading') })
  t.equal(creates(browser)[0]!.options.signal?.aborted, true, 'the pending request was aborted')
  // The heading takes focus in an effect after it shows: on a busy machine that is a moment later.
  await eventuallyOk(t, () => document.activeElement === heading, 'focus on the offer\'s heading')
  t.equal(window.location.pathname, '/', 'still on the page')
  t.match(document.cookie, /auth=eyJ\.password/, 'already signed in')
})

t.test('a device that already holds the account\'s passkey: no offer, the page leaves', async (t) => {
  const { browser, base } = await setUp(t, { browser: { capabilities: { conditionalCreate: true } } })
  browser.answerCreate = () => ({ error: 'InvalidStateError' })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  await signInOnView(user)
  await eventually(t, () => window.location.href, `${base}/app`)
})

t.test('without conditional create, the offer: "Not now" is remembered for 30 days and the page leaves; the next sign-in has no offer', async (t) => {
  const { base, upstream } = await setUp(t, { browser: { capabilities: {} } })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  await signInOnView(user)
  await screen.findByRole('heading', { name: english('passkey.offerHeading') })
  t.notOk(paths(upstream).includes('/passkeys/register/options'), 'no conditional request without the capability')
  await user.tab()
  t.equal(document.activeElement, screen.getByRole('button', { name: english('passkey.create') }), 'Tab reaches the first button')
  await user.tab()
  t.equal(document.activeElement, screen.getByRole('button', { name: english('passkey.notNow') }))
  const before = Date.now()
  await user.keyboard('{Enter}')
  await eventually(t, () => window.location.href, `${base}/app`)
  const until = Number(localStorage.getItem(PASSKEY_OFFER_DECLINED_KEY))
  t.ok(until >= before + 30 * 86400000 && until <= Date.now() + 30 * 86400000, 'remembered for 30 days')
})

t.test('a remembered "Not now" means no offer and no upgrade request', async (t) => {
  const { browser, base, upstream } = await setUp(t, { browser: { capabilities: { conditionalCreate: true } } })
  localStorage.setItem(PASSKEY_OFFER_DECLINED_KEY, String(Date.now() + 60000))
  const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  await signInOnView(user)
  await eventually(t, () => window.location.href, `${base}/app`)
  t.equal(creates(browser).length, 0)
  t.notOk(paths(upstream).includes('/passkeys/register/options'))
})

t.test('"Create a passkey" creates one with the browser\'s prompt, says so, and leaves with Continue', async (t) => {
  const { browser, base, upstream } = await setUp(t, { browser: { capabilities: null } })
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('passkey.create') }))
  const created = await screen.findByRole('heading', { name: english('passkey.offerCreated') })
  await eventuallyOk(t, () => document.activeElement === created, 'focus on the heading that says so')
  t.equal(window.location.pathname, '/', 'the page waits for the visitor')
  await user.click(screen.getByRole('button', { name: english('passkey.offerContinue') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.equal(creates(browser)[0]!.options.mediation, undefined, 'the modal prompt')
  t.same(lastBody(upstream, '/passkeys/register/options'), { conditional: false })
  t.same(lastBody(upstream, '/passkeys/register'), { credential: attestation, conditional: false }, 'the edge counts it as the offer')
  t.equal(localStorage.getItem(PASSKEY_OFFER_DECLINED_KEY), null)
})

t.test('the browser\'s cancel of the offer\'s prompt goes on; a failure is reported, then goes on', async (t) => {
  await t.test('cancel', async (t) => {
    const { browser, base } = await setUp(t, { browser: { capabilities: null } })
    browser.answerCreate = () => ({ error: 'NotAllowedError' })
    const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
    await signInOnView(user)
    await user.click(await screen.findByRole('button', { name: english('passkey.create') }))
    await eventually(t, () => window.location.href, `${base}/app`)
  })
  await t.test('failure', async (t) => {
    const { browser, base } = await setUp(t, { browser: { capabilities: null }, answers: { '/passkeys/register': [400, { error: 'Could not verify.' }] } })
    const pause = passkeyTimings.failurePauseMs
    passkeyTimings.failurePauseMs = 300
    t.teardown(() => { passkeyTimings.failurePauseMs = pause })
    browser.answerCreate = () => ({ credential: standInCredential(attestation) })
    const { user } = renderPage(t, base, '?redirect=%2Fapp', PASSKEYS_ON)
    await signInOnView(user)
    await user.click(await screen.findByRole('button', { name: english('passkey.create') }))
    await eventually(t, () => screen.queryByText(english('passkey.createFailed'))?.getAttribute('role'), 'alert', 'the failure is reported')
    await eventually(t, () => window.location.href, `${base}/app`)
  })
})

t.test('no upgrade after a local-network sign-in, and none where passkeys are off', async (t) => {
  const { browser, base, upstream } = await setUp(t, { browser: { capabilities: { conditionalCreate: true } } })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: null })
  await signInOnView(user)
  await eventually(t, () => window.location.href, `${base}/app`)
  t.equal(browser.calls.length, 0)
  t.notOk(paths(upstream).includes('/passkeys/register/options'))
})
