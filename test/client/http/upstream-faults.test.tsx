import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import type { ServerResponse } from 'node:http'
import { ACCOUNTS_FAILURE_MESSAGES } from '../../../server/edge/upstream/accounts-proxy.js'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { BUSY_MESSAGE } from '../../../common/languages/page-texts.js'
import { english, markedGermanMessages } from '../../fixtures/languages/messages.js'
import englishAnswers from '../../../server/reference/languages/en.json' with { type: 'json' }
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, listen, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { startEdgeAuthResponder } from '../../fixtures/domain-check/edge-auth.js'
import { eventually, renderPage, startBackend } from '../../fixtures/page/page.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/**
 * The page in front of an accounts backend that fails: through the real edge,
 * each failure ends in a message the visitor can act on, the form usable
 * again, and no trace of the backend's own error page.
 */

const MESSAGES = { ...ACCOUNTS_FAILURE_MESSAGES, badGateway: ACCOUNTS_FAILURE_MESSAGES['bad-gateway'] }
const EDGE_ENV = { UPSTREAM_TIMEOUT_MS: '300' }

type Handler = (request: RecordedRequest, response: ServerResponse) => void

const faults: Array<[string, Handler | 'refuses', string]> = [
  ['refuses connections', 'refuses', MESSAGES.unavailable],
  ['resets the connection', (_request, response) => { response.socket?.destroy() }, MESSAGES.badGateway],
  ['hangs', () => {}, MESSAGES.timeout],
  ['answers 500 with an HTML page', (_request, response) => {
    response.writeHead(500, { 'content-type': 'text/html' })
    response.end('<h1>Internal Server Error</h1><pre>at db.connect (/srv/db.js:1)</pre>')
  }, MESSAGES.unreadable],
  ['answers 502 from a gateway in front of it, in HTML', (_request, response) => {
    response.writeHead(502, { 'content-type': 'text/html' })
    response.end('<h1>502 Bad Gateway</h1>')
  }, MESSAGES.badGateway],
  ['answers malformed JSON', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end('{"auth": "a", "refr')
  }, MESSAGES.unreadable],
  ['redirects to its own login page', (_request, response) => {
    response.writeHead(302, { location: 'https://accounts.internal/login?next=/v2/login' })
    response.end()
  }, MESSAGES.unreadable],
  ['answers 500 with its own JSON message', jsonAnswer(500, { error: 'Sign-in is down for maintenance until 14:00 UTC.' }),
    'Sign-in is down for maintenance until 14:00 UTC.'],
  ['answers 500 with JSON but no message', jsonAnswer(500, { detail: 'x' }), english('error.GENERIC')],
  ['sheds load: 503 with Retry-After and its text', (_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' })
    response.end(JSON.stringify({ error: englishAnswers['failure.busy'] }))
  }, englishAnswers['failure.busy']],
  ['sheds load: 503 with Retry-After and no text', (_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' })
    response.end('{}')
  }, BUSY_MESSAGE]
]

async function pageFor (t: import('tap').Test, handler: Handler | 'refuses'): Promise<string> {
  if (handler !== 'refuses') return (await startBackend(t, handler, { env: EDGE_ENV })).base
  return listen(await buildEdge(t, { accountsUpstream: DEAD_UPSTREAM, env: EDGE_ENV }))
}

for (const [what, handler, message] of faults) {
  t.test(`a backend that ${what}: the login shows a message the visitor can act on, and the form is usable again`, async (t) => {
    const base = await pageFor(t, handler)
    const { user } = renderPage(t, base)
    await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
    await eventually(t, () => screen.getByRole('alert').textContent, message)
    t.notOk(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'the Login button works again')
    t.equal(screen.getByLabelText('Password').getAttribute('aria-invalid'), 'true', 'the field is marked')
    t.notMatch(document.body.textContent ?? '', /srv|db\.js|Internal Server Error/, 'nothing of the backend\'s page shows')
    t.equal(window.location.pathname, '/', 'still on the page')
  })
}

t.test('a busy backend without a text of its own: the page says so in its language; a busy backend\'s own text is shown as it came', async (t) => {
  const german = markedGermanMessages()
  for (const [body, shown] of [['{}', `[de] ${english('failure.busy')}`], [JSON.stringify({ error: 'Zu viele Anmeldungen.' }), 'Zu viele Anmeldungen.']]) {
    const base = await pageFor(t, (_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' })
      response.end(body)
    })
    const { user, unmount } = renderPage(t, base, '', {}, german)
    await user.type(screen.getByLabelText('[de] Email'), 'ada@example.test')
    await user.type(screen.getByLabelText('[de] Password'), 'pw{Enter}')
    await eventually(t, () => screen.getByRole('alert').textContent, shown)
    unmount()
  }
})

t.test('a backend that answers gzip although asked for identity: the login goes through', async (t) => {
  const { base } = await startBackend(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    response.end(gzipSync(JSON.stringify({ auth: 'a.b.c', refresh: 'r' })))
  })
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  await eventually(t, () => window.location.pathname, '/app')
})

t.test('with DOMAIN_CHECK_ENFORCED, a page that does not ask for the check still shows the edge\'s refusal', async (t) => {
  const responder = await startEdgeAuthResponder(t, { unauthorized: ['example.test'] })
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { auth: 'a.b.c', refresh: 'r' }), {
    edgeAuthUpstream: responder, env: { DOMAIN_CHECK_ENFORCED: 'true' }
  })
  const { user } = renderPage(t, base)
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  await eventually(t, () => screen.getByRole('alert').textContent, english('error.DOMAIN_NOT_AUTHORIZED'))
  t.equal(upstream.requests.length, 0, 'the login never reached the accounts service')
  t.equal(window.location.pathname, '/', 'still on the page')
})

t.test('a backend that answers slowly, within the timeout: the login goes through', async (t) => {
  const { base } = await startBackend(t, (request, response) => {
    setTimeout(() => jsonAnswer(200, { auth: 'a.b.c', refresh: 'r' })(request, response), 150)
  }, { env: { UPSTREAM_TIMEOUT_MS: '5000' } })
  const { user } = renderPage(t, base, '?redirect=%2Fapp')
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  await eventually(t, () => window.location.pathname, '/app')
})

t.test('registration, the reset request and the SSO start show the failure too', async (t) => {
  const { base } = await startBackend(t, () => {}, { env: EDGE_ENV })
  const register = renderPage(t, base, '?view=register')
  await register.user.type(screen.getByLabelText('Company Email'), 'ada@example.test')
  await register.user.type(screen.getByLabelText('Password'), 'correct horse')
  await register.user.type(screen.getByLabelText('Confirm Password'), 'correct horse')
  await register.user.click(screen.getByRole('button', { name: 'Sign Up' }))
  await eventually(t, () => screen.getByRole('alert').textContent, MESSAGES.timeout, 'registration')
  register.unmount()

  const reset = renderPage(t, base, '?view=resetPassword')
  await reset.user.type(screen.getByLabelText('Email'), 'ada@example.test')
  await reset.user.click(screen.getByRole('button', { name: 'Send a Password Reset Email' }))
  await eventually(t, () => screen.getByRole('alert').textContent, MESSAGES.timeout, 'reset request')
  reset.unmount()

  const sso = renderPage(t, base)
  await sso.user.click(screen.getByRole('button', { name: 'Login with Custom SSO provider' }))
  const dialog = await screen.findByRole('dialog')
  await sso.user.type(within(dialog).getByLabelText('Email'), 'ada@corp.test')
  await sso.user.click(within(dialog).getByRole('button', { name: 'Login' }))
  await eventually(t, () => within(screen.getByRole('dialog')).getByRole('alert').textContent, MESSAGES.timeout, 'SSO start, in the modal')
})
