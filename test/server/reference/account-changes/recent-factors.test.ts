import t from 'tap'
import { REVIEW_TOKEN_TTL_MS } from '../../../../server/reference/account-changes/recent-factors.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { addPasskey, Clock, enrolAuthenticator, passkeySignIn, signedInOwner, type SignedInOwner } from '../../../fixtures/account-changes/account-changes.js'

/*
 * After a completed reset (the end of "was this you?" and "this wasn't me"
 * too), the owner sees what was added to her account in the last 30 days
 * and removes what was not hers, one item at a time, with the answer's
 * review token; the token removes nothing else.
 */

/** Asks for a reset link and completes it: the resetPassword answer. */
async function resetPassword (base: string, dataDir: string, email: string, resetsSoFar: number) {
  t.equal((await postJson(base, '/accounts/resetPasswordRequest', { email })).status, 200)
  const { token } = resetLinkOf(await waitForEmail(dataDir, resetsSoFar + 1, 'reset'))
  return await postJson(base, '/accounts/resetPassword', { token, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
}

const remove = (base: string, body: Record<string, unknown>) => postJson(base, '/accounts/recentFactors/remove', body)

t.test('a completed reset lists the passkey added 10 days ago, not the one added 40 days ago, and removes it in one step', async (t) => {
  const clock = new Clock(40)
  const { base, dataDir } = await startReference(t, { now: clock.now })
  const first = await signedInOwner({ base, dataDir }, 'ada@example.com')
  const old = await addPasskey(first)
  clock.passDays(30)
  const second = await signedInOwner({ base, dataDir }, 'ada@example.com', { registered: true })
  const recent = await addPasskey(second)
  clock.passDays(10)

  const reset = await resetPassword(base, dataDir, 'ada@example.com', 0)
  t.equal(reset.status, 200)
  t.same(reset.body.recent_factors, {
    passkeys: [{ id: recent.id, name: 'an unknown browser', created_at: new Date(clock.value - 10 * 86_400_000).toISOString() }],
    second_factor: null
  })
  const reviewToken = String(reset.body.review_token)
  t.match(reviewToken, /^[\w-]{43}$/)

  t.equal((await remove(base, { review_token: reviewToken, passkey_id: old.id })).status, 404, 'not the one from 40 days ago: it was not listed')
  t.equal((await remove(base, { review_token: reviewToken, second_factor: true })).status, 404, 'nor an app there is none of')
  const removed = await remove(base, { review_token: reviewToken, passkey_id: recent.id })
  t.equal(removed.status, 200)
  t.match(removed.body, { success: /passkey was removed/ })
  t.equal((await remove(base, { review_token: reviewToken, passkey_id: recent.id })).status, 404, 'once')
  t.equal(await passkeySignIn(second, recent.id), 401, 'the removed passkey signs in no more')
  t.equal(await passkeySignIn(first, old.id), 200, 'the older one still does')
})

t.test('the listed authenticator app is removed even where the organisation requires one: the next sign-in enrols anew', async (t) => {
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now })
  const owner = await signedInOwner({ base, dataDir }, 'bea@example.com')
  await enrolAuthenticator(owner, clock)
  const accountId = (await services.store.findAccountByEmail('bea@example.com'))!.id
  await services.store.addMembership(accountId, 'acme')
  await services.store.setOrganizationRequiresSecondFactor('acme', true)
  const enrolledAt = new Date(clock.value).toISOString()
  clock.passDays(2)

  const reset = await resetPassword(base, dataDir, 'bea@example.com', 0)
  t.same(reset.body.recent_factors, { passkeys: [], second_factor: { enrolled_at: enrolledAt } })
  t.equal((await remove(base, { review_token: reset.body.review_token, second_factor: true })).status, 200)
  t.equal(await services.store.findSecondFactor(accountId), null)
  const signIn = await postJson(base, '/accounts/v2/login', { email: 'bea@example.com', password: GOOD_PASSWORD })
  t.equal(signIn.body.second_factor, 'enrol', 'the organisation asks for an app of her own')
})

t.test('a review token removes only its own account\'s list, for 30 minutes; a made-up or malformed request is refused', async (t) => {
  const clock = new Clock()
  const { base, dataDir, services } = await startReference(t, { now: clock.now })
  const owners: Record<string, SignedInOwner> = {}
  const passkeys: Record<string, string> = {}
  for (const name of ['cy', 'dee']) {
    owners[name] = await signedInOwner({ base, dataDir }, `${name}@example.com`)
    passkeys[name] = (await addPasskey(owners[name])).id
  }
  const cyReview = String((await resetPassword(base, dataDir, 'cy@example.com', 0)).body.review_token)
  const deeReview = String((await resetPassword(base, dataDir, 'dee@example.com', 1)).body.review_token)

  t.equal((await remove(base, { review_token: cyReview, passkey_id: passkeys.dee })).status, 404, 'another account\'s passkey')
  const dee = (await services.store.findAccountByEmail('dee@example.com'))!.id
  t.equal((await services.store.listPasskeys(dee)).length, 1, 'stays')
  const afterwards = await addPasskey(await signedInOwner({ base, dataDir }, 'cy@example.com', { registered: true }))
  t.equal((await remove(base, { review_token: cyReview, passkey_id: afterwards.id })).status, 404, 'one added after the list was made is not on it')
  t.equal((await remove(base, { review_token: 'A'.repeat(43), passkey_id: passkeys.cy })).status, 401, 'a made-up token')
  for (const body of [{}, { review_token: cyReview }, { review_token: cyReview, passkey_id: passkeys.cy, second_factor: true },
    { review_token: cyReview, second_factor: 'yes' }, { review_token: 'short', passkey_id: passkeys.cy }]) {
    t.equal((await remove(base, body)).status, 400, JSON.stringify(body).slice(0, 60))
  }

  clock.value += REVIEW_TOKEN_TTL_MS
  t.equal((await remove(base, { review_token: deeReview, passkey_id: passkeys.dee })).status, 401, 'a spent (expired) token')
  t.equal((await services.store.listPasskeys(dee)).length, 1)
})

t.test('a reset with nothing recent to list carries no review token', async (t) => {
  const { base, dataDir } = await startReference(t)
  await signedInOwner({ base, dataDir }, 'eve@example.com')
  const reset = await resetPassword(base, dataDir, 'eve@example.com', 0)
  t.equal(reset.status, 200)
  t.same(Object.keys(reset.body), ['success'])
})
