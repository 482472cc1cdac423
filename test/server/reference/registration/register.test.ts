import t from 'tap'
import { GOOD_PASSWORD, logCollector, startReference, TEST_PASSWORD_HASH_COST } from '../../../fixtures/servers/reference.js'
import { outboxEmails, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const CREATED = { success: 'Your account has been created. You can now log in. We have also sent you a link to verify your email address.' }
const EXISTS = { error: 'An account with this email already exists. Log in, or reset your password.' }

t.test('a registration with names creates an account whose details are kept as given', async (t) => {
  const { base, services } = await startReference(t)
  const answer = await postJson(base, '/accounts/register', {
    first_name: '  Zoë ', last_name: 'Ødegård', email: ' Zoe.Odegard@Example.COM ', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD
  })
  t.equal(answer.status, 200)
  t.same(answer.body, CREATED)
  t.equal(answer.headers.get('cache-control'), 'no-store')
  const account = await services.store.findAccountByEmail('zoe.odegard@example.com')
  t.ok(account, 'the account exists')
  t.equal(account!.email, 'Zoe.Odegard@Example.COM', 'the email is kept as typed, without the spaces around it')
  t.equal(account!.firstName, 'Zoë')
  t.equal(account!.lastName, 'Ødegård')
  t.match(account!.passwordHash, new RegExp(`^scrypt\\$N=${2 ** Number(TEST_PASSWORD_HASH_COST)},r=8,p=1\\$`), 'the password is stored as an scrypt hash, at the configured cost')
  t.notOk(account!.passwordHash!.includes(GOOD_PASSWORD))
  t.equal(account!.googleSubject, null)
})

t.test('names are optional: missing, null and blank names are stored as none', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'no-names@example.com')
  const answer = await postJson(base, '/accounts/register', {
    first_name: null, last_name: '   ', email: 'blank-names@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD
  })
  t.same(answer.body, CREATED)
  for (const email of ['no-names@example.com', 'blank-names@example.com']) {
    const account = await services.store.findAccountByEmail(email)
    t.equal(account!.firstName, null, `${email}: no first name`)
    t.equal(account!.lastName, null, `${email}: no last name`)
  }
})

t.test('an email is unique without regard to case: a second registration in other case is refused', async (t) => {
  const { base, services } = await startReference(t)
  await registerAccount(base, 'Casey@Example.com')
  const answer = await postJson(base, '/accounts/register', {
    email: 'cASEY@example.COM', password: 'another good password', confirm_password: 'another good password'
  })
  t.equal(answer.status, 409)
  t.same(answer.body, EXISTS)
  const account = await services.store.findAccountByEmail('casey@example.com')
  t.equal(account!.email, 'Casey@Example.com', 'the first account is untouched')
})

t.test('a look-alike of a registered address cannot be registered beside it, and signs in to the same account', async (t) => {
  // The attack: hold `n3x@ｂ.co` (a full-width b) beside the real `n3x@b.co`, for mail or SSO meant for its owner.
  const { base, services } = await startReference(t)
  await registerAccount(base, 'n3x@b.co')
  const attempt = await postJson(base, '/accounts/register', { email: 'n3x@ｂ.co', password: 'the attacker\'s own passphrase', confirm_password: 'the attacker\'s own passphrase' })
  t.equal(attempt.status, 409)
  t.same(attempt.body, EXISTS)
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'n3x@ｂ.co', password: 'the attacker\'s own passphrase' })).status, 401,
    'the attacker\'s password opens nothing')
  const login = await postJson(base, '/accounts/v2/login', { email: 'N3X@ｂ.CO', password: GOOD_PASSWORD })
  t.equal(login.status, 200, 'the owner signs in with either form')
  const account = await services.store.findAccountByEmail('n3x@b.co')
  t.equal(account?.email, 'n3x@b.co', 'one account, with the address as first registered')
})

t.test('20 concurrent registrations of one email make exactly one account and 19 conflicts', async (t) => {
  const { base, services } = await startReference(t)
  const started = performance.now()
  const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => postJson(base, '/accounts/register', {
    first_name: `Racer ${index}`,
    email: index % 2 === 0 ? 'racer@example.com' : 'RACER@example.com',
    // Each racer's own password: a repeat of the same one is the same registration (below).
    password: `${GOOD_PASSWORD} ${index}`,
    confirm_password: `${GOOD_PASSWORD} ${index}`
  })))
  t.comment(`20 concurrent registrations answered in ${((performance.now() - started) / 1000).toFixed(2)} s`)
  const created = answers.filter((answer) => answer.status === 200)
  const conflicts = answers.filter((answer) => answer.status === 409)
  t.equal(created.length, 1, 'one succeeds')
  t.equal(conflicts.length, 19, 'the others conflict')
  t.ok(created.every((answer) => JSON.stringify(answer.body) === JSON.stringify(CREATED)))
  t.ok(conflicts.every((answer) => JSON.stringify(answer.body) === JSON.stringify(EXISTS)), 'every conflict has the readable text')
  const account = await services.store.findAccountByEmail('racer@example.com')
  t.ok(account, 'the account exists')
})

t.test('a registration tried again with the same password after a lost answer succeeds again, making nothing twice', async (t) => {
  const logs = logCollector()
  const { base, dataDir, services } = await startReference(t, { logStream: logs.stream })
  const body = { email: 'retry@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }
  t.same((await postJson(base, '/accounts/register', body)).body, CREATED)
  // The visitor saw a timeout and presses Sign Up again.
  const again = await postJson(base, '/accounts/register', { ...body, email: 'RETRY@example.com' })
  t.same([again.status, again.body], [200, CREATED], 'the same answer, not "already exists"')
  t.notOk(again.headers.getSetCookie().some((cookie) => cookie.startsWith('threshold_browser=')), 'knowing the password records no browser')
  const account = await services.store.findAccountByEmail('retry@example.com')
  t.equal(account?.email, 'retry@example.com', 'one account, as first registered')
  await logs.waitFor((line) => line.audit === 'register.repeated')
  await waitForEmail(dataDir, 1, 'verify')
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal((await outboxEmails(dataDir, 'verify')).length, 1, 'one verification email')

  const other = await postJson(base, '/accounts/register', { ...body, password: 'another good password', confirm_password: 'another good password' })
  t.same([other.status, other.body], [409, EXISTS], 'another password: the address is taken')
  await services.store.markEmailVerified(account!.id, Date.now())
  t.same((await postJson(base, '/accounts/register', body)).status, 409, 'once verified, a registration is no repeat')
})
