import type { FastifyInstance } from 'fastify'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import frenchCatalogue from '../../../../common/messages/fr.json' with { type: 'json' }
import { emailKey } from '../../../../server/shared/email-key.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { type RecordedRequest, startEdgeWithUpstream } from '../../../fixtures/servers/edge.js'
import { injectJson } from '../../../fixtures/http/post-json.js'

/*
 * The per-account signal, attacked as a security review would:
 * look-alike spellings of a victim's address, bodies naming `email` more
 * than once (the gate and the backend reading different members), and a
 * successful login used to clear a victim's count. Each guess comes from a
 * range of its own, so only the account signal can catch it.
 */

const ENV = {
  EDGE_SECRET: 'a test edge secret of at least thirty-two characters',
  TRUST_PROXY: 'loopback',
  CHALLENGE_RANGE_FAILURES: '100000',
  CHALLENGE_BURST_FAILURES: '100000',
  RATE_LIMIT_PER_MINUTE: '100000'
}
const VICTIM = 'victim@example.com'

/** The accounts service: the password `right` signs in, as JSON.parse reads the body (its last `email`); anything else is refused 401. */
function accounts (request: RecordedRequest, response: ServerResponse): void {
  const body = JSON.parse(request.body.toString('utf8') || '{}') as Record<string, unknown>
  const signedIn = request.url === '/v2/login' ? body.password === 'right' : true
  const text = JSON.stringify(signedIn ? { auth: 'a.b', refresh: 'r.s' } : { error: 'Wrong email or password.' })
  response.writeHead(signedIn ? 200 : 401, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

async function edge (t: Test) {
  return await startEdgeWithUpstream(t, accounts, { env: ENV, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
}

let range = 0
/** A call from a fresh /24 each time. */
function post (app: FastifyInstance, payload: string, path = 'v2/login', headers: Record<string, string> = {}) {
  range++
  return injectJson(app, `/accounts/${path}`, payload, { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': `10.${range % 250}.${Math.floor(range / 250)}.7`, ...headers })
}
const guess = (email: string): string => JSON.stringify({ email, password: 'guess' })

async function challengeVictim (t: Test, app: FastifyInstance): Promise<void> {
  for (let i = 0; i < 5; i++) t.equal((await post(app, guess(VICTIM))).statusCode, 401)
  t.equal((await post(app, guess(VICTIM))).statusCode, 428, 'five failures: the victim\'s account is challenged')
}

t.test('attack: look-alike spellings of a challenged account (full-width letters, case, a wide space) are the same account', async (t) => {
  const { app, upstream } = await edge(t)
  await challengeVictim(t, app)
  const before = upstream.requests.length
  for (const variant of ['\uff56ictim@example.com', 'victim@\uff45xample.com', 'victim@EXAMPLE.com\u3000', ' VICTIM@example.com']) {
    t.equal(emailKey(variant), emailKey(VICTIM), `the accounts service finds the victim by ${JSON.stringify(variant)}`)
    t.equal((await post(app, guess(variant))).statusCode, 428, `${JSON.stringify(variant)} is challenged like the victim`)
  }
  t.equal(upstream.requests.length, before, 'no guess reached the backend')
})

t.test('attack: a body naming email more than once is refused 400 on every guarded call, never judged nor passed on', async (t) => {
  const { app, upstream } = await edge(t)
  await challengeVictim(t, app)
  const before = upstream.requests.length
  for (let i = 0; i < 5; i++) {
    const smuggled = `{"email":"a${i}@x.io","email":"b${i}@x.io","email":"c${i}@x.io","email":"d${i}@x.io","email":"${VICTIM}","password":"guess"}`
    const answer = await post(app, smuggled)
    t.equal(answer.statusCode, 400, 'five emails, the victim last (JSON.parse\'s pick)')
    t.same(answer.json(), { error: englishCatalogue['server.challengeOneEmail'] })
  }
  for (const [path, body] of [
    ['v2/login', `{"email":"${VICTIM}","email":"me@attacker.io","password":"guess"}`],
    ['v2/login', `{"email":"me@attacker.io","Email":"${VICTIM}","password":"guess"}`],
    ['register', `{"email":"a@x.io","email":"${VICTIM}","password":"long enough password"}`],
    ['resetPasswordRequest', `{"email":"a@x.io","email":"${VICTIM}"}`],
    ['verifyEmailRequest', `{"email":"a@x.io","email":"${VICTIM}"}`]
  ] as const) {
    t.equal((await post(app, body, path)).statusCode, 400, `${path}: ${body}`)
  }
  const french = await post(app, `{"email":"a@x.io","email":"${VICTIM}"}`, 'resetPasswordRequest', { 'accept-language': 'fr' })
  t.same(french.json(), { error: frenchCatalogue['server.challengeOneEmail'] }, 'in the visitor\'s language')
  t.equal(upstream.requests.length, before, 'none reached the backend')
  t.equal((await post(app, guess(VICTIM))).statusCode, 428, 'the victim is still challenged')
})

t.test('attack: signing in to one\'s own account cannot clear a victim\'s count', async (t) => {
  const { app, upstream } = await edge(t)
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 4; i++) await post(app, guess(VICTIM))
    t.equal((await post(app, `{"email":"${VICTIM}","email":"me@attacker.io","password":"right"}`)).statusCode, 400, 'naming the victim beside one\'s own account is refused')
    t.equal((await post(app, JSON.stringify({ email: 'me@attacker.io', password: 'right' }))).statusCode, 200, 'one\'s own sign-in clears one\'s own count only')
  }
  t.equal((await post(app, guess(VICTIM))).statusCode, 428, '20 guesses later, the victim is challenged')
  t.notOk(upstream.requests.some((request) => request.body.toString().split('"email"').length > 2), 'the backend never saw two emails')
})

t.test('a body with one email, or none, or one that is not a string, is judged as before', async (t) => {
  const { app } = await edge(t)
  t.equal((await post(app, guess('ada@example.com'))).statusCode, 401)
  t.equal((await post(app, JSON.stringify({ password: 'guess' }))).statusCode, 401, 'no email: the backend decides')
  t.equal((await post(app, JSON.stringify({ email: ['ada@example.com'], password: 'guess' }))).statusCode, 401, 'not a string: the backend refuses it')
  t.equal((await post(app, JSON.stringify({ email: 'ada@example.com' }), 'verifyEmailRequest')).statusCode, 200)
})
