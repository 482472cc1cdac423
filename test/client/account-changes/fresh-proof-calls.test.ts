import '../../fixtures/page/dom.js'
import t from 'tap'
import { passkeyReauthenticate, passkeyReauthenticateOptions, reauthenticate } from '../../../client/account-changes/fresh-proof-calls.js'
import { passkeyRegisterOptions } from '../../../client/passkeys/passkey-calls.js'
import { startEnrolment } from '../../../client/second-factor/second-factor-calls.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { jsonAnswer } from '../../fixtures/servers/edge.js'
import { startBackend } from '../../fixtures/page/page.js'

const routes = { accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES) }
const requestOptions = { challenge: 'cmVhdXRo', rpId: 'localhost', userVerification: 'required' }
const PROOF_REQUIRED = { error: 'Confirm it\'s you first.', reason: 'fresh_proof_required' }
const SESSION_ENDED = { error: 'This session has ended.', reason: 'session_ended' }

t.test('each call that proves the account posts its exact body, with the bearer, to its path through the edge', async (t) => {
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { success: 'ok' }), routes)
  setPageUrl(`${base}/`)
  const credential = { id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: { clientDataJSON: 'e30' } }
  const calls: Array<[string, () => Promise<unknown>, string, unknown]> = [
    ['the password', () => reauthenticate('eyJ.auth', { password: 'correct horse' }), '/reauthenticate', { password: 'correct horse' }],
    ['a code', () => reauthenticate('eyJ.auth', { code: '123456' }), '/reauthenticate', { code: '123456' }],
    ['a recovery code', () => reauthenticate('eyJ.auth', { recovery_code: 'abcd-efgh' }), '/reauthenticate', { recovery_code: 'abcd-efgh' }],
    ['the password and a code', () => reauthenticate('eyJ.auth', { password: 'correct horse', code: '123456' }), '/reauthenticate', { password: 'correct horse', code: '123456' }],
    ['the password and a recovery code', () => reauthenticate('eyJ.auth', { password: 'correct horse', recovery_code: 'abcd-efgh' }), '/reauthenticate', { password: 'correct horse', recovery_code: 'abcd-efgh' }],
    ['passkey options', () => passkeyReauthenticateOptions('eyJ.auth'), '/passkeys/reauthenticate/options', {}],
    ['a passkey', () => passkeyReauthenticate('eyJ.auth', credential), '/passkeys/reauthenticate', { credential }]
  ]
  for (const [name, call, path, body] of calls) {
    const before = upstream.requests.length
    await call()
    t.equal(upstream.requests.length, before + 1, `${name}: one request`)
    const seen = upstream.requests.at(-1)!
    t.equal(seen.url, path, `${name}: path`)
    t.same(JSON.parse(seen.body.toString('utf8')), body, `${name}: exact body`)
    t.equal(seen.headers.authorization, 'Bearer eyJ.auth', `${name}: the bearer`)
  }
})

t.test('a proof counts on a 2xx answer without error; a session that ended is told apart from a wrong password', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['proven', 200, { success: 'Thank you.' }, { kind: 'proven' }],
    ['an error on a 200', 200, { error: 'No.' }, { kind: 'error', message: 'No.' }],
    ['a wrong password', 401, { error: 'That password is not right.' }, { kind: 'error', message: 'That password is not right.' }],
    ['a wrong password or code', 401, { error: 'That password or code is not right.' }, { kind: 'error', message: 'That password or code is not right.' }],
    ['the password without the code a second factor asks for', 400, { error: 'Enter a code too.' }, { kind: 'error', message: 'Enter a code too.' }],
    ['a session that ended', 401, SESSION_ENDED, { kind: 'signed-out', message: 'This session has ended.' }],
    ['no session at all', 401, { error: 'Sign in again.', reason: 'signed_out' }, { kind: 'signed-out', message: 'Sign in again.' }],
    ['a session that ended, without a text', 401, { reason: 'session_ended' }, { kind: 'signed-out', message: '' }],
    ['the reason on another status', 400, { error: 'Bad.', reason: 'session_ended' }, { kind: 'error', message: 'Bad.' }],
    ['throttled', 429, { error: 'Wait a minute.' }, { kind: 'error', message: 'Wait a minute.' }],
    ['a 500 without error', 500, {}, { kind: 'failed' }]
  ]
  for (const [what, status, body, expected] of cases) {
    const { base } = await startBackend(t, jsonAnswer(status, body), routes)
    setPageUrl(`${base}/`)
    t.same(await reauthenticate('eyJ.auth', { password: 'x' }), expected, `reauthenticate: ${what}`)
    t.same(await passkeyReauthenticate('eyJ.auth', { id: 'cred-1' }), expected, `passkeys/reauthenticate: ${what}`)
  }
})

t.test('the passkey proof\'s options: options, a session that ended, or a refusal', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['options', 200, { options: requestOptions }, { kind: 'options', options: requestOptions }],
    ['a session that ended', 401, SESSION_ENDED, { kind: 'signed-out', message: 'This session has ended.' }],
    ['no passkey on the account', 400, { error: 'This account has no passkey.' }, { kind: 'error', message: 'This account has no passkey.' }],
    ['options without a challenge', 200, { options: {} }, { kind: 'failed' }]
  ]
  for (const [what, status, body, expected] of cases) {
    const { base } = await startBackend(t, jsonAnswer(status, body), routes)
    setPageUrl(`${base}/`)
    t.same(await passkeyReauthenticateOptions('eyJ.auth'), expected, what)
  }
})

t.test('a change refused for a fresh proof names the ways the page knows, in its order; other refusals stay refusals', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['no second factor: the password', 403, { ...PROOF_REQUIRED, proof_methods: ['password', 'passkey', 'sign_in'] }, { kind: 'proof-needed', ways: ['password', 'passkey'] }],
    ['a second factor: the password and a code', 403, { ...PROOF_REQUIRED, proof_methods: ['password+code', 'passkey', 'sign_in'] }, { kind: 'proof-needed', ways: ['password+code', 'passkey'] }],
    ['a second factor and no password: a code', 403, { ...PROOF_REQUIRED, proof_methods: ['code', 'sign_in'] }, { kind: 'proof-needed', ways: ['code'] }],
    ['every way, in any order', 403, { ...PROOF_REQUIRED, proof_methods: ['code', 'sign_in', 'passkey', 'password+code', 'password'] }, { kind: 'proof-needed', ways: ['password', 'password+code', 'code', 'passkey'] }],
    ['only a new sign-in', 403, { ...PROOF_REQUIRED, proof_methods: ['sign_in'] }, { kind: 'proof-needed', ways: [] }],
    ['ways the page does not know, or none', 403, { ...PROOF_REQUIRED, proof_methods: ['telepathy', 7, 'password+telepathy', 'code+password'] }, { kind: 'proof-needed', ways: [] }],
    ['proof_methods that are no list', 403, { ...PROOF_REQUIRED, proof_methods: 'password' }, { kind: 'proof-needed', ways: [] }],
    ['a 403 without the reason', 403, { error: 'Not allowed.' }, { kind: 'error', message: 'Not allowed.' }],
    ['the reason on another status', 400, { ...PROOF_REQUIRED, proof_methods: ['password'] }, { kind: 'error', message: PROOF_REQUIRED.error }],
    ['a session that ended', 401, SESSION_ENDED, { kind: 'signed-out', message: 'This session has ended.' }],
    ['a 401 without the reason', 401, { error: 'Sign in.' }, { kind: 'error', message: 'Sign in.' }]
  ]
  for (const [what, status, body, expected] of cases) {
    const { base } = await startBackend(t, jsonAnswer(status, body), routes)
    setPageUrl(`${base}/`)
    t.same(await passkeyRegisterOptions('eyJ.auth', false), expected, `passkey options: ${what}`)
    t.same(await startEnrolment({ kind: 'bearer', auth: 'eyJ.auth' }), expected, `enrolment start: ${what}`)
  }
})

t.test('a network failure is a failed proof, not an exception', async (t) => {
  setPageUrl('http://127.0.0.1:9/')
  t.same(await reauthenticate('eyJ.auth', { password: 'x' }), { kind: 'failed' })
  t.same(await passkeyReauthenticateOptions('eyJ.auth'), { kind: 'failed' })
  t.same(await passkeyReauthenticate('eyJ.auth', { id: 'cred-1' }), { kind: 'failed' })
})
