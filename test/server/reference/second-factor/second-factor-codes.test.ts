import { randomBytes } from 'node:crypto'
import t from 'tap'
import { newRecoveryCodes, normaliseRecoveryCode, RecoveryCodeHasher, SecretBox } from '../../../../server/reference/second-factor/second-factor-codes.js'

t.test('a sealed secret opens only with its key and for its account, and a changed byte is refused', async (t) => {
  const key = randomBytes(32)
  const box = new SecretBox(key)
  const sealed = box.seal('JBSWY3DPEHPK3PXP', 'account-1')
  t.match(sealed, /^v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/)
  t.notMatch(sealed, /JBSWY3DPEHPK3PXP/)
  t.not(box.seal('JBSWY3DPEHPK3PXP', 'account-1'), sealed, 'a fresh IV each time')
  t.equal(box.open(sealed, 'account-1'), 'JBSWY3DPEHPK3PXP')
  t.throws(() => box.open(sealed, 'account-2'), 'another account\'s row cannot take this secret')
  t.throws(() => new SecretBox(randomBytes(32)).open(sealed, 'account-1'), 'another key')
  const [version, iv, data, tag] = sealed.split('.')
  const flipped = Buffer.from(data!, 'base64url')
  flipped[0] = flipped[0]! ^ 1
  t.throws(() => box.open([version, iv, flipped.toString('base64url'), tag].join('.'), 'account-1'), 'a changed ciphertext')
})

t.test('recovery codes: ten distinct xxxx-xxxx codes, read as typed in any case and spacing, hashed under a key', async (t) => {
  const codes = newRecoveryCodes()
  t.equal(codes.length, 10)
  t.equal(new Set(codes).size, 10)
  for (const code of codes) t.match(code, /^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/)
  t.equal(normaliseRecoveryCode('AB12-CD34'), 'ab12cd34')
  t.equal(normaliseRecoveryCode(' ab12 cd34 '), 'ab12cd34')
  t.equal(normaliseRecoveryCode('ab12cd34'), 'ab12cd34')
  t.equal(normaliseRecoveryCode('oIl0-abcd'), '0110abcd', 'o as 0, i and l as 1')
  for (const bad of ['ab12-cd3', 'ab12-cd345', 'ab12-cdu4', 'ab12--cd34', '', 'ab12_cd34']) t.equal(normaliseRecoveryCode(bad), null, bad)
  const hasher = new RecoveryCodeHasher(randomBytes(32))
  t.equal(hasher.hash('ab12cd34'), hasher.hash('ab12cd34'))
  t.not(hasher.hash('ab12cd34'), new RecoveryCodeHasher(randomBytes(32)).hash('ab12cd34'), 'keyed')
})
