import t from 'tap'
import { accountThrottleKey, addressThrottleKey } from '../../../../server/reference/sign-in/login-throttles.js'
import { EMBEDDED_SECRET_HEADER } from '../../../../server/shared/embedded-secret.js'
import { auditEvents, logCollector, startReference } from '../../../fixtures/servers/reference.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const FORGED = '198.51.100.23'

t.test('a process of the host calling the service\'s loopback port directly, with a forged X-Forwarded-For, is refused before any route', async (t) => {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream })
  await registerAccount(reference.base, 'owner@example.com')
  const guess = JSON.stringify({ email: 'owner@example.com', password: 'a guess' })
  for (const [name, secret] of [['no secret', null], ['a wrong secret', 'not-the-edge\'s'], ['an empty one', '']] as const) {
    const response = await fetch(`${reference.url}/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': FORGED, ...(secret === null ? {} : { [EMBEDDED_SECRET_HEADER]: secret }) },
      body: guess
    })
    t.same([response.status, await response.json()], [403, { error: 'This service answers the edge only.' }], `${name}: 403`)
    t.equal(response.headers.get('cache-control'), 'no-store')
  }
  t.equal((await fetch(`${reference.url}/healthz`)).status, 403, 'every route, the health probe\'s too')
  t.equal((await fetch(`${reference.url}/no/such/path`)).status, 403, 'and paths that are none')

  t.notOk(auditEvents(logs).includes('login.failed'), 'no password was checked')
  t.same(await reference.services.store.readLoginThrottle(accountThrottleKey('owner@example.com')), { failures: 0, lockedUntil: 0 })
  const refusals = logs.lines.filter((line) => line.msg === 'a request without the edge\'s secret was refused')
  t.equal(refusals.length, 4, 'each refusal is logged (but the health route\'s: it logs nothing, as a flood of probes would fill the log)')
  t.notOk(logs.text().includes(FORGED), 'and the forged address is believed nowhere, not even in the log')
})

t.test('the edge\'s calls carry the secret, and only with it is the stated client address believed', async (t) => {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream })
  await registerAccount(reference.base, 'owner@example.com')
  const response = await fetch(`${reference.url}/v2/login`, {
    method: 'POST',
    headers: { ...reference.edgeHeaders, 'content-type': 'application/json', 'x-forwarded-for': FORGED },
    body: JSON.stringify({ email: 'owner@example.com', password: 'a guess' })
  })
  t.equal(response.status, 401, 'the edge\'s call is answered')
  t.equal(logs.lines.findLast((line) => line.audit === 'login.failed')?.clientAddress, FORGED, 'for the address the edge states')
  t.equal((await reference.services.store.readLoginThrottle(addressThrottleKey('owner@example.com', FORGED))).failures, 1)
})
