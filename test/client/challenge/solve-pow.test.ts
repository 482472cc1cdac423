import { createChallenge, verifySolution } from 'altcha-lib'
import { deriveKey as pbkdf2 } from 'altcha-lib/algorithms/pbkdf2'
import { deriveKey as sha } from 'altcha-lib/algorithms/sha'
import t from 'tap'
import { solvePow } from '../../../client/challenge/solve-pow.js'

/**
 * The proof of work in Node, whose WebCrypto is the browser's API (Node has
 * no Web Workers: this is the page's own-thread path; Chromium's workers are
 * test/e2e/challenge/challenge.test.ts's): real challenges from altcha-lib's server
 * side, the header checked as the edge checks it.
 */

const SECRET = 'solve-pow-test-secret'

const decode = (header: string) => JSON.parse(Buffer.from(header, 'base64url').toString('utf8'))

for (const algorithm of ['PBKDF2/SHA-256', 'SHA-256']) {
  t.test(`a ${algorithm} challenge is solved, and the header carries it with a solution the server verifies`, async (t) => {
    const deriveKey = algorithm.startsWith('PBKDF2/') ? pbkdf2 : sha
    const challenge = await createChallenge({ algorithm, cost: 100, counter: 50, deriveKey, hmacSignatureSecret: SECRET, data: { call: 'v2/login', note: 'ünïcödé' } })
    const outcome = await solvePow(challenge)
    if (outcome.kind !== 'solved') return t.fail(`not solved: ${outcome.kind}`)
    t.match(outcome.header, /^[A-Za-z0-9_-]+$/, 'base64url, no padding')
    const { challenge: sent, solution } = decode(outcome.header)
    t.same(sent, challenge, 'the challenge as it came, non-ASCII data included')
    t.equal(solution.counter, 50, 'the counter the server chose')
    const verified = await verifySolution({ challenge: sent, solution, deriveKey, hmacSignatureSecret: SECRET })
    t.ok(verified.verified, 'verified')
  })
}

t.test('challenges the page cannot solve end as failed, at once', async (t) => {
  const started = Date.now()
  for (const bad of [
    null, 'x', 42, {}, { parameters: null }, { parameters: {} },
    { parameters: { algorithm: 'PBKDF2/SHA-256', nonce: '00', salt: '00', keyPrefix: '00', cost: 0 } },
    { parameters: { algorithm: 'PBKDF2/SHA-256', nonce: '00', salt: '00', keyPrefix: '00', cost: 1.5 } },
    { parameters: { algorithm: 'PBKDF2/SHA-256', nonce: 'xyz', salt: '00', keyPrefix: '00', cost: 1 } },
    { parameters: { algorithm: 'PBKDF2/SHA-256', nonce: '00', salt: '00', keyPrefix: 'not hex', cost: 1 } },
    { parameters: { algorithm: 'ARGON2ID', nonce: '00', salt: '00', keyPrefix: '00', cost: 1, keyLength: 32 } }
  ]) {
    t.same(await solvePow(bad), { kind: 'failed' }, JSON.stringify(bad))
  }
  t.ok(Date.now() - started < 5000, 'without trying for long')
})

t.test('without WebCrypto the page says it cannot, rather than try', async (t) => {
  const original = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!
  Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true })
  t.teardown(() => { Object.defineProperty(globalThis, 'crypto', original) })
  const challenge = { parameters: { algorithm: 'PBKDF2/SHA-256', nonce: '00', salt: '00', keyPrefix: '00', cost: 1, keyLength: 32 } }
  t.same(await solvePow(challenge), { kind: 'unsupported' })
})
