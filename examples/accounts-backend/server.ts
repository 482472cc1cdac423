// A small accounts backend for the Threshold sign-in page: the six calls of
// docs/accounts-api.md, in one file, as a starting point for your own. It
// passes `npm run conformance`. Run it with Node 24 as it is (no build):
//
//   node examples/accounts-backend/server.ts
//
// and start the page in front of it with ACCOUNTS_URL=http://127.0.0.1:8081.
// What it leaves to you (email, single sign-on, a real database, refresh and
// revocation, throttling) is in README.md beside this file.
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose'

export interface BackendOptions {
  /** A JSON file the accounts are kept in; null: in memory only, gone at exit. */
  readonly dataFile: string | null
  /** The key the tokens are signed with (HS256); at least 32 bytes. */
  readonly tokenSecret: Uint8Array
  /** Your Google client id; null: Google sign-in is refused. */
  readonly googleClientId: string | null
  /** Where Google's public keys are (tests point it at their own). */
  readonly googleJwksUrl: string
  /** Domains whose addresses may not sign in (lower case). */
  readonly blockedDomains: ReadonlySet<string>
}

interface Account {
  readonly id: string
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
  passwordHash: string | null
  readonly googleSubject: string | null
  /** The organisations the account belongs to: edit them in the data file. */
  readonly organizations: string[]
}

type Body = Record<string, unknown>
interface Answer { readonly status: number, readonly body: Body }

const MAX_BODY_BYTES = 16 * 1024
const PASSWORD_MIN = 8
const PASSWORD_MAX = 256
const MAX_ORGS = 20
const AUTH_LIFETIME = '15m'
const REFRESH_LIFETIME = '14d'
const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com']

const INVALID_CREDENTIALS = 'Invalid email or password.'
const NOT_A_MEMBER = 'Your account is not a member of an organisation allowed here.'
const RESET_SENT = 'If an account exists for this email, we have sent it a link to reset the password.'
// The same text for a new and a taken address, so that registration does not tell who has an account.
const REGISTERED = 'Thank you. If this address was new, your account is ready: log in. If it already had an account, log in with it or reset its password.'

const answer = (status: number, body: Body): Answer => ({ status, body })
const refuse = (status: number, error: string): Answer => answer(status, { error })

// ---- passwords: scrypt, with a decoy hash so that an unknown address takes as long as a known one ----

const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }

function scryptAsync (password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, 32, SCRYPT, (error, key) => error === null ? resolve(key) : reject(error)))
}

async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(16)
  return `scrypt$${salt.toString('base64')}$${(await scryptAsync(password, salt)).toString('base64')}`
}

async function verifyPassword (password: string, stored: string): Promise<boolean> {
  const [, salt, hash] = stored.split('$')
  const expected = Buffer.from(hash ?? '', 'base64')
  const actual = await scryptAsync(password, Buffer.from(salt ?? '', 'base64'))
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

// ---- the store: a map by lower-cased address, written whole to the data file on every change ----

class AccountStore {
  private readonly byEmail = new Map<string, Account>()
  private readonly file: string | null

  constructor (file: string | null) {
    this.file = file
    if (file !== null && existsSync(file)) {
      for (const account of JSON.parse(readFileSync(file, 'utf8')) as Account[]) this.byEmail.set(account.email.toLowerCase(), account)
    }
  }

  find (email: string): Account | undefined { return this.byEmail.get(email.toLowerCase()) }

  findByGoogleSubject (subject: string): Account | undefined {
    return [...this.byEmail.values()].find((account) => account.googleSubject === subject)
  }

  /** Adds the account unless its address (or Google subject) is taken; answers whether it did. */
  add (account: Account): boolean {
    if (this.find(account.email) !== undefined) return false
    if (account.googleSubject !== null && this.findByGoogleSubject(account.googleSubject) !== undefined) return false
    this.byEmail.set(account.email.toLowerCase(), account)
    this.save()
    return true
  }

  private save (): void {
    if (this.file === null) return
    // Written beside and renamed over: a crash mid-write leaves the old file, not half of the new.
    writeFileSync(`${this.file}.tmp`, JSON.stringify([...this.byEmail.values()], null, 2), { mode: 0o600 })
    renameSync(`${this.file}.tmp`, this.file)
  }
}

// ---- reading request bodies ----

const text = (value: unknown): value is string => typeof value === 'string'

function parseEmail (value: unknown): string | null {
  if (!text(value)) return null
  const email = value.trim()
  return email.length <= 254 && /^[^\s@<>()[\]\\,;:"]{1,64}@[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(email) ? email : null
}

function parseName (value: unknown): string | null | false {
  if (value === undefined || value === null || value === '') return null
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
  return text(value) && value.length <= 100 && !/[\u0000-\u001f\u007f]/.test(value) ? value.trim() : false
}

interface LoginContext { readonly organizations: readonly string[], readonly resourceType: string | null, readonly clusterName: string | null }

/** The context fields of a login; null when malformed (a backend must not skip a list it cannot read). */
function parseContext (body: Body): LoginContext | null {
  const orgs = body.insecure_allowed_orgs ?? []
  if (!Array.isArray(orgs) || orgs.length > MAX_ORGS || !orgs.every((org) => text(org) && org.length <= 128)) return null
  const field = (value: unknown): string | null | false => value === undefined || value === null ? null : text(value) && value.length <= 128 ? value : false
  const resourceType = field(body.resource_type)
  const clusterName = field(body.cluster_name)
  if (resourceType === false || clusterName === false) return null
  return { organizations: orgs as string[], resourceType, clusterName }
}

const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase()

// ---- the backend ----

export function createAccountsBackend (options: BackendOptions): Server {
  const store = new AccountStore(options.dataFile)
  const decoyHash = hashPassword(randomBytes(16).toString('hex'))
  const googleKeys = createRemoteJWKSet(new URL(options.googleJwksUrl))
  /** Google token ids seen, until they expire: each token signs in once. */
  const usedGoogleTokens = new Map<string, number>()

  async function issueTokens (account: Account, context: LoginContext, method: string): Promise<Answer> {
    const allowed = context.organizations.filter((org) => account.organizations.includes(org))
    if (context.organizations.length > 0 && allowed.length === 0) return refuse(403, NOT_A_MEMBER)
    const claims = { email: account.email, orgs: allowed, resource_type: context.resourceType, cluster_name: context.clusterName, amr: [method] }
    const sign = (typ: string, lifetime: string): Promise<string> => new SignJWT({ ...claims, typ })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(account.id).setJti(randomUUID()).setIssuedAt().setExpirationTime(lifetime)
      .sign(options.tokenSecret)
    return answer(200, { auth: await sign('auth', AUTH_LIFETIME), refresh: await sign('refresh', REFRESH_LIFETIME) })
  }

  async function passwordLogin (body: Body): Promise<Answer> {
    const email = parseEmail(body.email)
    if (email === null) return refuse(400, 'Enter a valid email address.')
    if (!text(body.password) || body.password === '' || [...body.password].length > PASSWORD_MAX) return refuse(400, 'Enter your password.')
    const context = parseContext(body)
    if (context === null) return refuse(400, 'The login context is not valid.')
    if (options.blockedDomains.has(domainOf(email))) return refuse(403, 'Addresses of this domain may not sign in here.')
    const account = store.find(email)
    // An unknown address is checked against a decoy: the same work, the same answer.
    const verified = await verifyPassword(body.password, account?.passwordHash ?? await decoyHash)
    if (account === undefined || account.passwordHash === null || !verified) return refuse(401, INVALID_CREDENTIALS)
    return await issueTokens(account, context, 'pwd')
  }

  async function register (body: Body): Promise<Answer> {
    const firstName = parseName(body.first_name)
    const lastName = parseName(body.last_name)
    if (firstName === false || lastName === false) return refuse(400, 'Names are text of at most 100 characters.')
    const email = parseEmail(body.email)
    if (email === null) return refuse(400, 'Enter a valid email address.')
    const { password } = body
    if (!text(password) || [...password].length < PASSWORD_MIN) return refuse(400, `Your password must have at least ${PASSWORD_MIN} characters.`)
    if ([...password].length > PASSWORD_MAX) return refuse(400, `Your password can have at most ${PASSWORD_MAX} characters.`)
    if (body.confirm_password !== password) return refuse(400, 'The passwords do not match.')
    // Hashed whether or not the address is taken: the answer takes as long either way.
    const passwordHash = await hashPassword(password)
    store.add({ id: randomUUID(), email, firstName, lastName, passwordHash, googleSubject: null, organizations: [] })
    // A taken address gets the same answer; email its owner here ("someone tried to register"), after answering.
    return answer(200, { success: REGISTERED })
  }

  function resetPasswordRequest (body: Body): Answer {
    const email = parseEmail(body.email)
    if (email === null) return refuse(400, 'Enter a valid email address.')
    // Send the reset link here, after answering and only when store.find(email) has an account.
    return answer(200, { success: RESET_SENT })
  }

  /** The Google account an ID token vouches for, or why the token is refused (logged by you, never shown). */
  async function verifyGoogle (request: IncomingMessage, body: Body): Promise<{ subject: string, email: string } | null> {
    if (options.googleClientId === null) return null
    const token = /^Bearer ([\w.~+/=-]{1,8192})$/.exec(request.headers.authorization ?? '')?.[1]
    if (token === undefined) return null
    try {
      const { payload } = await jwtVerify(token, googleKeys, { issuer: GOOGLE_ISSUERS, audience: options.googleClientId, algorithms: ['RS256'] })
      const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
      if (audiences.length > 1 && payload.azp !== options.googleClientId) return null
      if (payload.email_verified !== true || !text(payload.email) || !text(payload.sub) || !text(payload.jti)) return null
      // The page sends the secret whose SHA-256 it gave Google as the nonce: a token asked for by another page is refused.
      const secret = body.google_nonce_secret
      if (payload.nonce !== undefined && (!text(secret) || createHash('sha256').update(secret).digest('base64url') !== payload.nonce)) return null
      const now = Date.now()
      for (const [jti, expires] of usedGoogleTokens) if (expires < now) usedGoogleTokens.delete(jti)
      if (usedGoogleTokens.has(payload.jti)) return null
      usedGoogleTokens.set(payload.jti, (payload.exp ?? 0) * 1000)
      return { subject: payload.sub, email: payload.email }
    } catch {
      return null
    }
  }

  async function methodLogin (request: IncomingMessage, body: Body): Promise<Answer> {
    if (body.login_method === 'SAML' || body.login_method === 'OIDC') return refuse(400, 'Single sign-on is not set up here.')
    if (body.login_method !== 'GOOGLE') return refuse(400, 'This sign-in method is not supported.')
    const context = parseContext(body)
    if (context === null) return refuse(400, 'The login context is not valid.')
    const google = await verifyGoogle(request, body)
    if (google === null) return refuse(401, 'Google login failed.')
    if (options.blockedDomains.has(domainOf(google.email))) return refuse(403, 'Addresses of this domain may not sign in here.')
    const account = store.findByGoogleSubject(google.subject)
    if (account === undefined) return refuse(404, 'No account is registered with this Google account yet. Sign up with Google first.')
    return await issueTokens(account, context, 'google')
  }

  async function methodRegister (request: IncomingMessage, body: Body): Promise<Answer> {
    if (body.register_method === 'SAML' || body.register_method === 'OIDC') return refuse(400, 'Single sign-on is not set up here.')
    if (body.register_method !== 'GOOGLE') return refuse(400, 'This sign-up method is not supported.')
    const google = await verifyGoogle(request, body)
    if (google === null) return refuse(401, 'Google registration failed.')
    // Google vouches for this address, so saying it is taken tells its owner nothing new.
    const added = store.add({ id: randomUUID(), email: google.email, firstName: null, lastName: null, passwordHash: null, googleSubject: google.subject, organizations: [] })
    return added ? answer(200, { success: 'Your account has been created with Google. You can now log in with Google.' })
      : refuse(409, 'An account with this email or Google account already exists. Log in.')
  }

  function ssoStart (body: Body): Answer {
    if (parseEmail(body.email) === null) return refuse(400, 'Enter a valid email address.')
    return refuse(400, 'Single sign-on is not set up for this email domain.')
  }

  const routes: Record<string, (request: IncomingMessage, body: Body) => Answer | Promise<Answer>> = {
    '/v2/login': (_request, body) => passwordLogin(body),
    '/register': (_request, body) => register(body),
    '/resetPasswordRequest': (_request, body) => resetPasswordRequest(body),
    '/v2/auth/login': methodLogin,
    '/auth/register': methodRegister,
    '/auth/login/sso': (_request, body) => ssoStart(body)
  }

  async function handle (request: IncomingMessage): Promise<Answer> {
    const route = routes[new URL(request.url ?? '/', 'http://backend').pathname]
    if (route === undefined) return refuse(404, 'Not found.')
    if (request.method !== 'POST') return refuse(405, 'Use POST.')
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return refuse(415, 'The request body must be JSON.')
    const chunks: Buffer[] = []
    let length = 0
    for await (const chunk of request) {
      length += (chunk as Buffer).length
      if (length > MAX_BODY_BYTES) return refuse(413, 'The request body is too large.')
      chunks.push(chunk as Buffer)
    }
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return refuse(400, 'The request body is not valid JSON.')
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return refuse(400, 'The request body must be a JSON object.')
    return await route(request, body as Body)
  }

  return createServer((request: IncomingMessage, response: ServerResponse) => {
    // A request listener returns nothing to wait on: every failure is answered by the catch.
    void handle(request).catch((error: unknown) => {
      console.error('request failed:', error)
      return refuse(500, 'Something went wrong. Please try again.')
    }).then(({ status, body }) => {
      const bytes = Buffer.from(JSON.stringify(body))
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length, 'cache-control': 'no-store' })
      response.end(bytes)
    })
  })
}

/** The options from environment variables; a bad value stops the start with a message naming it. */
export function optionsFromEnv (env: Readonly<Record<string, string | undefined>>): BackendOptions {
  const secret = env.TOKEN_SECRET
  if (secret !== undefined && Buffer.byteLength(secret) < 32) throw new Error('TOKEN_SECRET must have at least 32 bytes')
  return {
    dataFile: env.DATA_FILE ?? null,
    // Without TOKEN_SECRET, tokens are signed with a key made at start: they stop being valid at a restart.
    tokenSecret: secret === undefined ? randomBytes(32) : Buffer.from(secret),
    googleClientId: env.GOOGLE_CLIENT_ID ?? null,
    googleJwksUrl: env.GOOGLE_JWKS_URL ?? 'https://www.googleapis.com/oauth2/v3/certs',
    blockedDomains: new Set((env.BLOCKED_DOMAINS ?? '').split(',').map((domain) => domain.trim().toLowerCase()).filter(Boolean))
  }
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 8081)
  const host = process.env.HOST ?? '127.0.0.1'
  const server = createAccountsBackend(optionsFromEnv(process.env))
  server.listen(port, host, () => {
    const address = server.address()
    console.log(`accounts backend on http://${host}:${typeof address === 'object' && address !== null ? address.port : port}`)
  })
  process.on('SIGTERM', () => server.close())
}
