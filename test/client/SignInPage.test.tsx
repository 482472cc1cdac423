import '../fixtures/dom.js'
import { act, screen, within } from '@testing-library/react'
import type { ServerResponse } from 'node:http'
import t from 'tap'
import { english } from '../fixtures/messages.js'
import { ACCOUNTS_FAILURE_MESSAGES } from '../../server/edge/upstream/accounts-proxy.js'
import { setPageUrl, setViewportWidth } from '../fixtures/dom.js'
import { jsonAnswer, type RecordedRequest } from '../fixtures/edge.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../fixtures/page.js'

/** An upstream that answers each path with its own JSON, after an optional delay. */
function routes (answers: Record<string, [number, unknown]>, delayMs = 0) {
  return (request: RecordedRequest, response: ServerResponse) => {
    const [status, body] = answers[request.url.split('?')[0]!] ?? [404, { error: 'Not found.' }]
    setTimeout(() => jsonAnswer(status, body)(request, response), delayMs)
  }
}

t.test('the login view has the spec\'s fields, buttons and links', async (t) => {
  const { base } = await startBackend(t, routes({}))
  renderPage(t, base, '?home_page_banner=Maintenance%20on%20Sunday')
  t.ok(screen.getByRole('heading', { level: 1 }))
  t.ok(screen.getByLabelText('Email'))
  t.ok(screen.getByLabelText('Password'))
  t.ok(screen.getByRole('button', { name: 'Login' }))
  t.ok(screen.getByRole('separator'), 'the or divider')
  t.ok(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  t.equal(screen.queryByRole('button', { name: /Google/ }), null, 'no Google button without GOOGLE_CLIENT_ID')
  t.ok(screen.getByRole('link', { name: 'Sign Up' }))
  t.ok(screen.getByRole('link', { name: 'Forgot Password' }))
  t.equal(screen.getByRole('link', { name: 'support@example.com' }).getAttribute('href'), 'mailto:support@example.com')
  t.ok(screen.getByText('Maintenance on Sunday'), 'the banner')
  t.equal(screen.getByLabelText('Email').getAttribute('autocomplete'), 'username')
  t.equal(screen.getByLabelText('Password').getAttribute('autocomplete'), 'current-password')
})

t.test('a successful login stores the tokens and goes to the redirect target, keeping the hash', async (t) => {
  const { base, upstream } = await startBackend(t, routes({ '/v2/login': [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }] }))
  const { user } = renderPage(t, base, '?redirect=%2Fapp%2Fhome&allowed_org=acme,beta&resource_type=cluster&cluster_name=prod#section-2')
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse')
  await user.click(screen.getByRole('button', { name: 'Login' }))
  await eventually(t, () => window.location.href, `${base}/app/home#section-2`)
  t.same(lastBody(upstream, '/v2/login'), {
    email: 'ada@example.test', password: 'correct horse', insecure_allowed_orgs: ['acme', 'beta'], resource_type: 'cluster', cluster_name: 'prod'
  })
  // The cookies themselves are checked in test/client/lib/session-cookies.test.ts (happy-dom
  // drops Secure cookies on an http page, as it should off loopback) and in real Chromium (test/e2e).
})

/** The cookies a script on the page reads, by name. */
function scriptCookies (): Record<string, string> {
  return Object.fromEntries(document.cookie.split('; ').filter(Boolean).map((pair) => pair.split('=') as [string, string]))
}

function clearScriptCookies (): void {
  for (const name of Object.keys(scriptCookies())) document.cookie = `${name}=; Max-Age=0; Path=/`
}

t.test('after a login the page writes the auth cookie only: the refresh token is the edge\'s HttpOnly cookie', async (t) => {
  clearScriptCookies()
  // Even an answer that carries the refresh token (happy-dom's fetch states no site, so the edge
  // takes it for a tool's call and leaves the body whole) is not written where scripts read it.
  const { base } = await startBackend(t, routes({ '/v2/login': [200, { auth: 'eyJ.page-auth', refresh: 'page-refresh' }] }))
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse{Enter}')
  await eventually(t, () => window.location.pathname, '/app')
  t.equal(scriptCookies().auth, 'eyJ.page-auth', 'the auth cookie, for the product\'s scripts')
  t.notOk(Object.hasOwn(scriptCookies(), 'refresh'), 'no refresh cookie a script can read')
})

t.test('with AUTH_COOKIE_HTTPONLY the page writes no token cookie at all', async (t) => {
  clearScriptCookies()
  const { base } = await startBackend(t, routes({ '/v2/login': [200, { auth: 'eyJ.server-auth', refresh: 'server-refresh' }] }), { env: { AUTH_COOKIE_HTTPONLY: 'true' } })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { authCookieHttpOnly: true })
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse{Enter}')
  await eventually(t, () => window.location.pathname, '/app')
  t.same(scriptCookies(), {}, 'the edge set both, HttpOnly; the page wrote neither')
})

t.test('tokens the browser does not keep are reported with the generic message, and the page stays', async (t) => {
  const { base } = await startBackend(t, routes({ '/v2/login': [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }] }))
  // happy-dom drops a Secure cookie on a plain-http page at 127.0.0.1, as a browser drops one over
  // 4096 bytes (happy-dom keeps those: the 5 KB answer is in test/e2e/session-cookies.test.ts).
  const dropping = base.replace('//localhost:', '//127.0.0.1:')
  const { user } = renderPage(t, dropping, '?redirect=%2Fapp')
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse{Enter}')
  await eventually(t, () => screen.getByRole('alert').textContent, english('error.GENERIC'))
  t.equal(window.location.href, `${dropping}/?redirect=%2Fapp`, 'still on the page')
  t.notOk(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'the visitor can try again')
})

t.test('a hostile redirect sends the visitor to the site origin instead', async (t) => {
  const { base } = await startBackend(t, routes({ '/v2/login': [200, { auth: 'a', refresh: 'r' }] }))
  const { user } = renderPage(t, base, `?redirect=${encodeURIComponent('https://evil.test/')}`)
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'pw{Enter}')
  await eventually(t, () => window.location.href, `${base}/`)
})

t.test('a refused login shows the server\'s text; it is hidden and every button disabled while the next request runs', async (t) => {
  const { base } = await startBackend(t, routes({ '/v2/login': [401, { error: 'Invalid email or password.' }] }, 400))
  const { user } = renderPage(t, base)
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'wrong')
  await user.click(screen.getByRole('button', { name: 'Login' }))
  await eventually(t, () => screen.getByRole('alert').textContent, 'Invalid email or password.')
  t.notOk(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'buttons are enabled again')
  t.equal(screen.getByLabelText('Password').getAttribute('aria-invalid'), 'true')

  await user.click(screen.getByRole('button', { name: 'Login' }))
  await eventually(t, () => screen.getByRole('button', { name: 'Login' }).getAttribute('aria-busy'), 'true')
  t.equal(screen.getByRole('alert').textContent, '', 'the error is hidden while the request is pending')
  for (const button of screen.getAllByRole('button').filter((candidate) => !/Show|Copy|background/.test(candidate.textContent ?? '') && candidate.getAttribute('aria-label') === null)) {
    t.ok(button.hasAttribute('disabled'), `${button.textContent} is disabled`)
  }
  await eventually(t, () => screen.getByRole('alert').textContent, 'Invalid email or password.')
})

t.test('an answer the page cannot read shows the edge\'s own message for it, not "could not be reached"', async (t) => {
  // JSON, but not an object: the edge answers in the backend's place (the page's own generic message is for
  // answers that reach it unreadable, as in local-network mode: test/client/api/accounts.test.ts).
  const { base } = await startBackend(t, jsonAnswer(200, ['not', 'an', 'object']))
  const { user } = renderPage(t, base)
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'pw{Enter}')
  await eventually(t, () => screen.getByRole('alert').textContent, ACCOUNTS_FAILURE_MESSAGES.unreadable)
})

t.test('registration goes back to the login view with the success text and the email kept', async (t) => {
  const { base, upstream } = await startBackend(t, routes({ '/register': [200, { success: 'Your account has been created.' }] }))
  const { user } = renderPage(t, base, '?view=register&redirect=%2Fapp')
  t.ok(screen.getByRole('link', { name: 'Login' }), 'the Login link')
  t.ok(screen.getByText(/Already have an account\?/))
  t.ok(screen.getByRole('button', { name: 'Sign up with Custom SSO provider' }))
  await user.type(screen.getByLabelText('First Name (optional)'), 'Ada')
  await user.type(screen.getByLabelText('Company Email'), 'ada@example.test')
  await user.type(screen.getByLabelText('Password'), 'correct horse')
  await user.type(screen.getByLabelText('Confirm Password'), 'correct horse')
  t.equal(screen.getByLabelText('Confirm Password').getAttribute('autocomplete'), 'new-password')
  await user.click(screen.getByRole('button', { name: 'Sign Up' }))
  await eventually(t, () => screen.getByRole('status').textContent, 'Your account has been created.')
  t.same(lastBody(upstream, '/register'), { first_name: 'Ada', last_name: '', email: 'ada@example.test', password: 'correct horse', confirm_password: 'correct horse' })
  t.equal(new URLSearchParams(window.location.search).get('view'), null, 'the login view')
  t.equal(new URLSearchParams(window.location.search).get('redirect'), '/app', 'other parameters kept')
  t.equal((screen.getByLabelText('Email') as HTMLInputElement).value, 'ada@example.test')
})

t.test('a password reset request goes back to the login view with the success text', async (t) => {
  const { base, upstream } = await startBackend(t, routes({ '/resetPasswordRequest': [200, { success: 'Check your email.' }] }))
  const { user } = renderPage(t, base, '?view=resetPassword')
  t.ok(screen.getByRole('link', { name: 'Back to Login' }))
  await user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await user.click(screen.getByRole('button', { name: 'Send a Password Reset Email' }))
  await eventually(t, () => screen.getByRole('status').textContent, 'Check your email.')
  t.same(lastBody(upstream, '/resetPasswordRequest'), { email: 'ada@example.test' })
  t.ok(screen.getByRole('button', { name: 'Login' }))
})

t.test('the reset link\'s view sets a new password and returns to login', async (t) => {
  const { base, upstream } = await startBackend(t, routes({ '/resetPassword': [200, { success: 'Password changed.' }] }), {
    accountsRoutes: (await import('../../server/reference/http/exposed-routes.js')).REFERENCE_ACCOUNTS_ROUTES
  })
  const { user } = renderPage(t, base, '?view=setPassword&token=tok_1234567890abcdefghij')
  await user.type(screen.getByLabelText('New Password'), 'a new passphrase')
  await user.type(screen.getByLabelText('Confirm Password'), 'a new passphrase')
  await user.click(screen.getByRole('button', { name: 'Set New Password' }))
  await eventually(t, () => screen.getByRole('status').textContent, 'Password changed.')
  t.same(lastBody(upstream, '/resetPassword'), { token: 'tok_1234567890abcdefghij', password: 'a new passphrase', confirm_password: 'a new passphrase' })
  t.equal(new URLSearchParams(window.location.search).get('token'), null, 'the used token leaves the address bar')
})

t.test('views switch by rewriting the query string, keeping the rest, and the back button returns', async (t) => {
  const { base } = await startBackend(t, routes({}))
  const { user } = renderPage(t, base, '?redirect=%2Fapp&cluster_name=prod')
  await user.click(screen.getByRole('link', { name: 'Sign Up' }))
  t.equal(window.location.search, '?redirect=%2Fapp&cluster_name=prod&view=register')
  t.ok(screen.getByLabelText('Company Email'))
  await user.click(screen.getByRole('link', { name: 'Login' }))
  await user.click(screen.getByRole('link', { name: 'Forgot Password' }))
  t.ok(screen.getByRole('button', { name: 'Send a Password Reset Email' }))
  await act(async () => {
    window.history.back()
    await new Promise((resolve) => setTimeout(resolve, 50))
  })
  await eventuallyOk(t, () => screen.queryByRole('button', { name: 'Login' }) !== null, 'back returns to the login view')
  // The view first, then the rest as written (common/page-render.ts viewLinkHref: the server renders them alike).
  t.equal(screen.getByRole('link', { name: 'Sign Up' }).getAttribute('href'), '/?view=register&redirect=%2Fapp&cluster_name=prod', 'links are real URLs')
})

t.test('error keys in the address show their messages; unknown values are shown verbatim', async (t) => {
  const { base } = await startBackend(t, routes({}))
  renderPage(t, base, '?error=DOMAIN_NOT_AUTHORIZED')
  t.equal(screen.getByRole('alert').textContent, english('error.DOMAIN_NOT_AUTHORIZED'))
})

t.test('markup in the error parameter is shown as text, never rendered', async (t) => {
  const { base } = await startBackend(t, routes({}))
  renderPage(t, base, `?error=${encodeURIComponent('<img src=x onerror=alert(1)>Session over')}`)
  t.equal(screen.getByRole('alert').textContent, '<img src=x onerror=alert(1)>Session over')
  t.equal(document.querySelector('img[src="x"]'), null)
})

t.test('login_method limits the methods shown', async (t) => {
  const { base } = await startBackend(t, routes({}))
  renderPage(t, base, '?login_method=SAML', { googleClientId: 'abc.apps.googleusercontent.com' })
  t.equal(screen.queryByLabelText('Password'), null, 'no email and password form')
  t.equal(screen.queryByRole('separator'), null, 'no divider with a single method')
  t.ok(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  t.equal(screen.queryByRole('button', { name: /Google/ }), null)
})

t.test('the Google button is shown where configured, disabled until Google\'s script loads', async (t) => {
  const { base } = await startBackend(t, routes({}))
  renderPage(t, base, '', { googleClientId: 'abc.apps.googleusercontent.com' })
  const google = screen.getByRole('button', { name: 'Login with Google' })
  t.ok(google.hasAttribute('disabled'), 'Google\'s script cannot load here, so the button stays disabled')
})

t.test('Google sign-in is not offered on a disabled host name', async (t) => {
  const { base } = await startBackend(t, routes({}))
  renderPage(t, base, '', { googleClientId: 'abc.apps.googleusercontent.com', googleDisabledHostnames: ['localhost'] })
  t.equal(screen.queryByRole('button', { name: /Google/ }), null)
})

t.test('the SSO modal: prefilled email, Cancel and Escape close it, focus returns', async (t) => {
  const { base } = await startBackend(t, routes({}))
  const { user } = renderPage(t, base)
  await user.type(screen.getByLabelText('Email'), 'ada@corp.test')
  const opener = screen.getByRole('button', { name: 'Login with Custom SSO provider' })
  await user.click(opener)
  const dialog = await screen.findByRole('dialog', { name: 'SSO Login' })
  t.equal(dialog.getAttribute('aria-modal'), 'true')
  const email = within(dialog).getByLabelText('Email') as HTMLInputElement
  t.equal(email.value, 'ada@corp.test')
  await eventuallyOk(t, () => document.activeElement === email, 'focus moves into the dialog')
  t.ok(within(dialog).getByRole('button', { name: 'Login' }))

  await user.tab()
  await user.tab()
  await user.tab()
  t.ok(dialog.contains(document.activeElement), 'Tab stays inside the dialog')
  await user.keyboard('{Escape}')
  t.equal(screen.queryByRole('dialog'), null, 'Escape closes it')
  await eventuallyOk(t, () => document.activeElement === opener, 'focus returns to the button that opened it')

  await user.click(opener)
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }))
  t.equal(screen.queryByRole('dialog'), null, 'Cancel closes it')
})

t.test('SSO start posts the view as source and sends the browser to sso_url', async (t) => {
  const { base, upstream } = await startBackend(t, routes({ '/auth/login/sso': [200, { sso_url: 'https://idp.corp.test/authorize?state=x' }] }))
  const { user } = renderPage(t, base, '?view=register&redirect=%2Fapp&allowed_org=acme')
  await user.type(screen.getByLabelText('Company Email'), 'ada@corp.test')
  await user.click(screen.getByRole('button', { name: 'Sign up with Custom SSO provider' }))
  await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign up' }))
  await eventually(t, () => window.location.href, 'https://idp.corp.test/authorize?state=x')
  t.same(lastBody(upstream, '/auth/login/sso'), {
    email: 'ada@corp.test', source: 'register', redirect: '/app', insecure_allowed_orgs: ['acme'], resource_type: null, cluster_name: null
  })
})

t.test('an SSO start that is refused shows its text in the modal; a javascript: sso_url is not followed', async (t) => {
  const { base } = await startBackend(t, routes({ '/auth/login/sso': [200, { sso_url: 'javascript:alert(1)' }] }))
  const { user } = renderPage(t, base)
  await user.click(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  const dialog = await screen.findByRole('dialog')
  await user.type(within(dialog).getByLabelText('Email'), 'ada@corp.test')
  await user.click(within(dialog).getByRole('button', { name: 'Login' }))
  await eventually(t, () => within(screen.getByRole('dialog')).getByRole('alert').textContent, english('error.GENERIC'))
  t.equal(window.location.protocol, 'http:')
})

t.test('the SSO return leg completes a login by itself and removes id and email from the address bar', async (t) => {
  const { base, upstream } = await startBackend(t, routes({ '/v2/auth/login': [200, { auth: 'sso.auth', refresh: 'sso-refresh' }] }, 200))
  renderPage(t, base, '?oidc=1&email=ada%40corp.test&id=one-time-id&login=1&redirect=%2Fapp&cluster_name=prod')
  await eventuallyOk(t, () => !/id=|email=/.test(window.location.search))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(upstream, '/v2/auth/login'), {
    email: 'ada@corp.test', login_method: 'OIDC', id: 'one-time-id', insecure_allowed_orgs: [], resource_type: null, cluster_name: 'prod'
  })
  t.equal(upstream.requests.filter((request) => request.url === '/v2/auth/login').length, 1, 'completed once')
})

t.test('the SSO return leg completes a registration and shows the success text', async (t) => {
  const { base, upstream } = await startBackend(t, routes({ '/auth/register': [200, { success: 'Registered with SSO.' }] }))
  renderPage(t, base, '?saml=1&email=ada%40corp.test&id=one-time-id&register=1&view=register')
  await eventually(t, () => screen.getByRole('status').textContent, 'Registered with SSO.')
  t.same(lastBody(upstream, '/auth/register'), { register_method: 'SAML', id: 'one-time-id' })
  t.ok(screen.getByRole('button', { name: 'Login' }), 'on the login view')
})

t.test('local-network mode logs in at the local accounts server and blocks view switching and the support link', async (t) => {
  const { base: local, upstream } = await startBackend(t, routes({}))
  const localHost = new URL(local)
  const { base } = await startBackend(t, routes({}))
  const { user } = renderPage(t, base, `?local_accounts_host=${localHost.hostname}&local_accounts_port=${localHost.port}`, { googleClientId: 'x.apps.googleusercontent.com' })
  t.equal(screen.queryByRole('link', { name: 'Sign Up' }), null)
  t.equal(screen.queryByRole('link', { name: 'support@example.com' }), null)
  t.equal(screen.queryByRole('button', { name: /Google|SSO/ }), null, 'only the local method')
  await user.type(screen.getByLabelText('Email'), 'ada@lan.test')
  await user.type(screen.getByLabelText('Password'), 'pw{Enter}')
  await eventually(t, () => screen.getByRole('alert').textContent, english('error.GENERIC'))
  t.equal(upstream.requests.length, 0, 'the edge of the local server has no /authenticate; nothing went through the page\'s own edge either')
})

t.test('local-network mode with a host that is not allowed shows an error and sends nothing', async (t) => {
  const { base, upstream } = await startBackend(t, routes({}))
  const { user } = renderPage(t, base, '?local_accounts_host=evil.test')
  t.match(screen.getByRole('alert').textContent, /not allowed/)
  await user.type(screen.getByLabelText('Email'), 'ada@lan.test')
  await user.type(screen.getByLabelText('Password'), 'secret{Enter}')
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(upstream.requests.length, 0)
})

t.test('registration-type actions in local-network mode report that they are not supported', async (t) => {
  const { base, upstream } = await startBackend(t, routes({}))
  const { user } = renderPage(t, base, '?view=register&local_accounts_host=localhost')
  await user.type(screen.getByLabelText('Company Email'), 'ada@lan.test')
  await user.click(screen.getByRole('button', { name: 'Sign Up' }))
  t.equal(screen.getByRole('alert').textContent, english('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  t.equal(upstream.requests.length, 0)
})

t.test('the layout is the stylesheet\'s, the same markup at every width (media queries; test/e2e/layout.test.ts measures it)', async (t) => {
  const { base } = await startBackend(t, routes({}))
  setViewportWidth(1280)
  renderPage(t, base)
  // The columns, not the background: the video's variant follows the width once it loads.
  const wide = document.querySelector('.page__columns')!.outerHTML
  t.equal(document.querySelector('.page')!.getAttribute('data-layout'), null, 'no layout chosen by script')
  for (const width of [1000, 511, 512, 1024]) {
    await act(async () => setViewportWidth(width))
    t.equal(document.querySelector('.page__columns')!.outerHTML, wide, `the same markup at ${width} px`)
  }
})

t.test('the password field can be shown and warns about Caps Lock', async (t) => {
  const { base } = await startBackend(t, routes({}))
  const { user } = renderPage(t, base)
  const password = screen.getByLabelText('Password')
  t.equal(password.getAttribute('type'), 'password')
  const toggle = screen.getByRole('button', { name: 'Show password' })
  await user.click(toggle)
  t.equal(password.getAttribute('type'), 'text')
  t.equal(screen.getByRole('button', { name: 'Hide password' }).getAttribute('aria-pressed'), 'true')
  await user.click(password)
  await user.keyboard('{CapsLock}a')
  await eventuallyOk(t, () => screen.queryByText('Caps Lock is on.') !== null, 'the Caps Lock warning')
})

t.test('the whole login works with the keyboard alone', async (t) => {
  const { base } = await startBackend(t, routes({ '/v2/login': [200, { auth: 'k.auth', refresh: 'k-refresh' }] }))
  setPageUrl(`${base}/`)
  const { user } = renderPage(t, base, '?redirect=%2Fdone')
  await user.tab()
  t.equal(document.activeElement, screen.getByLabelText('Email'))
  await user.keyboard('ada@example.test')
  await user.tab()
  await user.keyboard('correct horse{Enter}')
  await eventually(t, () => window.location.pathname, '/done')
})
