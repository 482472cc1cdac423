import { Writable } from 'node:stream'
import t from 'tap'
import { startReference } from '../../fixtures/servers/reference.js'

t.test('the reference service answers the edge\'s readiness probe on loopback, unlogged, and the route is not reachable through the edge', async (t) => {
  const logged: string[] = []
  const logStream = new Writable({ write (chunk: Buffer, _encoding, done) { logged.push(chunk.toString()); done() } })
  const reference = await startReference(t, { logStream })

  const direct = await fetch(`${reference.url}/healthz`, { headers: reference.edgeHeaders })
  t.equal(direct.status, 200)
  t.same(await direct.json(), { status: 'ok' })
  t.notMatch(logged.join(''), /healthz/, 'probes do not fill the log')

  const readiness = await fetch(`${reference.base}/readyz`)
  t.equal(readiness.status, 200, 'the edge in front finds it up')
  t.same(await readiness.json(), { status: 'ready', upstreams: { accounts: { state: 'up' }, edgeAuth: { state: 'up' } } })

  const throughTheEdge = await fetch(`${reference.base}/accounts/healthz`)
  t.equal(throughTheEdge.status, 404, 'not among the paths the edge proxies (proxied, it would be a 200)')
  t.same(await throughTheEdge.json(), { error: 'Not found.' }, 'the edge\'s own answer')
})
