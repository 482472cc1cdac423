import '../../fixtures/page/dom.js'
import { screen } from '@testing-library/react'
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import type { Catalogue } from '../../../common/languages/message-catalogue.js'
import type { RuntimeConfig } from '../../../common/page/runtime-config.js'
import type { SocialProvider } from '../../../common/social/social-providers.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { SOCIAL_ROUTES, withRoutes } from '../../../server/shared/accounts-routes.js'
import { isProviderUrl } from '../../../common/http/provider-url.js'
import { SSO_START_CONTEXT_KEY } from '../../../client/sso/sso-start-context.js'
import { english } from '../../fixtures/languages/messages.js'
import { answersByPath, eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'

const PROVIDERS: readonly SocialProvider[] = [
  { id: 'github', type: 'github', name: 'GitHub', icon: null },
  { id: 'apple', type: 'apple', name: 'Apple', icon: null },
  { id: 'microsoft', type: 'microsoft', name: 'Microsoft', icon: null },
  { id: 'gitlab', type: 'oidc', name: 'GitLab', icon: '/social-icons/gitlab.svg' }
]
const SOCIAL_ON: Partial<RuntimeConfig> = { socialProviders: PROVIDERS }
const TOKENS = { auth: 'eyJ.social', refresh: 'refresh-social' }
const LAST_USED_KEY = 'threshold:last-sign-in-method'

/** A real edge proxying the social calls to an upstream that answers each path as told. */
async function setUp (t: Test, answers: Record<string, [number, unknown]> = {}) {
  localStorage.clear()
  sessionStorage.clear()
  t.teardown(() => { localStorage.clear(); sessionStorage.clear() })
  return await startBackend(t, answersByPath({
    '/auth/login/social': [200, { url: 'https://github.test/login/oauth/authorize?state=s' }],
    '/v2/auth/login': [200, TOKENS],
    ...answers
  }), { accountsRoutes: withRoutes(REFERENCE_ACCOUNTS_ROUTES, SOCIAL_ROUTES) })
}

/** The social buttons, in the order they show. */
const socialButtons = (): string[] => [...document.querySelectorAll('form.social button')].map((button) => button.textContent ?? '')

t.test('a button per connection, in the operator\'s order, each named by its whole sentence', async (t) => {
  const { base } = await setUp(t)
  renderPage(t, base, '', SOCIAL_ON)
  await screen.findByRole('button', { name: 'Sign in with GitHub' })
  t.same(socialButtons(), ['Sign in with GitHub', 'Sign in with Apple', 'Sign in with Microsoft', 'Continue with GitLab'])
  t.ok(screen.getByRole('button', { name: 'Login' }), 'the password form stays')
  const icon = document.querySelector<HTMLImageElement>('form.social img')!
  t.equal(icon.getAttribute('src'), '/social-icons/gitlab.svg', 'the generic connection shows the operator\'s icon')
  t.equal(icon.getAttribute('alt'), '', 'with an empty alt: the label names it')
  t.equal(document.querySelectorAll('form.social svg[aria-hidden="true"]').length, 3, 'the brands\' logos, hidden from screen readers')
})

t.test('the register view says sign up where the guidelines give it', async (t) => {
  const { base } = await setUp(t)
  renderPage(t, base, '?view=register', SOCIAL_ON)
  await screen.findByRole('button', { name: 'Sign up with Apple' })
  t.same(socialButtons(), ['Continue with GitHub', 'Sign up with Apple', 'Sign in with Microsoft', 'Continue with GitLab'])
})

t.test('login_method keeps the connections it names (in capitals) and nothing else; unknown names alone show every method', async (t) => {
  const { base } = await setUp(t)
  const apple = renderPage(t, base, '?login_method=APPLE,gitlab', SOCIAL_ON)
  await screen.findByRole('button', { name: 'Sign in with Apple' })
  t.same(socialButtons(), ['Sign in with Apple', 'Continue with GitLab'])
  t.notOk(screen.queryByRole('button', { name: 'Login' }), 'no password form')
  t.notOk(screen.queryByRole('button', { name: 'Login with Custom SSO provider' }), 'no SSO')
  apple.unmount()
  const unknown = renderPage(t, base, '?login_method=FACEBOOK', SOCIAL_ON)
  await screen.findByRole('button', { name: 'Sign in with GitHub' })
  t.equal(socialButtons().length, 4, 'an unknown name alone: every connection')
  t.ok(screen.getByRole('button', { name: 'Login' }), 'and the password')
  unknown.unmount()
  renderPage(t, base, '?login_method=GOOGLE', SOCIAL_ON)
  t.same(socialButtons(), [], 'GOOGLE alone: no connection')
})

t.test('the buttons\' names follow the page\'s language (German\'s catalogue)', async (t) => {
  const { base } = await setUp(t)
  const catalogue = JSON.parse(readFileSync(new URL('../../../common/messages/de.json', import.meta.url), 'utf8')) as Catalogue
  renderPage(t, base, '', SOCIAL_ON, { locale: 'de', catalogue })
  t.ok(await screen.findByRole('button', { name: 'Mit Apple anmelden' }))
  t.ok(screen.getByRole('button', { name: 'Mit Microsoft anmelden' }))
  t.ok(screen.getByRole('button', { name: 'Weiter mit GitLab' }))
})

t.test('the connection used last comes first, with its tag', async (t) => {
  const { base } = await setUp(t)
  localStorage.setItem(LAST_USED_KEY, 'social:microsoft')
  renderPage(t, base, '', { ...SOCIAL_ON, emailCodes: true })
  await eventually(t, () => socialButtons()[0], 'Sign in with Microsoft')
  const tag = await screen.findByText('Last used')
  t.equal(tag.closest('.last-used')?.previousElementSibling?.textContent, 'Sign in with Microsoft', 'the tag follows its button')
  const methods = [...document.querySelectorAll('.methods button')].map((button) => button.textContent)
  t.ok(methods.indexOf('Sign in with Microsoft') < methods.indexOf('Email me a sign-in code'), 'the connections lead the other methods')
})

t.test('a click starts the provider\'s leg with the view, target and context, and keeps them in this tab', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '?view=register&redirect=%2Fapp&allowed_org=acme&cluster_name=prod', SOCIAL_ON)
  await user.click(await screen.findByRole('button', { name: 'Continue with GitHub' }))
  await eventually(t, () => window.location.href, 'https://github.test/login/oauth/authorize?state=s')
  t.same(lastBody(upstream, '/auth/login/social'), {
    provider: 'github', source: 'register', redirect: '/app', insecure_allowed_orgs: ['acme'], resource_type: null, cluster_name: 'prod'
  })
  t.match(JSON.parse(sessionStorage.getItem(SSO_START_CONTEXT_KEY)!), { intent: 'register', redirect: '/app', allowedOrgs: ['acme'], clusterName: 'prod' })
})

t.test('an address that is not https (or http on loopback) is not followed, and the form says so', async (t) => {
  for (const url of ['javascript:alert(1)', 'http://github.test/authorize', 'https://user:pass@github.test/']) {
    const { base } = await setUp(t, { '/auth/login/social': [200, { url }] })
    const view = renderPage(t, base, '', SOCIAL_ON)
    await view.user.click(await screen.findByRole('button', { name: 'Sign in with GitHub' }))
    await eventually(t, () => screen.queryByRole('alert')?.textContent, english('error.GENERIC'), url)
    t.equal(window.location.origin, base, 'the page stays')
    view.unmount()
  }
  t.ok(isProviderUrl('http://127.0.0.1:4000/authorize'), 'a stand-in on loopback is followed')
  t.ok(isProviderUrl('http://localhost:4000/authorize'))
  t.notOk(isProviderUrl('not a url'))
})

t.test('a refused start shows the service\'s text as the form\'s notice', async (t) => {
  const { base } = await setUp(t, { '/auth/login/social': [502, { error: 'GitHub could not be reached.' }] })
  const { user } = renderPage(t, base, '', SOCIAL_ON)
  await user.click(await screen.findByRole('button', { name: 'Sign in with GitHub' }))
  await eventually(t, () => screen.queryByRole('alert')?.textContent, 'GitHub could not be reached.')
  t.notOk(screen.getByRole('button', { name: 'Sign in with GitHub' }).hasAttribute('disabled'), 'the button can be pressed again')
})

t.test('without scripts each button is a form posting form=social and its provider', async (t) => {
  const { base } = await setUp(t)
  renderPage(t, base, '', SOCIAL_ON)
  await screen.findByRole('button', { name: 'Sign in with GitHub' })
  const forms = [...document.querySelectorAll<HTMLFormElement>('form.social')]
  t.same(forms.map((form) => [form.method, form.getAttribute('action'), new FormData(form).get('form'), new FormData(form).get('provider')]),
    PROVIDERS.map(({ id }) => ['post', null, 'social', id]))
  t.ok(forms.every((form) => form.querySelector('button[type="submit"]') !== null), 'each with its submit button')
})

t.test('the return completes by itself: the parameters leave the address, the login is stored, the mark is remembered', async (t) => {
  const { base, upstream } = await setUp(t)
  renderPage(t, base, '?social=github&id=one-time-id&login=1&redirect=%2Fapp&cluster_name=prod', SOCIAL_ON)
  await eventuallyOk(t, () => !/social=|id=/.test(window.location.search), 'the return\'s parameters are gone')
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(upstream, '/v2/auth/login'), {
    login_method: 'SOCIAL', provider: 'github', id: 'one-time-id', insecure_allowed_orgs: [], resource_type: null, cluster_name: 'prod'
  })
  t.equal(upstream.requests.filter((request) => request.url === '/v2/auth/login').length, 1, 'completed once')
  t.match(document.cookie, /auth=eyJ\.social/, 'the token is stored')
  t.equal(localStorage.getItem(LAST_USED_KEY), 'social:github', 'remembered as the method used last')
})

t.test('the return uses the context kept in this tab at the start', async (t) => {
  const { base, upstream } = await setUp(t)
  sessionStorage.setItem(SSO_START_CONTEXT_KEY, JSON.stringify({ intent: 'register', savedAt: Date.now(), redirect: '/kept', allowedOrgs: ['acme'], resourceType: null, clusterName: null }))
  renderPage(t, base, '?social=apple&id=one-time-id&register=1', SOCIAL_ON)
  await eventually(t, () => window.location.href, `${base}/kept`)
  t.same(lastBody(upstream, '/v2/auth/login'), {
    login_method: 'SOCIAL', provider: 'apple', id: 'one-time-id', insecure_allowed_orgs: ['acme'], resource_type: null, cluster_name: null
  })
})

t.test('a return whose account has a second factor hands over to its code step', async (t) => {
  const { base } = await setUp(t, { '/v2/auth/login': [200, { second_factor: 'code', challenge: 'ch-social', expires_in: 300 }] })
  renderPage(t, base, '?social=github&id=one-time-id&login=1', SOCIAL_ON)
  await eventuallyOk(t, () => document.querySelector('input[name="challenge"]')?.getAttribute('value') === 'ch-social', 'the second factor\'s step has the challenge')
  t.equal(localStorage.getItem(LAST_USED_KEY), null, 'no mark before the sign-in completes')
})

t.test('a refused completion shows its text; an error return shows the message it carries', async (t) => {
  const refusal = 'An account with this address exists. Log in to it, then connect GitHub from your account.'
  const { base } = await setUp(t, { '/v2/auth/login': [409, { error: refusal }] })
  const view = renderPage(t, base, '?social=github&id=one-time-id&login=1', SOCIAL_ON)
  await eventually(t, () => screen.queryByRole('alert')?.textContent, refusal)
  t.ok(screen.getByRole('button', { name: 'Login' }), 'the login view stays, to log in to that account')
  view.unmount()
  renderPage(t, base, '?error=GitHub%20did%20not%20vouch%20for%20a%20verified%20address.', SOCIAL_ON)
  await eventually(t, () => screen.queryByRole('alert')?.textContent, 'GitHub did not vouch for a verified address.')
})
