import t from 'tap'
import { identityProviderOutcome } from '../../../../server/edge/no-script/identity-provider-start.js'
import { ENGLISH_MESSAGES } from '../../../fixtures/languages/messages.js'

/*
 * The start's answer, as the pages without scripts act on it: only an
 * address the page would follow too (common/http/provider-url.ts) becomes
 * the onward page; anything else is an answer the edge could not use (502),
 * never an error of the edge's own (500).
 */
const post = { messages: ENGLISH_MESSAGES }
const raw = { kind: 'json', status: 200, body: {} } as const

t.test('attack: an onward address with credentials in it, or not absolute, is refused as an answer the edge could not use', async (t) => {
  for (const url of ['https://user:pw@github.com/login/oauth/authorize', 'https://user@github.com/', '/relative', 'not a url', '']) {
    let outcome
    t.doesNotThrow(() => { outcome = identityProviderOutcome(post, 'login', '', raw, { kind: 'redirect', url }) }, `${url}: no error`)
    t.match(outcome, { kind: 'page', status: 502 }, `${url}: 502`)
    t.not((outcome as { kind?: string } | undefined)?.kind, 'identity-provider', `${url}: not followed`)
  }
  t.same(identityProviderOutcome(post, 'login', '', raw, { kind: 'redirect', url: 'https://github.com/login/oauth/authorize' }),
    { kind: 'identity-provider', location: 'https://github.com/login/oauth/authorize' })
  t.same(identityProviderOutcome(post, 'register', '', raw, { kind: 'redirect', url: 'http://127.0.0.1:9000/authorize' }),
    { kind: 'identity-provider', location: 'http://127.0.0.1:9000/authorize' }, 'a stand-in on loopback')
})
