import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import type { RecordedRequest, Upstream } from '../../fixtures/servers/edge.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { answerByPath, TEST_OTPAUTH_URI, TEST_RECOVERY_CODES, TEST_SECRET } from '../../fixtures/second-factor/second-factor.js'
import { installStandInBrowser, standInCredential } from '../../fixtures/passkeys/webauthn-browser.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/*
 * "Sign out of all other sessions" (docs/account-changes.md), offered once
 * the page has added a way to sign in: the passkey the offer created, the
 * second factor the offer enrolled. Driven by role, against a stand-in
 * accounts service behind the real edge.
 */

const RP_ID = 'localhost'
const TOKENS = { auth: 'eyJ.password', refresh: 'refresh-pw' }
const ENDED = 'You have been signed out of all other sessions. This one stays signed in.'
const SESSION_ENDED = { error: 'This session has ended. Please sign in again.', reason: 'session_ended' }
const creationOptions = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { id: RP_ID, name: 'Threshold' },
  user: { id: 'dXNlcg', name: 'ada@example.test', displayName: 'Ada' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  excludeCredentials: []
}
const attestation = { id: 'cred-2', rawId: 'cred-2', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' } }

const ANSWERS: Record<string, [number, unknown]> = {
  '/v2/login': [200, TOKENS],
  '/passkeys/register/options': [200, { options: creationOptions }],
  '/passkeys/register': [200, { success: 'Passkey saved.' }],
  '/second-factor/enrol/start': [200, { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI }],
  '/second-factor/enrol/confirm': [200, { recovery_codes: TEST_RECOVERY_CODES }],
  '/sessions/end-others': [200, { success: ENDED }]
}

async function setUp (t: Test, answers: Record<string, [number, unknown]> = {}) {
  const browser = installStandInBrowser(t, { capabilities: {} })
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { base, upstream } = await startBackend(t, answerByPath({ ...ANSWERS, ...answers }), {
    accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES)
  })
  localStorage.clear()
  document.cookie = 'auth=; max-age=0; path=/'
  document.cookie = 'refresh=; max-age=0; path=/'
  return { base, upstream }
}

/** Signs in with the password and creates a passkey from the offer: the card that says so. */
async function createdFromTheOffer (t: Test, base: string) {
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('passkey.create') }))
  const heading = await screen.findByRole('heading', { name: english('passkey.offerCreated') })
  return { user, heading }
}

/** The text of the live region of `role` that has any, '' when none has. */
const said = (role: 'status' | 'alert'): string => screen.queryAllByRole(role).map((region) => region.textContent).join('')
const endOthersCalls = (upstream: Upstream): RecordedRequest[] => upstream.requests.filter((request) => request.url === '/sessions/end-others')

t.test('after the offer\'s passkey: "Sign out of all other sessions" with the stored login\'s bearer, said politely; then Continue leaves', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user, heading } = await createdFromTheOffer(t, base)
  await eventuallyOk(t, () => document.activeElement === heading, 'focus on the heading that says the passkey is ready')
  const button = screen.getByRole('button', { name: english('otherSessions.endOthers') })
  t.equal(button.getAttribute('aria-describedby') === null ? '' : document.getElementById(button.getAttribute('aria-describedby')!)?.textContent,
    english('otherSessions.explanation'), 'the button is described by what it does')
  t.equal(said('status'), '', 'nothing said yet')

  // By keyboard: from the heading, Tab reaches the offer first, then Continue.
  await user.tab()
  t.equal(document.activeElement, button)
  await user.keyboard('{Enter}')
  await eventually(t, () => said('status'), ENDED, 'the service\'s confirmation, in the polite live region')
  t.equal(said('alert'), '', 'no alert')
  const [call] = endOthersCalls(upstream)
  t.equal(call?.headers.authorization, `Bearer ${TOKENS.auth}`, 'with the stored login\'s bearer')
  t.same(lastBody(upstream, '/sessions/end-others'), {})
  t.equal(window.location.pathname, '/', 'the page stays until the visitor goes on')

  await user.tab()
  t.equal(document.activeElement, screen.getByRole('button', { name: english('passkey.offerContinue') }))
  await user.keyboard('{Enter}')
  await eventually(t, () => window.location.href, `${base}/app`)
})

t.test('a confirmation without the service\'s own text is the page\'s', async (t) => {
  const { base } = await setUp(t, { '/sessions/end-others': [200, {}] })
  const { user } = await createdFromTheOffer(t, base)
  await user.click(screen.getByRole('button', { name: english('otherSessions.endOthers') }))
  await eventually(t, () => said('status'), english('otherSessions.ended'))
})

t.test('a refusal is announced at once; the visitor can still go on', async (t) => {
  await t.test('the session has ended', async (t) => {
    const { base } = await setUp(t, { '/sessions/end-others': [401, SESSION_ENDED] })
    const { user } = await createdFromTheOffer(t, base)
    await user.click(screen.getByRole('button', { name: english('otherSessions.endOthers') }))
    await eventually(t, () => said('alert'), SESSION_ENDED.error, 'the service\'s text, as an alert')
    t.equal(said('status'), '', 'no confirmation')
    await user.click(screen.getByRole('button', { name: english('passkey.offerContinue') }))
    await eventually(t, () => window.location.href, `${base}/app`)
  })
  await t.test('the service cannot be read', async (t) => {
    const { base } = await setUp(t, { '/sessions/end-others': [200, 'not an object'] })
    const { user } = await createdFromTheOffer(t, base)
    await user.click(screen.getByRole('button', { name: english('otherSessions.endOthers') }))
    await eventuallyOk(t, () => said('alert') !== '', 'a failure is announced')
    t.equal(said('status'), '')
  })
})

t.test('after the offer\'s second factor, the recovery codes offer it too; after an enrolment a login requires, they do not', async (t) => {
  await t.test('the offer', async (t) => {
    const { base, upstream } = await setUp(t)
    const { user } = renderPage(t, base, '?redirect=%2Fapp', { secondFactor: true, passkeyRpId: null })
    await signInOnView(user)
    await user.click(await screen.findByRole('button', { name: english('secondFactor.offerAccept') }))
    await user.type(await screen.findByRole('textbox', { name: english('secondFactor.firstCodeLabel') }), '654321')
    await user.click(screen.getByRole('button', { name: english('secondFactor.confirm') }))
    await screen.findByRole('heading', { name: english('secondFactor.codesHeading') })
    await user.click(screen.getByRole('button', { name: english('otherSessions.endOthers') }))
    await eventually(t, () => said('status'), ENDED)
    t.equal(endOthersCalls(upstream)[0]?.headers.authorization, `Bearer ${TOKENS.auth}`)
    await user.click(screen.getByRole('checkbox', { name: english('secondFactor.codesSaved') }))
    await user.click(screen.getByRole('button', { name: english('secondFactor.continue') }))
    await eventually(t, () => window.location.href, `${base}/app`)
  })
  await t.test('required by the login', async (t) => {
    const { base, upstream } = await setUp(t, {
      '/v2/login': [200, { second_factor: 'enrol', challenge: 'ch-enrol', expires_in: 300 }],
      '/second-factor/enrol/confirm': [200, { recovery_codes: TEST_RECOVERY_CODES, ...TOKENS }]
    })
    const { user } = renderPage(t, base, '?redirect=%2Fapp', { secondFactor: true, passkeyRpId: null })
    await signInOnView(user)
    await user.type(await screen.findByRole('textbox', { name: english('secondFactor.firstCodeLabel') }), '654321')
    await user.click(screen.getByRole('button', { name: english('secondFactor.confirm') }))
    await screen.findByRole('heading', { name: english('secondFactor.codesHeading') })
    t.equal(screen.queryByRole('button', { name: english('otherSessions.endOthers') }), null, 'no session to keep yet: nothing offered')
    t.same(endOthersCalls(upstream), [])
  })
})
