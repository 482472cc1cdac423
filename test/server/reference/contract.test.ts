import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server'
import type { FastifyInstance } from 'fastify'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt } from 'jose'
import { Secret, TOTP } from 'otpauth'
import t, { type Test } from 'tap'
import { SPEC_ACCOUNTS_PATHS } from '../../../common/http/accounts-paths.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { buildLocalAccountsServer } from '../../../server/reference/server.js'
import { REFERENCE_HEALTH_PATH } from '../../../server/shared/reference-health.js'
import { OIDC_DISCOVERY_PATH, OIDC_PATH_PREFIX } from '../../../server/shared/oidc/provider-pages.js'
import { ACCOUNT_ROUTES, EMAIL_CODE_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, SOCIAL_ROUTES, SPEC_ACCOUNTS_ROUTES } from '../../../server/shared/accounts-routes.js'
import { SSO_DISCOVERY_ROUTES } from '../../../server/shared/accounts-routes.js'
import { documentPath, loadAccountsContract, type HttpMethod } from '../../../server/shared/accounts-contract.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../fixtures/google/google-identity.js'
import { GOOD_PASSWORD, startReference, TEST_PUBLIC_URL, type Reference } from '../../fixtures/servers/reference.js'
import { registerAccount, verifyAddress } from '../../fixtures/registration/registration.js'
import { accountsLinkOf, resetLinkOf, waitForEmail } from '../../fixtures/emails/outbox.js'
import { emailedCode } from '../../fixtures/email-codes/reference-email-codes.js'
import { SoftwareAuthenticator } from '../../fixtures/passkeys/software-authenticator.js'
import { TestBrowser } from '../../fixtures/sso/sso-browser.js'
import { makeKeyAndCertificate, opensslSkip } from '../../fixtures/sso/sso-certificates.js'
import { OIDC_DOMAIN, SAML_DOMAIN as STACK_SAML_DOMAIN, startSsoStack } from '../../fixtures/sso/sso-service.js'
import { startOAuth2StandIn } from '../../fixtures/social/oauth2-stand-in.js'

/*
 * The reference service checked against docs/accounts-api.openapi.yaml, so that
 * neither can drift from the other: its routes are the document's, and every
 * answer it gives through the real edge has a documented status and fits that
 * status's schema; every status the document lists for a call is produced here
 * (but the edge's own and the few named below).
 */

const contract = loadAccountsContract()
type PathItem = { readonly 'x-threshold-proxied'?: readonly string[], readonly 'x-threshold-route-kind'?: string }
const pathItem = (path: string): PathItem => contract.document.paths[path] as PathItem

/** Statuses only the edge gives (its own refusals), checked in test/server/edge/upstream/accounts-contract.test.ts. */
const EDGE_STATUSES = new Set(['413', '415', '429', '502', '503', '504'])
/** Documented statuses this suite does not produce, and why. */
const NOT_PRODUCED_HERE: Readonly<Record<string, string>> = {
  'post /passkeys/register 409': 'a credential registered twice needs a second ceremony with the same credential id, which a software authenticator does not make',
  'post /account/social/unlink 409': 'emailed codes are on here, and they sign in any account by its address: no link is the last way in (test/server/reference/social/social-account.test.ts produces it)'
}

t.test('the routes the edge proxies and the reference service serves are exactly the document\'s paths', async (t) => {
  const expected = new Map<string, { kind: string, proxied: Set<string> }>()
  const add = (routes: ReadonlyArray<{ path: string, kind: string }>, proxied: string) => {
    for (const route of routes) {
      const entry = expected.get(documentPath(route.path)) ?? { kind: route.kind, proxied: new Set<string>() }
      entry.proxied.add(proxied)
      expected.set(documentPath(route.path), entry)
    }
  }
  add(SPEC_ACCOUNTS_ROUTES, 'always')
  add(REFERENCE_ACCOUNTS_ROUTES.filter((route) => !(SPEC_ACCOUNTS_PATHS as readonly string[]).includes(route.path)), 'embedded')
  add(PASSKEY_ROUTES, 'passkeys')
  add(SECOND_FACTOR_ROUTES, 'second-factor')
  add(ACCOUNT_ROUTES, 'account')
  add(EMAIL_CODE_ROUTES, 'email-codes')
  add(SSO_DISCOVERY_ROUTES, 'sso-discovery')
  add(SOCIAL_ROUTES, 'social')

  const documented = Object.keys(contract.document.paths)
    .filter((path) => pathItem(path)['x-threshold-route-kind'] !== 'grpc-web' && !pathItem(path)['x-threshold-proxied']?.includes('never'))
  t.same(documented.sort(), [...expected.keys()].sort(), 'the proxied paths')
  for (const [path, { kind, proxied }] of expected) {
    t.equal(pathItem(path)?.['x-threshold-route-kind'], kind, `${path}: kind ${kind}`)
    t.same([...pathItem(path)?.['x-threshold-proxied'] ?? []].sort(), [...proxied].sort(), `${path}: proxied ${[...proxied].join(', ')}`)
    const method: HttpMethod = kind === 'read' ? 'get' : 'post'
    t.ok(contract.document.paths[path]?.[method] !== undefined, `${path}: documented as ${method.toUpperCase()}`)
  }

  // The reference service's own routes, as Fastify lists them (HEAD is Fastify's own for each GET), with every setting on.
  const reference = await startReference(t, { env: { SSO_DISCOVERY: 'true' } })
  // Its own readiness route is for the edge's probe on loopback, never proxied and no part of the accounts API.
  // The OpenID Connect provider's paths are no part of it either: its discovery document describes them (docs/oidc-provider.md).
  const served = routesOf(reference.app.printRoutes({ commonPrefix: false })).filter((route) => route !== `GET ${REFERENCE_HEALTH_PATH}` && !isProviderRoute(route))
  const documentedOperations = contract.operations.filter(({ path }) => !pathItem(path)['x-threshold-proxied']?.includes('never'))
    .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
  t.same(served.sort(), documentedOperations.sort(), 'every route it serves is documented, and every documented one is served')
})

/** A route of the OpenID Connect provider: discovery, or under /oidc/ (whose wildcard Fastify's tree prints as `*`). */
function isProviderRoute (route: string): boolean {
  const path = route.slice(route.indexOf(' ') + 1)
  return path === OIDC_DISCOVERY_PATH || path.startsWith(OIDC_PATH_PREFIX) || path === '*'
}

/** `METHOD path` of each route in Fastify's printRoutes tree (without the HEAD Fastify adds to each GET). */
function routesOf (tree: string): string[] {
  const prefixes: string[] = []
  const routes: string[] = []
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line)
    if (match === null) continue
    const depth = match[1]!.length / 4
    const path = (depth === 0 ? '' : prefixes[depth - 1]!) + match[2]!
    prefixes.length = depth
    prefixes[depth] = path
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD' && method !== '-') routes.push(`${method} ${path.includes(':') ? documentPath(path) : path}`)
  }
  return routes
}

interface Exchange {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly headers: Headers
}

/** Calls through the edge and checks each answer against the document, recording the statuses seen. */
class ContractProbe {
  readonly seen = new Map<string, Set<string>>()
  /** The browser's passkey_challenge cookie, sent on the passkey calls; a test may put back an older one. */
  passkeyCookie: string | null = null
  /** The browser's email_code_browser cookie, which binds an emailed code to it: sent on the email-code calls. */
  private emailCodeCookie: string | null = null
  /** The browser's fresh proof (threshold_proof), from its last sign-in or proof, sent on every call unless left out. */
  private proofCookie: string | null = null

  /**
   * `service`: the reference service's own listener and the edge's secret, for
   * the calls made `direct` (those the edge does not forward yet).
   */
  constructor (private readonly t: Test, private readonly base: string, private readonly service?: Pick<Reference, 'url' | 'edgeHeaders'>) {}

  async call (method: HttpMethod, path: string, options: {
    readonly json?: unknown
    readonly form?: string
    readonly query?: string
    /** The values of the path's parameters (`{provider}`). */
    readonly params?: Record<string, string>
    readonly headers?: Record<string, string>
    /** Without this browser's fresh proof: as another browser holding only the token. */
    readonly withoutProof?: boolean
    /** Straight to the reference service, with the edge's secret, rather than through the edge. */
    readonly direct?: boolean
  } = {}): Promise<Exchange> {
    const { t } = this
    const cookies = [
      options.headers?.cookie,
      path.startsWith('/passkeys/') ? this.passkeyCookie : null,
      path.startsWith('/email-code/') ? this.emailCodeCookie : null,
      options.withoutProof === true ? null : this.proofCookie
    ].filter((value) => value != null)
    const direct = options.direct === true && this.service !== undefined ? this.service : null
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''))
    const response = await fetch(`${direct === null ? `${this.base}/accounts` : direct.url}${url}${options.query ?? ''}`, {
      method: method.toUpperCase(),
      redirect: 'manual',
      headers: {
        ...direct?.edgeHeaders,
        ...options.headers,
        ...(cookies.length === 0 ? {} : { cookie: cookies.join('; ') }),
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {})
      },
      ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
      ...(options.form !== undefined ? { body: options.form } : {})
    })
    for (const line of response.headers.getSetCookie()) {
      const match = /^passkey_challenge=([^;]*)/.exec(line)
      if (match !== null) this.passkeyCookie = match[1] === '' ? null : `passkey_challenge=${match[1]}`
      const proof = /^threshold_proof=([^;]*)/.exec(line)
      if (proof !== null) this.proofCookie = proof[1] === '' ? null : `threshold_proof=${proof[1]}`
      const binding = /^email_code_browser=([^;]*)/.exec(line)
      if (binding !== null) this.emailCodeCookie = binding[1] === '' ? null : `email_code_browser=${binding[1]}`
    }
    const text = await response.text()
    const status = response.status
    const name = `${method.toUpperCase()} ${path} → ${status}`
    const documented = contract.responseFor(method, path, status)
    t.ok(documented !== null, `${name}: the status is documented`)
    const type = response.headers.get('content-type') ?? ''
    let body: Record<string, unknown> = {}
    if (type.startsWith('application/json')) {
      body = JSON.parse(text) as Record<string, unknown>
      const check = contract.answerCheck(method, path, status)
      t.ok(check !== null, `${name}: a JSON answer is documented`)
      t.equal(check?.(body) ?? null, null, `${name}: the answer fits the document`)
    } else {
      const content = Object.keys(documented?.response.content ?? {})
      t.ok(text === '' ? content.length === 0 || status >= 300 : content.some((documentedType) => type.startsWith(documentedType)),
        `${name}: ${type || 'no body'} as documented (${content.join(', ') || 'no body'})`)
    }
    if (status >= 300 && status < 400) t.ok(response.headers.get('location'), `${name}: a Location`)
    const key = `${method} ${path}`
    this.seen.set(key, (this.seen.get(key) ?? new Set()).add(String(status)))
    return { status, body, headers: response.headers }
  }

  /** Asserts the status too: the case is the one the test means. */
  async expect (status: number, method: HttpMethod, path: string, options: Parameters<ContractProbe['call']>[2] = {}): Promise<Exchange> {
    const answer = await this.call(method, path, options)
    this.t.equal(answer.status, status, `${method.toUpperCase()} ${path}: ${status} (${JSON.stringify(answer.body).slice(0, 120)})`)
    return answer
  }
}

const NO_CONTEXT = { insecure_allowed_orgs: [], resource_type: null, cluster_name: null }
const SAML_DOMAIN = 'saml.example.test'
const OTHER_SAML_DOMAIN = 'saml-two.example.test'
const UNREACHABLE_OIDC_DOMAIN = 'oidc-down.example.test'
/** A connection that is `required` (docs/sso.md, "Found by the address"): the other ways in are refused for its domain. */
const REQUIRED_OIDC_DOMAIN = 'oidc-required.example.test'

t.test('every answer of the reference service through the edge fits the document, and every documented status is produced', { skip: opensslSkip }, async (t) => {
  const keysDir = mkdtempSync(join(tmpdir(), 'threshold-contract-'))
  t.teardown(() => rmSync(keysDir, { recursive: true, force: true }))
  const idp = makeKeyAndCertificate(keysDir, 'idp')
  const google = await startGoogleStandIn(t)
  const saml = (domain: string) => ({ domain, type: 'saml', entry_point: `https://idp.${domain}/sso`, idp_cert: idp.certificate, sp_entity_id: `https://signin.example.test/saml/${domain}` })
  // It plays two connections, `forge` and `forge-two` (below), each with its own return address: the one of the leg under way.
  let forgeCallback = ''
  const forge = await startOAuth2StandIn(t, () => forgeCallback)
  const forgeConnection = (id: string) => ({
    type: 'oauth2', id, name: id, client_id: forge.clientId, client_secret: forge.clientSecret,
    authorization_endpoint: forge.authorizationEndpoint, token_endpoint: forge.tokenEndpoint, userinfo_endpoint: forge.userinfoEndpoint
  })
  const reference = await startReference(t, {
    env: {
      SOCIAL_CONNECTIONS: JSON.stringify([forgeConnection('forge'), forgeConnection('forge-two')]),
      GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID,
      GOOGLE_JWKS_URL: google.jwksUrl,
      SSO_CONNECTIONS: JSON.stringify([
        saml(SAML_DOMAIN),
        saml(OTHER_SAML_DOMAIN),
        { domain: UNREACHABLE_OIDC_DOMAIN, type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'secret' },
        { domain: REQUIRED_OIDC_DOMAIN, type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'secret', required: true }
      ]),
      SSO_DISCOVERY: 'true'
    },
    edgeEnv: { SSO_DISCOVERY: 'true' }
  })
  const probe = new ContractProbe(t, reference.base, reference)
  const { store } = reference.services

  // Email and password.
  await probe.expect(200, 'post', '/register', { json: { first_name: '', last_name: '', email: 'ann@example.test', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  await probe.expect(409, 'post', '/register', { json: { first_name: 'Ann', last_name: '', email: 'ann@example.test', password: `${GOOD_PASSWORD} too`, confirm_password: `${GOOD_PASSWORD} too` } })
  await probe.expect(400, 'post', '/register', { json: { first_name: '', last_name: '', email: 'bob@example.test', password: 'short', confirm_password: 'short' } })
  const signedIn = await probe.expect(200, 'post', '/v2/login', { json: { email: 'ann@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })
  await probe.expect(401, 'post', '/v2/login', { json: { email: 'ann@example.test', password: 'not the password', ...NO_CONTEXT } })
  await probe.expect(401, 'post', '/v2/login', { json: { email: 'nobody@example.test', password: 'not the password', ...NO_CONTEXT } })
  await probe.expect(400, 'post', '/v2/login', { json: { email: 'not an address', password: 'x', ...NO_CONTEXT } })
  await probe.expect(403, 'post', '/v2/login', { json: { email: 'ann@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT, insecure_allowed_orgs: ['acme'] } })
  await probe.expect(200, 'post', '/resetPasswordRequest', { json: { email: 'ann@example.test' } })
  await probe.expect(200, 'post', '/resetPasswordRequest', { json: { email: 'nobody@example.test' } })
  await probe.expect(400, 'post', '/resetPasswordRequest', { json: { email: '' } })
  const { token } = resetLinkOf(await waitForEmail(reference.dataDir, 1, 'reset'))
  await probe.expect(400, 'post', '/resetPassword', { json: { token, password: GOOD_PASSWORD, confirm_password: 'another one entirely' } })
  await probe.expect(200, 'post', '/resetPassword', { json: { token, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  await probe.expect(200, 'post', '/verifyEmailRequest', { json: { email: 'ann@example.test' } })
  await probe.expect(400, 'post', '/verifyEmailRequest', { json: {} })
  await probe.expect(303, 'get', '/verifyEmail', { query: '?token=not-a-token' })
  await probe.expect(303, 'get', '/endSessions', { query: '?token=not-a-token' })
  await probe.expect(303, 'get', '/undoChange', { query: '?token=not-a-token' })

  // Tokens.
  const tokens = (await probe.expect(200, 'post', '/v2/login', { json: { email: 'ann@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })).body
  t.not(tokens.refresh, signedIn.body.refresh)
  const refreshed = await probe.expect(200, 'post', '/token/refresh', { json: { refresh: tokens.refresh } })
  // Presented again within the grace: a sibling (docs/reference-service.md#how-long-a-session-lives).
  await probe.expect(200, 'post', '/token/refresh', { json: { refresh: tokens.refresh } })
  await probe.expect(400, 'post', '/token/refresh', { json: {} })
  await probe.expect(200, 'post', '/token/revoke', { json: { refresh: refreshed.body.refresh } })
  await probe.expect(401, 'post', '/token/refresh', { json: { refresh: tokens.refresh } })
  await probe.expect(400, 'post', '/token/revoke', { json: {} })
  await probe.expect(200, 'get', '/.well-known/jwks.json')

  // Google.
  const googleToken = (sub: string) => google.credential({ email: 'gia@example.test', sub })
  await probe.expect(200, 'post', '/auth/register', { json: { register_method: 'GOOGLE' }, headers: { authorization: `Bearer ${await googleToken('g-1')}` } })
  await probe.expect(409, 'post', '/auth/register', { json: { register_method: 'GOOGLE' }, headers: { authorization: `Bearer ${await googleToken('g-1')}` } })
  await probe.expect(401, 'post', '/auth/register', { json: { register_method: 'GOOGLE' }, headers: { authorization: 'Bearer not.a.token' } })
  await probe.expect(400, 'post', '/auth/register', { json: { register_method: 'FACEBOOK' } })
  const googleLogin = (extra: Record<string, unknown> = {}) => ({ email: 'gia@example.test', login_method: 'GOOGLE', ...NO_CONTEXT, ...extra })
  await probe.expect(200, 'post', '/v2/auth/login', { json: googleLogin(), headers: { authorization: `Bearer ${await googleToken('g-1')}` } })
  await probe.expect(403, 'post', '/v2/auth/login', { json: googleLogin({ insecure_allowed_orgs: ['acme'] }), headers: { authorization: `Bearer ${await googleToken('g-1')}` } })
  await probe.expect(404, 'post', '/v2/auth/login', { json: googleLogin(), headers: { authorization: `Bearer ${await google.credential({ email: 'new@example.test', sub: 'g-2' })}` } })
  await probe.expect(401, 'post', '/v2/auth/login', { json: googleLogin(), headers: { authorization: 'Bearer not.a.token' } })
  await probe.expect(400, 'post', '/v2/auth/login', { json: googleLogin({ login_method: 'FACEBOOK' }) })

  // Single sign-on: the start, the identity provider's return leg, the completions.
  const started = await probe.expect(200, 'post', '/auth/login/sso', { json: { email: `sam@${SAML_DOMAIN}`, source: 'login', redirect: null, ...NO_CONTEXT } })
  t.ok(started.headers.getSetCookie().some((cookie) => cookie.startsWith('sso_state=')), 'the start sets sso_state')
  await probe.expect(400, 'post', '/auth/login/sso', { json: { email: 'sam@nowhere.example.test', source: 'register', redirect: '/app', ...NO_CONTEXT } })
  const unreachable = await probe.call('post', '/auth/login/sso', { json: { email: `olga@${UNREACHABLE_OIDC_DOMAIN}`, source: 'login', redirect: null, ...NO_CONTEXT } })
  t.equal(unreachable.status, 502, 'an unreachable identity provider')
  await probe.expect(303, 'get', '/auth/sso/oidc/callback', { query: '?state=not-a-state&code=x' })
  await probe.expect(303, 'post', '/auth/sso/saml/acs', { form: 'SAMLResponse=x' })
  await probe.expect(303, 'get', '/auth/sso/saml/continue', { query: '?code=not-a-code' })
  await probe.expect(200, 'get', '/auth/sso/saml/metadata', { query: `?domain=${SAML_DOMAIN}` })
  await probe.expect(400, 'get', '/auth/sso/saml/metadata')
  await probe.expect(404, 'get', '/auth/sso/saml/metadata', { query: '?domain=unknown.example.test' })
  const unknownId = 'a'.repeat(43)
  await probe.expect(401, 'post', '/v2/auth/login', { json: { email: `sam@${SAML_DOMAIN}`, login_method: 'SAML', id: unknownId, ...NO_CONTEXT }, headers: { cookie: 'sso_state=not-this-browser' } })
  await probe.expect(401, 'post', '/auth/register', { json: { register_method: 'OIDC', id: unknownId }, headers: { cookie: 'sso_state=not-this-browser' } })

  // Passkeys.
  await probe.expect(200, 'post', '/register', { json: { first_name: 'Pia', last_name: 'Key', email: 'pia@example.test', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  const pia = (await probe.expect(200, 'post', '/v2/login', { json: { email: 'pia@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })).body
  const piaBearer = { authorization: `Bearer ${String(pia.auth)}` }
  const authenticator = new SoftwareAuthenticator(TEST_PUBLIC_URL)
  await probe.expect(401, 'post', '/passkeys/register/options', { json: { conditional: false } })
  await probe.expect(403, 'post', '/passkeys/register/options', { json: { conditional: false }, headers: piaBearer, withoutProof: true })
  await probe.expect(400, 'post', '/passkeys/register/options', { json: { conditional: 'yes' }, headers: piaBearer })
  // Two prompt-less registrations started on one sign-in: the first spends it, the second is refused.
  const firstUpgrade = await probe.expect(200, 'post', '/passkeys/register/options', { json: { conditional: true }, headers: piaBearer })
  const firstUpgradeCookie = probe.passkeyCookie
  const secondUpgrade = await probe.expect(200, 'post', '/passkeys/register/options', { json: { conditional: true }, headers: piaBearer })
  await probe.expect(200, 'post', '/passkeys/register', {
    json: { credential: authenticator.create(secondUpgrade.body.options as PublicKeyCredentialCreationOptionsJSON, { userVerified: false }), conditional: true }, headers: piaBearer
  })
  probe.passkeyCookie = firstUpgradeCookie
  await probe.expect(403, 'post', '/passkeys/register', {
    json: { credential: authenticator.create(firstUpgrade.body.options as PublicKeyCredentialCreationOptionsJSON, { userVerified: false }), conditional: true }, headers: piaBearer
  })
  const creation = await probe.expect(200, 'post', '/passkeys/register/options', { json: { conditional: false }, headers: piaBearer })
  const credential = authenticator.create(creation.body.options as PublicKeyCredentialCreationOptionsJSON)
  await probe.expect(401, 'post', '/passkeys/register', { json: { credential } })
  await probe.expect(400, 'post', '/passkeys/register', { json: { credential: {} }, headers: piaBearer })
  await probe.expect(200, 'post', '/passkeys/register', { json: { credential }, headers: piaBearer })
  const requestOptions = async () => (await probe.expect(200, 'post', '/passkeys/login/options', { json: {} })).body.options as PublicKeyCredentialRequestOptionsJSON
  await probe.expect(200, 'post', '/passkeys/login', { json: { credential: authenticator.get(await requestOptions()), ...NO_CONTEXT } })
  const unknown = await probe.expect(401, 'post', '/passkeys/login', { json: { credential: authenticator.get(await requestOptions(), { credentialId: 'bm90LWEtcmVhbC1jcmVkZW50aWFs' }), ...NO_CONTEXT } })
  t.equal(unknown.body.reason, 'unknown_credential')
  await probe.expect(403, 'post', '/passkeys/login', { json: { credential: authenticator.get(await requestOptions()), ...NO_CONTEXT, insecure_allowed_orgs: ['acme'] } })
  await probe.expect(400, 'post', '/passkeys/login', { json: { credential: {}, ...NO_CONTEXT } })

  // Proving the account again, and removing a passkey (docs/account-changes.md).
  await probe.expect(401, 'post', '/reauthenticate', { json: { password: GOOD_PASSWORD } })
  await probe.expect(401, 'post', '/reauthenticate', { json: { password: 'not the password' }, headers: piaBearer })
  await probe.expect(400, 'post', '/reauthenticate', { json: {}, headers: piaBearer })
  await probe.expect(200, 'post', '/reauthenticate', { json: { password: GOOD_PASSWORD }, headers: piaBearer })
  await probe.expect(401, 'post', '/passkeys/reauthenticate/options', { json: {} })
  const proofOptions = await probe.expect(200, 'post', '/passkeys/reauthenticate/options', { json: {}, headers: piaBearer })
  await probe.expect(400, 'post', '/passkeys/reauthenticate', { json: { credential: {} }, headers: piaBearer })
  await probe.expect(401, 'post', '/passkeys/reauthenticate', { json: { credential: authenticator.get(proofOptions.body.options as PublicKeyCredentialRequestOptionsJSON) } })
  const spentOptions = await probe.expect(200, 'post', '/passkeys/reauthenticate/options', { json: {}, headers: piaBearer })
  await probe.expect(200, 'post', '/passkeys/reauthenticate', { json: { credential: authenticator.get(spentOptions.body.options as PublicKeyCredentialRequestOptionsJSON) }, headers: piaBearer })
  // The owner's own changes from the account view, straight to the service.
  const direct = { headers: piaBearer, direct: true }
  await probe.expect(401, 'post', '/passkeys/list', { json: {}, direct: true })
  const piasPasskeys = await probe.expect(200, 'post', '/passkeys/list', { json: {}, ...direct, withoutProof: true })
  t.same((piasPasskeys.body.passkeys as Array<{ id: string }>).map((passkey) => passkey.id).includes(credential.id), true, 'the passkey made above is listed')
  await probe.expect(401, 'post', '/passkeys/rename', { json: { id: credential.id, name: 'Pia\'s key' }, direct: true })
  await probe.expect(403, 'post', '/passkeys/rename', { json: { id: credential.id, name: 'Pia\'s key' }, ...direct, withoutProof: true })
  await probe.expect(400, 'post', '/passkeys/rename', { json: { id: credential.id, name: ' ' }, ...direct })
  await probe.expect(404, 'post', '/passkeys/rename', { json: { id: 'bm90LWEtcmVhbC1jcmVkZW50aWFs', name: 'Pia\'s key' }, ...direct })
  await probe.expect(200, 'post', '/passkeys/rename', { json: { id: credential.id, name: 'Pia\'s key' }, ...direct })
  await probe.expect(401, 'post', '/password/change', { json: { newPassword: GOOD_PASSWORD }, direct: true })
  await probe.expect(403, 'post', '/password/change', { json: { newPassword: GOOD_PASSWORD }, ...direct, withoutProof: true })
  await probe.expect(400, 'post', '/password/change', { json: { newPassword: 'short' }, ...direct })
  await probe.expect(200, 'post', '/password/change', { json: { newPassword: GOOD_PASSWORD, endOtherSessions: false }, ...direct })

  await probe.expect(401, 'post', '/passkeys/remove', { json: { id: credential.id } })
  await probe.expect(403, 'post', '/passkeys/remove', { json: { id: credential.id }, headers: piaBearer, withoutProof: true })
  await probe.expect(400, 'post', '/passkeys/remove', { json: { id: 'not a credential id' }, headers: piaBearer })
  await probe.expect(404, 'post', '/passkeys/remove', { json: { id: 'bm90LWEtcmVhbC1jcmVkZW50aWFs' }, headers: piaBearer })
  await probe.expect(200, 'post', '/passkeys/remove', { json: { id: credential.id }, headers: piaBearer })

  // Signing out of the other sessions: a live session is enough, without a proof.
  await probe.expect(401, 'post', '/sessions/end-others', { json: {} })
  await probe.expect(200, 'post', '/sessions/end-others', { json: {}, headers: piaBearer, withoutProof: true })

  // The account view (docs/account-changes.md): reading and ending a session need a live session, a deletion a fresh proof too.
  await probe.expect(200, 'post', '/register', { json: { first_name: '', last_name: '', email: 'dee@example.test', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  const deeLogin = { json: { email: 'dee@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } }
  const deeElsewhere = String((await probe.expect(200, 'post', '/v2/login', deeLogin)).body.auth)
  const deeBearer = { authorization: `Bearer ${String((await probe.expect(200, 'post', '/v2/login', deeLogin)).body.auth)}` }
  for (const path of ['/account/overview', '/sessions/list', '/activity/list']) {
    await probe.expect(401, 'post', path, { json: {} })
    await probe.expect(200, 'post', path, { json: {}, headers: deeBearer, withoutProof: true })
  }
  await probe.expect(401, 'post', '/sessions/end', { json: { id: String(decodeJwt(deeElsewhere).sid) } })
  await probe.expect(400, 'post', '/sessions/end', { json: {}, headers: deeBearer })
  await probe.expect(404, 'post', '/sessions/end', { json: { id: 'no-such-session' }, headers: deeBearer })
  await probe.expect(200, 'post', '/sessions/end', { json: { id: String(decodeJwt(deeElsewhere).sid) }, headers: deeBearer, withoutProof: true })
  await probe.expect(401, 'post', '/account/delete', { json: { confirmEmail: 'dee@example.test' } })
  await probe.expect(403, 'post', '/account/delete', { json: { confirmEmail: 'dee@example.test' }, headers: deeBearer, withoutProof: true })
  await probe.expect(400, 'post', '/account/delete', { json: { confirmEmail: 'pia@example.test' }, headers: deeBearer })
  await probe.expect(200, 'post', '/account/delete', { json: { confirmEmail: 'dee@example.test' }, headers: deeBearer })

  // The second factor: a voluntary enrolment, then a login that asks for it.
  await probe.expect(200, 'post', '/register', { json: { first_name: '', last_name: '', email: 'sif@example.test', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  const sif = (await probe.expect(200, 'post', '/v2/login', { json: { email: 'sif@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })).body
  const sifBearer = { authorization: `Bearer ${String(sif.auth)}` }
  await probe.expect(401, 'post', '/second-factor/enrol/start', { json: {} })
  await probe.expect(401, 'post', '/second-factor/enrol/start', { json: { challenge: 'not-a-challenge' } })
  await probe.expect(400, 'post', '/second-factor/enrol/start', { json: { challenge: 5 }, headers: sifBearer })
  await probe.expect(400, 'post', '/second-factor/enrol/confirm', { json: { code: '123456' }, headers: sifBearer })
  await probe.expect(403, 'post', '/second-factor/enrol/start', { json: {}, headers: sifBearer, withoutProof: true })
  await probe.expect(400, 'post', '/passkeys/reauthenticate/options', { json: {}, headers: sifBearer })
  await probe.expect(404, 'post', '/second-factor/remove', { json: {}, headers: sifBearer })
  await probe.expect(404, 'post', '/second-factor/recovery-codes', { json: {}, headers: sifBearer })
  const secret = String((await probe.expect(200, 'post', '/second-factor/enrol/start', { json: {}, headers: sifBearer })).body.secret)
  const code = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate()
  await probe.expect(401, 'post', '/second-factor/enrol/confirm', { json: { code } })
  const confirmed = await probe.expect(200, 'post', '/second-factor/enrol/confirm', { json: { code }, headers: sifBearer })
  await probe.expect(409, 'post', '/second-factor/enrol/start', { json: {}, headers: sifBearer })
  await probe.expect(409, 'post', '/second-factor/enrol/confirm', { json: { code }, headers: sifBearer })
  const due = await probe.expect(200, 'post', '/v2/login', { json: { email: 'sif@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })
  t.equal(due.body.second_factor, 'code', 'the login asks for a code')
  const challenge = String(due.body.challenge)
  await probe.expect(400, 'post', '/second-factor/verify', { json: { challenge, code: '12', remember_browser: false } })
  await probe.expect(401, 'post', '/second-factor/verify', { json: { challenge: 'not-a-challenge', code: '123456', remember_browser: false } })
  const [recoveryCode] = confirmed.body.recovery_codes as string[]
  // The session this sign-in starts is the one whose fresh proof the browser now holds.
  const sifAgain = await probe.expect(200, 'post', '/second-factor/verify', { json: { challenge, recovery_code: recoveryCode, remember_browser: true } })
  const sifNow = { authorization: `Bearer ${String(sifAgain.body.auth)}` }

  // The authenticator's recovery codes renewed, then the authenticator turned off.
  await probe.expect(401, 'post', '/second-factor/recovery-codes', { json: {} })
  await probe.expect(403, 'post', '/second-factor/recovery-codes', { json: {}, headers: sifNow, withoutProof: true })
  await probe.expect(200, 'post', '/second-factor/recovery-codes', { json: {}, headers: sifNow })
  await probe.expect(401, 'post', '/second-factor/forget-browsers', { json: {}, direct: true })
  await probe.expect(403, 'post', '/second-factor/forget-browsers', { json: {}, headers: sifNow, withoutProof: true, direct: true })
  await probe.expect(200, 'post', '/second-factor/forget-browsers', { json: {}, headers: sifNow, direct: true })
  await probe.expect(401, 'post', '/second-factor/remove', { json: {} })
  await probe.expect(403, 'post', '/second-factor/remove', { json: {}, headers: sifNow, withoutProof: true })
  const sifAccount = (await store.findAccountByEmail('sif@example.test'))!
  await store.addMembership(sifAccount.id, 'strict-org')
  await store.setOrganizationRequiresSecondFactor('strict-org', true)
  await probe.expect(409, 'post', '/second-factor/remove', { json: {}, headers: sifNow })
  await store.setOrganizationRequiresSecondFactor('strict-org', false)
  await probe.expect(200, 'post', '/second-factor/remove', { json: {}, headers: sifNow })

  // A reset lists the authenticator set up just now, for removal.
  // Her own address, verified where she registered: a never-verified account's reset would claim it, and take the authenticator with it.
  await verifyAddress(reference.base, reference.dataDir, 'rue@example.test', await registerAccount(reference.base, 'rue@example.test'))
  const rueBearer = { authorization: `Bearer ${String((await probe.expect(200, 'post', '/v2/login', { json: { email: 'rue@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })).body.auth)}` }
  const rueSecret = String((await probe.expect(200, 'post', '/second-factor/enrol/start', { json: {}, headers: rueBearer })).body.secret)
  const rueCode = new TOTP({ secret: Secret.fromBase32(rueSecret), algorithm: 'SHA1', digits: 6, period: 30 }).generate()
  await probe.expect(200, 'post', '/second-factor/enrol/confirm', { json: { code: rueCode }, headers: rueBearer })
  await probe.expect(200, 'post', '/resetPasswordRequest', { json: { email: 'rue@example.test' } })
  const rueReset = resetLinkOf(await waitForEmail(reference.dataDir, 2, 'reset')).token
  const listed = await probe.expect(200, 'post', '/resetPassword', { json: { token: rueReset, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  t.ok(listed.body.review_token, 'the reset lists the new authenticator')
  const review = { review_token: listed.body.review_token, second_factor: true }
  await probe.expect(400, 'post', '/recentFactors/remove', { json: { review_token: listed.body.review_token } })
  await probe.expect(401, 'post', '/recentFactors/remove', { json: { ...review, review_token: 'A'.repeat(43) } })
  await probe.expect(200, 'post', '/recentFactors/remove', { json: review })
  await probe.expect(404, 'post', '/recentFactors/remove', { json: review })

  // A new address, asked for and confirmed (docs/account-changes.md), straight to the service; its link through the edge.
  await probe.expect(200, 'post', '/register', { json: { first_name: '', last_name: '', email: 'eve@example.test', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  const eveBearer = { authorization: `Bearer ${String((await probe.expect(200, 'post', '/v2/login', { json: { email: 'eve@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })).body.auth)}` }
  await probe.expect(401, 'post', '/email/change', { json: { newEmail: 'eve@new.example.test' }, direct: true })
  await probe.expect(403, 'post', '/email/change', { json: { newEmail: 'eve@new.example.test' }, headers: eveBearer, withoutProof: true, direct: true })
  await probe.expect(400, 'post', '/email/change', { json: { newEmail: 'not an address' }, headers: eveBearer, direct: true })
  await probe.expect(200, 'post', '/email/change', { json: { newEmail: 'eve@new.example.test' }, headers: eveBearer, direct: true })
  const eveLink = accountsLinkOf(await waitForEmail(reference.dataDir, 1, 'addressChange'), 'confirmEmail').token
  await probe.expect(303, 'get', '/confirmEmail', { query: `?token=${'A'.repeat(43)}` })
  await probe.expect(400, 'post', '/email/confirm', { json: { token: 'A'.repeat(43) }, direct: true })
  await probe.expect(200, 'post', '/email/confirm', { json: { token: eveLink }, direct: true })

  // The emailed code (docs/email-codes.md), on by default with the embedded service: a sign-up, a refusal, a fresh proof.
  await probe.expect(400, 'post', '/email-code/send', { json: { email: 'not an address' } })
  await probe.expect(400, 'post', '/email-code/send', { json: { purpose: 'unlock' } })
  await probe.expect(401, 'post', '/email-code/send', { json: { purpose: 'reauthenticate' } })
  await probe.expect(401, 'post', '/email-code/send', { json: { purpose: 'reauthenticate' }, headers: { authorization: 'Bearer not.a.token' } })
  await probe.expect(200, 'post', '/email-code/send', { json: { email: 'cy@example.test' } })
  await probe.expect(400, 'post', '/email-code/login', { json: { email: 'cy@example.test', code: '12', ...NO_CONTEXT } })
  const wrongCode = await probe.expect(401, 'post', '/email-code/login', { json: { email: 'cy@example.test', code: 'ABCD-EFGH', ...NO_CONTEXT } })
  t.equal(wrongCode.body.reason, 'code_wrong')
  // The code proves the address, so the account is made; its organisations are then refused as a password's would be.
  const cyCode = (await emailedCode(reference.dataDir, 'cy@example.test')).code
  await probe.expect(403, 'post', '/email-code/login', { json: { email: 'cy@example.test', code: cyCode, ...NO_CONTEXT, insecure_allowed_orgs: ['acme'] } })
  const spent = await probe.expect(401, 'post', '/email-code/login', { json: { email: 'cy@example.test', code: cyCode, ...NO_CONTEXT } })
  t.equal(spent.body.reason, 'code_expired', 'a code is used once')
  await probe.expect(200, 'post', '/email-code/send', { json: { email: 'dan@example.test' } })
  const danCode = (await emailedCode(reference.dataDir, 'dan@example.test')).code
  const dan = await probe.expect(200, 'post', '/email-code/login', { json: { email: 'dan@example.test', code: danCode.toLowerCase(), ...NO_CONTEXT } })
  t.equal(dan.body.registered, true, 'the code made the account')
  await probe.expect(200, 'post', '/email-code/send', { json: { purpose: 'reauthenticate' }, headers: { authorization: `Bearer ${String(dan.body.auth)}` } })
  t.ok((await emailedCode(reference.dataDir, 'dan@example.test', 2)).code, 'the fresh proof\'s code went to the account\'s own address')

  // SSO found by the address, and a required connection's refusals (docs/sso.md, "Found by the address").
  await probe.expect(200, 'post', '/auth/sso/discover', { json: { email: `sam@${SAML_DOMAIN}` } })
  await probe.expect(200, 'post', '/auth/sso/discover', { json: { email: `ro@${REQUIRED_OIDC_DOMAIN}` } })
  await probe.expect(200, 'post', '/auth/sso/discover', { json: { email: 'ann@example.test' } })
  await probe.expect(400, 'post', '/auth/sso/discover', { json: { email: 'not an address' } })
  const required = `ro@${REQUIRED_OIDC_DOMAIN}`
  await probe.expect(403, 'post', '/v2/login', { json: { email: required, password: GOOD_PASSWORD, ...NO_CONTEXT } })
  await probe.expect(403, 'post', '/register', { json: { first_name: '', last_name: '', email: required, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  await probe.expect(403, 'post', '/email-code/send', { json: { email: required } })
  await probe.expect(403, 'post', '/email-code/login', { json: { email: required, code: 'ABCD-EFGH', ...NO_CONTEXT } })
  const requiredGoogle = { authorization: `Bearer ${await google.credential({ email: required, sub: 'g-required' })}` }
  await probe.expect(403, 'post', '/auth/register', { json: { register_method: 'GOOGLE' }, headers: requiredGoogle })
  await probe.expect(403, 'post', '/v2/auth/login', { json: { login_method: 'GOOGLE', email: required, ...NO_CONTEXT }, headers: { authorization: `Bearer ${await google.credential({ email: required, sub: 'g-required-2' })}` } })
  // Social connections (docs/social-sign-in.md), straight to the service: the edge proxies them while SOCIAL_CONNECTIONS names any.
  const social = { direct: true } as const
  const stateOf = (exchange: Exchange): string => exchange.headers.getSetCookie().find((line) => line.startsWith('social_state='))!.split(';')[0]!
  /** The provider's leg: approved for `login`, back through the callback; the page's return address. */
  const socialLeg = async (started: Exchange, login: string): Promise<URL> => {
    forgeCallback = new URL(String(started.body.url)).searchParams.get('redirect_uri')!
    const callback = new URL(await forge.approve(String(started.body.url), login))
    const landed = await probe.expect(303, 'get', '/auth/social/callback/{provider}', {
      ...social, params: { provider: callback.pathname.split('/').at(-1)! }, query: callback.search, headers: { cookie: stateOf(started) }
    })
    return new URL(landed.headers.get('location')!)
  }
  forge.users.set('kim', { sub: 'kim', email: 'kim@example.test', email_verified: true })
  forge.users.set('kim-2', { sub: 'kim-2', email: 'kim@elsewhere.test', email_verified: true })
  forge.users.set('kim-3', { sub: 'kim-3', email: 'kim3@elsewhere.test', email_verified: true })
  forge.users.set('not-dan', { sub: 'not-dan', email: 'dan@example.test', email_verified: true })
  await probe.expect(400, 'post', '/auth/login/social', { ...social, json: { provider: 'myspace', source: 'login' } })
  const kimStart = await probe.expect(200, 'post', '/auth/login/social', { ...social, json: { provider: 'forge', source: 'login', ...NO_CONTEXT } })
  const kimReturn = await socialLeg(kimStart, 'kim')
  t.equal(kimReturn.searchParams.get('social'), 'forge')
  const kim = await probe.expect(200, 'post', '/v2/auth/login', {
    ...social, json: { login_method: 'SOCIAL', provider: 'forge', id: kimReturn.searchParams.get('id'), ...NO_CONTEXT }, headers: { cookie: stateOf(kimStart) }
  })
  t.equal(kim.body.registered, true, 'the sign-in made the account')
  const danStart = await probe.expect(200, 'post', '/auth/login/social', { ...social, json: { provider: 'forge', source: 'login', ...NO_CONTEXT } })
  const danReturn = await socialLeg(danStart, 'not-dan')
  await probe.expect(409, 'post', '/v2/auth/login', {
    ...social, json: { login_method: 'SOCIAL', provider: 'forge', id: danReturn.searchParams.get('id'), ...NO_CONTEXT }, headers: { cookie: stateOf(danStart) }
  })
  await probe.expect(303, 'post', '/auth/social/form-post/{provider}', { ...social, params: { provider: 'forge' }, form: 'state=not-a-state' })
  await probe.expect(303, 'get', '/auth/social/continue', { ...social, query: '?code=not-a-code' })
  const kimAuth = { authorization: `Bearer ${String(kim.body.auth)}` }
  await probe.expect(401, 'post', '/account/social/link/start', { ...social, json: { provider: 'forge-two' } })
  await probe.expect(400, 'post', '/account/social/link/start', { ...social, json: { provider: 'Not An Id' }, headers: kimAuth })
  await probe.expect(403, 'post', '/account/social/link/start', { ...social, json: { provider: 'forge-two' }, headers: kimAuth, withoutProof: true })
  const linkStart = await probe.expect(200, 'post', '/account/social/link/start', { ...social, json: { provider: 'forge-two' }, headers: kimAuth })
  const linkReturn = await socialLeg(linkStart, 'kim-2')
  t.equal(linkReturn.searchParams.get('social_link'), 'forge-two')
  await probe.expect(400, 'post', '/account/social/link', { ...social, json: { id: 'short' }, headers: kimAuth })
  await probe.expect(401, 'post', '/account/social/link', { ...social, json: { id: 'x'.repeat(43) }, headers: { ...kimAuth, cookie: stateOf(linkStart) } })
  await probe.expect(200, 'post', '/account/social/link', { ...social, json: { id: linkReturn.searchParams.get('id') }, headers: { ...kimAuth, cookie: stateOf(linkStart) } })
  const againStart = await probe.expect(200, 'post', '/account/social/link/start', { ...social, json: { provider: 'forge-two' }, headers: kimAuth })
  const againReturn = await socialLeg(againStart, 'kim-3')
  await probe.expect(409, 'post', '/account/social/link', { ...social, json: { id: againReturn.searchParams.get('id') }, headers: { ...kimAuth, cookie: stateOf(againStart) } })
  const overview = await probe.expect(200, 'post', '/account/overview', { json: {}, headers: kimAuth })
  t.same((overview.body.social as Array<{ provider: string, email: string | null }>).map(({ provider, email }) => [provider, email]),
    [['forge', 'kim@example.test'], ['forge-two', 'kim@elsewhere.test']], 'the overview lists both, linked')
  await probe.expect(401, 'post', '/account/social/unlink', { ...social, json: { provider: 'forge-two' } })
  await probe.expect(400, 'post', '/account/social/unlink', { ...social, json: {}, headers: kimAuth })
  await probe.expect(403, 'post', '/account/social/unlink', { ...social, json: { provider: 'forge-two' }, headers: kimAuth, withoutProof: true })
  await probe.expect(404, 'post', '/account/social/unlink', { ...social, json: { provider: 'gitlab' }, headers: kimAuth })
  await probe.expect(200, 'post', '/account/social/unlink', { ...social, json: { provider: 'forge-two' }, headers: kimAuth })

  // Every status the document lists for a reference call was produced above.
  for (const { method, path, operation } of contract.operations) {
    const item = pathItem(path)
    if (item['x-threshold-route-kind'] === 'grpc-web' || item['x-threshold-proxied']?.includes('never')) continue
    const seen = probe.seen.get(`${method} ${path}`) ?? new Set()
    for (const key of Object.keys(operation.responses ?? {}).filter((status) => /^\d{3}$/.test(status) && !EDGE_STATUSES.has(status))) {
      if (NOT_PRODUCED_HERE[`${method} ${path} ${key}`] !== undefined) continue
      t.ok(seen.has(key), `${method.toUpperCase()} ${path}: the documented ${key} is produced by the reference service`)
    }
  }
  t.ok(await store.findAccountByEmail('pia@example.test'), 'the accounts were made in the store the edge reaches')
})

t.test('a login refused for an address not verified yet carries the reason the document names', async (t) => {
  const reference = await startReference(t, { env: { REQUIRE_VERIFIED_EMAIL: 'true' } })
  const probe = new ContractProbe(t, reference.base)
  await probe.expect(200, 'post', '/register', { json: { first_name: '', last_name: '', email: 'una@example.test', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  const refused = await probe.expect(403, 'post', '/v2/login', { json: { email: 'una@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT } })
  t.equal(refused.body.reason, 'email_not_verified')
})

t.test('local-network mode\'s /authenticate answers as the document says', async (t) => {
  const reference = await startReference(t)
  const local: FastifyInstance = await buildLocalAccountsServer({ services: reference.services, logger: false, perMinute: 1000 })
  t.teardown(() => local.close())
  for (const email of ['lou@example.test', 'rae@example.test']) {
    await fetch(`${reference.base}/accounts/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: '', last_name: '', email, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
    })
  }
  // Rae's organisation requires a second factor: her login answers a challenge.
  const { store } = reference.services
  await store.addMembership((await store.findAccountByEmail('rae@example.test'))!.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)
  const cases: Array<[number, unknown, Record<string, string>]> = [
    [200, { email: 'lou@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT }, { origin: TEST_PUBLIC_URL }],
    [200, { email: 'rae@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT }, { origin: TEST_PUBLIC_URL }],
    [401, { email: 'lou@example.test', password: 'not it', ...NO_CONTEXT }, { origin: TEST_PUBLIC_URL }],
    [400, { email: 'nope', password: 'x', ...NO_CONTEXT }, { origin: TEST_PUBLIC_URL }],
    [403, { email: 'lou@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT }, { origin: 'https://elsewhere.example.test' }],
    [403, { email: 'lou@example.test', password: GOOD_PASSWORD, ...NO_CONTEXT, insecure_allowed_orgs: ['acme'] }, { origin: TEST_PUBLIC_URL }]
  ]
  for (const [status, body, headers] of cases) {
    const answer = await local.inject({ method: 'POST', url: '/authenticate', headers, payload: body as Record<string, unknown> })
    t.equal(answer.statusCode, status, `/authenticate ${status}`)
    const check = contract.answerCheck('post', '/authenticate', status)
    t.ok(check !== null, `/authenticate ${status} is documented`)
    t.equal(check?.(answer.json()), null, `/authenticate ${status} fits the document`)
  }
})

t.test('single sign-on end to end: the return address carries what the document names, and the completions fit it', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t)
  stack.oidc.users.set('ann', { email: `ann@${OIDC_DOMAIN}`, email_verified: true })
  const fits = (path: string, answer: { status: number, body: Record<string, unknown> }, status: number, name: string) => {
    t.equal(answer.status, status, `${name}: ${status}`)
    const check = contract.answerCheck('post', path, answer.status)
    t.ok(check !== null, `${name}: documented`)
    t.equal(check?.(answer.body), null, `${name}: fits the document`)
  }

  const browser = new TestBrowser()
  const landing = await stack.oidcRoundTrip(browser, 'ann', { redirect: null, ...NO_CONTEXT })
  t.equal(landing.url.pathname, '/', 'the page itself')
  t.ok(landing.params.has('oidc') && landing.params.has('login'), 'the protocol and intent flags')
  t.equal(landing.params.get('email'), `ann@${OIDC_DOMAIN}`)
  t.match(landing.params.get('id'), /^[\w-]{43}$/, 'the single-use id')
  t.match(String((contract.document['x-threshold-sso-return'] as { url: string }).url), /\{protocol\}=1&email=\{address\}&id=\{single-use id\}&\{intent\}=1/)
  // The page's call is a browser's: the edge moved the refresh token into its cookie; the service's answer had it in the body.
  const completed = await stack.completeLogin(browser, landing)
  const refreshCookie = completed.setCookie.find((line) => line.startsWith('refresh='))
  fits('/v2/auth/login', { ...completed, body: { ...completed.body, refresh: refreshCookie?.slice('refresh='.length, refreshCookie.indexOf(';')) } }, 200, 'the login completion')
  fits('/v2/auth/login', await stack.completeLogin(browser, landing), 401, 'the same id again')

  const registering = new TestBrowser()
  const registration = await stack.samlRoundTrip(registering, `bea@${STACK_SAML_DOMAIN}`, { source: 'register', redirect: null, ...NO_CONTEXT })
  t.ok(registration.params.has('saml') && registration.params.has('register'), 'a registration returns with the saml and register flags')
  fits('/auth/register', await stack.completeRegister(registering, registration), 200, 'the registration completion')
  const again = new TestBrowser()
  fits('/auth/register', await stack.completeRegister(again, await stack.samlRoundTrip(again, `bea@${STACK_SAML_DOMAIN}`, { source: 'register' })), 409, 'a second registration')
})
