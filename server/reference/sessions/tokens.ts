import { createLocalJWKSet, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { missesRequiredSecondFactor, rememberedBrowserMark, type SecondFactorSession } from '../second-factor/second-factor-requirement.js'
import { DEFAULT_SESSION_SETTINGS, type SessionSettings } from '../config.js'
import { SIGNING_ALGORITHM } from '../keys/signing-key.js'
import type { SigningKeys } from '../keys/signing-keys.js'
import type { Account, AccountStore, RefreshRotation } from '../store/account-store.js'
import type { RequestOrigin } from './request-origin.js'

/** The auth token is short-lived; a refresh token lives for the idle timeout (SessionSettings). */
export const AUTH_TOKEN_TTL_SECONDS = 15 * 60

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * How a login proved who it is (RFC 8176 values where one exists: `hwk` is a
 * passkey, a key held by an authenticator; `email` a code emailed to the
 * account's address, one factor, as a reset link is; `social` a social
 * connection's provider, as `google` is Google); `+otp`: a second factor
 * followed (docs/second-factor.md), so 'email+otp' gives ["email", "otp", "mfa"].
 */
export type AuthenticationMethod = 'pwd' | 'google' | 'sso' | 'social' | 'hwk' | 'email' | 'pwd+otp' | 'google+otp' | 'email+otp' | 'social+otp'

/**
 * Where a token may be used, when not everywhere: `local-network`, a login at
 * local-network mode's own listener (server/reference/sign-in/local-accounts.ts),
 * whose tokens that listener alone refreshes and which change no account
 * (docs/reference-service.md, "Local-network mode").
 */
export type TokenScope = 'local-network'

/** What a login asked for, carried into every token of its refresh family. */
export interface LoginContext {
  readonly organizations: readonly string[]
  readonly resourceType: string | null
  readonly clusterName: string | null
  /** Set by the listener the login came through, never by a request body; absent: the edge's. */
  readonly scope?: TokenScope
  /**
   * The credential id of the passkey a passkey sign-in used, set by PasskeySignIn.login, never by a
   * request body: removing the passkey ends the session (docs/passkeys.md). Not in the auth token.
   */
  readonly passkeyId?: string
}

export interface TokenPair {
  readonly auth: string
  readonly refresh: string
}

/** What a valid auth token of this service says (docs/account-changes.md#what-the-tokens-say). */
export interface AuthTokenClaims {
  readonly accountId: string
  /** The session (the refresh family) the token belongs to: `sid`. */
  readonly sessionId: string
  /** When the sign-in that started the session happened, epoch seconds: `auth_time`. */
  readonly authTime: number
  readonly amr: readonly string[]
}

/** What a refresh token's record keeps of its login, beside the context: the method, when and where it signed in. */
interface SavedLogin extends LoginContext {
  readonly method: AuthenticationMethod
  /** Epoch milliseconds of the sign-in; absent in records written before it was kept (their first token's issue time is unknown). */
  readonly signedInAt?: number
  /** Where the sign-in came from, as the account view lists sessions; absent in records written before it was kept. */
  readonly origin?: RequestOrigin
}

/** A session as one refresh token of it is kept. */
interface SessionStart {
  readonly familyId: string
  readonly signedInAt: number
  readonly origin?: RequestOrigin
}

/** What a refresh token's record (RefreshTokenRecord.context) says of its login. */
export function readSavedLogin (context: string): SavedLogin {
  return JSON.parse(context) as SavedLogin
}

/** RFC 8176's values: 'pwd+otp' gives ["pwd", "otp", "mfa"]. */
function methodReferences (method: AuthenticationMethod): string[] {
  return method.endsWith('+otp') ? [...method.split('+'), 'mfa'] : [method]
}

export type RefreshOutcome =
  | { readonly tokens: TokenPair, readonly accountId: string }
  | { readonly refused: 'unknown' | 'expired' | 'revoked' | 'reused' | 'lifetime-ended' | 'no-allowed-organization' | 'second-factor-required' | 'other-scope' }
  /** The caller went away before the rotation: nothing was spent, and the token rotates as before when presented again. */
  | { readonly unspent: 'client-gone' }

export interface RotateOptions {
  /** The service asks for second factors (SECOND_FACTOR): a session an organisation's requirement now excludes is refused. */
  readonly secondFactors?: boolean
  /** Only a token of this scope is exchanged (none: the edge's). */
  readonly scope?: TokenScope
  /** Aborted when the caller has gone (RequestFacts.signal): a token not spent yet is then left unspent. */
  readonly signal?: AbortSignal
}


/** SHA-256 of an opaque token: stored instead of the token, so a database leak reveals none. */
export function hashToken (token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

export function newOpaqueToken (): string {
  return randomBytes(32).toString('base64url')
}

/** Issues, rotates and revokes tokens. */
export class TokenService {
  constructor (
    private readonly store: AccountStore,
    private readonly keys: Pick<SigningKeys, 'signer' | 'keySet'>,
    private readonly claims: { readonly issuer: string, readonly audience: string },
    /** The clock that decides which key signs, which keys are published and when refresh tokens expire (tests move it). */
    private readonly now: () => number = Date.now,
    private readonly sessions: SessionSettings = DEFAULT_SESSION_SETTINGS
  ) {}

  private async signAuthToken (account: Account, context: LoginContext, method: AuthenticationMethod, session: { familyId: string, signedInAt: number }): Promise<string> {
    // One clock for signing, issuing and verifying (tests move it; in production it is the real one).
    const issuedAt = Math.floor(this.now() / 1000)
    const key = this.keys.signer(this.now())
    return new SignJWT({
      email: account.email,
      // OIDC's claim: whether the address was shown to belong to the holder (a Google or SSO sign-up), not only typed in.
      email_verified: account.emailVerifiedAt !== null,
      orgs: context.organizations,
      amr: methodReferences(method),
      // OIDC's claims: a product can ask for a recent sign-in, and a service can ask whether the session still lives.
      auth_time: Math.floor(session.signedInAt / 1000),
      sid: session.familyId,
      ...(context.resourceType === null ? {} : { resource_type: context.resourceType }),
      ...(context.clusterName === null ? {} : { cluster_name: context.clusterName }),
      // A product's backend can tell a local-network token too (docs/reference-service.md).
      ...(context.scope === undefined ? {} : { scope: context.scope })
    })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'at+jwt' })
      .setSubject(account.id)
      .setIssuer(this.claims.issuer)
      .setAudience(this.claims.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + AUTH_TOKEN_TTL_SECONDS)
      .setJti(randomUUID())
      .sign(key.privateKey)
  }

  /** A new auth token and a refresh token. A login starts a new refresh family (the session). */
  async issue (
    account: Account, context: LoginContext, method: AuthenticationMethod,
    session: SessionStart = { familyId: randomUUID(), signedInAt: this.now() }
  ): Promise<TokenPair> {
    const { refresh, record } = this.refreshTokenInFamily(context, method, session)
    // A new family has no revoked token: only a rotation's successor can be refused.
    if (!await this.store.insertRefreshToken({ ...record, accountId: account.id, familyId: session.familyId })) {
      throw new Error('a new session\'s refresh token was refused')
    }
    return { auth: await this.signAuthToken(account, context, method, session), refresh }
  }

  /** A new refresh token of the session, and what its record keeps beside the account and family. */
  private refreshTokenInFamily (
    context: LoginContext, method: AuthenticationMethod, session: SessionStart
  ): { refresh: string, record: RefreshRotation['successor'] } {
    const refresh = newOpaqueToken()
    const saved: SavedLogin = { ...context, method, signedInAt: session.signedInAt, ...(session.origin === undefined ? {} : { origin: session.origin }) }
    return {
      refresh,
      record: {
        tokenHash: hashToken(refresh),
        // Never past the session's end, so that isSessionLive says so the moment it comes.
        expiresAt: Math.min(this.now() + this.sessions.idleTimeoutDays * DAY_MS, session.signedInAt + this.sessions.maxLifetimeDays * DAY_MS),
        context: JSON.stringify(saved)
      }
    }
  }

  /**
   * Exchanges a refresh token for a new pair. Each refresh token is spent by
   * its first use; presented again within the grace (REFRESH_REUSE_GRACE_SECONDS
   * of that use: a retry after a lost answer, or a product's parallel calls)
   * it gets a sibling, a new pair in the same family. Later, it means the token
   * was stolen (or replayed), and the whole family is revoked, logging out both
   * the thief and the owner. A session past its maximum lifetime ends, as
   * does one whose login would be refused today (its organisations left, or a
   * second factor now required: server/reference/second-factor/second-factor-requirement.ts). Only a token
   * of `scope` is exchanged (none: the edge's): one of another scope is
   * refused before it is spent, so that it still works where it belongs.
   * The spend and the successor are one transaction (AccountStore.rotateRefreshToken):
   * a rotation that fails spends nothing, and one whose caller has gone
   * (`signal`) before it is not made.
   */
  async rotate (refreshToken: string, { secondFactors = false, scope, signal }: RotateOptions = {}): Promise<RefreshOutcome> {
    const now = this.now()
    const record = await this.store.findRefreshToken(hashToken(refreshToken))
    if (record === null) return { refused: 'unknown' }
    const saved = readSavedLogin(record.context) as SavedLogin & SecondFactorSession
    if (saved.scope !== scope) return { refused: 'other-scope' }
    // The grace never revives a family: a sibling of a revoked one is refused too (rotateRefreshToken).
    if (record.revokedAt !== null) return { refused: 'revoked' }
    if (saved.signedInAt !== undefined && saved.signedInAt + this.sessions.maxLifetimeDays * DAY_MS <= now) {
      await this.store.revokeRefreshFamily(record.familyId, now)
      return { refused: 'lifetime-ended' }
    }
    // A use, once made, never changes: this read tells a theft before anything else is asked (the store tells one made since).
    if (record.usedAt !== null && now - record.usedAt >= this.sessions.reuseGraceSeconds * 1000) {
      await this.store.revokeRefreshFamily(record.familyId, now)
      return { refused: 'reused' }
    }
    if (record.expiresAt <= now) return { refused: 'expired' }
    const account = await this.store.findAccountById(record.accountId)
    if (account === null) return { refused: 'revoked' }
    // Memberships may have been withdrawn since the login.
    const memberships = new Set(await this.store.listMemberships(account.id))
    const context: LoginContext = {
      organizations: saved.organizations.filter((organization) => memberships.has(organization)),
      resourceType: saved.resourceType,
      clusterName: saved.clusterName,
      ...rememberedBrowserMark(saved),
      ...(saved.scope === undefined ? {} : { scope: saved.scope }),
      ...(saved.passkeyId === undefined ? {} : { passkeyId: saved.passkeyId })
    }
    // A login that named organisations needed a membership; once none is
    // left, the login would be refused today, and so is its refresh.
    if (saved.organizations.length > 0 && context.organizations.length === 0) {
      await this.store.revokeRefreshFamily(record.familyId, now)
      return { refused: 'no-allowed-organization' }
    }
    if (secondFactors && await missesRequiredSecondFactor(this.store, account.id, saved)) {
      await this.store.revokeRefreshFamily(record.familyId, now)
      return { refused: 'second-factor-required' }
    }
    // Nobody would read the successor (the visitor left, or the edge answered 504): the token stays for the retry.
    if (signal?.aborted === true) return { unspent: 'client-gone' }
    // A session from before sign-in times were kept counts from this refresh: never older than it is.
    const session: SessionStart = {
      familyId: record.familyId, signedInAt: saved.signedInAt ?? now, ...(saved.origin === undefined ? {} : { origin: saved.origin })
    }
    const { refresh, record: successor } = this.refreshTokenInFamily(context, saved.method, session)
    const rotation = await this.store.rotateRefreshToken({
      tokenHash: record.tokenHash, successor, now, reuseGraceMs: this.sessions.reuseGraceSeconds * 1000
    })
    if ('refused' in rotation) return rotation
    return { tokens: { auth: await this.signAuthToken(account, context, saved.method, session), refresh }, accountId: account.id }
  }

  /** Revokes the family of a refresh token (logout). Unknown tokens are ignored. */
  async revoke (refreshToken: string): Promise<void> {
    const record = await this.store.findRefreshToken(hashToken(refreshToken))
    if (record !== null) await this.store.revokeRefreshFamily(record.familyId, this.now())
  }

  /**
   * What an auth token of this service says, if its signature, issuer,
   * audience, type, expiry and scope hold; else null. Without `scope`, a
   * token that names one is refused: a local-network token changes no
   * account through the edge. It says nothing of whether its session still
   * lives: isSessionLive does.
   */
  async verifyAuthToken (token: string, scope?: TokenScope): Promise<AuthTokenClaims | null> {
    try {
      const keys = createLocalJWKSet(this.keySet() as JSONWebKeySet)
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.claims.issuer,
        audience: this.claims.audience,
        typ: 'at+jwt',
        algorithms: [SIGNING_ALGORITHM],
        currentDate: new Date(this.now())
      })
      if (payload.scope !== scope) return null
      const { sub, sid, auth_time: authTime, amr } = payload as Record<string, unknown>
      if (typeof sub !== 'string' || typeof sid !== 'string' || typeof authTime !== 'number') return null
      if (!Array.isArray(amr) || !amr.every((value) => typeof value === 'string')) return null
      return { accountId: sub, sessionId: sid, authTime, amr }
    } catch {
      return null
    }
  }

  /**
   * What the session a refresh token belongs to says, if it still lives, read
   * without spending the token (the OpenID Connect provider asks whether a
   * visitor whose auth cookie has expired is still signed in: the page, not
   * the provider, rotates the token). A token spent longer ago than the grace is
   * no proof of a session (its reuse is the page's to tell); null then.
   */
  async sessionOfRefreshToken (refreshToken: string): Promise<AuthTokenClaims | null> {
    const now = this.now()
    const record = await this.store.findRefreshToken(hashToken(refreshToken))
    if (record === null || record.revokedAt !== null || record.expiresAt <= now) return null
    if (record.usedAt !== null && now - record.usedAt >= this.sessions.reuseGraceSeconds * 1000) return null
    const saved = readSavedLogin(record.context)
    if (saved.scope !== undefined || saved.signedInAt === undefined) return null
    if (saved.signedInAt + this.sessions.maxLifetimeDays * DAY_MS <= now) return null
    if (!await this.store.isRefreshFamilyLive(record.familyId, now)) return null
    return { accountId: record.accountId, sessionId: record.familyId, authTime: Math.floor(saved.signedInAt / 1000), amr: methodReferences(saved.method) }
  }

  /**
   * Whether the session still lives: a token of its family neither revoked
   * (logout, "was this you?", a reset, the operator's end-sessions) nor
   * expired. An auth token outlives its session by up to its 15 minutes;
   * account changes ask this first.
   */
  async isSessionLive (sessionId: string): Promise<boolean> {
    return await this.store.isRefreshFamilyLive(sessionId, this.now())
  }

  /**
   * The public key set other services use to verify auth tokens: after a
   * rotation, the new key before it signs and the old one until its tokens
   * have expired (server/reference/keys/signing-keys.ts).
   */
  keySet (): { keys: unknown[] } {
    return { keys: this.keys.keySet(this.now()) }
  }
}
