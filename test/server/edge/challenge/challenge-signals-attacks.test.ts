import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { CHALLENGE_HEADER } from '../../../../common/challenge.js'
import { KNOWN_BROWSER_COOKIE } from '../../../../server/edge/challenge/known-browser.js'
import { solvedHeader } from '../../../fixtures/challenge.js'
import { followFlash, formBody, PAGE_POST_HEADERS, stateIn } from '../../../fixtures/form-page.js'
import { occupyHashGate } from '../../../fixtures/hash-gate.js'
import { GOOD_PASSWORD, registerAccount, startReference } from '../../../fixtures/reference.js'

/*
 * The challenge's signals attacked as the second attack run did, against
 * the real reference service behind the real edge, with the challenge at
 * its defaults (10 failures a range, 5 an account, 100 a minute overall).
 * Every call comes from an address range of its own unless it says
 * otherwise, so that the range signal catches none of it.
 */

const EDGE_ENV = { CHALLENGE: 'pow', EDGE_SECRET: 'an edge secret of at least thirty-two characters', TRUST_PROXY: 'loopback' }
const OWNER = 'owner@example.com'

let ranges = 0
/** An IPv6 address in a /48 no call has used yet. */
const freshAddress = (): string => `2001:db8:${(++ranges).toString(16)}::7`

/** A JSON login as the page posts it, from a fresh range unless `headers` names one; the status, the body and the cookies it set. */
async function login (edge: FastifyInstance, email: string, password: string, headers: Record<string, string> = {}) {
  const answer = await edge.inject({
    method: 'POST',
    url: '/accounts/v2/login',
    headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', 'x-forwarded-for': freshAddress(), ...headers },
    payload: JSON.stringify({ email, password })
  })
  const setCookie = answer.headers['set-cookie']
  return { status: answer.statusCode, body: answer.json() as Record<string, unknown>, cookies: Array.isArray(setCookie) ? setCookie : setCookie === undefined ? [] : [setCookie] }
}

/** The Cookie header of the Set-Cookie values named `name`. */
const cookieHeader = (cookies: readonly string[], name: string): string =>
  cookies.filter((cookie) => cookie.startsWith(`${name}=`)).map((cookie) => cookie.slice(0, cookie.indexOf(';'))).join('; ')

/** Strangers' wrong guesses for `email`, each from a range of its own: the account's count rises, no range's does. */
async function strangersGuess (t: Test, edge: FastifyInstance, email: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) t.equal((await login(edge, email, `guess ${i}`)).status, 401, `a stranger's guess ${i + 1}`)
}

t.test('attack: a flood of concurrent logins that the hash gate sheds (503) raises the challenge, so that the flood starts paying', async (t) => {
  const { edge, services, base } = await startReference(t, { edgeEnv: EDGE_ENV })
  await registerAccount(base, OWNER)
  const { concurrency, maxQueue } = services.hashGate.options
  const held = occupyHashGate(services.hashGate, concurrency + maxQueue)
  t.teardown(held.release)

  // Rounds of 20 concurrent logins, each from a fresh IPv6 /48, as the attack ran.
  const round = async (number: number): Promise<number[]> =>
    (await Promise.all(Array.from({ length: 20 }, (_, i) => login(edge, `flood-${number}-${i}@example.com`, 'a guess')))).map((answer) => answer.status)
  for (let number = 0; number < 5; number++) t.same(await round(number), Array(20).fill(503), `round ${number + 1}: every login shed, no password checked`)

  const next = await login(edge, OWNER, GOOD_PASSWORD)
  t.equal(next.status, 428, 'after 100 shed in a minute (CHALLENGE_BURST_FAILURES), the next guarded call is asked for work')
  t.match(next.body, { reason: 'challenge_required', challenge: { kind: 'pow' } })
  t.equal((next.body.challenge as { challenge: { parameters: { data: { level: number } } } }).challenge.parameters.data.level, 1, 'a burst: the lightest work, for everyone')
  t.same(await round(5), Array(20).fill(428), 'the flood\'s next round pays before the service is asked')

  await held.release()
  const owners = { 'x-forwarded-for': '2001:db8:fffe::1' }
  const asked = await login(edge, OWNER, GOOD_PASSWORD, owners)
  t.equal(asked.status, 428, 'the burst lasts its minutes')
  const solved = await solvedHeader((asked.body.challenge as { challenge: Record<string, unknown> }).challenge)
  t.equal((await login(edge, OWNER, GOOD_PASSWORD, { ...owners, [CHALLENGE_HEADER]: solved })).status, 200,
    'once the flood is over, the owner solves the light work and signs in')
})

t.test('attack: strangers\' guesses raise an account\'s challenge; its owner\'s known browser and a form posted without scripts still sign in, a stranger\'s browser is challenged', async (t) => {
  const { edge, base } = await startReference(t, { edgeEnv: EDGE_ENV })
  await registerAccount(base, OWNER)
  await registerAccount(base, 'stranger@example.com')

  const before = await login(edge, OWNER, GOOD_PASSWORD)
  t.equal(before.status, 200, 'the owner signs in from her browser, before the attack')
  const ownersBrowser = cookieHeader(before.cookies, KNOWN_BROWSER_COOKIE)
  t.match(ownersBrowser, new RegExp(`^${KNOWN_BROWSER_COOKIE}=`), 'and the edge notes her browser')
  const strangersOwn = await login(edge, 'stranger@example.com', GOOD_PASSWORD)
  const strangersBrowser = cookieHeader(strangersOwn.cookies, KNOWN_BROWSER_COOKIE)

  await strangersGuess(t, edge, OWNER, 5)
  t.equal((await login(edge, OWNER, GOOD_PASSWORD)).status, 428, 'a stranger\'s browser is challenged for the account')
  t.equal((await login(edge, OWNER, GOOD_PASSWORD, { cookie: strangersBrowser })).status, 428, 'also with the edge\'s note of his own account')
  const forged = ownersBrowser.replace(/:[\w-]{22}$/, `:${'A'.repeat(22)}`)
  t.equal((await login(edge, OWNER, GOOD_PASSWORD, { cookie: forged })).status, 428, 'also with a note he made up')
  t.equal((await login(edge, OWNER, GOOD_PASSWORD, { 'x-threshold-form-post': 'a'.repeat(32) })).status, 428,
    'also when he claims his call is the edge\'s own for a form post')

  const posted = await edge.inject({
    method: 'POST',
    url: '/?view=login',
    headers: { ...PAGE_POST_HEADERS, 'x-forwarded-for': freshAddress() },
    payload: formBody({ form: 'login', email: OWNER, password: GOOD_PASSWORD })
  })
  t.equal(posted.statusCode, 303)
  const signedIn = [posted.headers['set-cookie']].flat().some((cookie) => String(cookie).startsWith('auth='))
  if (!signedIn) t.comment(`the page said: ${stateIn((await followFlash(edge, posted)).body).notice?.text ?? ''}`)
  t.ok(signedIn, 'the owner without scripts signs in: the account signal is not applied to a form post')

  await strangersGuess(t, edge, OWNER, 5)
  t.equal((await login(edge, OWNER, GOOD_PASSWORD)).status, 428, 'the account is challenged again for strangers')
  const known = await login(edge, OWNER, GOOD_PASSWORD, { cookie: ownersBrowser })
  t.equal(known.status, 200, 'her known browser, from another network, signs in without a challenge')
  t.ok(typeof known.body.auth === 'string')
})
