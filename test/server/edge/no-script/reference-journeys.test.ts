import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { SUCCESS_MESSAGES } from '../../../../common/languages/page-texts.js'
import { startMetricsListener } from '../../../../server/edge/metrics/metrics-listener.js'
import { FORM_FLASH_LOOPBACK_COOKIE } from '../../../../server/edge/no-script/form-flash.js'
import { formBody, stateIn } from '../../../fixtures/no-script/form-page.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { ServiceBrowser } from '../../../fixtures/browsers/service-browser.js'

/*
 * The forms posted without scripts over real HTTP to the real edge in front
 * of the reference accounts service: each journey ends as the page's would,
 * and the sign-ins are counted as the page's are.
 */

const NEW_PASSWORD = 'another horse, another staple'

async function postForm (base: string, fields: Record<string, string>, query = '') {
  const response = await fetch(`${base}/${query === '' ? '' : `?${query}`}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: base },
    body: formBody(fields)
  })
  return { status: response.status, location: response.headers.get('location'), cookies: response.headers.getSetCookie(), html: await response.text() }
}

/** A login post, whose page is shown after a 303 with the flash cookie (post/redirect/get): the page the browser then shows. */
async function postLogin (base: string, fields: Record<string, string>, query = '') {
  const posted = await postForm(base, fields, query)
  // The edge listens on http://127.0.0.1: a loopback page over plain http, whose flash has no `__Host-` prefix.
  const flash = posted.cookies.find((line) => line.startsWith(`${FORM_FLASH_LOOPBACK_COOKIE}=`))
  if (posted.status !== 303 || flash === undefined || posted.location === null) throw new Error(`the login answered ${posted.status} without a flash`)
  const response = await fetch(new URL(posted.location, base), { headers: { cookie: flash.split(';', 1)[0]! } })
  return { status: response.status, cookies: response.headers.getSetCookie(), html: await response.text() }
}

/** The value of a cookie among Set-Cookie lines. */
const cookieValue = (cookies: string[], name: string): string | undefined =>
  cookies.find((line) => line.startsWith(`${name}=`))?.split(';', 1)[0]!.slice(name.length + 1)

function sample (text: string, name: string, labels: Record<string, string>): number {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
}

t.test('register, login, wrong password, reset and a new password, and the code step, posted without scripts to the reference service', async (t) => {
  const { base, dataDir, edge } = await startReference(t, { edgeEnv: { METRICS_PORT: '0' } })
  const listener = await startMetricsListener({ metrics: edge.metrics!, port: 0, host: '127.0.0.1' })
  t.teardown(() => listener.close())

  const registered = await postForm(base, { form: 'register', first_name: 'Nia', last_name: '', email: 'nia@example.test', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, 'view=register')
  t.equal(registered.status, 200)
  t.match(stateIn(registered.html), { view: 'login', email: 'nia@example.test', notice: { kind: 'success' } })

  const signedIn = await postForm(base, { form: 'login', email: 'nia@example.test', password: GOOD_PASSWORD }, 'redirect=%2Fapp')
  t.equal(signedIn.status, 303)
  t.equal(signedIn.location, `${base}/app`)
  const refresh = cookieValue(signedIn.cookies, 'refresh')
  t.ok(cookieValue(signedIn.cookies, 'auth'), 'the auth cookie is set')
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh })).status, 200, 'the refresh cookie holds a token the service takes')

  const wrong = await postLogin(base, { form: 'login', email: 'nia@example.test', password: 'not the password 9' })
  t.equal(wrong.status, 401)
  t.match(stateIn(wrong.html), { email: 'nia@example.test', invalid: true, notice: { kind: 'error' } })
  t.notOk(wrong.html.includes('not the password 9'))

  const requested = await postForm(base, { form: 'resetPassword', email: 'nia@example.test' }, 'view=resetPassword')
  t.equal(requested.status, 200)
  t.match(stateIn(requested.html), { view: 'login', notice: { kind: 'success' } })
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  const set = await postForm(base, { form: 'setPassword', password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, `view=setPassword&token=${token}`)
  t.equal(set.status, 200)
  t.match(stateIn(set.html), { view: 'login', notice: { kind: 'success', text: SUCCESS_MESSAGES.PASSWORD_SET } })
  t.equal((await postForm(base, { form: 'login', email: 'nia@example.test', password: NEW_PASSWORD })).status, 303, 'the new password signs in')

  // The second factor: enrolled through the page's calls, then the code step posted without scripts.
  // In the browser that signed in: the sign-in is its fresh proof.
  const page = new ServiceBrowser(base)
  const bearer = await page.bearerAfterSignIn('nia@example.test', NEW_PASSWORD)
  const secret = String((await page.post('second-factor/enrol/start', {}, bearer)).body.secret)
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 })
  t.equal((await page.post('second-factor/enrol/confirm', { code: totp.generate() }, bearer)).status, 200)
  // Another address than the sign-in above: the same post within 10 s would be answered as that one was (server/edge/no-script/repeated-posts.ts).
  const due = await postLogin(base, { form: 'login', email: 'nia@example.test', password: NEW_PASSWORD }, 'redirect=%2Fcode')
  t.equal(due.status, 200)
  const { secondFactorChallenge: challenge } = stateIn(due.html)
  t.type(challenge, 'string')
  const coded = await postForm(base, { form: 'secondFactor', challenge: challenge!, code: totp.generate({ timestamp: Date.now() + 30_000 }) })
  t.equal(coded.status, 303, 'the code step signs in')
  t.ok(cookieValue(coded.cookies, 'auth'))

  const scrape = await (await fetch(`http://127.0.0.1:${listener.port}/metrics`)).text()
  t.equal(sample(scrape, 'threshold_sign_ins_total', { method: 'password', outcome: 'success' }), 3, 'the two form logins, and the page\'s own call, counted alike')
  t.equal(sample(scrape, 'threshold_sign_ins_total', { method: 'password', outcome: 'refused' }), 1)
  t.equal(sample(scrape, 'threshold_sign_ins_total', { method: 'second_factor', outcome: 'success' }), 1)
})
