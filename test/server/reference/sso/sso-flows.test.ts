import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { createHash, randomBytes } from 'node:crypto'
import t from 'tap'
import type { RequestFacts } from '../../../../server/reference/http/answers.js'
import { EmailPseudonyms } from '../../../../server/reference/audit/email-pseudonyms.js'
import { databaseFile } from '../../../../server/reference/store/open-store.js'
import { parseSsoConnections } from '../../../../server/reference/sso/connections.js'
import { SsoFlows } from '../../../../server/reference/sso/sso-flows.js'
import { SqliteAccountStore } from '../../../../server/reference/store/sqlite-store.js'
import { jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { OIDC_DOMAIN, SAML_DOMAIN, startSsoStack } from '../../../fixtures/sso/sso-service.js'

t.test('starting single sign-on and what it leaves behind', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t)
  stack.oidc.users.set('alice', { email: `alice@${OIDC_DOMAIN}`, email_verified: true })
  const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url')

  t.test('an email domain without a connection gets a readable error and no cookie', async (t) => {
    const browser = new TestBrowser()
    const answer = await browser.request(`${stack.publicUrl}/accounts/auth/login/sso`, { json: { email: 'someone@no-sso.example', source: 'login' } })
    t.equal(answer.status, 400)
    t.same(await answer.json(), { error: 'Single sign-on is not set up for this email domain.' })
    t.same(answer.headers.getSetCookie(), [])
    t.equal(answer.headers.get('cache-control'), 'no-store')
  })

  t.test('a start with bad fields is refused with a message the page can show', async (t) => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ source: 'login' }, /Enter your email address/],
      [{ email: 'not an email', source: 'login' }, /valid email/],
      [{ email: `alice@${OIDC_DOMAIN}`, source: 'elsewhere' }, /source/],
      [{ email: `alice@${OIDC_DOMAIN}`, redirect: 'x'.repeat(2049) }, /redirect/],
      [{ email: `alice@${OIDC_DOMAIN}`, redirect: 'https://a.example/\n' }, /redirect/],
      [{ email: `alice@${OIDC_DOMAIN}`, insecure_allowed_orgs: 'x'.repeat(200) }, /organisations/]
    ]
    for (const [body, message] of cases) {
      const started = await stack.startSso(new TestBrowser(), body)
      t.equal(started.status, 400, JSON.stringify(body).slice(0, 60))
      t.match(started.body, { error: message })
    }
  })

  t.test('the state cookie is HttpOnly, SameSite=Lax (Secure but on loopback http), scoped to /accounts and lives 10 minutes', async (t) => {
    for (const email of [`alice@${OIDC_DOMAIN}`, `bob@${SAML_DOMAIN}`]) {
      const browser = new TestBrowser()
      const response = await browser.request(`${stack.publicUrl}/accounts/auth/login/sso`, { json: { email, source: 'login' } })
      t.equal(response.status, 200)
      t.match(await response.json(), { sso_url: /^http:\/\/127\.0\.0\.1:\d+\// })
      const [cookie, ...others] = response.headers.getSetCookie()
      t.same(others, [])
      // Through the edge on http://127.0.0.1, a loopback page over plain http: without Secure (docs/security.md, "Plain http on loopback"; over https it keeps it: test/server/edge/http/loopback-http.test.ts).
      t.match(cookie, /^sso_state=[\w-]{43}; Max-Age=600; Path=\/accounts; HttpOnly; SameSite=Lax$/)
    }
  })

  t.test('a cross-site page cannot start single sign-on in a visitor\'s browser', async (t) => {
    const response = await fetch(`${stack.publicUrl}/accounts/auth/login/sso`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      body: JSON.stringify({ email: `alice@${OIDC_DOMAIN}`, source: 'login' })
    })
    t.equal(response.status, 403)
    t.same(response.headers.getSetCookie(), [])
  })

  t.test('the store holds only hashes of the browser binding and of the page id', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'alice')
    const binding = browser.cookie(stack.publicUrl, 'sso_state')!.value
    const id = landing.params.get('id')!
    const pending = new TestBrowser()
    await stack.startSso(pending, { email: `zed@${SAML_DOMAIN}`, source: 'login' })
    const pendingBinding = pending.cookie(stack.publicUrl, 'sso_state')!.value

    const db = new Database(databaseFile(stack.dataDir), { readonly: true })
    t.teardown(() => db.close())
    const transactions = db.prepare('SELECT * FROM sso_transactions').all() as Array<Record<string, unknown>>
    const identities = db.prepare('SELECT * FROM sso_identities').all() as Array<Record<string, unknown>>
    const everything = JSON.stringify([transactions, identities])
    t.ok(transactions.some((row) => row.binding_hash === sha256(pendingBinding)), 'the pending transaction is bound by hash')
    t.ok(identities.some((row) => row.id_hash === sha256(id) && row.binding_hash === sha256(binding)), 'the id is stored by hash, bound by hash')
    t.notMatch(everything, binding)
    t.notMatch(everything, pendingBinding)
    t.notMatch(everything, id)
  })

  t.test('the log tells what happened without the id, the cookie, codes, tokens or the client secret', async (t) => {
    const before = stack.logs.length
    const browser = new TestBrowser()
    const landing = await stack.oidcRoundTrip(browser, 'alice')
    const binding = browser.cookie(stack.publicUrl, 'sso_state')!.value
    const tokens = await stack.completeLogin(browser, landing)
    // The page's call is a browser's: its refresh token is in the edge's HttpOnly cookie, not the body.
    const refresh = browser.cookie(stack.publicUrl, 'refresh')?.value
    t.ok(refresh, 'the refresh token, in its cookie')
    const samlBrowser = new TestBrowser()
    const samlLanding = await stack.samlRoundTrip(samlBrowser, `bob@${SAML_DOMAIN}`)

    const written = stack.logs.slice(before).join('\n')
    for (const secret of [landing.params.get('id')!, samlLanding.params.get('id')!, binding, String(tokens.body.auth), String(refresh), stack.oidc.clientSecret]) {
      t.notOk(written.includes(secret), 'a secret stays out of the log')
    }
    t.notMatch(written, /SAMLResponse|code=|state=/)
    t.notMatch(written, `alice@${OIDC_DOMAIN}`, 'emails are reduced to domain and hash')
    for (const event of ['sso.started', 'sso.returned', 'sso.login.succeeded']) t.match(written, `"audit":"${event}"`)
  })

  t.test('the ACS takes a SAML response far larger than the JSON calls allow', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.returnToPage(browser, `${stack.publicUrl}/accounts/auth/sso/saml/acs`, {
      form: { SAMLResponse: 'A'.repeat(100_000), RelayState: `_${'a'.repeat(40)}` },
      crossSite: true
    })
    t.match(landing.params.get('error'), /not started in this browser/, 'read, then refused for what it says, not for its size')
  })

  function quietFacts (): RequestFacts {
    return { log: Fastify({ logger: false }).log, pseudonyms: new EmailPseudonyms(randomBytes(32)), clientAddress: '127.0.0.1', locale: 'en', browser: null, signal: new AbortController().signal }
  }

  t.test('a provider that cannot be reached gets a readable error, and is tried again next time', async (t) => {
    const broken = await startUpstream(t, jsonAnswer(503, { error: 'down for maintenance' }))
    const store = new SqliteAccountStore(':memory:')
    t.teardown(() => store.close())
    const flows = new SsoFlows({
      store,
      connections: parseSsoConnections(JSON.stringify([{ domain: 'down.example', type: 'oidc', issuer: broken.url, client_id: 'a', client_secret: 'b' }])),
      publicUrl: 'http://localhost:8080',
      now: Date.now
    })
    for (const attempt of [1, 2]) {
      const reply = await flows.start({ email: 'a@down.example', source: 'login' }, quietFacts())
      t.match(reply, { kind: 'answer', answer: { status: 502, body: { error: /could not be reached/ } }, cookie: null }, `attempt ${attempt}`)
    }
    t.same(broken.requests.map((request) => request.url), ['/.well-known/openid-configuration', '/.well-known/openid-configuration'],
      'a failed discovery is not remembered')
  })

  t.test('SP metadata is served for the only SAML connection, or for the one a domain names', async (t) => {
    const store = new SqliteAccountStore(':memory:')
    t.teardown(() => store.close())
    const make = (entries: unknown[]): SsoFlows => new SsoFlows({ store, connections: parseSsoConnections(JSON.stringify(entries)), publicUrl: 'https://signin.example.com', now: Date.now })
    const saml = (domain: string): Record<string, unknown> => ({
      domain, type: 'saml', entry_point: 'https://idp.example/sso', idp_cert: stack.saml.certificate, sp_entity_id: `https://signin.example.com/${domain}`
    })
    t.match(make([]).samlMetadata(null), { status: 404 })
    t.match(make([saml('one.example')]).samlMetadata(null), { xml: /entityID="https:\/\/signin\.example\.com\/one\.example"/ })
    const two = make([saml('one.example'), saml('two.example')])
    t.match(two.samlMetadata(null), { status: 400, error: 'sso.severalSamlConnections' })
    t.match(two.samlMetadata('two.example'), { xml: /entityID="https:\/\/signin\.example\.com\/two\.example"/ })
    t.match(two.samlMetadata('two.example'), { xml: /Location="https:\/\/signin\.example\.com\/accounts\/auth\/sso\/saml\/acs"/ })
    t.notMatch(two.samlMetadata('two.example'), { xml: /AuthnRequestsSigned="true"/ }, 'unsigned requests say so')
  })
})
