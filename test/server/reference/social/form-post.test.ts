import { generateKeyPairSync, randomBytes } from 'node:crypto'
import Fastify from 'fastify'
import t from 'tap'
import { EmailPseudonyms } from '../../../../server/reference/audit/email-pseudonyms.js'
import type { RequestFacts } from '../../../../server/reference/http/answers.js'
import { SocialFlows } from '../../../../server/reference/social/social-flows.js'
import type { SocialProviderClient } from '../../../../server/reference/social/social-identity.js'
import { SqliteAccountStore } from '../../../../server/reference/store/sqlite-store.js'
import { parseSocialConnections } from '../../../../server/shared/social/social-connections.js'

/*
 * The cross-site return (Apple's response_mode=form_post): the answer is
 * verified where it is posted, without the Lax cookie, and the page's id is
 * issued only at the same-site step after it, where the cookie is checked.
 * The provider here is the smallest client the shape allows
 * (server/reference/social/social-identity.ts): its answer verifies when it
 * carries the code it issued.
 */

const PUBLIC_URL = 'https://signin.example.test'

function postingProvider (): SocialProviderClient {
  return {
    async begin () {
      const state = randomBytes(32).toString('base64url')
      return { url: `https://appleid.example.test/auth/authorize?state=${state}`, secrets: { state, codeVerifier: 'verifier', nonce: 'nonce' } }
    },
    async finish (answer) {
      if (answer.get('code') !== 'the-code') throw new Error('the code does not verify')
      return { subject: 'apple-sub', email: 'relay@privaterelay.appleid.com', emailVerified: true, firstName: 'Ada', lastName: null }
    }
  }
}

async function setting (t: import('tap').Test) {
  const store = new SqliteAccountStore(':memory:')
  t.teardown(() => store.close())
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const connections = parseSocialConnections(JSON.stringify([
    { type: 'apple', client_id: 'com.example.signin', team_id: 'TEAMID1234', key_id: 'KEYID12345', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) },
    {
      type: 'oauth2', id: 'forge', name: 'Forge', client_id: 'c', client_secret: 's',
      authorization_endpoint: 'https://forge.example.test/a', token_endpoint: 'https://forge.example.test/t', userinfo_endpoint: 'https://forge.example.test/u'
    }
  ]))
  const flows = new SocialFlows({ store, connections, clients: new Map([['apple', postingProvider()], ['forge', postingProvider()]]), publicUrl: PUBLIC_URL, now: Date.now })
  const facts: RequestFacts = {
    log: Fastify().log, pseudonyms: new EmailPseudonyms(randomBytes(32)), locale: 'en', clientAddress: '203.0.113.7', browser: null, signal: new AbortController().signal
  }
  return { flows, facts, store }
}

const cookieOf = (setCookie: string | undefined): string => setCookie!.split(';')[0]!

t.test('a form_post is verified without the cookie, then handed to the same-site step, which checks it before issuing the page\'s id', async (t) => {
  const { flows, facts } = await setting(t)
  const started = await flows.start({ provider: 'apple', source: 'login' }, facts)
  const state = new URL(String(started.body.url)).searchParams.get('state')!
  const cookie = cookieOf(started.cookies?.[0])
  const posted = await flows.formPost('apple', new URLSearchParams({ state, code: 'the-code', user: '{"name":{"firstName":"Ada"}}' }), facts)
  const handover = new URL(posted.location)
  t.equal(handover.pathname, '/accounts/auth/social/continue', 'handed over to the same-site step')
  t.notOk(handover.searchParams.has('id'), 'no page id before the cookie is seen')

  const elsewhere = await flows.continue(handover.searchParams.get('code'), undefined, facts)
  t.match(new URL(elsewhere.location).searchParams.get('error'), /not started in this browser/, 'without the cookie: refused')

  // The hand-over above was spent by that try: a fresh one, continued in the browser that started.
  const again = await flows.start({ provider: 'apple', source: 'register' }, facts)
  const againState = new URL(String(again.body.url)).searchParams.get('state')!
  const againPosted = await flows.formPost('apple', new URLSearchParams({ state: againState, code: 'the-code' }), facts)
  const code = new URL(againPosted.location).searchParams.get('code')
  t.match((await flows.continue(code, cookieOf(started.cookies?.[0]), facts)).location, /error=/, 'another browser\'s cookie: refused')
  const other = await flows.start({ provider: 'apple', source: 'register' }, facts)
  const otherPosted = await flows.formPost('apple', new URLSearchParams({ state: new URL(String(other.body.url)).searchParams.get('state')!, code: 'the-code' }), facts)
  const landed = new URL((await flows.continue(new URL(otherPosted.location).searchParams.get('code'), cookieOf(other.cookies?.[0]), facts)).location)
  t.equal(landed.searchParams.get('social'), 'apple')
  t.equal(landed.searchParams.get('register'), '1')
  t.match(landed.searchParams.get('id'), /^[\w-]{43}$/)
  t.ok(cookie)
})

t.test('a form_post naming no started sign-in, posted twice, or with an answer that does not verify, is refused', async (t) => {
  const { flows, facts } = await setting(t)
  t.match((await flows.formPost('apple', new URLSearchParams({ state: 'x'.repeat(43), code: 'the-code' }), facts)).location, /error=.*not\+started/)
  t.match((await flows.formPost('apple', undefined, facts)).location, /error=/)
  const started = await flows.start({ provider: 'apple', source: 'login' }, facts)
  const state = new URL(String(started.body.url)).searchParams.get('state')!
  t.match((await flows.formPost('apple', new URLSearchParams({ state, code: 'a-forged-code' }), facts)).location, /error=The\+answer\+of\+Apple\+could\+not\+be\+verified/)
  t.match((await flows.formPost('apple', new URLSearchParams({ state, code: 'the-code' }), facts)).location, /error=.*not\+started/, 'a state is spent by its first post')
  const cancelled = await flows.start({ provider: 'apple', source: 'login' }, facts)
  const cancelledState = new URL(String(cancelled.body.url)).searchParams.get('state')!
  t.match((await flows.formPost('apple', new URLSearchParams({ state: cancelledState, error: 'user_cancelled_authorize' }), facts)).location, /error=Apple\+did\+not\+sign\+you\+in/)
})

t.test('the form post answers only for an Apple connection, and only for a sign-in of that connection: nothing is taken otherwise', async (t) => {
  const { flows, facts, store } = await setting(t)
  const started = await flows.start({ provider: 'forge', source: 'login' }, facts)
  const state = new URL(String(started.body.url)).searchParams.get('state')!
  // A code and a state posted cross-site to another connection's address, or to Apple's: never exchanged.
  t.match((await flows.formPost('forge', new URLSearchParams({ state, code: 'the-code' }), facts)).location, /error=This\+sign-in\+provider\+is\+not\+configured/)
  t.match((await flows.formPost('myspace', new URLSearchParams({ state, code: 'the-code' }), facts)).location, /error=This\+sign-in\+provider\+is\+not\+configured/)
  t.match((await flows.formPost('apple', new URLSearchParams({ state, code: 'the-code' }), facts)).location, /error=.*not\+started/)
  t.not(await store.findSsoTransaction(state, Date.now()), null, 'Forge\'s sign-in is still there for its own callback')
  // Apple's sign-in is not answered on the callback either.
  const apple = await flows.start({ provider: 'apple', source: 'login' }, facts)
  const appleState = new URL(String(apple.body.url)).searchParams.get('state')!
  t.match((await flows.callback('apple', `state=${appleState}&code=the-code`, cookieOf(apple.cookies?.[0]), facts)).location, /error=This\+sign-in\+provider\+is\+not\+configured/)
  t.not(await store.findSsoTransaction(appleState, Date.now()), null, 'nor taken there')
})
