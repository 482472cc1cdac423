import Database from 'better-sqlite3'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { databaseFile } from '../../../../server/reference/store/open-store.js'
import { migrate, rekeyEmails, SqliteAccountStore, SQLITE_MIGRATIONS } from '../../../../server/reference/store/sqlite-store.js'
import { accountStoreContract } from '../../../fixtures/store/account-store-contract.js'
import { GOOD_PASSWORD, startReference, temporaryDataDir } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

async function tempFolder (t: import('tap').Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'threshold-sqlite-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

t.test('the SQLite store keeps every promise of AccountStore', async (t) => {
  accountStoreContract(t, async (t) => {
    const store = new SqliteAccountStore(join(await tempFolder(t), 'accounts.sqlite'))
    t.teardown(() => store.close())
    return store
  })
})

t.test('accounts outlive the store: a store reopened on the same file finds them', async (t) => {
  const file = join(await tempFolder(t), 'nested', 'accounts.sqlite')
  const first = new SqliteAccountStore(file)
  const result = await first.createAccount({ email: 'kept@example.com', firstName: null, lastName: null, passwordHash: 'h', googleSubject: null })
  await first.close()
  const second = new SqliteAccountStore(file)
  t.teardown(() => second.close())
  t.same(await second.findAccountByEmail('kept@example.com'), 'created' in result ? result.created : null)
  t.ok(SQLITE_MIGRATIONS.length >= 1)
})

t.test('a restart on the same DATA_DIR keeps the accounts, their memberships and their sessions', async (t) => {
  const dataDir = temporaryDataDir(t)
  const first = await startReference(t, { dataDir })
  await registerAccount(first.base, 'keeper@example.com')
  const account = await first.services.store.findAccountByEmail('keeper@example.com')
  await first.services.store.addMembership(account!.id, 'acme')
  const { refresh } = await loginTokens(first.base, 'keeper@example.com')
  await first.close()

  const second = await startReference(t, { dataDir })
  const login = await postJson(second.base, '/accounts/v2/login', { email: 'keeper@example.com', password: GOOD_PASSWORD, insecure_allowed_orgs: ['acme'] })
  t.equal(login.status, 200, 'the account logs in after the restart, as a member')
  t.equal((await postJson(second.base, '/accounts/token/refresh', { refresh })).status, 200, 'a refresh token from before the restart works')
  // Another password: the same one again would be a registration repeated after a lost answer.
  t.same((await postJson(second.base, '/accounts/register', { email: 'KEEPER@example.com', password: 'another good passphrase', confirm_password: 'another good passphrase' })).status, 409)
})

t.test('the data file is DATA_DIR/accounts.sqlite, in WAL mode, at the latest schema version', async (t) => {
  const { dataDir, services } = await startReference(t)
  t.equal(databaseFile(dataDir), join(dataDir, 'accounts.sqlite'))
  await services.store.createAccount({ email: 'wal@example.com', firstName: null, lastName: null, passwordHash: null, googleSubject: null })
  t.ok(existsSync(join(dataDir, 'accounts.sqlite-wal')), 'a write-ahead log sits beside the file')
  const reader = new Database(databaseFile(dataDir), { readonly: true })
  t.teardown(() => reader.close())
  t.equal(reader.pragma('journal_mode', { simple: true }), 'wal')
  t.equal(reader.pragma('user_version', { simple: true }), SQLITE_MIGRATIONS.length)
})

t.test('migrations run once: opening a current database again changes nothing', async (t) => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  t.equal(migrate(db).version, SQLITE_MIGRATIONS.length)
  db.prepare("INSERT INTO accounts (id, email, email_key, created_at) VALUES ('1', 'a@example.com', 'a@example.com', 0)").run()
  t.equal(migrate(db).version, SQLITE_MIGRATIONS.length)
  t.equal((db.prepare('SELECT COUNT(*) AS count FROM accounts').get() as { count: number }).count, 1)
})

t.test('a database written by a newer version is refused rather than used with an older schema', async (t) => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  db.pragma(`user_version = ${SQLITE_MIGRATIONS.length + 1}`)
  t.throws(() => migrate(db), { message: `the accounts database has schema version ${SQLITE_MIGRATIONS.length + 1}, newer than this version of Threshold knows (${SQLITE_MIGRATIONS.length}); upgrade Threshold` })
})

t.test('opening a database keyed the old way re-keys its accounts, and names an account whose address now reads as another\'s', async (t) => {
  const file = join(await tempFolder(t), 'accounts.sqlite')
  // The schema before verified addresses and NFKC keys with IDNA domains, with keys as that version wrote them (NFC, lower case).
  const old = new Database(file)
  migrate(old, SQLITE_MIGRATIONS.indexOf(rekeyEmails) - 1)
  const insert = old.prepare('INSERT INTO accounts (id, email, email_key, password_hash, created_at) VALUES (?, ?, ?, ?, ?)')
  insert.run('real', 'n3x@b.co', 'n3x@b.co', 'h1', 2)
  insert.run('squatter', 'n3x@ｂ.co', 'n3x@ｂ.co', 'h2', 1)
  insert.run('idn', 'Ann@Bücher.example', 'ann@bücher.example', 'h3', 3)
  old.close()

  const store = new SqliteAccountStore(file)
  t.teardown(() => store.close())
  t.same(store.emailKeyConflicts, [{ id: 'squatter', keptBy: 'real' }])
  t.equal((await store.findAccountByEmail('n3x@ｂ.co'))?.id, 'real', 'the look-alike finds the real account, not the squatter\'s')
  t.equal((await store.findAccountByEmail('ann@xn--bcher-kva.example'))?.id, 'idn', 'the punycode form finds the account')
  t.equal((await store.findAccountByEmail('ann@bücher.example'))?.id, 'idn', 'and so does the Unicode form, as before')
  t.equal((await store.findAccountById('real'))?.emailVerifiedAt, null, 'an account from before has no verified address')
  t.same(await store.createAccount({ email: 'ANN@xn--BCHER-kva.example', firstName: null, lastName: null, passwordHash: null, googleSubject: null }),
    { conflict: 'email' })
})

t.test('opening a database one schema version behind brings it up to date and keeps its accounts, memberships and tokens', async (t) => {
  const file = join(await tempFolder(t), 'accounts.sqlite')
  const old = new Database(file)
  t.equal(migrate(old, SQLITE_MIGRATIONS.length - 1).version, SQLITE_MIGRATIONS.length - 1)
  old.prepare(`INSERT INTO accounts (id, email, email_key, first_name, last_name, password_hash, google_subject, email_verified_at, created_at)
               VALUES ('kept', 'Kept@example.com', 'kept@example.com', 'Ada', 'Lovelace', 'h', 'google-kept', 1000, 1)`).run()
  old.prepare("INSERT INTO memberships (account_id, organization) VALUES ('kept', 'acme')").run()
  old.prepare("INSERT INTO refresh_tokens (token_hash, account_id, family_id, expires_at, context) VALUES ('refresh-kept', 'kept', 'f', 9000000000000, '{}')").run()
  old.prepare("INSERT INTO reset_tokens (token_hash, account_id, expires_at, created_at) VALUES ('reset-kept', 'kept', 9000000000000, 2)").run()
  old.close()

  const store = new SqliteAccountStore(file)
  t.teardown(() => store.close())
  t.same(await store.findAccountByEmail('kept@EXAMPLE.com'), {
    id: 'kept', email: 'Kept@example.com', firstName: 'Ada', lastName: 'Lovelace', passwordHash: 'h',
    googleSubject: 'google-kept', emailVerifiedAt: 1000, createdAt: 1
  })
  t.same(await store.listMemberships('kept'), ['acme'])
  t.equal((await store.findRefreshToken('refresh-kept'))?.revokedAt, null)
  t.equal(await store.consumeResetToken('reset-kept', 3), 'kept')
  await store.insertEmailLink({ tokenHash: 'link', accountId: 'kept', purpose: 'verify-email', expiresAt: 9_000_000_000_000 }, 3)
  t.equal((await store.consumeEmailLink('verify-email', 'link', 4))?.accountId, 'kept', 'the new tables are there')
  t.equal(await store.rememberBrowser('kept', 'browser', 4), 'first')
  t.equal(await store.takeNoticeSlot('kept', 'new-browser', 4, 1000), true)
  t.equal(await store.spendGoogleToken('jti:kept', 9_000_000_000_000, 4), true, 'the table of spent Google tokens is there')

  const reader = new Database(file, { readonly: true })
  t.teardown(() => reader.close())
  t.equal(reader.pragma('user_version', { simple: true }), SQLITE_MIGRATIONS.length)
})
