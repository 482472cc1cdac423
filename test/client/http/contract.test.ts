import '../../fixtures/page/dom.js'
import t from 'tap'
import { googleLogin, googleRegister } from '../../../client/google/google-calls.js'
import { resetPasswordRequest, setPassword } from '../../../client/password-reset/password-reset-calls.js'
import { register, verifyEmailRequest } from '../../../client/registration/registration-calls.js'
import { localLogin, login } from '../../../client/sign-in/login-calls.js'
import { completeSsoLogin, completeSsoRegister, startSso } from '../../../client/sso/sso-calls.js'
import { passkeyLogin, passkeyLoginOptions, passkeyRegister, passkeyRegisterOptions, revokeRefresh } from '../../../client/passkeys/passkey-calls.js'
import { passkeyReauthenticate, passkeyReauthenticateOptions, reauthenticate } from '../../../client/account-changes/fresh-proof-calls.js'
import { endOtherSessions } from '../../../client/sessions/other-sessions-calls.js'
import { removeRecentFactor } from '../../../client/account-changes/recent-factors-calls.js'
import { loginWithEmailCode, sendEmailCode, sendProofCode } from '../../../client/email-codes/email-code-calls.js'
import { normalizeEmailCode } from '../../../common/email-codes/email-code-format.js'
import { confirmEnrolment, startEnrolment, verifySecondFactor } from '../../../client/second-factor/second-factor-calls.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { ACCOUNT_ROUTES, EMAIL_CODE_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, SOCIAL_ROUTES, SSO_DISCOVERY_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import { completeSocialLogin, startSocial } from '../../../client/social/social-calls.js'
import { discoverSso } from '../../../client/sso/sso-discovery-calls.js'
import { completeLink, linkedProviders, startLink, unlink } from '../../../client/account/social-link-calls.js'
import {
  changeEmail, changePassword, deleteAccount, endSession, forgetBrowsers, listPasskeys, removePasskey, removeSecondFactor, renamePasskey, renewRecoveryCodes
} from '../../../client/account/account-calls.js'
import { loadAccountsContract } from '../../../server/shared/accounts-contract.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { jsonAnswer, localAccountsAnswer, startUpstream, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { startBackend } from '../../fixtures/page/page.js'

/*
 * The bodies the page's API functions send, checked against the request
 * schemas of docs/accounts-api.openapi.yaml: every field the document says,
 * null, [] and absent where it says so, nothing it does not say, and the
 * bearer credential only where it names one. Every page call it describes is
 * made here, so a call added to either side alone fails.
 */

const contract = loadAccountsContract()
const EDGE_READS_FOR_THE_PAGE = ['/account/overview', '/sessions/list', '/activity/list']
const NO_CONTEXT = { insecure_allowed_orgs: [], resource_type: null, cluster_name: null }
const CONTEXT = { insecure_allowed_orgs: ['acme', 'initech'], resource_type: 'cluster', cluster_name: 'prod' }
const credential = { id: 'Y3JlZC0x', rawId: 'Y3JlZC0x', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA', userHandle: 'dXNlcg' } }

type Operation = { readonly operationId?: string, readonly security?: ReadonlyArray<Record<string, unknown>>, readonly responses?: Record<string, Record<string, unknown>> }

/** The document's `post` of `path`, and whether it allows or requires a bearer credential. */
function bearerRule (path: string): 'required' | 'optional' | 'none' {
  const security = (contract.document.paths[path]?.post as Operation | undefined)?.security ?? []
  const bearer = security.some((requirement) => Object.keys(requirement).length > 0)
  if (!bearer) return 'none'
  return security.some((requirement) => Object.keys(requirement).length === 0) ? 'optional' : 'required'
}

/** The page calls of the document: JSON POSTs whose success answer the page reads (not `not-called`), but the gRPC-web check. */
function documentedPageCalls (): string[] {
  return contract.operations
    .filter(({ method, path }) => method === 'post' && contract.requestCheck(method, path) !== null)
    .filter(({ method, path }) => contract.responseFor(method, path, 200)?.response['x-threshold-outcome'] !== 'not-called')
    .map(({ path }) => path)
}

t.test('every body the page sends fits the document\'s request schema, with null, [] and absent as it says', async (t) => {
  const routes = withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, EMAIL_CODE_ROUTES, ACCOUNT_ROUTES, SOCIAL_ROUTES, SSO_DISCOVERY_ROUTES)
  // More calls than the edge's default rate limit of 30 a minute; the emailed code's calls, off by default behind an own backend.
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { success: 'ok' }), { accountsRoutes: routes, env: { RATE_LIMIT_PER_MINUTE: '1000', EMAIL_CODES: 'true' } })
  setPageUrl(`${base}/`)
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['login without context', () => login({ email: 'a@b.test', password: 'pw', ...NO_CONTEXT })],
    ['login with context', () => login({ email: 'a@b.test', password: 'pw', ...CONTEXT })],
    ['login with nothing typed', () => login({ email: '', password: '', ...NO_CONTEXT })],
    ['register without names', () => register({ first_name: '', last_name: '', email: 'a@b.test', password: 'pw1', confirm_password: 'pw2' })],
    ['register with names', () => register({ first_name: 'Ada', last_name: 'Lovelace', email: 'a@b.test', password: 'pw', confirm_password: 'pw' })],
    ['reset', () => resetPasswordRequest({ email: 'a@b.test' })],
    ['google login', () => googleLogin('google.id.token', 'nonce-secret', { email: 'a@b.test', login_method: 'GOOGLE', ...CONTEXT })],
    ['google login without a nonce secret', () => googleLogin('google.id.token', null, { email: 'a@b.test', login_method: 'GOOGLE', ...NO_CONTEXT })],
    ['google register', () => googleRegister('google.id.token', 'nonce-secret')],
    ['google register without a nonce secret', () => googleRegister('google.id.token', null)],
    ['sso start without redirect', () => startSso({ email: 'a@b.test', source: 'login', redirect: null, ...NO_CONTEXT })],
    ['sso start with redirect', () => startSso({ email: 'a@b.test', source: 'register', redirect: 'https://app.example.test/x', ...CONTEXT })],
    ['sso login', () => completeSsoLogin({ email: 'a@b.test', login_method: 'SAML', id: 'one-time-id', ...NO_CONTEXT })],
    ['sso login (oidc)', () => completeSsoLogin({ email: 'a@b.test', login_method: 'OIDC', id: 'one-time-id', ...CONTEXT })],
    ['sso register', () => completeSsoRegister({ register_method: 'OIDC', id: 'one-time-id' })],
    // A social connection's start and return (client/social/), and SSO found by the address (client/sso/SsoDiscovery.tsx).
    ['social start without redirect', () => startSocial({ provider: 'github', source: 'login', redirect: null, ...NO_CONTEXT })],
    ['social start with redirect', () => startSocial({ provider: 'apple', source: 'register', redirect: 'https://app.example.test/x', ...CONTEXT })],
    ['social login', () => completeSocialLogin({ provider: 'github', id: 'x'.repeat(43), ...CONTEXT })],
    ['sso discovery', () => discoverSso('a@b.test')],
    ['set password', () => setPassword({ token: 'reset-token', password: 'pw', confirm_password: 'pw' })],
    ['new verification link', () => verifyEmailRequest({ email: 'a@b.test' })],
    ['remove a recent passkey', () => removeRecentFactor('review-token', { passkey_id: 'Y3JlZC0x' })],
    ['remove a recent authenticator app', () => removeRecentFactor('review-token', { second_factor: true })],
    // The emailed code's steps (client/email-codes/): the request step, the code step as typed and normalised, its "Send a new code".
    ['an emailed code asked for', () => sendEmailCode('a@b.test')],
    ['an emailed code without context', () => loginWithEmailCode({ email: 'a@b.test', code: normalizeEmailCode('abcd efgh')!, ...NO_CONTEXT })],
    ['an emailed code with context', () => loginWithEmailCode({ email: 'a@b.test', code: normalizeEmailCode('ABCD-EFGH')!, ...CONTEXT })],
    // The account view's "Email me a code" proof (client/account-changes/EmailCodeProof.tsx): the code to the own address, then given again.
    ['an emailed code for a fresh proof', () => sendProofCode('auth.jwt')],
    ['an emailed code given again', () => reauthenticate('auth.jwt', { email_code: normalizeEmailCode('abcd-efgh')! })],
    ['passkey login options', () => passkeyLoginOptions()],
    ['passkey login from autofill', () => passkeyLogin(credential, NO_CONTEXT, 'conditional')],
    ['passkey login after the button', () => passkeyLogin(credential, CONTEXT, 'button')],
    ['passkey register options, conditional', () => passkeyRegisterOptions('auth.jwt', true)],
    ['passkey register options, modal', () => passkeyRegisterOptions('auth.jwt', false)],
    ['passkey register, the upgrade', () => passkeyRegister('auth.jwt', credential, true)],
    ['passkey register, the offer', () => passkeyRegister('auth.jwt', credential, false)],
    ['the password given again', () => reauthenticate('auth.jwt', { password: 'pw' })],
    ['a code given again', () => reauthenticate('auth.jwt', { code: '123456' })],
    ['a recovery code given again', () => reauthenticate('auth.jwt', { recovery_code: 'abcd-efgh' })],
    ['passkey proof options', () => passkeyReauthenticateOptions('auth.jwt')],
    ['a passkey proof', () => passkeyReauthenticate('auth.jwt', credential)],
    ['the other sessions ended', () => endOtherSessions('auth.jwt')],
    ['revoke', () => revokeRefresh()],
    ['second factor code', () => verifySecondFactor({ challenge: 'c', code: '123456', remember_browser: false })],
    ['second factor recovery code', () => verifySecondFactor({ challenge: 'c', recovery_code: 'abcd-efgh', remember_browser: true })],
    ['enrol start during a login', () => startEnrolment({ kind: 'challenge', challenge: 'c' })],
    ['enrol start signed in', () => startEnrolment({ kind: 'bearer', auth: 'auth.jwt' })],
    ['enrol confirm during a login', () => confirmEnrolment({ kind: 'challenge', challenge: 'c' }, '123456', true)],
    ['enrol confirm signed in', () => confirmEnrolment({ kind: 'bearer', auth: 'auth.jwt' }, '123456')],
    ['the account view: one session ended', () => endSession('auth.jwt', 'session-1')],
    ['the account view: a new password, others signed out', () => changePassword('auth.jwt', 'a new long passphrase', true)],
    ['the account view: a new password', () => changePassword('auth.jwt', 'a new long passphrase', false)],
    ['the account view: a new address', () => changeEmail('auth.jwt', 'new@b.test')],
    ['the account view: the account deleted', () => deleteAccount('auth.jwt', 'a@b.test')],
    ['the account view: the passkeys listed', () => listPasskeys('auth.jwt')],
    ['the account view: a passkey renamed', () => renamePasskey('auth.jwt', 'Y3JlZC0x', 'Laptop')],
    ['the account view: a passkey removed', () => removePasskey('auth.jwt', 'Y3JlZC0x')],
    ['the account view: the second factor off', () => removeSecondFactor('auth.jwt')],
    ['the account view: new recovery codes', () => renewRecoveryCodes('auth.jwt')],
    ['the account view: remembered browsers forgotten', () => forgetBrowsers('auth.jwt')],
    ['the account view: a provider to connect', () => startLink('auth.jwt', 'github')],
    ['the account view: a provider connected', () => completeLink('auth.jwt', 'x'.repeat(43))],
    ['the account view: a provider disconnected', () => unlink('auth.jwt', 'github')],
    ['the account view: the providers read again', () => linkedProviders('auth.jwt')]
  ]
  const called = new Set<string>()
  for (const [name, call] of calls) {
    const before = upstream.requests.length
    await call()
    t.equal(upstream.requests.length, before + 1, `${name}: one request reached the backend`)
    const seen: RecordedRequest = upstream.requests.at(-1)!
    const path = seen.url
    called.add(path)
    const check = contract.requestCheck('post', path)
    t.ok(check !== null, `${name}: ${path} is a documented JSON call`)
    t.equal(check?.(JSON.parse(seen.body.toString('utf8'))), null, `${name}: the body fits the document`)
    const rule = bearerRule(path)
    if (seen.headers.authorization === undefined) t.not(rule, 'required', `${name}: no bearer, and the document asks for none`)
    else t.not(rule, 'none', `${name}: a bearer, where the document names one`)
  }

  const local = await startUpstream(t, localAccountsAnswer(() => JSON.stringify({ auth: 'a', refresh: 'r' })))
  setPageUrl('http://127.0.0.1:8080/?local_accounts_host=127.0.0.1')
  await localLogin(`${local.url}/authenticate`, { email: 'a@b.test', password: 'pw', ...NO_CONTEXT })
  const post = local.requests.find((request) => request.method === 'POST')!
  called.add(post.url)
  t.equal(contract.requestCheck('post', post.url)?.(JSON.parse(post.body.toString('utf8'))), null, 'local login: the body fits the document')

  // The account view's reads are the edge's, made for the page as it renders the view (test/server/edge/account/account-view.test.ts).
  for (const path of EDGE_READS_FOR_THE_PAGE) called.add(path)
  t.same([...called].sort(), documentedPageCalls().sort(), 'the page makes every call the document describes, and no other')
})

t.test('the document\'s answers are the ones the page reads as it says: error wins on a 200, 201 works, 204 and 3xx do not', async (t) => {
  const cases: Array<[string, number, unknown, string]> = [
    ['tokens on a 200', 200, { auth: 'a', refresh: 'r' }, 'tokens'],
    ['tokens on a 201', 201, { auth: 'a', refresh: 'r' }, 'tokens'],
    ['an error on a 200', 200, { error: 'No.' }, 'error'],
    ['a 204', 204, null, 'failed'],
    ['a 302 with tokens', 302, { auth: 'a', refresh: 'r' }, 'not-tokens'],
    ['a 503 without error', 503, {}, 'error']
  ]
  for (const [name, status, body, kind] of cases) {
    const { base } = await startBackend(t, (_request, response) => {
      if (body === null) {
        response.writeHead(status)
        response.end()
        return
      }
      jsonAnswer(status, body, status === 302 ? { location: 'https://elsewhere.example.test/' } : {})(_request, response)
    })
    setPageUrl(`${base}/`)
    const answer = await login({ email: 'a@b.test', password: 'pw', ...NO_CONTEXT })
    if (kind === 'not-tokens') {
      // The edge drops the Location (or answers its own 502 in the redirect's place): never a sign-in either way.
      t.not(answer.kind, 'tokens', `${name}: no sign-in`)
      const outcome = contract.responseFor('post', '/v2/login', status)?.response['x-threshold-outcome']
      t.ok(Array.isArray(outcome) && outcome.includes('failure') && !outcome.includes('signed-in'), `${name}: the document says no success`)
      continue
    }
    t.equal(answer.kind, kind, `${name}: the page reads ${kind}`)
    const documented = contract.responseFor('post', '/v2/login', status)
    const outcome = documented?.response['x-threshold-outcome']
    const outcomes = Array.isArray(outcome) ? outcome : [outcome]
    const expected = { tokens: 'signed-in', error: status === 503 ? 'busy' : 'error', failed: 'failure' }[kind]!
    if (kind === 'error' && status < 300) {
      t.match(contract.answerCheck('post', '/v2/login', status)?.(body) ?? '', /error/, `${name}: the document calls a success with error no success`)
    } else if (status === 204) {
      t.equal(contract.answerCheck('post', '/v2/login', status)?.(null) === null, false, `${name}: no JSON object is no success in the document`)
    } else {
      t.ok(outcomes.includes(expected), `${name}: the document says ${expected} (${JSON.stringify(outcome)})`)
    }
  }
})
