import t, { type Test } from 'tap'
import { addPasskey, signedInOwner, type SignedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { logCollector, startReference, type LogCollector, type Reference } from '../../../fixtures/servers/reference.js'

/*
 * `passkeys/rename`, called straight on the reference service (the edge's
 * forwarding of the account view's calls is its own part), replayed as the
 * attacks the rule of docs/account-changes.md stops: a token without a
 * fresh proof, another account's passkey id, names that hide what they say.
 */

interface Setup {
  readonly reference: Reference
  readonly logs: LogCollector
  readonly ada: SignedInOwner
  readonly passkeyId: string
}

async function setUp (t: Test): Promise<Setup> {
  const logs = logCollector()
  const reference = await startReference(t, { logStream: logs.stream })
  const ada = await signedInOwner(reference, 'ada@example.com')
  const added = await addPasskey(ada)
  if (added.status !== 200) throw new Error(`passkey: ${added.status}`)
  return { reference, logs, ada, passkeyId: added.id }
}

const nameOf = async (setup: Setup, id: string): Promise<string | null | undefined> => (await setup.reference.services.store.findPasskey(id))?.name

t.test('the owner names her passkey, trimmed; the log holds the event but not her words', async (t) => {
  const setup = await setUp(t)
  const renamed = await setup.ada.browser.postToService(setup.reference, 'passkeys/rename', { id: setup.passkeyId, name: '  Work laptop  ' }, setup.ada.bearer)
  t.same([renamed.status, Object.keys(renamed.body)], [200, ['success']])
  t.equal(await nameOf(setup, setup.passkeyId), 'Work laptop')
  const listed = await setup.ada.browser.postToService(setup.reference, 'passkeys/list', {}, setup.ada.bearer)
  t.equal((listed.body.passkeys as Array<{ name: string }>)[0]!.name, 'Work laptop', 'the list shows the new name')
  t.ok(setup.logs.lines.some((line) => line.audit === 'passkey.renamed'))
  t.notMatch(setup.logs.text(), /Work laptop/, 'the name is not logged')
})

t.test('a token without this browser\'s fresh proof renames nothing', async (t) => {
  const setup = await setUp(t)
  const before = await nameOf(setup, setup.passkeyId)
  // Whoever read Ada's auth cookie holds her token, and nothing else.
  const attacker = new PasskeyBrowser(setup.reference.base)
  const refused = await attacker.postToService(setup.reference, 'passkeys/rename', { id: setup.passkeyId, name: 'Ada\'s old phone' }, setup.ada.bearer)
  t.equal(refused.status, 403)
  t.match(refused.body, { reason: 'fresh_proof_required', proof_methods: ['password', 'passkey', 'sign_in'] })
  t.equal(await nameOf(setup, setup.passkeyId), before, 'the name is as it was')
  const signedOut = await attacker.postToService(setup.reference, 'passkeys/rename', { id: setup.passkeyId, name: 'x' })
  t.same([signedOut.status, signedOut.body.reason], [401, 'signed_out'], 'and without the token: signed out')
})

t.test('another account\'s passkey id is answered as an unknown one, and keeps its name', async (t) => {
  const setup = await setUp(t)
  const before = await nameOf(setup, setup.passkeyId)
  const bob = await signedInOwner(setup.reference, 'bob@example.com')
  const foreign = await bob.browser.postToService(setup.reference, 'passkeys/rename', { id: setup.passkeyId, name: 'Mine now' }, bob.bearer)
  const unknown = await bob.browser.postToService(setup.reference, 'passkeys/rename', { id: 'bm90LWhlcmU', name: 'Mine now' }, bob.bearer)
  t.equal(foreign.status, 404, 'Bob, with a fresh proof of his own account, cannot rename Ada\'s passkey')
  t.same(foreign.body, unknown.body, 'the same answer as for an id nobody has: nothing tells them apart')
  t.equal(await nameOf(setup, setup.passkeyId), before)
  t.match(setup.logs.lines.findLast((line) => line.audit === 'passkey.rename.refused'), { reason: 'unknown' })
})

t.test('a name of 1 to 64 characters after trimming, without controls or direction overrides, is the only one taken', async (t) => {
  const setup = await setUp(t)
  const rename = async (body: unknown) => await setup.ada.browser.postToService(setup.reference, 'passkeys/rename', body, setup.ada.bearer)
  const refusals: Array<[string, unknown]> = [
    ['an empty name', { id: setup.passkeyId, name: '' }],
    ['spaces only', { id: setup.passkeyId, name: '   ' }],
    ['65 characters', { id: setup.passkeyId, name: 'k'.repeat(65) }],
    ['a line break', { id: setup.passkeyId, name: 'Phone\nAdmin' }],
    ['a NUL', { id: setup.passkeyId, name: 'Phone\u0000' }],
    ['a right-to-left override', { id: setup.passkeyId, name: 'Phone \u202egnp.exe' }],
    ['a name that is not text', { id: setup.passkeyId, name: 42 }],
    ['no name', { id: setup.passkeyId }],
    ['an id that is no credential id', { id: 'no such id!', name: 'Phone' }],
    ['no id', { name: 'Phone' }]
  ]
  const before = await nameOf(setup, setup.passkeyId)
  for (const [what, body] of refusals) {
    const refused = await rename(body)
    t.equal(refused.status, 400, `${what}: 400`)
    t.type(refused.body.error, 'string', `${what}: a text says why`)
  }
  t.match((await rename({ id: setup.passkeyId, name: 'k'.repeat(65) })).body.error, /64/, 'the text names the limit')
  t.equal(await nameOf(setup, setup.passkeyId), before, 'no refused name was kept')

  const emoji = '🔑'.repeat(64)
  t.equal((await rename({ id: setup.passkeyId, name: emoji })).status, 200, '64 characters, counted as characters rather than UTF-16 units')
  t.equal(await nameOf(setup, setup.passkeyId), emoji)
  t.equal((await rename({ id: setup.passkeyId, name: 'Ordinateur de Zoé' })).status, 200)
  t.equal(await nameOf(setup, setup.passkeyId), 'Ordinateur de Zoé')
})
