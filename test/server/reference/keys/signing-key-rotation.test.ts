import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose'
import { existsSync } from 'node:fs'
import { readFile, rm, stat } from 'node:fs/promises'
import t from 'tap'
import { rootSecretFile } from '../../../../server/reference/keys/derived-secrets.js'
import { retiredKeysFile, signingKeyFile } from '../../../../server/reference/keys/signing-key.js'
import { KEY_PUBLISH_AHEAD_MS, rotateSigningKey, RotationRefused } from '../../../../server/reference/keys/signing-key-rotation.js'
import { AUTH_TOKEN_TTL_SECONDS } from '../../../../server/reference/sessions/tokens.js'
import { startReference, temporaryDataDir, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const MINUTE_MS = 60_000

/** A clock the test moves forward; the service reads it to choose its signing key and its key set. */
function movableClock (): { now: () => number, advance: (ms: number) => void } {
  let offset = 0
  return { now: () => Date.now() + offset, advance: (ms) => { offset += ms } }
}

async function keySetOf (base: string): Promise<JSONWebKeySet> {
  return await (await fetch(`${base}/accounts/.well-known/jwks.json`)).json() as JSONWebKeySet
}

/** What a product does: verify an auth token against the key set the service publishes now. */
async function verifiesAgainstKeySet (base: string, token: string, currentDate: Date): Promise<boolean> {
  return jwtVerify(token, createLocalJWKSet(await keySetOf(base)), { issuer: `${TEST_PUBLIC_URL}/accounts`, audience: TEST_PUBLIC_URL, currentDate })
    .then(() => true, () => false)
}

t.test('a rotated key: old tokens still verify, the new key is published before it signs, and the old one leaves once its tokens have expired', async (t) => {
  const clock = movableClock()
  const dataDir = temporaryDataDir(t)
  const reference = await startReference(t, { dataDir, now: clock.now })
  await registerAccount(reference.base, 'rota@example.com')
  const before = (await loginTokens(reference.base, 'rota@example.com')).auth
  const oldKid = decodeProtectedHeader(before).kid
  const rootSecret = await readFile(rootSecretFile(dataDir), 'utf8')

  const rotation = await rotateSigningKey(dataDir, clock.now())
  t.equal(rotation.oldKid, oldKid)
  t.equal((await stat(signingKeyFile(dataDir))).mode & 0o777, 0o600, 'the new key file is private')
  t.equal((await stat(retiredKeysFile(dataDir))).mode & 0o777, 0o600, 'and so is the retired keys file (it holds the old private key until it stops signing)')
  await reference.services.signingKeys.reload() // what the running service does every minute

  t.same((await keySetOf(reference.base)).keys.map((key) => key.kid), [rotation.newKid, oldKid], 'both keys are published at once')
  t.ok(await verifiesAgainstKeySet(reference.base, before, new Date()), 'a token signed before the rotation still verifies')
  const meanwhile = (await loginTokens(reference.base, 'rota@example.com')).auth
  t.equal(decodeProtectedHeader(meanwhile).kid, oldKid, 'until every cached key set has the new key, the old one signs')

  clock.advance(KEY_PUBLISH_AHEAD_MS)
  const after = (await loginTokens(reference.base, 'rota@example.com')).auth
  t.equal(decodeProtectedHeader(after).kid, rotation.newKid, 'then new tokens carry the new kid')
  t.ok(await verifiesAgainstKeySet(reference.base, after, new Date()), 'and verify against the key set')
  t.ok(await verifiesAgainstKeySet(reference.base, meanwhile, new Date()), 'while the last tokens of the old key still do')

  clock.advance(AUTH_TOKEN_TTL_SECONDS * 1000 + 2 * MINUTE_MS)
  t.same((await keySetOf(reference.base)).keys.map((key) => key.kid), [rotation.newKid], 'past its last token\'s expiry, the old key is gone from the key set')
  t.notOk(await verifiesAgainstKeySet(reference.base, meanwhile, new Date(clock.now() - AUTH_TOKEN_TTL_SECONDS * 1000)),
    'and its tokens no longer verify')
  t.equal(await readFile(rootSecretFile(dataDir), 'utf8'), rootSecret, 'the root of the derived secrets (audit pseudonyms, browser cookies) is untouched')
})

t.test('a server started after a rotation picks the keys up: the old key signs until the new one\'s time, then the new one', async (t) => {
  const clock = movableClock()
  const dataDir = temporaryDataDir(t)
  const first = await startReference(t, { dataDir, now: clock.now })
  await registerAccount(first.base, 'restart@example.com')
  const before = (await loginTokens(first.base, 'restart@example.com')).auth
  await first.close()

  const rotation = await rotateSigningKey(dataDir, clock.now())
  const second = await startReference(t, { dataDir, now: clock.now })
  t.ok(await verifiesAgainstKeySet(second.base, before, new Date()), 'a token from before the rotation and the restart verifies')
  t.equal(decodeProtectedHeader((await loginTokens(second.base, 'restart@example.com')).auth).kid, rotation.oldKid)
  clock.advance(KEY_PUBLISH_AHEAD_MS)
  t.equal(decodeProtectedHeader((await loginTokens(second.base, 'restart@example.com')).auth).kid, rotation.newKid)
})

t.test('a rotation is refused while the last one is under way, or where there is no key, unless forced', async (t) => {
  const dataDir = temporaryDataDir(t)
  await t.rejects(rotateSigningKey(dataDir, Date.now()), new RotationRefused(`there is no signing key in ${signingKeyFile(dataDir)} (is DATA_DIR right? The service makes the key at its first start)`))
  const reference = await startReference(t, { dataDir })
  await reference.close()
  const now = Date.now()
  const first = await rotateSigningKey(dataDir, now)
  await t.rejects(rotateSigningKey(dataDir, now + MINUTE_MS), { message: /^the last rotation is still under way: the key it replaced stays in the key set until / })
  const forced = await rotateSigningKey(dataDir, now + MINUTE_MS, { force: true })
  t.equal(forced.oldKid, first.newKid, 'forced, the key that had not started signing is replaced')
  const retired = JSON.parse(await readFile(retiredKeysFile(dataDir), 'utf8')) as Array<{ jwk: { kid: string } }>
  t.same(retired.map((key) => key.jwk.kid), [first.oldKid, first.newKid], 'both replaced keys stay until their time')
  const later = forced.oldKeyKeptUntil + 1
  const third = await rotateSigningKey(dataDir, later)
  t.equal(third.oldKid, forced.newKid, 'once the last rotation is over, a new one goes ahead')
  const pruned = JSON.parse(await readFile(retiredKeysFile(dataDir), 'utf8')) as Array<{ jwk: { kid: string } }>
  t.same(pruned.map((key) => key.jwk.kid), [forced.newKid], 'keys past their time are dropped from the file, private halves with them')
})

t.test('a running server whose key file has gone keeps the keys it read, and makes none', async (t) => {
  const dataDir = temporaryDataDir(t)
  const reference = await startReference(t, { dataDir })
  const kid = reference.services.signingKeys.newest.kid
  await rm(signingKeyFile(dataDir))
  await t.rejects(reference.services.signingKeys.reload(), { message: /has gone$/ })
  t.equal(reference.services.signingKeys.newest.kid, kid)
  t.notOk(existsSync(signingKeyFile(dataDir)), 'no new key was made behind the operator\'s back')
})
