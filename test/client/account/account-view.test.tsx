import '../../fixtures/page/dom.js'
import { screen, within } from '@testing-library/react'
import t, { type Test } from 'tap'
import { ACCOUNT_FEATURES, ACCOUNT_STATE_ELEMENT_ID, type AccountFeature, type AccountState } from '../../../common/account/account-state.js'
import { english, englishMessages } from '../../fixtures/languages/messages.js'
import { REFERENCE_ACCOUNTS_ROUTES } from '../../../server/reference/http/exposed-routes.js'
import { jsonAnswer, type RecordedRequest, type Upstream } from '../../fixtures/servers/edge.js'
import { eventually, eventuallyOk, lastBody, renderPage, startBackend } from '../../fixtures/page/page.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import type { RuntimeConfig } from '../../../common/page/runtime-config.js'
import { createMessages, type Catalogue } from '../../../common/languages/message-catalogue.js'
import { readFileSync } from 'node:fs'
import { TEST_OTPAUTH_URI, TEST_RECOVERY_CODES, TEST_SECRET } from '../../fixtures/second-factor/second-factor.js'
import { installStandInBrowser, standInCredential } from '../../fixtures/passkeys/webauthn-browser.js'

/*
 * The account view (`?view=account`), rendered from the AccountState the
 * edge embeds, driven by role, its calls made through the real edge to a
 * stand-in accounts service on port 0, which refuses a change until a proof
 * has reached it (as the reference service does with the `threshold_proof`
 * cookie, which happy-dom does not keep).
 */

const EMAIL = 'ada@example.test'
/** An auth token as the page reads it: only its payload's `email` and `exp` matter (the page never verifies it). */
const AUTH = `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'a1', email: EMAIL, exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url')}.c2ln`
const HOUR = 3_600_000
const NOW = Date.UTC(2026, 10, 28, 14, 0)
const PASSWORD = 'correct horse'
/** The code the stand-in emailed for a fresh proof (normalized, as the page posts it). */
const EMAIL_CODE = 'ABCDEFGH'
const PROOF_NEEDED = { error: 'For your security, confirm it\'s you first.', reason: 'fresh_proof_required', proof_methods: ['password', 'sign_in'] }

/** The account's paths as the edge forwards them (server/edge/upstream/accounts-proxy.ts), for a stand-in behind it. */
const ACCOUNT_ROUTES = [...REFERENCE_ACCOUNTS_ROUTES, ...[
  'reauthenticate', 'email-code/send', 'sessions/end', 'sessions/end-others', 'password/change', 'email/change', 'account/delete',
  'passkeys/list', 'passkeys/rename', 'passkeys/remove', 'passkeys/register/options', 'passkeys/register', 'second-factor/remove', 'second-factor/recovery-codes', 'second-factor/forget-browsers',
  'second-factor/enrol/start', 'second-factor/enrol/confirm', 'account/social/link/start', 'account/social/link', 'account/social/unlink'
].map((path) => ({ path, kind: 'json' as const }))]

function accountState (features: readonly AccountFeature[] = ACCOUNT_FEATURES, more: Partial<AccountState> = {}): AccountState {
  return {
    overview: {
      account: { email: EMAIL, firstName: 'Ada', lastName: null, emailVerified: true, hasPassword: true, google: false },
      secondFactor: { enrolled: false, recoveryCodesLeft: 0, rememberedBrowsers: 0 },
      features
    },
    sessions: [
      { id: 's-here', current: true, browser: 'Firefox on Linux', signedInAt: NOW - 5 * HOUR, lastUsedAt: NOW, addressRange: '203.0.113.0/24', method: 'password' },
      { id: 's-phone', current: false, browser: 'Safari on iOS', signedInAt: NOW - 50 * HOUR, lastUsedAt: NOW - 2 * HOUR, addressRange: '2001:db8:1::/48', method: 'passkey' }
    ],
    passkeys: [],
    activity: [{ at: NOW - HOUR, kind: 'sign-in', method: 'password', browser: 'Firefox on Linux', addressRange: '203.0.113.0/24' }],
    ...more
  }
}

/** The stand-in service's state: whether a proof came, and what it answers each path. */
interface Service {
  proven: boolean
  answers: Record<string, [number, unknown]>
}

const PROOF_PATHS = new Set(['/passkeys/register/options', '/password/change', '/email/change', '/account/delete', '/passkeys/rename', '/passkeys/remove',
  '/second-factor/remove', '/second-factor/recovery-codes', '/second-factor/forget-browsers', '/account/social/link/start', '/account/social/unlink'])

function accountsService (service: Service) {
  return (request: RecordedRequest, response: Parameters<ReturnType<typeof jsonAnswer>>[1]) => {
    const path = request.url.split('?')[0]!
    const body = request.body.length === 0 ? {} : JSON.parse(request.body.toString('utf8')) as Record<string, unknown>
    const answer = (status: number, json: unknown) => jsonAnswer(status, json)(request, response)
    if (path === '/reauthenticate') {
      service.proven = body.password === PASSWORD || body.email_code === EMAIL_CODE
      return service.proven ? answer(200, { success: true }) : answer(401, { error: 'That password is not right.' })
    }
    if (PROOF_PATHS.has(path) && !service.proven) return answer(403, PROOF_NEEDED)
    const [status, json] = service.answers[path] ?? [404, { error: 'Not found.' }]
    return answer(status, json)
  }
}

/** The page at `?view=account` with `state` embedded, a live auth cookie, and the stand-in behind a real edge. */
async function openAccountView (
  t: Test, state: AccountState | null, answers: Service['answers'] = {}, messages = englishMessages(), config: Partial<RuntimeConfig> = {}, query = '?view=account'
) {
  const service: Service = { proven: false, answers: { '/token/revoke': [200, { success: 'Logged out.' }], ...answers } }
  const { base, upstream } = await startBackend(t, accountsService(service), { accountsRoutes: ACCOUNT_ROUTES })
  setPageUrl(`${base}/`)
  document.cookie = `auth=${AUTH}; path=/`
  document.cookie = 'refresh=r-live; path=/'
  const embedded = document.createElement('script')
  embedded.type = 'application/json'
  embedded.id = ACCOUNT_STATE_ELEMENT_ID
  embedded.textContent = state === null ? 'not json' : JSON.stringify(state)
  document.body.append(embedded)
  t.teardown(() => {
    embedded.remove()
    document.cookie = 'auth=; max-age=0; path=/'
    document.cookie = 'refresh=; max-age=0; path=/'
  })
  const page = renderPage(t, base, query, config, messages)
  await screen.findByRole('heading', { level: 1, name: createMessages(messages).text('heading.account') })
  return { ...page, upstream, service }
}

const paths = (upstream: Upstream) => upstream.requests.map((request) => request.url)
const region = (key: Parameters<typeof english>[0]) => screen.getByRole('region', { name: english(key) })

t.test('each section the backend serves is a region named by its heading, and only those', async (t) => {
  await t.test('all of them', async (t) => {
    await openAccountView(t, accountState())
    for (const key of ['account.sessions.heading', 'account.passkeys.heading', 'account.secondFactor.heading', 'account.password.heading',
      'account.email.heading', 'account.activity.heading', 'account.delete.heading'] as const) {
      t.ok(within(region(key)).getByRole('heading', { level: 2, name: english(key) }), key)
    }
  })
  await t.test('sessions and password only', async (t) => {
    await openAccountView(t, accountState(['sessions', 'password']))
    t.same(screen.getAllByRole('region').map((section) => within(section).getAllByRole('heading', { level: 2 })[0]!.textContent),
      [english('account.sessions.heading'), english('account.password.heading')])
  })
  await t.test('none: sign out only', async (t) => {
    await openAccountView(t, accountState([]))
    t.equal(screen.queryAllByRole('region').length, 0)
    t.ok(screen.getByText(english('account.nothingOffered')))
    t.ok(screen.getByRole('button', { name: english('account.signOut') }))
  })
  await t.test('no state the page can read: said, and sign out', async (t) => {
    await openAccountView(t, null)
    t.ok(screen.getByText(english('account.listUnavailable')))
    t.ok(screen.getByRole('button', { name: english('account.signOut') }))
  })
})

t.test('each session shows its browser, "This browser", when it was used, how it signed in and its network range', async (t) => {
  await openAccountView(t, accountState(['sessions']))
  const items = within(region('account.sessions.heading')).getAllByRole('listitem')
  t.equal(items.length, 2)
  t.match(items[0]!.textContent, /Firefox on Linux · This browser/)
  t.match(items[0]!.textContent, 'Network: 203.0.113.0/24')
  t.match(items[1]!.textContent, /Signed in: .*2026.*, with passkey/)
  t.match(items[1]!.textContent, 'Network: 2001:db8:1::/48')
  t.equal(within(items[1]!).getByRole('button', { name: english('account.sessions.end') }).getAttribute('aria-describedby') !== null, true, 'the button names its session')
})

t.test('times are in the visitor\'s language', async (t) => {
  const catalogue = JSON.parse(readFileSync(new URL('../../../common/messages/de.json', import.meta.url), 'utf8')) as Catalogue
  const german = { locale: 'de' as const, catalogue }
  await openAccountView(t, accountState(['sessions']), {}, german)
  const list = screen.getByRole('region', { name: catalogue['account.sessions.heading'] })
  t.match(list.textContent, /Zuletzt verwendet: 28\. Nov\. 2026/, 'the date as German writes it')
})

t.test('"Sign out" on another session ends it at the service and takes it off the list, saying so', async (t) => {
  const { user, upstream } = await openAccountView(t, accountState(['sessions']), { '/sessions/end': [200, { success: true }] })
  const phone = within(region('account.sessions.heading')).getAllByRole('listitem')[1]!
  await user.click(within(phone).getByRole('button', { name: english('account.sessions.end') }))
  await eventuallyOk(t, () => screen.queryByText('Safari on iOS') === null, 'off the list')
  t.same(lastBody(upstream, '/sessions/end'), { id: 's-phone' })
  const status = screen.getByText(english('account.sessions.ended', { browser: 'Safari on iOS' }))
  t.equal(status.getAttribute('role'), 'status')
  await eventuallyOk(t, () => document.activeElement === status, 'the focus on what was done')
})

t.test('another account\'s session id: the service\'s refusal is shown and the list stays', async (t) => {
  const { user } = await openAccountView(t, accountState(['sessions']), { '/sessions/end': [404, { error: 'That session was not found.' }] })
  const phone = within(region('account.sessions.heading')).getAllByRole('listitem')[1]!
  await user.click(within(phone).getByRole('button', { name: english('account.sessions.end') }))
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === 'That session was not found.'), 'the refusal, as an alert')
  t.ok(screen.getByText('Safari on iOS'), 'the list stays')
})

t.test('"Sign out" on this browser\'s session is the view\'s sign-out: revoked, the cookies gone, the login view saying so', async (t) => {
  const { user, upstream } = await openAccountView(t, accountState(['sessions']), { '/sessions/end': [200, { success: true }] })
  const here = within(region('account.sessions.heading')).getAllByRole('listitem')[0]!
  await user.click(within(here).getByRole('button', { name: english('account.sessions.end') }))
  await screen.findByRole('button', { name: 'Login' })
  // token/revoke, whose answer the edge clears the HttpOnly refresh cookie on; sessions/end could not name this browser's.
  t.ok(paths(upstream).includes('/token/revoke'))
  t.notOk(paths(upstream).includes('/sessions/end'), 'not by its id')
  t.notMatch(document.cookie, /(^|; )auth=/, 'the auth cookie gone')
  t.ok(screen.getByText(english('signedIn.signedOut')))
})

t.test('"Sign out everywhere else" ends the others and leaves this browser on the list', async (t) => {
  const { user, upstream } = await openAccountView(t, accountState(['sessions']), { '/sessions/end-others': [200, { success: 'Signed out everywhere else.' }] })
  await user.click(screen.getByRole('button', { name: english('account.sessions.endOthers') }))
  await screen.findByText('Signed out everywhere else.')
  t.ok(paths(upstream).includes('/sessions/end-others'))
  t.equal(within(region('account.sessions.heading')).getAllByRole('listitem').length, 1)
  t.equal(screen.queryByRole('button', { name: english('account.sessions.endOthers') }), null, 'nothing else to end')
})

t.test('the view\'s "Sign out" revokes this session and shows the login view', async (t) => {
  const { user, upstream } = await openAccountView(t, accountState(['sessions']))
  // The first "Sign out" is the view's own; each session's names its session (aria-describedby).
  await user.click(screen.getAllByRole('button', { name: english('account.signOut') })[0]!)
  await screen.findByRole('button', { name: 'Login' })
  t.ok(paths(upstream).includes('/token/revoke'))
  t.notMatch(document.cookie, /(^|; )auth=/, 'the auth cookie gone')
})

t.test('a password change without a fresh proof asks for it in place, then carries on by itself', async (t) => {
  const { user, upstream } = await openAccountView(t, accountState(['password']), { '/password/change': [200, { success: true }] })
  await user.type(screen.getByLabelText(english('field.newPassword')), 'a new long passphrase')
  await user.type(screen.getByLabelText(english('field.confirmPassword')), 'a new long passphrase')
  await user.click(screen.getByRole('checkbox', { name: english('account.password.endOthers') }))
  await user.click(screen.getByRole('button', { name: english('account.password.submit') }))
  const heading = await screen.findByRole('heading', { name: english('freshProof.heading') })
  await eventuallyOk(t, () => document.activeElement === heading, 'the proof step takes the focus')
  t.ok(within(region('account.password.heading')).getByRole('heading', { name: english('freshProof.heading') }), 'in the section, in place of its form')
  t.ok(screen.getByText(english('account.proofExplanation')), 'saying what it is for')
  await user.type(screen.getByLabelText(english('field.password'), { selector: 'input' }), PASSWORD)
  await user.click(screen.getByRole('button', { name: english('freshProof.confirm') }))
  await screen.findByText(english('account.password.changed'))
  t.same(paths(upstream).filter((path) => path !== '/token/refresh'), ['/password/change', '/reauthenticate', '/password/change'])
  t.same(lastBody(upstream, '/password/change'), { newPassword: 'a new long passphrase', endOtherSessions: true })
  await eventually(t, () => screen.getByLabelText<HTMLInputElement>(english('field.newPassword')).value, '', 'the fields emptied')
})

t.test('two different new passwords: said at once, and nothing sent', async (t) => {
  const { user, upstream } = await openAccountView(t, accountState(['password']))
  await user.type(screen.getByLabelText(english('field.newPassword')), 'a new long passphrase')
  await user.type(screen.getByLabelText(english('field.confirmPassword')), 'another one')
  await user.click(screen.getByRole('button', { name: english('account.password.submit') }))
  t.ok(await screen.findByText(english('account.password.mismatch')))
  t.equal(screen.getByLabelText(english('field.newPassword')).getAttribute('aria-invalid'), 'true')
  t.same(paths(upstream), [])
})

t.test('the service\'s refusal of a new password (too short, breached) is shown as it came', async (t) => {
  const { user, service } = await openAccountView(t, accountState(['password']), { '/password/change': [400, { error: 'Use at least 8 characters.' }] })
  service.proven = true
  await user.type(screen.getByLabelText(english('field.newPassword')), 'short')
  await user.type(screen.getByLabelText(english('field.confirmPassword')), 'short')
  await user.click(screen.getByRole('button', { name: english('account.password.submit') }))
  await eventuallyOk(t, () => screen.getAllByRole('alert').some((alert) => alert.textContent === 'Use at least 8 characters.'))
})

t.test('an account without a password is offered to set one', async (t) => {
  const state = accountState(['password'])
  await openAccountView(t, { ...state, overview: { ...state.overview, account: { ...state.overview.account, hasPassword: false } } })
  t.ok(screen.getByText(english('account.password.none')))
  t.ok(screen.getByRole('button', { name: english('account.password.set') }))
})

t.test('an account with neither a password nor a passkey proves itself with an emailed code, and sets a password', async (t) => {
  const state = accountState(['password'])
  const noPassword = { ...state, overview: { ...state.overview, account: { ...state.overview.account, hasPassword: false } } }
  const { user, upstream } = await openAccountView(t, noPassword, {
    '/password/change': [200, { success: true }],
    '/email-code/send': [200, { success: 'A code is on its way to your address.', expires_in: 600 }]
  }, englishMessages(), { emailCodes: true })
  await user.type(screen.getByLabelText(english('field.newPassword')), 'a new long passphrase')
  await user.type(screen.getByLabelText(english('field.confirmPassword')), 'a new long passphrase')
  await user.click(screen.getByRole('button', { name: english('account.password.set') }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  await user.click(screen.getByRole('button', { name: english('emailCode.send') }))
  await screen.findByText('A code is on its way to your address.')
  t.same(lastBody(upstream, '/email-code/send'), { purpose: 'reauthenticate' }, 'a code to the account\'s own address')
  await user.type(screen.getByLabelText(english('emailCode.codeLabel')), 'abcd efgh')
  await user.click(screen.getByRole('button', { name: english('emailCode.submit') }))
  await screen.findByText(english('account.password.changed'))
  t.same(lastBody(upstream, '/reauthenticate'), { email_code: EMAIL_CODE })
})

t.test('the fresh proof\'s code is asked for with the auth token in the Authorization header, as the account\'s other calls', async (t) => {
  // What the page itself sends, recorded where it leaves (the request still goes to the real edge): the edge forwards
  // Authorization only on the paths it lists for it (server/edge/upstream/accounts-proxy.ts), never the auth cookie.
  const sent: Array<{ url: string, authorization: string | null }> = []
  const realFetch = globalThis.fetch
  globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    sent.push({ url: new URL(url, window.location.href).pathname, authorization: new Headers(init?.headers).get('authorization') })
    return await realFetch(input, init)
  }
  t.teardown(() => { globalThis.fetch = realFetch })
  const state = accountState(['password'])
  const { user, upstream } = await openAccountView(t, state, {
    '/password/change': [200, { success: true }],
    '/email-code/send': [200, { success: 'A code is on its way to your address.', expires_in: 600 }]
  }, englishMessages(), { emailCodes: true })
  await user.type(screen.getByLabelText(english('field.newPassword')), 'a new long passphrase')
  await user.type(screen.getByLabelText(english('field.confirmPassword')), 'a new long passphrase')
  await user.click(screen.getByRole('button', { name: english('account.password.submit') }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  await user.click(screen.getByRole('button', { name: english('emailCode.send') }))
  await screen.findByText('A code is on its way to your address.')
  const send = sent.filter((request) => request.url === '/accounts/email-code/send')
  t.equal(send.length, 1)
  t.equal(send[0]!.authorization, `Bearer ${AUTH}`, 'the token as a bearer credential, read from the auth cookie')
  t.same(lastBody(upstream, '/email-code/send'), { purpose: 'reauthenticate' }, 'the body names no address and holds no token')
  const reached = upstream.requests.find((request) => request.url === '/email-code/send')!
  t.notMatch(reached.headers.cookie ?? '', /(^|; )auth=/, 'the auth cookie never reaches the service')
  t.equal(reached.headers.authorization, `Bearer ${AUTH}`, 'the edge passes the bearer on to the service')
  await user.type(screen.getByLabelText(english('emailCode.codeLabel')), 'ABCD-EFGH')
  await user.click(screen.getByRole('button', { name: english('emailCode.submit') }))
  await screen.findByText(english('account.password.changed'))
  t.equal(upstream.requests.find((request) => request.url === '/reauthenticate')?.headers.authorization, `Bearer ${AUTH}`, 'the proof with the code carries it too')
})

t.test('without the emailed code, "Confirm it\'s you" offers none', async (t) => {
  const { user } = await openAccountView(t, accountState(['password']), {}, englishMessages(), { emailCodes: false })
  await user.type(screen.getByLabelText(english('field.newPassword')), 'a new long passphrase')
  await user.type(screen.getByLabelText(english('field.confirmPassword')), 'a new long passphrase')
  await user.click(screen.getByRole('button', { name: english('account.password.submit') }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  t.notOk(screen.queryByRole('button', { name: english('emailCode.send') }))
})

t.test('passkeys: each with its name, when made and last used; renamed and removed with a proof in place, the browser told what the account holds', async (t) => {
  // A browser with the Signal API, recording what the page tells it.
  const { signals } = installStandInBrowser(t)
  const listed = [{ id: 'Y3JlZC0x', name: 'Laptop', createdAt: NOW - 48 * HOUR, lastUsedAt: null, backedUp: true }, { id: 'Y3JlZC0y', name: null, createdAt: NOW - HOUR, lastUsedAt: NOW, backedUp: false }]
  const { user, upstream, service } = await openAccountView(t, accountState(['passkeys'], { passkeys: listed }), {
    '/passkeys/list': [200, { passkeys: listed, user_id: 'dXNlcg' }],
    '/passkeys/rename': [200, { success: true }],
    '/passkeys/remove': [200, { success: 'Passkey removed.' }]
  })
  await eventuallyOk(t, () => signals.length === 1, 'the list, told once the view opens')
  t.same(signals[0], { method: 'signalAllAcceptedCredentials', options: { rpId: 'localhost', userId: 'dXNlcg', allAcceptedCredentialIds: ['Y3JlZC0x', 'Y3JlZC0y'] } })
  const items = within(region('account.passkeys.heading')).getAllByRole('listitem')
  t.match(items[0]!.textContent, /Laptop · Synced across your devices/)
  t.match(items[0]!.textContent, english('account.passkeys.neverUsed'))
  t.match(items[1]!.textContent, english('account.passkeys.unnamed'))

  service.proven = true
  await user.click(within(items[0]!).getByRole('button', { name: english('account.passkeys.rename') }))
  const name = screen.getByLabelText(english('account.passkeys.nameLabel'))
  await user.clear(name)
  await user.type(name, 'Work laptop{Enter}')
  await screen.findByText(english('account.passkeys.renamed', { name: 'Work laptop' }))
  t.same(lastBody(upstream, '/passkeys/rename'), { id: 'Y3JlZC0x', name: 'Work laptop' })

  service.proven = false
  await user.click(within(within(region('account.passkeys.heading')).getAllByRole('listitem')[0]!).getByRole('button', { name: english('account.passkeys.remove') }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  await user.type(screen.getByLabelText(english('field.password'), { selector: 'input' }), `${PASSWORD}{Enter}`)
  await screen.findByText(english('account.passkeys.removed', { name: 'Work laptop' }))
  t.same(lastBody(upstream, '/passkeys/remove'), { id: 'Y3JlZC0x' })
  t.equal(within(region('account.passkeys.heading')).getAllByRole('listitem').length, 1)
  t.same(signals.slice(1), [{ method: 'signalUnknownCredential', options: { rpId: 'localhost', credentialId: 'Y3JlZC0x' } }], 'the passkey manager is told to forget it')
})

t.test('two-step verification: new recovery codes shown once, the factor turned off', async (t) => {
  const state = accountState(['second-factor'])
  const { user, upstream, service } = await openAccountView(t, { ...state, overview: { ...state.overview, secondFactor: { enrolled: true, recoveryCodesLeft: 2, rememberedBrowsers: 1 } } }, {
    '/second-factor/recovery-codes': [200, { recovery_codes: TEST_RECOVERY_CODES }],
    '/second-factor/remove': [200, { success: true }],
    '/second-factor/forget-browsers': [200, { success: true }]
  })
  service.proven = true
  const section = region('account.secondFactor.heading')
  t.match(section.textContent, english('account.secondFactor.codesLeft', { count: 2 }))
  await user.click(within(section).getByRole('button', { name: english('account.secondFactor.newCodes') }))
  const heading = await screen.findByRole('heading', { name: english('secondFactor.codesHeading') })
  await eventuallyOk(t, () => document.activeElement === heading, 'the codes\' heading takes the focus')
  for (const code of TEST_RECOVERY_CODES) t.ok(screen.getByText(code))
  await user.click(screen.getByRole('checkbox', { name: english('secondFactor.codesSaved') }))
  await user.click(screen.getByRole('button', { name: english('secondFactor.continue') }))
  t.match(region('account.secondFactor.heading').textContent, english('account.secondFactor.codesLeft', { count: 10 }))

  await user.click(screen.getByRole('button', { name: english('account.secondFactor.forgetBrowsers') }))
  await screen.findByText(english('account.secondFactor.browsersForgotten'))
  await user.click(screen.getByRole('button', { name: english('account.secondFactor.turnOff') }))
  await screen.findByText(english('account.secondFactor.turnedOff'))
  t.ok(screen.getByRole('button', { name: english('account.secondFactor.turnOn') }))
  t.ok(['/second-factor/recovery-codes', '/second-factor/forget-browsers', '/second-factor/remove'].every((path) => paths(upstream).includes(path)))
})

t.test('an address change sends the new address and says a link is on its way; the address stays until then', async (t) => {
  const { user, upstream, service } = await openAccountView(t, accountState(['email']), { '/email/change': [200, { success: true }] })
  service.proven = true
  await user.type(screen.getByLabelText(english('account.email.new')), ' new@example.test ')
  await user.click(screen.getByRole('button', { name: english('account.email.submit') }))
  await screen.findByText(english('account.email.sent', { email: 'new@example.test' }))
  t.same(lastBody(upstream, '/email/change'), { newEmail: 'new@example.test' })
  t.ok(screen.getByText(english('account.email.current', { email: EMAIL })))
})

t.test('the security activity lists each event with its time, method, browser and range', async (t) => {
  await openAccountView(t, accountState(['activity']))
  const item = within(region('account.activity.heading')).getByRole('listitem')
  t.match(item.textContent, english('account.activity.signIn'))
  t.match(item.textContent, 'password · Firefox on Linux · 203.0.113.0/24')
})

t.test('deleting the account: the address typed again, a proof, then the login view saying so', async (t) => {
  const { user, upstream } = await openAccountView(t, accountState(['delete']), { '/account/delete': [200, { success: true }] })
  const field = screen.getByLabelText(english('account.delete.confirmLabel', { email: EMAIL }))
  await user.type(field, 'someone@example.test')
  await user.click(screen.getByRole('button', { name: english('account.delete.submit') }))
  t.ok(await screen.findByText(english('account.delete.mismatch')), 'another address: said, nothing sent')
  t.same(paths(upstream), [])
  await user.clear(field)
  await user.type(field, 'ADA@example.test')
  await user.click(screen.getByRole('button', { name: english('account.delete.submit') }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  await user.type(screen.getByLabelText(english('field.password'), { selector: 'input' }), `${PASSWORD}{Enter}`)
  await screen.findByRole('button', { name: 'Login' })
  t.ok(screen.getByText(english('account.delete.deleted')))
  t.same(lastBody(upstream, '/account/delete'), { confirmEmail: 'ADA@example.test' })
  t.notMatch(document.cookie, /(^|; )auth=/, 'the token cookies gone')
})

t.test('a second delete, its account gone: the session has ended, and the login view says so', async (t) => {
  const { user, service } = await openAccountView(t, accountState(['delete']), { '/account/delete': [401, { error: 'Your session has ended.', reason: 'signed_out' }] })
  service.proven = true
  await user.type(screen.getByLabelText(english('account.delete.confirmLabel', { email: EMAIL })), EMAIL)
  await user.click(screen.getByRole('button', { name: english('account.delete.submit') }))
  await screen.findByRole('button', { name: 'Login' })
  t.ok(screen.getByText('Your session has ended.'))
})

t.test('"Add a passkey": a proof first where asked, then the browser\'s prompt, and the list as the service has it', async (t) => {
  const browser = installStandInBrowser(t, { signalApi: false })
  const attestation = { id: 'Y3JlZC0z', rawId: 'Y3JlZC0z', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' } }
  browser.answerCreate = () => ({ credential: standInCredential(attestation) })
  const added = { id: 'Y3JlZC0z', name: null, createdAt: NOW, lastUsedAt: null, backedUp: true }
  const { user, upstream } = await openAccountView(t, accountState(['passkeys']), {
    '/passkeys/register/options': [200, { options: { challenge: 'Y2hhbGxlbmdl', rp: { id: 'localhost', name: 'Threshold' }, user: { id: 'dXNlcg', name: EMAIL, displayName: 'Ada' }, pubKeyCredParams: [{ type: 'public-key', alg: -7 }] } }],
    '/passkeys/register': [200, { success: 'Passkey saved.' }],
    '/passkeys/list': [200, { passkeys: [added] }]
  })
  t.ok(screen.getByText(english('account.passkeys.none')))
  await user.click(screen.getByRole('button', { name: english('account.passkeys.add') }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  t.equal(browser.calls.length, 0, 'no prompt before the proof')
  await user.type(screen.getByLabelText(english('field.password'), { selector: 'input' }), `${PASSWORD}{Enter}`)
  await screen.findByText(english('account.passkeys.added'))
  t.same(browser.calls.map((call) => call.kind), ['create'], 'the prompt, once proven')
  t.same(lastBody(upstream, '/passkeys/register'), { credential: attestation, conditional: false })
  t.match(within(region('account.passkeys.heading')).getByRole('listitem').textContent, english('account.passkeys.unnamed'))
})

t.test('two-step verification turned on: the enrolment steps in the section, then the codes, then "on"', async (t) => {
  const { user, upstream, service } = await openAccountView(t, accountState(['second-factor']), {
    '/second-factor/enrol/start': [200, { secret: TEST_SECRET, otpauth_uri: TEST_OTPAUTH_URI }],
    '/second-factor/enrol/confirm': [200, { recovery_codes: TEST_RECOVERY_CODES }]
  })
  service.proven = true
  await user.click(screen.getByRole('button', { name: english('account.secondFactor.turnOn') }))
  const heading = await screen.findByRole('heading', { name: english('secondFactor.enrolHeading') })
  await eventuallyOk(t, () => document.activeElement === heading, 'the step\'s heading takes the focus')
  t.ok(within(region('account.secondFactor.heading')).getByRole('heading', { name: english('secondFactor.enrolHeading') }), 'in the section')
  await user.type(await screen.findByLabelText(english('secondFactor.firstCodeLabel')), '123456')
  await user.click(screen.getByRole('button', { name: english('secondFactor.confirm') }))
  await user.click(await screen.findByRole('checkbox', { name: english('secondFactor.codesSaved') }))
  await user.click(screen.getByRole('button', { name: english('secondFactor.continue') }))
  await screen.findByText(english('account.secondFactor.turnedOn'))
  t.ok(screen.getByRole('button', { name: english('account.secondFactor.turnOff') }))
  t.same(lastBody(upstream, '/second-factor/enrol/confirm'), { code: '123456' })
})

const SOCIAL_CONFIG: Partial<RuntimeConfig> = {
  socialProviders: [{ id: 'github', type: 'github', name: 'GitHub', icon: null }, { id: 'apple', type: 'apple', name: 'Apple', icon: null }]
}
const SOCIAL_STATE = accountState(['social', 'sessions', 'activity'], {
  overview: {
    ...accountState().overview,
    features: ['social', 'sessions', 'activity'],
    social: [{ provider: 'github', email: 'ada@users.github.test', linkedAt: NOW - 48 * HOUR }, { provider: 'apple', email: null, linkedAt: null }]
  },
  sessions: [{ id: 's-here', current: true, browser: 'Firefox on Linux', signedInAt: NOW - HOUR, lastUsedAt: NOW, addressRange: '203.0.113.0/24', method: 'social:github' }],
  activity: [{ at: NOW - HOUR, kind: 'social-linked', method: 'social:github', browser: 'Firefox on Linux', addressRange: '203.0.113.0/24' }]
})

t.test('sign-in methods: each provider linked, with its address and since when, or not; the lists name them', async (t) => {
  await openAccountView(t, SOCIAL_STATE, {}, englishMessages(), SOCIAL_CONFIG)
  const items = within(region('account.social.heading')).getAllByRole('listitem')
  t.match(items[0]!.textContent, /GitHub/)
  t.match(items[0]!.textContent, /Connected as ada@users\.github\.test since/)
  t.ok(within(items[0]!).getByRole('button', { name: 'Disconnect GitHub' }))
  t.match(items[1]!.textContent, english('account.social.notLinked'))
  t.ok(within(items[1]!).getByRole('button', { name: 'Connect Apple' }))
  t.match(within(region('account.sessions.heading')).getByRole('listitem').textContent, 'with GitHub', 'the session by the provider\'s name')
  const event = within(region('account.activity.heading')).getByRole('listitem')
  t.match(event.textContent, english('account.activity.socialLinked'))
  t.match(event.textContent, 'GitHub · Firefox on Linux')
})

t.test('connect: a fresh proof first, then the start, and the browser goes to the provider', async (t) => {
  const { user, upstream } = await openAccountView(t, SOCIAL_STATE, {
    '/account/social/link/start': [200, { url: 'https://appleid.apple.test/auth/authorize?state=s' }]
  }, englishMessages(), SOCIAL_CONFIG)
  await user.click(screen.getByRole('button', { name: 'Connect Apple' }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  t.ok(within(region('account.social.heading')).getByRole('heading', { name: english('freshProof.heading') }), 'in the section')
  await user.type(screen.getByLabelText(english('field.password'), { selector: 'input' }), `${PASSWORD}{Enter}`)
  await eventually(t, () => window.location.href, 'https://appleid.apple.test/auth/authorize?state=s')
  t.same(lastBody(upstream, '/account/social/link/start'), { provider: 'apple' })
})

t.test('connect: an address that is not the provider\'s kind is not followed', async (t) => {
  const { user, service } = await openAccountView(t, SOCIAL_STATE, { '/account/social/link/start': [200, { url: 'javascript:alert(1)' }] }, englishMessages(), SOCIAL_CONFIG)
  service.proven = true
  await user.click(screen.getByRole('button', { name: 'Connect Apple' }))
  await eventually(t, () => within(region('account.social.heading')).getByRole('alert').textContent, english('error.GENERIC'))
  t.equal(window.location.protocol, 'http:')
})

t.test('disconnect: a fresh proof first, then the provider shows as not connected', async (t) => {
  const { user, upstream } = await openAccountView(t, SOCIAL_STATE, { '/account/social/unlink': [200, { success: true }] }, englishMessages(), SOCIAL_CONFIG)
  await user.click(screen.getByRole('button', { name: 'Disconnect GitHub' }))
  await screen.findByRole('heading', { name: english('freshProof.heading') })
  await user.type(screen.getByLabelText(english('field.password'), { selector: 'input' }), `${PASSWORD}{Enter}`)
  await screen.findByText(english('account.social.disconnected', { provider: 'GitHub' }))
  t.same(lastBody(upstream, '/account/social/unlink'), { provider: 'github' })
  t.ok(within(region('account.social.heading')).getByRole('button', { name: 'Connect GitHub' }), 'it can be connected again')
})

t.test('disconnecting the last way in is refused, and the section says so plainly', async (t) => {
  const { user, service } = await openAccountView(t, SOCIAL_STATE, {
    '/account/social/unlink': [409, { error: 'Nothing else would sign in.', reason: 'last_way_in' }]
  }, englishMessages(), SOCIAL_CONFIG)
  service.proven = true
  await user.click(screen.getByRole('button', { name: 'Disconnect GitHub' }))
  await eventually(t, () => within(region('account.social.heading')).getByRole('alert').textContent, english('account.social.lastWayIn', { provider: 'GitHub' }))
  t.ok(screen.getByRole('button', { name: 'Disconnect GitHub' }), 'still connected')
})

t.test('the return from connecting completes by itself, says so, and shows the provider linked', async (t) => {
  const { upstream } = await openAccountView(t, SOCIAL_STATE, {
    '/account/social/link': [200, { success: true }],
    '/account/overview': [200, { social: [{ provider: 'github', email: 'ada@users.github.test', linkedAt: NOW - 48 * HOUR }, { provider: 'apple', email: 'ada@privaterelay.appleid.test', linkedAt: NOW }] }]
  }, englishMessages(), SOCIAL_CONFIG, '?view=account&social_link=apple&id=one-time-id')
  await screen.findByText(english('account.social.connected', { provider: 'Apple' }))
  t.same(lastBody(upstream, '/account/social/link'), { id: 'one-time-id' })
  t.notMatch(window.location.search, /social_link|id=/, 'the return\'s parameters are gone')
  t.match(within(region('account.social.heading')).getAllByRole('listitem')[1]!.textContent, 'ada@privaterelay.appleid.test')
})

t.test('a refused return from connecting shows the service\'s text', async (t) => {
  await openAccountView(t, SOCIAL_STATE, {
    '/account/social/link': [409, { error: 'This Apple account is connected to another account.' }]
  }, englishMessages(), SOCIAL_CONFIG, '?view=account&social_link=apple&id=one-time-id')
  await eventually(t, () => within(region('account.social.heading')).getByRole('alert').textContent, 'This Apple account is connected to another account.')
})
