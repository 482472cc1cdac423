import t from 'tap'
import { postJson } from '../../fixtures/http/post-json.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

/*
 * SSO_DISCOVERY is one variable for the whole server: the edge reads it to
 * proxy `auth/sso/discover` and tell the page, and the reference service it
 * forks reads the same environment to answer it (docs/sso.md, "Found by the address").
 */

const CONNECTIONS = JSON.stringify([
  { domain: 'corp.example', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'a-secret', required: true }
])

t.test('the built server with SSO_DISCOVERY=true answers the discovery through the edge and refuses a required domain\'s password', async (t) => {
  const server = await startBuiltServer(t, { SSO_DISCOVERY: 'true', SSO_CONNECTIONS: CONNECTIONS })
  const origin = { origin: server.base }
  t.same((await postJson(server.base, '/accounts/auth/sso/discover', { email: 'ada@corp.example' }, origin)).body, { sso: true, required: true })
  t.same((await postJson(server.base, '/accounts/auth/sso/discover', { email: 'ada@elsewhere.example' }, origin)).body, { sso: false })
  const login = await postJson(server.base, '/accounts/v2/login', { email: 'ada@corp.example', password: 'any password at all' }, origin)
  t.same([login.status, login.body.sso_required], [403, true])
  const page = await (await fetch(`${server.base}/`)).text()
  t.match(page, /"ssoDiscovery":true/, 'the page is told')
})

t.test('without it, the call is absent and the page says nothing of it; a required connection still refuses the password', async (t) => {
  const server = await startBuiltServer(t, { SSO_CONNECTIONS: CONNECTIONS })
  const origin = { origin: server.base }
  t.equal((await postJson(server.base, '/accounts/auth/sso/discover', { email: 'ada@corp.example' }, origin)).status, 404)
  t.equal((await postJson(server.base, '/accounts/v2/login', { email: 'ada@corp.example', password: 'any password at all' }, origin)).status, 403)
  t.notMatch(await (await fetch(`${server.base}/`)).text(), /ssoDiscovery/)
})
