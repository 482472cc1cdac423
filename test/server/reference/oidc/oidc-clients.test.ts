import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../../../server/shared/env-parsing.js'
import {
  OidcClientsError,
  openOidcClientRegistry,
  parseOidcClients,
  secretMatches,
  secretSha256
} from '../../../../server/reference/oidc/oidc-clients.js'
import { SqliteAccountStore } from '../../../../server/reference/store/sqlite-store.js'
import { oidcClient } from '../../../fixtures/store/oidc-store-contract.js'

const SECRET = 'a-client-secret-of-at-least-32-characters'

const confidential = {
  client_id: 'crm.example_app-1',
  client_name: 'Example CRM',
  redirect_uris: ['https://crm.example.com/oidc/callback', 'http://127.0.0.1:8400/callback'],
  client_secret: SECRET
}

const noFile = (path: string): string => { throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' }) }

function errorFor (raw: string, readFile: (path: string) => string = noFile): OidcClientsError {
  try {
    parseOidcClients(raw, readFile)
  } catch (error) {
    if (error instanceof OidcClientsError) return error
    throw error
  }
  throw new Error('expected OIDC_CLIENTS to be refused')
}

t.test('an unset or blank OIDC_CLIENTS means no clients', async (t) => {
  t.same(parseOidcClients(undefined, noFile), [])
  t.same(parseOidcClients('  ', noFile), [])
})

t.test('a confidential client keeps only its secret\'s SHA-256, and gets the defaults', async (t) => {
  const [client] = parseOidcClients(JSON.stringify([confidential]), noFile)
  t.same(client, {
    clientId: 'crm.example_app-1',
    name: 'Example CRM',
    redirectUris: ['https://crm.example.com/oidc/callback', 'http://127.0.0.1:8400/callback'],
    postLogoutRedirectUris: [],
    clientUri: null,
    backchannelLogoutUri: null,
    firstParty: false,
    authMethod: 'client_secret_basic',
    secretSha256: secretSha256(SECRET)
  })
  t.notMatch(JSON.stringify(client), SECRET, 'the secret itself is not kept')
  t.ok(Object.isFrozen(client) && Object.isFrozen(client!.redirectUris), 'frozen, as the rest of the configuration')
})

t.test('every field is read: a public first-party client, and one giving its secret as a hash', async (t) => {
  const clients = parseOidcClients(JSON.stringify([
    {
      client_id: 'cli',
      client_name: 'Command line',
      redirect_uris: ['http://localhost:53682/'],
      post_logout_redirect_uris: ['http://localhost:53682/bye'],
      client_uri: 'https://tools.example.com',
      backchannel_logout_uri: 'https://tools.example.com/backchannel',
      first_party: true,
      token_endpoint_auth_method: 'none'
    },
    { ...confidential, client_id: 'hashed', client_secret: undefined, client_secret_sha256: secretSha256(SECRET), token_endpoint_auth_method: 'client_secret_post' }
  ]), noFile)
  t.same(clients[0], {
    clientId: 'cli',
    name: 'Command line',
    redirectUris: ['http://localhost:53682/'],
    postLogoutRedirectUris: ['http://localhost:53682/bye'],
    clientUri: 'https://tools.example.com',
    backchannelLogoutUri: 'https://tools.example.com/backchannel',
    firstParty: true,
    authMethod: 'none',
    secretSha256: null
  })
  t.equal(clients[1]!.authMethod, 'client_secret_post')
  t.equal(clients[1]!.secretSha256, secretSha256(SECRET))
})

t.test('OIDC_CLIENTS may name a JSON file, read as written', async (t) => {
  const asked: string[] = []
  const clients = parseOidcClients(' config/clients.json ', (path) => { asked.push(path); return JSON.stringify([confidential]) })
  t.same(asked, ['config/clients.json'])
  t.equal(clients[0]!.clientId, 'crm.example_app-1')
  t.equal(errorFor('/etc/threshold/missing.json').message,
    'OIDC_CLIENTS: must be a JSON array, or the path of a JSON file holding one; the file /etc/threshold/missing.json could not be read (ENOENT)')
  t.equal(errorFor('clients.json', () => '[oops').message, 'OIDC_CLIENTS: the file clients.json is not valid JSON')
})

const withField = (field: string, value: unknown): string => JSON.stringify([confidential, { ...confidential, client_id: 'second', [field]: value }])

const badLists: Array<[string, string, string]> = [
  ['text that is not JSON', '[not json', 'OIDC_CLIENTS: is not valid JSON'],
  ['one object rather than an array', JSON.stringify(confidential), 'OIDC_CLIENTS: must be a JSON array of clients'],
  ['an entry that is not an object', JSON.stringify([confidential, 'crm']), 'OIDC_CLIENTS[1]: must be an object'],
  ['no client_id', withField('client_id', undefined), 'OIDC_CLIENTS[1].client_id: is required'],
  ['a client_id with a space', withField('client_id', 'my app'), 'OIDC_CLIENTS[1].client_id: must be 1 to 64 of the characters A-Z a-z 0-9 . _ -'],
  ['a client_id of 65 characters', withField('client_id', 'a'.repeat(65)), 'OIDC_CLIENTS[1].client_id: must be 1 to 64 of the characters A-Z a-z 0-9 . _ -'],
  ['a client_id twice', JSON.stringify([confidential, confidential]), 'OIDC_CLIENTS[1].client_id: crm.example_app-1 is already the id of OIDC_CLIENTS[0]'],
  ['no client_name', withField('client_name', undefined), 'OIDC_CLIENTS[1].client_name: is required'],
  ['a blank client_name', withField('client_name', ' '), 'OIDC_CLIENTS[1].client_name: must be a non-empty string'],
  ['no redirect_uris', withField('redirect_uris', undefined), 'OIDC_CLIENTS[1].redirect_uris: is required (a non-empty array of URLs)'],
  ['an empty redirect_uris', withField('redirect_uris', []), 'OIDC_CLIENTS[1].redirect_uris: must name at least one URL'],
  ['a redirect_uris string', withField('redirect_uris', 'https://crm.example.com/cb'), 'OIDC_CLIENTS[1].redirect_uris: must be an array of URLs'],
  ['a plain http redirect URI on a public host', withField('redirect_uris', ['https://ok.example.com/cb', 'http://crm.example.com/cb']),
    'OIDC_CLIENTS[1].redirect_uris[1]: must be https (plain http is allowed only for loopback hosts)'],
  ['a relative redirect URI', withField('redirect_uris', ['/callback']), 'OIDC_CLIENTS[1].redirect_uris[0]: must be an absolute https URL'],
  ['a custom scheme', withField('redirect_uris', ['com.example.app:/callback']), 'OIDC_CLIENTS[1].redirect_uris[0]: must be an absolute https URL'],
  ['a redirect URI with a fragment', withField('redirect_uris', ['https://crm.example.com/cb#done']), 'OIDC_CLIENTS[1].redirect_uris[0]: must not have a fragment'],
  ['a redirect URI with credentials', withField('redirect_uris', ['https://user:pw@crm.example.com/cb']), 'OIDC_CLIENTS[1].redirect_uris[0]: must not contain credentials'],
  ['a redirect URI that is a number', withField('redirect_uris', [42]), 'OIDC_CLIENTS[1].redirect_uris[0]: must be a string'],
  ['a bad post-logout URI', withField('post_logout_redirect_uris', ['http://crm.example.com/']),
    'OIDC_CLIENTS[1].post_logout_redirect_uris[0]: must be https (plain http is allowed only for loopback hosts)'],
  ['a bad client_uri', withField('client_uri', 'crm.example.com'), 'OIDC_CLIENTS[1].client_uri: must be an absolute https URL'],
  ['a bad backchannel_logout_uri', withField('backchannel_logout_uri', 'https://crm.example.com/bc#x'), 'OIDC_CLIENTS[1].backchannel_logout_uri: must not have a fragment'],
  ['first_party as text', withField('first_party', 'yes'), 'OIDC_CLIENTS[1].first_party: must be true or false'],
  ['an unknown auth method', withField('token_endpoint_auth_method', 'private_key_jwt'),
    'OIDC_CLIENTS[1].token_endpoint_auth_method: must be one of client_secret_basic, client_secret_post, none'],
  ['a confidential client without a secret', withField('client_secret', undefined),
    'OIDC_CLIENTS[1].client_secret: is required for a confidential client (client_secret_basic): give client_secret or client_secret_sha256'],
  ['a short secret', withField('client_secret', 'too-short-a-secret'), 'OIDC_CLIENTS[1].client_secret: must have at least 32 characters'],
  ['both a secret and its hash', withField('client_secret_sha256', secretSha256(SECRET)), 'OIDC_CLIENTS[1].client_secret: give client_secret or client_secret_sha256, not both'],
  ['a hash that is not one', JSON.stringify([{ ...confidential, client_secret: undefined, client_secret_sha256: 'abc' }]),
    'OIDC_CLIENTS[0].client_secret_sha256: must be the base64url SHA-256 of the secret (43 characters)'],
  ['a public client with a secret', withField('token_endpoint_auth_method', 'none'),
    'OIDC_CLIENTS[1].client_secret: must not be set for a public client (token_endpoint_auth_method "none")'],
  ['an unknown field', withField('grant_types', ['implicit']),
    'OIDC_CLIENTS[1].grant_types: is not a field of a client (a client has client_id, client_name, redirect_uris, post_logout_redirect_uris, client_uri, backchannel_logout_uri, first_party, token_endpoint_auth_method, client_secret, client_secret_sha256)']
]

for (const [what, raw, message] of badLists) {
  t.test(`OIDC_CLIENTS with ${what} is refused naming the entry and the field`, async (t) => {
    const error = errorFor(raw)
    t.equal(error.message, message)
    t.ok(error instanceof ConfigError, 'a configuration error: the start stops with this one line')
    t.equal(error.variable, 'OIDC_CLIENTS')
    t.notMatch(error.message, SECRET, 'never the secret')
    t.notMatch(error.message, 'too-short-a-secret')
  })
}

t.test('a presented secret matches only the one whose hash the client keeps', async (t) => {
  const [client] = parseOidcClients(JSON.stringify([confidential]), noFile)
  t.equal(secretMatches(client!, SECRET), true)
  t.equal(secretMatches(client!, `${SECRET} `), false)
  t.equal(secretMatches(client!, SECRET.slice(0, -1)), false)
  t.equal(secretMatches(client!, ''), false)
  t.equal(secretMatches(client!, client!.secretSha256!), false, 'the hash is not the secret')
  t.equal(secretMatches({ ...client!, authMethod: 'none', secretSha256: null }, ''), false, 'a public client has no secret to match')
})

t.test('the registry finds OIDC_CLIENTS\' clients and the store\'s, a client added or removed later too', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'threshold-oidc-clients-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const store = new SqliteAccountStore(join(dir, 'accounts.sqlite'))
  t.teardown(() => store.close())
  const none = await openOidcClientRegistry([], store.oidcClients)
  t.equal(await none.any(), false, 'no client: the provider stays off')

  const configured = parseOidcClients(JSON.stringify([confidential]), noFile)
  const registry = await openOidcClientRegistry(configured, store.oidcClients)
  t.equal(await registry.any(), true)
  t.same(await registry.find('crm.example_app-1'), configured[0])
  t.equal(await registry.find('later'), null)
  const later = oidcClient({ clientId: 'later' })
  await store.oidcClients.add(later)
  t.same(await registry.find('later'), later, 'added with the admin command while running')
  t.equal(await none.any(), true)
  await store.oidcClients.remove('later')
  t.equal(await registry.find('later'), null, 'and removed')
})

t.test('a client id both in OIDC_CLIENTS and in the store stops the start, naming the entry', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'threshold-oidc-clients-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const store = new SqliteAccountStore(join(dir, 'accounts.sqlite'))
  t.teardown(() => store.close())
  await store.oidcClients.add(oidcClient({ clientId: 'crm.example_app-1' }))
  const configured = parseOidcClients(JSON.stringify([{ ...confidential, client_id: 'other' }, confidential]), noFile)
  await t.rejects(openOidcClientRegistry(configured, store.oidcClients), {
    name: 'OidcClientsError',
    message: 'OIDC_CLIENTS[1].client_id: crm.example_app-1 is also a client added with npm run accounts -- client add: remove one of the two'
  })
})
