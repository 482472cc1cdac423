import t from 'tap'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

// The lockouts of lockouts.test.ts, with DATABASE_URL: the locks and counts are in
// PostgreSQL, which every instance shares, and the attack fails there too.
t.test('lockouts that cannot be turned on a victim, with DATABASE_URL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const databaseUrl = await server.createDatabase()
  // Two instances of the service on one database and one signing key, as when it is scaled out; the attacker and the
  // owner reach different ones.
  const first = await startReference(t, { env: { DATABASE_URL: databaseUrl }, edgeEnv: { TRUST_PROXY: 'loopback' } })
  const second = await startReference(t, { env: { DATABASE_URL: databaseUrl }, edgeEnv: { TRUST_PROXY: 'loopback' }, dataDir: first.dataDir })
  t.ok(first.services.store instanceof PostgresAccountStore)
  const loginFrom = (base: string, address: string, password: string, cookie?: string) =>
    postJson(base, '/accounts/v2/login', { email: 'victim@example.com', password },
      { 'x-forwarded-for': address, ...(cookie === undefined ? {} : { cookie }) })

  await registerAccount(first.base, 'victim@example.com')
  const signedIn = await loginFrom(second.base, '198.51.100.9', GOOD_PASSWORD)
  const cookie = signedIn.headers.getSetCookie().find((value) => value.startsWith('threshold_browser='))!.split(';')[0]!

  const statuses: number[] = []
  for (let guess = 1; guess <= 6; guess++) {
    // The attacker alternates between the instances: the count is one.
    statuses.push((await loginFrom(guess % 2 === 0 ? first.base : second.base, '2001:db8:bad::1', `guess ${guess}`)).status)
  }
  t.same(statuses, [401, 401, 401, 401, 401, 429], 'the attacker\'s pair is locked across both instances')
  t.equal((await loginFrom(first.base, '2001:db8:bad::2', GOOD_PASSWORD)).status, 429, 'even for the right password')
  t.equal((await loginFrom(first.base, '198.51.100.9', GOOD_PASSWORD)).status, 200, 'the owner signs in from her address')

  // The same attack from the owner's own address: her known browser still signs in.
  for (let guess = 1; guess <= 6; guess++) await loginFrom(second.base, '198.51.100.9', `guess ${guess}`)
  t.equal((await loginFrom(first.base, '198.51.100.9', GOOD_PASSWORD)).status, 429, 'that address is locked for browsers new to the account')
  t.equal((await loginFrom(first.base, '198.51.100.9', GOOD_PASSWORD, cookie)).status, 200, 'her known browser signs in')
})
