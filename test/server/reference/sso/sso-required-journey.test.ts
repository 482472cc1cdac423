import t from 'tap'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { OIDC_DOMAIN, SAML_DOMAIN, startSsoStack } from '../../../fixtures/sso/sso-service.js'

/*
 * A required connection refuses every other way in (test/server/reference/sso/sso-requirement.test.ts),
 * and single sign-on itself keeps working for its domain, with a real OpenID
 * provider and a real SAML identity provider: the account it makes or signs
 * into is then refused a password it never had.
 */
t.test('single sign-on still signs in the addresses of a domain whose connection is required', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t, { required: true })
  stack.oidc.users.set('ann', { email: `ann@${OIDC_DOMAIN}`, email_verified: true })

  t.test('through OpenID Connect: registration, then login', async (t) => {
    const browser = new TestBrowser()
    const registered = await stack.completeRegister(browser, await stack.oidcRoundTrip(browser, 'ann', { source: 'register' }))
    t.equal(registered.status, 200, JSON.stringify(registered.body))
    const again = new TestBrowser()
    const login = await stack.completeLogin(again, await stack.oidcRoundTrip(again, 'ann'))
    t.equal(login.status, 200)
    t.type(login.body.auth, 'string')
  })

  t.test('through SAML', async (t) => {
    const browser = new TestBrowser()
    const login = await stack.completeLogin(browser, await stack.samlRoundTrip(browser, `ben@${SAML_DOMAIN}`))
    t.equal(login.status, 200, JSON.stringify(login.body))
  })

  t.test('while the password and the emailed code stay refused for the same addresses', async (t) => {
    const password = await postJson(stack.publicUrl, '/accounts/v2/login', { email: `ann@${OIDC_DOMAIN}`, password: 'any password at all' })
    t.same([password.status, password.body.sso_required], [403, true])
    const code = await postJson(stack.publicUrl, '/accounts/email-code/send', { email: `ben@${SAML_DOMAIN}` })
    t.same([code.status, code.body.sso_required], [403, true])
  })
})
