import t from 'tap'
import { logCollector, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

/*
 * `auth/sso/discover` (SSO_DISCOVERY, docs/sso.md "Found by the address")
 * through the real edge to the reference service: the answer follows the
 * address's domain alone, the same for an address with an account and one
 * without, and the call is absent while SSO_DISCOVERY is off.
 */

/** Connections whose provider is never reached here: discovery reads only their domains. */
const CONNECTIONS = JSON.stringify([
  { domain: 'corp.example', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'a-secret', required: true },
  { domain: 'open.example', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'a-secret' },
  { domain: 'bücher.example', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'a-secret' }
])
const DISCOVER = '/accounts/auth/sso/discover'

t.test('with SSO_DISCOVERY on', async (t) => {
  const logs = logCollector()
  const { base } = await startReference(t, {
    env: { SSO_CONNECTIONS: CONNECTIONS, SSO_DISCOVERY: 'true' },
    edgeEnv: { SSO_DISCOVERY: 'true' },
    logStream: logs.stream
  })
  const discover = async (body: unknown) => await postJson(base, DISCOVER, body)

  t.test('an address of a domain without a connection: no single sign-on', async (t) => {
    const answer = await discover({ email: 'ada@elsewhere.example' })
    t.same([answer.status, answer.body], [200, { sso: false }])
    t.equal(answer.headers.get('cache-control'), 'no-store')
  })

  t.test('an address of a configured domain: single sign-on, and whether the connection requires it', async (t) => {
    t.same((await discover({ email: 'ada@open.example' })).body, { sso: true, required: false })
    t.same((await discover({ email: 'ada@corp.example' })).body, { sso: true, required: true })
  })

  t.test('the domain is found as the SSO start finds it: any case, an IDN in either form, compatibility characters folded', async (t) => {
    t.same((await discover({ email: 'ADA@CORP.EXAMPLE' })).body, { sso: true, required: true })
    t.same((await discover({ email: '  ada@Corp.Example ' })).body, { sso: true, required: true })
    t.same((await discover({ email: 'anna@bücher.example' })).body, { sso: true, required: false })
    t.same((await discover({ email: 'anna@BÜCHER.example' })).body, { sso: true, required: false })
    t.same((await discover({ email: 'anna@xn--bcher-kva.example' })).body, { sso: true, required: false })
    // Full-width letters name the same domain (and the same account) as their ASCII forms.
    t.same((await discover({ email: 'ada@ｃｏｒｐ.example' })).body, { sso: true, required: true })
  })

  t.test('a subdomain is another domain, as for the SSO start', async (t) => {
    t.same((await discover({ email: 'ada@eu.corp.example' })).body, { sso: false })
  })

  t.test('an address that is not one is refused with a readable error, and nothing else', async (t) => {
    const cases: unknown[] = [{}, { email: '' }, { email: 'not an email' }, { email: 'ada@' }, { email: 'ada@corp' }, { email: 42 }, { email: ['ada@corp.example'] }, []]
    for (const body of cases) {
      const answer = await discover(body)
      t.equal(answer.status, 400, JSON.stringify(body))
      t.same(Object.keys(answer.body), ['error'])
      t.match(answer.body.error, /email address/)
    }
  })

  t.test('the answer is the same for an address with an account and one without, and never logs the address', async (t) => {
    await registerAccount(base, 'has-account@open.example')
    const withAccount = await discover({ email: 'has-account@open.example' })
    const without = await discover({ email: 'no-account@open.example' })
    t.same([withAccount.status, withAccount.text], [without.status, without.text])
    // All but the date and the rate limit's count, which moves with every call.
    const headers = (answer: typeof without) => [...answer.headers].filter(([name]) => name !== 'date' && name !== 'x-ratelimit-remaining')
    t.same(headers(withAccount), headers(without), 'headers alike too')
    t.notMatch(logs.text(), 'no-account@', 'the address is not written down')
    t.notMatch(logs.text(), 'ada@', 'the address is not written down')
  })
})

t.test('attack: timing or errors cannot tell accounts apart, since the answer reads nothing from the store: it comes the same with the store closed', async (t) => {
  const { base, services } = await startReference(t, { env: { SSO_CONNECTIONS: CONNECTIONS, SSO_DISCOVERY: 'true' }, edgeEnv: { SSO_DISCOVERY: 'true' } })
  await registerAccount(base, 'has-account@open.example')
  await services.store.close()
  t.not((await postJson(base, '/accounts/v2/login', { email: 'has-account@open.example', password: 'x' })).status, 200, 'the store is gone for the calls that read it')
  for (const email of ['has-account@open.example', 'no-account@open.example']) {
    const answer = await postJson(base, DISCOVER, { email })
    t.same([answer.status, answer.body], [200, { sso: true, required: false }], email)
  }
})

t.test('with SSO_DISCOVERY off (the default) the call is absent, at the edge and at the service', async (t) => {
  const { base, url, edgeHeaders } = await startReference(t, { env: { SSO_CONNECTIONS: CONNECTIONS } })
  t.equal((await postJson(base, DISCOVER, { email: 'ada@corp.example' })).status, 404, 'the edge does not proxy it')
  t.equal((await postJson(url, '/auth/sso/discover', { email: 'ada@corp.example' }, edgeHeaders)).status, 404, 'the service does not serve it')
})

t.test('the service serves the call by its own SSO_DISCOVERY, the edge proxies it by its own', async (t) => {
  const { base, url, edgeHeaders } = await startReference(t, { env: { SSO_CONNECTIONS: CONNECTIONS, SSO_DISCOVERY: 'true' } })
  t.equal((await postJson(base, DISCOVER, { email: 'ada@corp.example' })).status, 404, 'an edge without SSO_DISCOVERY does not proxy it')
  t.same((await postJson(url, '/auth/sso/discover', { email: 'ada@corp.example' }, edgeHeaders)).body, { sso: true, required: true })
})
