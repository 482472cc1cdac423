import Database from 'better-sqlite3'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import {
  BROWSER_MEMORY_MS,
  EMAIL_CODE_MEMORY_MS,
  SECURITY_EVENT_MEMORY_MS,
  SPENT_ROW_MEMORY_MS,
  sessionCount,
  type Account,
  type FreshProof,
  type AccountClaim,
  type AccountStore,
  type BrowserSighting,
  type CreateAccountResult,
  type EmailChangeResult,
  type EmailLink,
  type EmailLinkPurpose,
  type OpenedEmailLink,
  type LoginThrottle,
  type NewAccount,
  type NoticeKind,
  type PasskeyChallenge,
  type SecondFactorChallenge,
  type SecondFactorRecord,
  type PasskeyCredential,
  type PasskeyUse,
  type RefreshRotation,
  type RefreshRotationResult,
  type RefreshTokenRecord,
  type SecurityEvent,
  type SessionRecord,
  type SsoIdentity,
  type SsoTransaction
} from './account-store.js'
import { emailKey } from '../../shared/email-key.js'
import { SQLITE_OIDC_MIGRATION, sqliteOidcClients, sqliteOidcPayloads } from './sqlite-oidc.js'
import { SQLITE_EMAIL_CODE_MIGRATION, sqliteEmailCodes } from './sqlite-email-codes.js'
import { SQLITE_SOCIAL_LINK_MIGRATION, sqliteSocialLinks } from './sqlite-social-links.js'
import { rekeyAccounts, type EmailKeyConflict, type Rekeying } from './email-key.js'
import {
  createdAccount,
  newAccountValues,
  toAccount,
  toFreshProof,
  toLivePasskeyChallenge,
  toLiveSsoIdentity,
  toLiveSsoTransaction,
  toOpenedEmailLink,
  toPasskey,
  toRefreshToken,
  toSecondFactor,
  toSecondFactorChallenge,
  toSecurityEvent,
  toSession,
  securityEventValues,
  type AccountRow,
  type EmailLinkRow,
  type FreshProofRow,
  type PasskeyChallengeRow,
  type PasskeyRow,
  type RefreshTokenRow,
  type SecondFactorChallengeRow,
  type SecondFactorRow,
  type SecurityEventRow,
  type SessionRow,
  type SsoIdentityRow,
  type SsoTransactionRow
} from './rows.js'

/** One schema change: SQL, or a step that needs JavaScript (and may leave notes for the operator). */
type SqliteMigration = string | ((db: Database.Database) => Rekeying | undefined)

/** Brings every account's email_key to the current emailKey (NFKC, IDNA domains). */
export function rekeyEmails (db: Database.Database): Rekeying {
  const accounts = db.prepare('SELECT id, email, email_key AS emailKey FROM accounts ORDER BY created_at, id').all() as Array<{ id: string, email: string, emailKey: string }>
  const rekeying = rekeyAccounts(accounts)
  const update = db.prepare('UPDATE accounts SET email_key = ? WHERE id = ?')
  for (const change of rekeying.changes) update.run(change.emailKey, change.id)
  return rekeying
}

/**
 * Schema changes, in order. `PRAGMA user_version` records how many have run;
 * a new change is appended, never edited in place.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     email TEXT NOT NULL,
     email_key TEXT NOT NULL UNIQUE,
     first_name TEXT,
     last_name TEXT,
     password_hash TEXT,
     google_subject TEXT UNIQUE,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE memberships (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     organization TEXT NOT NULL,
     PRIMARY KEY (account_id, organization)
   );
   CREATE TABLE login_throttles (
     throttle_key TEXT PRIMARY KEY,
     failures INTEGER NOT NULL,
     locked_until INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE TABLE refresh_tokens (
     token_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     family_id TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at INTEGER,
     revoked_at INTEGER,
     context TEXT NOT NULL
   );
   CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id);
   CREATE INDEX refresh_tokens_by_account ON refresh_tokens(account_id);
   CREATE TABLE reset_tokens (
     token_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     expires_at INTEGER NOT NULL,
     used_at INTEGER,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX reset_tokens_by_account ON reset_tokens(account_id, created_at);
   CREATE TABLE sso_transactions (
     id TEXT PRIMARY KEY,
     binding_hash TEXT NOT NULL,
     connection_domain TEXT NOT NULL,
     protocol TEXT NOT NULL,
     data TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE TABLE sso_identities (
     id_hash TEXT PRIMARY KEY,
     binding_hash TEXT NOT NULL,
     email TEXT NOT NULL,
     protocol TEXT NOT NULL,
     subject TEXT NOT NULL,
     connection_domain TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE TABLE saml_assertions (
     assertion_id TEXT PRIMARY KEY,
     expires_at INTEGER NOT NULL
   );`,
  'ALTER TABLE accounts ADD COLUMN email_verified_at INTEGER',
  rekeyEmails,
  // notice_slots.quiet_until is sent_at plus the interval the slot was taken for: purging forgets a slot
  // past it, whatever interval its kind of notice uses.
  `CREATE TABLE email_links (
     token_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     purpose TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at INTEGER,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX email_links_by_account ON email_links(account_id, purpose, created_at);
   CREATE TABLE known_browsers (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     browser_hash TEXT NOT NULL,
     first_seen_at INTEGER NOT NULL,
     last_seen_at INTEGER NOT NULL,
     PRIMARY KEY (account_id, browser_hash)
   );
   CREATE TABLE notice_slots (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     kind TEXT NOT NULL,
     sent_at INTEGER NOT NULL,
     quiet_until INTEGER NOT NULL,
     PRIMARY KEY (account_id, kind)
   );`,
  // A Google ID token is accepted once: its key (jti, or the token's hash) stays until the token expires.
  `CREATE TABLE spent_google_tokens (
     token_key TEXT PRIMARY KEY,
     expires_at INTEGER NOT NULL
   );`,
  // Passkeys (docs/passkeys.md). The user handle is made on first use; SQLite adds no UNIQUE column, hence the index.
  // A challenge row is keyed by the hash of its browser's cookie binding and taken out (deleted) when used.
  `ALTER TABLE accounts ADD COLUMN passkey_user_handle TEXT;
   CREATE UNIQUE INDEX accounts_by_passkey_user_handle ON accounts(passkey_user_handle);
   CREATE TABLE passkeys (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     public_key TEXT NOT NULL,
     counter INTEGER NOT NULL,
     transports TEXT NOT NULL,
     device_type TEXT NOT NULL,
     backed_up INTEGER NOT NULL,
     name TEXT,
     created_at INTEGER NOT NULL,
     last_used_at INTEGER
   );
   CREATE INDEX passkeys_by_account ON passkeys(account_id, created_at);
   CREATE TABLE passkey_challenges (
     binding_hash TEXT PRIMARY KEY,
     purpose TEXT NOT NULL,
     account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
     challenge TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   );`,
  // Second factor (docs/second-factor.md). An authenticator secret is pending (enrolled_at NULL) until its first
  // code confirms it; recovery codes and challenges are kept hashed; remembered browsers are forgotten by time.
  `CREATE TABLE second_factors (
     account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
     encrypted_secret TEXT NOT NULL,
     enrolled_at INTEGER,
     pending_expires_at INTEGER NOT NULL,
     last_step INTEGER NOT NULL DEFAULT 0
   );
   CREATE TABLE recovery_codes (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     code_hash TEXT NOT NULL,
     used_at INTEGER,
     PRIMARY KEY (account_id, code_hash)
   );
   CREATE TABLE second_factor_challenges (
     challenge_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     kind TEXT NOT NULL,
     context TEXT NOT NULL,
     method TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE TABLE second_factor_organizations (
     organization TEXT PRIMARY KEY
   );
   ALTER TABLE accounts ADD COLUMN remembered_browsers_forgotten_at INTEGER NOT NULL DEFAULT 0;`,
  // Proofs of an account made in a browser (docs/account-changes.md), keyed by the hash of the browser's cookie
  // binding; what an emailed "this wasn't me" link undoes (the passkey, the second factor) is its subject.
  `CREATE TABLE fresh_proofs (
     binding_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     session_id TEXT NOT NULL,
     method TEXT NOT NULL,
     at_sign_in INTEGER NOT NULL,
     proven_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     upgrade_used_at INTEGER
   );
   CREATE INDEX fresh_proofs_by_account ON fresh_proofs(account_id);
   ALTER TABLE email_links ADD COLUMN subject TEXT;`,
  // What the owner sees in the account view's recent activity (docs/account-changes.md), kept 30 days; `id` orders events of one millisecond.
  `CREATE TABLE security_events (
     id INTEGER PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     at INTEGER NOT NULL,
     kind TEXT NOT NULL,
     method TEXT,
     user_agent TEXT,
     address_range TEXT NOT NULL
   );
   CREATE INDEX security_events_by_account ON security_events(account_id, at);
   CREATE INDEX security_events_by_time ON security_events(at);`,
  // The OpenID Connect provider's clients added with the admin command, and what it keeps between requests.
  SQLITE_OIDC_MIGRATION,
  // Codes emailed for a sign-in or a fresh proof, and the refused tries per address (server/reference/email-codes/).
  SQLITE_EMAIL_CODE_MIGRATION,
  // The accounts' linked social identities (server/reference/social/).
  SQLITE_SOCIAL_LINK_MIGRATION
]

function isUniqueViolation (error: unknown): error is { code: string, message: string } {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/**
 * Runs the migrations not yet applied, each in its own transaction. A file
 * from a newer version is refused: its schema may mean what this code cannot.
 * `upTo` stops at an earlier version (tests make databases as older versions left them).
 */
export function migrate (db: Database.Database, upTo = SQLITE_MIGRATIONS.length): { version: number, emailKeyConflicts: EmailKeyConflict[] } {
  const emailKeyConflicts: EmailKeyConflict[] = []
  const applied = db.pragma('user_version', { simple: true }) as number
  if (applied > SQLITE_MIGRATIONS.length) {
    throw new Error(`the accounts database has schema version ${applied}, newer than this version of Threshold knows (${SQLITE_MIGRATIONS.length}); upgrade Threshold`)
  }
  for (let version = applied; version < upTo; version++) {
    db.transaction(() => {
      const migration = SQLITE_MIGRATIONS[version]!
      if (typeof migration === 'string') db.exec(migration)
      else emailKeyConflicts.push(...migration(db)?.conflicts ?? [])
      db.pragma(`user_version = ${version + 1}`)
    })()
  }
  return { version: Math.max(applied, upTo), emailKeyConflicts }
}

/** The embedded store: one SQLite file in WAL mode. */
export class SqliteAccountStore implements AccountStore {
  private readonly db: Database.Database
  readonly emailKeyConflicts: AccountStore['emailKeyConflicts']
  readonly oidcClients: AccountStore['oidcClients']
  readonly oidcPayloads: AccountStore['oidcPayloads']
  readonly emailCodes: AccountStore['emailCodes']
  readonly socialLinks: AccountStore['socialLinks']

  constructor (file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
    this.db = new Database(file)
    this.db.pragma('journal_mode = WAL')
    // With WAL, NORMAL loses no committed transaction on a process crash.
    this.db.pragma('synchronous = NORMAL')
    this.db.pragma('foreign_keys = ON')
    this.db.pragma('busy_timeout = 5000')
    this.emailKeyConflicts = migrate(this.db).emailKeyConflicts
    this.oidcClients = sqliteOidcClients(this.db, () => this.now())
    this.oidcPayloads = sqliteOidcPayloads(this.db)
    this.emailCodes = sqliteEmailCodes(this.db)
    this.socialLinks = sqliteSocialLinks(this.db)
  }

  async createAccount (account: NewAccount): Promise<CreateAccountResult> {
    const id = randomUUID()
    const createdAt = this.now()
    try {
      this.db.prepare(`INSERT INTO accounts (id, email, email_key, first_name, last_name, password_hash, google_subject, email_verified_at, created_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(...newAccountValues(id, account, emailKey(account.email), createdAt))
    } catch (error) {
      if (isUniqueViolation(error)) return { conflict: error.message.includes('google_subject') ? 'google-subject' : 'email' }
      throw error
    }
    return { created: createdAccount(id, account, createdAt) }
  }

  async findAccountByEmail (email: string): Promise<Account | null> {
    return toAccount(this.db.prepare('SELECT * FROM accounts WHERE email_key = ?').get(emailKey(email)) as AccountRow | undefined)
  }

  async findAccountById (id: string): Promise<Account | null> {
    return toAccount(this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined)
  }

  async findAccountByGoogleSubject (subject: string): Promise<Account | null> {
    return toAccount(this.db.prepare('SELECT * FROM accounts WHERE google_subject = ?').get(subject) as AccountRow | undefined)
  }

  async updatePasswordHash (accountId: string, passwordHash: string): Promise<void> {
    this.db.prepare('UPDATE accounts SET password_hash = ? WHERE id = ?').run(passwordHash, accountId)
  }

  async markEmailVerified (accountId: string, now: number): Promise<void> {
    this.db.prepare(`UPDATE accounts SET email_verified_at = ?
                     WHERE id = ? AND (email_verified_at IS NULL OR email_verified_at > ?)`).run(now, accountId, now)
  }

  async changeAccountEmail (accountId: string, email: string, now: number): Promise<EmailChangeResult> {
    try {
      return this.db.transaction((): EmailChangeResult => {
        const moved = this.db.prepare('UPDATE accounts SET email = ?, email_key = ?, email_verified_at = ? WHERE id = ?')
          .run(email, emailKey(email), now, accountId).changes === 1
        if (!moved) return 'unknown'
        this.voidResetTokensOf(accountId, now)
        this.db.prepare('UPDATE email_links SET used_at = ? WHERE account_id = ? AND used_at IS NULL').run(now, accountId)
        return 'changed'
      }).immediate()
    } catch (error) {
      if (isUniqueViolation(error)) return 'taken'
      throw error
    }
  }

  async claimUnverifiedAccount (accountId: string, claim: AccountClaim): Promise<boolean> {
    return this.db.transaction(() => {
      const claimed = this.db.prepare(`UPDATE accounts SET password_hash = NULL, email_verified_at = ?,
                                       google_subject = COALESCE(?, google_subject)
                                       WHERE id = ? AND email_verified_at IS NULL`)
        .run(claim.now, claim.googleSubject, accountId).changes === 1
      if (!claimed) return false
      this.revokeRefreshTokensOf(accountId, claim.now)
      this.voidResetTokensOf(accountId, claim.now)
      this.db.prepare('UPDATE email_links SET used_at = ? WHERE account_id = ? AND used_at IS NULL').run(claim.now, accountId)
      // Whoever held the password may have added ways in of his own: none set up before the claim stays.
      for (const table of ['passkeys', 'passkey_challenges', 'second_factors', 'recovery_codes', 'known_browsers', 'social_links']) {
        this.db.prepare(`DELETE FROM ${table} WHERE account_id = ?`).run(accountId)
      }
      this.db.prepare('UPDATE accounts SET remembered_browsers_forgotten_at = MAX(remembered_browsers_forgotten_at, ?) WHERE id = ?')
        .run(claim.now, accountId)
      return true
    }).immediate()
  }

  async addMembership (accountId: string, organization: string): Promise<void> {
    this.db.prepare('INSERT OR IGNORE INTO memberships (account_id, organization) VALUES (?, ?)').run(accountId, organization)
  }

  async removeMembership (accountId: string, organization: string): Promise<void> {
    this.db.prepare('DELETE FROM memberships WHERE account_id = ? AND organization = ?').run(accountId, organization)
  }

  async listMemberships (accountId: string): Promise<readonly string[]> {
    const rows = this.db.prepare('SELECT organization FROM memberships WHERE account_id = ? ORDER BY organization')
      .all(accountId) as Array<{ organization: string }>
    return rows.map((row) => row.organization)
  }

  async readLoginThrottle (key: string): Promise<LoginThrottle> {
    const row = this.db.prepare('SELECT failures, locked_until FROM login_throttles WHERE throttle_key = ?')
      .get(key) as { failures: number, locked_until: number } | undefined
    return { failures: row?.failures ?? 0, lockedUntil: row?.locked_until ?? 0 }
  }

  async recordLoginFailure (key: string, lockFor: (failures: number) => number, now: number): Promise<LoginThrottle> {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT failures FROM login_throttles WHERE throttle_key = ?')
        .get(key) as { failures: number } | undefined
      const failures = (row?.failures ?? 0) + 1
      const lockedUntil = now + lockFor(failures)
      this.db.prepare(`INSERT INTO login_throttles (throttle_key, failures, locked_until, updated_at) VALUES (?, ?, ?, ?)
                       ON CONFLICT (throttle_key) DO UPDATE SET failures = excluded.failures,
                       locked_until = excluded.locked_until, updated_at = excluded.updated_at`)
        .run(key, failures, lockedUntil, now)
      return { failures, lockedUntil }
    }).immediate()
  }

  async clearLoginFailures (key: string): Promise<void> {
    this.db.prepare('DELETE FROM login_throttles WHERE throttle_key = ?').run(key)
  }

  async insertRefreshToken (record: Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>): Promise<boolean> {
    // One statement: SQLite runs it whole, before or after any revocation.
    return this.db.prepare(`INSERT INTO refresh_tokens (token_hash, account_id, family_id, expires_at, context)
                            SELECT ?, ?, ?, ?, ?
                            WHERE NOT EXISTS (SELECT 1 FROM refresh_tokens WHERE family_id = ? AND revoked_at IS NOT NULL)`)
      .run(record.tokenHash, record.accountId, record.familyId, record.expiresAt, record.context, record.familyId).changes === 1
  }

  async findRefreshToken (tokenHash: string): Promise<RefreshTokenRecord | null> {
    return toRefreshToken(this.db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?').get(tokenHash) as RefreshTokenRow | undefined)
  }

  async rotateRefreshToken (rotation: RefreshRotation): Promise<RefreshRotationResult> {
    // Immediate: the write lock from the start, so that the token read is the one the spend and the insert follow.
    return this.db.transaction((): RefreshRotationResult => {
      const { tokenHash, successor, now, reuseGraceMs } = rotation
      const token = this.db.prepare('SELECT account_id, family_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = ?')
        .get(tokenHash) as { account_id: string, family_id: string, expires_at: number, used_at: number | null, revoked_at: number | null } | undefined
      if (token === undefined) return { refused: 'unknown' }
      if (token.revoked_at !== null) return { refused: 'revoked' }
      if (token.used_at !== null && now - token.used_at >= reuseGraceMs) {
        this.revokeFamily(token.family_id, now)
        return { refused: 'reused' }
      }
      if (token.expires_at <= now) return { refused: 'expired' }
      if (this.db.prepare('SELECT 1 FROM refresh_tokens WHERE family_id = ? AND revoked_at IS NOT NULL LIMIT 1').get(token.family_id) !== undefined) {
        return { refused: 'revoked' }
      }
      if (token.used_at === null) this.db.prepare('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?').run(now, tokenHash)
      this.db.prepare('INSERT INTO refresh_tokens (token_hash, account_id, family_id, expires_at, context) VALUES (?, ?, ?, ?, ?)')
        .run(successor.tokenHash, token.account_id, token.family_id, successor.expiresAt, successor.context)
      return { rotated: token.used_at === null ? 'first-use' : 'within-grace' }
    }).immediate()
  }

  async isRefreshFamilyLive (familyId: string, now: number): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM refresh_tokens WHERE family_id = ? AND revoked_at IS NULL AND expires_at > ? LIMIT 1')
      .get(familyId, now) !== undefined
  }

  async listSessions (accountId: string, now: number): Promise<readonly SessionRecord[]> {
    const rows = this.db.prepare(`SELECT family_id, MAX(used_at) AS last_refreshed_at,
                                    (SELECT context FROM refresh_tokens newest WHERE newest.family_id = tokens.family_id
                                     ORDER BY expires_at DESC LIMIT 1) AS context
                                  FROM refresh_tokens tokens
                                  WHERE account_id = ? AND family_id IN (SELECT family_id FROM refresh_tokens
                                    WHERE account_id = ? AND revoked_at IS NULL AND expires_at > ?)
                                  GROUP BY family_id`).all(accountId, accountId, now) as SessionRow[]
    return rows.map(toSession)
  }

  async endSession (accountId: string, familyId: string, now: number): Promise<boolean> {
    return this.db.transaction(() => {
      const live = this.db.prepare('SELECT 1 FROM refresh_tokens WHERE account_id = ? AND family_id = ? AND revoked_at IS NULL AND expires_at > ? LIMIT 1')
        .get(accountId, familyId, now) !== undefined
      if (live) this.revokeFamily(familyId, now)
      return live
    }).immediate()
  }

  async insertFreshProof (proof: Omit<FreshProof, 'upgradeSpent'>): Promise<void> {
    this.db.prepare(`INSERT OR REPLACE INTO fresh_proofs (binding_hash, account_id, session_id, method, at_sign_in, proven_at, expires_at, upgrade_used_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`)
      .run(proof.bindingHash, proof.accountId, proof.sessionId, proof.method, proof.atSignIn ? 1 : 0, proof.provenAt, proof.expiresAt)
  }

  async findFreshProof (bindingHash: string, now: number): Promise<FreshProof | null> {
    return toFreshProof(this.db.prepare('SELECT * FROM fresh_proofs WHERE binding_hash = ? AND expires_at > ?').get(bindingHash, now) as FreshProofRow | undefined)
  }

  async spendFreshProofOnUpgrade (bindingHash: string, sessionId: string, now: number): Promise<boolean> {
    return this.db.prepare(`UPDATE fresh_proofs SET upgrade_used_at = ?
                            WHERE binding_hash = ? AND session_id = ? AND at_sign_in = 1 AND upgrade_used_at IS NULL AND expires_at > ?`)
      .run(now, bindingHash, sessionId, now).changes === 1
  }

  async voidSecondFactorChallenges (accountId: string): Promise<void> {
    this.db.prepare('DELETE FROM second_factor_challenges WHERE account_id = ?').run(accountId)
  }

  async voidFreshProofs (accountId: string): Promise<void> {
    this.db.prepare('DELETE FROM fresh_proofs WHERE account_id = ?').run(accountId)
  }

  async revokeRefreshFamily (familyId: string, now: number): Promise<void> {
    this.revokeFamily(familyId, now)
  }

  /** Synchronous, so that rotateRefreshToken can run it inside its transaction. */
  private revokeFamily (familyId: string, now: number): void {
    this.db.prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL').run(now, familyId)
  }

  async revokeAccountRefreshTokens (accountId: string, now: number): Promise<void> {
    this.revokeRefreshTokensOf(accountId, now)
  }

  async revokeSessionsSignedInWith (accountId: string, credentialId: string, now: number): Promise<number> {
    return sessionCount(this.db.prepare(`UPDATE refresh_tokens SET revoked_at = ?
                                         WHERE account_id = ? AND revoked_at IS NULL AND expires_at > ? AND json_extract(context, '$.passkeyId') = ?
                                         RETURNING family_id`).all(now, accountId, now, credentialId) as Array<{ family_id: string }>)
  }

  async revokeOtherSessions (accountId: string, keptFamilyId: string, now: number): Promise<number> {
    return sessionCount(this.db.prepare(`UPDATE refresh_tokens SET revoked_at = ?
                                         WHERE account_id = ? AND revoked_at IS NULL AND expires_at > ? AND family_id <> ?
                                         RETURNING family_id`).all(now, accountId, now, keptFamilyId) as Array<{ family_id: string }>)
  }

  /** Synchronous, so that claimUnverifiedAccount can run it inside its transaction. */
  private revokeRefreshTokensOf (accountId: string, now: number): void {
    this.db.prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL').run(now, accountId)
  }

  async insertResetToken (tokenHash: string, accountId: string, expiresAt: number): Promise<void> {
    this.db.prepare('INSERT INTO reset_tokens (token_hash, account_id, expires_at, created_at) VALUES (?, ?, ?, ?)')
      .run(tokenHash, accountId, expiresAt, this.now())
  }

  async consumeResetToken (tokenHash: string, now: number): Promise<string | null> {
    const row = this.db.prepare(`UPDATE reset_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
                                 RETURNING account_id`).get(now, tokenHash, now) as { account_id: string } | undefined
    return row?.account_id ?? null
  }

  async voidResetTokens (accountId: string, now: number): Promise<void> {
    this.voidResetTokensOf(accountId, now)
  }

  /** Synchronous, so that claimUnverifiedAccount can run it inside its transaction. */
  private voidResetTokensOf (accountId: string, now: number): void {
    this.db.prepare('UPDATE reset_tokens SET used_at = ? WHERE account_id = ? AND used_at IS NULL').run(now, accountId)
  }

  async countResetTokensSince (accountId: string, since: number): Promise<number> {
    const row = this.db.prepare('SELECT COUNT(*) AS count FROM reset_tokens WHERE account_id = ? AND created_at >= ?')
      .get(accountId, since) as { count: number }
    return row.count
  }

  async insertEmailLink (link: EmailLink, now: number): Promise<void> {
    this.db.prepare('INSERT INTO email_links (token_hash, account_id, purpose, expires_at, created_at, subject) VALUES (?, ?, ?, ?, ?, ?)')
      .run(link.tokenHash, link.accountId, link.purpose, link.expiresAt, now, link.subject ?? null)
  }

  async consumeEmailLink (purpose: EmailLinkPurpose, tokenHash: string, now: number): Promise<OpenedEmailLink | null> {
    const row = this.db.prepare(`UPDATE email_links SET used_at = ?
                                 WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
                                 RETURNING account_id, subject, created_at`).get(now, tokenHash, purpose, now) as EmailLinkRow | undefined
    return toOpenedEmailLink(row)
  }

  async findEmailLink (purpose: EmailLinkPurpose, tokenHash: string, now: number): Promise<OpenedEmailLink | null> {
    const row = this.db.prepare(`SELECT account_id, subject, created_at FROM email_links
                                 WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?`).get(tokenHash, purpose, now) as EmailLinkRow | undefined
    return toOpenedEmailLink(row)
  }

  async countEmailLinksSince (purpose: EmailLinkPurpose, accountId: string, since: number): Promise<number> {
    const row = this.db.prepare('SELECT COUNT(*) AS count FROM email_links WHERE account_id = ? AND purpose = ? AND created_at >= ?')
      .get(accountId, purpose, since) as { count: number }
    return row.count
  }

  async rememberBrowser (accountId: string, browserHash: string, now: number): Promise<BrowserSighting> {
    return this.db.transaction((): BrowserSighting => {
      // MAX: a slow request carrying an older time must not make the browser look less recently seen.
      const known = this.db.prepare(`UPDATE known_browsers SET last_seen_at = MAX(last_seen_at, ?)
                                     WHERE account_id = ? AND browser_hash = ?`).run(now, accountId, browserHash).changes === 1
      if (known) return 'known'
      const others = this.db.prepare('SELECT 1 FROM known_browsers WHERE account_id = ? LIMIT 1').get(accountId) !== undefined
      this.db.prepare('INSERT INTO known_browsers (account_id, browser_hash, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?)')
        .run(accountId, browserHash, now, now)
      return others ? 'new' : 'first'
    }).immediate()
  }

  async isKnownBrowser (accountId: string, browserHash: string, now: number): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM known_browsers WHERE account_id = ? AND browser_hash = ? AND last_seen_at > ?')
      .get(accountId, browserHash, now - BROWSER_MEMORY_MS) !== undefined
  }

  async takeNoticeSlot (accountId: string, kind: NoticeKind, now: number, intervalMs: number): Promise<boolean> {
    // A slot taken within the interval fails the upsert's WHERE, which then changes nothing.
    return this.db.prepare(`INSERT INTO notice_slots (account_id, kind, sent_at, quiet_until) VALUES (?, ?, ?, ?)
                            ON CONFLICT (account_id, kind) DO UPDATE SET sent_at = excluded.sent_at, quiet_until = excluded.quiet_until
                            WHERE notice_slots.sent_at <= ?`)
      .run(accountId, kind, now, now + intervalMs, now - intervalMs).changes === 1
  }

  async insertSsoTransaction (transaction: SsoTransaction): Promise<void> {
    this.db.prepare(`INSERT INTO sso_transactions (id, binding_hash, connection_domain, protocol, data, expires_at)
                     VALUES (?, ?, ?, ?, ?, ?)`)
      .run(transaction.id, transaction.bindingHash, transaction.connectionDomain, transaction.protocol,
        transaction.data, transaction.expiresAt)
  }

  async findSsoTransaction (id: string, now: number): Promise<SsoTransaction | null> {
    return toLiveSsoTransaction(this.db.prepare('SELECT * FROM sso_transactions WHERE id = ?').get(id) as SsoTransactionRow | undefined, now)
  }

  async takeSsoTransaction (id: string, now: number): Promise<SsoTransaction | null> {
    return toLiveSsoTransaction(this.db.prepare('DELETE FROM sso_transactions WHERE id = ? RETURNING *').get(id) as SsoTransactionRow | undefined, now)
  }

  async insertSsoIdentity (identity: SsoIdentity): Promise<void> {
    this.db.prepare(`INSERT INTO sso_identities (id_hash, binding_hash, email, protocol, subject, connection_domain, expires_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(identity.idHash, identity.bindingHash, identity.email, identity.protocol, identity.subject,
        identity.connectionDomain, identity.expiresAt)
  }

  async takeSsoIdentity (idHash: string, now: number): Promise<SsoIdentity | null> {
    return toLiveSsoIdentity(this.db.prepare('DELETE FROM sso_identities WHERE id_hash = ? RETURNING *').get(idHash) as SsoIdentityRow | undefined, now)
  }

  async rememberAssertion (assertionId: string, expiresAt: number, now: number): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM saml_assertions WHERE assertion_id = ? AND expires_at <= ?').run(assertionId, now)
      return this.db.prepare('INSERT OR IGNORE INTO saml_assertions (assertion_id, expires_at) VALUES (?, ?)')
        .run(assertionId, expiresAt).changes === 1
    }).immediate()
  }

  async spendGoogleToken (tokenKey: string, expiresAt: number, now: number): Promise<boolean> {
    // One statement, as takeNoticeSlot: a new key is inserted, an expired one taken over, a live one is a replay.
    return this.db.prepare(`INSERT INTO spent_google_tokens (token_key, expires_at) VALUES (?, ?)
                            ON CONFLICT (token_key) DO UPDATE SET expires_at = excluded.expires_at
                            WHERE spent_google_tokens.expires_at <= ?`)
      .run(tokenKey, expiresAt, now).changes === 1
  }

  async passkeyUserHandle (accountId: string): Promise<string | null> {
    // COALESCE keeps a handle made before; one UPDATE, so concurrent first calls agree.
    const row = this.db.prepare(`UPDATE accounts SET passkey_user_handle = COALESCE(passkey_user_handle, ?)
                                 WHERE id = ? RETURNING passkey_user_handle`)
      .get(randomBytes(16).toString('base64url'), accountId) as { passkey_user_handle: string } | undefined
    return row?.passkey_user_handle ?? null
  }

  async insertPasskey (credential: PasskeyCredential, session?: { readonly familyId: string, readonly now: number }): Promise<boolean> {
    // One statement: SQLite runs it whole, before or after any revocation.
    return this.db.prepare(`INSERT OR IGNORE INTO passkeys (id, account_id, public_key, counter, transports, device_type, backed_up,
                            name, created_at, last_used_at) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
                            WHERE ? IS NULL OR EXISTS (SELECT 1 FROM refresh_tokens WHERE family_id = ? AND revoked_at IS NULL AND expires_at > ?)`)
      .run(credential.id, credential.accountId, credential.publicKey, credential.counter, JSON.stringify(credential.transports),
        credential.deviceType, credential.backedUp ? 1 : 0, credential.name, credential.createdAt, credential.lastUsedAt,
        session?.familyId ?? null, session?.familyId ?? null, session?.now ?? 0).changes === 1
  }

  async findPasskey (id: string): Promise<PasskeyCredential | null> {
    const row = this.db.prepare('SELECT * FROM passkeys WHERE id = ?').get(id) as PasskeyRow | undefined
    return row === undefined ? null : toPasskey(row)
  }

  async listPasskeys (accountId: string): Promise<readonly PasskeyCredential[]> {
    const rows = this.db.prepare('SELECT * FROM passkeys WHERE account_id = ? ORDER BY created_at, id').all(accountId) as PasskeyRow[]
    return rows.map(toPasskey)
  }

  async recordPasskeyUse (id: string, use: PasskeyUse): Promise<boolean> {
    return this.db.prepare(`UPDATE passkeys SET counter = ?, backed_up = ?, device_type = ?, last_used_at = ?
                            WHERE id = ? AND ((counter = 0 AND ? = 0) OR counter < ?)`)
      .run(use.counter, use.backedUp ? 1 : 0, use.deviceType, use.now, id, use.counter, use.counter).changes === 1
  }

  async removePasskey (accountId: string, id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM passkeys WHERE account_id = ? AND id = ?').run(accountId, id).changes === 1
  }

  async renamePasskey (accountId: string, id: string, name: string): Promise<boolean> {
    return this.db.prepare('UPDATE passkeys SET name = ? WHERE account_id = ? AND id = ?').run(name, accountId, id).changes === 1
  }

  async insertPasskeyChallenge (challenge: PasskeyChallenge): Promise<void> {
    this.db.prepare('INSERT INTO passkey_challenges (binding_hash, purpose, account_id, challenge, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(challenge.bindingHash, challenge.purpose, challenge.accountId, challenge.challenge, challenge.expiresAt)
  }

  async takePasskeyChallenge (bindingHash: string, now: number): Promise<PasskeyChallenge | null> {
    return toLivePasskeyChallenge(this.db.prepare('DELETE FROM passkey_challenges WHERE binding_hash = ? RETURNING *').get(bindingHash) as PasskeyChallengeRow | undefined, now)
  }

  async startSecondFactorEnrolment (accountId: string, encryptedSecret: string, pendingExpiresAt: number): Promise<boolean> {
    return this.db.prepare(`INSERT INTO second_factors (account_id, encrypted_secret, enrolled_at, pending_expires_at) VALUES (?, ?, NULL, ?)
                            ON CONFLICT (account_id) DO UPDATE SET encrypted_secret = excluded.encrypted_secret,
                            pending_expires_at = excluded.pending_expires_at WHERE second_factors.enrolled_at IS NULL`)
      .run(accountId, encryptedSecret, pendingExpiresAt).changes === 1
  }

  async findSecondFactor (accountId: string): Promise<SecondFactorRecord | null> {
    return toSecondFactor(this.db.prepare('SELECT * FROM second_factors WHERE account_id = ?').get(accountId) as SecondFactorRow | undefined)
  }

  async confirmSecondFactorEnrolment (accountId: string, step: number, recoveryCodeHashes: readonly string[], now: number): Promise<boolean> {
    return this.db.transaction(() => {
      const confirmed = this.db.prepare(`UPDATE second_factors SET enrolled_at = ?, last_step = ?
                                         WHERE account_id = ? AND enrolled_at IS NULL AND pending_expires_at > ?`)
        .run(now, step, accountId, now).changes === 1
      if (!confirmed) return false
      this.writeRecoveryCodes(accountId, recoveryCodeHashes)
      return true
    }).immediate()
  }

  /** Replaces the account's recovery codes; inside the caller's transaction. */
  private writeRecoveryCodes (accountId: string, recoveryCodeHashes: readonly string[]): void {
    this.db.prepare('DELETE FROM recovery_codes WHERE account_id = ?').run(accountId)
    const insert = this.db.prepare('INSERT INTO recovery_codes (account_id, code_hash) VALUES (?, ?)')
    for (const hash of recoveryCodeHashes) insert.run(accountId, hash)
  }

  async replaceRecoveryCodes (accountId: string, recoveryCodeHashes: readonly string[]): Promise<boolean> {
    return this.db.transaction(() => {
      const enrolled = this.db.prepare('SELECT 1 FROM second_factors WHERE account_id = ? AND enrolled_at IS NOT NULL').get(accountId) !== undefined
      if (!enrolled) return false
      this.writeRecoveryCodes(accountId, recoveryCodeHashes)
      return true
    }).immediate()
  }

  async acceptSecondFactorStep (accountId: string, step: number): Promise<boolean> {
    return this.db.prepare('UPDATE second_factors SET last_step = ? WHERE account_id = ? AND enrolled_at IS NOT NULL AND last_step < ?')
      .run(step, accountId, step).changes === 1
  }

  async useRecoveryCode (accountId: string, codeHash: string, now: number): Promise<boolean> {
    return this.db.prepare('UPDATE recovery_codes SET used_at = ? WHERE account_id = ? AND code_hash = ? AND used_at IS NULL')
      .run(now, accountId, codeHash).changes === 1
  }

  async countUnusedRecoveryCodes (accountId: string): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM recovery_codes WHERE account_id = ? AND used_at IS NULL').get(accountId) as { n: number }).n
  }

  async removeSecondFactor (accountId: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM recovery_codes WHERE account_id = ?').run(accountId)
      return this.db.prepare('DELETE FROM second_factors WHERE account_id = ?').run(accountId).changes === 1
    })()
  }

  async insertSecondFactorChallenge (challenge: SecondFactorChallenge): Promise<void> {
    this.db.prepare('INSERT INTO second_factor_challenges (challenge_hash, account_id, kind, context, method, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(challenge.challengeHash, challenge.accountId, challenge.kind, challenge.context, challenge.method, challenge.expiresAt)
  }

  async findSecondFactorChallenge (challengeHash: string, now: number): Promise<SecondFactorChallenge | null> {
    return toSecondFactorChallenge(this.db.prepare('SELECT * FROM second_factor_challenges WHERE challenge_hash = ? AND expires_at > ?')
      .get(challengeHash, now) as SecondFactorChallengeRow | undefined)
  }

  async consumeSecondFactorChallenge (challengeHash: string, now: number): Promise<boolean> {
    return this.db.prepare('DELETE FROM second_factor_challenges WHERE challenge_hash = ? AND expires_at > ?').run(challengeHash, now).changes === 1
  }

  async setOrganizationRequiresSecondFactor (organization: string, required: boolean): Promise<void> {
    if (required) this.db.prepare('INSERT OR IGNORE INTO second_factor_organizations (organization) VALUES (?)').run(organization)
    else this.db.prepare('DELETE FROM second_factor_organizations WHERE organization = ?').run(organization)
  }

  async listOrganizationsRequiringSecondFactor (): Promise<readonly string[]> {
    const rows = this.db.prepare('SELECT organization FROM second_factor_organizations ORDER BY organization').all() as Array<{ organization: string }>
    return rows.map((row) => row.organization)
  }

  async secondFactorRequiredFor (accountId: string): Promise<boolean> {
    return this.db.prepare(`SELECT 1 FROM memberships JOIN second_factor_organizations USING (organization)
                            WHERE memberships.account_id = ? LIMIT 1`).get(accountId) !== undefined
  }

  async forgetRememberedBrowsers (accountId: string, now: number): Promise<void> {
    this.db.prepare('UPDATE accounts SET remembered_browsers_forgotten_at = MAX(remembered_browsers_forgotten_at, ?) WHERE id = ?').run(now, accountId)
  }

  async rememberedBrowsersForgottenAt (accountId: string): Promise<number | null> {
    const row = this.db.prepare('SELECT remembered_browsers_forgotten_at AS at FROM accounts WHERE id = ?').get(accountId) as { at: number } | undefined
    return row?.at ?? null
  }

  async recordSecurityEvent (event: SecurityEvent): Promise<void> {
    this.db.prepare('INSERT INTO security_events (account_id, at, kind, method, user_agent, address_range) VALUES (?, ?, ?, ?, ?, ?)')
      .run(...securityEventValues(event))
  }

  async listSecurityEvents (accountId: string, { since, kinds, limit }: { since: number, kinds: readonly string[], limit: number }): Promise<readonly SecurityEvent[]> {
    if (kinds.length === 0) return []
    const rows = this.db.prepare(`SELECT * FROM security_events WHERE account_id = ? AND at > ? AND kind IN (${kinds.map(() => '?').join(', ')})
                                  ORDER BY at DESC, id DESC LIMIT ?`).all(accountId, since, ...kinds, limit) as SecurityEventRow[]
    return rows.map(toSecurityEvent)
  }

  async countSecurityEvents (accountId: string, kind: string, since: number): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM security_events WHERE account_id = ? AND kind = ? AND at > ?').get(accountId, kind, since) as { n: number }).n
  }

  async deleteAccount (accountId: string): Promise<boolean> {
    // Every other table's rows of the account go with it (ON DELETE CASCADE, with foreign_keys on).
    return this.db.prepare('DELETE FROM accounts WHERE id = ?').run(accountId).changes === 1
  }

  async purgeExpired (now: number): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM second_factor_challenges WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM second_factors WHERE enrolled_at IS NULL AND pending_expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM passkey_challenges WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM fresh_proofs WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM spent_google_tokens WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM refresh_tokens WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM reset_tokens WHERE expires_at <= ? AND created_at <= ?').run(now, now - SPENT_ROW_MEMORY_MS)
      this.db.prepare('DELETE FROM sso_transactions WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM sso_identities WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM saml_assertions WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM login_throttles WHERE locked_until <= ? AND updated_at <= ?').run(now, now - SPENT_ROW_MEMORY_MS)
      this.db.prepare('DELETE FROM email_links WHERE expires_at <= ? AND created_at <= ?').run(now, now - SPENT_ROW_MEMORY_MS)
      this.db.prepare('DELETE FROM known_browsers WHERE last_seen_at <= ?').run(now - BROWSER_MEMORY_MS)
      this.db.prepare('DELETE FROM notice_slots WHERE quiet_until <= ?').run(now)
      this.db.prepare('DELETE FROM security_events WHERE at <= ?').run(now - SECURITY_EVENT_MEMORY_MS)
      this.db.prepare('DELETE FROM oidc_payloads WHERE expires_at <= ?').run(now)
      this.db.prepare('DELETE FROM email_codes WHERE expires_at <= ? AND created_at <= ?').run(now, now - EMAIL_CODE_MEMORY_MS)
      this.db.prepare('DELETE FROM email_code_failures WHERE failed_at <= ?').run(now - EMAIL_CODE_MEMORY_MS)
    })()
  }

  /** One file on one machine: the instances that share it share this clock too. */
  now (): number {
    return Date.now()
  }

  async reachable (): Promise<boolean> {
    // A file in this process: there is no server to lose.
    return true
  }

  async close (): Promise<void> {
    this.db.close()
  }
}
