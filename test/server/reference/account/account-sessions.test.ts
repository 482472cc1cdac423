import { decodeJwt } from 'jose'
import t, { type Test } from 'tap'
import { CHROME_ON_WINDOWS, Clock, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { logCollector, startReference, type Reference } from '../../../fixtures/servers/reference.js'

/*
 * `sessions/list` and `sessions/end` (docs/account-changes.md): the owner sees
 * where her account is signed in and signs one of those sessions out, at
 * once. Replayed as the cases they answer: someone else is signed in to her
 * account in another browser; someone tries to end another account's session.
 */

const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'

async function setUp (t: Test) {
  const logs = logCollector()
  const clock = new Clock()
  // The edge states the client address it was given (X-Forwarded-For), as behind a proxy.
  const reference = await startReference(t, { logStream: logs.stream, now: clock.now, edgeEnv: { TRUST_PROXY: 'loopback' } })
  return { reference, logs, clock }
}

const from = (userAgent: string, address: string, language = 'en') => ({ headers: { 'user-agent': userAgent, 'x-forwarded-for': address, 'accept-language': language } })
const refresh = async (reference: Reference, token: string) => await postJson(reference.base, '/accounts/token/refresh', { refresh: token })
const sessionIdOf = (bearer: { authorization: string }): string => String(decodeJwt(bearer.authorization.slice('Bearer '.length)).sid)

t.test('the owner sees each of her sessions: this one marked, the browser, the range of its address, how it signed in', async (t) => {
  const { reference, clock } = await setUp(t)
  const owner = await signedInOwner(reference, 'ada@example.com', from(FIREFOX_ON_LINUX, '203.0.113.9'))
  clock.passSeconds(60)
  const other = await signedInOwner(reference, 'ada@example.com', { ...from(CHROME_ON_WINDOWS, '2001:db8:1:2::7'), registered: true })
  await signedInOwner(reference, 'bo@example.com', from(CHROME_ON_WINDOWS, '198.51.100.1'))

  const listed = await owner.browser.post('sessions/list', {}, owner.bearer)
  t.equal(listed.status, 200)
  const sessions = listed.body.sessions as Array<Record<string, unknown>>
  t.equal(sessions.length, 2, 'her two sessions, none of Bo\'s')
  t.match(sessions[0], { id: sessionIdOf(other.bearer), current: false, browser: 'Chrome on Windows', addressRange: '2001:db8:1::/48', method: 'password' },
    'the most recently used first')
  t.match(sessions[1], { id: sessionIdOf(owner.bearer), current: true, browser: 'Firefox on Linux', addressRange: '203.0.113.0/24', method: 'password' })
  t.same(sessions.map((session) => [session.signedInAt, session.lastUsedAt]), [[clock.value, clock.value], [clock.value - 60_000, clock.value - 60_000]],
    'each last used when it signed in, as none has refreshed yet')
  t.notMatch(JSON.stringify(listed.body), /203\.0\.113\.9|2001:db8:1:2::7/, 'no full address')

  // A refresh is a use: that session moves to the top.
  clock.passSeconds(60)
  t.equal((await refresh(reference, owner.refresh)).status, 200)
  const after = (await owner.browser.post('sessions/list', {}, owner.bearer)).body.sessions as Array<Record<string, unknown>>
  t.match(after[0], { id: sessionIdOf(owner.bearer), signedInAt: clock.value - 120_000, lastUsedAt: clock.value }, 'the session just refreshed comes first')
})

t.test('the browser is named in the language the call asks for', async (t) => {
  const { reference } = await setUp(t)
  const owner = await signedInOwner(reference, 'ada@example.com', from(FIREFOX_ON_LINUX, '203.0.113.9', 'de'))
  await signedInOwner(reference, 'ada@example.com', { headers: { 'user-agent': 'curl/8.5.0' }, registered: true })
  const sessions = (await owner.browser.post('sessions/list', {}, owner.bearer)).body.sessions as Array<Record<string, unknown>>
  t.same(sessions.map((session) => session.browser).sort(), ['Firefox unter Linux', 'Unbekannter Browser'])
})

t.test('ending another session of hers ends it at once; her own goes on', async (t) => {
  const { reference, logs } = await setUp(t)
  const owner = await signedInOwner(reference, 'ada@example.com', from(FIREFOX_ON_LINUX, '203.0.113.9'))
  const intruder = await signedInOwner(reference, 'ada@example.com', { ...from(CHROME_ON_WINDOWS, '198.51.100.7'), registered: true })
  owner.browser.forget('threshold_proof')
  const ended = await owner.browser.post('sessions/end', { id: sessionIdOf(intruder.bearer) }, owner.bearer)
  t.same([ended.status, ended.body], [200, { success: 'That session has been signed out.' }], 'a live session is enough, no fresh proof')

  t.equal((await refresh(reference, intruder.refresh)).status, 401, 'the ended session\'s refresh token is refused at once')
  const change = await intruder.browser.post('sessions/list', {}, intruder.bearer)
  t.same([change.status, change.body.reason], [401, 'session_ended'], 'its auth token reads nothing any more')
  const left = (await owner.browser.post('sessions/list', {}, owner.bearer)).body.sessions as Array<Record<string, unknown>>
  t.same(left.map((session) => session.id), [sessionIdOf(owner.bearer)], 'it is no longer listed')
  t.equal((await refresh(reference, owner.refresh)).status, 200, 'the owner\'s own session goes on')
  t.match(logs.lines.findLast((line) => line.audit === 'sessions.ended'), { current: false })
})

t.test('another account\'s session id is refused as an unknown one, and that session goes on', async (t) => {
  const { reference, logs } = await setUp(t)
  const attacker = await signedInOwner(reference, 'mallory@example.com')
  const victim = await signedInOwner(reference, 'ada@example.com')
  const refused = await attacker.browser.post('sessions/end', { id: sessionIdOf(victim.bearer) }, attacker.bearer)
  t.same([refused.status, refused.body], [404, { error: 'This account has no such session. It may have ended already.' }])
  const unknown = await attacker.browser.post('sessions/end', { id: 'no-such-session' }, attacker.bearer)
  t.same([unknown.status, unknown.body], [404, refused.body], 'the same answer as for an id that is no session at all')
  t.equal((await refresh(reference, victim.refresh)).status, 200, 'the victim\'s session lives on')
  t.match(logs.lines.findLast((line) => line.audit === 'sessions.end.refused'), { reason: 'unknown' })
})

t.test('ending the current session signs this browser out', async (t) => {
  const { reference } = await setUp(t)
  const owner = await signedInOwner(reference, 'ada@example.com')
  const ended = await owner.browser.post('sessions/end', { id: sessionIdOf(owner.bearer) }, owner.bearer)
  t.equal(ended.status, 200)
  t.equal((await refresh(reference, owner.refresh)).status, 401, 'its refresh token is refused')
  const again = await owner.browser.post('sessions/end', { id: sessionIdOf(owner.bearer) }, owner.bearer)
  t.same([again.status, again.body.reason], [401, 'session_ended'], 'and its auth token ends nothing more')
})

t.test('a call without a live session or without a session id is refused, and ends nothing', async (t) => {
  const { reference } = await setUp(t)
  const owner = await signedInOwner(reference, 'ada@example.com')
  const id = sessionIdOf(owner.bearer)
  const unsigned = await postJson(reference.base, '/accounts/sessions/end', { id })
  t.same([unsigned.status, unsigned.body], [401, { error: 'Please sign in again to sign out a session.', reason: 'signed_out' }])
  const forged = await postJson(reference.base, '/accounts/sessions/list', {}, { authorization: 'Bearer not.a.token' })
  t.same([forged.status, forged.body], [401, { error: 'Please sign in again to see your account.', reason: 'signed_out' }])
  for (const body of [{}, { id: 42 }, { id: '' }, { id: 'x'.repeat(101) }, { id: '../../etc' }, []]) {
    const refused = await owner.browser.post('sessions/end', body, owner.bearer)
    t.same([refused.status, refused.body], [400, { error: 'Choose a session to sign out.' }], JSON.stringify(body))
  }
  t.equal((await refresh(reference, owner.refresh)).status, 200, 'the session lives on')
})
