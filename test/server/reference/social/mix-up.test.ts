import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { startGithubStandIn } from '../../../fixtures/social/github-stand-in.js'
import { startSocialStack } from '../../../fixtures/social/social-stack.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'

/*
 * The mix-up attack (RFC 9700 §4.4): a configured provider turned hostile
 * (here a generic OAuth 2.0 one, "Evil") sends the visitor who chose it on to
 * GitHub's authorization, with the visitor's own state and the attacker's
 * PKCE challenge. GitHub knows the visitor and answers at once with a code.
 * Were every connection to share one return address, that code would be
 * taken for Evil's sign-in and posted to Evil's token endpoint, and the
 * attacker would redeem it with his verifier in his own browser. Each
 * connection has its own address: GitHub's answer lands on GitHub's, where a
 * sign-in started with Evil is refused, and nothing is exchanged or spent.
 */
t.test('mix-up: a hostile provider relays the visitor to GitHub, and GitHub\'s code goes nowhere', async (t) => {
  let registered = ''
  const github = await startGithubStandIn(t, { redirectUri: () => registered })
  // Evil records the codes posted to its token endpoint.
  const stolen: string[] = []
  const evil = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => { body += chunk.toString() })
    request.on('end', () => {
      if (request.url?.startsWith('/token') === true) stolen.push(new URLSearchParams(body).get('code') ?? '')
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}')
    })
  })
  evil.listen(0, '127.0.0.1')
  await once(evil, 'listening')
  t.teardown(() => { evil.closeAllConnections(); evil.close() })
  const evilBase = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`
  const stack = await startSocialStack(t, {
    env: {
      SOCIAL_CONNECTIONS: JSON.stringify([
        github.connection(),
        { type: 'oauth2', id: 'evil', name: 'Evil', client_id: 'x', client_secret: 'y', authorization_endpoint: `${evilBase}/authorize`, token_endpoint: `${evilBase}/token`, userinfo_endpoint: `${evilBase}/userinfo` }
      ])
    }
  })
  /** Where the provider sends the browser: the authorization request's `redirect_uri`, with the answer. */
  const answered = (authorization: URL, answer: URLSearchParams): string => `${authorization.searchParams.get('redirect_uri')!}?${answer.toString()}`

  // The victim has an account through GitHub; the operator registered the return address GitHub is sent.
  const victim = new TestBrowser()
  const own = new URL(await stack.socialUrl(victim, 'github'))
  registered = own.searchParams.get('redirect_uri')!
  const signedIn = await stack.complete(victim, await stack.returnToPage(victim, answered(own, await github.authorize(own.href, 'octocat'))))
  t.equal(signedIn.status, 200, 'the victim signs in with GitHub')

  // The attacker starts a GitHub sign-in in his own browser: its state and PKCE challenge.
  const attacker = new TestBrowser()
  const attackerUrl = new URL(await stack.socialUrl(attacker, 'github'))
  // The victim clicks "Continue with Evil"; Evil sends him on to GitHub with his state and the attacker's challenge.
  const victimEvil = new URL(await stack.socialUrl(victim, 'evil'))
  t.not(victimEvil.searchParams.get('redirect_uri'), registered, 'Evil is given an address of its own')
  const toGithub = new URL(attackerUrl)
  toGithub.searchParams.set('state', victimEvil.searchParams.get('state')!)
  const landing = await stack.returnToPage(victim, answered(toGithub, await github.authorize(toGithub.href, 'octocat')))
  t.equal(stolen.length, 0, 'GitHub\'s code never reaches Evil\'s token endpoint')
  t.notOk(landing.params.has('id'), 'no sign-in for the victim either')
  t.match(landing.params.get('error'), /not started in this browser/, 'a clear message')
  t.equal(stack.lastRefusal(), 'an answer for another connection\'s sign-in', 'the refusal is audited for what it is')

  // Nor may Evil send GitHub's answer to its own address: GitHub returns only under the address registered with it.
  const toEvilAddress = new URL(toGithub)
  toEvilAddress.searchParams.set('redirect_uri', victimEvil.searchParams.get('redirect_uri')!)
  await t.rejects(github.authorize(toEvilAddress.href, 'octocat'), 'GitHub refuses another connection\'s return address')

  // Nothing was spent: the victim's sign-in with Evil is still his own to finish (it fails only at Evil).
  const atEvil = new URLSearchParams({ code: 'evil-code', state: victimEvil.searchParams.get('state')! })
  const evilLanding = await stack.returnToPage(victim, `${victimEvil.searchParams.get('redirect_uri')!}?${atEvil.toString()}`)
  t.match(evilLanding.params.get('error'), /answer of Evil could not be verified/, 'the transaction was still there for Evil\'s own answer')
  t.same(stolen, ['evil-code'], 'only Evil\'s own code went to Evil')
})
