import t from 'tap'
import { postForm, postFormAndFollow, stateIn } from '../../../fixtures/no-script/form-page.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { OIDC_DOMAIN, SAML_DOMAIN, startSsoStack } from '../../../fixtures/sso/sso-service.js'

/*
 * SSO_DISCOVERY without scripts (docs/no-script.md): the login and register
 * forms posted with an address and an empty password start single sign-on
 * when the address's domain has a connection, as `form=sso` does; otherwise
 * the missing password is refused as always. Against the real reference
 * service, its real providers, and the real edge.
 */

const IDENTITY_PROVIDER_PAGE = /<meta http-equiv="refresh" content="0;url=http:\/\/127\.0\.0\.1:\d+\//

const setCookies = (response: { headers: Record<string, unknown> }): string[] => {
  const value = response.headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value as string[] : [value as string]
}

t.test('with SSO_DISCOVERY on', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t, { discovery: true })

  t.test('a login posted with an address of a domain with a connection and no password answers the identity provider\'s page', async (t) => {
    for (const email of [`ada@${OIDC_DOMAIN}`, `ada@${SAML_DOMAIN}`]) {
      const response = await postForm(stack.edge, { form: 'login', email, password: '' })
      t.equal(response.statusCode, 200, email)
      t.match(response.body, IDENTITY_PROVIDER_PAGE)
      t.ok(setCookies(response).some((line) => line.startsWith('sso_state=')), 'with the state cookie the return needs')
    }
  })

  t.test('so does a registration posted without a password, as a sign-up', async (t) => {
    const response = await postForm(stack.edge, { form: 'register', email: `new@${OIDC_DOMAIN}`, password: '', first_name: '', last_name: '' }, { query: 'view=register' })
    t.equal(response.statusCode, 200)
    t.match(response.body, IDENTITY_PROVIDER_PAGE)
  })

  t.test('an address of a domain without a connection gets the usual refusal of a missing password', async (t) => {
    const page = await postFormAndFollow(stack.edge, { form: 'login', email: 'ada@elsewhere.example', password: '' })
    t.match(stateIn(page.body), { view: 'login', email: 'ada@elsewhere.example', notice: { kind: 'error', text: 'Enter your password.' } })
  })

  t.test('a password given for a domain with a connection is a password login as ever', async (t) => {
    const page = await postFormAndFollow(stack.edge, { form: 'login', email: `ada@${OIDC_DOMAIN}`, password: 'some password' })
    t.match(stateIn(page.body), { view: 'login', notice: { kind: 'error', text: 'Invalid email or password.' } })
  })
})

t.test('with SSO_DISCOVERY off, an empty password is refused whatever the domain', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t)
  const page = await postFormAndFollow(stack.edge, { form: 'login', email: `ada@${OIDC_DOMAIN}`, password: '' })
  t.match(stateIn(page.body), { view: 'login', notice: { kind: 'error', text: 'Enter your password.' } })
})

t.test('with a required connection, a password given shows the service\'s refusal above the form', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t, { discovery: true, required: true })
  const login = await postFormAndFollow(stack.edge, { form: 'login', email: `ada@${OIDC_DOMAIN}`, password: 'some password' })
  t.match(stateIn(login.body), {
    view: 'login', email: `ada@${OIDC_DOMAIN}`,
    notice: { kind: 'error', text: 'Your organization signs in with single sign-on. Continue with single sign-on.' }
  })
  const register = await postForm(stack.edge, { form: 'register', email: `ada@${SAML_DOMAIN}`, password: 'some long password', confirm_password: 'some long password', first_name: '', last_name: '' }, { query: 'view=register' })
  t.equal(register.statusCode, 403, 'the service\'s status, on the register view itself')
  t.match(stateIn(register.body), { view: 'register', notice: { kind: 'error', text: /^Your organization signs in with single sign-on/ } })
  const empty = await postForm(stack.edge, { form: 'login', email: `ada@${OIDC_DOMAIN}`, password: '' })
  t.match(empty.body, IDENTITY_PROVIDER_PAGE, 'and without a password the form goes to the identity provider')
})
