import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose'
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { loadOrCreateSigningKey } from '../../../../server/reference/keys/signing-key.js'
import { startReference, temporaryDataDir, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { loginTokens } from '../../../fixtures/sign-in/sign-in.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const keyFile = (dataDir: string): string => join(dataDir, 'keys', 'auth-signing-key.jwk.json')

async function keySet (base: string): Promise<JSONWebKeySet> {
  return await (await fetch(`${base}/accounts/.well-known/jwks.json`)).json() as JSONWebKeySet
}

t.test('the signing key is made on first start under DATA_DIR/keys, readable by its owner only', async (t) => {
  const { base, dataDir } = await startReference(t)
  const stored = JSON.parse(await readFile(keyFile(dataDir), 'utf8')) as Record<string, string>
  t.same([stored.kty, stored.crv, stored.alg], ['OKP', 'Ed25519', 'EdDSA'])
  t.match(stored.d, /^[\w-]{43}$/, 'the file holds the private key')
  t.equal((await stat(keyFile(dataDir))).mode & 0o777, 0o600)
  t.equal((await stat(join(dataDir, 'keys'))).mode & 0o777, 0o700)
  const published = await keySet(base)
  t.equal(published.keys[0]!.kid, stored.kid, 'the key set publishes that key')
  t.equal(published.keys[0]!.x, stored.x)
})

t.test('after a restart the same key signs, so tokens issued before it still verify', async (t) => {
  const dataDir = temporaryDataDir(t)
  const first = await startReference(t, { dataDir })
  await registerAccount(first.base, 'restart@example.com')
  const { auth } = await loginTokens(first.base, 'restart@example.com')
  const keysBefore = await keySet(first.base)
  const fileBefore = await readFile(keyFile(dataDir), 'utf8')
  await first.close()

  const second = await startReference(t, { dataDir })
  t.same(await keySet(second.base), keysBefore, 'the same key set')
  t.equal(await readFile(keyFile(dataDir), 'utf8'), fileBefore, 'the key file is not rewritten')
  const { payload } = await jwtVerify(auth, createLocalJWKSet(await keySet(second.base)), {
    issuer: `${TEST_PUBLIC_URL}/accounts`, audience: TEST_PUBLIC_URL
  })
  t.equal(payload.email, 'restart@example.com')
})

t.test('loaders starting at once on an empty DATA_DIR end up with one key', async (t) => {
  const dataDir = temporaryDataDir(t)
  const keys = await Promise.all(Array.from({ length: 5 }, () => loadOrCreateSigningKey(dataDir)))
  t.equal(new Set(keys.map((key) => key.kid)).size, 1, 'every loader uses the key that was written first')
  const stored = JSON.parse(await readFile(keyFile(dataDir), 'utf8')) as { kid: string }
  t.equal(keys[0]!.kid, stored.kid)
  t.same(await readdir(join(dataDir, 'keys')), ['auth-signing-key.jwk.json'], 'no draft is left behind')
})

t.test('a damaged key file stops the start with a message naming it, and is left for the operator', async (t) => {
  const dataDir = temporaryDataDir(t)
  await mkdir(join(dataDir, 'keys'), { recursive: true })
  await writeFile(keyFile(dataDir), '{"kty": "OKP", trunc')
  await t.rejects(loadOrCreateSigningKey(dataDir), { message: new RegExp(`${keyFile(dataDir).replace(/[/.]/g, '\\$&')}`) })
  t.equal(await readFile(keyFile(dataDir), 'utf8'), '{"kty": "OKP", trunc', 'not replaced: tokens signed with it would all stop verifying')
})
