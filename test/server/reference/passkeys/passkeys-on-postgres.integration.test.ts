import t from 'tap'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { SoftwareAuthenticator } from '../../../fixtures/passkeys/software-authenticator.js'

// With DATABASE_URL several instances share the passkeys and the challenges: a passkey made on
// one signs in on another, and a challenge answered on one cannot be answered again on another.
t.test('passkeys with DATABASE_URL, across two instances', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const databaseUrl = await server.createDatabase()
  const first = await startReference(t, { env: { DATABASE_URL: databaseUrl } })
  const second = await startReference(t, { env: { DATABASE_URL: databaseUrl }, dataDir: first.dataDir })
  t.ok(first.services.store instanceof PostgresAccountStore)

  await registerAccount(first.base, 'ada@example.com')
  const authenticator = new SoftwareAuthenticator(TEST_PUBLIC_URL, { countsSignatures: true })
  const onFirst = new PasskeyBrowser(first.base)
  const auth = String((await onFirst.signIn('ada@example.com')).body.auth)
  const credential = authenticator.create(await onFirst.registerOptions(auth))
  t.equal((await onFirst.post('passkeys/register', { credential }, { authorization: `Bearer ${auth}` })).status, 200)

  const onSecond = new PasskeyBrowser(second.base)
  const assertion = authenticator.get(await onSecond.loginOptions())
  const binding = onSecond.value('passkey_challenge')!
  const login = await onSecond.post('passkeys/login', { credential: assertion })
  t.equal(login.status, 200, 'the passkey made on the first instance signs in on the second')
  t.same(login.body.credential_ids, [credential.id])

  const replay = new PasskeyBrowser(first.base)
  replay.keep('passkey_challenge', binding)
  t.equal((await replay.post('passkeys/login', { credential: assertion })).status, 400, 'the challenge is spent on every instance')
  const account = (await first.services.store.findAccountByEmail('ada@example.com'))!
  t.match((await first.services.store.listPasskeys(account.id))[0], { counter: 1, backedUp: true }, 'the counter and flags recorded in PostgreSQL')
})
