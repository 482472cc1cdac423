/**
 * What the reference accounts service needs from storage. SQLite is the
 * embedded default; any store that keeps these promises can replace it.
 * Every method that must be atomic says so.
 */

import type { EmailKeyConflict } from './email-key.js'

export interface Account {
  readonly id: string
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
  /** Null for accounts that sign in only with Google or SSO. */
  readonly passwordHash: string | null
  readonly googleSubject: string | null
  /** When the address was shown to belong to the account's holder (Google, SSO); null while it never was. */
  readonly emailVerifiedAt: number | null
  readonly createdAt: number
}

export interface NewAccount {
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
  readonly passwordHash: string | null
  readonly googleSubject: string | null
  /** Epoch milliseconds; absent or null: not verified. */
  readonly emailVerifiedAt?: number | null
}

export interface LoginThrottle {
  readonly failures: number
  /** Epoch milliseconds until which attempts are refused; 0 when none. */
  readonly lockedUntil: number
}

export interface RefreshTokenRecord {
  readonly tokenHash: string
  readonly accountId: string
  /** Every token made by rotating one login's token shares its family. */
  readonly familyId: string
  readonly expiresAt: number
  /** When it was exchanged for a new one; null while unused. */
  readonly usedAt: number | null
  readonly revokedAt: number | null
  /** JSON of the login's context (organisations, resource type, cluster), carried into new tokens. */
  readonly context: string
}

export interface SsoTransaction {
  readonly id: string
  /** The hash of the browser binding held in the state cookie. */
  readonly bindingHash: string
  readonly connectionDomain: string
  readonly protocol: 'oidc' | 'saml'
  /** JSON of the protocol's own state (PKCE verifier, nonce, request id…) and the page's context. */
  readonly data: string
  readonly expiresAt: number
}

export interface SsoIdentity {
  /** The single-use id the page receives and sends back to complete sign-in. */
  readonly idHash: string
  readonly bindingHash: string
  readonly email: string
  readonly protocol: 'oidc' | 'saml'
  readonly subject: string
  readonly connectionDomain: string
  readonly expiresAt: number
}

export type CreateAccountResult = { readonly created: Account } | { readonly conflict: 'email' | 'google-subject' }

export interface AccountStore {
  /**
   * Accounts the migration to the current email keys (store/email-key.ts)
   * found reading as another account's address: left for an operator.
   */
  readonly emailKeyConflicts: readonly EmailKeyConflict[]
  /** Creates the account unless its email (case-insensitively) or Google subject is taken; atomic. */
  createAccount (account: NewAccount): Promise<CreateAccountResult>
  findAccountByEmail (email: string): Promise<Account | null>
  findAccountById (id: string): Promise<Account | null>
  findAccountByGoogleSubject (subject: string): Promise<Account | null>
  updatePasswordHash (accountId: string, passwordHash: string): Promise<void>

  addMembership (accountId: string, organization: string): Promise<void>
  removeMembership (accountId: string, organization: string): Promise<void>
  listMemberships (accountId: string): Promise<readonly string[]>

  readLoginThrottle (key: string): Promise<LoginThrottle>
  /** Adds a failure and sets the lock the policy computes from the new count; atomic. */
  recordLoginFailure (key: string, lockFor: (failures: number) => number, now: number): Promise<LoginThrottle>
  clearLoginFailures (key: string): Promise<void>

  insertRefreshToken (record: Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>): Promise<void>
  findRefreshToken (tokenHash: string): Promise<RefreshTokenRecord | null>
  /** Marks the token used if it was unused; false if another call used it first. Atomic. */
  markRefreshTokenUsed (tokenHash: string, now: number): Promise<boolean>
  revokeRefreshFamily (familyId: string, now: number): Promise<void>
  revokeAccountRefreshTokens (accountId: string, now: number): Promise<void>

  insertResetToken (tokenHash: string, accountId: string, expiresAt: number): Promise<void>
  /** Uses the token once: returns its account if it was unused and unexpired. Atomic. */
  consumeResetToken (tokenHash: string, now: number): Promise<string | null>
  /** Marks every unused reset token of the account used (its password has just changed). */
  voidResetTokens (accountId: string, now: number): Promise<void>
  /** How many reset emails were sent to the account since `since`. */
  countResetTokensSince (accountId: string, since: number): Promise<number>

  insertSsoTransaction (transaction: SsoTransaction): Promise<void>
  /** Takes the transaction out (single use) if it exists and has not expired. Atomic. */
  takeSsoTransaction (id: string, now: number): Promise<SsoTransaction | null>
  insertSsoIdentity (identity: SsoIdentity): Promise<void>
  /** Takes the identity out (single use) if it exists and has not expired. Atomic. */
  takeSsoIdentity (idHash: string, now: number): Promise<SsoIdentity | null>
  /** Records a SAML assertion id; false if it was seen before (a replay). Atomic. */
  rememberAssertion (assertionId: string, expiresAt: number, now: number): Promise<boolean>

  /** Deletes expired tokens, transactions and throttles. */
  purgeExpired (now: number): Promise<void>
  close (): Promise<void>
}
