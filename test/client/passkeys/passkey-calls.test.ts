import '../../fixtures/page/dom.js'
import t from 'tap'
import { passkeyLogin, passkeyLoginOptions, passkeyRegister, passkeyRegisterOptions, revokeRefresh } from '../../../client/passkeys/passkey-calls.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { PASSKEY_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { jsonAnswer } from '../../fixtures/servers/edge.js'
import { startBackend } from '../../fixtures/page/page.js'

const context = { insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod' }
const routes = { accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, PASSKEY_ROUTES) }
const requestOptions = { challenge: 'Y2hhbGxlbmdl', rpId: 'localhost', userVerification: 'required' }

t.test('each passkey call posts its exact JSON body, with the bearer where the contract asks, to its path through the edge', async (t) => {
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { success: 'ok' }), routes)
  setPageUrl(`${base}/`)
  const credential = { id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: { clientDataJSON: 'e30' } }
  const calls: Array<[string, () => Promise<unknown>, string, unknown, string | undefined]> = [
    ['login options', () => passkeyLoginOptions(), '/passkeys/login/options', {}, undefined],
    ['login from autofill', () => passkeyLogin(credential, context, 'conditional'), '/passkeys/login', { credential, ...context, mediation: 'conditional' }, undefined],
    ['login after the button', () => passkeyLogin(credential, context, 'button'), '/passkeys/login', { credential, ...context, mediation: 'button' }, undefined],
    ['register options, conditional', () => passkeyRegisterOptions('eyJ.auth', true), '/passkeys/register/options', { conditional: true }, 'Bearer eyJ.auth'],
    ['register options, modal', () => passkeyRegisterOptions('eyJ.auth', false), '/passkeys/register/options', { conditional: false }, 'Bearer eyJ.auth'],
    ['register, the upgrade', () => passkeyRegister('eyJ.auth', credential, true), '/passkeys/register', { credential, conditional: true }, 'Bearer eyJ.auth'],
    ['register, the offer', () => passkeyRegister('eyJ.auth', credential, false), '/passkeys/register', { credential, conditional: false }, 'Bearer eyJ.auth'],
    ['revoke', () => revokeRefresh(), '/token/revoke', {}, undefined]
  ]
  for (const [name, call, path, body, authorization] of calls) {
    const before = upstream.requests.length
    await call()
    t.equal(upstream.requests.length, before + 1, `${name}: one request`)
    const seen = upstream.requests.at(-1)!
    t.equal(seen.method, 'POST', `${name}: POST`)
    t.equal(seen.url, path, `${name}: path`)
    t.same(JSON.parse(seen.body.toString('utf8')), body, `${name}: exact body`)
    t.equal(seen.headers.authorization, authorization, `${name}: Authorization`)
  }
})

t.test('options count only as an object with a challenge on a 2xx answer', async (t) => {
  const cases: Array<[string, number, unknown, unknown]> = [
    ['options', 200, { options: requestOptions }, { kind: 'options', options: requestOptions }],
    ['a refusal', 401, { error: 'Sign in again.' }, { kind: 'error', message: 'Sign in again.' }],
    ['no options', 200, {}, { kind: 'failed' }],
    ['options without a challenge', 200, { options: { rpId: 'localhost' } }, { kind: 'failed' }],
    ['options that are a list', 200, { options: [requestOptions] }, { kind: 'failed' }],
    ['options on a 500', 500, { options: requestOptions }, { kind: 'failed' }]
  ]
  for (const [what, status, body, expected] of cases) {
    const { base } = await startBackend(t, jsonAnswer(status, body), routes)
    setPageUrl(`${base}/`)
    t.same(await passkeyLoginOptions(), expected, `login options: ${what}`)
    t.same(await passkeyRegisterOptions('eyJ.auth', false), expected, `register options: ${what}`)
  }
})

t.test('a passkey login answers with the tokens and what the Signal API needs, or the refusal', async (t) => {
  const tokens = { auth: 'eyJ.auth', refresh: 'refresh-1', email: 'ada@example.test', name: 'Ada', user_id: 'dXNlcg', credential_ids: ['cred-1', 'cred-2'] }
  const cases: Array<[string, number, unknown, unknown]> = [
    ['tokens', 200, tokens,
      { kind: 'tokens', auth: 'eyJ.auth', refresh: 'refresh-1', email: 'ada@example.test', name: 'Ada', userId: 'dXNlcg', credentialIds: ['cred-1', 'cred-2'] }],
    ['tokens without a name or ids', 200, { auth: 'a', refresh: 'r', email: 'ada@example.test' },
      { kind: 'tokens', auth: 'a', refresh: 'r', email: 'ada@example.test', name: '', userId: '', credentialIds: [] }],
    ['ids that are not all strings', 200, { ...tokens, credential_ids: ['cred-1', 7, ''] },
      { kind: 'tokens', auth: 'eyJ.auth', refresh: 'refresh-1', email: 'ada@example.test', name: 'Ada', userId: 'dXNlcg', credentialIds: ['cred-1'] }],
    ['tokens without the email (the domain check needs it)', 200, { auth: 'a', refresh: 'r' }, { kind: 'failed' }],
    ['an unknown credential', 401, { error: 'This passkey is not known.', reason: 'unknown_credential', credential_id: 'cred-9' },
      { kind: 'unknown-credential', message: 'This passkey is not known.', credentialId: 'cred-9' }],
    ['the reason without the id', 401, { error: 'This passkey is not known.', reason: 'unknown_credential' },
      { kind: 'error', message: 'This passkey is not known.' }],
    ['the reason with another status', 400, { error: 'Bad.', reason: 'unknown_credential', credential_id: 'cred-9' }, { kind: 'error', message: 'Bad.' }],
    ['another refusal', 401, { error: 'The passkey could not be verified.' }, { kind: 'error', message: 'The passkey could not be verified.' }],
    ['tokens on a 500', 500, tokens, { kind: 'failed' }]
  ]
  for (const [what, status, body, expected] of cases) {
    const { base } = await startBackend(t, jsonAnswer(status, body), routes)
    setPageUrl(`${base}/`)
    t.same(await passkeyLogin({ id: 'cred-1' }, context, 'button'), expected, what)
  }
})

t.test('registration and revocation answer as every registration-type call', async (t) => {
  const { base } = await startBackend(t, jsonAnswer(400, { error: 'The passkey could not be verified.' }), routes)
  setPageUrl(`${base}/`)
  t.same(await passkeyRegister('eyJ.auth', { id: 'cred-1' }, false), { kind: 'error', message: 'The passkey could not be verified.' })
  const ok = await startBackend(t, jsonAnswer(200, { success: 'Passkey saved.' }), routes)
  setPageUrl(`${ok.base}/`)
  t.same(await passkeyRegister('eyJ.auth', { id: 'cred-1' }, false), { kind: 'success', message: 'Passkey saved.' })
  t.same(await revokeRefresh(), { kind: 'success', message: 'Passkey saved.' })
})

t.test('a network failure or an answer that is not JSON is a failed call, not an exception', async (t) => {
  setPageUrl('http://127.0.0.1:9/')
  t.same(await passkeyLoginOptions(), { kind: 'failed' })
  t.same(await passkeyLogin({ id: 'cred-1' }, context, 'button'), { kind: 'failed' })
  t.same(await passkeyRegister('eyJ.auth', { id: 'cred-1' }, false), { kind: 'failed' })
  // The edge answers in a backend's place when the backend's answer is no JSON: with its own error, or none the page can read.
  const { base } = await startBackend(t, (_request, response) => { response.writeHead(200, { 'content-type': 'text/plain' }); response.end('ok') }, routes)
  setPageUrl(`${base}/`)
  t.match(await passkeyLoginOptions(), { kind: /^(failed|error)$/ }, 'no options from an answer that is not JSON')
})
