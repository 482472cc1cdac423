import { createHash, timingSafeEqual } from 'node:crypto'
import { isLoopbackHost } from '../../../common/http/hosts.js'
import { ConfigError } from '../../shared/env-parsing.js'
import { OIDC_CLIENT_ID_PATTERN } from '../../shared/oidc/provider-pages.js'
import type { OidcClientStore } from '../store/account-store.js'
import { isStoreUnavailable } from '../store/store-unavailable.js'

/**
 * The clients of the embedded OpenID Connect provider: those of
 * OIDC_CLIENTS (JSON, or the path of a JSON file), checked once at start,
 * and those an operator added with `npm run accounts -- client add`, kept in
 * the store (docs/reference-service.md#openid-connect-clients).
 */

const OIDC_CLIENTS_VARIABLE = 'OIDC_CLIENTS'

export type OidcClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none'

export interface OidcClient {
  readonly clientId: string
  readonly name: string
  readonly redirectUris: readonly string[]
  readonly postLogoutRedirectUris: readonly string[]
  readonly clientUri: string | null
  readonly backchannelLogoutUri: string | null
  readonly firstParty: boolean
  readonly authMethod: OidcClientAuthMethod
  /** base64url SHA-256 of the secret; null for a public client. */
  readonly secretSha256: string | null
}

/** The clients the provider serves: OIDC_CLIENTS' first, then the store's. */
export interface OidcClientRegistry {
  find (clientId: string): Promise<OidcClient | null>
  /** Whether there is at least one client (the provider is on only then). */
  any (): Promise<boolean>
}

/** The fewest characters of a client secret given in OIDC_CLIENTS (a generated one has 43). */
const MIN_CLIENT_SECRET_LENGTH = 32
const AUTH_METHODS: readonly OidcClientAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'none']
const FIELDS = new Set([
  'client_id', 'client_name', 'redirect_uris', 'post_logout_redirect_uris', 'client_uri', 'backchannel_logout_uri',
  'first_party', 'token_endpoint_auth_method', 'client_secret', 'client_secret_sha256'
])
const MAX_TEXT_LENGTH = 2048
/** base64url of 32 bytes, unpadded. */
const SHA256_BASE64URL = /^[A-Za-z0-9_-]{43}$/

/**
 * A fault in the client list, naming where it is as a path into OIDC_CLIENTS
 * (`OIDC_CLIENTS[2].redirect_uris[0]: must be https…`). A ConfigError, so
 * that the start stops with this one line; it never quotes a secret.
 */
export class OidcClientsError extends ConfigError {
  constructor (readonly where: string, reason: string) {
    super(OIDC_CLIENTS_VARIABLE, reason)
    this.message = `${where}: ${reason}`
    this.name = 'OidcClientsError'
  }
}

/** base64url SHA-256 of a client secret: what is kept of it. */
export function secretSha256 (secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url')
}

/** Whether `presented` is the client's secret, in time that does not depend on where it differs. */
export function secretMatches (client: OidcClient, presented: string): boolean {
  if (client.secretSha256 === null) return false
  const expected = Buffer.from(client.secretSha256, 'base64url')
  const actual = createHash('sha256').update(presented, 'utf8').digest()
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/**
 * Why `raw` cannot be a redirect URI (or another URI of a client), or null
 * when it can: absolute https, or http on a loopback host (a native app or a
 * developer's machine, RFC 8252); no credentials, no fragment.
 */
export function clientUriFault (raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute https URL'
  }
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) return 'must be https (plain http is allowed only for loopback hosts)'
  } else if (url.protocol !== 'https:') {
    return 'must be an absolute https URL'
  }
  if (url.username !== '' || url.password !== '') return 'must not contain credentials'
  if (raw.includes('#')) return 'must not have a fragment'
  if (raw.length > MAX_TEXT_LENGTH) return 'is too long'
  return null
}

type Entry = Record<string, unknown>

class EntryReader {
  constructor (private readonly entry: Entry, private readonly where: string) {}

  fail (field: string, reason: string): never {
    throw new OidcClientsError(field === '' ? this.where : `${this.where}.${field}`, reason)
  }

  text (field: string, required: true): string
  text (field: string, required: false): string | null
  text (field: string, required: boolean): string | null {
    const value = this.entry[field]
    if (value === undefined || value === null) {
      if (required) this.fail(field, 'is required')
      return null
    }
    if (typeof value !== 'string' || value.trim() === '') this.fail(field, 'must be a non-empty string')
    if (value.length > MAX_TEXT_LENGTH) this.fail(field, 'is too long')
    return value
  }

  uri (field: string): string | null {
    const value = this.text(field, false)
    if (value === null) return null
    const fault = clientUriFault(value)
    if (fault !== null) this.fail(field, fault)
    return value
  }

  uris (field: string, required: boolean): readonly string[] {
    const value = this.entry[field]
    if (value === undefined || value === null) {
      if (required) this.fail(field, 'is required (a non-empty array of URLs)')
      return []
    }
    if (!Array.isArray(value)) this.fail(field, 'must be an array of URLs')
    if (required && value.length === 0) this.fail(field, 'must name at least one URL')
    return value.map((item: unknown, position) => {
      if (typeof item !== 'string') this.fail(`${field}[${position}]`, 'must be a string')
      const fault = clientUriFault(item)
      if (fault !== null) this.fail(`${field}[${position}]`, fault)
      return item
    })
  }
}

function readSecret (reader: EntryReader, authMethod: OidcClientAuthMethod): string | null {
  const secret = reader.text('client_secret', false)
  const hash = reader.text('client_secret_sha256', false)
  if (authMethod === 'none') {
    if (secret !== null) reader.fail('client_secret', 'must not be set for a public client (token_endpoint_auth_method "none")')
    if (hash !== null) reader.fail('client_secret_sha256', 'must not be set for a public client (token_endpoint_auth_method "none")')
    return null
  }
  if (secret !== null && hash !== null) reader.fail('client_secret', 'give client_secret or client_secret_sha256, not both')
  if (secret !== null) {
    if (secret.length < MIN_CLIENT_SECRET_LENGTH) reader.fail('client_secret', `must have at least ${MIN_CLIENT_SECRET_LENGTH} characters`)
    return secretSha256(secret)
  }
  if (hash !== null) {
    if (!SHA256_BASE64URL.test(hash)) reader.fail('client_secret_sha256', 'must be the base64url SHA-256 of the secret (43 characters)')
    return hash
  }
  return reader.fail('client_secret', `is required for a confidential client (${authMethod}): give client_secret or client_secret_sha256`)
}

function parseEntry (value: unknown, where: string): OidcClient {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new OidcClientsError(where, 'must be an object')
  const entry = value as Entry
  const reader: EntryReader = new EntryReader(entry, where)
  for (const name of Object.keys(entry)) {
    if (!FIELDS.has(name)) reader.fail(name.slice(0, 40), `is not a field of a client (a client has ${[...FIELDS].join(', ')})`)
  }
  const clientId = reader.text('client_id', true)
  if (!OIDC_CLIENT_ID_PATTERN.test(clientId)) reader.fail('client_id', 'must be 1 to 64 of the characters A-Z a-z 0-9 . _ -')
  const name = reader.text('client_name', true).trim()
  const firstParty = entry.first_party ?? false
  if (typeof firstParty !== 'boolean') reader.fail('first_party', 'must be true or false')
  const authMethod = entry.token_endpoint_auth_method ?? 'client_secret_basic'
  if (!AUTH_METHODS.includes(authMethod as OidcClientAuthMethod)) {
    reader.fail('token_endpoint_auth_method', `must be one of ${AUTH_METHODS.join(', ')}`)
  }
  return {
    clientId,
    name,
    redirectUris: reader.uris('redirect_uris', true),
    postLogoutRedirectUris: reader.uris('post_logout_redirect_uris', false),
    clientUri: reader.uri('client_uri'),
    backchannelLogoutUri: reader.uri('backchannel_logout_uri'),
    firstParty,
    authMethod: authMethod as OidcClientAuthMethod,
    secretSha256: readSecret(reader, authMethod as OidcClientAuthMethod)
  }
}

function readSource (raw: string, readFile: (path: string) => string): unknown {
  const trimmed = raw.trim()
  let text = trimmed
  const isPath = !trimmed.startsWith('[') && !trimmed.startsWith('{')
  if (isPath) {
    try {
      text = readFile(trimmed)
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable'
      throw new OidcClientsError(OIDC_CLIENTS_VARIABLE, `must be a JSON array, or the path of a JSON file holding one; the file ${trimmed} could not be read (${code})`)
    }
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new OidcClientsError(OIDC_CLIENTS_VARIABLE, isPath ? `the file ${trimmed} is not valid JSON` : 'is not valid JSON')
  }
}

/**
 * Parses OIDC_CLIENTS (JSON, or the path of a JSON file read with
 * `readFile`) into clients; unset or blank: none. Any fault throws an
 * OidcClientsError naming the entry and the field.
 */
export function parseOidcClients (raw: string | undefined, readFile: (path: string) => string): readonly OidcClient[] {
  if (raw === undefined || raw.trim() === '') return []
  const parsed = readSource(raw, readFile)
  if (!Array.isArray(parsed)) throw new OidcClientsError(OIDC_CLIENTS_VARIABLE, 'must be a JSON array of clients')
  const clients: OidcClient[] = []
  parsed.forEach((value, index) => {
    const where = `${OIDC_CLIENTS_VARIABLE}[${index}]`
    const client = parseEntry(value, where)
    const earlier = clients.findIndex((other) => other.clientId === client.clientId)
    if (earlier >= 0) throw new OidcClientsError(`${where}.client_id`, `${client.clientId} is already the id of ${OIDC_CLIENTS_VARIABLE}[${earlier}]`)
    clients.push(client)
  })
  return Object.freeze(clients.map((client) => Object.freeze({
    ...client,
    redirectUris: Object.freeze([...client.redirectUris]),
    postLogoutRedirectUris: Object.freeze([...client.postLogoutRedirectUris])
  })))
}

/**
 * The provider's clients: OIDC_CLIENTS' and the store's. A client id in
 * both is a start error (one of them would be shadowed without a word).
 * The store is asked at each look-up, so that a client added or removed
 * with the admin command counts without a restart. A store that cannot be
 * reached at the start leaves the service starting unready, as it always
 * has (docs/operations.md); the check then runs at the first look-up that
 * reaches it, and a clash found there fails every look-up with the same line.
 */
export async function openOidcClientRegistry (configured: readonly OidcClient[], stored: OidcClientStore): Promise<OidcClientRegistry> {
  let clash: OidcClientsError | null | undefined
  const checkClash = async (): Promise<void> => {
    if (clash === undefined) {
      const storedIds = new Set((await stored.list()).map((client) => client.clientId))
      const index = configured.findIndex((client) => storedIds.has(client.clientId))
      clash = index < 0
        ? null
        : new OidcClientsError(`${OIDC_CLIENTS_VARIABLE}[${index}].client_id`,
          `${configured[index]!.clientId} is also a client added with npm run accounts -- client add: remove one of the two`)
    }
    if (clash !== null) throw clash
  }
  try {
    await checkClash()
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error
  }
  const byId = new Map(configured.map((client) => [client.clientId, client]))
  return {
    async find (clientId) {
      await checkClash()
      return byId.get(clientId) ?? await stored.find(clientId)
    },
    async any () {
      await checkClash()
      return byId.size > 0 || await stored.any()
    }
  }
}
