import { parseArgs } from 'node:util'
import { SOCIAL_PROVIDER_ID_FORMAT } from '../common/social/social-providers.js'
import { DEFAULT_TIMEOUT_MS } from './suite.js'
import type { ProbeOptions, TestAccount } from './rows.js'

/** The command line of `npm run conformance`, checked once into a typed object; a bad one names the option. */

export const USAGE = `Usage: npm run conformance -- --accounts-url <URL> [options]

Checks an accounts backend against the accounts API (docs/accounts-api.md): the answers the
page reads, the refusals it must make, and that its answers do not tell which addresses have
accounts. Prints a table of pass/fail/skip/advisory rows; exits 0 only when no row failed.

  --accounts-url <URL>      the backend's base URL, as ACCOUNTS_URL would name it (required);
                            or an edge's, ending in /accounts
  --email <address>         a test account to sign in with, instead of a throwaway account
  --password <password>     its password (or the CONFORMANCE_PASSWORD variable)
  --google-token <token>    a Google ID token for an account the backend knows
                            (or the CONFORMANCE_GOOGLE_TOKEN variable); used once
  --google-email <address>  the address of that token's account (default: --email's)
  --google-nonce-secret <s> the secret whose SHA-256 is that token's nonce
  --google-client-id <id>   the backend's GOOGLE_CLIENT_ID, written into the forged tokens
  --sso-email <address>     an address in a domain the backend has single sign-on for
  --blocked-email <address> a test account in a domain the backend must refuse
  --blocked-password <pw>   its password (or the CONFORMANCE_BLOCKED_PASSWORD variable)
  --email-codes             the backend answers the emailed code's calls (EMAIL_CODES=true):
                            check them too (docs/email-codes.md)
  --sso-discovery           the backend answers auth/sso/discover (SSO_DISCOVERY=true):
                            check it too (docs/sso.md, "Found by the address")
  --sso-domain <domain>     a domain the backend has single sign-on for (with --sso-discovery)
  --social <ids>            the social connections the backend serves, by id, comma-separated
                            (github,gitlab): check their start and completion (docs/social-sign-in.md)
  --timeout-ms <n>          time limit of one call (default ${DEFAULT_TIMEOUT_MS}); the whole run
                            ends within 6 times this
  --contract <path>         the OpenAPI document (default: docs/accounts-api.openapi.yaml)
  --json                    machine output: one JSON object
  --help                    this text

Without --email, the check registers a throwaway account (conformance-<random>@example.com,
with a random password) and says so. Rows needing what was not given are skipped, never passed.
Exit status: 0 no row failed, 1 a row failed, 2 bad arguments.`

export class ArgumentError extends Error {
  override readonly name = 'ArgumentError'
  readonly code = 'CONFORMANCE_BAD_ARGUMENT'
}

export interface ConformanceArguments {
  readonly help: boolean
  readonly accountsUrl: URL
  readonly account: TestAccount | null
  readonly probe: ProbeOptions
  readonly timeoutMs: number
  readonly contractPath: string | null
  readonly json: boolean
}

const MIN_TIMEOUT_MS = 100
const MAX_TIMEOUT_MS = 120_000

function parseUrl (value: string | undefined): URL {
  if (value === undefined || value === '') throw new ArgumentError('--accounts-url is required: the base URL of the accounts backend (what ACCOUNTS_URL would be)')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ArgumentError(`--accounts-url is not a URL: ${JSON.stringify(value.slice(0, 100))}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ArgumentError(`--accounts-url must be http or https, not ${url.protocol}`)
  if (url.username !== '' || url.password !== '') throw new ArgumentError('--accounts-url must not carry credentials: the edge sends none')
  if (url.search !== '' || url.hash !== '') throw new ArgumentError('--accounts-url must have no query string or fragment: the edge adds only the call\'s path')
  return url
}

function parseTimeout (value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS
  const timeout = Number(value)
  if (!/^\d+$/.test(value) || timeout < MIN_TIMEOUT_MS || timeout > MAX_TIMEOUT_MS) {
    throw new ArgumentError(`--timeout-ms must be a whole number of milliseconds from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}, not ${JSON.stringify(value)}`)
  }
  return timeout
}

function pair (email: string | undefined, password: string | undefined, names: readonly [string, string]): TestAccount | null {
  if (email === undefined && password === undefined) return null
  if (email === undefined || email === '') throw new ArgumentError(`${names[1]} was given without ${names[0]}`)
  if (password === undefined || password === '') throw new ArgumentError(`${names[0]} needs its password: ${names[1]}`)
  if (!email.includes('@')) throw new ArgumentError(`${names[0]} is not an email address: ${JSON.stringify(email.slice(0, 100))}`)
  return { email, password }
}

/** Parses the arguments after `--`; throws ArgumentError with a message naming the option. */
export function parseConformanceArguments (argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): ConformanceArguments {
  let values
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'accounts-url': { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        'google-token': { type: 'string' },
        'google-email': { type: 'string' },
        'google-nonce-secret': { type: 'string' },
        'google-client-id': { type: 'string' },
        'sso-email': { type: 'string' },
        'blocked-email': { type: 'string' },
        'blocked-password': { type: 'string' },
        'email-codes': { type: 'boolean' },
        'sso-discovery': { type: 'boolean' },
        'sso-domain': { type: 'string' },
        social: { type: 'string' },
        'timeout-ms': { type: 'string' },
        contract: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }
      }
    }))
  } catch (error) {
    // parseArgs says "Unknown option '--x'…" or "Option '--x <value>' argument missing": readable as they are.
    throw new ArgumentError((error as Error).message)
  }
  if (values.help === true) {
    return { help: true, accountsUrl: new URL('http://localhost/'), account: null, probe: noProbeOptions(), timeoutMs: DEFAULT_TIMEOUT_MS, contractPath: null, json: false }
  }
  const password = values.password ?? env.CONFORMANCE_PASSWORD
  const account = pair(values.email, values.email === undefined && values.password === undefined ? undefined : password, ['--email', '--password'])
  const blockedAccount = pair(values['blocked-email'], values['blocked-email'] === undefined && values['blocked-password'] === undefined
    ? undefined
    : values['blocked-password'] ?? env.CONFORMANCE_BLOCKED_PASSWORD, ['--blocked-email', '--blocked-password'])
  const googleToken = values['google-token'] ?? env.CONFORMANCE_GOOGLE_TOKEN ?? null
  if (googleToken === null && (values['google-nonce-secret'] !== undefined || values['google-email'] !== undefined)) {
    throw new ArgumentError('--google-nonce-secret and --google-email go with --google-token')
  }
  if (values['sso-email'] !== undefined && !values['sso-email'].includes('@')) throw new ArgumentError('--sso-email is not an email address')
  const ssoDomain = values['sso-domain'] ?? null
  if (ssoDomain !== null && (ssoDomain.includes('@') || !ssoDomain.includes('.'))) throw new ArgumentError('--sso-domain is not an email domain such as example.com')
  if (ssoDomain !== null && values['sso-discovery'] !== true) throw new ArgumentError('--sso-domain goes with --sso-discovery')
  const social = values.social === undefined ? [] : values.social.split(',').map((id) => id.trim()).filter((id) => id !== '')
  const badId = social.find((id) => !SOCIAL_PROVIDER_ID_FORMAT.test(id))
  if (badId !== undefined) throw new ArgumentError(`--social names connection ids (lower-case letters, digits and dashes), not ${JSON.stringify(badId.slice(0, 40))}`)
  return {
    help: false,
    accountsUrl: parseUrl(values['accounts-url']),
    account,
    probe: {
      googleToken,
      googleEmail: values['google-email'] ?? null,
      googleNonceSecret: values['google-nonce-secret'] ?? null,
      googleClientId: values['google-client-id'] ?? null,
      ssoEmail: values['sso-email'] ?? null,
      blockedAccount,
      emailCodes: values['email-codes'] === true,
      ssoDiscovery: values['sso-discovery'] === true,
      ssoDomain,
      social
    },
    timeoutMs: parseTimeout(values['timeout-ms']),
    contractPath: values.contract ?? null,
    json: values.json === true
  }
}

function noProbeOptions (): ProbeOptions {
  return { googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null }
}
