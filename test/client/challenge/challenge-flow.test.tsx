import '../../fixtures/page/dom.js'
import { screen, waitFor } from '@testing-library/react'
import { createChallenge, verifySolution } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2'
import type { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { PASSWORD_BREACHED_FIELD } from '../../../common/breached-passwords/breached-password.js'
import { CHALLENGE_HEADER } from '../../../common/challenge/challenge.js'
import { MESSAGES_ELEMENT_ID, serializePageMessages, type PageMessages } from '../../../common/languages/message-catalogue.js'
import { CHALLENGE_ROUNDS, CHECKING_NOTE_DELAY_MS } from '../../../client/challenge/answer-challenge.js'
import { jsonAnswer, startUpstream, type RecordedRequest } from '../../fixtures/servers/edge.js'
import { english, englishMessages } from '../../fixtures/languages/messages.js'
import { eventually, eventuallyOk, pageOrigin, renderPage } from '../../fixtures/page/page.js'
import { signInOnView } from '../../fixtures/sign-in/sign-in-view.js'

/**
 * The page against a gate of its own making, a real HTTP server on port 0 at
 * the page's origin that asks for real ALTCHA challenges (altcha-lib's
 * createChallenge, signed) and checks the solutions the page sends back
 * (verifySolution), as the edge's gate does (common/challenge/challenge.ts). happy-dom
 * has no Web Workers: the page solves on its own thread here, the path of a
 * browser without workers; real Chromium's workers are test/e2e/challenge/challenge.test.ts's.
 */

const SECRET = 'test-challenge-secret'

/** The page's embedded texts, as the edge puts them in the document (the challenge's chunk reads its texts there). */
function embedTexts (t: Test, messages: PageMessages = englishMessages()): void {
  const element = document.createElement('script')
  element.type = 'application/json'
  element.id = MESSAGES_ELEMENT_ID
  element.textContent = serializePageMessages(messages)
  document.head.append(element)
  t.teardown(() => element.remove())
}

interface Gate {
  /** Challenges issued, and solutions that verified. */
  issued: number
  verified: number
}

/**
 * A gate in front of `path`: a call without a verified solution gets a 428
 * with a fresh challenge (deterministic: the solver must count to `counter`,
 * so that the work it takes is known); a verified one gets `answer`. With
 * `acceptNone`, no solution is ever good enough; `ungated` paths answer as given.
 */
async function startGate (t: Test, path: string, answer: [number, unknown], { counter = 3, acceptNone = false, spec, ungated = {} }: { counter?: number, acceptNone?: boolean, spec?: unknown, ungated?: Record<string, [number, unknown]> } = {}) {
  const gate: Gate = { issued: 0, verified: 0 }
  const upstream = await startUpstream(t, (request: RecordedRequest, response: ServerResponse) => {
    void (async () => {
      if (request.url !== path) return jsonAnswer(...(ungated[request.url] ?? [404, { error: 'Not found.' }]))(request, response)
      const header = request.headers[CHALLENGE_HEADER]
      if (typeof header === 'string' && !acceptNone) {
        const { challenge, solution } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'))
        const result = await verifySolution({ challenge, solution, deriveKey, hmacSignatureSecret: SECRET })
        if (result.verified) {
          gate.verified++
          return jsonAnswer(...answer)(request, response)
        }
      }
      gate.issued++
      const challenge = await createChallenge({ algorithm: 'PBKDF2/SHA-256', cost: 1000, counter, deriveKey, hmacSignatureSecret: SECRET, expiresAt: Math.floor(Date.now() / 1000) + 60 })
      jsonAnswer(428, { error: 'Please wait while your browser is checked.', reason: 'challenge_required', challenge: spec ?? { kind: 'pow', challenge } })(request, response)
    })()
  })
  return { base: pageOrigin(upstream.url), upstream, gate }
}

async function logIn (t: Test, base: string, query = '?redirect=%2Fapp') {
  embedTexts(t)
  const { user } = renderPage(t, base, query)
  await signInOnView(user, 'ada@example.test', 'correct horse battery staple')
  return user
}

t.test('a login answered with a challenge is solved without the visitor doing anything, posted again once with the solution, and signs in', async (t) => {
  const { base, upstream, gate } = await startGate(t, '/accounts/v2/login', [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }])
  await logIn(t, base)
  await eventually(t, () => window.location.href, `${base}/app`, 'the page left for the redirect target')
  t.equal(gate.issued, 1, 'one challenge')
  t.equal(gate.verified, 1, 'its solution verified')
  t.equal(upstream.requests.length, 2, 'the call and its repeat, nothing more')
  t.equal(upstream.requests[0]!.headers[CHALLENGE_HEADER], undefined, 'the first call carries no solution')
  t.same(JSON.parse(upstream.requests[1]!.body.toString()), JSON.parse(upstream.requests[0]!.body.toString()), 'the same call again')
})

t.test('registration and the reset request are solved the same way', async (t) => {
  for (const [path, view, fill, button, shown] of [
    ['/accounts/register', 'register', ['Company Email', 'Password', 'Confirm Password'], 'Sign Up', 'Registered.'],
    ['/accounts/resetPasswordRequest', 'resetPassword', ['Email'], 'Send a Password Reset Email', 'Sent.']
  ] as const) {
    await t.test(view, async (t) => {
      const { base, gate } = await startGate(t, path, [200, { success: shown }])
      embedTexts(t)
      const { user } = renderPage(t, base, `?view=${view}`)
      for (const label of fill) await user.type(screen.getByLabelText(label, { selector: 'input' }), label.includes('Email') ? 'ada@example.test' : 'correct horse battery staple')
      await user.click(screen.getByRole('button', { name: button }))
      await eventuallyOk(t, () => screen.queryByText(shown) !== null, 'the success text shows')
      t.equal(gate.verified, 1)
    })
  }
})

t.test('solving that lasts over a second is said in a polite live region, which goes once the call is through; the button stays busy meanwhile', async (t) => {
  // About 4,000 PBKDF2 keys of 1,000 rounds: seconds on the page's thread.
  const { base } = await startGate(t, '/accounts/v2/login', [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }], { counter: 4000 })
  await logIn(t, base)
  const checking = english('browserCheck.checking')
  t.equal(screen.queryByText(checking), null, 'nothing said at first')
  t.equal(screen.getByRole('button', { name: 'Login' }).getAttribute('aria-busy'), 'true', 'the button is busy')
  const started = Date.now()
  await waitFor(() => screen.getByText(checking), { timeout: 5000 })
  t.ok(Date.now() - started >= CHECKING_NOTE_DELAY_MS - 200, 'said after about a second')
  const region = screen.getByText(checking).closest('[role="status"]')
  t.ok(region, 'in a status region (polite)')
  t.equal(screen.getByRole('button', { name: 'Login' }).getAttribute('aria-busy'), 'true', 'the button still busy')
  await waitFor(() => { if (window.location.pathname !== '/app') throw new Error('not yet') }, { timeout: 60_000 })
  t.equal(screen.queryByText(checking), null, 'the note is gone')
  t.notOk(region!.isConnected, 'and its region with it')
})

t.test('the reset link asked for from the breached-password notice says "checking your browser" too, in the notice\'s card', async (t) => {
  const { base } = await startGate(t, '/accounts/resetPasswordRequest', [200, { success: 'Sent.' }], {
    counter: 4000,
    ungated: { '/accounts/v2/login': [200, { auth: 'eyJ.auth', refresh: 'refresh-1', [PASSWORD_BREACHED_FIELD]: true }] }
  })
  const user = await logIn(t, base)
  await user.click(await screen.findByRole('button', { name: english('breachedPassword.sendLink') }))
  const checking = english('browserCheck.checking')
  await waitFor(() => screen.getByText(checking), { timeout: 5000 })
  const note = screen.getByText(checking)
  t.ok(note.closest('[role="status"]'), 'in a status region (polite)')
  t.ok(note.closest('section')?.contains(screen.getByRole('button', { name: english('breachedPassword.sendLink') })), 'inside the notice, beside its button, where the visitor looks')
  await waitFor(() => screen.getByText(english('breachedPassword.linkSent', { email: 'ada@example.test' })), { timeout: 60_000 })
  t.equal(screen.queryByText(checking), null, 'the note is gone')
})

t.test('a challenge the page cannot solve (a garbage spec) is refused with a clear text, without a second call', async (t) => {
  for (const [what, spec] of [
    ['an unknown kind', { kind: 'puzzle' }],
    ['no challenge', { kind: 'pow' }],
    ['a challenge of junk', { kind: 'pow', challenge: { parameters: { algorithm: 'PBKDF2/SHA-256', nonce: 'zz', salt: 'zz', cost: 1, keyPrefix: 'zz' } } }],
    ['an algorithm the page lacks', { kind: 'pow', challenge: { parameters: { algorithm: 'MD5', nonce: '00', salt: '00', cost: 1, keyPrefix: '00', keyLength: 32 } } }],
    ['a widget without a site key', { kind: 'turnstile' }]
  ] as const) {
    await t.test(what, async (t) => {
      const { base, upstream } = await startGate(t, '/accounts/v2/login', [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }], { spec })
      await logIn(t, base)
      await eventually(t, () => screen.queryByRole('alert')?.textContent, english('browserCheck.failed'))
      t.equal(upstream.requests.length, 1, 'no call made again')
      t.notOk(screen.getByRole('button', { name: 'Login' }).hasAttribute('disabled'), 'the form is usable again')
      t.equal(window.location.pathname, '/', 'still on the page')
    })
  }
})

t.test(`a gate that asks again after every solution gets ${CHALLENGE_ROUNDS} solutions at most, then the visitor is told`, async (t) => {
  const { base, upstream, gate } = await startGate(t, '/accounts/v2/login', [200, { auth: 'eyJ.auth', refresh: 'refresh-1' }], { acceptNone: true })
  await logIn(t, base)
  await eventually(t, () => screen.queryByRole('alert')?.textContent, english('browserCheck.failed'))
  t.equal(upstream.requests.length, 1 + CHALLENGE_ROUNDS, 'the call, and one repeat a round')
  t.equal(gate.issued, 1 + CHALLENGE_ROUNDS)
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(upstream.requests.length, 1 + CHALLENGE_ROUNDS, 'and no more after')
})

t.test('a 428 that is no challenge is an ordinary refusal, shown as it came', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(428, { error: 'Precondition required by a proxy.' }))
  await logIn(t, pageOrigin(upstream.url))
  await eventually(t, () => screen.queryByRole('alert')?.textContent, 'Precondition required by a proxy.')
  t.equal(upstream.requests.length, 1)
})

t.test('a page whose later texts do not load still answers, and refuses with the edge\'s own text', async (t) => {
  const { base, upstream } = await startGate(t, '/accounts/v2/login', [200, {}], { spec: { kind: 'pow' } })
  // The edge's page names its later texts; here they are missing (the gate answers 404), twice.
  embedTexts(t, { ...englishMessages(), laterTextsUrl: '/assets/messages/en-MISSING.json' })
  const { user } = renderPage(t, base)
  await signInOnView(user, 'ada@example.test', 'pw', { pressEnter: true })
  await eventually(t, () => screen.queryByRole('alert')?.textContent, 'Please wait while your browser is checked.')
  t.equal(upstream.requests.filter((request) => request.url === '/accounts/v2/login').length, 1, 'no call made again')
})
