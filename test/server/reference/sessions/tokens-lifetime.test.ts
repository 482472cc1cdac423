import t, { type Test } from 'tap'
import { DEFAULT_SESSION_SETTINGS } from '../../../../server/reference/config.js'
import { hashToken } from '../../../../server/reference/sessions/tokens.js'
import { Clock } from '../../../fixtures/account-changes/account-changes.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'

const ENDED = { error: 'Your session has ended. Please log in again.' }
const GRACE_SECONDS = DEFAULT_SESSION_SETTINGS.reuseGraceSeconds
const DAY_MS = 86_400_000

interface Pair { readonly auth: string, readonly refresh: string }

async function refresh (base: string, token: string): Promise<{ status: number, body: Record<string, unknown> }> {
  return await postJson(base, '/accounts/token/refresh', { refresh: token })
}

async function refreshed (t: Test, base: string, token: string, what: string): Promise<Pair> {
  const answer = await refresh(base, token)
  t.equal(answer.status, 200, what)
  return answer.body as unknown as Pair
}

/** A reference service on a clock the test moves, with `email` registered and signed in once. */
async function signedIn (t: Test, email: string, env: Record<string, string> = {}) {
  const clock = new Clock()
  const logs = logCollector()
  const reference = await startReference(t, { now: clock.now, env, logStream: logs.stream })
  await registerAccount(reference.base, email)
  const first = await loginTokens(reference.base, email)
  return { ...reference, clock, logs, first }
}

t.test('three refreshes at once with one token all succeed, and each new token refreshes again', async (t) => {
  const { base, services, first } = await signedIn(t, 'parallel@example.com')
  const answers = await Promise.all([1, 2, 3].map(async () => await refresh(base, first.refresh)))
  t.same(answers.map((answer) => answer.status), [200, 200, 200])
  const pairs = answers.map((answer) => answer.body as unknown as Pair)
  t.equal(new Set(pairs.map((pair) => pair.refresh)).size, 3, 'three different refresh tokens')
  const family = (await services.store.findRefreshToken(hashToken(first.refresh)))!.familyId
  for (const pair of pairs) {
    t.equal((await services.store.findRefreshToken(hashToken(pair.refresh)))?.familyId, family, 'each is a sibling in the session\'s family')
  }
  for (const [index, pair] of pairs.entries()) await refreshed(t, base, pair.refresh, `sibling ${index + 1} refreshes`)
})

t.test('a used token presented again within the grace gets a sibling, and both successors work', async (t) => {
  const { base, clock, logs, first } = await signedIn(t, 'retry@example.com')
  const lost = await refreshed(t, base, first.refresh, 'the first refresh (its answer lost on the way)')
  clock.passSeconds(GRACE_SECONDS - 1)
  const retried = await refreshed(t, base, first.refresh, 'the retry with the only token the client holds')
  t.not(retried.refresh, lost.refresh, 'a new sibling: only hashes are kept, so the lost one cannot be answered again')
  await refreshed(t, base, retried.refresh, 'the sibling refreshes')
  await refreshed(t, base, lost.refresh, 'the lost successor still works for whoever holds it')
  t.notOk(auditEvents(logs).includes('token.reuse-detected'), 'no theft is logged')
})

t.test('a used token presented after the grace revokes the whole family, siblings too, and the theft is logged', async (t) => {
  const { base, clock, logs, first } = await signedIn(t, 'late@example.com')
  const successor = await refreshed(t, base, first.refresh, 'the first refresh')
  const sibling = await refreshed(t, base, first.refresh, 'a retry within the grace')
  clock.passSeconds(GRACE_SECONDS)
  const reused = await refresh(base, first.refresh)
  t.same([reused.status, reused.body], [401, ENDED], 'refused')
  for (const [name, pair] of Object.entries({ successor, sibling })) {
    const answer = await refresh(base, pair.refresh)
    t.same([answer.status, answer.body], [401, ENDED], `the ${name} is revoked`)
  }
  t.ok(auditEvents(logs).includes('token.reuse-detected'))
})

t.test('with REFRESH_REUSE_GRACE_SECONDS=0 a second presentation is theft at once, as before the grace', async (t) => {
  const { base, first } = await signedIn(t, 'no-grace@example.com', { REFRESH_REUSE_GRACE_SECONDS: '0' })
  const successor = await refreshed(t, base, first.refresh, 'the first refresh')
  t.same((await refresh(base, first.refresh)).body, ENDED, 'the retry is refused')
  t.same((await refresh(base, successor.refresh)).body, ENDED, 'and the successor is revoked')

  const again = await loginTokens(base, 'no-grace@example.com')
  const answers = await Promise.all([1, 2, 3].map(async () => await refresh(base, again.refresh)))
  t.same(answers.map((answer) => answer.status).sort(), [200, 401, 401], 'of three at once, one succeeds')
})

t.test('the grace never revives a family ended by a logout or a password reset', async (t) => {
  const { base, dataDir, first } = await signedIn(t, 'ended@example.com')
  const successor = await refreshed(t, base, first.refresh, 'the first refresh')
  t.equal((await postJson(base, '/accounts/token/revoke', { refresh: successor.refresh })).status, 200, 'logged out')
  t.same((await refresh(base, first.refresh)).body, ENDED, 'the used token is refused within the grace after a logout')

  const reset = await loginTokens(base, 'ended@example.com')
  await refreshed(t, base, reset.refresh, 'another session refreshes')
  await postJson(base, '/accounts/resetPasswordRequest', { email: 'ended@example.com' })
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  const changed = await postJson(base, '/accounts/resetPassword', { token, password: 'a brand new passphrase', confirm_password: 'a brand new passphrase' })
  t.equal(changed.status, 200, 'the password was reset')
  t.same((await refresh(base, reset.refresh)).body, ENDED, 'the used token is refused within the grace after a reset')
})

t.test('a session ends at its maximum lifetime however often it is refreshed, and the family is revoked', async (t) => {
  const { base, clock, services, first } = await signedIn(t, 'lifetime@example.com', { SESSION_MAX_LIFETIME_DAYS: '20', SESSION_IDLE_TIMEOUT_DAYS: '8' })
  clock.passDays(7)
  const week = await refreshed(t, base, first.refresh, 'refreshed after a week')
  clock.passDays(7)
  const fortnight = await refreshed(t, base, week.refresh, 'refreshed after two weeks')
  const record = await services.store.findRefreshToken(hashToken(fortnight.refresh))
  t.equal(record!.expiresAt, clock.now() + 6 * DAY_MS, 'its token expires with the session on day 20, not a full idle timeout later')
  clock.passDays(5)
  const late = await refreshed(t, base, fortnight.refresh, 'refreshed on day 19')
  clock.passDays(1)
  const ended = await refresh(base, late.refresh)
  t.same([ended.status, ended.body], [401, ENDED], 'refused on day 20')
  t.equal(await services.tokens.isSessionLive(record!.familyId), false, 'the session is over')
  t.ok((await services.store.findRefreshToken(hashToken(late.refresh)))?.revokedAt, 'its family is revoked')
})

t.test('a session not refreshed for its idle timeout ends, though its maximum lifetime has not passed', async (t) => {
  const { base, clock, first } = await signedIn(t, 'idle@example.com')
  clock.passDays(DEFAULT_SESSION_SETTINGS.idleTimeoutDays)
  t.same((await refresh(base, first.refresh)).body, ENDED)
})

t.test('a sign-in after a session ended starts a new one with a full lifetime', async (t) => {
  const { base, clock } = await signedIn(t, 'again@example.com', { SESSION_MAX_LIFETIME_DAYS: '1' })
  clock.passDays(1)
  const next = await loginTokens(base, 'again@example.com', GOOD_PASSWORD)
  clock.passSeconds(60)
  await refreshed(t, base, next.refresh, 'the new session refreshes')
})
