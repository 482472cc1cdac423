import { decodeJwt } from 'jose'
import t from 'tap'
import { PostgresAccountStore } from '../../../../server/reference/store/postgres-store.js'
import { signedInOwner, type SignedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { startReference } from '../../../fixtures/servers/reference.js'

// The account view's calls keep their promises with DATABASE_URL as on the SQLite file:
// sessions listed and ended one at a time, the activity kept, the account deleted whole.

const sessionIdOf = (owner: SignedInOwner): string => String(decodeJwt(owner.bearer.authorization.slice('Bearer '.length)).sid)

/** The owner's activity once it lists `count` events (an event is written just after its call's answer). */
async function activityOf (owner: SignedInOwner, count: number): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 5000
  for (;;) {
    const events = (await owner.browser.post('activity/list', {}, owner.bearer)).body.events as Array<Record<string, unknown>>
    if (events.length >= count) return events
    if (Date.now() > deadline) throw new Error(`the activity lists ${events.length} events, not ${count}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

t.test('the account view with DATABASE_URL: sessions listed and ended, activity kept, the account deleted', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)
  const reference = await startReference(t, { env: { DATABASE_URL: await server.createDatabase() } })
  t.ok(reference.services.store instanceof PostgresAccountStore)
  const owner = await signedInOwner(reference, 'ada@example.com')
  const other = await signedInOwner(reference, 'ada@example.com', { registered: true })

  const listed = (await owner.browser.post('sessions/list', {}, owner.bearer)).body.sessions as Array<Record<string, unknown>>
  t.same(listed.map((session) => [session.id, session.current]), [[sessionIdOf(other), false], [sessionIdOf(owner), true]])
  const bo = await signedInOwner(reference, 'bo@example.com')
  t.equal((await bo.browser.post('sessions/end', { id: sessionIdOf(owner) }, bo.bearer)).status, 404, 'another account\'s session is not his to end')
  t.equal((await owner.browser.post('sessions/end', { id: sessionIdOf(other) }, owner.bearer)).status, 200)
  t.equal((await postJson(reference.base, '/accounts/token/refresh', { refresh: other.refresh })).status, 401, 'the ended session refreshes no more')

  const events = await activityOf(owner, 3)
  t.same(events.map((event) => event.kind), ['sessions-ended', 'sign-in', 'sign-in'])

  const accountId = (await reference.services.store.findAccountByEmail('ada@example.com'))!.id
  t.equal((await owner.browser.post('account/delete', { confirmEmail: 'ada@example.com' }, owner.bearer)).status, 200)
  t.equal(await reference.services.store.findAccountById(accountId), null)
  t.same(await reference.services.store.listSecurityEvents(accountId, { since: 0, kinds: ['sign-in'], limit: 100 }), [], 'its events went with it')
  const again = await owner.browser.post('account/delete', { confirmEmail: 'ada@example.com' }, owner.bearer)
  t.same([again.status, again.body.reason], [401, 'signed_out'])
})
