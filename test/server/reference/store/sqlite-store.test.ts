import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { SqliteAccountStore, SQLITE_MIGRATIONS } from '../../../../server/reference/store/sqlite-store.js'
import { accountStoreContract } from '../../../fixtures/account-store-contract.js'

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
