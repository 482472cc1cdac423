import t from 'tap'
import arabic from '../../../../server/reference/languages/ar.json' with { type: 'json' }
import german from '../../../../server/reference/languages/de.json' with { type: 'json' }
import english from '../../../../server/reference/languages/en.json' with { type: 'json' }
import spanish from '../../../../server/reference/languages/es.json' with { type: 'json' }
import french from '../../../../server/reference/languages/fr.json' with { type: 'json' }
import japanese from '../../../../server/reference/languages/ja.json' with { type: 'json' }
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { opensslSkip } from '../../../fixtures/sso/sso-certificates.js'
import { startSsoStack } from '../../../fixtures/sso/sso-service.js'

const fill = (text: string, params: Record<string, string | number>): string =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => String(params[name] ?? whole))

const WRONG_PASSWORD = { email: 'known@example.com', password: 'not the password' }

t.test('a refused login answers in the language of Accept-Language: German, French; its status and shape unchanged', async (t) => {
  const { base } = await startReference(t)
  await registerAccount(base, 'known@example.com')
  const inGerman = await postJson(base, '/accounts/v2/login', WRONG_PASSWORD, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' })
  t.same([inGerman.status, inGerman.body], [401, { error: german['login.invalidCredentials'] }])
  t.not(german['login.invalidCredentials'], english['login.invalidCredentials'], 'German is not English')
  const inFrench = await postJson(base, '/accounts/v2/login', WRONG_PASSWORD, { 'accept-language': 'fr-CA' })
  t.same([inFrench.status, inFrench.body], [401, { error: french['login.invalidCredentials'] }])
  t.equal(inGerman.headers.get('cache-control'), 'no-store')
})

t.test('without Accept-Language, or with only unshipped languages, the answer is English', async (t) => {
  const { base } = await startReference(t)
  const plain = await fetch(`${base}/accounts/v2/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': '' }, body: JSON.stringify(WRONG_PASSWORD)
  })
  t.same(await plain.json(), { error: english['login.invalidCredentials'] }, 'an empty header')
  t.same((await postJson(base, '/accounts/v2/login', WRONG_PASSWORD)).body, { error: english['login.invalidCredentials'] }, 'fetch\'s own `*`')
  t.same((await postJson(base, '/accounts/v2/login', WRONG_PASSWORD, { 'accept-language': 'sw, ga;q=0.8' })).body,
    { error: english['login.invalidCredentials'] }, 'languages the service does not ship')
})

t.test('a hostile Accept-Language is inert: the answer is English, the service unharmed', async (t) => {
  const { base } = await startReference(t)
  const hostile = [
    `${'x-'.repeat(4000)}de`,
    `${'en-GB;q=0.1, '.repeat(40)}de`,
    'de;q=2, fr;q=-1, ja;q=NaN, ar;q=0.5;q=1',
    'de;q=0, fr;q=0',
    '../../../etc/passwd, {seconds}, __proto__, constructor',
    '<script>alert(1)</script>;q=1',
    'de-\u00e4\u00f6'
  ]
  // An unknown address each time, so that no lock (five failures) answers instead.
  for (const [index, header] of hostile.entries()) {
    const answer = await postJson(base, '/accounts/v2/login', { ...WRONG_PASSWORD, email: `hostile${index}@example.com` }, { 'accept-language': header })
    t.same([answer.status, answer.body], [401, { error: english['login.invalidCredentials'] }], header.slice(0, 40))
  }
  const afterwards = await postJson(base, '/accounts/v2/login', { ...WRONG_PASSWORD, email: 'next@example.com' }, { 'accept-language': 'ja' })
  t.same(afterwards.body, { error: japanese['login.invalidCredentials'] }, 'the next visitor is answered in their language')
})

t.test('placeholders are filled in the chosen language, and successes are translated too', async (t) => {
  const { base } = await startReference(t)
  const short = await postJson(base, '/accounts/register', { email: 'a@example.com', password: 'short', confirm_password: 'short' }, { 'accept-language': 'ja' })
  t.same([short.status, short.body], [400, { error: fill(japanese['field.passwordTooShort'], { min: 8 }) }])
  const created = await postJson(base, '/accounts/register', { email: 'new@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, { 'accept-language': 'es' })
  t.equal(created.status, 200)
  t.ok(created.body.success === spanish['register.done'] || created.body.success === spanish['register.checkInbox'], 'the registration\'s success in Spanish')
})

t.test('the service\'s own refusals (a body that is not JSON, an unknown sign-in method) follow the language as well', async (t) => {
  // Straight to the service for the broken body: the edge in front refuses one with a text of its own.
  const { url, base, edgeHeaders } = await startReference(t)
  const broken = await fetch(`${url}/v2/login`, { method: 'POST', headers: { ...edgeHeaders, 'content-type': 'application/json', 'accept-language': 'ar' }, body: '{"email":' })
  t.same([broken.status, await broken.json()], [400, { error: arabic['request.invalidJson'] }])
  const unknownMethod = await postJson(base, '/accounts/v2/auth/login', { login_method: 'CARRIER_PIGEON' }, { 'accept-language': 'de-AT' })
  t.same([unknownMethod.status, unknownMethod.body], [400, { error: german['method.loginUnsupported'] }])
})

t.test('single sign-on refuses in the browser\'s language, as JSON and in the error it sends the page', { skip: opensslSkip }, async (t) => {
  const stack = await startSsoStack(t)
  const start = await postJson(stack.publicUrl, '/accounts/auth/login/sso', { email: 'someone@no-sso.example', source: 'login' }, { 'accept-language': 'fr' })
  t.same([start.status, start.body], [400, { error: french['sso.notSetUp'] }])
  // A provider's return leg is a top-level navigation: the browser's own Accept-Language comes with it.
  const landing = await fetch(`${stack.publicUrl}/accounts/auth/sso/oidc/callback?state=${'s'.repeat(32)}&code=x`, { headers: { 'accept-language': 'es-MX,es;q=0.9' }, redirect: 'manual' })
  t.equal(landing.status, 303)
  t.equal(new URL(landing.headers.get('location')!).searchParams.get('error'), spanish['sso.notThisBrowser'], 'the page shows the Spanish text as it came')
})
