import t from 'tap'
import { LAST_WAY_IN_REASON } from '../../../../common/social/social-answers.js'
import { accountsLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { GOOD_PASSWORD } from '../../../fixtures/servers/reference.js'
import { OAUTH2_PROVIDER, OIDC_PROVIDER, startSocialStack, type SocialStack } from '../../../fixtures/social/social-stack.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'

/*
 * The account view's social calls (docs/social-sign-in.md, "From the
 * account"): link after a fresh proof, unlink while another way in remains.
 */

/** Links `login` at the OAuth 2.0 stand-in to the account signed in as `auth` in `browser`: the link call's answer. */
async function linkForge (stack: SocialStack, browser: TestBrowser, auth: string, login: string) {
  const started = await stack.post(browser, 'account/social/link/start', { provider: OAUTH2_PROVIDER }, auth)
  if (typeof started.body.url !== 'string') throw new Error(`the link did not start: ${started.status} ${JSON.stringify(started.body)}`)
  const landing = await stack.oauth2Leg(browser, started.body.url, login)
  t.equal(landing.params.get('view'), 'account', 'back on the account view')
  t.equal(landing.params.get('social_link'), OAUTH2_PROVIDER)
  return await stack.post(browser, 'account/social/link', { id: landing.params.get('id') }, auth)
}

t.test('linking from the account: a fresh proof first; then the link, an email, an activity entry, and the overview lists it', async (t) => {
  const stack = await startSocialStack(t)
  stack.oauth2.users.set('ada-forge', { sub: 'ada-forge', email: 'ada@forge.test', email_verified: true })
  const browser = new TestBrowser()
  await stack.register(browser, 'ada@example.test')
  const auth = await stack.signIn(browser, 'ada@example.test')
  const stale = new TestBrowser()
  const refused = await stack.post(stale, 'account/social/link/start', { provider: OAUTH2_PROVIDER }, auth)
  t.equal(refused.status, 403, 'a bearer token alone, without this browser\'s fresh proof, is not enough')
  t.equal(refused.body.reason, 'fresh_proof_required')

  const linked = await linkForge(stack, browser, auth, 'ada-forge')
  t.equal(linked.status, 200)
  t.match(linked.body.success, /Forge is connected/)
  const account = await stack.services.store.findAccountByEmail('ada@example.test')
  t.equal((await stack.services.store.socialLinks.find(OAUTH2_PROVIDER, 'ada-forge'))?.accountId, account!.id)
  const notice = await waitForEmail(stack.dataDir, 1, 'socialLinked')
  t.match(notice.decoded, /A Forge account was connected to your/)
  const overview = await stack.post(browser, 'account/overview', {}, auth)
  t.ok((overview.body.features as string[]).includes('social'))
  t.same((overview.body.social as Array<Record<string, unknown>>).map(({ provider, email }) => [provider, email]),
    [[OIDC_PROVIDER, null], [OAUTH2_PROVIDER, 'ada@forge.test']], 'every connection in order, linked or not')
  t.ok(stack.auditEvents().some((entry) => entry.audit === 'social.linked'))

  // The linked identity now signs into this account, whatever its address.
  const elsewhere = new TestBrowser()
  const signedIn = await stack.complete(elsewhere, await stack.oauth2Leg(elsewhere, await stack.socialUrl(elsewhere, OAUTH2_PROVIDER), 'ada-forge'))
  t.equal((await stack.services.tokens.verifyAuthToken(String(signedIn.body.auth)))?.accountId, account!.id)
})

t.test('an identity linked to another account, or a second one of the same provider, is refused (409)', async (t) => {
  const stack = await startSocialStack(t)
  stack.oauth2.users.set('shared', { sub: 'shared', email: 'shared@forge.test', email_verified: true })
  stack.oauth2.users.set('second', { sub: 'second', email: 'second@forge.test', email_verified: true })
  const ada = new TestBrowser()
  await stack.register(ada, 'ada@example.test')
  const adaAuth = await stack.signIn(ada, 'ada@example.test')
  t.equal((await linkForge(stack, ada, adaAuth, 'shared')).status, 200)
  const bob = new TestBrowser()
  await stack.register(bob, 'bob@example.test')
  const bobAuth = await stack.signIn(bob, 'bob@example.test')
  const taken = await linkForge(stack, bob, bobAuth, 'shared')
  t.equal(taken.status, 409)
  t.match(taken.body.error, /connected to another account/)
  const second = await linkForge(stack, ada, adaAuth, 'second')
  t.equal(second.status, 409)
  t.match(second.body.error, /connected already/)
  const bobId = (await stack.services.store.findAccountByEmail('bob@example.test'))!.id
  t.same(await stack.services.store.socialLinks.list(bobId), [])
})

t.test('a link started by one account cannot be completed by another', async (t) => {
  const stack = await startSocialStack(t)
  stack.oauth2.users.set('eve-forge', { sub: 'eve-forge', email: 'eve@forge.test', email_verified: true })
  const browser = new TestBrowser()
  await stack.register(browser, 'eve@example.test')
  await stack.register(browser, 'ann@example.test')
  const eveAuth = await stack.signIn(browser, 'eve@example.test')
  const started = await stack.post(browser, 'account/social/link/start', { provider: OAUTH2_PROVIDER }, eveAuth)
  const landing = await stack.oauth2Leg(browser, String(started.body.url), 'eve-forge')
  const annAuth = await stack.signIn(browser, 'ann@example.test')
  const answer = await stack.post(browser, 'account/social/link', { id: landing.params.get('id') }, annAuth)
  t.equal(answer.status, 401)
  t.equal(await stack.services.store.socialLinks.find(OAUTH2_PROVIDER, 'eve-forge'), null)
})

t.test('unlinking needs a fresh proof, and is refused when it is the last way in; allowed once another remains', async (t) => {
  const stack = await startSocialStack(t, { env: { EMAIL_CODES: 'false' } })
  stack.oidc.users.set('solo', { email: 'solo@example.test', email_verified: true })
  stack.oauth2.users.set('solo-forge', { sub: 'solo-forge', email: 'solo@forge.test', email_verified: true })
  const browser = new TestBrowser()
  const landing = await stack.oidcLeg(browser, await stack.socialUrl(browser, OIDC_PROVIDER), 'solo')
  const auth = String((await stack.complete(browser, landing)).body.auth)
  t.equal((await stack.post(new TestBrowser(), 'account/social/unlink', { provider: OIDC_PROVIDER }, auth)).status, 403, 'no fresh proof in another browser')

  const last = await stack.post(browser, 'account/social/unlink', { provider: OIDC_PROVIDER }, auth)
  t.equal(last.status, 409)
  t.equal(last.body.reason, LAST_WAY_IN_REASON)
  t.match(last.body.error, /GitLab is the only way to sign in/)
  const account = await stack.services.store.findAccountByEmail('solo@example.test')
  t.equal((await stack.services.store.socialLinks.list(account!.id)).length, 1, 'still linked')

  t.equal((await linkForge(stack, browser, auth, 'solo-forge')).status, 200)
  const unlinked = await stack.post(browser, 'account/social/unlink', { provider: OIDC_PROVIDER }, auth)
  t.equal(unlinked.status, 200, 'another provider still signs in')
  t.same((await stack.services.store.socialLinks.list(account!.id)).map((link) => link.provider), [OAUTH2_PROVIDER])
  await waitForEmail(stack.dataDir, 1, 'socialUnlinked')
  t.equal((await stack.post(browser, 'account/social/unlink', { provider: OIDC_PROVIDER }, auth)).status, 404, 'not linked any more')
  t.ok(stack.auditEvents().some((entry) => entry.audit === 'social.unlinked'))
  // Kept after the answer (server/reference/account/security-events.ts): asked until it is there.
  let kinds: string[] = []
  for (let tries = 0; tries < 50 && !kinds.includes('social-unlinked'); tries++) {
    kinds = ((await stack.post(browser, 'activity/list', {}, auth)).body.events as Array<{ kind: string }>).map((event) => event.kind)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.ok(kinds.includes('social-linked') && kinds.includes('social-unlinked'), `the activity lists the link and the unlink (${kinds.join(', ')})`)
  t.ok(kinds.indexOf('social-unlinked') < kinds.indexOf('social-linked'), 'newest first')
})

t.test('"this wasn\'t me" under a link\'s email removes the link it announced', async (t) => {
  const stack = await startSocialStack(t)
  stack.oauth2.users.set('intruder', { sub: 'intruder', email: 'intruder@forge.test', email_verified: true })
  const browser = new TestBrowser()
  await stack.register(browser, 'uma@example.test')
  const auth = await stack.signIn(browser, 'uma@example.test')
  t.equal((await linkForge(stack, browser, auth, 'intruder')).status, 200)
  const { token } = accountsLinkOf(await waitForEmail(stack.dataDir, 1, 'socialLinked'), 'undoChange')
  const owner = new TestBrowser()
  const answer = await stack.post(owner, 'resetPassword', { token, password: `${GOOD_PASSWORD} anew`, confirm_password: `${GOOD_PASSWORD} anew` })
  t.equal(answer.status, 200, JSON.stringify(answer.body))
  t.equal(await stack.services.store.socialLinks.find(OAUTH2_PROVIDER, 'intruder'), null, 'the link is gone')
})
