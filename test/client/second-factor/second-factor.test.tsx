import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import t, { type Test } from 'tap'
import { encode } from 'uqr'
import { english } from '../../fixtures/languages/messages.js'
import { SECOND_FACTOR_OFFER_DECLINED_KEY } from '../../../client/second-factor/not-now.js'
import { RECOVERY_CODES_FILE_NAME } from '../../../client/second-factor/RecoveryCodes.js'
import { startUpstream } from '../../fixtures/servers/edge.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import {
  answerByPath, SECOND_FACTOR_TEST_ROUTES, TEST_OTPAUTH_URI, TEST_RECOVERY_CODES, TEST_SECRET
} from '../../fixtures/second-factor/second-factor.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

const SECOND_FACTOR_ON = { secondFactor: true }
const TOKENS = { auth: 'eyJ.second', refresh: 'refresh-2f' }
const CHALLENGE = { second_factor: 'code', challenge: 'ch-code', expires_in: 300 }
const WRONG_CODE = 'That code is not right. Try the newest code from your app.'

/** The contract's answers: a right code is 123456, a right recovery code abcd-efgh; the rest are refused as the service would. */
const CONTRACT_ANSWERS: Record<string, [number, unknown]> = {
  '/v2/login': [200, CHALLENGE],
  '/v2/auth/login': [200, CHALLENGE],
  '/second-factor/enrol/start': [200, { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI }],
  '/second-factor/enrol/confirm': [200, { recovery_codes: TEST_RECOVERY_CODES, ...TOKENS }]
}

async function setUp (t: Test, answers: Record<string, [number, unknown]> = {}) {
  const table = answerByPath({ ...CONTRACT_ANSWERS, ...answers })
  const { base, upstream } = await startBackend(t, (request, response) => {
    if (request.url === '/second-factor/verify') {
      const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>
      const right = body.challenge === 'ch-code' && (body.code === '123456' || body.recovery_code === 'abcd-efgh')
      response.writeHead(right ? 200 : 401, { 'content-type': 'application/json' })
      response.end(JSON.stringify(right ? TOKENS : { error: WRONG_CODE }))
      return
    }
    table(request, response)
  }, { accountsRoutes: SECOND_FACTOR_TEST_ROUTES })
  localStorage.clear()
  document.cookie = 'auth=; max-age=0; path=/'
  document.cookie = 'refresh=; max-age=0; path=/'
  return { base, upstream }
}

const paths = (upstream: { requests: Array<{ url: string }> }) => upstream.requests.map((request) => request.url)

t.test('code step: a right code stores the tokens and leaves to the redirect, with the login\'s context sent first', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp&allowed_org=acme&resource_type=cluster&cluster_name=prod', SECOND_FACTOR_ON)
  await signInOnView(user)
  const field = await screen.findByRole('textbox', { name: english('secondFactor.codeLabel') })
  t.ok(screen.getByRole('heading', { name: english('secondFactor.codeHeading') }))
  t.equal(field.getAttribute('autocomplete'), 'one-time-code')
  t.equal(field.getAttribute('inputmode'), 'numeric')
  t.equal(field.getAttribute('pattern'), '[0-9]{6}')
  t.notMatch(document.cookie, /auth=/, 'no token before the second factor')
  t.match(lastBody(upstream, '/v2/login'), { insecure_allowed_orgs: ['acme'], resource_type: 'cluster', cluster_name: 'prod' })
  // Enabled (without scripts it must post); with them, an incomplete code is refused on the spot.
  await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
  t.ok(screen.getAllByRole('alert').some((alert) => alert.textContent === english('secondFactor.codeIncomplete')), 'Verify asks for six digits')
  t.notOk(upstream.requests.some((request) => request.url.startsWith('/second-factor/verify')), 'nothing sent')
  await user.type(field, '123456')
  await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(upstream, '/second-factor/verify'), { challenge: 'ch-code', code: '123456', remember_browser: false })
  t.match(document.cookie, /auth=eyJ\.second/)
})

t.test('a wrong code: the service\'s refusal in an alert, no tokens, the step stays and a right code then works', async (t) => {
  const { base } = await setUp(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  const field = await screen.findByRole('textbox', { name: english('secondFactor.codeLabel') })
  await user.type(field, '000000')
  await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === WRONG_CODE), 'the refusal is announced')
  t.equal(window.location.pathname, '/')
  t.notMatch(document.cookie, /auth=/)
  await user.clear(field)
  await user.type(field, '123456')
  await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
  await eventually(t, () => window.location.href, `${base}/app`)
})

t.test('a pasted "123 456" becomes 123456', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  const field = await screen.findByRole('textbox', { name: english('secondFactor.codeLabel') })
  field.focus()
  await user.paste('123 456')
  t.equal((field as HTMLInputElement).value, '123456')
  await user.keyboard('{Enter}')
  await eventually(t, () => window.location.href, `${base}/app`)
  t.match(lastBody(upstream, '/second-factor/verify'), { code: '123456' })
})

t.test('the recovery code switch sends a recovery code instead', async (t) => {
  const { base, upstream } = await setUp(t)
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('secondFactor.useRecovery') }))
  t.equal(screen.queryByRole('textbox', { name: english('secondFactor.codeLabel') }), null, 'the code field goes')
  await user.type(screen.getByRole('textbox', { name: english('secondFactor.recoveryLabel') }), 'abcd-efgh')
  await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(upstream, '/second-factor/verify'), { challenge: 'ch-code', recovery_code: 'abcd-efgh', remember_browser: false })
  t.ok(screen.getByRole('button', { name: english('secondFactor.useCode') }), 'and a way back to the code')
})

t.test('"Don\'t ask again on this browser" is sent when ticked, and absent when the operator turned it off', async (t) => {
  await t.test('ticked', async (t) => {
    const { base, upstream } = await setUp(t)
    const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
    await signInOnView(user)
    await user.type(await screen.findByRole('textbox', { name: english('secondFactor.codeLabel') }), '123456')
    await user.click(screen.getByRole('checkbox', { name: english('secondFactor.rememberBrowser') }))
    await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
    await eventually(t, () => window.location.href, `${base}/app`)
    t.match(lastBody(upstream, '/second-factor/verify'), { remember_browser: true })
  })
  await t.test('off', async (t) => {
    const { base, upstream } = await setUp(t)
    const { user } = renderPage(t, base, '?redirect=%2Fapp', { ...SECOND_FACTOR_ON, secondFactorRememberBrowser: false })
    await signInOnView(user)
    await screen.findByRole('textbox', { name: english('secondFactor.codeLabel') })
    t.equal(screen.queryByRole('checkbox', { name: english('secondFactor.rememberBrowser') }), null)
    await user.keyboard('123456{Enter}')
    await eventually(t, () => window.location.href, `${base}/app`)
    t.match(lastBody(upstream, '/second-factor/verify'), { remember_browser: false })
  })
})

t.test('"Back to login" returns to the form, with nothing stored', async (t) => {
  const { base } = await setUp(t)
  const { user } = renderPage(t, base, '', SECOND_FACTOR_ON)
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('secondFactor.backToLogin') }))
  t.ok(screen.getByRole('button', { name: 'Login' }))
  t.notMatch(document.cookie, /auth=/)
})

t.test('enrolment during a login: QR and key agree with the URI, the first code, the recovery codes shown once, then the tokens and the redirect', async (t) => {
  const { base, upstream } = await setUp(t, { '/v2/login': [200, { second_factor: 'enrol', challenge: 'ch-enrol', expires_in: 300 }] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  const qr = await screen.findByRole('img', { name: english('secondFactor.qrLabel') })
  t.equal(qr.tagName.toLowerCase(), 'svg')
  t.same(lastBody(upstream, '/second-factor/enrol/start'), { challenge: 'ch-enrol' })
  // The drawn modules are the URI's: the same count of dark squares, in a grid of the encoder's size.
  const { data, size } = encode(TEST_OTPAUTH_URI, { ecc: 'M', border: 4 })
  t.equal(qr.getAttribute('viewBox'), `0 0 ${size} ${size}`)
  t.equal(qr.querySelector('path')!.getAttribute('d')!.match(/M/g)!.length, data.flat().filter(Boolean).length)
  t.equal(screen.getByTestId('enrolment-key').textContent.replace(/ /g, ''), new URL(TEST_OTPAUTH_URI).searchParams.get('secret'), 'the key shown is the URI\'s')
  t.match(screen.getByTestId('enrolment-key').textContent, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'in groups of four')
  t.ok(screen.getByRole('button', { name: english('secondFactor.copyKey') }))
  t.notMatch(document.cookie, /auth=/, 'no token yet')

  await user.type(screen.getByRole('textbox', { name: english('secondFactor.firstCodeLabel') }), '654 321')
  await user.click(screen.getByRole('button', { name: english('secondFactor.confirm') }))
  await screen.findByRole('heading', { name: english('secondFactor.codesHeading') })
  t.same(lastBody(upstream, '/second-factor/enrol/confirm'), { challenge: 'ch-enrol', code: '654321', remember_browser: false })
  const list = screen.getByRole('list', { name: english('secondFactor.codesHeading') })
  t.same(within(list).getAllByRole('listitem').map((item) => item.textContent), TEST_RECOVERY_CODES)
  const download = screen.getByRole('link', { name: english('secondFactor.downloadCodes') })
  t.equal(download.getAttribute('download'), RECOVERY_CODES_FILE_NAME)
  t.match(download.getAttribute('href'), /^blob:/)
  t.ok(screen.getByRole('button', { name: english('secondFactor.copyCodes') }))
  t.notMatch(document.cookie, /auth=/, 'no token before the codes are saved')
  const next = screen.getByRole('button', { name: english('secondFactor.continue') })
  t.ok(next.hasAttribute('disabled'), 'Continue waits for the confirmation')
  await user.click(screen.getByRole('checkbox', { name: english('secondFactor.codesSaved') }))
  t.notOk(next.hasAttribute('disabled'))
  await user.click(next)
  await eventually(t, () => window.location.href, `${base}/app`)
  t.match(document.cookie, /auth=eyJ\.second/)
})

t.test('an enrolment the login requires takes the focus to its heading, as every other step does', async (t) => {
  const { base } = await setUp(t, { '/v2/login': [200, { second_factor: 'enrol', challenge: 'ch-enrol', expires_in: 300 }] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  const heading = await screen.findByRole('heading', { name: english('secondFactor.enrolHeading') })
  await screen.findByRole('img', { name: english('secondFactor.qrLabel') })
  await eventuallyOk(t, () => document.activeElement === heading, 'focus on the enrolment\'s heading')
})

t.test('enrolment: a wrong first code is refused in an alert and the step stays', async (t) => {
  const { base } = await setUp(t, {
    '/v2/login': [200, { second_factor: 'enrol', challenge: 'ch-enrol', expires_in: 300 }],
    '/second-factor/enrol/confirm': [401, { error: WRONG_CODE }]
  })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  await user.type(await screen.findByRole('textbox', { name: english('secondFactor.firstCodeLabel') }), '000000')
  await user.click(screen.getByRole('button', { name: english('secondFactor.confirm') }))
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === WRONG_CODE))
  t.ok(screen.getByRole('img', { name: english('secondFactor.qrLabel') }), 'still enrolling')
  t.equal(window.location.pathname, '/')
})

t.test('a challenge beside tokens is malformed: the generic error, nothing stored', async (t) => {
  const { base } = await setUp(t, { '/v2/login': [200, { ...CHALLENGE, ...TOKENS }] })
  const { user } = renderPage(t, base, '', SECOND_FACTOR_ON)
  await signInOnView(user)
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === english('error.GENERIC')), 'the generic error')
  t.equal(screen.queryByRole('textbox', { name: english('secondFactor.codeLabel') }), null)
  t.notMatch(document.cookie, /auth=/)
})

t.test('the offer after a password login without a second factor: "Not now" is remembered for 30 days and the page leaves', async (t) => {
  const { base, upstream } = await setUp(t, { '/v2/login': [200, TOKENS] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  const heading = await screen.findByRole('heading', { name: english('secondFactor.offerHeading') })
  await eventuallyOk(t, () => document.activeElement === heading, 'focus on the offer\'s heading')
  t.match(document.cookie, /auth=eyJ\.second/, 'signed in already')
  const before = Date.now()
  await user.click(screen.getByRole('button', { name: english('secondFactor.notNow') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  const until = Number(localStorage.getItem(SECOND_FACTOR_OFFER_DECLINED_KEY))
  t.ok(until >= before + 30 * 86400000 && until <= Date.now() + 30 * 86400000, 'remembered for 30 days')
  t.notOk(paths(upstream).includes('/second-factor/enrol/start'))
})

t.test('no offer while "Not now" holds, nor where the service has no second factors', async (t) => {
  await t.test('declined', async (t) => {
    const { base } = await setUp(t, { '/v2/login': [200, TOKENS] })
    localStorage.setItem(SECOND_FACTOR_OFFER_DECLINED_KEY, String(Date.now() + 60000))
    const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
    await signInOnView(user)
    await eventually(t, () => window.location.href, `${base}/app`)
  })
  await t.test('off', async (t) => {
    const { base } = await setUp(t, { '/v2/login': [200, TOKENS] })
    const { user } = renderPage(t, base, '?redirect=%2Fapp', { secondFactor: false })
    await signInOnView(user)
    await eventually(t, () => window.location.href, `${base}/app`)
  })
  await t.test('the account has one already (its code skipped on a remembered browser)', async (t) => {
    const { base, upstream } = await setUp(t, { '/v2/login': [200, { ...TOKENS, second_factor_enrolled: true }] })
    const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
    await signInOnView(user)
    await eventually(t, () => window.location.href, `${base}/app`)
    t.equal(screen.queryByRole('heading', { name: english('secondFactor.offerHeading') }), null)
    t.notOk(paths(upstream).includes('/second-factor/enrol/start'))
  })
})

t.test('accepting the offer enrols with the stored login\'s bearer, then leaves after the codes', async (t) => {
  const { base, upstream } = await setUp(t, {
    '/v2/login': [200, TOKENS],
    '/second-factor/enrol/confirm': [200, { recovery_codes: TEST_RECOVERY_CODES }]
  })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', SECOND_FACTOR_ON)
  await signInOnView(user)
  await user.click(await screen.findByRole('button', { name: english('secondFactor.offerAccept') }))
  await screen.findByRole('img', { name: english('secondFactor.qrLabel') })
  t.same(lastBody(upstream, '/second-factor/enrol/start'), {})
  t.equal(screen.queryByRole('checkbox', { name: english('secondFactor.rememberBrowser') }), null, 'no browser to remember outside a login')
  await user.type(screen.getByRole('textbox', { name: english('secondFactor.firstCodeLabel') }), '654321')
  await user.click(screen.getByRole('button', { name: english('secondFactor.confirm') }))
  await user.click(await screen.findByRole('checkbox', { name: english('secondFactor.codesSaved') }))
  await user.click(screen.getByRole('button', { name: english('secondFactor.continue') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(upstream, '/second-factor/enrol/confirm'), { code: '654321' })
})

t.test('with passkeys on, the passkey offer comes first and no second-factor offer follows it', async (t) => {
  const { installStandInBrowser } = await import('../../fixtures/passkeys/webauthn-browser.js')
  installStandInBrowser(t, { capabilities: {} })
  const { base } = await setUp(t, { '/v2/login': [200, TOKENS] })
  const { user } = renderPage(t, base, '?redirect=%2Fapp', { ...SECOND_FACTOR_ON, passkeyRpId: 'localhost' })
  await signInOnView(user)
  await screen.findByRole('heading', { name: english('passkey.offerHeading') })
  t.equal(screen.queryByRole('heading', { name: english('secondFactor.offerHeading') }), null)
  await user.click(screen.getByRole('button', { name: english('passkey.notNow') }))
  await eventually(t, () => window.location.href, `${base}/app`)
})

/**
 * A local-network accounts listener (server/reference/sign-in/local-accounts.ts) that asks for `step` at
 * /authenticate and answers the second factor's calls as the reference one does, with CORS for the page.
 */
async function startLocalListener (t: Test, step: 'code' | 'enrol') {
  return await startUpstream(t, (request, response) => {
    const cors = { 'access-control-allow-origin': request.headers.origin ?? '*', 'access-control-allow-headers': 'content-type', 'content-type': 'application/json' }
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end()
      return
    }
    const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>
    const answers: Record<string, object> = {
      '/authenticate': { second_factor: step, challenge: 'ch-local', expires_in: 300 },
      '/second-factor/verify': body.code === '123456' ? TOKENS : { error: WRONG_CODE },
      '/second-factor/enrol/start': { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI },
      '/second-factor/enrol/confirm': { recovery_codes: TEST_RECOVERY_CODES, ...TOKENS }
    }
    const answer = answers[request.url] ?? { error: 'Not found.' }
    response.writeHead('error' in answer ? 401 : 200, cors).end(JSON.stringify(answer))
  })
}

t.test('local-network mode: the code the login asks for goes to the local listener, not the edge, and no browser is remembered', async (t) => {
  const { base, upstream } = await setUp(t)
  const local = await startLocalListener(t, 'code')
  document.cookie = 'secret=page-cookie; path=/'
  const { user } = renderPage(t, base, `?redirect=%2Fapp&local_accounts_host=127.0.0.1&local_accounts_port=${new URL(local.url).port}`, SECOND_FACTOR_ON)
  await signInOnView(user)
  const field = await screen.findByRole('textbox', { name: english('secondFactor.codeLabel') })
  t.equal(screen.queryByRole('checkbox', { name: english('secondFactor.rememberBrowser') }), null, 'no cookie travels there, so none is offered')
  await user.type(field, '123456')
  await user.click(screen.getByRole('button', { name: english('secondFactor.verify') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.match(document.cookie, /auth=eyJ\.second/, 'the tokens are stored as after any login')
  t.same(lastBody(local, '/second-factor/verify'), { challenge: 'ch-local', code: '123456', remember_browser: false })
  t.equal(local.requests.find((request) => request.url === '/second-factor/verify' && request.method === 'POST')?.headers.cookie, undefined, 'without the page\'s cookies')
  t.same(paths(upstream), [], 'nothing went through the edge')
})

t.test('local-network mode: an enrolment the login requires is made at the local listener with the login\'s challenge', async (t) => {
  const { base, upstream } = await setUp(t)
  const local = await startLocalListener(t, 'enrol')
  const { user } = renderPage(t, base, `?redirect=%2Fapp&local_accounts_host=127.0.0.1&local_accounts_port=${new URL(local.url).port}`, SECOND_FACTOR_ON)
  await signInOnView(user)
  await screen.findByRole('img', { name: english('secondFactor.qrLabel') })
  t.same(lastBody(local, '/second-factor/enrol/start'), { challenge: 'ch-local' })
  t.equal(screen.queryByRole('checkbox', { name: english('secondFactor.rememberBrowser') }), null)
  await user.type(screen.getByRole('textbox', { name: english('secondFactor.firstCodeLabel') }), '654321')
  await user.click(screen.getByRole('button', { name: english('secondFactor.confirm') }))
  await user.click(await screen.findByRole('checkbox', { name: english('secondFactor.codesSaved') }))
  await user.click(screen.getByRole('button', { name: english('secondFactor.continue') }))
  await eventually(t, () => window.location.href, `${base}/app`)
  t.same(lastBody(local, '/second-factor/enrol/confirm'), { challenge: 'ch-local', code: '654321', remember_browser: false })
  t.same(paths(upstream), [], 'nothing went through the edge')
})
