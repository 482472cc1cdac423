import { createLocalJWKSet, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { SIGNING_ALGORITHM } from './signing-key.js'
import type { SigningKeys } from './signing-keys.js'
import type { Account, AccountStore } from './store/account-store.js'

/** The auth token is short-lived; the refresh token lives as long as its cookie (14 days). */
export const AUTH_TOKEN_TTL_SECONDS = 15 * 60
export const REFRESH_TOKEN_TTL_MS = 14 * 24 * 60 * 60 * 1000

/** How an account proved who it is (RFC 8176 values where one exists: `hwk` is a passkey, a key held by an authenticator). */
/** How a login proved who it is; `+otp`: a second factor followed (docs/second-factor.md). */
export type AuthenticationMethod = 'pwd' | 'google' | 'sso' | 'hwk' | 'pwd+otp' | 'google+otp'

/**
 * Where a token may be used, when not everywhere: `local-network`, a login at
 * local-network mode's own listener (server/reference/local-accounts.ts),
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
}

export interface TokenPair {
  readonly auth: string
  readonly refresh: string
}

export type RefreshOutcome =
  | { readonly tokens: TokenPair, readonly accountId: string }
  | { readonly refused: 'unknown' | 'expired' | 'revoked' | 'reused' | 'no-allowed-organization' | 'other-scope' }

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
    /** The clock that decides which key signs and which keys are published (tests move it past a rotation). */
    private readonly now: () => number = Date.now
  ) {}

  private async signAuthToken (account: Account, context: LoginContext, method: AuthenticationMethod): Promise<string> {
    const key = this.keys.signer(this.now())
    return new SignJWT({
      email: account.email,
      // OIDC's claim: whether the address was shown to belong to the holder (a Google or SSO sign-up), not only typed in.
      email_verified: account.emailVerifiedAt !== null,
      orgs: context.organizations,
      // RFC 8176's values: 'pwd+otp' gives ["pwd", "otp", "mfa"].
      amr: method.endsWith('+otp') ? [...method.split('+'), 'mfa'] : [method],
      ...(context.resourceType === null ? {} : { resource_type: context.resourceType }),
      ...(context.clusterName === null ? {} : { cluster_name: context.clusterName }),
      // A product's backend can tell a local-network token too (docs/reference-service.md).
      ...(context.scope === undefined ? {} : { scope: context.scope })
    })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'at+jwt' })
      .setSubject(account.id)
      .setIssuer(this.claims.issuer)
      .setAudience(this.claims.audience)
      .setIssuedAt()
      .setExpirationTime(`${AUTH_TOKEN_TTL_SECONDS}s`)
      .setJti(randomUUID())
      .sign(key.privateKey)
  }

  /** A new auth token and a refresh token; a login starts a new refresh family. */
  async issue (account: Account, context: LoginContext, method: AuthenticationMethod, familyId: string = randomUUID()): Promise<TokenPair> {
    const refresh = newOpaqueToken()
    await this.store.insertRefreshToken({
      tokenHash: hashToken(refresh),
      accountId: account.id,
      familyId,
      expiresAt: Date.now() + REFRESH_TOKEN_TTL_MS,
      context: JSON.stringify({ ...context, method })
    })
    return { auth: await this.signAuthToken(account, context, method), refresh }
  }

  /**
   * Exchanges a refresh token for a new pair. Each refresh token works once:
   * presenting a used one means it was stolen (or replayed), and the whole
   * family is revoked, logging out both the thief and the owner. Only a token
   * of `scope` is exchanged (none: the edge's): one of another scope is
   * refused before it is spent, so that it still works where it belongs.
   */
  async rotate (refreshToken: string, scope?: TokenScope): Promise<RefreshOutcome> {
    const now = Date.now()
    const record = await this.store.findRefreshToken(hashToken(refreshToken))
    if (record === null) return { refused: 'unknown' }
    const saved = JSON.parse(record.context) as LoginContext & { method: AuthenticationMethod }
    if (saved.scope !== scope) return { refused: 'other-scope' }
    if (record.revokedAt !== null) return { refused: 'revoked' }
    if (record.usedAt !== null || !(await this.store.markRefreshTokenUsed(record.tokenHash, now))) {
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
      ...(saved.scope === undefined ? {} : { scope: saved.scope })
    }
    // A login that named organisations needed a membership; once none is
    // left, the login would be refused today, and so is its refresh.
    if (saved.organizations.length > 0 && context.organizations.length === 0) {
      await this.store.revokeRefreshFamily(record.familyId, now)
      return { refused: 'no-allowed-organization' }
    }
    return { tokens: await this.issue(account, context, saved.method, record.familyId), accountId: account.id }
  }

  /** Revokes the family of a refresh token (logout). Unknown tokens are ignored. */
  async revoke (refreshToken: string): Promise<void> {
    const record = await this.store.findRefreshToken(hashToken(refreshToken))
    if (record !== null) await this.store.revokeRefreshFamily(record.familyId, Date.now())
  }

  /**
   * The account an auth token of this service was issued to, if its
   * signature, issuer, audience, type, expiry and scope hold; else null.
   * Without `scope`, a token that names one is refused: a local-network
   * token changes no account through the edge.
   */
  async verifyAuthToken (token: string, scope?: TokenScope): Promise<string | null> {
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
      return typeof payload.sub === 'string' ? payload.sub : null
    } catch {
      return null
    }
  }

  /**
   * The public key set other services use to verify auth tokens: after a
   * rotation, the new key before it signs and the old one until its tokens
   * have expired (signing-keys.ts).
   */
  keySet (): { keys: unknown[] } {
    return { keys: this.keys.keySet(this.now()) }
  }
}
