import t from 'tap'
import { socialClients } from '../../../../../server/reference/social/providers/social-clients.js'
import { ConfigError } from '../../../../../server/shared/env-parsing.js'
import { parseSocialConnections } from '../../../../../server/shared/social/social-connections.js'

const URLS = { callback: 'https://signin.example.test/accounts/auth/social/callback', formPost: 'https://signin.example.test/accounts/auth/social/form-post' }

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
  t.equal(url.searchParams.get('redirect_uri'), URLS.callback)
  t.equal(url.searchParams.get('state'), begun.secrets.state)
  t.equal(begun.secrets.nonce, null, 'no nonce without an ID token')
})

t.test('a connection of a type this service has no client for stops the start, naming it', async (t) => {
  const connections = parseSocialConnections(JSON.stringify([
    { type: 'oauth2', id: 'forge', name: 'Forge', client_id: 'c', client_secret: 's', authorization_endpoint: 'https://forge.test/a', token_endpoint: 'https://forge.test/t', userinfo_endpoint: 'https://forge.test/u' }
  ]))
  t.throws(() => socialClients(connections, URLS, Date.now, {}), ConfigError)
  t.throws(() => socialClients(connections, URLS, Date.now, {}), /forge: connections of type oauth2 are not served/)
})
