import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { ACCOUNT_ROUTES, accountAnswers, answeringByPath, authTokenFor, type AccountAnswers } from '../../../fixtures/account/account-upstream.js'
import { startEdgeWithUpstream, type RecordedRequest } from '../../../fixtures/servers/edge.js'
import { PAGE_POST_HEADERS, postForm, stateIn } from '../../../fixtures/no-script/form-page.js'
import { FORM_FLASH_COOKIE } from '../../../../server/edge/no-script/form-flash.js'
import { startReference } from '../../../fixtures/servers/reference.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'

/*
 * The account view's forms posted without scripts (docs/account-view.md):
 * each calls its path with the visitor's token, the changes after a fresh
 * proof, and ends on the account view after a 303, saying how it went.
 */

const ENV = { TRUST_PROXY: 'loopback' }
const AUTH = authTokenFor('ada@example.com')
const SIGNED_IN = { cookie: `auth=${AUTH}; refresh=r-1` }
const QUERY = 'view=account'

async function edgeAnswering (t: Test, answers: () => AccountAnswers = () => accountAnswers()) {
  return await startEdgeWithUpstream(t, answeringByPath(answers), { env: ENV, accountsRoutes: ACCOUNT_ROUTES })
}

const bodyOf = (request: RecordedRequest | undefined): unknown => JSON.parse(request?.body.toString('utf8') ?? 'null')
const calls = (requests: RecordedRequest[]): string[] => requests.map((request) => request.url)
const setCookies = (headers: Record<string, unknown>): string[] => {
  const value = headers['set-cookie']
  return Array.isArray(value) ? value as string[] : typeof value === 'string' ? [value] : []
}

/** The account view a browser shows after the post's 303: the location, with the flash and the visitor's own cookies. */
async function followToView (app: FastifyInstance, posted: LightMyRequestResponse, cookie = SIGNED_IN.cookie): Promise<LightMyRequestResponse> {
  if (posted.statusCode !== 303) throw new Error(`the post answered ${posted.statusCode}, not 303`)
  const flash = setCookies(posted.headers).find((line) => line.startsWith(`${FORM_FLASH_COOKIE}=`))
  if (flash === undefined) throw new Error('the 303 carries no flash cookie')
  return await app.inject({
    method: 'GET',
    url: String(posted.headers.location),
    headers: { host: PAGE_POST_HEADERS.host!, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7', cookie: `${cookie}; ${flash.split(';', 1)[0]!}` }
  })
}

t.test('signing one session out calls sessions/end with its id and the token, and the view says so after the 303', async (t) => {
  const { app, upstream } = await edgeAnswering(t)
  const posted = await postForm(app, { form: 'account-end-session', id: 's-2' }, { query: QUERY, headers: SIGNED_IN })
  t.equal(posted.headers.location, `/?${QUERY}`)
  t.same(calls(upstream.requests), ['/sessions/end'])
  t.same(bodyOf(upstream.requests[0]), { id: 's-2' })
  t.equal(upstream.requests[0]!.headers.authorization, `Bearer ${AUTH}`)
  const view = await followToView(app, posted)
  t.equal(view.statusCode, 200)
  t.match(stateIn(view.body), { view: 'account', notice: { kind: 'success', text: 'That session is signed out.' } })
})

t.test('another account\'s session id gets the service\'s refusal, shown on the view', async (t) => {
  const { app } = await edgeAnswering(t, () => ({ ...accountAnswers(), '/sessions/end': { status: 404, body: { error: 'There is no such session.' } } }))
  const view = await followToView(app, await postForm(app, { form: 'account-end-session', id: 'someone-elses' }, { query: QUERY, headers: SIGNED_IN }))
  t.equal(view.statusCode, 404)
  t.match(stateIn(view.body), { view: 'account', invalid: true, notice: { kind: 'error', text: 'There is no such session.' } })
})

t.test('signing every other session out calls sessions/end-others', async (t) => {
  const { app, upstream } = await edgeAnswering(t)
  const view = await followToView(app, await postForm(app, { form: 'account-end-others' }, { query: QUERY, headers: SIGNED_IN }))
  t.same(calls(upstream.requests).slice(0, 1), ['/sessions/end-others'])
  t.match(stateIn(view.body), { notice: { kind: 'success', text: 'You\'re signed out of all other sessions.' } })
})

t.test('a new password is changed after the fresh proof, which its call carries', async (t) => {
  const { app, upstream } = await edgeAnswering(t)
  const posted = await postForm(app, {
    form: 'account-password', currentPassword: 'the old one, long', newPassword: 'a brand new password', confirmPassword: 'a brand new password', endOtherSessions: 'on'
  }, { query: QUERY, headers: SIGNED_IN })
  t.same(calls(upstream.requests), ['/reauthenticate', '/password/change'])
  t.same(bodyOf(upstream.requests[0]), { password: 'the old one, long' })
  t.same(bodyOf(upstream.requests[1]), { newPassword: 'a brand new password', endOtherSessions: true })
  t.match(String(upstream.requests[1]!.headers.cookie), /threshold_proof=fresh-proof/, 'the proof the first call left')
  t.notMatch(posted.body, 'a brand new password')
  const view = await followToView(app, posted)
  t.match(stateIn(view.body), { notice: { kind: 'success', text: 'Your password has been changed.' } })
  t.notMatch(view.body, 'the old one, long')
})

t.test('a change without the right current password is refused before it is asked for', async (t) => {
  const { app, upstream } = await edgeAnswering(t, () => ({ ...accountAnswers(), '/reauthenticate': { status: 401, body: { error: 'The password is not right.' } } }))
  const posted = await postForm(app, { form: 'account-email', currentPassword: 'a guess at it', newEmail: 'mallory@example.net' }, { query: QUERY, headers: SIGNED_IN })
  t.same(calls(upstream.requests), ['/reauthenticate'], 'a wrong password is not refreshed and tried again, and the change is never asked for')
  const view = await followToView(app, posted)
  t.equal(view.statusCode, 401)
  t.match(stateIn(view.body), { view: 'account', notice: { kind: 'error', text: 'The password is not right.' } })
})

t.test('the service\'s own fresh-proof refusal stands: the change is not made without it', async (t) => {
  const { app, upstream } = await edgeAnswering(t, () => ({
    ...accountAnswers(),
    '/password/change': { status: 403, body: { error: 'Confirm it\'s you first.', reason: 'fresh_proof_required', proof_methods: ['password'] } }
  }))
  const view = await followToView(app, await postForm(app, { form: 'account-password', currentPassword: 'x', newPassword: 'p'.repeat(12), confirmPassword: 'p'.repeat(12) }, { query: QUERY, headers: SIGNED_IN }))
  t.equal(view.statusCode, 403)
  t.match(stateIn(view.body), { notice: { kind: 'error', text: 'Confirm it\'s you first.' } })
  t.same(calls(upstream.requests).slice(0, 2), ['/reauthenticate', '/password/change'])
})

t.test('two different new passwords are refused without a call', async (t) => {
  const { app, upstream } = await edgeAnswering(t)
  const view = await followToView(app, await postForm(app, { form: 'account-password', currentPassword: 'x', newPassword: 'one password here', confirmPassword: 'another one here' }, { query: QUERY, headers: SIGNED_IN }))
  t.equal(view.statusCode, 400)
  t.match(stateIn(view.body), { notice: { kind: 'error', text: 'The passwords do not match.' } })
  t.notOk(calls(upstream.requests).includes('/reauthenticate'))
})

t.test('a new address is asked for after the fresh proof', async (t) => {
  const { app, upstream } = await edgeAnswering(t)
  const view = await followToView(app, await postForm(app, { form: 'account-email', currentPassword: 'the password', newEmail: ' ada@new.example.com ' }, { query: QUERY, headers: SIGNED_IN }))
  t.same(calls(upstream.requests).slice(0, 2), ['/reauthenticate', '/email/change'])
  t.same(bodyOf(upstream.requests[1]), { newEmail: 'ada@new.example.com' })
  t.match(stateIn(view.body), { notice: { kind: 'success', text: 'To finish, open the link we have sent to the new address.' } })
})

t.test('a deleted account is signed out: both cookies cleared, the login view says so; a second delete asks for a sign-in', async (t) => {
  let deleted = false
  const { app, upstream } = await edgeAnswering(t, () => deleted
    ? { '/reauthenticate': { status: 401, body: { error: 'Sign in again.', reason: 'signed_out' } }, '/token/refresh': { status: 401, body: { error: 'Sign in again.' } } }
    : accountAnswers())
  const posted = await postForm(app, { form: 'account-delete', currentPassword: 'the password', confirmEmail: 'ada@example.com' }, { query: QUERY, headers: SIGNED_IN })
  deleted = true
  t.same(calls(upstream.requests), ['/reauthenticate', '/account/delete'])
  t.same(bodyOf(upstream.requests[1]), { confirmEmail: 'ada@example.com' })
  t.equal(posted.statusCode, 303)
  t.equal(posted.headers.location, '/')
  const lines = setCookies(posted.headers)
  t.ok(lines.some((line) => line.startsWith('refresh=;') && line.includes('Max-Age=0')))
  t.ok(lines.some((line) => line.startsWith('auth=;') && line.includes('Max-Age=0')))

  const again = await postForm(app, { form: 'account-delete', currentPassword: 'the password', confirmEmail: 'ada@example.com' }, { query: `${QUERY}&again=1`, headers: SIGNED_IN })
  t.equal(again.statusCode, 303)
  t.equal(again.headers.location, '/?redirect=%2F%3Fview%3Daccount')
})

t.test('without a session the forms ask for a sign-in and call nothing; from another site they are refused', async (t) => {
  const { app, upstream } = await edgeAnswering(t)
  const anonymous = await postForm(app, { form: 'account-end-others' }, { query: QUERY })
  t.equal(anonymous.statusCode, 303)
  t.equal(anonymous.headers.location, '/?redirect=%2F%3Fview%3Daccount')

  const forged = await postForm(app, { form: 'account-delete', currentPassword: 'x', confirmEmail: 'ada@example.com' }, {
    query: QUERY, headers: { ...SIGNED_IN, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example.net' }
  })
  t.equal(forged.statusCode, 403)
  t.equal(upstream.requests.length, 0)
})

t.test('at the reference service, "sign out everywhere else" ends the other browser\'s session and keeps this one', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'twice@example.test')
  const here = await loginTokens(base, 'twice@example.test')
  const there = await loginTokens(base, 'twice@example.test')
  const response = await fetch(`${base}/?view=account`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: base, cookie: `auth=${here.auth}; refresh=${here.refresh}` },
    body: 'form=account-end-others'
  })
  t.equal(response.status, 303)
  t.equal(response.headers.get('location'), '/?view=account')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: there.refresh })).status, 401, 'the other browser is signed out')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: here.refresh })).status, 200, 'this one stays signed in')
})
