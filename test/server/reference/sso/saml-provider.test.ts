import t, { type Test } from 'tap'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { tamperWith, type SamlPost } from '../../../fixtures/sso/sso-saml-idp.js'
import { SAML_DOMAIN, SP_ENTITY_ID, startSsoStack, type Landing } from '../../../fixtures/sso/sso-service.js'

t.test('SAML single sign-on, with a real IdP, through the edge', { skip: opensslSkip }, async (t) => {
  // A real SAML IdP (samlify) signing with its own key, and the real edge in
  // front of the reference service. The IdP's page posts cross-site to the
  // ACS, so the browser sends no Lax cookie there.
  const stack = await startSsoStack(t)
  const isHandover = (location: string): boolean => location.startsWith(`${stack.publicUrl}/accounts/auth/sso/saml/continue?`)

  const startSaml = async (browser: TestBrowser, email: string, extra: Record<string, unknown> = {}): Promise<string> =>
    stack.ssoUrl(browser, { email, source: 'login', ...extra })

  /** Posts the provider's form to the ACS the way its page would, stopping at the hand-over. */
  async function postToAcs (browser: TestBrowser, post: SamlPost): Promise<string> {
    const step = await browser.navigate(post.action, { form: post.fields, crossSite: true }, isHandover)
    return step.url
  }

  const expectRefused = (t: Test, landing: Landing, message: RegExp, reason: RegExp): void =>
    stack.expectRefusedLanding(t, landing, 'saml', message, reason)

  t.test('a SAML login round trip lands signed in, with the redirect and context kept', async (t) => {
    const browser = new TestBrowser()
    const started = Date.now()
    const landing = await stack.samlRoundTrip(browser, `bob@${SAML_DOMAIN}`, {
      redirect: 'https://app.example.com/',
      resource_type: 'cluster',
      insecure_allowed_orgs: []
    })
    t.equal(landing.url.origin, stack.publicUrl, 'back on the page')
    t.equal(landing.params.get('saml'), '1')
    t.equal(landing.params.get('login'), '1')
    t.equal(landing.params.get('email'), `bob@${SAML_DOMAIN}`)
    t.equal(landing.params.get('redirect'), 'https://app.example.com/')
    t.equal(landing.params.get('resource_type'), 'cluster')
    const completed = await stack.completeLogin(browser, landing)
    t.equal(completed.status, 200, typeof completed.body.error === 'string' ? completed.body.error : 'signed in')
    const claims = await stack.verifyAuthToken(String(completed.body.auth))
    t.equal(claims.email, `bob@${SAML_DOMAIN}`)
    t.same(claims.amr, ['sso'])
    t.equal(claims.email_verified, true, 'the domain\'s identity provider vouched for the address')
    t.comment(`SAML round trip through the edge, IdP included: ${Date.now() - started} ms`)
  })

  t.test('the AuthnRequest is signed, and the provider checked that signature', async (t) => {
    const url = new URL(await startSaml(new TestBrowser(), `carol@${SAML_DOMAIN}`))
    t.equal(`${url.origin}${url.pathname}`, stack.saml.entryPoint)
    t.ok(url.searchParams.get('SAMLRequest'))
    t.match(url.searchParams.get('RelayState'), /^_[0-9a-f]{40}$/)
    t.equal(url.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256')
    t.ok(url.searchParams.get('Signature'))

    const browser = new TestBrowser()
    await stack.samlRoundTrip(browser, `carol@${SAML_DOMAIN}`)
    t.equal(stack.saml.requests.at(-1)?.signatureChecked, true)

    const forged = new URL(await startSaml(browser, `carol@${SAML_DOMAIN}`))
    forged.searchParams.set('Signature', Buffer.from('not the signature').toString('base64'))
    await t.rejects(stack.saml.signIn(browser, forged.href, `carol@${SAML_DOMAIN}`), /refused: ERR_FAILED_MESSAGE_SIGNATURE_VERIFICATION/,
      'the provider refuses a request whose signature does not match')
  })

  t.test('the SP metadata names our entity id, the ACS and the request-signing certificate', async (t) => {
    const response = await fetch(`${stack.publicUrl}/accounts/auth/sso/saml/metadata`)
    t.equal(response.status, 200)
    t.match(response.headers.get('content-type'), /^application\/samlmetadata\+xml/)
    const xml = await response.text()
    t.match(xml, `entityID="${SP_ENTITY_ID}"`)
    t.match(xml, `Location="${stack.publicUrl}/accounts/auth/sso/saml/acs"`)
    t.match(xml, 'Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"')
    t.match(xml, 'AuthnRequestsSigned="true"')
    t.match(xml, 'WantAssertionsSigned="true"')
    t.match(xml, /<KeyDescriptor use="signing">/)
    t.notMatch(xml, /PRIVATE KEY/)

    t.equal((await fetch(`${stack.publicUrl}/accounts/auth/sso/saml/metadata?domain=SAML.example.com`)).status, 200)
    const unknown = await fetch(`${stack.publicUrl}/accounts/auth/sso/saml/metadata?domain=other.example`)
    t.equal(unknown.status, 404)
    t.match(await unknown.json(), { error: /No SAML connection/ })
  })

  t.test('a response whose signed content was altered is refused', async (t) => {
    const browser = new TestBrowser()
    const post = await stack.saml.signIn(browser, await startSaml(browser, `mallory@${SAML_DOMAIN}`), `mallory@${SAML_DOMAIN}`)
    const tampered = { ...post, fields: { ...post.fields, SAMLResponse: tamperWith(post.fields.SAMLResponse, 'mallory@', 'ceo@') } }
    expectRefused(t, await stack.returnToPage(browser, post.action, { form: tampered.fields, crossSite: true }), /could not be verified/, /Invalid signature/)
  })

  t.test('a response whose assertion is not signed is refused', async (t) => {
    const browser = new TestBrowser()
    const post = await stack.saml.signIn(browser, await startSaml(browser, `bob@${SAML_DOMAIN}`), `bob@${SAML_DOMAIN}`)
    const xml = Buffer.from(post.fields.SAMLResponse, 'base64').toString('utf8').replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')
    const unsigned = { ...post.fields, SAMLResponse: Buffer.from(xml).toString('base64') }
    expectRefused(t, await stack.returnToPage(browser, post.action, { form: unsigned, crossSite: true }), /could not be verified/, /Invalid signature/)
  })

  const tweaked: Array<[string, (now: number) => Parameters<typeof stack.samlRoundTrip>[3], RegExp, RegExp]> = [
    ['for another audience', () => ({ audience: 'https://some-other-sp.example/' }), /could not be verified/, /audience mismatch/],
    ['addressed to another recipient', () => ({ recipient: 'https://evil.example/acs' }), /could not be verified/, /Recipient/],
    ['that has expired', (now) => ({ issuedAt: new Date(now - 20 * 60_000), notOnOrAfter: new Date(now - 10 * 60_000) }),
      /could not be verified/, /No valid subject confirmation|expired/],
    ['that is not valid yet', (now) => ({ notBefore: new Date(now + 10 * 60_000), notOnOrAfter: new Date(now + 20 * 60_000) }),
      /could not be verified/, /not yet valid/],
    ['answering another request', () => ({ inResponseTo: `_${'0'.repeat(40)}` }), /could not be verified/, /InResponseTo/],
    ['with an error status', () => ({ statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Requester' }), /^Your identity provider did not sign you in\.$/, /error status/]
  ]

  for (const [what, tweaks, message, reason] of tweaked) {
    t.test(`a signed response ${what} is refused`, async (t) => {
      const landing = await stack.samlRoundTrip(new TestBrowser(), `bob@${SAML_DOMAIN}`, { redirect: 'https://app.example.com/' }, tweaks(Date.now()))
      expectRefused(t, landing, message, reason)
      t.equal(landing.params.get('redirect'), 'https://app.example.com/', 'the context comes back with the error')
    })
  }

  t.test('a signed response for an address outside the domain is refused', async (t) => {
    const browser = new TestBrowser()
    const post = await stack.saml.signIn(browser, await startSaml(browser, `bob@${SAML_DOMAIN}`), 'bob@elsewhere.example')
    expectRefused(t, await stack.returnToPage(browser, post.action, { form: post.fields, crossSite: true }), /address outside saml\.example\.com/, /outside the connection domain/)
  })

  t.test('a replayed response is refused', async (t) => {
    const browser = new TestBrowser()
    const post = await stack.saml.signIn(browser, await startSaml(browser, `bob@${SAML_DOMAIN}`), `bob@${SAML_DOMAIN}`)
    t.ok((await stack.returnToPage(browser, post.action, { form: post.fields, crossSite: true })).params.has('id'))
    expectRefused(t, await stack.returnToPage(browser, post.action, { form: post.fields, crossSite: true }), /not started in this browser/,
      /unknown, used or expired request/)
  })

  t.test('an assertion whose ID was seen before is refused, even answering a new request', async (t) => {
    const assertionId = `_${'7'.repeat(32)}`
    const first = await stack.samlRoundTrip(new TestBrowser(), `bob@${SAML_DOMAIN}`, {}, { assertionId })
    t.ok(first.params.has('id'), 'the first use is accepted')
    const second = await stack.samlRoundTrip(new TestBrowser(), `bob@${SAML_DOMAIN}`, {}, { assertionId })
    expectRefused(t, second, /could not be verified/, /replayed/)
  })

  t.test("a response posted with another request's RelayState is refused", async (t) => {
    const browser = new TestBrowser()
    const post = await stack.saml.signIn(browser, await startSaml(browser, `bob@${SAML_DOMAIN}`), `bob@${SAML_DOMAIN}`)
    const other = new URL(await startSaml(new TestBrowser(), `bob@${SAML_DOMAIN}`)).searchParams.get('RelayState')!
    const swapped = { ...post.fields, RelayState: other }
    expectRefused(t, await stack.returnToPage(browser, post.action, { form: swapped, crossSite: true }), /could not be verified/, /InResponseTo/)
  })

  t.test('an unsolicited response (no RelayState naming a request) is refused', async (t) => {
    const browser = new TestBrowser()
    const post = await stack.saml.signIn(browser, await startSaml(browser, `bob@${SAML_DOMAIN}`), `bob@${SAML_DOMAIN}`)
    const unsolicited = { SAMLResponse: post.fields.SAMLResponse, RelayState: '' }
    expectRefused(t, await stack.returnToPage(browser, post.action, { form: unsolicited, crossSite: true }), /not started in this browser/, /unsolicited/)
  })

  t.test('the hand-over after the ACS needs the state cookie, and takes nothing without it', async (t) => {
    const browser = new TestBrowser()
    const post = await stack.saml.signIn(browser, await startSaml(browser, `dave@${SAML_DOMAIN}`), `dave@${SAML_DOMAIN}`)
    const handover = await postToAcs(browser, post)
    t.ok(isHandover(handover), 'the ACS hands over to a same-site GET')
    expectRefused(t, await stack.returnToPage(new TestBrowser(), handover), /not started in this browser/, /no state cookie/)
    const genuine = await stack.returnToPage(browser, handover)
    t.equal(genuine.params.get('email'), `dave@${SAML_DOMAIN}`)
  })

  t.test("an attacker's own response cannot sign a victim's browser in as him (login CSRF)", async (t) => {
    const attacker = new TestBrowser()
    const post = await stack.saml.signIn(attacker, await startSaml(attacker, `mallory@${SAML_DOMAIN}`), `mallory@${SAML_DOMAIN}`)
    const victim = new TestBrowser()
    await startSaml(victim, `victim@${SAML_DOMAIN}`) // the victim has a state cookie of her own
    // The attacker's page makes the victim's browser post his response to the ACS.
    expectRefused(t, await stack.returnToPage(victim, post.action, { form: post.fields, crossSite: true }), /not started in this browser/,
      /state cookie of another browser/)
  })

  t.test('a SAML login started from the register view comes back as a registration', async (t) => {
    const browser = new TestBrowser()
    const landing = await stack.samlRoundTrip(browser, `erin@${SAML_DOMAIN}`, { source: 'register' })
    t.equal(landing.params.get('register'), '1')
    t.notOk(landing.params.has('login'))
    const registered = await stack.completeRegister(browser, landing)
    t.equal(registered.status, 200)
    t.match(registered.body, { success: /created/ })
  })
})
