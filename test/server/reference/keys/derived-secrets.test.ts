import { hkdfSync, randomBytes } from 'node:crypto'
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { BROWSER_COOKIE } from '../../../../server/reference/known-browsers/browser-cookie.js'
import { loadOrCreateDerivedSecrets, rootSecretFile } from '../../../../server/reference/keys/derived-secrets.js'
import { loadOrCreateSigningKey } from '../../../../server/reference/keys/signing-key.js'
import { temporaryDataDir } from '../../../fixtures/servers/reference.js'

t.test('a DATA_DIR from before the root secret keeps the secrets it derived from the signing key (browser cookies stay recognised)', async (t) => {
  const dataDir = temporaryDataDir(t)
  const key = await loadOrCreateSigningKey(dataDir)
  const stored = JSON.parse(await readFile(join(dataDir, 'keys', 'auth-signing-key.jwk.json'), 'utf8')) as { d: string }
  // What the earlier version derived: HKDF of the signing key's private bytes.
  const before = Buffer.from(hkdfSync('sha256', Buffer.from(stored.d, 'base64url'), 'threshold', BROWSER_COOKIE, 32))
  const secrets = await loadOrCreateDerivedSecrets(dataDir, key.derivationSeed)
  t.same(secrets.derive(BROWSER_COOKIE), before)
  t.equal((await stat(rootSecretFile(dataDir))).mode & 0o777, 0o600, 'written, readable by its owner only')
  t.not(secrets.derive('another purpose').toString('hex'), before.toString('hex'), 'each purpose has its own secret')
})

t.test('once written, the root secret is read, whatever seed comes later (a rotated signing key)', async (t) => {
  const dataDir = temporaryDataDir(t)
  await mkdir(join(dataDir, 'keys'), { recursive: true, mode: 0o700 })
  const first = await loadOrCreateDerivedSecrets(dataDir, randomBytes(32))
  const later = await loadOrCreateDerivedSecrets(dataDir, randomBytes(32))
  t.same(later.derive('p'), first.derive('p'))
})

t.test('loaders starting at once with different seeds end up with one root secret, and leave no draft', async (t) => {
  const dataDir = temporaryDataDir(t)
  await mkdir(join(dataDir, 'keys'), { recursive: true, mode: 0o700 })
  const loaded = await Promise.all(Array.from({ length: 5 }, () => loadOrCreateDerivedSecrets(dataDir, randomBytes(32))))
  t.equal(new Set(loaded.map((secrets) => secrets.derive('p').toString('hex'))).size, 1)
  t.same(await readdir(join(dataDir, 'keys')), ['derivation-secret'])
})

t.test('a damaged root secret stops the start with a message naming it, and is left for the operator', async (t) => {
  const dataDir = temporaryDataDir(t)
  await mkdir(join(dataDir, 'keys'), { recursive: true })
  await writeFile(rootSecretFile(dataDir), 'short')
  await t.rejects(loadOrCreateDerivedSecrets(dataDir, randomBytes(32)), { message: /derivation-secret is not 32 bytes/ })
  t.equal(await readFile(rootSecretFile(dataDir), 'utf8'), 'short')
})

t.test('where the keys folder is read-only (a key mounted from a secret manager), the seed serves without a file', { skip: process.getuid?.() === 0 ? 'root writes anywhere' : false }, async (t) => {
  const dataDir = temporaryDataDir(t)
  await mkdir(join(dataDir, 'keys'), { recursive: true })
  await chmod(join(dataDir, 'keys'), 0o500)
  t.teardown(() => chmod(join(dataDir, 'keys'), 0o700))
  const seed = randomBytes(32)
  const secrets = await loadOrCreateDerivedSecrets(dataDir, seed)
  t.same(secrets.derive('p'), Buffer.from(hkdfSync('sha256', seed, 'threshold', 'p', 32)))
})
