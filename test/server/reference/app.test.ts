import t from 'tap'
import { logCollector, startReference } from '../../fixtures/servers/reference.js'
import { postJson } from '../../fixtures/http/post-json.js'

t.test('a failure inside the service answers 500 with a readable text that hides its cause, and is logged', async (t) => {
  const logs = logCollector()
  const { base, services } = await startReference(t, { logStream: logs.stream })
  // The database going away is the failure an operator is likeliest to meet.
  await services.store.close()
  const answer = await postJson(base, '/accounts/v2/login', { email: 'someone@example.com', password: 'a password' })
  t.same([answer.status, answer.body], [500, { error: 'Something went wrong. Please try again.' }])
  t.notOk(JSON.stringify(answer.body).includes('database'), 'no database message reaches the visitor')
  const logged = await logs.waitFor((line) => line.msg === 'request failed')
  t.match((logged.err as { message?: string }).message, /database/i, 'the cause is in the log')
})

t.test('requests the service cannot read get {"error": text} rather than Fastify\'s own shape', async (t) => {
  const { url, edgeHeaders } = await startReference(t)
  const cases: Array<[string, RequestInit, number, string]> = [
    ['bad JSON', { headers: { 'content-type': 'application/json' }, body: '{"email"' }, 400, 'The request body is not valid JSON.'],
    ['an empty JSON body', { headers: { 'content-type': 'application/json' }, body: '' }, 400, 'The request body is empty.'],
    ['another media type', { headers: { 'content-type': 'application/xml' }, body: '<x/>' }, 415, 'The request body must be JSON.'],
    ['a body over 16 KiB', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'x'.repeat(17 * 1024) }) }, 413, 'The request body is too large.']
  ]
  for (const [name, init, status, message] of cases) {
    const response = await fetch(`${url}/v2/login`, { method: 'POST', ...init, headers: { ...edgeHeaders, ...init.headers as Record<string, string> } })
    t.same([response.status, await response.json()], [status, { error: message }], name)
    t.equal(response.headers.get('cache-control'), 'no-store')
  }
})

t.test('only a Bearer authorization carries a Google credential', async (t) => {
  const { base } = await startReference(t, { env: { GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com', GOOGLE_JWKS_URL: 'http://127.0.0.1:9/certs' } })
  for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two words', `Bearer ${'x'.repeat(8193)}`]) {
    const answer = await postJson(base, '/accounts/auth/register', { register_method: 'GOOGLE' }, { authorization })
    t.same([answer.status, answer.body], [401, { error: 'Google register failed.' }], authorization.slice(0, 20))
  }
})

t.test('the edge proxies the service\'s own paths and keeps others out', async (t) => {
  const { base } = await startReference(t)
  t.equal((await fetch(`${base}/accounts/.well-known/jwks.json`)).status, 200)
  t.equal((await fetch(`${base}/accounts/.well-known/jwks.json`, { method: 'POST' })).status, 405, 'the key set is read-only')
  t.equal((await postJson(base, '/accounts/resetPassword', {})).status, 400, 'reset completion reaches the service')
  t.equal((await postJson(base, '/accounts/token/refresh', {})).status, 400, 'so does refresh')
  const unlisted = await postJson(base, '/accounts/admin/accounts', {})
  t.same([unlisted.status, unlisted.body], [404, { error: 'Not found.' }], 'a path the service does not expose never reaches it')
})
