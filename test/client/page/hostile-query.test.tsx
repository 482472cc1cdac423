import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { answersByPath, eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/**
 * Hostile values for every query parameter of the page, through the real
 * page on happy-dom against a real edge and backend: what renders, and what
 * is sent. Values: markup, huge values, repeated keys, `__proto__` and other
 * inherited names, and control and bidirectional characters.
 */

const MARKUP = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'
const CONTROL = 'a\u0000b\u0007c\u001bd\u202ee\u2066f\u200bg\ufeffh\u0085i'
const HUGE = 'x'.repeat(100_000)
const INHERITED = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf']

const q = (params: Array<[string, string]>): string => `?${new URLSearchParams(params).toString()}`

/** Nothing from the address bar became an element or ran. */
function expectNothingInjected (t: Test, what: string): void {
  t.equal(document.querySelector('img[src="x"], script, iframe, object, embed, svg[onload], [onerror]'), null, `${what}: no injected element`)
  t.equal((window as { __pwned?: unknown }).__pwned, undefined, `${what}: nothing ran`)
  t.equal(({} as Record<string, unknown>).polluted, undefined, `${what}: no prototype touched`)
}

t.test('error: markup, control characters and huge values are shown as bounded plain text; repeated keys take the first', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const cases: Array<[string, string]> = [
    [q([['error', MARKUP]]), MARKUP],
    [q([['error', CONTROL]]), 'a b c d e f g h i'],
    [q([['error', HUGE]]), `${'x'.repeat(299)}…`],
    [q([['error', 'GENERIC'], ['error', MARKUP]]), english('error.GENERIC')],
    [q([['error', '  '], ['error', 'GENERIC']]), ''],
    ...INHERITED.map((name): [string, string] => [q([['error', name]]), name])
  ]
  for (const [query, shown] of cases) {
    const view = renderPage(t, base, query)
    const alert = screen.getByRole('alert')
    t.equal(alert.textContent, shown, `${query.slice(0, 60)}: shown as ${JSON.stringify(shown.slice(0, 40))}`)
    expectNothingInjected(t, query.slice(0, 60))
    view.unmount()
  }
})

t.test('home_page_banner: markup, control characters and huge values are shown as bounded plain text', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const cases: Array<[string, string | null]> = [
    [q([['home_page_banner', MARKUP]]), MARKUP],
    [q([['home_page_banner', CONTROL]]), 'a b c d e f g h i'],
    [q([['home_page_banner', HUGE]]), `${'x'.repeat(199)}…`],
    [q([['home_page_banner', 'First'], ['home_page_banner', 'Second']]), 'First'],
    [q([['home_page_banner', '\u202e\u200b\u0000']]), null],
    [q([['home_page_banner', '__proto__']]), '__proto__']
  ]
  for (const [query, shown] of cases) {
    const view = renderPage(t, base, query)
    const banner = document.querySelector('.banner')
    t.equal(banner?.textContent ?? null, shown, `${query.slice(0, 50)}: banner`)
    expectNothingInjected(t, query.slice(0, 50))
    view.unmount()
  }
})

t.test('notice: markup, control and bidi characters, huge values and inherited names are never shown, on any view', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const values = [MARKUP, CONTROL, HUGE, ...INHERITED, '\u202eemail-verified', 'email-verified\u200b', '\u2066sessions-ended\u2069', `email-verified${MARKUP}`]
  for (const view of ['login', 'register', 'resetPassword', 'setPassword']) {
    for (const value of values) {
      const what = `${view}, notice=${JSON.stringify(value.slice(0, 30))}`
      const { unmount } = renderPage(t, base, q([['view', view], ['token', 'tok_1234567890'], ['notice', value]]))
      t.equal(document.getElementById('form-notice')?.textContent, '', `${what}: nothing above the form`)
      t.notOk(document.body.textContent?.includes(value.slice(0, 20)), `${what}: the value is nowhere on the page`)
      expectNothingInjected(t, what)
      unmount()
    }
  }
})

t.test('view: anything but a known view is the login view', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const values = [...INHERITED, MARKUP, HUGE, 'Register', 'register\u0000', ' register', 'setPassword']
  for (const value of values) {
    const view = renderPage(t, base, q([['view', value]]), { passwordResetCompletion: false })
    t.equal(screen.getByRole('heading', { level: 1 }).textContent, 'Log in', `view=${JSON.stringify(value.slice(0, 30))}: login`)
    expectNothingInjected(t, value.slice(0, 30))
    view.unmount()
  }
  const repeated = renderPage(t, base, q([['view', 'register'], ['view', 'resetPassword']]))
  t.equal(screen.getByRole('heading', { level: 1 }).textContent, 'Create your account', 'the first of repeated views')
  repeated.unmount()
})

t.test('login_method: inherited names, markup and huge lists show every method rather than none', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const values = [...INHERITED, MARKUP, HUGE, Array.from({ length: 10_000 }, () => 'x').join(','), ',,,', '\u0000GOOGLE']
  for (const value of values) {
    const view = renderPage(t, base, q([['login_method', value]]))
    t.ok(screen.queryByLabelText('Password'), `${JSON.stringify(value.slice(0, 30))}: the password form`)
    t.ok(screen.queryByRole('button', { name: 'Login with Custom SSO provider' }), `${JSON.stringify(value.slice(0, 30))}: SSO`)
    view.unmount()
  }
  const repeated = renderPage(t, base, q([['login_method', 'SAML'], ['login_method', '__proto__']]))
  t.equal(screen.queryByLabelText('Password'), null, 'repeated keys are all read: SAML alone')
  repeated.unmount()
})

t.test('supports_domain_auth_check: only "true" turns the check on', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/v2/login': [401, { error: 'Invalid email or password.' }] }))
  for (const value of ['TRUE', 'true ', '1', 'yes', '__proto__', MARKUP, HUGE]) {
    const { user, unmount } = renderPage(t, base, q([['supports_domain_auth_check', value]]))
    await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
    await eventually(t, () => screen.getByRole('alert').textContent, 'Invalid email or password.', `${JSON.stringify(value.slice(0, 20))}: no check first`)
    unmount()
  }
  t.notOk(upstream.requests.some((request) => request.url.startsWith('/edgeauth.')), 'the domain check was never called')
})

t.test('the login context fields are sent as given, only as JSON strings, and an oversized set gets a readable refusal', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/v2/login': [401, { error: 'Invalid email or password.' }] }))
  const login = async (query: string) => {
    const { user, unmount } = renderPage(t, base, query)
    await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
    await eventuallyOk(t, () => (screen.getByRole('alert').textContent ?? '') !== '', 'an answer is shown')
    const shown = screen.getByRole('alert').textContent
    expectNothingInjected(t, query.slice(0, 40))
    unmount()
    return shown
  }

  t.equal(await login(q([
    ['allowed_org', `${MARKUP},__proto__`], ['allowed_org', 'constructor'], ['allowed_org', CONTROL],
    ['resource_type', MARKUP], ['cluster_name', CONTROL], ['__proto__', 'x'], ['constructor', 'y']
  ])), 'Invalid email or password.')
  t.same(lastBody(upstream, '/v2/login'), {
    email: 'ada@example.test',
    password: 'pw',
    insecure_allowed_orgs: ['<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>', '__proto__', 'constructor', CONTROL],
    resource_type: MARKUP,
    cluster_name: CONTROL
  }, 'markup, inherited names and control characters travel as plain strings; the backend decides')

  t.equal(await login(q([['resource_type', 'first'], ['resource_type', 'second'], ['cluster_name', ''], ['cluster_name', 'prod']])), 'Invalid email or password.')
  t.same(lastBody(upstream, '/v2/login'), {
    email: 'ada@example.test', password: 'pw', insecure_allowed_orgs: [], resource_type: 'first', cluster_name: null
  }, 'the first of repeated keys; an empty one is absent')

  const before = upstream.requests.length
  const oversized = await login(q([['cluster_name', HUGE]]))
  t.equal(upstream.requests.length, before, 'a 100 kB context field is not passed to the backend')
  t.match(oversized, /too large/i, `the page says why: ${oversized}`)
  const manyOrgs = await login(Array.from({ length: 5000 }, (_, n) => `allowed_org=org-${n}`).join('&').replace(/^/, '?'))
  t.equal(upstream.requests.length, before, '5000 allowed_org values are not passed to the backend either')
  t.match(manyOrgs, /too large/i)
})

t.test('redirect: hostile targets send the visitor to the site origin after a login', async (t) => {
  const { base } = await startBackend(t, answersByPath({ '/v2/login': [200, { auth: 'a.b.c', refresh: 'r' }] }))
  const targets = [
    'javascript:window.__pwned=1', 'JaVaScRiPt:window.__pwned=1', 'data:text/html,<script>1</script>', '//evil.test/', '/\\evil.test/',
    'https:evil.test', 'https://evil.test\\@127.0.0.1/', 'https://127.0.0.1@evil.test/', 'java\u0000script:1', '\u202ehttps://evil.test',
    'https://evil.test/%2e%2e', `/${HUGE}`, '__proto__', MARKUP
  ]
  for (const target of targets) {
    const { user, unmount } = renderPage(t, base, q([['redirect', target]]))
    await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
    const expected = target === '__proto__' ? `${base}/__proto__` : `${base}/`
    await eventually(t, () => window.location.href, expected, `${JSON.stringify(target.slice(0, 40))} → ${expected}`)
    expectNothingInjected(t, target.slice(0, 40))
    unmount()
  }
})

t.test('local_accounts_host and _port: hostile values are refused with a message and no password goes anywhere', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({}))
  const refused: Array<Array<[string, string]>> = [
    [['local_accounts_host', MARKUP]],
    [['local_accounts_host', '__proto__']],
    [['local_accounts_host', HUGE]],
    [['local_accounts_host', 'evil.test\u0000.localhost']],
    [['local_accounts_host', 'localhost'], ['local_accounts_port', '0x50']],
    [['local_accounts_host', 'localhost'], ['local_accounts_port', '1e3']],
    [['local_accounts_host', 'localhost'], ['local_accounts_port', '80.0']],
    [['local_accounts_host', 'localhost'], ['local_accounts_port', '+80']],
    [['local_accounts_host', 'localhost'], ['local_accounts_port', '99999999999999999999']],
    [['local_accounts_host', 'localhost'], ['local_accounts_port', '__proto__']],
    [['local_accounts_host', 'evil.test'], ['local_accounts_host', 'localhost']]
  ]
  for (const params of refused) {
    const what = JSON.stringify(params).slice(0, 80)
    const { user, unmount } = renderPage(t, base, q(params))
    t.match(screen.getByRole('alert').textContent, /local accounts (host|port)/i, `${what}: refused with a message`)
    await signInOnView(user, 'ada@lan.test', 'secret', { pressEnter: true })
    t.match(screen.getByRole('alert').textContent, /local accounts (host|port)/i, `${what}: still refused on submit`)
    expectNothingInjected(t, what)
    unmount()
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(upstream.requests.length, 0, 'no password was sent anywhere')
})

t.test('the SSO return: hostile email and id are sent as plain strings, once, and leave the address bar', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/v2/auth/login': [401, { error: 'This sign-in link has expired.' }] }))
  const first = renderPage(t, base, q([['oidc', '1'], ['email', MARKUP], ['id', `__proto__${CONTROL}`], ['login', '1'], ['email', 'second@x.test']]))
  await eventually(t, () => screen.getByRole('alert').textContent, 'This sign-in link has expired.')
  t.same(lastBody(upstream, '/v2/auth/login'), {
    email: MARKUP, login_method: 'OIDC', id: `__proto__${CONTROL}`, insecure_allowed_orgs: [], resource_type: null, cluster_name: null
  })
  t.equal(upstream.requests.length, 1, 'completed once')
  t.notMatch(window.location.search, /email=|id=|oidc|login=/, 'removed from the address bar')
  t.equal((screen.getByLabelText<HTMLInputElement>('Email')).value, MARKUP, 'the email field holds the text, as text')
  expectNothingInjected(t, 'SSO return')
  first.unmount()

  const { base: base2, upstream: upstream2 } = await startBackend(t, answersByPath({}))
  const huge = renderPage(t, base2, q([['saml', '1'], ['email', 'a@b.test'], ['id', HUGE], ['register', '1']]))
  await eventuallyOk(t, () => /too large/i.test(screen.getByRole('alert').textContent ?? ''), 'a 100 kB id gets a readable refusal')
  t.equal(upstream2.requests.length, 0, 'and does not reach the backend')
  huge.unmount()
})

t.test('the reset token: hostile values are sent as a plain string and the answer is shown', async (t) => {
  const { base, upstream } = await startBackend(t, answersByPath({ '/resetPassword': [400, { error: 'This reset link is not valid.' }] }), {
    accountsRoutes: REFERENCE_ACCOUNTS_ROUTES
  })
  for (const token of [MARKUP, '__proto__', CONTROL]) {
    const { user, unmount } = renderPage(t, base, q([['view', 'setPassword'], ['token', token], ['token', 'second']]))
    await user.type(screen.getByLabelText('New Password'), 'a new passphrase')
    await user.type(screen.getByLabelText('Confirm Password'), 'a new passphrase')
    await user.click(screen.getByRole('button', { name: 'Set New Password' }))
    await eventually(t, () => screen.getByRole('alert').textContent, 'This reset link is not valid.')
    t.same(lastBody(upstream, '/resetPassword'), { token, password: 'a new passphrase', confirm_password: 'a new passphrase' }, `${JSON.stringify(token.slice(0, 20))}: sent as given`)
    expectNothingInjected(t, token.slice(0, 20))
    unmount()
  }
})

t.test('every parameter hostile at once: the page renders, nothing is injected, and switching views keeps the parameters as they were', async (t) => {
  const { base } = await startBackend(t, answersByPath({}))
  const names = ['view', 'redirect', 'allowed_org', 'resource_type', 'cluster_name', 'home_page_banner', 'error', 'login_method',
    'local_accounts_port', 'supports_domain_auth_check', 'saml', 'oidc', 'email', 'id', 'token', '__proto__', 'constructor']
  const query = q(names.flatMap((name): Array<[string, string]> => [[name, MARKUP], [name, CONTROL], [name, '__proto__']]))
  const { user } = renderPage(t, base, query)
  t.equal(screen.getByRole('heading', { level: 1 }).textContent, 'Log in')
  t.equal(screen.getByRole('alert').textContent, MARKUP.length > 300 ? `${MARKUP.slice(0, 299)}…` : MARKUP, 'the error, as text')
  expectNothingInjected(t, 'all at once')
  await user.click(screen.getByRole('link', { name: 'Sign Up' }))
  const params = new URLSearchParams(window.location.search)
  t.equal(params.get('view'), 'register')
  t.same(params.getAll('error'), [MARKUP, CONTROL, '__proto__'], 'other parameters are kept exactly')
  t.ok(within(document.body).getByRole('heading', { level: 1 }))
  expectNothingInjected(t, 'after switching views')
})
