import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose'
import { tmpdir } from 'node:os'
import { Secret, TOTP } from 'otpauth'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { hashPassword } from '../../../../server/reference/passwords/passwords.js'
import { secretMatches, secretSha256 } from '../../../../server/reference/oidc/oidc-clients.js'
import { databaseFile } from '../../../../server/reference/store/open-store.js'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { SqliteAccountStore } from '../../../../server/reference/store/sqlite-store.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { GOOD_PASSWORD, logCollector, startReference, temporaryDataDir, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const ADMIN = join(ROOT, 'dist/server/accounts-admin.js')

interface Run { readonly code: number, readonly stdout: string, readonly stderr: string }

// This file runs the built command some fifty times: Node's compile cache, shared by those runs, spares each
// one compiling the bundle again (about a third of a run's start). It changes nothing the command does or prints.
const COMPILE_CACHE = mkdtempSync(join(tmpdir(), 'threshold-admin-compile-cache-'))
t.teardown(() => rmSync(COMPILE_CACHE, { recursive: true, force: true }))

function run (file: string, args: readonly string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: COMPILE_CACHE, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stdout, stderr })
    })
  })
}

/** The built admin command, as `npm run accounts --` runs it. */
const accounts = (dataDir: string, ...args: string[]): Promise<Run> => run(process.execPath, [ADMIN, ...args], { DATA_DIR: dataDir })

const VERIFIED_AT = Date.parse('2026-11-02T10:00:00.000Z')

/** A DATA_DIR holding a verified password account (Ann), a Google-only account (Bo) and an unverified password account (Una). */
async function dataDirWithAccounts (t: Test): Promise<string> {
  const dataDir = temporaryDataDir(t)
  const store = new SqliteAccountStore(databaseFile(dataDir))
  const passwordHash = await hashPassword('x', { N: 1024, r: 8, p: 1 })
  await store.createAccount({ email: 'Ann@Example.com', firstName: 'Ann', lastName: 'Lee', passwordHash, googleSubject: null, emailVerifiedAt: VERIFIED_AT })
  await store.createAccount({ email: 'bo@example.com', firstName: null, lastName: null, passwordHash: null, googleSubject: 'google-7', emailVerifiedAt: VERIFIED_AT })
  await store.createAccount({ email: 'una@example.com', firstName: null, lastName: null, passwordHash, googleSubject: null })
  await store.close()
  return dataDir
}

async function membershipsOf (dataDir: string, email: string): Promise<readonly string[]> {
  const store = new SqliteAccountStore(databaseFile(dataDir))
  try {
    return await store.listMemberships((await store.findAccountByEmail(email))!.id)
  } finally {
    await store.close()
  }
}

t.test('add-member makes an account a member, found by its email in any case; adding again changes nothing', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  t.same(await accounts(dataDir, 'add-member', 'ann@example.COM', 'acme'), { code: 0, stdout: 'Ann@Example.com is now a member of acme\n', stderr: '' })
  t.same(await accounts(dataDir, 'add-member', 'ann@example.com', 'acme'), { code: 0, stdout: 'Ann@Example.com is already a member of acme\n', stderr: '' })
  await accounts(dataDir, 'add-member', 'ann@example.com', 'Globex Corp')
  t.same(await membershipsOf(dataDir, 'ann@example.com'), ['Globex Corp', 'acme'])
})

t.test('add-member refuses an address never verified unless told; verify-email marks it verified', async (t) => {
  // Whoever registered an address first holds its unverified account: granting it an organisation would grant the stranger.
  const dataDir = await dataDirWithAccounts(t)
  const refused = await accounts(dataDir, 'add-member', 'una@example.com', 'acme')
  t.equal(refused.code, 1)
  t.match(refused.stderr, /^accounts: una@example\.com has never been verified, so the account may not belong to the address's owner; .*--allow-unverified\n$/)
  t.same(await membershipsOf(dataDir, 'una@example.com'), [], 'nothing was added')

  t.same(await accounts(dataDir, 'add-member', 'una@example.com', 'acme', '--allow-unverified'),
    { code: 0, stdout: 'una@example.com is now a member of acme\n', stderr: '' })
  t.match((await accounts(dataDir, 'show', 'una@example.com')).stdout, /Verified: {6}no\n/)
  t.same(await accounts(dataDir, 'verify-email', 'UNA@example.com'), { code: 0, stdout: 'una@example.com is now verified\n', stderr: '' })
  t.match((await accounts(dataDir, 'show', 'una@example.com')).stdout, /Verified: {6}yes, \d{4}-\d\d-\d\dT/)
  t.same(await accounts(dataDir, 'add-member', 'una@example.com', 'globex'), { code: 0, stdout: 'una@example.com is now a member of globex\n', stderr: '' })
  t.same(await accounts(dataDir, 'verify-email', 'ann@example.com'),
    { code: 0, stdout: 'Ann@Example.com was verified already, on 2026-11-02T10:00:00.000Z\n', stderr: '' })
})

t.test('remove-member ends a membership; removing one that does not exist is an error naming the memberships', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  await accounts(dataDir, 'add-member', 'ann@example.com', 'acme')
  const removed = await accounts(dataDir, 'remove-member', 'ann@example.com', 'acme')
  t.same(removed, { code: 0, stdout: 'Ann@Example.com is no longer a member of acme; tokens already issued end within 15 minutes\n', stderr: '' })
  t.same(await membershipsOf(dataDir, 'ann@example.com'), [])
  t.same(await accounts(dataDir, 'remove-member', 'ann@example.com', 'acme'),
    { code: 1, stdout: '', stderr: 'accounts: Ann@Example.com is not a member of acme (member of: no organisation)\n' })
  await accounts(dataDir, 'add-member', 'ann@example.com', 'globex')
  t.equal((await accounts(dataDir, 'remove-member', 'ann@example.com', 'Globex')).stderr,
    'accounts: Ann@Example.com is not a member of Globex (member of: globex)\n', 'organisation names are exact')
})

t.test('show prints the account: memberships, creation, and whether it has a password or Google', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  await accounts(dataDir, 'add-member', 'ann@example.com', 'globex')
  await accounts(dataDir, 'add-member', 'ann@example.com', 'acme')
  const ann = await accounts(dataDir, 'show', 'ANN@example.com')
  t.equal(ann.code, 0)
  t.match(ann.stdout, /^Email: {9}Ann@Example\.com\nAccount id: {4}[0-9a-f-]{36}\nName: {10}Ann Lee\nCreated: {7}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\nVerified: {6}yes, 2026-11-02T10:00:00\.000Z\nPassword: {6}yes\nGoogle: {8}no\nOrganisations: acme, globex\nSecond factor: none\n$/)
  const bo = await accounts(dataDir, 'show', 'bo@example.com')
  t.match(bo.stdout, /Name: {10}none\n/)
  t.match(bo.stdout, /Password: {6}no\nGoogle: {8}yes\nOrganisations: none\nSecond factor: none\n$/)
  t.notOk(ann.stdout.includes('scrypt'), 'the password hash is not shown')
})

t.test('passkeys lists an account\'s passkeys, and remove-passkey removes one of them only', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  const store = new SqliteAccountStore(databaseFile(dataDir))
  const ann = (await store.findAccountByEmail('ann@example.com'))!
  const bo = (await store.findAccountByEmail('bo@example.com'))!
  const passkey = { publicKey: 'pQECAyYgAQ', counter: 0, transports: ['internal'], deviceType: 'multiDevice' as const, backedUp: true, createdAt: VERIFIED_AT }
  await store.insertPasskey({ ...passkey, id: 'YW5uLXBob25l', accountId: ann.id, name: 'Safari on iPhone', lastUsedAt: VERIFIED_AT + 60_000 })
  await store.insertPasskey({ ...passkey, id: 'YW5uLWtleQ', accountId: ann.id, name: null, lastUsedAt: null, deviceType: 'singleDevice', backedUp: false, createdAt: VERIFIED_AT + 1 })
  await store.insertPasskey({ ...passkey, id: 'Ym8tcGhvbmU', accountId: bo.id, name: null, lastUsedAt: null })
  await store.close()

  const listed = await accounts(dataDir, 'passkeys', 'ANN@example.com')
  t.equal(listed.code, 0)
  t.equal(listed.stdout, [
    'Ann@Example.com has 2 passkeys:',
    'YW5uLXBob25l', '  name: Safari on iPhone', '  created: 2026-11-02T10:00:00.000Z', '  last used: 2026-11-02T10:01:00.000Z', '  synced: yes, backed up',
    'YW5uLWtleQ', '  name: none', '  created: 2026-11-02T10:00:00.001Z', '  last used: never', '  synced: no, bound to one device',
    ''
  ].join('\n'))
  t.same(await accounts(dataDir, 'remove-passkey', 'ann@example.com', 'Ym8tcGhvbmU'),
    { code: 1, stdout: '', stderr: 'accounts: Ann@Example.com has no passkey Ym8tcGhvbmU\n' }, 'another account\'s passkey is not Ann\'s to remove')
  t.equal((await accounts(dataDir, 'remove-passkey', 'ann@example.com', 'not base64url!')).code, 2)
  const removed = await accounts(dataDir, 'remove-passkey', 'ann@example.com', 'YW5uLXBob25l')
  t.equal(removed.code, 0)
  t.match(removed.stdout, /^removed passkey YW5uLXBob25l of Ann@Example\.com/)
  t.match((await accounts(dataDir, 'passkeys', 'ann@example.com')).stdout, /^Ann@Example\.com has 1 passkey:\nYW5uLWtleQ\n/)
  t.equal((await accounts(dataDir, 'passkeys', 'bo@example.com')).stdout, 'bo@example.com has 1 passkey:\nYm8tcGhvbmU\n  name: none\n  created: 2026-11-02T10:00:00.000Z\n  last used: never\n  synced: yes, backed up\n')
  t.equal((await accounts(dataDir, 'passkeys', 'una@example.com')).stdout, 'una@example.com has no passkey\n')
})

t.test('remove-passkey ends the sessions the passkey started: a stolen passkey\'s refreshed session is refused, the owner\'s password session goes on', async (t) => {
  const { base, dataDir, services } = await startReference(t)
  await registerAccount(base, 'ann@example.com')
  // The passkey is registered in the browser that signed in (its sign-in is the fresh proof), then signs in elsewhere.
  const owner = new PasskeyBrowser(base)
  const ownersAuth = (await owner.bearerAfterSignIn('ann@example.com')).authorization.slice('Bearer '.length)
  const passwordSession = String((await postJson(base, '/accounts/v2/login', { email: 'ann@example.com', password: GOOD_PASSWORD })).body.refresh)
  const authenticator = new SoftwareAuthenticator(TEST_PUBLIC_URL)
  const credential = authenticator.create(await owner.registerOptions(ownersAuth))
  t.equal((await owner.post('passkeys/register', { credential }, { authorization: `Bearer ${ownersAuth}` })).status, 200)
  const thief = new PasskeyBrowser(base)
  const signedIn = await thief.post('passkeys/login', { credential: authenticator.get(await thief.loginOptions()) })
  const refreshed = await postJson(base, '/accounts/token/refresh', { refresh: signedIn.body.refresh })
  t.equal(refreshed.status, 200, 'the passkey\'s session refreshes before')

  const removed = await accounts(dataDir, 'remove-passkey', 'ANN@example.com', credential.id)
  t.same([removed.code, removed.stdout], [0, `removed passkey ${credential.id} of ann@example.com and ended 1 session it started ` +
    '(auth tokens already issued end within 15 minutes); the account\'s other sessions go on\n'])
  const ann = (await services.store.findAccountByEmail('ann@example.com'))!
  t.match(JSON.parse(removed.stderr) as Record<string, unknown>, { audit: 'passkey.removed-by-operator', by: 'operator', accountId: ann.id, sessionsEnded: 1 })

  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: refreshed.body.refresh })).status, 401, 'its session is refused at once')
  const change = await thief.post('second-factor/enrol/start', {}, { authorization: `Bearer ${String(refreshed.body.auth)}` })
  t.same([change.status, change.body.reason], [401, 'session_ended'], 'and its auth token changes nothing')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: passwordSession })).status, 200, 'the password session goes on')
})

t.test('require-second-factor and allow-without-second-factor; remove-second-factor for a locked-out owner, with its audit line', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  t.same(await accounts(dataDir, 'add-member', 'ann@example.com', 'acme'), { code: 0, stdout: 'Ann@Example.com is now a member of acme\n', stderr: '' })
  const required = await accounts(dataDir, 'require-second-factor', 'acme')
  t.equal(required.code, 0)
  t.equal(required.stdout, 'members of acme now need a second factor: those without one enrol at their next password or Google sign-in\n')
  t.match(JSON.parse(required.stderr) as Record<string, unknown>, { audit: 'second-factor.required', by: 'operator', organization: 'acme' })
  t.match((await accounts(dataDir, 'show', 'ann@example.com')).stdout, /Second factor: none, but an organisation requires one: enrolment at the next sign-in\n$/)

  const store = new SqliteAccountStore(databaseFile(dataDir))
  const ann = (await store.findAccountByEmail('ann@example.com'))!
  await store.startSecondFactorEnrolment(ann.id, 'sealed', Date.now() + 60_000)
  await store.confirmSecondFactorEnrolment(ann.id, 1, ['a', 'b', 'c'], Date.now())
  await store.useRecoveryCode(ann.id, 'a', Date.now())
  await store.close()
  t.match((await accounts(dataDir, 'show', 'ann@example.com')).stdout,
    /Second factor: authenticator app since \d{4}-\d\d-\d\dT[\d:.]+Z, 2 recovery codes left\n$/)

  const removed = await accounts(dataDir, 'remove-second-factor', 'ANN@example.com')
  t.equal(removed.code, 0)
  t.equal(removed.stdout, 'removed the authenticator app and recovery codes of Ann@Example.com; an organisation of the account requires one: it enrols again at its next sign-in\n')
  t.match(JSON.parse(removed.stderr) as Record<string, unknown>, { audit: 'second-factor.removed-by-operator', by: 'operator', accountId: ann.id })
  t.notMatch(removed.stderr, /ann@example/i, 'the audit line names the account by id, not address')
  const after = new SqliteAccountStore(databaseFile(dataDir))
  t.equal(await after.findSecondFactor(ann.id), null)
  t.ok(await after.rememberedBrowsersForgottenAt(ann.id), 'remembered browsers are forgotten')
  await after.close()
  const again = await accounts(dataDir, 'remove-second-factor', 'ann@example.com')
  t.same([again.code, again.stderr], [1, 'accounts: Ann@Example.com has no second factor\n'])

  const allowed = await accounts(dataDir, 'allow-without-second-factor', 'acme')
  t.equal(allowed.stdout, 'acme no longer requires a second factor; members who enrolled one keep it\n')
  t.match((await accounts(dataDir, 'show', 'ann@example.com')).stdout, /Second factor: none\n$/)
})

t.test('an unknown email is an error, and nothing is created', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  for (const args of [['show', 'nobody@example.com'], ['add-member', 'nobody@example.com', 'acme'], ['remove-member', 'nobody@example.com', 'acme']]) {
    t.same(await accounts(dataDir, ...args), { code: 1, stdout: '', stderr: 'accounts: no account has the email nobody@example.com\n' }, args.join(' '))
  }
})

t.test('a wrong command, wrong arguments or a bad organisation name exit 2 with the reason and the usage', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  const cases: Array<[string[], string]> = [
    [[], 'accounts: no command given\n\nUsage: npm run accounts -- <command>'],
    [['delete', 'ann@example.com'], 'accounts: unknown command "delete"\n\nUsage:'],
    [['toString'], 'accounts: unknown command "toString"'],
    [['add-member', 'ann@example.com'], 'accounts: add-member takes <email> <organisation> [--allow-unverified]\n\nUsage:'],
    [['show', 'ann@example.com', '--allow-unverified'], 'accounts: unknown option --allow-unverified; show takes <email>'],
    [['add-member', 'ann@example.com', 'acme', '--force'], 'accounts: unknown option --force; add-member takes'],
    [['show'], 'accounts: show takes <email>'],
    [['show', 'ann@example.com', 'extra'], 'accounts: show takes <email>'],
    [['add-member', 'ann@example.com', ''], 'accounts: Name an organisation.'],
    [['add-member', 'ann@example.com', 'x'.repeat(129)], 'accounts: An organisation\'s name has at most 128 characters and no control characters.'],
    [['add-member', 'ann@example.com', 'ac\tme'], 'accounts: An organisation\'s name has at most 128 characters and no control characters.'],
    [['add-member', 'ann@example.com', ' acme'], 'accounts: An organisation\'s name may not start or end with a space.']
  ]
  // The runs are independent; together they take one run's time.
  const results = await Promise.all(cases.map(([args]) => accounts(dataDir, ...args)))
  for (const [index, [args, message]] of cases.entries()) {
    const result = results[index]!
    t.equal(result.code, 2, `${JSON.stringify(args)}: exit 2`)
    t.ok(result.stderr.startsWith(message), `${JSON.stringify(args)}: ${message.split('\n')[0]}`)
    t.equal(result.stdout, '')
  }
  t.same(await membershipsOf(dataDir, 'ann@example.com'), [], 'nothing was added')
  const help = await accounts(dataDir, 'help')
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage: npm run accounts -- <command>\n\nCommands:\n {2}add-member <email> <organisation>/)
})

t.test('a DATA_DIR with no accounts database is an error, and none is created there', async (t) => {
  const dataDir = temporaryDataDir(t)
  t.same(await accounts(dataDir, 'show', 'ann@example.com'),
    { code: 1, stdout: '', stderr: `accounts: there is no accounts database in ${dataDir} (is DATA_DIR right?)\n` })
  t.notOk(existsSync(databaseFile(dataDir)))
})

t.test('a bad setting in the environment is named', async (t) => {
  const result = await run(process.execPath, [ADMIN, 'show', 'ann@example.com'], { DATA_DIR: temporaryDataDir(t), SMTP_URL: 'http://mail.example.com' })
  t.same(result, { code: 2, stdout: '', stderr: 'accounts: invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL\n' })
})

t.test('memberships changed while the server runs apply to the next login and refresh', async (t) => {
  const { base, dataDir } = await startReference(t)
  await registerAccount(base, 'live@example.com')
  const login = { email: 'live@example.com', password: GOOD_PASSWORD, insecure_allowed_orgs: ['acme'] }
  t.equal((await postJson(base, '/accounts/v2/login', login)).status, 403)
  t.equal((await accounts(dataDir, 'add-member', 'live@example.com', 'acme', '--allow-unverified')).code, 0)
  const { refresh } = await loginTokens(base, 'live@example.com', GOOD_PASSWORD, { insecure_allowed_orgs: ['acme'] })
  t.equal((await accounts(dataDir, 'remove-member', 'live@example.com', 'acme')).code, 0)
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh })).status, 401, 'the refresh is refused once the membership ends')
  t.equal((await postJson(base, '/accounts/v2/login', login)).status, 403)
})

/** Enrols an authenticator app for the signed-in account: its recovery codes (each signs in once, whatever the clock). */
async function enrolledRecoveryCodes (base: string, email: string): Promise<string[]> {
  // In the browser that signed in: the sign-in is its fresh proof.
  const browser = new ServiceBrowser(base)
  const bearer = await browser.bearerAfterSignIn(email)
  const secret = String((await browser.post('second-factor/enrol/start', {}, bearer)).body.secret)
  const code = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate()
  const confirmed = await browser.post('second-factor/enrol/confirm', { code }, bearer)
  if (confirmed.status !== 200) throw new Error(`enrolment failed: ${JSON.stringify(confirmed.body)}`)
  return confirmed.body.recovery_codes as string[]
}

/** A sign-in with a recovery code for its second factor, the browser remembered if asked: the tokens, and the cookie that remembers it. */
async function signInWithCode (base: string, email: string, recoveryCode: string, rememberBrowser = false) {
  const challenge = (await postJson(base, '/accounts/v2/login', { email, password: GOOD_PASSWORD })).body.challenge
  const answer = await postJson(base, '/accounts/second-factor/verify', { challenge, recovery_code: recoveryCode, remember_browser: rememberBrowser })
  if (answer.status !== 200) throw new Error(`the second factor failed: ${JSON.stringify(answer.body)}`)
  const remembered = answer.headers.getSetCookie().find((cookie) => cookie.startsWith('second_factor_browser='))?.split(';')[0] ?? null
  return { refresh: String(answer.body.refresh), remembered }
}

t.test('end-sessions: a refresh token that worked before it is refused after it, and a remembered browser is asked for its code again', async (t) => {
  const { base, dataDir, services } = await startReference(t)
  await registerAccount(base, 'ann@example.com')
  await registerAccount(base, 'bo@example.com')
  const recoveryCodes = await enrolledRecoveryCodes(base, 'ann@example.com')
  const thiefs = await signInWithCode(base, 'ann@example.com', recoveryCodes[0]!, true)
  const fromRememberedBrowser = await postJson(base, '/accounts/v2/login', { email: 'ann@example.com', password: GOOD_PASSWORD }, { cookie: thiefs.remembered! })
  t.same(Object.keys(fromRememberedBrowser.body).sort(), ['auth', 'refresh', 'second_factor_enrolled'], 'the remembered browser signs in without the code')
  const worked = await postJson(base, '/accounts/token/refresh', { refresh: thiefs.refresh })
  t.equal(worked.status, 200, 'the refresh token works before')
  const bos = await loginTokens(base, 'bo@example.com')

  const ended = await accounts(dataDir, 'end-sessions', 'ANN@example.com')
  t.same([ended.code, ended.stdout], [0, 'ended every session of ann@example.com: its refresh tokens are revoked (auth tokens already issued change ' +
    'nothing on the account from now on, and end within 15 minutes), and browsers remembered for its second factor are asked for a code again\n'])
  const ann = (await services.store.findAccountByEmail('ann@example.com'))!
  t.match(JSON.parse(ended.stderr) as Record<string, unknown>, { audit: 'sessions.ended-by-operator', by: 'operator', accountId: ann.id })
  t.notMatch(ended.stderr, /ann@example/i, 'the audit line names the account by id, not address')

  for (const [name, refresh] of [['the one refreshed before', worked.body.refresh], ['the remembered browser\'s', fromRememberedBrowser.body.refresh]] as Array<[string, unknown]>) {
    t.equal((await postJson(base, '/accounts/token/refresh', { refresh })).status, 401, `${name} is refused`)
  }
  t.match((await postJson(base, '/accounts/v2/login', { email: 'ann@example.com', password: GOOD_PASSWORD }, { cookie: thiefs.remembered! })).body,
    { second_factor: 'code' }, 'the remembered browser is asked for its code again')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: bos.refresh })).status, 200, 'another account\'s session goes on')
  t.same(await accounts(dataDir, 'end-sessions', 'nobody@example.com'), { code: 1, stdout: '', stderr: 'accounts: no account has the email nobody@example.com\n' })
})

t.test('require-second-factor applies to sessions already running: one that never gave a code is refused its refresh, one that gave a code goes on', async (t) => {
  const { base, dataDir } = await startReference(t)
  await registerAccount(base, 'ann@example.com')
  await registerAccount(base, 'cy@example.com')
  const withCode = await signInWithCode(base, 'ann@example.com', (await enrolledRecoveryCodes(base, 'ann@example.com'))[0]!)
  const passwordOnly = await loginTokens(base, 'cy@example.com')
  for (const email of ['ann@example.com', 'cy@example.com']) t.equal((await accounts(dataDir, 'add-member', email, 'acme', '--allow-unverified')).code, 0)

  t.equal((await accounts(dataDir, 'require-second-factor', 'acme')).code, 0)
  const refused = await postJson(base, '/accounts/token/refresh', { refresh: passwordOnly.refresh })
  t.same([refused.status, refused.body], [401, {
    error: 'Your organisation now requires an authenticator app to sign in. Please sign in again.', reason: 'second_factor_required'
  }])
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: withCode.refresh })).status, 200)
  t.match((await postJson(base, '/accounts/v2/login', { email: 'cy@example.com', password: GOOD_PASSWORD })).body, { second_factor: 'enrol' },
    'signing in again asks for the enrolment')
})

t.test('npm run accounts runs the command', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  const result = await run('npm', ['run', '--silent', 'accounts', '--', 'show', 'bo@example.com'], { DATA_DIR: dataDir, HOME: process.env.HOME ?? '' })
  t.equal(result.code, 0)
  t.match(result.stdout, /^Email: {9}bo@example\.com\n/)
})

t.test('with DATABASE_URL the command works on PostgreSQL, and an unreachable one is named without its password', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const databaseUrl = await server.createDatabase()
  const dataDir = temporaryDataDir(t)
  const store = await PostgresAccountStore.open({ connectionString: databaseUrl, onIdleError: () => {} })
  await store.createAccount({ email: 'pg@example.com', firstName: null, lastName: null, passwordHash: null, googleSubject: 'google-pg', emailVerifiedAt: Date.now() })
  await store.close()
  const env = { DATA_DIR: dataDir, DATABASE_URL: databaseUrl }
  t.same(await run(process.execPath, [ADMIN, 'add-member', 'PG@example.com', 'acme'], env), { code: 0, stdout: 'pg@example.com is now a member of acme\n', stderr: '' })
  t.match((await run(process.execPath, [ADMIN, 'show', 'pg@example.com'], env)).stdout, /Google: {8}yes\nOrganisations: acme\nSecond factor: none\n$/)
  t.notOk(existsSync(databaseFile(dataDir)), 'no SQLite file is made in DATA_DIR')

  const unreachable = await run(process.execPath, [ADMIN, 'show', 'pg@example.com'], { DATA_DIR: dataDir, DATABASE_URL: 'postgres://threshold:s3cret-pw@127.0.0.1:9/threshold' })
  t.equal(unreachable.code, 1)
  t.match(unreachable.stderr, /^accounts: the accounts database cannot be opened: /)
  t.notOk(unreachable.stderr.includes('s3cret-pw'), 'the password is not printed')
})

t.test('rotate-signing-key: a new key in the key set of the running server, the old one kept; run again at once, refused', async (t) => {
  const dataDir = temporaryDataDir(t)
  const reference = await startReference(t, { dataDir })
  await registerAccount(reference.base, 'keys@example.com')
  const before = (await loginTokens(reference.base, 'keys@example.com')).auth
  const oldKid = decodeProtectedHeader(before).kid!

  const rotated = await accounts(dataDir, 'rotate-signing-key')
  t.equal(rotated.code, 0, rotated.stderr)
  const newKid = /^new signing key ([\w-]+): in the key set now, signing auth tokens from \S+Z$/m.exec(rotated.stdout)?.[1]
  t.ok(newKid !== undefined, rotated.stdout)
  t.match(rotated.stdout, new RegExp(`^old signing key ${oldKid}: signs until then, and stays in the key set until \\S+Z$`, 'm'))
  await reference.services.signingKeys.reload() // what the running server does every minute
  const keySet = await (await fetch(`${reference.base}/accounts/.well-known/jwks.json`)).json() as JSONWebKeySet
  t.same(keySet.keys.map((key) => key.kid), [newKid, oldKid])
  t.ok(await jwtVerify(before, createLocalJWKSet(keySet), { issuer: `${TEST_PUBLIC_URL}/accounts`, audience: TEST_PUBLIC_URL }), 'the token from before verifies')

  const again = await accounts(dataDir, 'rotate-signing-key')
  t.equal(again.code, 1)
  t.match(again.stderr, /^accounts: the last rotation is still under way: the key it replaced stays in the key set until \S+Z\. Rotate again after that, or add --force/)
  t.equal((await accounts(dataDir, 'rotate-signing-key', '--force')).code, 0, '--force goes ahead')
})

t.test('rotate-signing-key and audit-pseudonym name a DATA_DIR that does not exist or has no key, and create nothing', async (t) => {
  const missing = join(temporaryDataDir(t), 'not-there')
  for (const args of [['rotate-signing-key'], ['audit-pseudonym', 'a@example.com']]) {
    t.same(await accounts(missing, ...args), { code: 1, stdout: '', stderr: `accounts: there is no DATA_DIR at ${missing} (is DATA_DIR right?)\n` }, args.join(' '))
  }
  t.notOk(existsSync(missing))
  const empty = temporaryDataDir(t)
  await mkdir(empty, { recursive: true })
  const keyFile = join(empty, 'keys', 'auth-signing-key.jwk.json')
  t.same(await accounts(empty, 'rotate-signing-key'),
    { code: 1, stdout: '', stderr: `accounts: there is no signing key in ${keyFile} (is DATA_DIR right? The service makes the key at its first start)\n` })
  t.same(await accounts(empty, 'audit-pseudonym', 'a@example.com'), { code: 1, stdout: '', stderr: `accounts: there is no signing key in ${keyFile} (is DATA_DIR right?)\n` })
  t.notOk(existsSync(join(empty, 'keys')), 'no keys folder was made')
  await mkdir(join(empty, 'keys'))
  await writeFile(keyFile, '{"kty": "OKP", trunc')
  const damaged = await accounts(empty, 'rotate-signing-key')
  t.equal(damaged.code, 1)
  t.match(damaged.stderr, /^accounts: the signing key in \S+auth-signing-key\.jwk\.json cannot be read \(.*\); restore it from a backup\n$/, 'a damaged key is named, without a stack')
})

t.test('audit-pseudonym names an address as the audit log does, in any case', async (t) => {
  const dataDir = temporaryDataDir(t)
  const logs = logCollector()
  const reference = await startReference(t, { dataDir, logStream: logs.stream })
  await postJson(reference.base, '/accounts/v2/login', { email: 'Someone@Example.com', password: 'not her password' })
  const logged = logs.lines.find((line) => line.audit === 'login.failed')!.emailPseudonym
  t.same(await accounts(dataDir, 'audit-pseudonym', 'someone@EXAMPLE.com'), { code: 0, stdout: `${String(logged)}\n`, stderr: '' })
})

/** The store of `dataDir`, opened for one look and closed again. */
async function withStore<T> (dataDir: string, look: (store: SqliteAccountStore) => Promise<T>): Promise<T> {
  const store = new SqliteAccountStore(databaseFile(dataDir))
  try {
    return await look(store)
  } finally {
    await store.close()
  }
}

t.test('client add prints a confidential client\'s id and secret once; only the secret\'s SHA-256 is kept', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  const added = await accounts(dataDir, 'client', 'add', '--name', 'Example CRM', '--redirect-uri', 'https://crm.example.com/oidc/callback',
    '--redirect-uri', 'http://127.0.0.1:8400/callback', '--post-logout-redirect-uri', 'https://crm.example.com/', '--backchannel-logout-uri', 'https://crm.example.com/oidc/backchannel')
  t.equal(added.code, 0)
  const clientId = /^client_id: ([0-9a-f]{32})$/m.exec(added.stdout)?.[1]
  const secret = /^client_secret: ([A-Za-z0-9_-]{43})$/m.exec(added.stdout)?.[1]
  t.ok(clientId !== undefined && secret !== undefined, 'a generated id, and a secret of 32 random bytes')
  t.match(added.stdout, `added client ${clientId!} (Example CRM): confidential (client_secret_basic)`)
  t.match(added.stdout, 'shown only now')
  t.match(JSON.parse(added.stderr.trim()) as unknown, { audit: 'oidc-client.added-by-operator', clientId, by: 'operator' })
  t.notMatch(added.stderr, secret!, 'the audit line has no secret')
  const stored = await withStore(dataDir, async (store) => await store.oidcClients.find(clientId!))
  t.same(stored, {
    clientId,
    name: 'Example CRM',
    redirectUris: ['https://crm.example.com/oidc/callback', 'http://127.0.0.1:8400/callback'],
    postLogoutRedirectUris: ['https://crm.example.com/'],
    clientUri: null,
    backchannelLogoutUri: 'https://crm.example.com/oidc/backchannel',
    firstParty: false,
    authMethod: 'client_secret_basic',
    secretSha256: secretSha256(secret!)
  })
  t.ok(secretMatches(stored!, secret!), 'the printed secret is the client\'s')
  const database = Buffer.concat([databaseFile(dataDir), `${databaseFile(dataDir)}-wal`].filter(existsSync).map((file) => readFileSync(file)))
  t.equal(database.indexOf(secret!), -1, 'the secret itself is nowhere in the database')
})

t.test('client list shows id, name, type and URIs, never a secret or its hash; client remove ends the client and its grants', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  t.same(await accounts(dataDir, 'client', 'list'), { code: 0, stdout: 'no clients were added with client add (those of OIDC_CLIENTS are in its JSON)\n', stderr: '' })
  const confidential = await accounts(dataDir, 'client', 'add', '--name', 'Web', '--redirect-uri', 'https://web.example.com/cb')
  const publicClient = await accounts(dataDir, 'client', 'add', '--name', 'CLI', '--redirect-uri', 'http://localhost:53682/', '--public', '--first-party')
  t.match(publicClient.stdout, /: public \(PKCE, no secret\), first-party\n/)
  t.notMatch(publicClient.stdout, 'client_secret:')
  const webId = /^client_id: (\w+)$/m.exec(confidential.stdout)![1]!
  const cliId = /^client_id: (\w+)$/m.exec(publicClient.stdout)![1]!
  const secret = /^client_secret: (\S+)$/m.exec(confidential.stdout)![1]!

  const listed = await accounts(dataDir, 'client', 'list')
  t.equal(listed.code, 0)
  const expected = [
    `${webId}  Web  confidential (client_secret_basic)\n  redirect URI: https://web.example.com/cb`,
    `${cliId}  CLI  public (PKCE, no secret), first-party\n  redirect URI: http://localhost:53682/`
  ].sort()
  t.equal(listed.stdout, `${expected.join('\n')}\n`)
  t.notMatch(listed.stdout, secret)
  t.notMatch(listed.stdout, secretSha256(secret))

  await withStore(dataDir, async (store) => {
    await store.oidcPayloads.upsert({ model: 'Grant', id: 'grant-web', payload: '{}', grantId: null, uid: null, userCode: null, clientId: webId, expiresAt: null })
    await store.oidcPayloads.upsert({ model: 'RefreshToken', id: 'rt-web', payload: '{}', grantId: 'grant-web', uid: null, userCode: null, clientId: webId, expiresAt: null })
  })
  const removed = await accounts(dataDir, 'client', 'remove', webId)
  t.equal(removed.code, 0)
  t.equal(removed.stdout, `removed client ${webId}: its grants, codes and tokens are gone, and it signs no one in from now on\n`)
  await withStore(dataDir, async (store) => {
    t.equal(await store.oidcClients.find(webId), null)
    t.equal(await store.oidcPayloads.find('RefreshToken', 'rt-web', store.now()), null, 'its tokens went with it')
    t.equal(await store.oidcPayloads.find('Grant', 'grant-web', store.now()), null, 'and its grants')
    t.ok(await store.oidcClients.find(cliId), 'the other client stays')
  })
  t.same(await accounts(dataDir, 'client', 'remove', webId), { code: 1, stdout: '', stderr: `accounts: no client ${webId} was added with client add\n` })
})

t.test('client add refuses a missing name, a missing or bad redirect URI and unknown options, adding nothing', async (t) => {
  const dataDir = await dataDirWithAccounts(t)
  const cases: Array<[string[], string]> = [
    [['client', 'add', '--redirect-uri', 'https://app.example.com/cb'], 'accounts: client add needs --name, the name visitors see (1 to 200 characters)\n'],
    [['client', 'add', '--name', 'App'], 'accounts: client add needs at least one --redirect-uri\n'],
    [['client', 'add', '--name', 'App', '--redirect-uri', 'http://app.example.com/cb'],
      'accounts: --redirect-uri http://app.example.com/cb: must be https (plain http is allowed only for loopback hosts)\n'],
    [['client', 'add', '--name', 'App', '--redirect-uri', 'https://app.example.com/cb#x'], 'accounts: --redirect-uri https://app.example.com/cb#x: must not have a fragment\n'],
    [['client', 'add', '--name', 'App', '--redirect-uri', 'https://app.example.com/cb', '--backchannel-logout-uri', 'ftp://app.example.com/'],
      'accounts: --backchannel-logout-uri ftp://app.example.com/: must be an absolute https URL\n'],
    [['client', 'add', '--name', 'App', '--redirect-uri'], 'accounts: --redirect-uri needs a value; client add takes'],
    [['client', 'add', '--name', 'App', '--redirect-uri', 'https://app.example.com/cb', '--secret', 'mine'], 'accounts: unknown option --secret; client add takes'],
    [['client', 'remove'], 'accounts: client remove takes <client_id>'],
    [['client', 'rename', 'x'], 'accounts: unknown command "client rename"'],
    [['client'], 'accounts: unknown command "client"']
  ]
  const results = await Promise.all(cases.map(([args]) => accounts(dataDir, ...args)))
  for (const [index, [args, message]] of cases.entries()) {
    t.equal(results[index]!.code, 2, `${args.join(' ')}: exit 2`)
    t.ok(results[index]!.stderr.startsWith(message), `${args.join(' ')}: ${message.split('\n')[0]!}`)
    t.equal(results[index]!.stdout, '')
  }
  t.same(await withStore(dataDir, async (store) => await store.oidcClients.list()), [], 'nothing was added')
})
