import { randomBytes } from 'node:crypto'
import { clientUriFault, secretSha256, type OidcClient } from '../oidc/oidc-clients.js'
import { auditLine, CommandError, EXIT, type Command } from './command.js'

/**
 * The embedded OpenID Connect provider's clients kept in the store
 * (docs/operations.md#openid-connect-clients): added with a generated id and
 * secret, shown once; listed without secrets; removed with their grants.
 */

/** A generated secret: 32 random bytes, base64url (43 characters). */
const SECRET_BYTES = 32
/** A generated client id: 16 random bytes in hex, so that it never starts with a dash an option parser would take. */
const CLIENT_ID_BYTES = 16
const MAX_NAME_LENGTH = 200

function urisOf (options: ReadonlyMap<string, readonly string[]>, option: string): readonly string[] {
  const uris = options.get(option) ?? []
  for (const uri of uris) {
    const fault = clientUriFault(uri)
    if (fault !== null) throw new CommandError(`${option} ${uri}: ${fault}`, EXIT.USAGE)
  }
  return uris
}

function single (options: ReadonlyMap<string, readonly string[]>, option: string): string | null {
  const values = options.get(option) ?? []
  if (values.length > 1) throw new CommandError(`${option} may be given once`, EXIT.USAGE)
  return values[0] ?? null
}

function newClient (options: ReadonlyMap<string, readonly string[]>, flags: ReadonlySet<string>): { client: OidcClient, secret: string | null } {
  const name = single(options, '--name')?.trim() ?? ''
  if (name === '' || name.length > MAX_NAME_LENGTH) throw new CommandError(`client add needs --name, the name visitors see (1 to ${MAX_NAME_LENGTH} characters)`, EXIT.USAGE)
  const redirectUris = urisOf(options, '--redirect-uri')
  if (redirectUris.length === 0) throw new CommandError('client add needs at least one --redirect-uri', EXIT.USAGE)
  const backchannel = single(options, '--backchannel-logout-uri')
  const backchannelLogoutUri = backchannel === null ? null : urisOf(new Map([['--backchannel-logout-uri', [backchannel]]]), '--backchannel-logout-uri')[0]!
  const isPublic = flags.has('--public')
  const secret = isPublic ? null : randomBytes(SECRET_BYTES).toString('base64url')
  return {
    secret,
    client: {
      clientId: randomBytes(CLIENT_ID_BYTES).toString('hex'),
      name,
      redirectUris,
      postLogoutRedirectUris: urisOf(options, '--post-logout-redirect-uri'),
      clientUri: null,
      backchannelLogoutUri,
      firstParty: flags.has('--first-party'),
      authMethod: isPublic ? 'none' : 'client_secret_basic',
      secretSha256: secret === null ? null : secretSha256(secret)
    }
  }
}

function typeOf (client: OidcClient): string {
  const kind = client.authMethod === 'none' ? 'public (PKCE, no secret)' : `confidential (${client.authMethod})`
  return client.firstParty ? `${kind}, first-party` : kind
}

export const CLIENT_COMMANDS: Readonly<Record<string, Command>> = {
  'client add': {
    parameters: [],
    flags: ['--public', '--first-party'],
    options: ['--name', '--redirect-uri', '--post-logout-redirect-uri', '--backchannel-logout-uri'],
    async run (store, _args, flags, options) {
      const { client, secret } = newClient(options, flags)
      if (!await store.oidcClients.add(client)) throw new CommandError('the generated client id is taken: run the command again')
      auditLine('oidc-client.added-by-operator', { clientId: client.clientId, type: client.authMethod })
      return [
        `added client ${client.clientId} (${client.name}): ${typeOf(client)}`,
        `client_id: ${client.clientId}`,
        ...(secret === null
          ? ['A public client has no secret: it must use PKCE (S256).']
          : [`client_secret: ${secret}`, 'The secret is shown only now: only its SHA-256 is kept. Lost, remove the client and add another.'])
      ].join('\n')
    }
  },
  'client list': {
    parameters: [],
    async run (store) {
      const clients = await store.oidcClients.list()
      if (clients.length === 0) return 'no clients were added with client add (those of OIDC_CLIENTS are in its JSON)'
      return clients.map((client) => [
        `${client.clientId}  ${client.name}  ${typeOf(client)}`,
        ...client.redirectUris.map((uri) => `  redirect URI: ${uri}`),
        ...client.postLogoutRedirectUris.map((uri) => `  post-logout redirect URI: ${uri}`),
        ...(client.backchannelLogoutUri === null ? [] : [`  back-channel logout URI: ${client.backchannelLogoutUri}`])
      ].join('\n')).join('\n')
    }
  },
  'client remove': {
    parameters: ['client_id'],
    async run (store, [clientId]) {
      if (!await store.oidcClients.remove(clientId!)) throw new CommandError(`no client ${clientId} was added with client add`)
      auditLine('oidc-client.removed-by-operator', { clientId })
      return `removed client ${clientId}: its grants, codes and tokens are gone, and it signs no one in from now on`
    }
  }
}
