import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import { jsonAnswer, type RecordedRequest, type Upstream } from '../../fixtures/servers/edge.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { TEST_OTPAUTH_URI, TEST_SECRET } from '../../fixtures/second-factor/second-factor.js'
import { installStandInBrowser, standInCredential } from '../../fixtures/passkeys/webauthn-browser.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/*
 * "Confirm it's you" (docs/account-changes.md): the passkey offer and the
 * second-factor offer, when the accounts service wants the account proven
 * again before the change. The stand-in service refuses the change until a
 * right proof has reached it (as the reference service does with the
 * browser's `threshold_proof` cookie, which happy-dom does not keep).
 */

const RP_ID = 'localhost'
const TOKENS = { auth: 'eyJ.password', refresh: 'refresh-pw' }
const PROOF_NEEDED = { error: 'For your security, confirm it\'s you before changing how you sign in.', reason: 'fresh_proof_required' }
const SESSION_ENDED = { error: 'This session has ended. Please sign in again.', reason: 'session_ended' }
const WRONG_PASSWORD = 'That password is not right.'
const WRONG_PASSWORD_OR_CODE = 'That password or code is not right.'
const CODE_TOO = 'Enter a code from your authenticator app too.'
const PASSWORD = 'correct horse'
const CODE = '123456'
const RECOVERY_CODE = 'abcd-efgh'
const creationOptions = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { id: RP_ID, name: 'Threshold' },
  user: { id: 'dXNlcg', name: 'ada@example.test', displayName: 'Ada' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  excludeCredentials: []
}
const requestOptions = { challenge: 'cmVhdXRo', rpId: RP_ID, userVerification: 'required', allowCredentials: [{ type: 'public-key', id: 'Y3JlZC0x' }] }
const assertion = { id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA', userHandle: 'dXNlcg' } }
const attestation = { id: 'cred-2', rawId: 'cred-2', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' } }

/** The stand-in service's state: the ways it offers, whether a proof came, whether the session has ended. */
interface Service {
  ways: string[]
  proven: boolean
  sessionEnded: boolean
}

const CHANGES = new Set(['/passkeys/register/options', '/passkeys/register', '/second-factor/enrol/start', '/second-factor/enrol/confirm'])
const PROOFS = new Set(['/reauthenticate', '/passkeys/reauthenticate/options', '/passkeys/reauthenticate'])

function accountsService (service: Service) {
  return (request: RecordedRequest, response: Parameters<ReturnType<typeof jsonAnswer>>[1]) => {
    const path = request.url.split('?')[0]!
    const body = request.body.length === 0 ? {} : JSON.parse(request.body.toString('utf8')) as Record<string, unknown>
    const answer = (status: number, json: unknown) => jsonAnswer(status, json)(request, response)
    if (path === '/v2/login') return answer(200, TOKENS)
    if ((CHANGES.has(path) || PROOFS.has(path)) && request.headers.authorization !== `Bearer ${TOKENS.auth}`) return answer(401, { error: 'No token.', reason: 'signed_out' })
    if ((CHANGES.has(path) || PROOFS.has(path)) && service.sessionEnded) return answer(401, SESSION_ENDED)
    const proofNeeded = () => answer(403, { ...PROOF_NEEDED, proof_methods: [...service.ways, 'sign_in'] })
    switch (path) {
      case '/passkeys/register/options': return service.proven ? answer(200, { options: creationOptions }) : proofNeeded()
      case '/passkeys/register': return answer(200, { success: 'Passkey saved.' })
      case '/second-factor/enrol/start': return service.proven ? answer(200, { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI }) : proofNeeded()
      case '/passkeys/reauthenticate/options': return answer(200, { options: requestOptions })
      case '/passkeys/reauthenticate':
        service.proven = true
        return answer(200, { success: 'Thank you, that\'s confirmed.' })
      case '/reauthenticate': {
        const refusal = secretRefusal(service.ways, body)
        service.proven = refusal === null
        return refusal === null ? answer(200, { success: 'Thank you, that\'s confirmed.' }) : answer(...refusal)
      }
      default: return answer(404, { error: 'Not found.' })
    }
  }
}

/**
 * What the stand-in answers a proof typed for the way it offers, as the
 * reference service does (server/reference/account-changes/reauthentication.ts):
 * a second factor asks for its code beside the password, in the same call.
 */
function secretRefusal (ways: readonly string[], body: Record<string, unknown>): [number, unknown] | null {
  const codeRight = body.code === CODE || body.recovery_code === RECOVERY_CODE
  const codeGiven = body.code !== undefined || body.recovery_code !== undefined
  if (ways.includes('password+code')) {
    if (!codeGiven) return [400, { error: CODE_TOO }]
    return body.password === PASSWORD && codeRight ? null : [401, { error: WRONG_PASSWORD_OR_CODE }]
  }
  if (ways.includes('code')) return codeRight ? null : [401, { error: WRONG_PASSWORD_OR_CODE }]
  return body.password === PASSWORD ? null : [401, { error: WRONG_PASSWORD }]
}

async function setUp (t: Test, ways: string[] = ['password']) {
  const browser = installStandInBrowser(t, { capabilities: {} })
  const service: Service = { ways, proven: false, sessionEnded: false }
  const { base, upstream } = await startBackend(t, accountsService(service), {
    accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES)
  })
  localStorage.clear()
  document.cookie = 'auth=; max-age=0; path=/'
  document.cookie = 'refresh=; max-age=0; path=/'
  return { browser, service, base, upstream }
}

/** Signs in with the password, then asks the offer to create a passkey: the service wants a proof first. */
async function toConfirmStep (t: Test, base: string, user: ReturnType<typeof renderPage>['user']): Promise<HTMLElement> {
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('passkey.create') }))
  const heading = await screen.findByRole('heading', { name: english('freshProof.heading') })
  await eventuallyOk(t, () => document.activeElement === heading, 'focus on the step\'s heading')
  t.equal(window.location.href, `${base}/?redirect=%2Fapp`, 'still on the page')
  return heading
}

/** The passkey is created: the card says so, and Continue leaves for the redirect target. */
async function continueAfterCreation (t: Test, base: string, user: ReturnType<typeof renderPage>['user']): Promise<void> {
  await screen.findByRole('heading', { name: english('passkey.offerCreated') })
  await user.click(screen.getByRole('button', { name: english('passkey.offerContinue') }))
  await eventually(t, () => window.location.href, `${base}/app`)
}

const paths = (upstream: Upstream) => upstream.requests.map((request) => request.url)
const creates = (browser: ReturnType<typeof installStandInBrowser>) => browser.calls.filter((call) => call.kind === 'create')

t.test('the passkey offer answered "fresh proof required": Confirm it\'s you; the password proves it, and the prompt opens by itself', async (t) => {
  const { browser, base, upstream } = await setUp(t)
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  t.equal(creates(browser).length, 0, 'no prompt before the proof')
  const field = screen.getByLabelText(english('field.password'))
  t.equal(field.getAttribute('autocomplete'), 'current-password')
  t.equal(screen.queryByRole('button', { name: english('freshProof.usePasskey') }), null, 'no passkey where the service offers none')
  t.equal(screen.queryByRole('textbox', { name: english('secondFactor.codeLabel') }), null, 'no code where the service asks for none')
  t.equal(screen.queryByRole('button', { name: english('secondFactor.useRecovery') }), null, 'nor a recovery code')
  t.equal(screen.queryByText(english('freshProof.passwordAndCode')), null, 'nor the words that ask for one')
  t.ok(screen.getByRole('button', { name: english('freshProof.signInAgain') }), 'signing in again is always offered')
  t.ok(screen.getByRole('button', { name: english('freshProof.confirm') }).hasAttribute('disabled'), 'nothing to confirm with yet')

  // By keyboard alone: from the heading, Tab reaches the field; Enter confirms.
  await user.tab()
  await eventuallyOk(t, () => document.activeElement === field, 'Tab reaches the password field')
  await user.keyboard('correct horse{Enter}')
  await continueAfterCreation(t, base, user)
  t.same(lastBody(upstream, '/reauthenticate'), { password: 'correct horse' })
  t.equal(upstream.requests.find((request) => request.url === '/reauthenticate')!.headers.authorization, `Bearer ${TOKENS.auth}`, 'with the stored login\'s bearer')
  t.equal(creates(browser).length, 1, 'the browser\'s prompt, with no further click')
  t.equal(creates(browser)[0]!.options.mediation, undefined, 'the modal prompt')
  t.same(lastBody(upstream, '/passkeys/register'), { credential: attestation, conditional: false })
  t.same(paths(upstream).filter((path) => path === '/passkeys/register/options').length, 2, 'the options asked for again after the proof')
})

t.test('a wrong password: the refusal announced, the field marked and focused, the step stays; the right one then goes on', async (t) => {
  const { browser, base, upstream } = await setUp(t)
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  const field = screen.getByLabelText(english('field.password'))
  await user.type(field, 'wrong horse')
  await user.click(screen.getByRole('button', { name: english('freshProof.confirm') }))
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === WRONG_PASSWORD), 'the refusal is announced')
  t.equal(field.getAttribute('aria-invalid'), 'true', 'the field is marked')
  t.ok(field.getAttribute('aria-describedby')?.split(' ').some((id) => document.getElementById(id)?.textContent === WRONG_PASSWORD), 'and described by the refusal')
  await eventuallyOk(t, () => document.activeElement === field, 'the field takes the focus, to be typed again')
  t.equal(creates(browser).length, 0, 'no prompt')
  t.ok(screen.getByRole('heading', { name: english('freshProof.heading') }), 'the step stays')
  await user.clear(field)
  await user.type(field, 'correct horse{Enter}')
  await continueAfterCreation(t, base, user)
  t.ok(paths(upstream).includes('/passkeys/register'), 'the passkey was created')
})

t.test('a session that ended: its text on the login view, whose sign-in comes next', async (t) => {
  await t.test('when the offer asks for the options', async (t) => {
    const { service, base } = await setUp(t)
    const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
    await signInOnView(user)
    service.sessionEnded = true
    await user.click(await screen.findByRole('button', { name: english('passkey.create') }))
    await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === SESSION_ENDED.error), 'the service\'s text is announced')
    t.ok(screen.getByRole('button', { name: 'Login' }), 'the login view')
    t.equal(screen.queryByRole('heading', { name: english('freshProof.heading') }), null)
    t.equal(window.location.pathname, '/')
  })
  await t.test('when the password is given', async (t) => {
    const { service, base } = await setUp(t)
    const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
    await toConfirmStep(t, base, user)
    service.sessionEnded = true
    await user.type(screen.getByLabelText(english('field.password')), 'correct horse{Enter}')
    await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === SESSION_ENDED.error), 'the service\'s text is announced')
    t.ok(screen.getByRole('button', { name: 'Login' }), 'the login view')
    t.equal((screen.getByLabelText<HTMLInputElement>('Email')).value, 'ada@example.test', 'the email kept for the new sign-in')
  })
})

t.test('"Sign in again" leads back to the login view, saying nothing', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  await user.click(screen.getByRole('button', { name: english('freshProof.signInAgain') }))
  t.ok(screen.getByRole('button', { name: 'Login' }), 'the login view')
  t.equal(screen.getAllByRole('alert').map((alert) => alert.textContent).join(''), '', 'no error')
  t.notOk(paths(upstream).includes('/reauthenticate'), 'no proof sent')
})

t.test('"Use a passkey": an assertion with the reauthenticate options proves it, then the passkey is created', async (t) => {
  const { browser, base, upstream } = await setUp(t, ['password', 'passkey'])
  browser.answerGet = (call) => call.options.mediation === 'conditional' ? 'never' : { credential: standInCredential(assertion) }
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  await user.click(screen.getByRole('button', { name: english('freshProof.usePasskey') }))
  await continueAfterCreation(t, base, user)
  const get = browser.calls.filter((call) => call.kind === 'get' && call.options.mediation === undefined)
  t.equal(get.length, 1, 'one modal request')
  t.equal((get[0]!.options.publicKey as PublicKeyCredentialRequestOptions).challenge.byteLength, 6, 'with the reauthenticate options\' challenge')
  t.same(lastBody(upstream, '/passkeys/reauthenticate/options'), {})
  t.same(lastBody(upstream, '/passkeys/reauthenticate'), { credential: assertion })
  t.equal(creates(browser).length, 1, 'then the prompt that creates the passkey')
})

t.test('a passkey prompt the visitor cancels says nothing and leaves the step; a failing one says so', async (t) => {
  const { browser, base } = await setUp(t, ['password', 'passkey'])
  browser.answerGet = (call) => call.options.mediation === 'conditional' ? 'never' : { error: 'NotAllowedError' }
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  const button = screen.getByRole('button', { name: english('freshProof.usePasskey') })
  await user.click(button)
  await eventuallyOk(t, () => !button.hasAttribute('disabled'), 'usable again')
  t.equal(screen.getAllByRole('alert').map((alert) => alert.textContent).join(''), '', 'a cancel is no error')
  browser.answerGet = (call) => call.options.mediation === 'conditional' ? 'never' : { error: 'SecurityError' }
  await user.click(button)
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === english('freshProof.passkeyFailed')), 'a failure is announced')
  t.ok(screen.getByRole('heading', { name: english('freshProof.heading') }), 'the step stays')
})

/** The code field, as the step names it. */
const codeField = () => screen.getByRole('textbox', { name: english('secondFactor.codeLabel') })

t.test('a second factor: the password and an authenticator code in one form, by keyboard alone, sent in one call', async (t) => {
  const { browser, base, upstream } = await setUp(t, ['password+code'])
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  t.ok(screen.getByText(english('freshProof.passwordAndCode')), 'the step asks for both')
  const password = screen.getByLabelText(english('field.password'))
  const code = codeField()
  t.equal(password.getAttribute('autocomplete'), 'current-password')
  t.equal(code.getAttribute('autocomplete'), 'one-time-code')
  t.equal(code.getAttribute('inputmode'), 'numeric')
  t.ok(screen.getByRole('button', { name: english('secondFactor.useRecovery') }), 'a recovery code may take the code\'s place')
  t.equal(screen.queryByRole('button', { name: english('secondFactor.useCode') }), null)
  const confirm = screen.getByRole('button', { name: english('freshProof.confirm') })

  // From the heading, Tab reaches the password, then (past its show toggle) the code; Enter confirms both.
  await user.tab()
  await eventuallyOk(t, () => document.activeElement === password, 'Tab reaches the password field')
  await user.keyboard(PASSWORD)
  t.ok(confirm.hasAttribute('disabled'), 'the password alone cannot confirm')
  await user.tab()
  await user.tab()
  await eventuallyOk(t, () => document.activeElement === code, 'then the code field')
  await user.keyboard(`${CODE}{Enter}`)
  await continueAfterCreation(t, base, user)
  t.same(upstream.requests.filter((request) => request.url === '/reauthenticate').map((request) => JSON.parse(request.body.toString('utf8'))),
    [{ password: PASSWORD, code: CODE }], 'one call, with the password and the code')
  t.equal(creates(browser).length, 1, 'the passkey prompt followed with no further click')
})

t.test('a second factor: a recovery code in the code\'s place goes with the password', async (t) => {
  const { browser, base, upstream } = await setUp(t, ['password+code'])
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  await user.type(screen.getByLabelText(english('field.password')), PASSWORD)
  await user.click(screen.getByRole('button', { name: english('secondFactor.useRecovery') }))
  const recovery = screen.getByRole('textbox', { name: english('secondFactor.recoveryLabel') })
  await eventuallyOk(t, () => document.activeElement === recovery, 'the recovery field takes the focus')
  t.equal(screen.queryByRole('textbox', { name: english('secondFactor.codeLabel') }), null, 'in the code\'s place')
  t.equal((screen.getByLabelText<HTMLInputElement>(english('field.password'))).value, PASSWORD, 'the password stays as typed')
  t.ok(screen.getByRole('button', { name: english('secondFactor.useCode') }), 'with a way back to the authenticator code')
  await user.type(recovery, `${RECOVERY_CODE}{Enter}`)
  await continueAfterCreation(t, base, user)
  t.same(lastBody(upstream, '/reauthenticate'), { password: PASSWORD, recovery_code: RECOVERY_CODE })
  t.equal(creates(browser).length, 1, 'the passkey prompt followed')
})

t.test('a second factor: a wrong password or code is announced, both fields marked, the password focused; the step stays', async (t) => {
  const { browser, base, upstream } = await setUp(t, ['password+code'])
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
  await toConfirmStep(t, base, user)
  const password = screen.getByLabelText(english('field.password'))
  await user.type(password, 'wrong horse')
  await user.type(codeField(), `${CODE}{Enter}`)
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === WRONG_PASSWORD_OR_CODE), 'the refusal is announced')
  for (const [name, field] of [['password', password], ['code', codeField()]] as const) {
    t.equal(field.getAttribute('aria-invalid'), 'true', `the ${name} field is marked`)
    t.ok(field.getAttribute('aria-describedby')?.split(' ').some((id) => document.getElementById(id)?.textContent === WRONG_PASSWORD_OR_CODE), 'and described by the refusal')
  }
  await eventuallyOk(t, () => document.activeElement === password, 'the password field takes the focus, to be typed again')
  t.ok(screen.getByRole('heading', { name: english('freshProof.heading') }), 'the step stays')
  t.equal(creates(browser).length, 0, 'no prompt')
  await user.clear(password)
  await user.type(password, `${PASSWORD}{Enter}`)
  await continueAfterCreation(t, base, user)
  t.same(lastBody(upstream, '/reauthenticate'), { password: PASSWORD, code: CODE }, 'the code kept beside the right password')
})

t.test('a second factor and no password: the code alone proves it, or a recovery code', async (t) => {
  for (const [what, proof] of [['an authenticator code', { code: CODE }], ['a recovery code', { recovery_code: RECOVERY_CODE }]] as const) {
    await t.test(what, async (t) => {
      const { browser, base, upstream } = await setUp(t, ['code', 'passkey'])
      browser.answerCreate = () => ({ credential: standInCredential(attestation) })
      const { user } = renderPage(t, base, '?redirect=%2Fapp', { passkeyRpId: RP_ID })
      await toConfirmStep(t, base, user)
      t.equal(screen.queryByLabelText(english('field.password')), null, 'no password field')
      t.equal(screen.queryByText(english('freshProof.passwordAndCode')), null, 'nor the words that ask for one')
      t.ok(screen.getByRole('button', { name: english('freshProof.usePasskey') }), 'the passkey beside it')
      await user.tab()
      await eventuallyOk(t, () => document.activeElement === codeField(), 'Tab reaches the code field')
      if ('recovery_code' in proof) {
        await user.click(screen.getByRole('button', { name: english('secondFactor.useRecovery') }))
        await user.type(screen.getByRole('textbox', { name: english('secondFactor.recoveryLabel') }), `${proof.recovery_code}{Enter}`)
      } else {
        await user.keyboard(`${proof.code}{Enter}`)
      }
      await continueAfterCreation(t, base, user)
      t.same(lastBody(upstream, '/reauthenticate'), proof)
      t.equal(creates(browser).length, 1, 'the passkey prompt followed')
    })
  }
})

t.test('the second-factor offer answered "fresh proof required": Confirm it\'s you, then the enrolment starts by itself', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { secondFactor: true, passkeyRpId: null })
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('secondFactor.offerAccept') }))
  const heading = await screen.findByRole('heading', { name: english('freshProof.heading') })
  await eventuallyOk(t, () => document.activeElement === heading, 'focus on the step\'s heading')
  await user.type(screen.getByLabelText(english('field.password')), 'wrong horse{Enter}')
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === WRONG_PASSWORD), 'a wrong password is refused')
  await user.clear(screen.getByLabelText(english('field.password')))
  await user.type(screen.getByLabelText(english('field.password')), 'correct horse{Enter}')
  await screen.findByRole('img', { name: english('secondFactor.qrLabel') })
  const enrolment = screen.getByRole('heading', { name: english('secondFactor.enrolHeading') })
  await eventuallyOk(t, () => document.activeElement === enrolment, 'focus on the enrolment\'s heading')
  t.equal(paths(upstream).filter((path) => path === '/second-factor/enrol/start').length, 2, 'the start asked for again after the proof, with no click')
  t.equal(window.location.pathname, '/')
})

t.test('the second-factor offer: "Sign in again" leads back to the login view', async (t) => {
  const { base } = await setUp(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { secondFactor: true, passkeyRpId: null })
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('secondFactor.offerAccept') }))
  await user.click(await screen.findByRole('button', { name: english('freshProof.signInAgain') }))
  t.ok(screen.getByRole('button', { name: 'Login' }), 'the login view')
})
