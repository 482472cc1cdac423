import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { CHALLENGE_HEADER } from '../../../../common/challenge/challenge.js'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import { KNOWN_BROWSER_COOKIE } from '../../../../server/edge/known-browsers/known-browser.js'
import { solvedHeader } from '../../../fixtures/challenge/challenge.js'
import { followFlash, stateIn, postForm } from '../../../fixtures/no-script/form-page.js'
import { occupyHashGate } from '../../../fixtures/passwords/hash-gate.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson, injectJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { injectLogin } from '../../../fixtures/sign-in/sign-in.js'

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
  const answer = await injectLogin(edge, email, password, { headers: { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': freshAddress(), ...headers } })
  const setCookie = answer.headers['set-cookie']
  return { status: answer.statusCode, body: answer.json<Record<string, unknown>>(), cookies: Array.isArray(setCookie) ? setCookie : setCookie === undefined ? [] : [setCookie] }
}

/** The Set-Cookie values of an answer. */
const setCookies = (answer: LightMyRequestResponse): string[] => [answer.headers['set-cookie'] ?? []].flat().map(String)

/**
 * The Cookie header a browser sends to `path` after the Set-Cookie values
 * `cookies` (named `name` only, when given): those whose Path matches it,
 * as RFC 6265 5.1.4 matches paths. A cookie kept to another path is not sent.
 */
function sentTo (cookies: readonly string[], path: string, name?: string): string {
  const matches = (cookiePath: string): boolean =>
    path === cookiePath || (path.startsWith(cookiePath) && (cookiePath.endsWith('/') || path[cookiePath.length] === '/'))
  return cookies
    .filter((cookie) => name === undefined || cookie.startsWith(`${name}=`))
    .filter((cookie) => matches(/;\s*Path=([^;]*)/i.exec(cookie)?.[1] ?? '/'))
    .map((cookie) => cookie.slice(0, cookie.indexOf(';')))
    .join('; ')
}

/** What became of a login posted without scripts: signed in (a 303 with the token cookies), or the page it was shown again with (after its 303). */
async function formLogin (edge: FastifyInstance, email: string, password: string, headers: Record<string, string> = {}) {
  const posted = await postForm(edge, { form: 'login', email, password }, { query: 'view=login', headers: { 'x-forwarded-for': freshAddress(), ...headers } })
  const cookies = setCookies(posted)
  if (posted.statusCode === 303 && cookies.some((cookie) => cookie.startsWith('auth='))) return { signedIn: true, status: 303, notice: null, cookies }
  const page = await followFlash(edge, posted)
  return { signedIn: false, status: page.statusCode, notice: stateIn(page.body).notice?.text ?? null, cookies }
}

/** The page's answer to a login posted without scripts that met the challenge: it needs the scripts, says so, and signs no one in. */
function challengedWithoutScripts (t: Test, answer: Awaited<ReturnType<typeof formLogin>>, what: string): void {
  t.same({ signedIn: answer.signedIn, status: answer.status, notice: answer.notice }, { signedIn: false, status: 428, notice: englishCatalogue['server.challengeNeedsScripts'] }, what)
}

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
  // The edge counts a shed call in its onResponse hook, once the answer has gone: let the last round's land.
  await sleep(200)

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

/**
 * The reference service behind the edge with the owner's account, and the
 * owner's two browsers, which signed in before the attack: one with the
 * page's scripts, one without. Then strangers' wrong guesses, each from a
 * range of its own, raise the account's signal (CHALLENGE_ACCOUNT_FAILURES, 5).
 */
async function ownerUnderAttack (t: Test) {
  const reference = await startReference(t, { edgeEnv: EDGE_ENV })
  const { edge, base } = reference
  await registerAccount(base, OWNER)
  const scripted = await login(edge, OWNER, GOOD_PASSWORD)
  t.equal(scripted.status, 200, 'the owner signs in with scripts, before the attack')
  const withoutScripts = await formLogin(edge, OWNER, GOOD_PASSWORD)
  t.ok(withoutScripts.signedIn, 'and without them, in another browser')
  for (const [what, cookies] of [['with scripts', scripted.cookies], ['without', withoutScripts.cookies]] as const) {
    t.match(sentTo(cookies, '/', KNOWN_BROWSER_COOKIE), new RegExp(`^${KNOWN_BROWSER_COOKIE}=`), `signed in ${what}, the browser carries the edge's note to the no-script form's address too`)
  }
  await strangersGuess(t, edge, OWNER, 5)
  t.equal((await login(edge, OWNER, GOOD_PASSWORD)).status, 428, 'the account is challenged for a stranger\'s browser')
  return { ...reference, browsers: { scripted: scripted.cookies, withoutScripts: withoutScripts.cookies } }
}

t.test('attack: strangers\' guesses raise an account\'s challenge, and a stranger\'s login posted without scripts meets it too: the page says it needs scripts', async (t) => {
  const { edge } = await ownerUnderAttack(t)
  challengedWithoutScripts(t, await formLogin(edge, OWNER, GOOD_PASSWORD), 'a form post is no way around the account signal, even with the right password')
  challengedWithoutScripts(t, await formLogin(edge, OWNER, GOOD_PASSWORD, { 'x-threshold-form-post': 'a'.repeat(32) }), 'nor with a made-up mark of the edge\'s own calls')
  t.equal((await login(edge, OWNER, GOOD_PASSWORD, { 'x-threshold-form-post': 'a'.repeat(32) })).status, 428,
    'nor does a JSON login get past it by claiming to be the edge\'s call for a form post')
})

t.test('attack: with CHALLENGE_ACCOUNT_FAILURES=0 a login posted without scripts is challenged as the JSON login is', async (t) => {
  const { edge, url, edgeHeaders } = await startReference(t, { edgeEnv: { ...EDGE_ENV, CHALLENGE_ACCOUNT_FAILURES: '0' } })
  // At the service itself: through the edge, the registration would be challenged too.
  const registered = await postJson(url, '/register', { email: OWNER, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, edgeHeaders)
  t.equal(registered.status, 200)
  t.equal((await login(edge, OWNER, GOOD_PASSWORD)).status, 428, 'the JSON login')
  challengedWithoutScripts(t, await formLogin(edge, OWNER, GOOD_PASSWORD), 'the same login posted as a form')
})

t.test('under attack, the owner\'s browser that signed in before still signs in by the page\'s call, from another network', async (t) => {
  const { edge, browsers } = await ownerUnderAttack(t)
  const known = await login(edge, OWNER, GOOD_PASSWORD, { cookie: sentTo(browsers.scripted, '/accounts/v2/login') })
  t.equal(known.status, 200, 'no challenge')
  t.ok(typeof known.body.auth === 'string')
})

t.test('under attack, the owner\'s browser that signed in before, with scripts or without, still signs in without scripts', async (t) => {
  for (const which of ['scripted', 'withoutScripts'] as const) {
    await t.test(which === 'scripted' ? 'the browser signed in with the page\'s scripts before' : 'the browser signed in without scripts before', async (t) => {
      const { edge, browsers } = await ownerUnderAttack(t)
      const known = await formLogin(edge, OWNER, GOOD_PASSWORD, { cookie: sentTo(browsers[which], '/') })
      t.ok(known.signedIn, `signed in without a challenge${known.notice === null ? '' : ` (the page said: ${known.notice})`}`)
      t.match(sentTo(known.cookies, '/', KNOWN_BROWSER_COOKIE), new RegExp(`^${KNOWN_BROWSER_COOKIE}=`), 'and the note renewed')
    })
  }
})

t.test('attack: a made-up known-browser note, or the edge\'s note of another account, does not spare a login for the account, with scripts or without', async (t) => {
  const { edge, base, browsers } = await ownerUnderAttack(t)
  await registerAccount(base, 'stranger@example.com')
  const strangersOwn = sentTo((await login(edge, 'stranger@example.com', GOOD_PASSWORD)).cookies, '/', KNOWN_BROWSER_COOKIE)
  t.match(strangersOwn, new RegExp(`^${KNOWN_BROWSER_COOKIE}=`), 'the stranger\'s browser has a note of his own account')
  const owners = sentTo(browsers.scripted, '/', KNOWN_BROWSER_COOKIE)
  const notes: Array<[string, string]> = [
    ['his note of his own account', strangersOwn],
    ['the owner\'s note with its tag made up', owners.replace(/:[\w-]{22}$/, `:${'A'.repeat(22)}`)],
    ['the owner\'s note with its expiry moved', owners.replace(/=\d+:/, `=${Math.floor(Date.now() / 1000) + 86_400}:`)],
    ['a note of his making', `${KNOWN_BROWSER_COOKIE}=${Math.floor(Date.now() / 1000) + 86_400}:${'x'.repeat(22)}`]
  ]
  for (const [what, cookie] of notes) {
    t.equal((await login(edge, OWNER, GOOD_PASSWORD, { cookie })).status, 428, `with scripts, ${what}`)
    challengedWithoutScripts(t, await formLogin(edge, OWNER, GOOD_PASSWORD, { cookie }), `without scripts, ${what}`)
  }
})

t.test('under attack, a visitor without scripts whose browser never signed in can still reset the password; the login waits for the strangers\' failures to age out', async (t) => {
  const { edge, dataDir } = await ownerUnderAttack(t)
  t.equal((await injectJson(edge, '/accounts/resetPasswordRequest', { email: OWNER },
    { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': freshAddress(), 'x-threshold-form-post': 'a'.repeat(32) })).statusCode, 428, 'a JSON reset request is asked for work, even when it claims to be the edge\'s call for a form post')

  const requested = await postForm(edge, { form: 'resetPassword', email: OWNER }, { query: 'view=resetPassword', headers: { 'x-forwarded-for': freshAddress() } })
  t.equal(requested.statusCode, 200, 'the reset request posted without scripts is judged by range and burst alone')
  t.equal(stateIn(requested.body).notice?.kind, 'success')
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  const newPassword = `${GOOD_PASSWORD} renewed`
  const set = await postForm(edge, { form: 'setPassword', password: newPassword, confirm_password: newPassword },
    { query: `view=setPassword&token=${token}`, headers: { 'x-forwarded-for': freshAddress() } })
  t.equal(set.statusCode, 200)
  t.equal(stateIn(set.body).notice?.kind, 'success', 'the new password is set without scripts')
  challengedWithoutScripts(t, await formLogin(edge, OWNER, newPassword), 'the login without scripts still meets the account\'s challenge (docs/challenge.md, "The owner\'s way in")')
})
