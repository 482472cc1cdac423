import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { appleClient } from '../../../../../server/reference/social/providers/apple-client.js'
import { startAppleStandIn } from '../../../../fixtures/social/apple-stand-in.js'
import { socialConnection, TEST_RETURN_URLS } from '../../../../fixtures/social/social-connection.js'

t.test('Sign in with Apple against a stand-in that speaks its protocol', async (t) => {
  const apple = await startAppleStandIn(t)
  const client = appleClient(socialConnection(apple.connection()), TEST_RETURN_URLS, Date.now)

  /** Begins, signs `login` in at the stand-in, and gives back the request's secrets with the fields Apple's page posts. */
  const signIn = async (login: string, chosen = client): Promise<{ secrets: Awaited<ReturnType<typeof client.begin>>['secrets'], fields: URLSearchParams }> => {
    const { url, secrets } = await chosen.begin()
    const { action, fields } = await apple.authorize(url, login)
    if (action !== TEST_RETURN_URLS.formPost) throw new Error(`Apple's page posts to ${action}, not the form_post address`)
    return { secrets, fields }
  }

  t.test('the authorization request asks for the name and address by form post, with state, nonce and PKCE (S256)', async (t) => {
    const { url } = await client.begin()
    const request = new URL(url)
    t.equal(`${request.origin}${request.pathname}`, `${apple.issuer}/auth/authorize`)
    t.equal(request.searchParams.get('client_id'), apple.clientId)
    t.equal(request.searchParams.get('redirect_uri'), TEST_RETURN_URLS.formPost)
    t.equal(request.searchParams.get('response_type'), 'code')
    t.equal(request.searchParams.get('response_mode'), 'form_post')
    t.equal(request.searchParams.get('scope'), 'name email')
    t.match(request.searchParams.get('state'), /^[\w-]{43}$/)
    t.match(request.searchParams.get('nonce'), /^[\w-]{43}$/)
    t.match(request.searchParams.get('code_challenge'), /^[\w-]{43}$/)
    t.equal(request.searchParams.get('code_challenge_method'), 'S256')
  })

  t.test('a first sign-in names the visitor, with the verified address of the ID token', async (t) => {
    apple.forget('alice')
    const { secrets, fields } = await signIn('alice')
    t.ok(fields.has('user'), 'Apple sends the user field on the first sign-in')
    t.same(await client.finish(fields, secrets), {
      subject: '001234.a1b2c3d4e5f6.0001', email: 'alice@example.com', emailVerified: true, firstName: 'Alice', lastName: 'Appleseed'
    })
  })

  t.test('a later sign-in brings no name, and the same subject', async (t) => {
    await signIn('alice').then(({ secrets, fields }) => client.finish(fields, secrets))
    const { secrets, fields } = await signIn('alice')
    t.notOk(fields.has('user'), 'no user field the second time')
    const identity = await client.finish(fields, secrets)
    t.equal(identity.subject, '001234.a1b2c3d4e5f6.0001')
    t.equal(identity.email, 'alice@example.com')
    t.equal(identity.firstName, null)
    t.equal(identity.lastName, null)
  })

  t.test('the address in the unsigned user field is never taken: only the ID token\'s', async (t) => {
    apple.forget('alice')
    const { secrets, fields } = await signIn('alice')
    fields.set('user', JSON.stringify({ name: { firstName: 'Alice', lastName: 'A' }, email: 'victim@example.com' }))
    const identity = await client.finish(fields, secrets)
    t.equal(identity.email, 'alice@example.com')
    t.equal(identity.firstName, 'Alice')
  })

  t.test('a malformed user field brings no name and does not stop the sign-in', async (t) => {
    apple.forget('alice')
    const { secrets, fields } = await signIn('alice')
    fields.set('user', '{"name": "not an object"')
    const identity = await client.finish(fields, secrets)
    t.equal(identity.firstName, null)
    t.equal(identity.emailVerified, true)
  })

  t.test('a private relay address is a verified address', async (t) => {
    const { secrets, fields } = await signIn('hidden')
    const identity = await client.finish(fields, secrets)
    t.match(identity.email, /@privaterelay\.appleid\.com$/)
    t.equal(identity.emailVerified, true)
    t.equal(identity.firstName, 'Hidden')
  })

  t.test('email_verified is read as Apple writes it: the string "true" or "false", or a boolean', async (t) => {
    const unverified = await signIn('unverified')
    t.equal((await client.finish(unverified.fields, unverified.secrets)).emailVerified, false, '"false"')
    apple.users.set('boolean', { sub: '001234.a1b2c3d4e5f6.0004', email: 'bool@example.com', emailVerified: true, firstName: 'B', lastName: 'Ool' })
    const boolean = await signIn('boolean')
    t.equal((await client.finish(boolean.fields, boolean.secrets)).emailVerified, true, 'true')
  })

  t.test('is_private_email does not vouch for an address outside Apple\'s relay domain', async (t) => {
    const { secrets, fields } = await signIn('unverified')
    apple.tamperNextIdToken({ is_private_email: 'true' })
    const identity = await client.finish(fields, secrets)
    t.equal(identity.email, 'unverified@example.com')
    t.equal(identity.emailVerified, false)
  })

  t.test('the stand-in refuses a client secret signed with another key, so ours is proven right', async (t) => {
    const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const forger = appleClient(socialConnection(apple.connection({ private_key: stranger })), TEST_RETURN_URLS, Date.now)
    const { secrets, fields } = await signIn('alice', forger)
    const before = apple.refusals.length
    await t.rejects(forger.finish(fields, secrets), /^Apple's token endpoint answered invalid_client$/)
    t.same(apple.refusals.slice(before), ['client_secret: ERR_JWS_SIGNATURE_VERIFICATION_FAILED'])
  })

  t.test('the stand-in refuses a client secret naming another key id or team', async (t) => {
    for (const [overrides, reason] of [
      [{ key_id: 'OTHERKEY12' }, 'client_secret kid is not the key id'],
      [{ team_id: 'OTHERTEAM1' }, 'client_secret: ERR_JWT_CLAIM_VALIDATION_FAILED']
    ] as const) {
      const wrong = appleClient(socialConnection(apple.connection(overrides)), TEST_RETURN_URLS, Date.now)
      const { secrets, fields } = await signIn('alice', wrong)
      const before = apple.refusals.length
      await t.rejects(wrong.finish(fields, secrets), /^Apple's token endpoint answered invalid_client$/)
      t.same(apple.refusals.slice(before), [reason])
    }
  })

  t.test('a client secret lives minutes, not months, and is Apple\'s shape', async (t) => {
    const exchanges: string[] = []
    const started = Date.now()
    // A clock that moves past the cached secret's life: the second exchange must carry a fresh one.
    let offset = 0
    const clocked = appleClient(socialConnection(apple.connection()), TEST_RETURN_URLS, () => started + offset)
    for (const step of [0, 4.5 * 60 * 1000]) {
      offset = step
      const { secrets, fields } = await signIn('alice', clocked)
      await clocked.finish(fields, secrets)
      exchanges.push(apple.clientSecrets.at(-1)!)
    }
    const [first] = exchanges.map((jwt) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, number | string>)
    t.equal(first!.iss, apple.teamId)
    t.equal(first!.sub, apple.clientId)
    t.equal(first!.aud, apple.issuer)
    t.ok(Number(first!.exp) - Number(first!.iat) <= 5 * 60, 'five minutes at most')
    t.not(exchanges[0], exchanges[1], 'a secret near its expiry is replaced')
  })

  t.test('a replayed code is refused by Apple', async (t) => {
    const { secrets, fields } = await signIn('alice')
    await client.finish(fields, secrets)
    await t.rejects(client.finish(fields, secrets), /^Apple's token endpoint answered invalid_grant$/)
    t.equal(apple.refusals.at(-1), 'code unknown or used')
  })

  t.test('an answer to another request (its nonce and PKCE verifier) is refused', async (t) => {
    const first = await signIn('alice')
    const second = await signIn('alice')
    await t.rejects(client.finish(second.fields, { ...first.secrets, state: second.secrets.state }), /^Apple's token endpoint answered invalid_grant$/)
    t.equal(apple.refusals.at(-1), 'code_verifier does not match', 'Apple checks the PKCE verifier')
  })

  t.test('an ID token with another nonce is refused', async (t) => {
    const { secrets, fields } = await signIn('alice')
    apple.tamperNextIdToken({ nonce: 'another-nonce' })
    await t.rejects(client.finish(fields, secrets), /^Apple's answer did not verify: .* \(claim nonce\)$/)
  })

  t.test('an ID token for another audience, or from another issuer, is refused', async (t) => {
    for (const [claims, claim] of [[{ aud: 'com.example.other' }, 'aud'], [{ iss: 'https://appleid.apple.com' }, 'iss']] as const) {
      const { secrets, fields } = await signIn('alice')
      apple.tamperNextIdToken(claims)
      await t.rejects(client.finish(fields, secrets), new RegExp(`\\(claim ${claim}\\)$`))
    }
  })

  t.test('an ID token signed with a key that is not Apple\'s is refused, whatever it claims', async (t) => {
    const { secrets, fields } = await signIn('alice')
    apple.forgeNextIdToken()
    await t.rejects(client.finish(fields, secrets), /^Apple's answer did not verify: /)
  })

  t.test('an answer with another state is refused', async (t) => {
    const { secrets, fields } = await signIn('alice')
    fields.set('state', 'A'.repeat(43))
    await t.rejects(client.finish(fields, secrets), /^Apple's answer did not verify: .*"state"/)
  })

  t.test('the stand-in, as Apple, posts an ID token only when asked for one, and puts scopes in no URL', async (t) => {
    const { url } = await client.begin()
    const hybrid = new URL(url)
    hybrid.searchParams.set('response_type', 'code id_token')
    const { fields } = await apple.authorize(hybrid.href, 'alice')
    t.same([...fields.keys()].filter((name) => name !== 'user').sort(), ['code', 'id_token', 'state'])
    const query = new URL(url)
    query.searchParams.set('response_mode', 'query')
    const refused = await fetch(query)
    t.equal(refused.status, 400)
    t.match(await refused.text(), /response_mode must be form_post/)
  })

  t.test('a visitor who cancels at Apple is an error naming Apple\'s code', async (t) => {
    const { url, secrets } = await client.begin()
    apple.refuseNext()
    const { fields } = await apple.authorize(url)
    t.equal(fields.get('error'), 'user_cancelled_authorize')
    t.equal(fields.get('state'), secrets.state)
    t.notOk(fields.has('code'))
    await t.rejects(client.finish(fields, secrets), /the provider answered user_cancelled_authorize/)
  })
})
