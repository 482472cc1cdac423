import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { socialClients } from '../../../../../server/reference/social/providers/social-clients.js'
import { parseSocialConnections } from '../../../../../server/shared/social/social-connections.js'

const URLS = (id: string) => ({ callback: `https://signin.example.test/accounts/auth/social/callback/${id}`, formPost: `https://signin.example.test/accounts/auth/social/form-post/${id}` })

t.test('each connection gets the client of its type, by its id', async (t) => {
  const connections = parseSocialConnections(JSON.stringify([
    { type: 'oidc', id: 'gitlab', name: 'GitLab', issuer: 'https://gitlab.example.test', client_id: 'c', client_secret: 's' },
    { type: 'oauth2', id: 'forge', name: 'Forge', client_id: 'c', client_secret: 's', authorization_endpoint: 'https://forge.test/a', token_endpoint: 'https://forge.test/t', userinfo_endpoint: 'https://forge.test/u' }
  ]))
  const clients = socialClients(connections, URLS, Date.now)
  t.same([...clients.keys()], ['gitlab', 'forge'])
  const begun = await clients.get('forge')!.begin()
  const url = new URL(begun.url)
  t.equal(url.origin + url.pathname, 'https://forge.test/a')
  t.equal(url.searchParams.get('redirect_uri'), URLS('forge').callback, 'its own return address')
  t.equal(url.searchParams.get('state'), begun.secrets.state)
  t.equal(begun.secrets.nonce, null, 'no nonce without an ID token')
})

t.test('Apple, Microsoft and GitHub connections get their own clients', async (t) => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const connections = parseSocialConnections(JSON.stringify([
    { type: 'apple', client_id: 'com.example.signin', team_id: 'TEAMID1234', key_id: 'KEYID12345', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) },
    { type: 'microsoft', client_id: 'c', client_secret: 's' },
    { type: 'github', client_id: 'c', client_secret: 's' }
  ]))
  const clients = socialClients(connections, URLS, Date.now)
  t.same([...clients.keys()], ['apple', 'microsoft', 'github'])
  const apple = new URL((await clients.get('apple')!.begin()).url)
  t.equal(apple.origin + apple.pathname, 'https://appleid.apple.com/auth/authorize')
  t.equal(apple.searchParams.get('redirect_uri'), URLS('apple').formPost, 'Apple posts its answer back, to its own address')
  const github = new URL((await clients.get('github')!.begin()).url)
  t.equal(github.origin + github.pathname, 'https://github.com/login/oauth/authorize')
  t.equal(github.searchParams.get('redirect_uri'), URLS('github').callback)
})
