import { Writable } from 'node:stream'
import t from 'tap'
import { loggerOptions } from '../../../server/shared/logger.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../fixtures/servers/edge.js'

function logCollector (): { lines: Array<Record<string, unknown>>, text: () => string, stream: Writable } {
  const lines: Array<Record<string, unknown>> = []
  const raw: string[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      raw.push(chunk.toString())
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    }
  })
  return { lines, text: () => raw.join(''), stream }
}

t.test('logs are JSON with a request id, and keep no secrets or query strings', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { auth: 'eyJ.secret.token', refresh: 'refresh-secret' }))
  const logs = logCollector()
  // The request id is the load balancer's to give: inject's requests come from loopback.
  const app = await buildEdge(t, { accountsUpstream: upstream.url, logger: { ...loggerOptions('info'), stream: logs.stream }, env: { TRUST_PROXY: 'loopback' } })
  await app.inject({
    method: 'POST',
    url: '/accounts/v2/auth/login?email=person%40example.com&id=sso-secret-id',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer google-credential-secret',
      cookie: 'refresh=cookie-secret',
      'x-request-id': 'lb-request-42'
    },
    payload: JSON.stringify({ email: 'person@example.com', password: 'hunter2-password' })
  })
  await app.inject({ url: '/healthz?token=query-secret' })
  const text = logs.text()
  t.ok(logs.lines.length >= 2, 'requests are logged')
  t.ok(logs.lines.every((line) => typeof line.level === 'number' && typeof line.time === 'number'))
  t.ok(logs.lines.some((line) => line.reqId === 'lb-request-42'), 'the load balancer\'s request id is kept')
  const incoming = logs.lines.find((line) => (line.req as { url?: string } | undefined)?.url === '/accounts/v2/auth/login')
  t.ok(incoming, 'the path is logged without its query string')
  for (const secret of ['hunter2-password', 'google-credential-secret', 'cookie-secret', 'sso-secret-id', 'person%40example.com', 'query-secret', 'eyJ.secret.token', 'refresh-secret']) {
    t.notOk(text.includes(secret), `${secret} is not in the log`)
  }
})

t.test('an unsafe incoming request id is replaced', async (t) => {
  const logs = logCollector()
  const app = await buildEdge(t, { logger: { ...loggerOptions('info'), stream: logs.stream }, env: { TRUST_PROXY: 'loopback', ALLOWED_HOSTS: 'localhost' } })
  await app.inject({ url: '/healthz', headers: { 'x-request-id': 'evil\nforged log line' } })
  const ids = logs.lines.map((line) => String(line.reqId))
  t.ok(ids.every((id) => /^[0-9a-f-]{36}$/.test(id)), 'a fresh UUID is used instead')
})
