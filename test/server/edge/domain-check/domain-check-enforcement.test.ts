import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { ERROR_MESSAGES } from '../../../../common/languages/error-messages.js'
import { CheckDomainAuthorizationRequest, CheckDomainAuthorizationResponse } from '../../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { PASSKEY_ROUTES, SECOND_FACTOR_ROUTES, SPEC_ACCOUNTS_ROUTES, withRoutes } from '../../../../server/shared/accounts-routes.js'
import { DATA_FRAME, decodeFrames, encodeFrame, encodeTrailers } from '../../../../server/shared/domain-check/grpc-web-frames.js'
import { buildEdge, captureLog, DEAD_UPSTREAM, jsonAnswer, listen, startUpstream, type LogLine, type RecordedRequest, type Upstream, startEdgeWithUpstream } from '../../../fixtures/servers/edge.js'
import { startEdgeAuthResponder } from '../../../fixtures/domain-check/edge-auth.js'
import { postJson } from '../../../fixtures/http/post-json.js'

/**
 * DOMAIN_CHECK_ENFORCED=true: the edge runs the domain check itself before
 * it proxies a login call, against a real gRPC-web service on a loopback
 * port, and a refused login never reaches the accounts stand-in.
 */

const TOKENS = { auth: 'a.b.c', refresh: 'r' }
const TIMEOUT_MS = 300
const ANSWER_BOUND_MS = 3000
const AUTHORIZED = 1
const UNAUTHORIZED = 2

/** A gRPC-web answer carrying `authorization`, as a service would send it. */
function grpcWebAnswer (authorization: number) {
  return (_request: RecordedRequest, response: ServerResponse): void => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(authorization).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeTrailers(0)]))
  }
}

/** The domain a recorded gRPC-web request asked about. */
function askedDomain (request: RecordedRequest | undefined): string | null {
  if (request === undefined) return null
  const [frame] = decodeFrames(request.body)
  return CheckDomainAuthorizationRequest.deserializeBinary(frame!.payload).getDomain()
}

interface Setup {
  readonly base: string
  readonly accounts: Upstream
  readonly lines: LogLine[]
}

async function edgeWith (t: Test, edgeAuthUpstream: string, env: Record<string, string> = { DOMAIN_CHECK_ENFORCED: 'true' }): Promise<Setup> {
  const { base, upstream: accounts, lines } = await startEdgeWithUpstream(t, jsonAnswer(200, TOKENS), {
    edgeAuthUpstream,
    logged: true,
    // The domain check alone: the challenge would answer a body naming email twice 400 before it (test/server/edge/challenge/challenge-attacks.test.ts).
    env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), RATE_LIMIT_PER_MINUTE: '100000', ALLOWED_HOSTS: '127.0.0.1', CHALLENGE: 'off', ...env }
  })
  return { base, accounts, lines }
}

/** An accounts call, timed: the edge's check may not hold a visitor up. */
async function post (base: string, path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number, body: unknown, elapsedMs: number }> {
  const started = Date.now()
  const answer = await postJson(base, `/accounts/${path}`, body, headers)
  return { status: answer.status, body: answer.body, elapsedMs: Date.now() - started }
}

const login = async (base: string, email: string): Promise<{ status: number, body: unknown, elapsedMs: number }> =>
  post(base, 'v2/login', JSON.stringify({ email, password: 'hunter2' }))

/** An unsigned-looking JWT with `claims`: the edge reads the claim without verifying, the backend verifies. */
function idToken (claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({ alg: 'RS256', kid: 'k' })}.${part(claims)}.${Buffer.from('not-a-signature').toString('base64url')}`
}

t.test('by default the edge runs no domain check: the page alone does', async (t) => {
  const service = await startUpstream(t, grpcWebAnswer(UNAUTHORIZED))
  const { base, accounts } = await edgeWith(t, service.url, {})
  const outcome = await login(base, 'alice@blocked.test')
  t.equal(outcome.status, 200, 'proxied')
  t.equal(accounts.requests.length, 1)
  t.equal(service.requests.length, 0, 'the domain service was not asked')
})

t.test('the reference responder\'s three answers: authorized and unspecified go on, unauthorized is refused before the backend', async (t) => {
  const responder = await startEdgeAuthResponder(t, { authorized: ['ok.test'], unauthorized: ['blocked.test'] })
  const { base, accounts, lines } = await edgeWith(t, responder)

  t.same(await login(base, 'alice@ok.test').then((outcome) => [outcome.status, outcome.body]), [200, TOKENS], 'AUTHORIZED: proxied')
  t.same(await login(base, 'alice@elsewhere.test').then((outcome) => [outcome.status, outcome.body]), [200, TOKENS], 'UNSPECIFIED: proxied')
  t.equal(accounts.requests.length, 2)

  const refused = await login(base, 'alice@Blocked.Test')
  t.equal(refused.status, 403)
  t.same(refused.body, { error: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED }, 'the spec\'s text')
  t.equal(accounts.requests.length, 2, 'the refused login never reached the accounts service')
  t.match(lines.find((line) => line.msg === 'login refused: domain not authorized'), { domain: 'Blocked.Test' })
  t.notMatch(JSON.stringify(lines), /alice|hunter2/, 'the log names the domain, never the address or the password')
})

t.test('the service is asked about the part after the last @, with the request id', async (t) => {
  const service = await startUpstream(t, grpcWebAnswer(AUTHORIZED))
  const { base } = await edgeWith(t, service.url)
  t.equal((await login(base, '"odd@quoted"@Example.COM ')).status, 200)
  t.equal(askedDomain(service.requests[0]), 'Example.COM', 'as the page computes it')
  t.equal(service.requests[0]?.url, '/edgeauth.v1.EdgeAuthMetadataService/CheckDomainAuthorization')
  t.match(service.requests[0]?.headers, { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', 'grpc-timeout': `${TIMEOUT_MS}m` })
  t.ok(typeof service.requests[0]?.headers['x-request-id'] === 'string', 'with the request id')
})

type Handler = (request: RecordedRequest, response: ServerResponse) => void

const failures: Array<[string, Handler | 'down']> = [
  ['is down', 'down'],
  ['hangs past the timeout', () => {}],
  ['answers a value this edge does not know', grpcWebAnswer(7)],
  ['answers 500 with an HTML page', (_request, response) => {
    response.writeHead(500, { 'content-type': 'text/html' })
    response.end('<h1>oops</h1>')
  }],
  ['answers a trailers-only UNAVAILABLE', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'grpc-status': '14', 'grpc-message': 'down' })
    response.end()
  }],
  ['answers a message with trailers saying INTERNAL', (_request, response) => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(AUTHORIZED).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeTrailers(13, 'broken')]))
  }],
  ['answers AUTHORIZED without trailers', (_request, response) => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(AUTHORIZED).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(encodeFrame(DATA_FRAME, message))
  }],
  ['answers truncated frames', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.from([0, 0, 0, 0, 9, 8]))
  }],
  ['answers two messages', (_request, response) => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(AUTHORIZED).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeFrame(DATA_FRAME, message), encodeTrailers(0)]))
  }],
  ['answers a compressed message', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(0x01, Buffer.from([8, 1])), encodeTrailers(0)]))
  }],
  ['answers in the text format', (_request, response) => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(AUTHORIZED).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web-text+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeTrailers(0)]).toString('base64'))
  }],
  ['resets the connection mid-answer', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'content-length': '100' })
    response.write(Buffer.from([0, 0, 0, 0, 2]))
    setTimeout(() => response.socket?.destroy(), 20)
  }],
  ['answers gzip-coded frames', (_request, response) => {
    const message = new CheckDomainAuthorizationResponse().setAuthorization(AUTHORIZED).serializeBinary()
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto', 'content-encoding': 'gzip' })
    response.end(gzipSync(Buffer.concat([encodeFrame(DATA_FRAME, message), encodeTrailers(0)])))
  }],
  ['answers far more than an answer', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(DATA_FRAME, Buffer.alloc(1024 * 1024)), encodeTrailers(0)]))
  }]
]

/** The kind each failure is logged with (the upstream failure metric's label values). */
const FAILURE_KINDS: Readonly<Record<string, string>> = {
  'is down': 'refused',
  'hangs past the timeout': 'timeout',
  'answers 500 with an HTML page': 'server_error',
  'answers a trailers-only UNAVAILABLE': 'server_error',
  'answers a message with trailers saying INTERNAL': 'server_error',
  'resets the connection mid-answer': 'reset'
}

for (const [what, handler] of failures) {
  t.test(`a domain service that ${what}: the login is refused (fail closed) with 503 and never reaches the backend`, async (t) => {
    const service = handler === 'down' ? DEAD_UPSTREAM : (await startUpstream(t, handler)).url
    const { base, accounts, lines } = await edgeWith(t, service)
    const outcome = await login(base, 'alice@ok.test')
    t.equal(outcome.status, 503)
    t.same(outcome.body, { error: ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED }, 'the spec\'s text')
    t.ok(outcome.elapsedMs < ANSWER_BOUND_MS, `answered within ${ANSWER_BOUND_MS} ms (took ${outcome.elapsedMs} ms)`)
    t.equal(accounts.requests.length, 0, 'the backend was not called')
    t.match(lines.filter((line) => line.level === 40), [{ msg: 'login refused: domain check failed', domain: 'ok.test' }], 'one warning with the reason')
    const kind = FAILURE_KINDS[what] ?? 'unreadable'
    t.match(lines.find((line) => line.msg === 'login refused: domain check failed'), {
      upstream: 'edge-auth', kind, elapsedMs: Number, ...(kind === 'server_error' && what.includes('500') ? { status: 500 } : {})
    }, `logged as ${kind}, with the elapsed time`)
  })
}

t.test('a redirect from the domain service is not followed and refuses the login', async (t) => {
  const elsewhere = await startUpstream(t, grpcWebAnswer(AUTHORIZED))
  const service = await startUpstream(t, (_request, response) => {
    response.writeHead(307, { location: `${elsewhere.url}/edgeauth.v1.EdgeAuthMetadataService/CheckDomainAuthorization` })
    response.end()
  })
  const { base, accounts } = await edgeWith(t, service.url)
  t.equal((await login(base, 'alice@ok.test')).status, 503)
  t.equal(elsewhere.requests.length, 0, 'never followed')
  t.equal(accounts.requests.length, 0)
})

t.test('Google login: the ID token\'s email claim is checked as well as the body\'s, without verifying the token', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['blocked.test'] })
  const { base, accounts } = await edgeWith(t, responder)
  const google = async (claims: Record<string, unknown>, body: Record<string, unknown>) =>
    post(base, 'v2/auth/login', JSON.stringify({ login_method: 'GOOGLE', ...body }), { authorization: `Bearer ${idToken(claims)}` })

  t.equal((await google({ email: 'alice@ok.test' }, { email: 'alice@ok.test' })).status, 200, 'both allowed: proxied')
  t.equal(accounts.requests.length, 1)
  t.same((await google({ email: 'mallory@blocked.test' }, { email: 'mallory@ok.test' })).body, { error: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED }, 'the token names a refused domain, the body another')
  t.equal((await google({ email: 'mallory@blocked.test' }, {})).status, 403, 'the token alone')
  t.equal((await google({ sub: '1' }, { email: 'mallory@blocked.test' })).status, 403, 'the body alone')
  t.equal((await post(base, 'v2/auth/login', '{"login_method":"GOOGLE"}', { authorization: 'Bearer not.a-token' })).status, 200, 'a token the edge cannot read goes on: the backend refuses it')
  t.equal(accounts.requests.length, 2, 'no refused call reached the backend')
})

t.test('SSO: its start and its end are checked by the body\'s email', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['blocked.test'] })
  const { base, accounts } = await edgeWith(t, responder)
  t.equal((await post(base, 'auth/login/sso', JSON.stringify({ email: 'alice@blocked.test', source: 'login', redirect: null }))).status, 403)
  t.equal((await post(base, 'v2/auth/login', JSON.stringify({ email: 'alice@blocked.test', login_method: 'SAML', id: 'x' }))).status, 403)
  t.equal((await post(base, 'auth/login/sso', JSON.stringify({ email: 'alice@ok.test', source: 'login', redirect: null }))).status, 200)
  t.equal(accounts.requests.length, 1)
})

t.test('hostile bodies cannot slip an address past the check', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['blocked.test'] })
  const { base, accounts } = await edgeWith(t, responder)
  const cases: Array<[string, string, number]> = [
    ['email named twice, the refused one first', '{"email":"mallory@blocked.test","email":"mallory@ok.test","password":"p"}', 403],
    ['email named twice, the refused one last', '{"email":"mallory@ok.test","email":"mallory@blocked.test","password":"p"}', 403],
    ['Email in another case', '{"Email":"mallory@blocked.test","email":"mallory@ok.test"}', 403],
    ['email with escapes in its name', '{"\\u0065mail":"mallory@blocked.test","email":"mallory@ok.test"}', 403],
    ['a decoy inside a string', '{"password":"\\"email\\":\\"x@ok.test\\"","email":"mallory@blocked.test"}', 403],
    ['a decoy in a nested object', '{"profile":{"email":"mallory@ok.test"},"email":"mallory@blocked.test"}', 403],
    ['an address with two @', '{"email":"mallory@ok.test@blocked.test"}', 403],
    ['an array as the address', '{"email":["mallory@blocked.test"]}', 400],
    ['a number as the address', '{"email":12}', 400],
    ['five domains in one body', `{${['a', 'b', 'c', 'd', 'e'].map((d) => `"email":"x@${d}.test"`).join(',')}}`, 400]
  ]
  for (const [what, body, status] of cases) {
    t.equal((await post(base, 'v2/login', body)).status, status, `${what}: ${status}`)
  }
  t.equal(accounts.requests.length, 0, 'none reached the backend')

  t.equal((await post(base, 'v2/login', '{"password":"p"}')).status, 200, 'no address at all: the backend answers')
  t.equal((await post(base, 'v2/login', '{"email":"no-at-sign"}')).status, 200, 'no domain: the backend answers')
  t.equal((await post(base, 'v2/login', '[1,2]')).status, 200, 'not an object: the backend answers')
})

t.test('calls other than logins are not checked, even when enforced', async (t) => {
  const service = await startUpstream(t, grpcWebAnswer(UNAUTHORIZED))
  const { base, accounts } = await edgeWith(t, service.url)
  t.equal((await post(base, 'register', JSON.stringify({ email: 'alice@blocked.test', password: 'long enough' }))).status, 200)
  t.equal((await post(base, 'resetPasswordRequest', JSON.stringify({ email: 'alice@blocked.test' }))).status, 200)
  t.equal(service.requests.length, 0)
  t.equal(accounts.requests.length, 2)
})

/** An accounts stand-in for passkey sign-ins: `passkeys/login` answers `answer`, `token/revoke` is recorded. */
async function passkeyEdge (t: Test, edgeAuthUpstream: string, answer: Record<string, unknown>, status = 200): Promise<Setup> {
  const accounts = await startUpstream(t, (request, response) => {
    if (request.url === '/token/revoke') jsonAnswer(200, { success: 'Signed out.' })(request, response)
    else jsonAnswer(status, answer, { 'set-cookie': 'refresh=r; HttpOnly' })(request, response)
  })
  const { lines, logger } = captureLog()
  const app = await buildEdge(t, {
    accountsUpstream: accounts.url,
    accountsRoutes: withRoutes(SPEC_ACCOUNTS_ROUTES, PASSKEY_ROUTES),
    edgeAuthUpstream,
    logger,
    env: { DOMAIN_CHECK_ENFORCED: 'true', UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), RATE_LIMIT_PER_MINUTE: '100000', ALLOWED_HOSTS: '127.0.0.1' }
  })
  return { base: await listen(app), accounts, lines }
}

async function passkeySignIn (base: string): Promise<{ status: number, body: unknown, setCookies: string[] }> {
  const response = await fetch(`${base}/accounts/passkeys/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"credential":{}}' })
  return { status: response.status, body: await response.json(), setCookies: response.headers.getSetCookie() }
}

const PASSKEY_TOKENS = { auth: 'a.b.c', refresh: 'withheld-refresh', user_id: 'u' }

t.test('passkey sign-in: the answer\'s email is checked; a refused one never gives the browser its tokens, and they are revoked', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['blocked.test'] })

  const allowed = await passkeyEdge(t, responder, { ...PASSKEY_TOKENS, email: 'ada@ok.test' })
  const passed = await passkeySignIn(allowed.base)
  t.equal(passed.status, 200)
  t.same(passed.body, { ...PASSKEY_TOKENS, email: 'ada@ok.test' }, 'an allowed domain: the answer as it was')
  t.ok(passed.setCookies.includes('refresh=r; HttpOnly'), 'the backend\'s cookies')
  t.ok(passed.setCookies.some((line) => line.startsWith('refresh=withheld-refresh;') && line.includes('; HttpOnly')), 'and the edge\'s refresh cookie')
  t.same(allowed.accounts.requests.map((request) => request.url), ['/passkeys/login'], 'nothing revoked')

  const blocked = await passkeyEdge(t, responder, { ...PASSKEY_TOKENS, email: 'mallory@blocked.test' })
  const refused = await passkeySignIn(blocked.base)
  t.equal(refused.status, 403)
  t.same(refused.body, { error: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED }, 'the spec\'s text, and no token')
  t.same(refused.setCookies, [], 'none of the backend\'s cookies, and no token cookie of the edge\'s')
  const revoke = blocked.accounts.requests.find((request) => request.url === '/token/revoke')
  t.same(JSON.parse(revoke?.body.toString() ?? 'null'), { refresh: 'withheld-refresh' }, 'the refresh token is revoked at the backend')
})

t.test('passkey sign-in: an answer without an email, or a failed check, is refused and revoked too', async (t) => {
  const responder = await startEdgeAuthResponder(t, {})
  const anonymous = await passkeyEdge(t, responder, PASSKEY_TOKENS)
  const unnamed = await passkeySignIn(anonymous.base)
  t.same([unnamed.status, unnamed.body], [503, { error: ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED }], 'no email: cannot be checked')
  t.ok(anonymous.accounts.requests.some((request) => request.url === '/token/revoke'), 'revoked')

  const down = await passkeyEdge(t, DEAD_UPSTREAM, { ...PASSKEY_TOKENS, email: 'ada@ok.test' })
  const failed = await passkeySignIn(down.base)
  t.same([failed.status, failed.body], [503, { error: ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED }], 'the service is down: fail closed')
  t.ok(down.accounts.requests.some((request) => request.url === '/token/revoke'), 'revoked')

  const wrong = await passkeyEdge(t, DEAD_UPSTREAM, { error: 'That passkey is not known here.' }, 401)
  const answered = await passkeySignIn(wrong.base)
  t.same([answered.status, answered.body], [401, { error: 'That passkey is not known here.' }], 'an answer without tokens passes as it is, unchecked')
})

t.test('a domain service whose TLS certificate does not verify is not asked, and the login is refused', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-tls-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-keyout', join(folder, 'key.pem'), '-out', join(folder, 'cert.pem')], { stdio: 'ignore' })
  let reached = false
  const server = createHttpsServer({ key: readFileSync(join(folder, 'key.pem')), cert: readFileSync(join(folder, 'cert.pem')) }, (request, response) => {
    reached = true
    grpcWebAnswer(AUTHORIZED)({ method: 'POST', url: request.url ?? '', headers: request.headers, body: Buffer.alloc(0) }, response)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const { base, accounts } = await edgeWith(t, `https://127.0.0.1:${(server.address() as AddressInfo).port}`)
  t.equal((await login(base, 'alice@ok.test')).status, 503)
  t.equal(reached, false, 'the unverified server was never asked')
  t.equal(accounts.requests.length, 0)
})

/** An auth token as a backend issues it, with the `email` claim a social completion's check reads (its signature is the backend's business). */
const authTokenFor = (email: string): string =>
  `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify({ email })).toString('base64url')}.c2ln`

async function socialCompletion (base: string, loginMethod = 'SOCIAL'): Promise<{ status: number, body: unknown, setCookies: string[] }> {
  const response = await fetch(`${base}/accounts/v2/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login_method: loginMethod, provider: 'github', id: 'single-use' })
  })
  return { status: response.status, body: await response.json(), setCookies: response.headers.getSetCookie() }
}

t.test('attack: a social completion, which names no address, is checked by its answer; a refused one never gives the browser its tokens', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['blocked.test'] })

  // passkeyEdge's stand-in answers every sign-in call alike.
  const allowed = await passkeyEdge(t, responder, { auth: authTokenFor('ada@ok.test'), refresh: 'withheld-refresh' })
  const passed = await socialCompletion(allowed.base)
  t.equal(passed.status, 200, 'an allowed domain, read from the auth token')
  t.same(allowed.accounts.requests.map((request) => request.url), ['/v2/auth/login'], 'nothing revoked')

  const blocked = await passkeyEdge(t, responder, { auth: authTokenFor('mallory@blocked.test'), refresh: 'withheld-refresh' })
  const refused = await socialCompletion(blocked.base)
  t.same([refused.status, refused.body], [403, { error: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED }])
  t.same(refused.setCookies, [], 'no token cookie, none of the backend\'s')
  const revoke = blocked.accounts.requests.find((request) => request.url === '/token/revoke')
  t.same(JSON.parse(revoke?.body.toString() ?? 'null'), { refresh: 'withheld-refresh' }, 'the refresh token is revoked at the backend')

  const named = await passkeyEdge(t, responder, { auth: authTokenFor('ada@ok.test'), refresh: 'r2', email: 'mallory@blocked.test' })
  t.equal((await socialCompletion(named.base)).status, 403, 'the answer\'s own email, where the backend gives one, is checked')

  const opaque = await passkeyEdge(t, responder, { auth: 'opaque-token', refresh: 'r3' })
  t.same((await socialCompletion(opaque.base)).status, 503, 'an answer naming no address cannot be checked: refused')

  const google = await passkeyEdge(t, responder, { auth: authTokenFor('mallory@blocked.test'), refresh: 'r4' })
  t.equal((await socialCompletion(google.base, 'GOOGLE')).status, 200, 'other completions are checked before they are proxied, not by their answer')
})

t.test('attack: the code step that ends a social completion is checked by its token, as the completion would have been', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['blocked.test'] })
  async function codeStep (answer: Record<string, unknown>): Promise<{ status: number, accounts: Upstream }> {
    const accounts = await startUpstream(t, (request, response) => {
      if (request.url === '/token/revoke') jsonAnswer(200, { success: 'Signed out.' })(request, response)
      else jsonAnswer(200, answer)(request, response)
    })
    const app = await buildEdge(t, {
      accountsUpstream: accounts.url,
      accountsRoutes: withRoutes(SPEC_ACCOUNTS_ROUTES, SECOND_FACTOR_ROUTES),
      edgeAuthUpstream: responder,
      env: { DOMAIN_CHECK_ENFORCED: 'true', UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), RATE_LIMIT_PER_MINUTE: '100000', ALLOWED_HOSTS: '127.0.0.1' }
    })
    const response = await post(await listen(app), 'second-factor/verify', JSON.stringify({ challenge: 'c', code: '123456' }))
    return { status: response.status, accounts }
  }
  const blocked = await codeStep({ auth: authTokenFor('mallory@blocked.test'), refresh: 'withheld-refresh' })
  t.equal(blocked.status, 403)
  t.ok(blocked.accounts.requests.some((request) => request.url === '/token/revoke'), 'revoked')
  t.equal((await codeStep({ auth: authTokenFor('ada@ok.test'), refresh: 'r' })).status, 200)
  t.equal((await codeStep({ auth: 'opaque-token', refresh: 'r' })).status, 200, 'an opaque token passes: every other method\'s first factor was checked before it was proxied')
  t.equal((await codeStep({ error: 'That code is not right.' })).status, 200, 'an answer without tokens is not checked')
})
