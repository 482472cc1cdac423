import t, { type Test } from 'tap'
import englishAnswers from '../../../../server/reference/languages/en.json' with { type: 'json' }
import { STORE_RETRY_AFTER_SECONDS } from '../../../../server/reference/http/error-answers.js'
import { holdTableLock, pollUntil, postgresSkip, startPostgresServer } from '../../../fixtures/servers/postgres-server.js'
import { GOOD_PASSWORD, startReference, type Reference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

// The reference service on PostgreSQL (DATABASE_URL) with the real edge in front, on real ports: what a visitor and a
// balancer meet while the database restarts, and when an instance starts before it.

/** How long an instance gets to notice that PostgreSQL went or came back. */
const RESTART_WAIT_MS = 15_000

/** Waits until `check` answers true, for at most RESTART_WAIT_MS. */
const eventually = async (check: () => Promise<boolean>): Promise<boolean> => await pollUntil(check, RESTART_WAIT_MS)

/** The statuses of the reference service's own readiness route (what the edge probes) and of the edge's /readyz. */
async function readiness (reference: Reference): Promise<{ service: number, edge: number }> {
  const service = await fetch(`${reference.url}/healthz`, { headers: reference.edgeHeaders })
  const edge = await fetch(`${reference.base}/readyz`)
  await Promise.all([service.body?.cancel(), edge.body?.cancel()])
  return { service: service.status, edge: edge.status }
}

function isUnavailableAnswer (t: Test, answer: Awaited<ReturnType<typeof postJson>>, what: string): void {
  t.same([answer.status, answer.body], [503, { error: englishAnswers['failure.busy'] }], `${what}: 503 with the text the page shows`)
  t.equal(answer.headers.get('retry-after'), String(STORE_RETRY_AFTER_SECONDS), `${what}: Retry-After reaches the page`)
}

t.test('with a real PostgreSQL', { skip: postgresSkip }, async (t) => {
  const server = await startPostgresServer(t)

  t.test('PostgreSQL stopped under the service: calls answer 503 unavailable and it is not ready; started again, calls work and it is ready', async (t) => {
    const reference = await startReference(t, { env: { DATABASE_URL: await server.createDatabase() } })
    await registerAccount(reference.base, 'restart@example.com')
    t.equal((await postLogin(reference.base, 'restart@example.com')).status, 200)
    t.same(await readiness(reference), { service: 200, edge: 200 }, 'ready')

    await server.stop()
    t.teardown(() => server.start())
    isUnavailableAnswer(t, await postLogin(reference.base, 'restart@example.com'), 'a login during the outage')
    isUnavailableAnswer(t, await postJson(reference.base, '/accounts/register',
      { email: 'new@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }), 'a registration')
    t.ok(await eventually(async () => (await readiness(reference)).edge === 503), 'the edge\'s /readyz says 503')
    t.equal((await readiness(reference)).service, 503, 'and so does the service\'s own')

    await server.start()
    t.ok(await eventually(async () => (await readiness(reference)).edge === 200), 'ready again once PostgreSQL is back')
    t.equal((await postLogin(reference.base, 'restart@example.com')).status, 200, 'a login works on new connections')
  })

  t.test('an instance started while PostgreSQL is down is not ready and answers 503 unavailable; it becomes ready when PostgreSQL comes', async (t) => {
    const databaseUrl = await server.createDatabase()
    await server.stop()
    t.teardown(() => server.start())
    const reference = await startReference(t, { env: { DATABASE_URL: databaseUrl } })
    t.same(await readiness(reference), { service: 503, edge: 503 }, 'not ready')
    isUnavailableAnswer(t, await postJson(reference.base, '/accounts/register',
      { email: 'early@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }), 'a registration before PostgreSQL came')

    await server.start()
    t.ok(await eventually(async () => (await readiness(reference)).edge === 200), 'ready once PostgreSQL is up and migrated')
    await registerAccount(reference.base, 'early@example.com')
    t.equal((await postLogin(reference.base, 'early@example.com')).status, 200, 'calls work')
  })

  t.test('a call whose database session is ended under it answers 503 unavailable; the service carries on and the next call works', async (t) => {
    const databaseUrl = await server.createDatabase()
    const reference = await startReference(t, { env: { DATABASE_URL: databaseUrl } })
    await registerAccount(reference.base, 'cut@example.com')

    // Another session holds the sessions' table: the login's statement waits, on a connection the service holds.
    const { blocker, waitingBackend } = await holdTableLock(t, databaseUrl, 'refresh_tokens')
    const answering = postLogin(reference.base, 'cut@example.com')
    const waiting = await waitingBackend(RESTART_WAIT_MS)
    t.ok(waiting, 'the login waits on the lock')
    await blocker.query('SELECT pg_terminate_backend($1)', [waiting])
    isUnavailableAnswer(t, await answering, 'that login')
    await blocker.query('ROLLBACK')

    await new Promise((resolve) => setTimeout(resolve, 200))
    t.equal((await postLogin(reference.base, 'cut@example.com')).status, 200, 'the next login works')
    t.same(await readiness(reference), { service: 200, edge: 200 }, 'and the instance is ready')
  })
})
