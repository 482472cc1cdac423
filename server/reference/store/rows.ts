import type {
  Account,
  FreshProof,
  NewAccount,
  OpenedEmailLink,
  PasskeyChallenge,
  PasskeyCredential,
  ProofMethod,
  RefreshTokenRecord,
  SecurityEvent,
  SessionRecord,
  SecondFactorChallenge,
  SecondFactorChallengeKind,
  SecondFactorRecord,
  SsoIdentity,
  SsoTransaction
} from './account-store.js'

/*
 * The rows both stores read, and the records they become: one mapping for
 * SQLite and PostgreSQL alike. The columns are the same in both schemas;
 * only a flag differs, an INTEGER 0 or 1 in SQLite and a BOOLEAN in
 * PostgreSQL. Epoch milliseconds are numbers in both (PostgresAccountStore
 * reads BIGINT as a number).
 */

/** A flag as either database returns it. */
type Flag = boolean | number

const isSet = (flag: Flag): boolean => flag === true || flag === 1

export interface AccountRow {
  id: string
  email: string
  first_name: string | null
  last_name: string | null
  password_hash: string | null
  google_subject: string | null
  email_verified_at: number | null
  created_at: number
}

export function toAccount (row: AccountRow | undefined): Account | null {
  if (row === undefined) return null
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    passwordHash: row.password_hash,
    googleSubject: row.google_subject,
    emailVerifiedAt: row.email_verified_at,
    createdAt: row.created_at
  }
}

/** The values of a new account's row, in the order both stores' INSERT names the columns. */
export function newAccountValues (id: string, account: NewAccount, emailKeyOfAccount: string, createdAt: number): unknown[] {
  return [id, account.email, emailKeyOfAccount, account.firstName, account.lastName, account.passwordHash, account.googleSubject, account.emailVerifiedAt ?? null, createdAt]
}

/** The account a store has just created from `account`. */
export function createdAccount (id: string, account: NewAccount, createdAt: number): Account {
  return { id, createdAt, ...account, emailVerifiedAt: account.emailVerifiedAt ?? null }
}

export interface EmailLinkRow {
  account_id: string
  subject: string | null
  created_at: number
}

export function toOpenedEmailLink (row: EmailLinkRow | undefined): OpenedEmailLink | null {
  return row === undefined ? null : { accountId: row.account_id, subject: row.subject, createdAt: row.created_at }
}

export interface PasskeyRow {
  id: string
  account_id: string
  public_key: string
  counter: number
  transports: string
  device_type: 'singleDevice' | 'multiDevice'
  backed_up: Flag
  name: string | null
  created_at: number
  last_used_at: number | null
}

export function toPasskey (row: PasskeyRow): PasskeyCredential {
  return {
    id: row.id,
    accountId: row.account_id,
    publicKey: row.public_key,
    counter: row.counter,
    transports: JSON.parse(row.transports) as string[],
    deviceType: row.device_type,
    backedUp: isSet(row.backed_up),
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at
  }
}

export interface RefreshTokenRow {
  token_hash: string
  account_id: string
  family_id: string
  expires_at: number
  used_at: number | null
  revoked_at: number | null
  context: string
}

export function toRefreshToken (row: RefreshTokenRow | undefined): RefreshTokenRecord | null {
  if (row === undefined) return null
  return {
    tokenHash: row.token_hash,
    accountId: row.account_id,
    familyId: row.family_id,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    revokedAt: row.revoked_at,
    context: row.context
  }
}

export interface FreshProofRow {
  binding_hash: string
  account_id: string
  session_id: string
  method: ProofMethod
  at_sign_in: Flag
  proven_at: number
  expires_at: number
  upgrade_used_at: number | null
}

export function toFreshProof (row: FreshProofRow | undefined): FreshProof | null {
  return row === undefined
    ? null
    : {
        bindingHash: row.binding_hash,
        accountId: row.account_id,
        sessionId: row.session_id,
        method: row.method,
        atSignIn: isSet(row.at_sign_in),
        provenAt: row.proven_at,
        expiresAt: row.expires_at,
        upgradeSpent: row.upgrade_used_at !== null
      }
}

/** Rows a store takes once (it deletes them as it reads them): null when none was there, or it had expired by `now`. */
interface Expiring { expires_at: number }

function live<Row extends Expiring> (row: Row | undefined, now: number): Row | null {
  return row === undefined || row.expires_at <= now ? null : row
}

export interface SsoTransactionRow extends Expiring {
  id: string
  binding_hash: string
  connection_domain: string
  protocol: 'oidc' | 'saml' | 'social'
  data: string
}

export function toLiveSsoTransaction (taken: SsoTransactionRow | undefined, now: number): SsoTransaction | null {
  const row = live(taken, now)
  if (row === null) return null
  return {
    id: row.id,
    bindingHash: row.binding_hash,
    connectionDomain: row.connection_domain,
    protocol: row.protocol,
    data: row.data,
    expiresAt: row.expires_at
  }
}

export interface SsoIdentityRow extends Expiring {
  id_hash: string
  binding_hash: string
  email: string
  protocol: 'oidc' | 'saml'
  subject: string
  connection_domain: string
}

export function toLiveSsoIdentity (taken: SsoIdentityRow | undefined, now: number): SsoIdentity | null {
  const row = live(taken, now)
  if (row === null) return null
  return {
    idHash: row.id_hash,
    bindingHash: row.binding_hash,
    email: row.email,
    protocol: row.protocol,
    subject: row.subject,
    connectionDomain: row.connection_domain,
    expiresAt: row.expires_at
  }
}

export interface PasskeyChallengeRow extends Expiring {
  binding_hash: string
  purpose: PasskeyChallenge['purpose']
  account_id: string | null
  challenge: string
}

export function toLivePasskeyChallenge (taken: PasskeyChallengeRow | undefined, now: number): PasskeyChallenge | null {
  const row = live(taken, now)
  return row === null ? null : { bindingHash: row.binding_hash, purpose: row.purpose, accountId: row.account_id, challenge: row.challenge, expiresAt: row.expires_at }
}

export interface SecondFactorRow {
  account_id: string
  encrypted_secret: string
  enrolled_at: number | null
  pending_expires_at: number
  last_step: number
}

export function toSecondFactor (row: SecondFactorRow | undefined): SecondFactorRecord | null {
  return row === undefined
    ? null
    : { accountId: row.account_id, encryptedSecret: row.encrypted_secret, enrolledAt: row.enrolled_at, pendingExpiresAt: row.pending_expires_at, lastStep: row.last_step }
}

export interface SecondFactorChallengeRow {
  challenge_hash: string
  account_id: string
  kind: SecondFactorChallengeKind
  context: string
  method: string
  expires_at: number
}

export function toSecondFactorChallenge (row: SecondFactorChallengeRow | undefined): SecondFactorChallenge | null {
  return row === undefined
    ? null
    : { challengeHash: row.challenge_hash, accountId: row.account_id, kind: row.kind, context: row.context, method: row.method, expiresAt: row.expires_at }
}

export interface SessionRow {
  family_id: string
  context: string
  last_refreshed_at: number | null
}

export function toSession (row: SessionRow): SessionRecord {
  return { familyId: row.family_id, context: row.context, lastRefreshedAt: row.last_refreshed_at }
}

export interface SecurityEventRow {
  account_id: string
  at: number
  kind: string
  method: string | null
  user_agent: string | null
  address_range: string
}

export function toSecurityEvent (row: SecurityEventRow): SecurityEvent {
  return { accountId: row.account_id, at: row.at, kind: row.kind, method: row.method, userAgent: row.user_agent, addressRange: row.address_range }
}

/** A security event's columns, in the order both stores insert them. */
export function securityEventValues (event: SecurityEvent): [string, number, string, string | null, string | null, string] {
  return [event.accountId, event.at, event.kind, event.method, event.userAgent, event.addressRange]
}
