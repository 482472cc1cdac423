import t from 'tap'
import { microsoftClient } from '../../../../../server/reference/social/providers/microsoft-client.js'
import { startMicrosoftStandIn } from '../../../../fixtures/social/microsoft-stand-in.js'
import { socialConnection, TEST_RETURN_URLS } from '../../../../fixtures/social/social-connection.js'

t.test('Microsoft\'s identity platform against a stand-in with two tenants and personal accounts', async (t) => {
  const microsoft = await startMicrosoftStandIn(t)
  const clientFor = (overrides: Record<string, unknown> = {}): ReturnType<typeof microsoftClient> =>
    microsoftClient(socialConnection(microsoft.connection(overrides)), TEST_RETURN_URLS, Date.now)
  const common = clientFor()

  /** Begins with `client`, signs `login` in at the stand-in, and finishes. */
  const signIn = async (client: typeof common, login: string): ReturnType<typeof common.finish> => {
    const { url, secrets } = await client.begin()
    return client.finish(await microsoft.authorize(url, login), secrets)
  }

  t.test('the authorization request is the common endpoint\'s, with state, nonce and PKCE (S256)', async (t) => {
    const request = new URL((await common.begin()).url)
    t.equal(`${request.origin}${request.pathname}`, `${microsoft.authority}/common/oauth2/v2.0/authorize`)
    t.equal(request.searchParams.get('client_id'), microsoft.clientId)
    t.equal(request.searchParams.get('redirect_uri'), TEST_RETURN_URLS.callback)
    t.equal(request.searchParams.get('response_type'), 'code')
    t.equal(request.searchParams.get('scope'), 'openid email profile')
    t.match(request.searchParams.get('state'), /^[\w-]{43}$/)
    t.match(request.searchParams.get('nonce'), /^[\w-]{43}$/)
    t.match(request.searchParams.get('code_challenge'), /^[\w-]{43}$/)
    t.equal(request.searchParams.get('code_challenge_method'), 'S256')
  })

  t.test('under common, accounts of two tenants sign in, each with its own subject', async (t) => {
    const ada = await signIn(common, 'ada')
    const bob = await signIn(common, 'bob')
    t.equal(ada.email, 'ada@contoso.example')
    t.equal(bob.email, 'bob@fabrikam.example')
    t.match(ada.subject, /^[\w-]{43}$/)
    t.not(ada.subject, bob.subject)
    t.equal((await signIn(common, 'ada')).subject, ada.subject, 'the same account, the same subject')
    t.equal(ada.firstName, 'Ada Lovelace', 'the display name, when the token has no given name')
  })

  t.test('a personal account\'s address is verified; a work account\'s only with xms_edov', async (t) => {
    const pat = await signIn(common, 'pat')
    t.same({ email: pat.email, emailVerified: pat.emailVerified }, { email: 'pat@outlook.example', emailVerified: true })
    t.equal((await signIn(common, 'ada')).emailVerified, false, 'a work account\'s email is what its administrator typed')
    t.equal((await signIn(common, 'erin')).emailVerified, true, 'xms_edov: true')
    const { url, secrets } = await common.begin()
    const answer = await microsoft.authorize(url, 'ada')
    microsoft.tamperNextIdToken({ xms_edov: 'true' })
    t.equal((await common.finish(answer, secrets)).emailVerified, false, 'only the boolean true counts')
  })

  t.test('a token whose issuer is not its own tenant\'s is refused', async (t) => {
    const { url, secrets } = await common.begin()
    const answer = await microsoft.authorize(url, 'ada')
    // Signed by Microsoft's key, but naming Fabrikam's issuer for a Contoso tenant id.
    microsoft.tamperNextIdToken({ iss: microsoft.issuerOf(microsoft.tenants.fabrikam) })
    await t.rejects(common.finish(answer, secrets), /iss and tid differ/)
  })

  t.test('a token with the template itself as issuer is refused', async (t) => {
    const { url, secrets } = await common.begin()
    const answer = await microsoft.authorize(url, 'ada')
    microsoft.tamperNextIdToken({ iss: `${microsoft.authority}/{tenantid}/v2.0` })
    await t.rejects(common.finish(answer, secrets), /iss and tid differ/)
  })

  t.test('a configured tenant takes its own accounts and refuses another tenant\'s token', async (t) => {
    for (const tenant of [microsoft.tenants.contoso, 'contoso.example']) {
      const contoso = clientFor({ tenant })
      t.equal(new URL((await contoso.begin()).url).pathname, `/${tenant}/oauth2/v2.0/authorize`)
      t.equal((await signIn(contoso, 'ada')).email, 'ada@contoso.example', `${tenant}: its own account`)
      const { url, secrets } = await contoso.begin()
      const answer = await microsoft.authorize(url, 'ada')
      const fabrikam = microsoft.tenants.fabrikam
      microsoft.tamperNextIdToken({ tid: fabrikam, iss: microsoft.issuerOf(fabrikam) })
      await t.rejects(contoso.finish(answer, secrets), /Microsoft's ID token has an issuer that is not its tenant's/, `${tenant}: Fabrikam's token refused`)
    }
  })

  t.test('the stand-in, as Microsoft, refuses another tenant\'s account at a tenant\'s endpoint', async (t) => {
    const contoso = clientFor({ tenant: microsoft.tenants.contoso })
    const { url, secrets } = await contoso.begin()
    const answer = await microsoft.authorize(url, 'bob')
    t.equal(answer.get('error'), 'invalid_request')
    t.equal(answer.get('state'), secrets.state)
    await t.rejects(contoso.finish(answer, secrets), /the provider answered invalid_request/)
  })

  t.test('consumers takes personal accounts only, organizations work accounts only', async (t) => {
    const consumers = clientFor({ tenant: 'consumers' })
    t.equal((await signIn(consumers, 'pat')).emailVerified, true)
    const organizations = clientFor({ tenant: 'organizations' })
    t.equal((await signIn(organizations, 'bob')).email, 'bob@fabrikam.example')
    const { url, secrets } = await organizations.begin()
    const answer = await microsoft.authorize(url, 'ada')
    microsoft.tamperNextIdToken({ tid: microsoft.tenants.personal, iss: microsoft.issuerOf(microsoft.tenants.personal) })
    await t.rejects(organizations.finish(answer, secrets), /is a personal account's/)
  })

  t.test('an ID token signed with a key that is not Microsoft\'s is refused', async (t) => {
    const { url, secrets } = await common.begin()
    const answer = await microsoft.authorize(url, 'pat')
    microsoft.forgeNextIdToken()
    await t.rejects(common.finish(answer, secrets), /ID token did not verify \(ERR_JWS_SIGNATURE_VERIFICATION_FAILED\)/)
  })

  t.test('an ID token with another nonce, or for another app, is refused', async (t) => {
    for (const [claims, failure] of [[{ nonce: 'another' }, /another nonce/], [{ aud: 'another-app' }, /claim aud/]] as const) {
      const { url, secrets } = await common.begin()
      const answer = await microsoft.authorize(url, 'ada')
      microsoft.tamperNextIdToken(claims)
      await t.rejects(common.finish(answer, secrets), failure)
    }
  })

  t.test('a replayed code, or one with another request\'s PKCE verifier, is refused by Microsoft', async (t) => {
    const { url, secrets } = await common.begin()
    const answer = await microsoft.authorize(url, 'ada')
    await common.finish(answer, secrets)
    await t.rejects(common.finish(answer, secrets), /token endpoint answered 400 invalid_grant/)
    t.equal(microsoft.refusals.at(-1), 'code unknown or used')

    const first = await common.begin()
    const second = await common.begin()
    const secondAnswer = await microsoft.authorize(second.url, 'ada')
    await t.rejects(common.finish(secondAnswer, { ...second.secrets, codeVerifier: first.secrets.codeVerifier }), /invalid_grant/)
    t.equal(microsoft.refusals.at(-1), 'code_verifier does not match')
  })

  t.test('a wrong client secret is refused by Microsoft', async (t) => {
    const wrong = clientFor({ client_secret: 'not-the-secret' })
    const { url, secrets } = await wrong.begin()
    await t.rejects(wrong.finish(await microsoft.authorize(url, 'ada'), secrets), /answered 401 invalid_client/)
    t.equal(microsoft.refusals.at(-1), 'invalid client secret')
  })

  t.test('an answer naming another issuer (RFC 9207 iss, a mix-up) is refused before its code is sent anywhere', async (t) => {
    for (const iss of ['https://github.com', `${microsoft.authority}/common/v2.0`, `${microsoft.authority}/{tenantid}/v2.0`, `${microsoft.issuerOf(microsoft.tenants.contoso)}/x`]) {
      const { url, secrets } = await common.begin()
      const answer = await microsoft.authorize(url, 'ada')
      const relayed = new URLSearchParams(answer)
      relayed.set('iss', iss)
      await t.rejects(common.finish(relayed, secrets), /names another issuer/, iss)
      t.equal((await common.finish(answer, secrets)).email, 'ada@contoso.example', `${iss}: the code was never exchanged`)
    }
    const { url, secrets } = await common.begin()
    const answer = await microsoft.authorize(url, 'ada')
    answer.set('iss', microsoft.issuerOf(microsoft.tenants.fabrikam))
    await t.rejects(common.finish(answer, secrets), /name other issuers/, 'another tenant\'s issuer than the token\'s')
    const own = await common.begin()
    const ownAnswer = await microsoft.authorize(own.url, 'ada')
    ownAnswer.set('iss', microsoft.issuerOf(microsoft.tenants.contoso))
    t.equal((await common.finish(ownAnswer, own.secrets)).email, 'ada@contoso.example', 'its own tenant\'s issuer is taken')
  })

  t.test('an answer with another state, or the visitor\'s refusal, is an error', async (t) => {
    const { url, secrets } = await common.begin()
    const answer = await microsoft.authorize(url, 'ada')
    answer.set('state', 'A'.repeat(43))
    await t.rejects(common.finish(answer, secrets), /another state/)
    microsoft.refuseNext()
    const refused = await common.begin()
    await t.rejects(common.finish(await microsoft.authorize(refused.url), refused.secrets), /the provider answered access_denied/)
  })

  t.test('a discovery document that is not the configured tenant\'s, or names a plain-http endpoint elsewhere, is refused', async (t) => {
    const contoso = microsoft.tenants.contoso
    for (const [tenant, fields, failure] of [
      ['common', { issuer: microsoft.issuerOf(contoso) }, /names an issuer that is not the configured tenant's/],
      [contoso, { issuer: microsoft.issuerOf(microsoft.tenants.fabrikam) }, /names an issuer that is not the configured tenant's/],
      [contoso, { issuer: `${microsoft.authority}/{tenantid}/v2.0` }, /names an issuer that is not the configured tenant's/],
      ['consumers', { issuer: microsoft.issuerOf(contoso) }, /names an issuer that is not the configured tenant's/],
      ['common', { token_endpoint: 'http://login.example.com/common/oauth2/v2.0/token' }, /token endpoint is neither https nor loopback/]
    ] as const) {
      microsoft.tamperNextDiscovery(fields)
      await t.rejects(clientFor({ tenant }).begin(), failure, `${tenant}: ${Object.keys(fields).join()}`)
    }
  })

  t.test('an unknown tenant is a failed discovery, tried again at the next sign-in', async (t) => {
    const unknown = clientFor({ tenant: 'nowhere.example' })
    await t.rejects(unknown.begin())
    await t.rejects(unknown.begin())
  })
})
