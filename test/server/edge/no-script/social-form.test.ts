import t, { type Test } from 'tap'
import { ERROR_MESSAGES } from '../../../../common/languages/error-messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../../server/reference/http/exposed-routes.js'
import { jsonAnswer, startEdgeWithUpstream, startUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { postForm, stateIn } from '../../../fixtures/no-script/form-page.js'

/*
 * `form=social` (docs/no-script.md): a social connection's button posted without scripts starts the sign-in
 * as the page's scripts do and leaves for the provider by a page, as `form=sso` does.
 */

const ENV = { TRUST_PROXY: 'loopback', SOCIAL_CONNECTIONS: JSON.stringify([{ type: 'github', client_id: 'gh', client_secret: 'gh-secret' }]) }
const STATE_COOKIE = 'social_state=binding-1; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=600'

const bodyOf = (request: RecordedRequest | undefined): unknown => JSON.parse(request?.body.toString('utf8') ?? 'null')

async function edgeAnswering (t: Test, answer: Parameters<typeof startUpstream>[1], env: Record<string, string> = {}) {
  return await startEdgeWithUpstream(t, answer, { env: { ...ENV, ...env }, accountsRoutes: REFERENCE_ACCOUNTS_ROUTES })
}

t.test('a social start sends the page\'s payload and goes on to the provider by a page, with the service\'s state cookie', async (t) => {
  const url = 'https://github.com/login/oauth/authorize?client_id=gh&state=s"><script>x</script>'
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, { url }, { 'set-cookie': STATE_COOKIE }))
  const response = await postForm(app, { form: 'social', provider: 'github' }, {
    query: 'view=register&redirect=%2Fapp&allowed_org=acme&resource_type=cluster&cluster_name=east', headers: { cookie: 'social_state=old; unrelated=1' }
  })
  t.equal(upstream.requests.length, 1, 'no domain check: no address is typed')
  t.equal(upstream.requests[0]!.url, '/auth/login/social')
  t.same(bodyOf(upstream.requests[0]), {
    provider: 'github', source: 'register', redirect: '/app',
    insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'east'
  }, 'as the page\'s start sends it')
  t.equal(upstream.requests[0]!.headers.cookie, 'social_state=old')
  t.equal(response.statusCode, 200, 'not a 303: form-action names only where a login may lead')
  t.equal(response.headers.location, undefined)
  t.equal(response.headers['cache-control'], 'no-store')
  const target = 'https://github.com/login/oauth/authorize?client_id=gh&#38;state=s%22%3E%3Cscript%3Ex%3C/script%3E'
  t.ok(response.body.includes(`<meta http-equiv="refresh" content="0;url=${target}">`), 'the meta refresh, escaped')
  t.ok(response.body.includes(`<a href="${target}">`), 'the link, escaped')
  t.notOk(response.body.includes('<script'), 'nothing the answer said runs')
  t.match(response.headers['content-security-policy'], /form-action 'self'(;|$)/, 'the strict header set: the provider is not named')
  t.match(response.headers['set-cookie'], /^social_state=binding-1; /)
})

t.test('from the login view, or any view but register, the source is the login', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, { url: 'https://github.com/login/oauth/authorize' }))
  await postForm(app, { form: 'social', provider: 'github' })
  await postForm(app, { form: 'social', provider: 'github' }, { query: 'view=resetPassword' })
  t.same(upstream.requests.map((request) => (bodyOf(request) as { source: string }).source), ['login', 'login'])
  t.same(bodyOf(upstream.requests[0]), { provider: 'github', source: 'login', redirect: null, insecure_allowed_orgs: [], resource_type: null, cluster_name: null })
})

t.test('attack: a provider URL over http to another host, or not http(s) at all, is not followed', async (t) => {
  for (const url of ['http://github.example.com/authorize', 'http://10.0.0.5/authorize', 'javascript:alert(1)', 'https://user:pw@github.com/', '/relative']) {
    const { app } = await edgeAnswering(t, jsonAnswer(200, { url }))
    const response = await postForm(app, { form: 'social', provider: 'github' })
    t.equal(response.statusCode, 502, url)
    t.equal(response.headers.location, undefined)
    t.notOk(response.body.includes('http-equiv="refresh"'), `${url}: no onward page`)
    t.match(stateIn(response.body), { view: 'login', notice: { kind: 'error', text: ERROR_MESSAGES.GENERIC } })
  }
  const { app } = await edgeAnswering(t, jsonAnswer(200, { url: 'http://127.0.0.1:9000/authorize' }))
  const loopback = await postForm(app, { form: 'social', provider: 'github' })
  t.equal(loopback.statusCode, 200, 'a stand-in on the developer\'s machine is followed')
})

t.test('a refusal stays on the view with the service\'s message', async (t) => {
  const { app } = await edgeAnswering(t, jsonAnswer(400, { error: 'This sign-in method is not offered.' }))
  const response = await postForm(app, { form: 'social', provider: 'gitlab' }, { query: 'view=register' })
  t.equal(response.statusCode, 400)
  t.match(stateIn(response.body), { view: 'register', notice: { kind: 'error', text: 'This sign-in method is not offered.' } })
})

t.test('local-network mode offers no social sign-in: refused without a call', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, { url: 'https://github.com/login/oauth/authorize' }))
  const response = await postForm(app, { form: 'social', provider: 'github' }, { query: 'local_accounts_host=127.0.0.1' })
  t.equal(response.statusCode, 400)
  t.match(stateIn(response.body), { notice: { text: ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED } })
  t.equal(upstream.requests.length, 0)
})

t.test('a post without a provider, or with one no connection could be called, is unreadable', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, { url: 'https://github.com/login/oauth/authorize' }))
  const posts: Array<Record<string, string>> = [{ form: 'social' }, { form: 'social', provider: '../sso' }, { form: 'social', provider: 'GitHub' }]
  for (const fields of posts) {
    const response = await postForm(app, fields)
    t.equal(response.statusCode, 400, JSON.stringify(fields))
  }
  t.equal(upstream.requests.length, 0)
})

t.test('without a connection the start is not proxied: the post ends on the view with the edge\'s refusal', async (t) => {
  const { upstream, app } = await edgeAnswering(t, jsonAnswer(200, { url: 'https://github.com/login/oauth/authorize' }), { SOCIAL_CONNECTIONS: '' })
  const response = await postForm(app, { form: 'social', provider: 'github' })
  t.equal(response.statusCode, 404)
  t.equal(upstream.requests.length, 0)
})

t.test('the page\'s form-action names no provider with connections configured: the start leaves by a page, never a redirect', async (t) => {
  const { app } = await edgeAnswering(t, jsonAnswer(200, { url: 'https://github.com/login/oauth/authorize' }))
  const page = await app.inject({ url: '/', headers: { host: 'signin.example.com', 'x-forwarded-proto': 'https' } })
  const formAction = /(?:^|;)\s*form-action ([^;]*)/.exec(String(page.headers['content-security-policy']))?.[1]
  t.equal(formAction, "'self' https://example.com:* https://*.example.com:*", 'where a login may lead, as without connections')
})
