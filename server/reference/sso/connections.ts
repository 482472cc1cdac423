import { createPrivateKey, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { domainToASCII } from 'node:url'
import { isHostname, isLoopbackHost } from '../../../common/http/hosts.js'
import { ConfigError } from '../../shared/env-parsing.js'

/**
 * SSO_CONNECTIONS: which identity provider signs in the addresses of which
 * email domain. Parsed and checked once at start, in the edge process (before
 * the reference service is forked) and again in the reference service.
 */

const SSO_CONNECTIONS_VARIABLE = 'SSO_CONNECTIONS'

/** An OpenID Connect provider: discovery from the issuer, code flow with a client secret. */
export interface OidcConnection {
  readonly type: 'oidc'
  /** The email domain, lower case (IDNs in their ASCII form). */
  readonly domain: string
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** True when the issuer is plain http on a loopback host (development and tests only). */
  readonly insecureLoopback: boolean
  /** `"required": true`: the domain's addresses sign in only with single sign-on (sso-requirement.ts). */
  readonly required: boolean
}

/** A SAML 2.0 identity provider: HTTP-Redirect AuthnRequest, HTTP-POST response. */
export interface SamlConnection {
  readonly type: 'saml'
  readonly domain: string
  /** The IdP's single sign-on URL (HTTP-Redirect binding). */
  readonly entryPoint: string
  /** PEM certificates whose keys may sign the IdP's assertions (several during a rotation). */
  readonly idpCerts: readonly string[]
  /** Our entity id at this IdP: the audience its assertions must name. */
  readonly spEntityId: string
  /** When set, the assertion's Issuer must be exactly this. */
  readonly idpIssuer: string | null
  /** When set, AuthnRequests are signed with this key and the metadata publishes the certificate. */
  readonly requestSigning: { readonly privateKey: string, readonly certificate: string } | null
  /** `"required": true`: the domain's addresses sign in only with single sign-on (sso-requirement.ts). */
  readonly required: boolean
}

export type SsoConnection = OidcConnection | SamlConnection

const OIDC_FIELDS = new Set(['domain', 'type', 'issuer', 'client_id', 'client_secret', 'required'])
const SAML_FIELDS = new Set(['domain', 'type', 'entry_point', 'idp_cert', 'sp_entity_id', 'idp_issuer', 'sp_private_key', 'sp_cert', 'required'])
const MAX_TEXT_LENGTH = 2048

type Entry = Record<string, unknown>

/** Fails naming the variable and, once known, the entry (1-based) and its domain. */
class EntryErrors {
  domain: string | null = null
  constructor (private readonly index: number) {}

  fail (reason: string): never {
    const where = this.domain === null ? `entry ${this.index}` : `entry ${this.index} (${this.domain})`
    throw new ConfigError(SSO_CONNECTIONS_VARIABLE, `${where}: ${reason}`)
  }
}

/** A domain in the form connections are keyed by: lower case, IDNs in ASCII; null if it is not one. */
function normaliseDomain (domain: string): string | null {
  const ascii = domainToASCII(domain.trim().toLowerCase())
  return ascii !== '' && isHostname(ascii) && ascii.includes('.') ? ascii : null
}

/** The domain of an email address in the form connections are keyed by, or null if it has none. */
export function connectionDomainOf (email: string): string | null {
  const at = email.lastIndexOf('@')
  return at < 0 ? null : normaliseDomain(email.slice(at + 1))
}

function readText (entry: Entry, name: string, errors: EntryErrors, required: true): string
function readText (entry: Entry, name: string, errors: EntryErrors, required: false): string | null
function readText (entry: Entry, name: string, errors: EntryErrors, required: boolean): string | null {
  const value = entry[name]
  if (value === undefined || value === null) {
    if (required) errors.fail(`${name} is required`)
    return null
  }
  if (typeof value !== 'string' || value.trim() === '') errors.fail(`${name} must be a non-empty string`)
  if (value.length > MAX_TEXT_LENGTH * 4) errors.fail(`${name} is too long`)
  return value.trim()
}

/**
 * An identity provider's URL: https, or http on a loopback host, where a
 * developer runs a test provider. Credentials and fragments are refused; a
 * query string only where `allowQuery` (some IdPs' SSO URLs carry one).
 */
function readIdpUrl (entry: Entry, name: string, errors: EntryErrors, allowQuery: boolean): URL {
  const raw = readText(entry, name, errors, true)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    errors.fail(`${name} must be an absolute https URL`)
  }
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) errors.fail(`${name} must be https (plain http is allowed only for loopback hosts)`)
  } else if (url.protocol !== 'https:') {
    errors.fail(`${name} must be an absolute https URL`)
  }
  if (url.username !== '' || url.password !== '') errors.fail(`${name} must not contain credentials`)
  if (url.hash !== '' || raw.includes('#')) errors.fail(`${name} must not have a fragment`)
  if (!allowQuery && url.search !== '') errors.fail(`${name} must not have a query string`)
  return url
}

/** `required`, a JSON boolean: false when absent. A string such as "true" is refused rather than guessed at. */
function readRequired (entry: Entry, errors: EntryErrors): boolean {
  const value = entry.required
  if (value === undefined) return false
  if (typeof value !== 'boolean') errors.fail('required must be true or false (a JSON boolean, without quotes)')
  return value
}

/** A certificate as PEM, or as the bare base64 of its DER form (how IdP metadata shows it). */
function toCertificatePem (value: string): string | null {
  const body = value.includes('-----BEGIN CERTIFICATE-----')
    ? value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    : value
  const base64 = body.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null
  const pem = `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`
  try {
    return new X509Certificate(pem).toString()
  } catch {
    return null
  }
}

function readCertificates (entry: Entry, errors: EntryErrors): readonly string[] {
  const value = entry.idp_cert
  if (value === undefined || value === null) errors.fail('idp_cert is required')
  const list = Array.isArray(value) ? value : [value]
  if (list.length === 0) errors.fail('idp_cert must name at least one certificate')
  return list.map((item, position) => {
    const pem = typeof item === 'string' ? toCertificatePem(item) : null
    if (pem === null) {
      errors.fail(`idp_cert${Array.isArray(value) ? `[${position}]` : ''} must be an X.509 certificate, as PEM or base64`)
    }
    return pem
  })
}

function readRequestSigning (entry: Entry, errors: EntryErrors): SamlConnection['requestSigning'] {
  const key = readText(entry, 'sp_private_key', errors, false)
  const cert = readText(entry, 'sp_cert', errors, false)
  if (key === null && cert === null) return null
  if (key === null || cert === null) errors.fail('sp_private_key and sp_cert go together: give both to sign requests, or neither')
  let privateKey
  try {
    privateKey = createPrivateKey(key)
  } catch {
    errors.fail('sp_private_key must be an unencrypted PEM private key')
  }
  if (privateKey.asymmetricKeyType !== 'rsa') errors.fail('sp_private_key must be an RSA key (SAML request signing uses RSA-SHA256)')
  const certificate = toCertificatePem(cert)
  if (certificate === null) errors.fail('sp_cert must be an X.509 certificate, as PEM or base64')
  if (!new X509Certificate(certificate).checkPrivateKey(privateKey)) errors.fail('sp_cert does not belong to sp_private_key')
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certificate }
}

function parseOidc (entry: Entry, domain: string, errors: EntryErrors): OidcConnection {
  const issuer = readIdpUrl(entry, 'issuer', errors, false)
  return {
    type: 'oidc',
    domain,
    // The issuer identifier is compared verbatim with the discovery document's, so keep the operator's form.
    issuer: readText(entry, 'issuer', errors, true),
    clientId: readText(entry, 'client_id', errors, true),
    clientSecret: readText(entry, 'client_secret', errors, true),
    insecureLoopback: issuer.protocol === 'http:',
    required: readRequired(entry, errors)
  }
}

function parseSaml (entry: Entry, domain: string, errors: EntryErrors): SamlConnection {
  const entryPoint = readIdpUrl(entry, 'entry_point', errors, true)
  const spEntityId = readText(entry, 'sp_entity_id', errors, true)
  if (spEntityId.length > MAX_TEXT_LENGTH) errors.fail('sp_entity_id is too long')
  return {
    type: 'saml',
    domain,
    entryPoint: entryPoint.href,
    idpCerts: readCertificates(entry, errors),
    spEntityId,
    idpIssuer: readText(entry, 'idp_issuer', errors, false),
    requestSigning: readRequestSigning(entry, errors),
    required: readRequired(entry, errors)
  }
}

function parseEntry (value: unknown, index: number): SsoConnection {
  const errors: EntryErrors = new EntryErrors(index)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) errors.fail('must be an object')
  const entry = value as Entry
  if (typeof entry.domain !== 'string') errors.fail('domain is required (the email domain, such as example.com)')
  const domain = normaliseDomain(entry.domain)
  if (domain === null) {
    errors.fail(`domain must be an email domain such as example.com (got ${JSON.stringify(entry.domain.slice(0, 80))})`)
  }
  errors.domain = domain
  if (entry.type !== 'oidc' && entry.type !== 'saml') errors.fail('type must be "oidc" or "saml"')
  const known = entry.type === 'oidc' ? OIDC_FIELDS : SAML_FIELDS
  for (const name of Object.keys(entry)) {
    if (!known.has(name)) {
      errors.fail(`unknown field "${name.slice(0, 40)}" (an ${entry.type.toUpperCase()} connection has ${[...known].join(', ')})`)
    }
  }
  return entry.type === 'oidc' ? parseOidc(entry, domain, errors) : parseSaml(entry, domain, errors)
}

function readSource (source: string, cwd: string): unknown {
  const trimmed = source.trim()
  let text = trimmed
  if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) {
    const path = isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed)
    try {
      text = readFileSync(path, 'utf8')
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable'
      throw new ConfigError(SSO_CONNECTIONS_VARIABLE, `must be a JSON array, or the path of a JSON file holding one; the file could not be read (${code})`, trimmed)
    }
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new ConfigError(SSO_CONNECTIONS_VARIABLE, text === trimmed ? 'is not valid JSON' : `file ${trimmed} is not valid JSON`)
  }
}

/**
 * Parses SSO_CONNECTIONS (JSON, or the path of a JSON file, relative to
 * `cwd`) into connections. Any fault throws a ConfigError naming the entry;
 * error messages never quote a secret.
 */
export function parseSsoConnections (source: string | null, cwd: string = process.cwd()): readonly SsoConnection[] {
  if (source === null || source.trim() === '') return []
  const parsed = readSource(source, cwd)
  if (!Array.isArray(parsed)) throw new ConfigError(SSO_CONNECTIONS_VARIABLE, 'must be a JSON array of connections')
  const connections: SsoConnection[] = []
  parsed.forEach((value, position) => {
    const connection = parseEntry(value, position + 1)
    const earlier = connections.findIndex((other) => other.domain === connection.domain)
    if (earlier >= 0) {
      throw new ConfigError(SSO_CONNECTIONS_VARIABLE,
        `entry ${position + 1} (${connection.domain}): the domain is already configured by entry ${earlier + 1}`)
    }
    connections.push(connection)
  })
  return connections
}
