import t from 'tap'
import { createFormFlash, FORM_FLASH_COOKIE, FORM_FLASH_LIFETIME_S } from '../../../../server/edge/no-script/form-flash.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'
import { formBody, PAGE_POST_HEADERS, stateIn } from '../../../fixtures/no-script/form-page.js'
import type { PageFormState } from '../../../../common/page/page-render.js'

const PASSWORD = 'correct horse battery staple'
const CODE_STEP: PageFormState = { view: 'login', email: 'ada@example.com', notice: null, invalid: false, verificationLinkOffered: false, secondFactorChallenge: 'challenge-1' }
const GET_HEADERS = { host: PAGE_POST_HEADERS.host!, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' }

const setCookiesOf = (headers: Record<string, unknown>): string[] => {
  const value = headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value as string[] : [value as string]
}

t.test('a failed login answers 303 with the flash cookie: __Host-, HttpOnly, Secure, SameSite=Strict, Path=/, five minutes; no password in it', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
  const app = await buildEdge(t, { env: { TRUST_PROXY: 'loopback' }, accountsUpstream: upstream.url })
  const posted = await app.inject({ method: 'POST', url: '/?view=login&redirect=%2Fapp', headers: PAGE_POST_HEADERS, payload: formBody({ form: 'login', email: 'ada@example.com', password: PASSWORD }) })
  t.equal(posted.statusCode, 303)
  t.equal(posted.headers.location, '/?view=login&redirect=%2Fapp')
  t.equal(posted.headers['cache-control'], 'no-store')
  t.equal(posted.body, '')
  const flash = setCookiesOf(posted.headers).find((line) => line.startsWith(`${FORM_FLASH_COOKIE}=`))!
  const [pair, ...attributes] = flash.split('; ')
  t.same(attributes.sort(), [`Max-Age=${FORM_FLASH_LIFETIME_S}`, 'HttpOnly', 'Path=/', 'SameSite=Strict', 'Secure'].sort())
  t.equal(FORM_FLASH_LIFETIME_S, 300)
  const value = pair!.slice(FORM_FLASH_COOKIE.length + 1)
  t.notOk(Buffer.from(value.split('.')[0]!, 'base64url').toString('utf8').includes(PASSWORD), 'the password is not in the flash')
  t.notOk(value.includes(encodeURIComponent(PASSWORD)))
})

t.test('a forged, expired, garbled or foreign flash is ignored: the plain page, the cookie cleared', async (t) => {
  const app = await buildEdge(t, { env: { TRUST_PROXY: 'loopback' } })
  const foreign = createFormFlash()
  const now = Date.now()
  const foreignValue = foreign.cookieFor({ status: 200, state: CODE_STEP }).split(';')[0]!.slice(FORM_FLASH_COOKIE.length + 1)
  const [payload] = foreignValue.split('.')
  const cases: Array<[string, string]> = [
    ['signed by another key', foreignValue],
    ['unsigned', payload!],
    ['a signature cut short', foreignValue.slice(0, -3)],
    ['garbage', '%%%not-a-flash...'],
    ['empty', ''],
    ['a forged payload', `${Buffer.from(JSON.stringify({ expires: now + 60_000, status: 200, state: CODE_STEP })).toString('base64url')}.AAAA`]
  ]
  for (const [name, value] of cases) {
    const response = await app.inject({ method: 'GET', url: '/', headers: { ...GET_HEADERS, cookie: `other=1; ${FORM_FLASH_COOKIE}=${value}` } })
    t.equal(response.statusCode, 200, name)
    t.notOk(response.body.includes('challenge-1'), `${name}: no code step`)
    t.throws(() => stateIn(response.body), `${name}: no state embedded, the plain page`)
    t.ok(setCookiesOf(response.headers).some((line) => line.startsWith(`${FORM_FLASH_COOKIE}=;`) && line.includes('Max-Age=0')), `${name}: cleared`)
  }
})

t.test('the flash is read only while it lasts, and only with the key that wrote it', async (t) => {
  const flash = createFormFlash()
  const now = Date.now()
  const cookie = flash.cookieFor({ status: 401, state: CODE_STEP }, now).split(';')[0]!
  t.same(flash.read(cookie, now + 1_000), { status: 401, state: CODE_STEP })
  t.equal(flash.read(cookie, now + FORM_FLASH_LIFETIME_S * 1000 + 1), null, 'expired')
  t.equal(createFormFlash().read(cookie, now), null, 'another key')
  t.equal(flash.read(undefined, now), null)
  t.equal(flash.read('other=1', now), null)
})

t.test('a notice too long for a cookie is replaced by the generic text', async (t) => {
  const flash = createFormFlash()
  const long = { ...CODE_STEP, notice: { kind: 'error' as const, text: 'x'.repeat(5_000) } }
  const cookie = flash.cookieFor({ status: 400, state: long })
  t.ok(cookie.length < 4_000)
  t.match(flash.read(cookie.split(';')[0]), { state: { notice: { kind: 'error', text: /^(?!x)/ } } })
})
