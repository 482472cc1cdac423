import t from 'tap'
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, startUpstream } from '../../fixtures/edge.js'

t.test('/healthz answers while the process runs', async (t) => {
  const app = await buildEdge(t)
  const response = await app.inject({ url: '/healthz' })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { status: 'ok' })
})

t.test('/readyz is 200 only when every backend accepts connections, and names none of their addresses', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, {}))
  const ready = await buildEdge(t, { accountsUpstream: upstream.url, edgeAuthUpstream: upstream.url })
  const up = await ready.inject({ url: '/readyz' })
  t.equal(up.statusCode, 200)
  t.same(up.json(), { status: 'ready', upstreams: { accounts: 'reachable', edgeAuth: 'reachable' } })

  const notReady = await buildEdge(t, { accountsUpstream: upstream.url, edgeAuthUpstream: DEAD_UPSTREAM })
  const down = await notReady.inject({ url: '/readyz' })
  t.equal(down.statusCode, 503)
  t.same(down.json(), { status: 'not ready', upstreams: { accounts: 'reachable', edgeAuth: 'unreachable' } })
  t.notMatch(down.body, /127\.0\.0\.1/)
  t.equal(upstream.requests.length, 0, 'probing opens a connection but sends no request')
})
