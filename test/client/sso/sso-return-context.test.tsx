import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { SSO_START_CONTEXT_KEY, SSO_START_CONTEXT_MAX_AGE_MS } from '../../../client/sso/sso-start-context.js'
import { jsonAnswer, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { storageRefusing } from '../../fixtures/page/storage.js'

/**
 * The SSO round trip with a backend that sends the browser back with only
 * the documented parameters: the page keeps `redirect` and the context
 * fields in this tab's sessionStorage at the start and uses them on return.
 */

const IDP = 'https://idp.corp.test/authorize?state=x'
/** A return URL with the documented parameters and nothing else. */
const BARE_LOGIN_RETURN = '?oidc=1&email=ada%40corp.test&id=one-time-id&login=1'

function routes (answers: Record<string, [number, unknown]>) {
  return (request: RecordedRequest, response: ServerResponse) => {
    const [status, body] = answers[request.url.split('?')[0]!] ?? [404, { error: 'Not found.' }]
    jsonAnswer(status, body)(request, response)
  }
}

const signedIn = routes({
  '/auth/login/sso': [200, { sso_url: IDP }],
  '/v2/auth/login': [200, { auth: 'sso.auth', refresh: 'sso-refresh' }],
  '/v2/login': [200, { auth: 'pw.auth', refresh: 'pw-refresh' }],
  '/auth/register': [200, { success: 'Registered with SSO.' }]
})

/** Starts SSO from the page at `query` and waits until the browser is at the identity provider. */
async function startSso (t: Test, base: string, query: string, view: 'login' | 'register' = 'login'): Promise<void> {
  const { user, unmount } = renderPage(t, base, query)
  await user.click(screen.getByRole('button', { name: view === 'login' ? 'Login with Custom SSO provider' : 'Sign up with Custom SSO provider' }))
  const dialog = await screen.findByRole('dialog')
  await user.type(within(dialog).getByLabelText('Email'), 'ada@corp.test')
  await user.click(within(dialog).getByRole('button', { name: view === 'login' ? 'Login' : 'Sign up' }))
  await eventually(t, () => window.location.href, IDP, 'at the identity provider')
  unmount()
}

/** An entry as the start writes it, with `change` applied. */
function keep (change: Record<string, unknown> = {}): void {
  sessionStorage.setItem(SSO_START_CONTEXT_KEY, JSON.stringify({
    intent: 'login', savedAt: Date.now(), redirect: '/app', allowedOrgs: ['acme'], resourceType: 'cluster', clusterName: 'prod', ...change
  }))
}

t.beforeEach(() => sessionStorage.clear())

t.test('a return with only the documented parameters lands on the redirect target, with the context the visitor started with', async (t) => {
  const { base, upstream } = await startBackend(t, signedIn)
  await startSso(t, base, '?redirect=%2Fapp%3Ftab%3D2&allowed_org=acme,globex&resource_type=cluster&cluster_name=prod-eu')
  renderPage(t, base, BARE_LOGIN_RETURN)
  await eventually(t, () => window.location.href, `${base}/app?tab=2`)
  t.same(lastBody(upstream, '/v2/auth/login'), {
    email: 'ada@corp.test', login_method: 'OIDC', id: 'one-time-id', insecure_allowed_orgs: ['acme', 'globex'], resource_type: 'cluster', cluster_name: 'prod-eu'
  }, 'the completion carries the kept context')
  t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null, 'the kept context is used once')
})

t.test('after an SSO registration the kept target and context stay in the address bar, so the login that follows lands there', async (t) => {
  const { base, upstream } = await startBackend(t, signedIn)
  await startSso(t, base, '?view=register&redirect=%2Fapp&cluster_name=prod', 'register')
  const { user } = renderPage(t, base, '?saml=1&email=ada%40corp.test&id=one-time-id&register=1')
  await eventually(t, () => screen.getByRole('status').textContent, 'Registered with SSO.')
  const query = new URLSearchParams(window.location.search)
  t.equal(query.get('redirect'), '/app')
  t.equal(query.get('cluster_name'), 'prod')
  t.notOk(query.has('id') || query.has('saml') || query.has('register'), 'the return\'s own parameters are gone')
  await user.type(screen.getByLabelText('Password'), 'correct horse{Enter}')
  await eventually(t, () => window.location.href, `${base}/app`)
  t.match(lastBody(upstream, '/v2/login'), { cluster_name: 'prod' })
})

t.test('a refused completion leaves the kept target in the address bar for the next try', async (t) => {
  const { base } = await startBackend(t, routes({ '/v2/auth/login': [401, { error: 'This sign-in link has expired.' }] }))
  keep()
  renderPage(t, base, BARE_LOGIN_RETURN)
  await eventually(t, () => screen.getByRole('alert').textContent, 'This sign-in link has expired.')
  t.equal(window.location.search, '?redirect=%2Fapp&resource_type=cluster&cluster_name=prod&allowed_org=acme')
})

t.test('what this tab kept wins over what the return URL says, whole', async (t) => {
  const { base, upstream } = await startBackend(t, signedIn)
  keep({ resourceType: null })
  renderPage(t, base, `${BARE_LOGIN_RETURN}&redirect=%2Fother&allowed_org=intruder&resource_type=database`)
  await eventually(t, () => window.location.href, `${base}/app`)
  t.match(lastBody(upstream, '/v2/auth/login'), { insecure_allowed_orgs: ['acme'], resource_type: null, cluster_name: 'prod' },
    'a value absent at the start is not taken from the return URL')
})

t.test('with nothing usable kept, the return URL\'s values are used, as before, and a stale or tampered entry is deleted', async (t) => {
  const { base, upstream } = await startBackend(t, signedIn)
  const entries: Array<[string, () => void]> = [
    ['nothing kept', () => {}],
    ['kept over 30 minutes ago', () => keep({ savedAt: Date.now() - SSO_START_CONTEXT_MAX_AGE_MS - 1000 })],
    ['kept for a registration', () => keep({ intent: 'register' })],
    ['not JSON', () => sessionStorage.setItem(SSO_START_CONTEXT_KEY, '{"redirect":')],
    ['a redirect that is no string', () => keep({ redirect: ['/app'] })],
    ['organisations that are no list', () => keep({ allowedOrgs: { 0: 'acme' } })],
    ['markup and __proto__', () => sessionStorage.setItem(SSO_START_CONTEXT_KEY, '{"__proto__":{"polluted":1},"intent":"<img src=x onerror=alert(1)>"}')]
  ]
  for (const [what, store] of entries) {
    store()
    const { unmount } = renderPage(t, base, `${BARE_LOGIN_RETURN}&redirect=%2Ffrom-url&cluster_name=from-url`)
    await eventually(t, () => window.location.href, `${base}/from-url`, `${what}: the return URL's redirect`)
    t.match(lastBody(upstream, '/v2/auth/login'), { insecure_allowed_orgs: [], resource_type: null, cluster_name: 'from-url' }, `${what}: its context`)
    t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null, `${what}: nothing left behind`)
    t.equal(({} as Record<string, unknown>).polluted, undefined, `${what}: no prototype touched`)
    unmount()
  }
})

t.test('a kept redirect to a foreign host is refused as any redirect is: the visitor lands on the site origin', async (t) => {
  const { base, upstream } = await startBackend(t, signedIn)
  for (const redirect of ['https://evil.test/phish', '//evil.test/', 'javascript:alert(1)', 'http://corp.test/']) {
    keep({ redirect })
    const { unmount } = renderPage(t, base, BARE_LOGIN_RETURN)
    await eventually(t, () => window.location.href, `${base}/`, `${redirect}: refused`)
    t.match(lastBody(upstream, '/v2/auth/login'), { cluster_name: 'prod' }, `${redirect}: the rest of the context is still used`)
    unmount()
  }
})

t.test('storage that refuses does not stop the start, and the return then uses its URL\'s values', async (t) => {
  const { base, upstream } = await startBackend(t, signedIn)
  for (const refusal of ['setItem', 'access'] as const) {
    const restore = storageRefusing(refusal)
    t.teardown(restore)
    await startSso(t, base, '?redirect=%2Fapp')
    const { unmount } = renderPage(t, base, `${BARE_LOGIN_RETURN}&redirect=%2Ffrom-url`)
    await eventually(t, () => window.location.href, `${base}/from-url`, `${refusal} refused: the return URL's redirect`)
    t.equal(upstream.requests.filter((request) => request.url === '/v2/auth/login').length, refusal === 'setItem' ? 1 : 2, 'completed')
    unmount()
    restore()
  }
  await eventuallyOk(t, () => sessionStorage.getItem(SSO_START_CONTEXT_KEY) === null, 'nothing was kept')
})
