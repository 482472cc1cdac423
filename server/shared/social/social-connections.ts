import { createPrivateKey } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { extname, isAbsolute, resolve } from 'node:path'
import { isLoopbackHost } from '../../../common/http/hosts.js'
import {
  RESERVED_SOCIAL_IDS, SOCIAL_ICON_PATH, SOCIAL_PROVIDER_ID_FORMAT, SOCIAL_PROVIDER_TYPES, type SocialProvider, type SocialProviderType
} from '../../../common/social/social-providers.js'
import { ConfigError } from '../env-parsing.js'

/**
 * SOCIAL_CONNECTIONS (docs/social-sign-in.md): the providers whose accounts
 * visitors sign in with, beside Google. JSON, or the path of a JSON file,
 * parsed once at start by the edge (the buttons) and by the reference service
 * (the protocols). Error messages name the entry and the field, never a secret.
 */

const SOCIAL_CONNECTIONS_VARIABLE = 'SOCIAL_CONNECTIONS'
const MAX_TEXT_LENGTH = 2048
const MAX_NAME_LENGTH = 40
const MAX_ICON_BYTES = 32 * 1024
const ICON_TYPES: Readonly<Record<string, string>> = { '.svg': 'image/svg+xml', '.png': 'image/png' }

/** The names the providers' brand guidelines give their buttons. */
const BRAND_NAMES: Readonly<Record<'apple' | 'microsoft' | 'github', string>> = { apple: 'Apple', microsoft: 'Microsoft', github: 'GitHub' }

interface ConnectionBase extends SocialProvider {
  readonly clientId: string
  /** A generic connection's icon file, as the edge serves it; null: none. */
  readonly iconFile: { readonly path: string, readonly contentType: string } | null
}

/** Sign in with Apple: the client secret is a JWT the service signs with the operator's key (ES256). */
export interface AppleConnection extends ConnectionBase {
  readonly type: 'apple'
  readonly teamId: string
  readonly keyId: string
  /** PKCS#8 PEM of the P-256 key from Apple's developer account; '' at an edge that holds no secrets. */
  readonly privateKey: string
  /** https://appleid.apple.com, or a stand-in on a loopback host. */
  readonly issuer: string
}

/** Microsoft's identity platform (v2.0): `common`, `organizations`, `consumers` or one tenant. */
export interface MicrosoftConnection extends ConnectionBase {
  readonly type: 'microsoft'
  readonly clientSecret: string
  readonly tenant: string
  /** https://login.microsoftonline.com, or a stand-in on a loopback host. */
  readonly authority: string
}

/** A GitHub OAuth app: no ID token; the verified primary address from the emails API. */
export interface GithubConnection extends ConnectionBase {
  readonly type: 'github'
  readonly clientSecret: string
  /** https://github.com (or a GitHub Enterprise host): the authorize and token endpoints. */
  readonly baseUrl: string
  /** https://api.github.com (or GitHub Enterprise's /api/v3). */
  readonly apiUrl: string
}

/** Any OpenID Connect provider, by discovery from its issuer. */
export interface OidcSocialConnection extends ConnectionBase {
  readonly type: 'oidc'
  readonly clientSecret: string
  readonly issuer: string
  readonly scope: string
}

/** Any OAuth 2.0 provider whose userinfo names a verified address (`email`, `email_verified`). */
export interface OAuth2SocialConnection extends ConnectionBase {
  readonly type: 'oauth2'
  readonly clientSecret: string
  readonly authorizationEndpoint: string
  readonly tokenEndpoint: string
  readonly userinfoEndpoint: string
  readonly scope: string
}

export type SocialConnection = AppleConnection | MicrosoftConnection | GithubConnection | OidcSocialConnection | OAuth2SocialConnection

const COMMON_FIELDS = ['type', 'id', 'client_id']
const FIELDS: Readonly<Record<SocialProviderType, readonly string[]>> = {
  apple: [...COMMON_FIELDS, 'team_id', 'key_id', 'private_key', 'issuer'],
  microsoft: [...COMMON_FIELDS, 'client_secret', 'tenant', 'authority'],
  github: [...COMMON_FIELDS, 'client_secret', 'base_url', 'api_url'],
  oidc: [...COMMON_FIELDS, 'client_secret', 'name', 'icon', 'issuer', 'scope'],
  oauth2: [...COMMON_FIELDS, 'client_secret', 'name', 'icon', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'scope']
}
/** Fields an edge in front of an own accounts backend may leave out: the backend holds them. */
const SECRET_FIELDS = new Set(['client_secret', 'private_key', 'team_id', 'key_id'])
const MICROSOFT_TENANT_FORMAT = /^(?:common|organizations|consumers|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z0-9-]+(?:\.[a-z0-9-]+)+)$/i
const APPLE_ID_FORMAT = /^[A-Z0-9]{10}$/

type Entry = Record<string, unknown>

export interface SocialConnectionsOptions {
  /** Relative paths (the file, a key, an icon) resolve from here. */
  readonly cwd?: string
  /** An edge in front of an own backend: the secrets may be absent (they are the backend's). */
  readonly publicOnly?: boolean
}

class Entries {
  label: string
  constructor (index: number) { this.label = `entry ${index}` }
  fail (reason: string): never {
    throw new ConfigError(SOCIAL_CONNECTIONS_VARIABLE, `${this.label}: ${reason}`)
  }
}

function text (entry: Entry, name: string, errors: Entries, required: boolean): string | null {
  const value = entry[name]
  if (value === undefined || value === null) {
    if (required) errors.fail(`${name} is required`)
    return null
  }
  if (typeof value !== 'string' || value.trim() === '') errors.fail(`${name} must be a non-empty string`)
  if (value.length > MAX_TEXT_LENGTH * 4) errors.fail(`${name} is too long`)
  return value.trim()
}

/** A provider's URL: https, or http on a loopback host (a stand-in on the developer's machine); no credentials, query or fragment. */
function providerUrl (entry: Entry, name: string, errors: Entries, fallback: string | null): { readonly href: string, readonly insecure: boolean } {
  const raw = text(entry, name, errors, fallback === null) ?? fallback!
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    errors.fail(`${name} must be an absolute https URL`)
  }
  const insecure = url.protocol === 'http:'
  if (insecure && !isLoopbackHost(url.hostname)) errors.fail(`${name} must be https (plain http is allowed only for loopback hosts)`)
  if (!insecure && url.protocol !== 'https:') errors.fail(`${name} must be an absolute https URL`)
  if (url.username !== '' || url.password !== '') errors.fail(`${name} must not contain credentials`)
  if (url.search !== '' || url.hash !== '' || raw.includes('#')) errors.fail(`${name} must have no query string or fragment`)
  // The issuer is compared verbatim with the provider's own: keep the operator's spelling.
  return { href: raw, insecure }
}

function readFileOrText (value: string, cwd: string, errors: Entries, name: string): string {
  if (value.includes('-----BEGIN')) return value
  try {
    return readFileSync(isAbsolute(value) ? value : resolve(cwd, value), 'utf8')
  } catch (error) {
    errors.fail(`${name} must be a PEM key or the path of a file holding one; the file could not be read (${(error as { code?: string }).code ?? 'unreadable'})`)
  }
}

function applePrivateKey (entry: Entry, cwd: string, errors: Entries, required: boolean): string {
  const value = text(entry, 'private_key', errors, required)
  if (value === null) return ''
  let key
  try {
    key = createPrivateKey(readFileOrText(value, cwd, errors, 'private_key'))
  } catch {
    errors.fail('private_key must be the unencrypted PEM key (.p8) Apple gave for Sign in with Apple')
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') errors.fail('private_key must be a P-256 key (Apple signs with ES256)')
  return key.export({ type: 'pkcs8', format: 'pem' }).toString()
}

function iconFile (entry: Entry, cwd: string, errors: Entries): ConnectionBase['iconFile'] {
  const value = text(entry, 'icon', errors, false)
  if (value === null) return null
  const path = isAbsolute(value) ? value : resolve(cwd, value)
  const contentType = ICON_TYPES[extname(path).toLowerCase()]
  if (contentType === undefined) errors.fail('icon must be the path of an .svg or .png file')
  let size: number
  try {
    size = statSync(path).size
  } catch (error) {
    errors.fail(`icon could not be read (${(error as { code?: string }).code ?? 'unreadable'})`)
  }
  if (size > MAX_ICON_BYTES) errors.fail(`icon must be at most ${MAX_ICON_BYTES / 1024} KB`)
  return { path, contentType }
}

function parseEntry (value: unknown, index: number, options: Required<SocialConnectionsOptions>): SocialConnection {
  const errors = new Entries(index)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) errors.fail('must be an object')
  const entry = value as Entry
  const type = entry.type
  if (typeof type !== 'string' || !(SOCIAL_PROVIDER_TYPES as readonly string[]).includes(type)) {
    errors.fail(`type must be one of ${SOCIAL_PROVIDER_TYPES.join(', ')}`)
  }
  const kind = type as SocialProviderType
  const generic = kind === 'oidc' || kind === 'oauth2'
  const id = text(entry, 'id', errors, generic) ?? kind
  if (!SOCIAL_PROVIDER_ID_FORMAT.test(id)) errors.fail('id must be 1 to 32 lower-case letters, digits and dashes, such as "gitlab"')
  if (RESERVED_SOCIAL_IDS.has(id)) errors.fail(`id "${id}" is taken by another sign-in method`)
  errors.label = `entry ${index} (${id})`
  for (const name of Object.keys(entry)) {
    if (!FIELDS[kind].includes(name)) errors.fail(`unknown field "${name.slice(0, 40)}" (a ${kind} connection has ${FIELDS[kind].join(', ')})`)
  }
  const secret = (name: string): string => text(entry, name, errors, !(options.publicOnly && SECRET_FIELDS.has(name))) ?? ''
  const name = generic ? text(entry, 'name', errors, true)! : BRAND_NAMES[kind]
  if (name.length > MAX_NAME_LENGTH) errors.fail(`name must be at most ${MAX_NAME_LENGTH} characters`)
  const icon = generic ? iconFile(entry, options.cwd, errors) : null
  const base = {
    id,
    name,
    icon: icon === null ? null : `${SOCIAL_ICON_PATH}${id}${extname(icon.path).toLowerCase()}`,
    iconFile: icon,
    clientId: text(entry, 'client_id', errors, true)!
  }
  switch (kind) {
    case 'apple': {
      const teamId = secret('team_id')
      const keyId = secret('key_id')
      if (teamId !== '' && !APPLE_ID_FORMAT.test(teamId)) errors.fail('team_id must be the 10-character Team ID')
      if (keyId !== '' && !APPLE_ID_FORMAT.test(keyId)) errors.fail('key_id must be the 10-character Key ID')
      return {
        ...base, type: 'apple', teamId, keyId,
        privateKey: applePrivateKey(entry, options.cwd, errors, !options.publicOnly),
        issuer: providerUrl(entry, 'issuer', errors, 'https://appleid.apple.com').href
      }
    }
    case 'microsoft': {
      const tenant = text(entry, 'tenant', errors, false) ?? 'common'
      if (!MICROSOFT_TENANT_FORMAT.test(tenant)) errors.fail('tenant must be common, organizations, consumers, a tenant id or a tenant domain')
      return {
        ...base, type: 'microsoft', clientSecret: secret('client_secret'), tenant,
        authority: providerUrl(entry, 'authority', errors, 'https://login.microsoftonline.com').href.replace(/\/+$/, '')
      }
    }
    case 'github':
      return {
        ...base, type: 'github', clientSecret: secret('client_secret'),
        baseUrl: providerUrl(entry, 'base_url', errors, 'https://github.com').href.replace(/\/+$/, ''),
        apiUrl: providerUrl(entry, 'api_url', errors, 'https://api.github.com').href.replace(/\/+$/, '')
      }
    case 'oidc':
      return {
        ...base, type: 'oidc', clientSecret: secret('client_secret'),
        issuer: providerUrl(entry, 'issuer', errors, null).href,
        scope: text(entry, 'scope', errors, false) ?? 'openid email profile'
      }
    case 'oauth2':
      return {
        ...base, type: 'oauth2', clientSecret: secret('client_secret'),
        authorizationEndpoint: providerUrl(entry, 'authorization_endpoint', errors, null).href,
        tokenEndpoint: providerUrl(entry, 'token_endpoint', errors, null).href,
        userinfoEndpoint: providerUrl(entry, 'userinfo_endpoint', errors, null).href,
        scope: text(entry, 'scope', errors, false) ?? 'email'
      }
  }
}

function readSource (source: string, cwd: string): unknown {
  const trimmed = source.trim()
  let json = trimmed
  if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) {
    try {
      json = readFileSync(isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed), 'utf8')
    } catch (error) {
      throw new ConfigError(SOCIAL_CONNECTIONS_VARIABLE,
        `must be a JSON array, or the path of a JSON file holding one; the file could not be read (${(error as { code?: string }).code ?? 'unreadable'})`, trimmed)
    }
  }
  try {
    return JSON.parse(json)
  } catch {
    throw new ConfigError(SOCIAL_CONNECTIONS_VARIABLE, json === trimmed ? 'is not valid JSON' : `file ${trimmed} is not valid JSON`)
  }
}

/**
 * Parses SOCIAL_CONNECTIONS (a JSON array, or the path of a file holding
 * one) into connections, in the operator's order: the order of the buttons.
 * Each id once. Any fault throws a ConfigError naming the entry.
 */
export function parseSocialConnections (source: string | null | undefined, options: SocialConnectionsOptions = {}): readonly SocialConnection[] {
  if (source === null || source === undefined || source.trim() === '') return []
  const settings = { cwd: options.cwd ?? process.cwd(), publicOnly: options.publicOnly ?? false }
  const parsed = readSource(source, settings.cwd)
  if (!Array.isArray(parsed)) throw new ConfigError(SOCIAL_CONNECTIONS_VARIABLE, 'must be a JSON array of connections')
  const connections: SocialConnection[] = []
  parsed.forEach((value, position) => {
    const connection = parseEntry(value, position + 1, settings)
    const earlier = connections.findIndex((other) => other.id === connection.id)
    if (earlier >= 0) {
      throw new ConfigError(SOCIAL_CONNECTIONS_VARIABLE, `entry ${position + 1} (${connection.id}): the id is already taken by entry ${earlier + 1}; give one of them another "id"`)
    }
    connections.push(connection)
  })
  return connections
}

/** What the page is told of the connections: id, type, name and icon, never a secret. */
export function socialProvidersOf (connections: readonly SocialConnection[]): readonly SocialProvider[] {
  return connections.map(({ id, type, name, icon }) => ({ id, type, name, icon }))
}
