import { createHash } from 'node:crypto'
import t from 'tap'
import { newGoogleNonce } from '../../../client/google/google-nonce.js'
import { googleNonceFor } from '../../../server/reference/google/google-id-token.js'

t.test('the nonce given to Google is the SHA-256 of a fresh 256-bit secret, as the accounts service checks it', async (t) => {
  const first = await newGoogleNonce()
  const second = await newGoogleNonce()
  t.ok(first !== null && second !== null)
  t.match(first!.secret, /^[\w-]{43}$/, '32 bytes, base64url without padding')
  t.equal(first!.nonce, createHash('sha256').update(first!.secret).digest('base64url'))
  t.equal(first!.nonce, googleNonceFor(first!.secret), 'the service derives the same nonce from the secret')
  t.not(first!.secret, second!.secret, 'each page has its own')
  t.not(first!.nonce, first!.secret, 'the token never carries the secret itself')
})
