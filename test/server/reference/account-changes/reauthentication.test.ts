import { Secret, TOTP } from 'otpauth'
import t, { type Test } from 'tap'
import { FREE_LOGIN_FAILURES } from '../../../../server/reference/sign-in/login-throttles.js'
import { GOOD_PASSWORD, startReference, type Reference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { Clock } from '../../../fixtures/account-changes/account-changes.js'

/*
 * Proofs given again (server/reference/account-changes/reauthentication.ts), as
 * the attacks on them were found: each proof must be as strong as a sign-in
 * of the account, bound to its session, and a token holder's wrong guesses
 * must neither multiply nor lock the owner out.
 */

interface Enrolled {
  readonly reference: Reference
  readonly clock: Clock
  /** The owner's browser and her session's token. */
  readonly owner: ServiceBrowser
  readonly bearer: { authorization: string }
  /** The code her authenticator shows now. */
  code (): string
}

/** Ada with an authenticator enrolled, signed in in her browser. */
async function enrolledOwner (t: Test): Promise<Enrolled> {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  await registerAccount(reference.base, 'ada@example.com')
  const owner = new ServiceBrowser(reference.base)
  const bearer = await owner.bearerAfterSignIn('ada@example.com')
  const secret = String((await owner.post('second-factor/enrol/start', {}, bearer)).body.secret)
  const code = (): string => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.value })
  if ((await owner.post('second-factor/enrol/confirm', { code: code() }, bearer)).status !== 200) throw new Error('enrolment failed')
  clock.value += 30_000
  return { reference, clock, owner, bearer, code }
}

/** The attacker: Ada's password (reused elsewhere), a token read from her cookie, and a browser of his own. */
function attackerOf (setup: Enrolled): ServiceBrowser {
  return new ServiceBrowser(setup.reference.base)
}

t.test('with a second factor, the password and a stolen token are no proof: a code must come with the password', async (t) => {
  const setup = await enrolledOwner(t)
  const attacker = attackerOf(setup)
  const passwordOnly = await attacker.post('reauthenticate', { password: GOOD_PASSWORD }, setup.bearer)
  t.equal(passwordOnly.status, 400)
  t.match(passwordOnly.body, { error: /code from your authenticator app/ })
  t.notOk(passwordOnly.headers.getSetCookie().some((cookie) => cookie.startsWith('threshold_proof=')), 'no proof')
  const refused = await attacker.post('passkeys/register/options', { conditional: false }, setup.bearer)
  t.equal(refused.status, 403, 'no passkey of his own')
  t.match(refused.body, { proof_methods: ['password+code', 'sign_in'] })
  t.equal((await attacker.post('second-factor/remove', {}, setup.bearer)).status, 403, 'nor the factor removed')
  t.equal((await attacker.post('reauthenticate', { recovery_code: 'abcd-efgh' }, setup.bearer)).status, 400, 'a recovery code alone is no proof either')
  t.equal((await attacker.post('reauthenticate', { password: GOOD_PASSWORD, code: '000000' }, setup.bearer)).status, 401, 'a guessed code')

  setup.clock.value += 6 * 60_000
  const proven = await setup.owner.post('reauthenticate', { password: GOOD_PASSWORD, code: setup.code() }, setup.bearer)
  t.equal(proven.status, 200, 'the owner, with her password and her code')
  t.equal((await setup.owner.post('second-factor/recovery-codes', {}, setup.bearer)).status, 200, 'then changes her account')
})

t.test('a malformed code with the password answers alike whether the password is right or wrong: it is no oracle', async (t) => {
  const setup = await enrolledOwner(t)
  const attacker = attackerOf(setup)
  for (const code of ['x', '12345', '1234567', 12345, ''] as const) {
    const right = await attacker.post('reauthenticate', { password: GOOD_PASSWORD, code }, setup.bearer)
    const wrong = await attacker.post('reauthenticate', { password: 'not her password at all', code }, setup.bearer)
    t.same([right.status, right.body], [wrong.status, wrong.body], `code ${JSON.stringify(code)}: the same answer`)
    t.equal(right.status, 400, 'a clear error: the code cannot be one')
  }
  const recovery = await attacker.post('reauthenticate', { password: GOOD_PASSWORD, recovery_code: '!'.repeat(41) }, setup.bearer)
  const recoveryWrong = await attacker.post('reauthenticate', { password: 'not her password at all', recovery_code: '!'.repeat(41) }, setup.bearer)
  t.same([recovery.status, recovery.body], [recoveryWrong.status, recoveryWrong.body], 'a malformed recovery code too')
  // Nothing was checked, so nothing was counted: the owner's proof goes through at once.
  const proven = await setup.owner.post('reauthenticate', { password: GOOD_PASSWORD, code: setup.code() }, setup.bearer)
  t.equal(proven.status, 200)
})

t.test('a proof holds only in the session it was made in', async (t) => {
  const setup = await enrolledOwner(t)
  // A second sign-in (another tab's, or the attacker's replayed one): its token beside the owner's browser's proof.
  const elsewhere = new ServiceBrowser(setup.reference.base)
  const challenge = String((await elsewhere.signIn('ada@example.com')).body.challenge)
  const other = await postJson(setup.reference.base, '/accounts/second-factor/verify', { challenge, code: setup.code(), remember_browser: false })
  t.equal(other.status, 200)
  const otherBearer = { authorization: `Bearer ${String(other.body.auth)}` }
  t.equal((await setup.owner.post('second-factor/recovery-codes', {}, otherBearer)).status, 403, 'the owner\'s proof is her session\'s')
  t.equal((await setup.owner.post('second-factor/recovery-codes', {}, setup.bearer)).status, 200, 'and serves that session')
})

t.test('a token holder\'s wrong guesses lock his proofs, never the owner\'s sign-in', async (t) => {
  const setup = await enrolledOwner(t)
  const attacker = attackerOf(setup)
  const statuses: number[] = []
  for (let guess = 0; guess < FREE_LOGIN_FAILURES + 3; guess++) {
    statuses.push((await attacker.post('reauthenticate', { password: `guess ${guess}`, code: '000000' }, setup.bearer)).status)
  }
  t.same(statuses.slice(0, FREE_LOGIN_FAILURES + 1), Array(FREE_LOGIN_FAILURES + 1).fill(401))
  t.same(statuses.slice(FREE_LOGIN_FAILURES + 1), [429, 429], 'then locked')
  const challenge = String((await setup.owner.signIn('ada@example.com')).body.challenge)
  const signedIn = await setup.owner.post('second-factor/verify', { challenge, code: setup.code(), remember_browser: false })
  t.equal(signedIn.status, 200, 'the owner signs in with her code all the same')
})

t.test('guesses sent in parallel are checked no more often than one at a time', async (t) => {
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now })
  await registerAccount(reference.base, 'ada@example.com')
  const owner = new ServiceBrowser(reference.base)
  const bearer = await owner.bearerAfterSignIn('ada@example.com')
  const attacker = new ServiceBrowser(reference.base)
  const burst = await Promise.all(Array.from({ length: 16 }, async (_, guess) =>
    (await attacker.post('reauthenticate', { password: `parallel guess ${guess}` }, bearer)).status))
  t.ok(burst.filter((status) => status === 401).length <= FREE_LOGIN_FAILURES + 1, `at most ${FREE_LOGIN_FAILURES + 1} checked (${burst.join(' ')})`)
  t.ok(burst.every((status) => status === 401 || status === 429))
})
