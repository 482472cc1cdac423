import t from 'tap'
import { hashPassword, needsRehash, OWASP_SCRYPT_COST, SCRYPT_PARAMETERS, verifyPassword } from '../../../../server/reference/passwords/passwords.js'
import { GOOD_PASSWORD, logCollector, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const CHEAP = { N: 2 ** 14, r: 8, p: 1 }

t.test('OWASP\'s scrypt parameters are the default: N = 2^17, r = 8, p = 1', async (t) => {
  t.same(SCRYPT_PARAMETERS, { N: 131072, r: 8, p: 1 })
})

t.test('a hash names its parameters and carries its own salt, so one password never hashes the same twice', async (t) => {
  const [first, second] = await Promise.all([hashPassword('same password', CHEAP), hashPassword('same password', CHEAP)])
  t.match(first, /^scrypt\$N=16384,r=8,p=1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/, '16-byte salt, 32-byte key')
  t.not(first, second)
  t.ok(await verifyPassword('same password', first))
  t.ok(await verifyPassword('same password', second))
})

t.test('a wrong password, and a stored value that is not one of our hashes, never match', async (t) => {
  const stored = await hashPassword('the password', CHEAP)
  t.notOk(await verifyPassword('the passwore', stored))
  t.notOk(await verifyPassword('the password', ''))
  t.notOk(await verifyPassword('the password', 'the password'))
  t.notOk(await verifyPassword('the password', stored.replace(/\$[^$]+$/, '$AAAA')), 'a key of another length')
  t.notOk(await verifyPassword('the password', 'bcrypt$2b$10$abcdefghijklmnopqrstuv'))
})

t.test('a hash made with other parameters than today\'s needs a rehash', async (t) => {
  t.notOk(needsRehash(await hashPassword('x', SCRYPT_PARAMETERS)))
  t.ok(needsRehash(await hashPassword('x', CHEAP)))
  t.ok(needsRehash(await hashPassword('x', { N: SCRYPT_PARAMETERS.N, r: 8, p: 2 })))
  t.ok(needsRehash('not a hash'))
})

t.test('logging in with a password hashed under older parameters stores a new hash with today\'s', async (t) => {
  // With the default cost, so that "today's parameters" are OWASP's.
  const { base, services } = await startReference(t, { env: { PASSWORD_HASH_COST: String(OWASP_SCRYPT_COST) } })
  await registerAccount(base, 'legacy@example.com')
  const account = await services.store.findAccountByEmail('legacy@example.com')
  const legacyHash = await hashPassword(GOOD_PASSWORD, CHEAP)
  await services.store.updatePasswordHash(account!.id, legacyHash)

  const wrong = await postJson(base, '/accounts/v2/login', { email: 'legacy@example.com', password: 'wrong guess' })
  t.equal(wrong.status, 401)
  t.equal((await services.store.findAccountById(account!.id))!.passwordHash, legacyHash, 'a failed login leaves the hash alone')

  const login = await postJson(base, '/accounts/v2/login', { email: 'legacy@example.com', password: GOOD_PASSWORD })
  t.equal(login.status, 200, 'the old hash still logs in')
  const rehashed = (await services.store.findAccountById(account!.id))!.passwordHash!
  t.match(rehashed, /^scrypt\$N=131072,r=8,p=1\$/, 'the stored hash now has today\'s parameters')
  t.notOk(needsRehash(rehashed))
  t.ok(await verifyPassword(GOOD_PASSWORD, rehashed), 'and holds the same password')
  t.equal((await postJson(base, '/accounts/v2/login', { email: 'legacy@example.com', password: GOOD_PASSWORD })).status, 200)
})

t.test('PASSWORD_HASH_COST sets scrypt\'s N for new hashes, and a cost below OWASP\'s is warned about', async (t) => {
  const logs = logCollector()
  const { base, services } = await startReference(t, { env: { PASSWORD_HASH_COST: '12' }, logStream: logs.stream })
  await registerAccount(base, 'cheap@example.com')
  const account = await services.store.findAccountByEmail('cheap@example.com')
  t.match(account!.passwordHash, /^scrypt\$N=4096,r=8,p=1\$/)
  t.ok(logs.lines.some((line) => line.level === 40 && /below OWASP's recommendation \(17\)/.test(String(line.msg))), 'a warning at start')
})
