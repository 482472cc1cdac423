import t from 'tap'
import { buildEdge, jsonAnswer, startUpstream } from './test/fixtures/edge.js'
import { edgeKeys } from './server/edge/challenge/edge-secrets.js'
import { issueProofOfWork, checkProofOfWork } from './server/edge/challenge/proof-of-work.js'
import { solvedHeader } from './test/fixtures/challenge.js'

t.test('cost', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'no' }))
  const results: Record<string, number> = {}
  for (const round of [1, 2]) {
    for (const challenge of ['off', 'pow']) {
      const app = await buildEdge(t, { env: { CHALLENGE: challenge, RATE_LIMIT_PER_MINUTE: '1000000', CHALLENGE_BURST_FAILURES: '1000000', CHALLENGE_RANGE_FAILURES: '1000000', CHALLENGE_ACCOUNT_FAILURES: '1000000' }, accountsUpstream: upstream.url })
      const payload = JSON.stringify({ email: 'ada@example.com', password: 'x' })
      for (let i = 0; i < 300; i++) await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': 'application/json' }, payload })
      const started = performance.now()
      const N = 3000
      for (let i = 0; i < N; i++) await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { 'content-type': 'application/json' }, payload })
      results[`${challenge}-${round}`] = (performance.now() - started) / N
      await app.close()
    }
  }
  t.comment(JSON.stringify(results))
  const keys = edgeKeys('x'.repeat(32))
  const binding = { path: 'v2/login', account: 'a', range: 'r' }
  let started = performance.now()
  for (let i = 0; i < 200; i++) await issueProofOfWork(keys, 1, binding, Date.now())
  t.comment(`issue: ${((performance.now() - started) / 200).toFixed(3)} ms`)
  const header = await solvedHeader(await issueProofOfWork(keys, 1, binding, Date.now()) as unknown as Record<string, unknown>)
  started = performance.now()
  for (let i = 0; i < 1000; i++) await checkProofOfWork(keys, header, binding, 1)
  t.comment(`check: ${((performance.now() - started) / 1000).toFixed(3)} ms`)
})
