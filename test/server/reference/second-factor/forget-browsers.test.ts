import { Secret, TOTP } from 'otpauth'
import t, { type Test } from 'tap'
import { Clock, enrolAuthenticator, signedInOwner, type SignedInOwner } from '../../../fixtures/account-changes/account-changes.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { logCollector, startReference, type LogCollector, type Reference } from '../../../fixtures/servers/reference.js'
import { postLogin } from '../../../fixtures/sign-in/sign-in.js'

/*
 * `second-factor/forget-browsers`, called straight on the reference service
 * (the edge's forwarding of the account view's calls is its own part): the
 * owner takes the "don't ask again on this browser" shortcut away from
 * every browser, and a token without her fresh proof cannot.
 */

interface Setup {
  readonly reference: Reference
  readonly logs: LogCollector
  readonly clock: Clock
  readonly ada: SignedInOwner
  /** A browser that skips the code step: its second_factor_browser cookie, as a Cookie header. */
  readonly remembered: string
}

async function setUp (t: Test): Promise<Setup> {
  const logs = logCollector()
  const clock = new Clock()
  const reference = await startReference(t, { now: clock.now, logStream: logs.stream })
  const ada = await signedInOwner(reference, 'ada@example.com')
  const { secret } = await enrolAuthenticator(ada, clock)
  clock.passSeconds(30)
  const challenge = (await postLogin(reference.base, 'ada@example.com')).body.challenge
  const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.value })
  const verified = await postJson(reference.base, '/accounts/second-factor/verify', { challenge, code, remember_browser: true })
  const remembered = verified.headers.getSetCookie().find((cookie) => cookie.startsWith('second_factor_browser='))?.split(';')[0]
  if (remembered === undefined) throw new Error(`no remembered browser: ${verified.status} ${JSON.stringify(verified.body)}`)
  clock.passSeconds(1)
  return { reference, logs, clock, ada, remembered }
}

/** What a password sign-in from the remembered browser gets: tokens, or the code step. */
const signInFromRememberedBrowser = async (setup: Setup) =>
  (await postLogin(setup.reference.base, 'ada@example.com', undefined, { headers: { cookie: setup.remembered } })).body

t.test('the owner forgets every remembered browser: the next sign-in there asks for a code again', async (t) => {
  const setup = await setUp(t)
  t.type((await signInFromRememberedBrowser(setup)).auth, 'string', 'before, the remembered browser skips the code step')
  const forgotten = await setup.ada.browser.postToService(setup.reference, 'second-factor/forget-browsers', {}, setup.ada.bearer)
  t.same([forgotten.status, Object.keys(forgotten.body)], [200, ['success']])
  t.match(await signInFromRememberedBrowser(setup), { second_factor: 'code' }, 'after, it is asked for a code')
  t.ok(setup.logs.lines.some((line) => line.audit === 'second-factor.browsers-forgotten'))
})

t.test('a token without this browser\'s fresh proof forgets nothing', async (t) => {
  const setup = await setUp(t)
  // Whoever read Ada's auth cookie holds her token, and nothing else.
  const attacker = new PasskeyBrowser(setup.reference.base)
  const refused = await attacker.postToService(setup.reference, 'second-factor/forget-browsers', {}, setup.ada.bearer)
  t.equal(refused.status, 403)
  t.match(refused.body, { reason: 'fresh_proof_required', proof_methods: ['password+code', 'sign_in'] })
  const signedOut = await attacker.postToService(setup.reference, 'second-factor/forget-browsers', {})
  t.same([signedOut.status, signedOut.body.reason], [401, 'signed_out'])
  t.type((await signInFromRememberedBrowser(setup)).auth, 'string', 'the remembered browser still skips the code step')
  const refusals = setup.logs.lines.filter((line) => line.audit === 'second-factor.forget-browsers.refused').map((line) => line.reason)
  t.same(refusals, ['no-fresh-proof', 'not-signed-in'], 'each refusal logged with its reason')
})
