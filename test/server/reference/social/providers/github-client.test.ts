import { get } from 'node:http'
import t from 'tap'
import { githubClient } from '../../../../../server/reference/social/providers/github-client.js'
import { startGithubStandIn } from '../../../../fixtures/social/github-stand-in.js'
import { socialConnection, TEST_RETURN_URLS } from '../../../../fixtures/social/social-connection.js'

t.test('a GitHub OAuth app against a stand-in of GitHub', async (t) => {
  const github = await startGithubStandIn(t)
  const clientFor = (overrides: Record<string, unknown> = {}): ReturnType<typeof githubClient> =>
    githubClient(socialConnection(github.connection(overrides)), TEST_RETURN_URLS, Date.now)
  const client = clientFor()

  const signIn = async (login: string, chosen = client): ReturnType<typeof client.finish> => {
    const { url, secrets } = await chosen.begin()
    return chosen.finish(await github.authorize(url, login), secrets)
  }

  t.test('the authorization request asks for the profile and addresses, with state and PKCE (S256), and no nonce', async (t) => {
    const { url, secrets } = await client.begin()
    const request = new URL(url)
    t.equal(`${request.origin}${request.pathname}`, `${github.baseUrl}/login/oauth/authorize`)
    t.equal(request.searchParams.get('client_id'), github.clientId)
    t.equal(request.searchParams.get('redirect_uri'), TEST_RETURN_URLS.callback)
    t.equal(request.searchParams.get('scope'), 'read:user user:email')
    t.equal(request.searchParams.get('state'), secrets.state)
    t.match(request.searchParams.get('code_challenge'), /^[\w-]{43}$/)
    t.equal(request.searchParams.get('code_challenge_method'), 'S256')
    t.equal(secrets.nonce, null)
  })

  t.test('a verified primary address names the user by their numeric id', async (t) => {
    const before = github.apiRequests.length
    t.same(await signIn('octocat'), { subject: '583231', email: 'octocat@github.example', emailVerified: true, firstName: 'The Octocat', lastName: null })
    const calls = github.apiRequests.slice(before)
    t.same(calls.map((call) => call.path), ['/user', '/user/emails'])
    for (const call of calls) {
      t.equal(call.accept, 'application/vnd.github+json')
      t.equal(call.apiVersion, '2022-11-28')
      t.match(call.userAgent, /^Threshold/)
    }
  })

  t.test('an unverified primary address is named unverified, and a verified secondary is not taken instead', async (t) => {
    t.same(await signIn('unverified'), { subject: '9000001', email: 'unverified@github.example', emailVerified: false, firstName: null, lastName: null })
  })

  t.test('no primary address: no address', async (t) => {
    const identity = await signIn('noprimary')
    t.equal(identity.email, null)
    t.equal(identity.emailVerified, false)
  })

  t.test('the token endpoint\'s error, answered with 200, is an error', async (t) => {
    await t.rejects(signIn('octocat', clientFor({ client_secret: 'not-the-secret' })), /^GitHub's token endpoint answered incorrect_client_credentials$/)
    t.equal(github.refusals.at(-1), 'client credentials')
  })

  t.test('a replayed code is refused by GitHub', async (t) => {
    const { url, secrets } = await client.begin()
    const answer = await github.authorize(url, 'octocat')
    await client.finish(answer, secrets)
    await t.rejects(client.finish(answer, secrets), /answered bad_verification_code/)
    t.equal(github.refusals.at(-1), 'code unknown, used or expired')
  })

  t.test('a code exchanged with another request\'s PKCE verifier is refused by GitHub', async (t) => {
    const first = await client.begin()
    const second = await client.begin()
    const answer = await github.authorize(second.url, 'octocat')
    await t.rejects(client.finish(answer, { ...second.secrets, codeVerifier: first.secrets.codeVerifier }), /answered bad_verification_code/)
    t.equal(github.refusals.at(-1), 'code_verifier does not match')
  })

  t.test('an answer with another state, or the visitor\'s cancel, is an error', async (t) => {
    const { url, secrets } = await client.begin()
    const answer = await github.authorize(url, 'octocat')
    answer.set('state', 'A'.repeat(43))
    await t.rejects(client.finish(answer, secrets), /another state/)
    github.refuseNext()
    const refused = await client.begin()
    const denial = await github.authorize(refused.url)
    t.equal(denial.get('error'), 'access_denied')
    await t.rejects(client.finish(denial, refused.secrets), /the provider answered access_denied/)
  })

  t.test('the stand-in, as GitHub, takes only the registered callback URL when it is given one', async (t) => {
    const registered = await startGithubStandIn(t, { redirectUri: () => TEST_RETURN_URLS.callback })
    const ours = githubClient(socialConnection(registered.connection()), TEST_RETURN_URLS, Date.now)
    const { url, secrets } = await ours.begin()
    t.equal((await ours.finish(await registered.authorize(url), secrets)).subject, '583231')
    const elsewhere = githubClient(socialConnection(registered.connection()), { ...TEST_RETURN_URLS, callback: 'http://127.0.0.1:9/elsewhere' }, Date.now)
    await t.rejects(registered.authorize((await elsewhere.begin()).url), /400 .*redirect_uri_mismatch/)
  })

  t.test('the stand-in, as GitHub, refuses an API call without a User-Agent and the emails without user:email', async (t) => {
    const { url, secrets } = await client.begin()
    const narrowed = new URL(url)
    narrowed.searchParams.set('scope', 'read:user')
    narrowed.searchParams.set('stand_in_user', 'octocat')
    const answer = new URL((await fetch(narrowed, { redirect: 'manual' })).headers.get('location')!).searchParams
    await t.rejects(client.finish(answer, secrets), /^GitHub's emails endpoint answered 404$/)
    // node:http sends no User-Agent of its own (fetch would).
    const status = await new Promise<number | undefined>((resolve, reject) => {
      get(`${github.apiUrl}/user`, (response) => {
        response.resume()
        resolve(response.statusCode)
      }).on('error', reject)
    })
    t.equal(status, 403, 'no User-Agent, no answer')
    t.equal((await fetch(`${github.apiUrl}/user`)).status, 401, 'and a token is needed')
  })
})
