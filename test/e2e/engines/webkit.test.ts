import t from 'tap'
import { runJourneys, signIn } from '../../fixtures/browsers/engine-journeys.js'
import { waitForUrl } from '../../fixtures/browsers/visitor.js'
import { webkit } from '../../fixtures/browsers/webkit.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'

/*
 * WebKit's page journeys; its account journeys are in webkit-accounts.test.ts.
 * A session is a fresh MiniBrowser (some 2 s), so all of WebKit's journeys in
 * one file came near tap's 120 s limit on a busy machine: halves run side by
 * side instead.
 */

// MiniBrowser has no WebAuthn (no PublicKeyCredential), so the page drops its passkey button after hydration.
t.test('the page journeys in WebKitGTK', { skip: webkit.skip }, async (t) => {
  await runJourneys(t, webkit, { webAuthn: false }, ['page'])
})

/*
 * The README's http://localhost:8080 in Safari's engine. WebKit keeps no
 * `Secure` cookie on plain http, even on localhost: on a loopback http://
 * page the page and the edge set their cookies without it
 * (server/edge/http/loopback-http.ts), and the visitor reaches the product,
 * with the page's scripts and without them (the edge's 303 and its flash).
 */
t.test('webkit: on http://localhost', { skip: webkit.skip }, async (t) => {
  const [product, server] = await Promise.all([
    startProductApp(t),
    startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'false', REDIRECT_ALLOWED_HOSTS: '127.0.0.1' })
  ])
  await registerAccount(server.base, 'safari@example.test')
  const login = `${server.base}/?redirect=${encodeURIComponent(`${product}/home`)}`
  t.match(server.base, /^http:\/\/(localhost|127\.0\.0\.1):/, 'the page is a loopback http:// page')
  // Whichever comes first: the product, or the problem the page reports (no 15 s wait for a redirect that will not come).
  const problem = { alert: 'There was a problem' } as const

  t.test('webkit: signs in with the page\'s scripts', async (t) => {
    const visitor = await webkit.visit(t)
    await visitor.open(login)
    await signIn(visitor, 'safari@example.test')
    const url = await waitForUrl(visitor, async (url) => url.startsWith(product) || await visitor.shows(problem))
    t.equal(url, `${product}/home`, 'the product is reached')
  })

  t.test('webkit: signs in without scripts, and a wrong password is said through the flash', async (t) => {
    const visitor = await webkit.visit(t, { scripts: false })
    await visitor.open(login)
    await signIn(visitor, 'safari@example.test', 'not the password')
    await visitor.waitFor({ alert: 'Invalid email or password' })
    t.pass('the wrong password is said on the page the 303 leads back to (the flash cookie was kept)')
    await signIn(visitor, 'safari@example.test')
    const url = await waitForUrl(visitor, async (url) => url.startsWith(product) || await visitor.shows(problem))
    t.equal(url, `${product}/home`, 'the product is reached (the token cookies were kept)')
  })
})
