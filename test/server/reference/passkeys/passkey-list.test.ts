import t from 'tap'
import { addPasskey, passkeySignIn, signedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { startReference } from '../../../fixtures/servers/reference.js'

/*
 * `passkeys/list`, called straight on the reference service (the edge's
 * forwarding of the account view's calls is its own part): what the owner's
 * account view shows of her passkeys, and nothing of anyone else's.
 */

t.test('the owner lists her passkeys oldest first, with their names, times and backup state, and never their keys', async (t) => {
  const reference = await startReference(t)
  const ada = await signedInOwner(reference, 'ada@example.com')
  const first = await addPasskey(ada)
  const second = await addPasskey(ada)
  t.same([first.status, second.status], [200, 200])
  t.equal(await passkeySignIn(ada, second.id), 200, 'the second one signs in once')

  const listed = await ada.browser.postToService(reference, 'passkeys/list', {}, ada.bearer)
  t.equal(listed.status, 200)
  const passkeys = listed.body.passkeys as Array<Record<string, unknown>>
  t.same(passkeys.map((passkey) => passkey.id), [first.id, second.id], 'oldest first')
  for (const passkey of passkeys) {
    t.same(Object.keys(passkey).sort(), ['backedUp', 'createdAt', 'id', 'lastUsedAt', 'name'], 'these fields only: no public key, no counter')
    t.type(passkey.createdAt, 'number')
    t.type(passkey.backedUp, 'boolean')
  }
  const stored = await reference.services.store.listPasskeys((await reference.services.store.findAccountByEmail('ada@example.com'))!.id)
  t.same(passkeys.map((passkey) => passkey.name), stored.map((passkey) => passkey.name), 'the names the registrations gave')
  t.equal(passkeys[0]!.lastUsedAt, null, 'never used to sign in')
  t.type(passkeys[1]!.lastUsedAt, 'number', 'used once')
})

t.test('the list names the account\'s user handle, the one a passkey sign-in answers, and not another account\'s', async (t) => {
  const reference = await startReference(t)
  const ada = await signedInOwner(reference, 'ada@example.com')
  const added = await addPasskey(ada)
  t.equal(added.status, 200)
  const options = await ada.browser.loginOptions()
  const signedIn = await ada.browser.post('passkeys/login', { credential: ada.authenticator.get(options, {}) })
  t.equal(signedIn.status, 200)
  t.match(signedIn.body.user_id, /^[A-Za-z0-9_-]{22}$/, 'a base64url handle')

  const listed = await ada.browser.postToService(reference, 'passkeys/list', {}, ada.bearer)
  t.equal(listed.body.user_id, signedIn.body.user_id, 'the handle the sign-in named, for the Signal API')
  const bob = await signedInOwner(reference, 'bob@example.com')
  const bobs = await bob.browser.postToService(reference, 'passkeys/list', {}, bob.bearer)
  t.match(bobs.body.user_id, /^[A-Za-z0-9_-]{22}$/)
  t.not(bobs.body.user_id, listed.body.user_id, 'each account its own')
})

t.test('another account lists only its own passkeys, and a token without a live session lists none', async (t) => {
  const reference = await startReference(t)
  const ada = await signedInOwner(reference, 'ada@example.com')
  t.equal((await addPasskey(ada)).status, 200)
  const bob = await signedInOwner(reference, 'bob@example.com')

  const bobs = await bob.browser.postToService(reference, 'passkeys/list', {}, bob.bearer)
  t.same([bobs.status, bobs.body.passkeys], [200, []], 'none of Ada\'s')

  const stranger = new PasskeyBrowser(reference.base)
  const signedOut = await stranger.postToService(reference, 'passkeys/list', {})
  t.same([signedOut.status, signedOut.body.reason], [401, 'signed_out'], 'no token')
  const forged = await stranger.postToService(reference, 'passkeys/list', {}, { authorization: 'Bearer not.a.token' })
  t.same([forged.status, forged.body.reason], [401, 'signed_out'], 'a forged token')

  t.equal((await postJson(reference.base, '/accounts/token/revoke', { refresh: ada.refresh })).status, 200, 'Ada signs out')
  const ended = await stranger.postToService(reference, 'passkeys/list', {}, ada.bearer)
  t.same([ended.status, ended.body.reason], [401, 'session_ended'], 'her token, read before, lists nothing once her session has ended')
})
