import { randomBytes, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import {
  BROWSER_MEMORY_MS,
  EMAIL_CODE_MEMORY_MS,
  SECURITY_EVENT_MEMORY_MS,
  SPENT_ROW_MEMORY_MS,
  sessionCount,
  type Account,
  type AccountClaim,
  type AccountStore,
  type BrowserSighting,
  type CreateAccountResult,
  type EmailChangeResult,
  type EmailLink,
  type EmailLinkPurpose,
  type OpenedEmailLink,
  type FreshProof,
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
import { SharedClock } from '../../shared/shared-clock.js'
import { POSTGRES_OIDC_MIGRATION, postgresOidcClients, postgresOidcPayloads, type PostgresAccess } from './postgres-oidc.js'
import { POSTGRES_EMAIL_CODE_MIGRATION, postgresEmailCodes } from './postgres-email-codes.js'
import { POSTGRES_SOCIAL_LINK_MIGRATION, postgresSocialLinks } from './postgres-social-links.js'
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
import { isConnectionFailure, StoreUnavailable } from './store-unavailable.js'

/** One schema change: SQL, or a step that needs JavaScript (and may leave notes for the operator). */
type PostgresMigration = string | ((client: pg.PoolClient) => Promise<Rekeying | undefined>)

/** Brings every account's email_key to the current emailKey (NFKC, IDNA domains). */
export async function rekeyEmails (client: pg.PoolClient): Promise<Rekeying> {
  const { rows } = await client.query<{ id: string, email: string, emailKey: string }>(
    'SELECT id, email, email_key AS "emailKey" FROM accounts ORDER BY created_at, id')
  const rekeying = rekeyAccounts(rows)
  for (const change of rekeying.changes) await client.query('UPDATE accounts SET email_key = $1 WHERE id = $2', [change.emailKey, change.id])
  return rekeying
}

/**
 * Schema changes, in order; `schema_migrations` records which have run. A new
 * change is appended, never edited in place, and has its twin in
 * SQLITE_MIGRATIONS (the two lists keep the same length: a test checks it).
 * Times are epoch milliseconds (BIGINT), as in the SQLite store.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     email TEXT NOT NULL,
     email_key TEXT NOT NULL CONSTRAINT accounts_email_key_unique UNIQUE,
     first_name TEXT,
     last_name TEXT,
     password_hash TEXT,
     google_subject TEXT CONSTRAINT accounts_google_subject_unique UNIQUE,
     created_at BIGINT NOT NULL
   );
   CREATE TABLE memberships (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     organization TEXT NOT NULL,
     PRIMARY KEY (account_id, organization)
   );
   CREATE TABLE login_throttles (
     throttle_key TEXT PRIMARY KEY,
     failures INTEGER NOT NULL,
     locked_until BIGINT NOT NULL,
     updated_at BIGINT NOT NULL
   );
   CREATE TABLE refresh_tokens (
     token_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     family_id TEXT NOT NULL,
     expires_at BIGINT NOT NULL,
     used_at BIGINT,
     revoked_at BIGINT,
     context TEXT NOT NULL
   );
   CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id);
   CREATE INDEX refresh_tokens_by_account ON refresh_tokens(account_id);
   CREATE TABLE reset_tokens (
     token_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     expires_at BIGINT NOT NULL,
     used_at BIGINT,
     created_at BIGINT NOT NULL
   );
   CREATE INDEX reset_tokens_by_account ON reset_tokens(account_id, created_at);
   CREATE TABLE sso_transactions (
     id TEXT PRIMARY KEY,
     binding_hash TEXT NOT NULL,
     connection_domain TEXT NOT NULL,
     protocol TEXT NOT NULL,
     data TEXT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE TABLE sso_identities (
     id_hash TEXT PRIMARY KEY,
     binding_hash TEXT NOT NULL,
     email TEXT NOT NULL,
     protocol TEXT NOT NULL,
     subject TEXT NOT NULL,
     connection_domain TEXT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE TABLE saml_assertions (
     assertion_id TEXT PRIMARY KEY,
     expires_at BIGINT NOT NULL
   );`,
  'ALTER TABLE accounts ADD COLUMN email_verified_at BIGINT',
  rekeyEmails,
  // notice_slots.quiet_until is sent_at plus the interval the slot was taken for: purging forgets a slot
  // past it, whatever interval its kind of notice uses.
  `CREATE TABLE email_links (
     token_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     purpose TEXT NOT NULL,
     expires_at BIGINT NOT NULL,
     used_at BIGINT,
     created_at BIGINT NOT NULL
   );
   CREATE INDEX email_links_by_account ON email_links(account_id, purpose, created_at);
   CREATE TABLE known_browsers (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     browser_hash TEXT NOT NULL,
     first_seen_at BIGINT NOT NULL,
     last_seen_at BIGINT NOT NULL,
     PRIMARY KEY (account_id, browser_hash)
   );
   CREATE TABLE notice_slots (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     kind TEXT NOT NULL,
     sent_at BIGINT NOT NULL,
     quiet_until BIGINT NOT NULL,
     PRIMARY KEY (account_id, kind)
   );`,
  // A Google ID token is accepted once: its key (jti, or the token's hash) stays until the token expires.
  `CREATE TABLE spent_google_tokens (
     token_key TEXT PRIMARY KEY,
     expires_at BIGINT NOT NULL
   );`,
  // Passkeys (docs/passkeys.md). The user handle is made on first use; a challenge row is keyed by the hash
  // of its browser's cookie binding and taken out (deleted) when used.
  `ALTER TABLE accounts ADD COLUMN passkey_user_handle TEXT CONSTRAINT accounts_passkey_user_handle_unique UNIQUE;
   CREATE TABLE passkeys (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     public_key TEXT NOT NULL,
     counter BIGINT NOT NULL,
     transports TEXT NOT NULL,
     device_type TEXT NOT NULL,
     backed_up BOOLEAN NOT NULL,
     name TEXT,
     created_at BIGINT NOT NULL,
     last_used_at BIGINT
   );
   CREATE INDEX passkeys_by_account ON passkeys(account_id, created_at);
   CREATE TABLE passkey_challenges (
     binding_hash TEXT PRIMARY KEY,
     purpose TEXT NOT NULL,
     account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
     challenge TEXT NOT NULL,
     expires_at BIGINT NOT NULL
   );`,
  // Second factor (docs/second-factor.md). An authenticator secret is pending (enrolled_at NULL) until its first
  // code confirms it; recovery codes and challenges are kept hashed; remembered browsers are forgotten by time.
  `CREATE TABLE second_factors (
     account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
     encrypted_secret TEXT NOT NULL,
     enrolled_at BIGINT,
     pending_expires_at BIGINT NOT NULL,
     last_step BIGINT NOT NULL DEFAULT 0
   );
   CREATE TABLE recovery_codes (
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     code_hash TEXT NOT NULL,
     used_at BIGINT,
     PRIMARY KEY (account_id, code_hash)
   );
   CREATE TABLE second_factor_challenges (
     challenge_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     kind TEXT NOT NULL,
     context TEXT NOT NULL,
     method TEXT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE TABLE second_factor_organizations (
     organization TEXT PRIMARY KEY
   );
   ALTER TABLE accounts ADD COLUMN remembered_browsers_forgotten_at BIGINT NOT NULL DEFAULT 0;`,
  `CREATE TABLE fresh_proofs (
     binding_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     session_id TEXT NOT NULL,
     method TEXT NOT NULL,
     at_sign_in BOOLEAN NOT NULL,
     proven_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     upgrade_used_at BIGINT
   );
   CREATE INDEX fresh_proofs_by_account ON fresh_proofs(account_id);
   ALTER TABLE email_links ADD COLUMN subject TEXT;`,
  `CREATE TABLE security_events (
     id BIGSERIAL PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     at BIGINT NOT NULL,
     kind TEXT NOT NULL,
     method TEXT,
     user_agent TEXT,
     address_range TEXT NOT NULL
   );
   CREATE INDEX security_events_by_account ON security_events(account_id, at);
   CREATE INDEX security_events_by_time ON security_events(at);`,
  POSTGRES_OIDC_MIGRATION,
  POSTGRES_EMAIL_CODE_MIGRATION,
  POSTGRES_SOCIAL_LINK_MIGRATION
]

/** Replaces the account's recovery codes; inside the caller's transaction. */
async function writeRecoveryCodes (client: pg.PoolClient, accountId: string, recoveryCodeHashes: readonly string[]): Promise<void> {
  await client.query('DELETE FROM recovery_codes WHERE account_id = $1', [accountId])
  for (const hash of recoveryCodeHashes) {
    await client.query('INSERT INTO recovery_codes (account_id, code_hash) VALUES ($1, $2)', [accountId, hash])
  }
}

/**
 * The advisory lock held while migrating, so that instances starting together
 * migrate one after the other (the second finds nothing left to do).
 */
export const MIGRATION_LOCK_KEY = 7_413_602_951

/** Connections per instance; several instances share the server's max_connections. */
const POOL_SIZE = 10
const CONNECT_TIMEOUT_MS = 10_000

const INT8_OID = 20

/**
 * BIGINT columns hold epoch milliseconds and counts, all far below 2^53:
 * read them as numbers (pg's default is strings). Set on this pool only, not
 * globally for every pg user in the process.
 */
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format) as (value: string) => unknown) as pg.CustomTypesConfig['getTypeParser']
}

/** The pool, or one connection inside a transaction. */
type Queryable = pg.Pool | pg.PoolClient

async function revokeRefreshTokensOf (db: Queryable, accountId: string, now: number): Promise<void> {
  await db.query('UPDATE refresh_tokens SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL', [now, accountId])
}

/** PostgreSQL's error code for a transaction it rolled back to end a deadlock. */
const DEADLOCK_DETECTED = '40P01'

/** Orders a revocation of the account's sessions with the inserts that would add to them (insertRefreshToken). */
async function lockAccountForRevocation (db: Queryable, accountId: string): Promise<void> {
  await db.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId])
}

/** rotateOnce found a reuse after the grace under a lock too weak to revoke with: run it again. */
const LOCK_FOR_REVOCATION = Symbol('lock for revocation')

/**
 * One transaction of rotateRefreshToken. Its locks come in the order of every revocation and
 * insert of the account's tokens: the account's row, then token rows. The account's row is
 * taken FOR SHARE, as an insert takes it: rotations run side by side, and a revocation waits
 * for them, or they for it, holding nothing the other wants. Where the first read already
 * shows a reuse after the grace (a use, once made, never changes), it is taken FOR UPDATE, as
 * a revocation takes it. A reuse seen only under the token's lock can neither revoke under
 * FOR SHARE (an insert into the family beside it would not see the revocation before its
 * commit) nor strengthen the lock (that waits for the other holders, one of whom may wait for
 * this token's lock): the pass ends, changing nothing, and the next sees the use at once.
 */
async function rotateOnce (client: pg.PoolClient, rotation: RefreshRotation): Promise<RefreshRotationResult | typeof LOCK_FOR_REVOCATION> {
  const { tokenHash, successor, now, reuseGraceMs } = rotation
  const reusedAfterGrace = (usedAt: number | null): boolean => usedAt !== null && now - usedAt >= reuseGraceMs
  const seen = (await client.query<{ account_id: string, used_at: number | null }>(
    'SELECT account_id, used_at FROM refresh_tokens WHERE token_hash = $1', [tokenHash])).rows[0]
  if (seen === undefined) return { refused: 'unknown' }
  const revoking = reusedAfterGrace(seen.used_at)
  await client.query(`SELECT 1 FROM accounts WHERE id = $1 FOR ${revoking ? 'UPDATE' : 'SHARE'}`, [seen.account_id])
  // Concurrent rotations of one token take turns from here to their commit; each then reads the use the one before stored.
  const token = (await client.query<{ family_id: string, expires_at: number, used_at: number | null, revoked_at: number | null }>(
    'SELECT family_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE', [tokenHash])).rows[0]
  if (token === undefined) return { refused: 'unknown' }
  if (token.revoked_at !== null) return { refused: 'revoked' }
  if (reusedAfterGrace(token.used_at)) {
    if (!revoking) return LOCK_FOR_REVOCATION
    await client.query('UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL', [now, token.family_id])
    return { refused: 'reused' }
  }
  if (token.expires_at <= now) return { refused: 'expired' }
  const ended = await client.query('SELECT 1 FROM refresh_tokens WHERE family_id = $1 AND revoked_at IS NOT NULL LIMIT 1', [token.family_id])
  if (ended.rowCount === 1) return { refused: 'revoked' }
  if (token.used_at === null) await client.query('UPDATE refresh_tokens SET used_at = $1 WHERE token_hash = $2', [now, tokenHash])
  await client.query('INSERT INTO refresh_tokens (token_hash, account_id, family_id, expires_at, context) VALUES ($1, $2, $3, $4, $5)',
    [successor.tokenHash, seen.account_id, token.family_id, successor.expiresAt, successor.context])
  return { rotated: token.used_at === null ? 'first-use' : 'within-grace' }
}

async function voidResetTokensOf (db: Queryable, accountId: string, now: number): Promise<void> {
  await db.query('UPDATE reset_tokens SET used_at = $1 WHERE account_id = $2 AND used_at IS NULL', [now, accountId])
}

function isUniqueViolation (error: unknown): error is pg.DatabaseError {
  return error instanceof pg.DatabaseError && error.code === '23505'
}

/** A connection taken from the pool for several statements, and how it goes back. */
interface HeldConnection {
  /** Marks it broken: it is closed at the release rather than reused. */
  broke (error: Error): void
  release (): void
}

/**
 * Holds `client` out of the pool. pg-pool listens for a connection's `error`
 * event only while it is idle in the pool: one that breaks while held (a
 * restart, pg_terminate_backend) would emit it unheard, which ends the
 * process. Here it is heard, reported, and the connection is released broken.
 */
function holdConnection (client: pg.PoolClient, onConnectionError: (error: Error) => void = () => {}): HeldConnection {
  let broken: Error | undefined
  const onError = (error: Error): void => {
    broken ??= error
    onConnectionError(error)
  }
  client.on('error', onError)
  return {
    broke (error) { broken ??= error },
    release () {
      client.removeListener('error', onError)
      client.release(broken)
    }
  }
}

/**
 * Runs the migrations not yet applied, each in its own transaction, under the migration lock.
 * `upTo` stops at an earlier version (tests make databases as older versions left them).
 */
export async function migrate (pool: pg.Pool, upTo = POSTGRES_MIGRATIONS.length): Promise<{ version: number, emailKeyConflicts: EmailKeyConflict[] }> {
  const emailKeyConflicts: EmailKeyConflict[] = []
  const client = await pool.connect()
  const held = holdConnection(client)
  let applied = 0
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
                            version INTEGER PRIMARY KEY,
                            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                          )`)
      const { rows } = await client.query<{ version: number }>('SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations')
      applied = rows[0]!.version
      // As the SQLite store does: a newer schema may mean what this code cannot.
      if (applied > POSTGRES_MIGRATIONS.length) {
        throw new Error(`the accounts database has schema version ${applied}, newer than this version of Threshold knows (${POSTGRES_MIGRATIONS.length}); upgrade Threshold`)
      }
      for (let version = applied; version < upTo; version++) {
        await client.query('BEGIN')
        try {
          const migration = POSTGRES_MIGRATIONS[version]!
          if (typeof migration === 'string') await client.query(migration)
          else emailKeyConflicts.push(...(await migration(client))?.conflicts ?? [])
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version + 1])
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK')
          throw error
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
    }
  } catch (error) {
    // A connection that failed mid-way may still hold the lock: drop it rather than reuse it.
    held.broke(error as Error)
    throw error
  } finally {
    held.release()
  }
  return { version: Math.max(applied, upTo), emailKeyConflicts }
}

export interface PostgresStoreOptions {
  /** DATABASE_URL. */
  readonly connectionString: string
  /**
   * Told about connections that broke outside a statement's answer: idle in
   * the pool, or held between the statements of a transaction (a restarted
   * server, a dropped link, pg_terminate_backend). They must not crash the
   * process; the pool opens new ones.
   */
  readonly onIdleError: (error: Error) => void
  /**
   * Wait for a database that cannot be reached at the opening instead of
   * failing it (the service; the admin command fails at once).
   */
  readonly waitForDatabase?: DatabaseWait
  /** Told each offset of this process's clock from the database's, as measured (server/shared/shared-clock.ts). */
  readonly onClockSynced?: (offsetMs: number) => void
  /**
   * Told when the database's clock could not be read (the offset last
   * measured stays in use until the next try); without it, `onIdleError`.
   */
  readonly onClockSyncFailed?: (error: Error) => void
  /** How often the database's clock is read again: CLOCK_SYNC_INTERVAL_MS unless a test needs it sooner. */
  readonly clockSyncIntervalMs?: number
}

/** What a store opened before its database could be reached tells while it waits. */
export interface DatabaseWait {
  /** Told of each attempt to connect and migrate that failed; another follows after a pause. */
  readonly onAttemptFailed: (error: Error) => void
  /** Told once the schema is migrated and calls are served. */
  readonly onOpened: (emailKeyConflicts: readonly EmailKeyConflict[]) => void
}

/** The first pause between attempts to reach a database that was down at the start; it doubles up to the longest. */
const FIRST_RETRY_MS = 250
const LONGEST_RETRY_MS = 5000
/** How long readiness waits for `SELECT 1`: within the edge's probe timeout (server/edge/upstream/upstream-probes.ts). */
const REACHABLE_TIMEOUT_MS = 500
/** How long a reachability answer is reused, so that a flood of probes costs the database one query a second. */
export const REACHABLE_CACHE_MS = 1000

/** The store for several reference instances: PostgreSQL through a connection pool. */
export class PostgresAccountStore implements AccountStore {
  /** Set while the schema is not migrated yet (the database was down at the start): every call fails as unavailable. */
  private waiting: AbortController | null = null
  private conflicts: readonly EmailKeyConflict[]
  /** When a connection last went back to the pool unbroken: proof enough that the database answers. */
  private lastHealthyAt = -Infinity
  private reachability: { readonly at: number, readonly reachable: boolean } | null = null
  private checking: Promise<boolean> | null = null
  /** The time every instance on this database agrees on (server/shared/shared-clock.ts). */
  private readonly clock: SharedClock
  readonly oidcClients: AccountStore['oidcClients']
  readonly oidcPayloads: AccountStore['oidcPayloads']
  readonly emailCodes: AccountStore['emailCodes']
  readonly socialLinks: AccountStore['socialLinks']

  private constructor (
    private readonly connections: pg.Pool,
    private readonly options: PostgresStoreOptions,
    emailKeyConflicts: readonly EmailKeyConflict[]
  ) {
    this.conflicts = emailKeyConflicts
    this.clock = new SharedClock(async () => await this.readDatabaseTime(), options.onClockSynced)
    connections.on('release', (error: Error | undefined) => {
      if (error === undefined) this.lastHealthyAt = performance.now()
    })
    const access: PostgresAccess = {
      pool: () => this.pool,
      inTransaction: async (work) => await this.inTransaction(work),
      now: () => this.now()
    }
    this.oidcClients = postgresOidcClients(access)
    this.oidcPayloads = postgresOidcPayloads(access)
    this.emailCodes = postgresEmailCodes(access)
    this.socialLinks = postgresSocialLinks(access)
  }

  get emailKeyConflicts (): readonly EmailKeyConflict[] {
    return this.conflicts
  }

  /**
   * The pool, once the schema is migrated; until then every call fails as
   * unavailable rather than meet missing tables.
   */
  private get pool (): pg.Pool {
    if (this.waiting !== null) throw new StoreUnavailable('the accounts database has not been reached since the start')
    return this.connections
  }

  /**
   * Connects, migrates and returns the store. A database that cannot be
   * reached fails the opening, unless `waitForDatabase` is given: then the
   * store is returned at once and keeps trying in the background, with
   * backoff, while its calls fail as unavailable and `reachable` is false.
   * A database that answers but cannot be migrated fails the opening either way.
   */
  static async open (options: PostgresStoreOptions): Promise<PostgresAccountStore> {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: POOL_SIZE,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      types: typeParsers
    })
    // A pooled connection that breaks while idle is reported here; unheard, the event would end the process.
    pool.on('error', options.onIdleError)
    try {
      const migrated = await migrate(pool)
      const store = new PostgresAccountStore(pool, options, migrated.emailKeyConflicts)
      await store.followDatabaseClock()
      return store
    } catch (error) {
      if (options.waitForDatabase === undefined || !isConnectionFailure(error)) {
        await pool.end()
        throw error
      }
      options.waitForDatabase.onAttemptFailed(error as Error)
      const store = new PostgresAccountStore(pool, options, [])
      store.migrateInBackground(options.waitForDatabase)
      return store
    }
  }

  /** Tries to migrate again after a growing pause until it works or the store closes. */
  private migrateInBackground (wait: DatabaseWait): void {
    const waiting = new AbortController()
    this.waiting = waiting
    void (async () => {
      for (let attempt = 1; ; attempt++) {
        const pauseMs = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1))
        // Jittered, so that instances started together do not come back together.
        const slept = await sleep(pauseMs * (0.5 + Math.random() / 2), true, { signal: waiting.signal }).catch(() => false)
        if (!slept) return
        try {
          const migrated = await migrate(this.connections)
          if (waiting.signal.aborted) return
          this.conflicts = migrated.emailKeyConflicts
          await this.followDatabaseClock()
          if (waiting.signal.aborted) return
          this.waiting = null
          wait.onOpened(migrated.emailKeyConflicts)
          return
        } catch (error) {
          if (waiting.signal.aborted) return
          // A schema it cannot use is retried too: an operator may fix it, and the instance stays unready meanwhile.
          wait.onAttemptFailed(error as Error)
        }
      }
    })()
  }

  /**
   * Measures the offset from the database's clock, then again every
   * CLOCK_SYNC_INTERVAL_MS. A first measurement that fails (the database
   * went away just after the migration) leaves the process's own clock in
   * use until the next one: no worse than before.
   */
  private async followDatabaseClock (): Promise<void> {
    const report = this.options.onClockSyncFailed ?? this.options.onIdleError
    const failed = (error: unknown): void => { report(error as Error) }
    await this.clock.sync().catch(failed)
    this.clock.keepSynced(failed, this.options.clockSyncIntervalMs)
  }

  private async readDatabaseTime (): Promise<number> {
    // clock_timestamp(), not now(): now() is the time the transaction began.
    const { rows } = await this.connections.query<{ ms: number }>('SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms')
    return Number(rows[0]!.ms)
  }

  now (): number {
    return this.clock.now()
  }

  /**
   * Whether the database answers now: a connection came back unbroken
   * within REACHABLE_CACHE_MS, or a `SELECT 1` answers within
   * REACHABLE_TIMEOUT_MS (its answer reused for REACHABLE_CACHE_MS, and
   * shared by callers at the same time).
   */
  async reachable (): Promise<boolean> {
    if (this.waiting !== null) return false
    const now = performance.now()
    if (now - this.lastHealthyAt < REACHABLE_CACHE_MS) return true
    if (this.reachability !== null && now - this.reachability.at < REACHABLE_CACHE_MS) return this.reachability.reachable
    this.checking ??= this.selectOne().then((reachable) => {
      this.reachability = { at: performance.now(), reachable }
      return reachable
    }).finally(() => { this.checking = null })
    return await this.checking
  }

  private async selectOne (): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    // A timer of its own: waiting for a free connection is not bounded by the query's timeout.
    const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), REACHABLE_TIMEOUT_MS) })
    const answered = this.connections.query('SELECT 1').then(() => true, () => false)
    try {
      return await Promise.race([answered, late])
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Runs `work` in one transaction on one connection. A transaction PostgreSQL chose to end a
   * deadlock with (40P01) rolled back whole: it runs again, twice at most, rather than failing a
   * visitor's call (two transactions that lock the same rows in another order, a claim and the
   * purge, say, are rare but legal).
   */
  private async inTransaction<T> (work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.inOneTransaction(work)
      } catch (error) {
        if ((error as { code?: unknown }).code !== DEADLOCK_DETECTED || attempt === 3) throw error
      }
    }
  }

  private async inOneTransaction<T> (work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    const held = holdConnection(client, this.options.onIdleError)
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      if (isConnectionFailure(error)) held.broke(error as Error)
      else await client.query('ROLLBACK').catch((rollbackError: Error) => { held.broke(rollbackError) })
      throw error
    } finally {
      held.release()
    }
  }

  async createAccount (account: NewAccount): Promise<CreateAccountResult> {
    const id = randomUUID()
    const createdAt = this.now()
    try {
      await this.pool.query(
        `INSERT INTO accounts (id, email, email_key, first_name, last_name, password_hash, google_subject, email_verified_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        newAccountValues(id, account, emailKey(account.email), createdAt))
    } catch (error) {
      if (isUniqueViolation(error)) return { conflict: error.constraint === 'accounts_google_subject_unique' ? 'google-subject' : 'email' }
      throw error
    }
    return { created: createdAccount(id, account, createdAt) }
  }

  async findAccountByEmail (email: string): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>('SELECT * FROM accounts WHERE email_key = $1', [emailKey(email)])
    return toAccount(rows[0])
  }

  async findAccountById (id: string): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id])
    return toAccount(rows[0])
  }

  async findAccountByGoogleSubject (subject: string): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>('SELECT * FROM accounts WHERE google_subject = $1', [subject])
    return toAccount(rows[0])
  }

  async updatePasswordHash (accountId: string, passwordHash: string): Promise<void> {
    await this.pool.query('UPDATE accounts SET password_hash = $1 WHERE id = $2', [passwordHash, accountId])
  }

  async markEmailVerified (accountId: string, now: number): Promise<void> {
    await this.pool.query(`UPDATE accounts SET email_verified_at = $1
                           WHERE id = $2 AND (email_verified_at IS NULL OR email_verified_at > $1)`, [now, accountId])
  }

  async changeAccountEmail (accountId: string, email: string, now: number): Promise<EmailChangeResult> {
    try {
      return await this.inTransaction(async (client): Promise<EmailChangeResult> => {
        const moved = await client.query('UPDATE accounts SET email = $1, email_key = $2, email_verified_at = $3 WHERE id = $4',
          [email, emailKey(email), now, accountId])
        if (moved.rowCount !== 1) return 'unknown'
        await voidResetTokensOf(client, accountId, now)
        await client.query('UPDATE email_links SET used_at = $1 WHERE account_id = $2 AND used_at IS NULL', [now, accountId])
        return 'changed'
      })
    } catch (error) {
      if (isUniqueViolation(error)) return 'taken'
      throw error
    }
  }

  async claimUnverifiedAccount (accountId: string, claim: AccountClaim): Promise<boolean> {
    // The account's row stays locked until commit: a concurrent claim waits, then finds the address verified.
    return this.inTransaction(async (client) => {
      const claimed = await client.query(
        `UPDATE accounts SET password_hash = NULL, email_verified_at = $1, google_subject = COALESCE($2, google_subject)
         WHERE id = $3 AND email_verified_at IS NULL`, [claim.now, claim.googleSubject, accountId])
      if (claimed.rowCount !== 1) return false
      await revokeRefreshTokensOf(client, accountId, claim.now)
      await voidResetTokensOf(client, accountId, claim.now)
      await client.query('UPDATE email_links SET used_at = $1 WHERE account_id = $2 AND used_at IS NULL', [claim.now, accountId])
      // Whoever held the password may have added ways in of his own: none set up before the claim stays.
      for (const table of ['passkeys', 'passkey_challenges', 'second_factors', 'recovery_codes', 'known_browsers', 'social_links']) {
        await client.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId])
      }
      await client.query('UPDATE accounts SET remembered_browsers_forgotten_at = GREATEST(remembered_browsers_forgotten_at, $1) WHERE id = $2',
        [claim.now, accountId])
      return true
    })
  }

  async addMembership (accountId: string, organization: string): Promise<void> {
    await this.pool.query('INSERT INTO memberships (account_id, organization) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [accountId, organization])
  }

  async removeMembership (accountId: string, organization: string): Promise<void> {
    await this.pool.query('DELETE FROM memberships WHERE account_id = $1 AND organization = $2', [accountId, organization])
  }

  async listMemberships (accountId: string): Promise<readonly string[]> {
    // COLLATE "C": the same byte order as SQLite's, whatever the database's locale.
    const { rows } = await this.pool.query<{ organization: string }>(
      'SELECT organization FROM memberships WHERE account_id = $1 ORDER BY organization COLLATE "C"', [accountId])
    return rows.map((row) => row.organization)
  }

  async readLoginThrottle (key: string): Promise<LoginThrottle> {
    const { rows } = await this.pool.query<{ failures: number, locked_until: number }>(
      'SELECT failures, locked_until FROM login_throttles WHERE throttle_key = $1', [key])
    return { failures: rows[0]?.failures ?? 0, lockedUntil: rows[0]?.locked_until ?? 0 }
  }

  async recordLoginFailure (key: string, lockFor: (failures: number) => number, now: number): Promise<LoginThrottle> {
    // The upsert locks the row until commit, so concurrent failures are counted one after another.
    return this.inTransaction(async (client) => {
      const { rows } = await client.query<{ failures: number }>(
        `INSERT INTO login_throttles (throttle_key, failures, locked_until, updated_at) VALUES ($1, 1, 0, $2)
         ON CONFLICT (throttle_key) DO UPDATE SET failures = login_throttles.failures + 1, updated_at = EXCLUDED.updated_at
         RETURNING failures`, [key, now])
      const failures = rows[0]!.failures
      const lockedUntil = now + lockFor(failures)
      await client.query('UPDATE login_throttles SET locked_until = $1 WHERE throttle_key = $2', [lockedUntil, key])
      return { failures, lockedUntil }
    })
  }

  async clearLoginFailures (key: string): Promise<void> {
    await this.pool.query('DELETE FROM login_throttles WHERE throttle_key = $1', [key])
  }

  async insertRefreshToken (record: Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>): Promise<boolean> {
    return await this.inTransaction(async (client) => {
      // Shared: rotations run side by side; a revocation (lockAccountForRevocation) waits for them, or they for it.
      await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR SHARE', [record.accountId])
      const inserted = await client.query(
        `INSERT INTO refresh_tokens (token_hash, account_id, family_id, expires_at, context)
         SELECT $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM refresh_tokens WHERE family_id = $3 AND revoked_at IS NOT NULL)`,
        [record.tokenHash, record.accountId, record.familyId, record.expiresAt, record.context])
      return inserted.rowCount === 1
    })
  }

  async findRefreshToken (tokenHash: string): Promise<RefreshTokenRecord | null> {
    const { rows } = await this.pool.query<RefreshTokenRow>('SELECT * FROM refresh_tokens WHERE token_hash = $1', [tokenHash])
    return toRefreshToken(rows[0])
  }

  async rotateRefreshToken (rotation: RefreshRotation): Promise<RefreshRotationResult> {
    // A second pass only after a use committed beside the first (rotateOnce); that use stays, so the second pass is the last.
    for (;;) {
      const result = await this.inTransaction(async (client) => await rotateOnce(client, rotation))
      if (result !== LOCK_FOR_REVOCATION) return result
    }
  }

  async isRefreshFamilyLive (familyId: string, now: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'SELECT 1 FROM refresh_tokens WHERE family_id = $1 AND revoked_at IS NULL AND expires_at > $2 LIMIT 1', [familyId, now])
    return rowCount === 1
  }

  async listSessions (accountId: string, now: number): Promise<readonly SessionRecord[]> {
    const { rows } = await this.pool.query<SessionRow>(
      `SELECT family_id, MAX(used_at) AS last_refreshed_at,
         (SELECT context FROM refresh_tokens newest WHERE newest.family_id = tokens.family_id ORDER BY expires_at DESC LIMIT 1) AS context
       FROM refresh_tokens tokens
       WHERE account_id = $1 AND family_id IN (SELECT family_id FROM refresh_tokens WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2)
       GROUP BY family_id`, [accountId, now])
    return rows.map(toSession)
  }

  async insertFreshProof (proof: Omit<FreshProof, 'upgradeSpent'>): Promise<void> {
    await this.pool.query(
      `INSERT INTO fresh_proofs (binding_hash, account_id, session_id, method, at_sign_in, proven_at, expires_at, upgrade_used_at)
       VALUES ($1, $2, $7, $3, $4, $5, $6, NULL)
       ON CONFLICT (binding_hash) DO UPDATE SET account_id = EXCLUDED.account_id, session_id = EXCLUDED.session_id, method = EXCLUDED.method,
         at_sign_in = EXCLUDED.at_sign_in, proven_at = EXCLUDED.proven_at, expires_at = EXCLUDED.expires_at, upgrade_used_at = NULL`,
      [proof.bindingHash, proof.accountId, proof.method, proof.atSignIn, proof.provenAt, proof.expiresAt, proof.sessionId])
  }

  async findFreshProof (bindingHash: string, now: number): Promise<FreshProof | null> {
    const { rows } = await this.pool.query<FreshProofRow>('SELECT * FROM fresh_proofs WHERE binding_hash = $1 AND expires_at > $2', [bindingHash, now])
    return toFreshProof(rows[0])
  }

  async spendFreshProofOnUpgrade (bindingHash: string, sessionId: string, now: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE fresh_proofs SET upgrade_used_at = $1
       WHERE binding_hash = $2 AND session_id = $3 AND at_sign_in AND upgrade_used_at IS NULL AND expires_at > $1`,
      [now, bindingHash, sessionId])
    return rowCount === 1
  }

  async voidSecondFactorChallenges (accountId: string): Promise<void> {
    await this.pool.query('DELETE FROM second_factor_challenges WHERE account_id = $1', [accountId])
  }

  async voidFreshProofs (accountId: string): Promise<void> {
    await this.pool.query('DELETE FROM fresh_proofs WHERE account_id = $1', [accountId])
  }

  /*
   * Every revocation takes the account's row FOR UPDATE first, and every insert of a refresh token
   * or a passkey takes it FOR SHARE: under READ COMMITTED an UPDATE does not see a row another
   * transaction has not committed yet, so without the lock a successor stored beside a revocation
   * would outlive it.
   */

  async revokeRefreshFamily (familyId: string, now: number): Promise<void> {
    await this.inTransaction(async (client) => {
      const { rows } = await client.query<{ account_id: string }>('SELECT account_id FROM refresh_tokens WHERE family_id = $1 LIMIT 1', [familyId])
      if (rows[0] !== undefined) await lockAccountForRevocation(client, rows[0].account_id)
      await client.query('UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL', [now, familyId])
    })
  }

  async revokeAccountRefreshTokens (accountId: string, now: number): Promise<void> {
    await this.inTransaction(async (client) => {
      await lockAccountForRevocation(client, accountId)
      await revokeRefreshTokensOf(client, accountId, now)
    })
  }

  async revokeSessionsSignedInWith (accountId: string, credentialId: string, now: number): Promise<number> {
    return await this.inTransaction(async (client) => {
      await lockAccountForRevocation(client, accountId)
      const { rows } = await client.query<{ family_id: string }>(
        `UPDATE refresh_tokens SET revoked_at = $1
         WHERE account_id = $2 AND revoked_at IS NULL AND expires_at > $1 AND (context::jsonb)->>'passkeyId' = $3
         RETURNING family_id`, [now, accountId, credentialId])
      return sessionCount(rows)
    })
  }

  async revokeOtherSessions (accountId: string, keptFamilyId: string, now: number): Promise<number> {
    return await this.inTransaction(async (client) => {
      await lockAccountForRevocation(client, accountId)
      const { rows } = await client.query<{ family_id: string }>(
        `UPDATE refresh_tokens SET revoked_at = $1
         WHERE account_id = $2 AND revoked_at IS NULL AND expires_at > $1 AND family_id <> $3
         RETURNING family_id`, [now, accountId, keptFamilyId])
      return sessionCount(rows)
    })
  }

  async endSession (accountId: string, familyId: string, now: number): Promise<boolean> {
    return await this.inTransaction(async (client) => {
      await lockAccountForRevocation(client, accountId)
      const { rowCount } = await client.query(
        'SELECT 1 FROM refresh_tokens WHERE account_id = $1 AND family_id = $2 AND revoked_at IS NULL AND expires_at > $3 LIMIT 1', [accountId, familyId, now])
      if (rowCount !== 1) return false
      await client.query('UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL', [now, familyId])
      return true
    })
  }

  async insertResetToken (tokenHash: string, accountId: string, expiresAt: number): Promise<void> {
    await this.pool.query('INSERT INTO reset_tokens (token_hash, account_id, expires_at, created_at) VALUES ($1, $2, $3, $4)',
      [tokenHash, accountId, expiresAt, this.now()])
  }

  async consumeResetToken (tokenHash: string, now: number): Promise<string | null> {
    const { rows } = await this.pool.query<{ account_id: string }>(
      `UPDATE reset_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1
       RETURNING account_id`, [now, tokenHash])
    return rows[0]?.account_id ?? null
  }

  async voidResetTokens (accountId: string, now: number): Promise<void> {
    await voidResetTokensOf(this.pool, accountId, now)
  }

  async countResetTokensSince (accountId: string, since: number): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(
      'SELECT COUNT(*) AS count FROM reset_tokens WHERE account_id = $1 AND created_at >= $2', [accountId, since])
    return rows[0]!.count
  }

  async insertEmailLink (link: EmailLink, now: number): Promise<void> {
    await this.pool.query(
      'INSERT INTO email_links (token_hash, account_id, purpose, expires_at, created_at, subject) VALUES ($1, $2, $3, $4, $5, $6)',
      [link.tokenHash, link.accountId, link.purpose, link.expiresAt, now, link.subject ?? null])
  }

  async consumeEmailLink (purpose: EmailLinkPurpose, tokenHash: string, now: number): Promise<OpenedEmailLink | null> {
    const { rows } = await this.pool.query<EmailLinkRow>(
      `UPDATE email_links SET used_at = $1 WHERE token_hash = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $1
       RETURNING account_id, subject, created_at`, [now, tokenHash, purpose])
    return toOpenedEmailLink(rows[0])
  }

  async findEmailLink (purpose: EmailLinkPurpose, tokenHash: string, now: number): Promise<OpenedEmailLink | null> {
    const { rows } = await this.pool.query<EmailLinkRow>(
      `SELECT account_id, subject, created_at FROM email_links
       WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3`, [tokenHash, purpose, now])
    return toOpenedEmailLink(rows[0])
  }

  async countEmailLinksSince (purpose: EmailLinkPurpose, accountId: string, since: number): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(
      'SELECT COUNT(*) AS count FROM email_links WHERE account_id = $1 AND purpose = $2 AND created_at >= $3', [accountId, purpose, since])
    return rows[0]!.count
  }

  async rememberBrowser (accountId: string, browserHash: string, now: number): Promise<BrowserSighting> {
    return this.inTransaction(async (client) => {
      // Locking the account's row makes its sightings take turns, so that exactly one of them is its first
      // browser, even for different browsers. NO KEY UPDATE: rows that refer to the account are not held up.
      await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [accountId])
      // GREATEST: a slow request carrying an older time must not make the browser look less recently seen.
      const known = await client.query(
        'UPDATE known_browsers SET last_seen_at = GREATEST(last_seen_at, $1) WHERE account_id = $2 AND browser_hash = $3',
        [now, accountId, browserHash])
      if (known.rowCount === 1) return 'known'
      const { rows } = await client.query<{ others: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM known_browsers WHERE account_id = $1) AS others', [accountId])
      await client.query('INSERT INTO known_browsers (account_id, browser_hash, first_seen_at, last_seen_at) VALUES ($1, $2, $3, $3)',
        [accountId, browserHash, now])
      return rows[0]!.others ? 'new' : 'first'
    })
  }

  async isKnownBrowser (accountId: string, browserHash: string, now: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'SELECT 1 FROM known_browsers WHERE account_id = $1 AND browser_hash = $2 AND last_seen_at > $3',
      [accountId, browserHash, now - BROWSER_MEMORY_MS])
    return rowCount === 1
  }

  async takeNoticeSlot (accountId: string, kind: NoticeKind, now: number, intervalMs: number): Promise<boolean> {
    // One statement, as rememberAssertion: the first caller inserts or takes over a stale slot; the others
    // wait for its row, then find it taken within the interval and change nothing.
    const result = await this.pool.query(
      `INSERT INTO notice_slots (account_id, kind, sent_at, quiet_until) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, kind) DO UPDATE SET sent_at = EXCLUDED.sent_at, quiet_until = EXCLUDED.quiet_until
       WHERE notice_slots.sent_at <= $5`,
      [accountId, kind, now, now + intervalMs, now - intervalMs])
    return result.rowCount === 1
  }

  async insertSsoTransaction (transaction: SsoTransaction): Promise<void> {
    await this.pool.query(
      `INSERT INTO sso_transactions (id, binding_hash, connection_domain, protocol, data, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [transaction.id, transaction.bindingHash, transaction.connectionDomain, transaction.protocol,
        transaction.data, transaction.expiresAt])
  }

  async findSsoTransaction (id: string, now: number): Promise<SsoTransaction | null> {
    const { rows } = await this.pool.query<SsoTransactionRow>('SELECT * FROM sso_transactions WHERE id = $1', [id])
    return toLiveSsoTransaction(rows[0], now)
  }

  async takeSsoTransaction (id: string, now: number): Promise<SsoTransaction | null> {
    const { rows } = await this.pool.query<SsoTransactionRow>('DELETE FROM sso_transactions WHERE id = $1 RETURNING *', [id])
    return toLiveSsoTransaction(rows[0], now)
  }

  async insertSsoIdentity (identity: SsoIdentity): Promise<void> {
    await this.pool.query(
      `INSERT INTO sso_identities (id_hash, binding_hash, email, protocol, subject, connection_domain, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [identity.idHash, identity.bindingHash, identity.email, identity.protocol, identity.subject,
        identity.connectionDomain, identity.expiresAt])
  }

  async takeSsoIdentity (idHash: string, now: number): Promise<SsoIdentity | null> {
    const { rows } = await this.pool.query<SsoIdentityRow>('DELETE FROM sso_identities WHERE id_hash = $1 RETURNING *', [idHash])
    return toLiveSsoIdentity(rows[0], now)
  }

  async rememberAssertion (assertionId: string, expiresAt: number, now: number): Promise<boolean> {
    // One statement: a new id is inserted, an expired one is taken over, a live one is a replay.
    const result = await this.pool.query(
      `INSERT INTO saml_assertions (assertion_id, expires_at) VALUES ($1, $2)
       ON CONFLICT (assertion_id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE saml_assertions.expires_at <= $3`,
      [assertionId, expiresAt, now])
    return result.rowCount === 1
  }

  async spendGoogleToken (tokenKey: string, expiresAt: number, now: number): Promise<boolean> {
    // One statement, as rememberAssertion: a concurrent insert of the same key waits for the first one's
    // row, then finds it live and changes nothing.
    const result = await this.pool.query(
      `INSERT INTO spent_google_tokens (token_key, expires_at) VALUES ($1, $2)
       ON CONFLICT (token_key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE spent_google_tokens.expires_at <= $3`,
      [tokenKey, expiresAt, now])
    return result.rowCount === 1
  }

  async passkeyUserHandle (accountId: string): Promise<string | null> {
    // COALESCE keeps a handle made before; one UPDATE (row-locked), so concurrent first calls agree.
    const { rows } = await this.pool.query<{ passkey_user_handle: string }>(
      'UPDATE accounts SET passkey_user_handle = COALESCE(passkey_user_handle, $1) WHERE id = $2 RETURNING passkey_user_handle',
      [randomBytes(16).toString('base64url'), accountId])
    return rows[0]?.passkey_user_handle ?? null
  }

  async insertPasskey (credential: PasskeyCredential, session?: { readonly familyId: string, readonly now: number }): Promise<boolean> {
    return await this.inTransaction(async (client) => {
      // As insertRefreshToken: a revocation of the registering session orders before or after this.
      await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR SHARE', [credential.accountId])
      const result = await client.query(
        `INSERT INTO passkeys (id, account_id, public_key, counter, transports, device_type, backed_up, name, created_at, last_used_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
         WHERE $11::text IS NULL OR EXISTS (SELECT 1 FROM refresh_tokens WHERE family_id = $11 AND revoked_at IS NULL AND expires_at > $12)
         ON CONFLICT (id) DO NOTHING`,
        [credential.id, credential.accountId, credential.publicKey, credential.counter, JSON.stringify(credential.transports),
          credential.deviceType, credential.backedUp, credential.name, credential.createdAt, credential.lastUsedAt,
          session?.familyId ?? null, session?.now ?? 0])
      return result.rowCount === 1
    })
  }

  async findPasskey (id: string): Promise<PasskeyCredential | null> {
    const { rows } = await this.pool.query<PasskeyRow>('SELECT * FROM passkeys WHERE id = $1', [id])
    return rows[0] === undefined ? null : toPasskey(rows[0])
  }

  async listPasskeys (accountId: string): Promise<readonly PasskeyCredential[]> {
    const { rows } = await this.pool.query<PasskeyRow>('SELECT * FROM passkeys WHERE account_id = $1 ORDER BY created_at, id', [accountId])
    return rows.map(toPasskey)
  }

  async recordPasskeyUse (id: string, use: PasskeyUse): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE passkeys SET counter = $1, backed_up = $2, device_type = $3, last_used_at = $4
       WHERE id = $5 AND ((counter = 0 AND $1 = 0) OR counter < $1)`,
      [use.counter, use.backedUp, use.deviceType, use.now, id])
    return result.rowCount === 1
  }

  async removePasskey (accountId: string, id: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM passkeys WHERE account_id = $1 AND id = $2', [accountId, id])
    return result.rowCount === 1
  }

  async renamePasskey (accountId: string, id: string, name: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE passkeys SET name = $1 WHERE account_id = $2 AND id = $3', [name, accountId, id])
    return result.rowCount === 1
  }

  async insertPasskeyChallenge (challenge: PasskeyChallenge): Promise<void> {
    await this.pool.query(
      'INSERT INTO passkey_challenges (binding_hash, purpose, account_id, challenge, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [challenge.bindingHash, challenge.purpose, challenge.accountId, challenge.challenge, challenge.expiresAt])
  }

  async takePasskeyChallenge (bindingHash: string, now: number): Promise<PasskeyChallenge | null> {
    const { rows } = await this.pool.query<PasskeyChallengeRow>('DELETE FROM passkey_challenges WHERE binding_hash = $1 RETURNING *', [bindingHash])
    return toLivePasskeyChallenge(rows[0], now)
  }

  async startSecondFactorEnrolment (accountId: string, encryptedSecret: string, pendingExpiresAt: number): Promise<boolean> {
    const result = await this.pool.query(
      `INSERT INTO second_factors (account_id, encrypted_secret, enrolled_at, pending_expires_at) VALUES ($1, $2, NULL, $3)
       ON CONFLICT (account_id) DO UPDATE SET encrypted_secret = EXCLUDED.encrypted_secret,
       pending_expires_at = EXCLUDED.pending_expires_at WHERE second_factors.enrolled_at IS NULL`,
      [accountId, encryptedSecret, pendingExpiresAt])
    return result.rowCount === 1
  }

  async findSecondFactor (accountId: string): Promise<SecondFactorRecord | null> {
    const { rows } = await this.pool.query<SecondFactorRow>('SELECT * FROM second_factors WHERE account_id = $1', [accountId])
    return toSecondFactor(rows[0])
  }

  async confirmSecondFactorEnrolment (accountId: string, step: number, recoveryCodeHashes: readonly string[], now: number): Promise<boolean> {
    return await this.inTransaction(async (client) => {
      const confirmed = await client.query(
        `UPDATE second_factors SET enrolled_at = $1, last_step = $2
         WHERE account_id = $3 AND enrolled_at IS NULL AND pending_expires_at > $1`, [now, step, accountId])
      if (confirmed.rowCount !== 1) return false
      await writeRecoveryCodes(client, accountId, recoveryCodeHashes)
      return true
    })
  }

  async replaceRecoveryCodes (accountId: string, recoveryCodeHashes: readonly string[]): Promise<boolean> {
    return await this.inTransaction(async (client) => {
      // Locks the row: a removal running alongside waits, and then finds no codes to orphan.
      const enrolled = await client.query('SELECT 1 FROM second_factors WHERE account_id = $1 AND enrolled_at IS NOT NULL FOR UPDATE', [accountId])
      if (enrolled.rowCount !== 1) return false
      await writeRecoveryCodes(client, accountId, recoveryCodeHashes)
      return true
    })
  }

  async acceptSecondFactorStep (accountId: string, step: number): Promise<boolean> {
    const result = await this.pool.query(
      'UPDATE second_factors SET last_step = $1 WHERE account_id = $2 AND enrolled_at IS NOT NULL AND last_step < $1', [step, accountId])
    return result.rowCount === 1
  }

  async useRecoveryCode (accountId: string, codeHash: string, now: number): Promise<boolean> {
    const result = await this.pool.query(
      'UPDATE recovery_codes SET used_at = $1 WHERE account_id = $2 AND code_hash = $3 AND used_at IS NULL', [now, accountId, codeHash])
    return result.rowCount === 1
  }

  async countUnusedRecoveryCodes (accountId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT COUNT(*) AS n FROM recovery_codes WHERE account_id = $1 AND used_at IS NULL', [accountId])
    return Number(rows[0]!.n)
  }

  async removeSecondFactor (accountId: string): Promise<boolean> {
    return await this.inTransaction(async (client) => {
      // In the claim's order (second_factors, then recovery_codes), so that the two cannot deadlock.
      const result = await client.query('DELETE FROM second_factors WHERE account_id = $1', [accountId])
      await client.query('DELETE FROM recovery_codes WHERE account_id = $1', [accountId])
      return result.rowCount === 1
    })
  }

  async insertSecondFactorChallenge (challenge: SecondFactorChallenge): Promise<void> {
    await this.pool.query(
      'INSERT INTO second_factor_challenges (challenge_hash, account_id, kind, context, method, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [challenge.challengeHash, challenge.accountId, challenge.kind, challenge.context, challenge.method, challenge.expiresAt])
  }

  async findSecondFactorChallenge (challengeHash: string, now: number): Promise<SecondFactorChallenge | null> {
    const { rows } = await this.pool.query<SecondFactorChallengeRow>(
      'SELECT * FROM second_factor_challenges WHERE challenge_hash = $1 AND expires_at > $2', [challengeHash, now])
    return toSecondFactorChallenge(rows[0])
  }

  async consumeSecondFactorChallenge (challengeHash: string, now: number): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM second_factor_challenges WHERE challenge_hash = $1 AND expires_at > $2', [challengeHash, now])
    return result.rowCount === 1
  }

  async setOrganizationRequiresSecondFactor (organization: string, required: boolean): Promise<void> {
    if (required) await this.pool.query('INSERT INTO second_factor_organizations (organization) VALUES ($1) ON CONFLICT DO NOTHING', [organization])
    else await this.pool.query('DELETE FROM second_factor_organizations WHERE organization = $1', [organization])
  }

  async listOrganizationsRequiringSecondFactor (): Promise<readonly string[]> {
    const { rows } = await this.pool.query<{ organization: string }>('SELECT organization FROM second_factor_organizations ORDER BY organization')
    return rows.map((row) => row.organization)
  }

  async secondFactorRequiredFor (accountId: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM memberships JOIN second_factor_organizations USING (organization)
       WHERE memberships.account_id = $1 LIMIT 1`, [accountId])
    return rows.length > 0
  }

  async forgetRememberedBrowsers (accountId: string, now: number): Promise<void> {
    await this.pool.query(
      'UPDATE accounts SET remembered_browsers_forgotten_at = GREATEST(remembered_browsers_forgotten_at, $1) WHERE id = $2', [now, accountId])
  }

  async rememberedBrowsersForgottenAt (accountId: string): Promise<number | null> {
    const { rows } = await this.pool.query<{ at: number }>('SELECT remembered_browsers_forgotten_at AS at FROM accounts WHERE id = $1', [accountId])
    return rows[0]?.at ?? null
  }

  async recordSecurityEvent (event: SecurityEvent): Promise<void> {
    await this.pool.query('INSERT INTO security_events (account_id, at, kind, method, user_agent, address_range) VALUES ($1, $2, $3, $4, $5, $6)',
      securityEventValues(event))
  }

  async listSecurityEvents (accountId: string, { since, kinds, limit }: { since: number, kinds: readonly string[], limit: number }): Promise<readonly SecurityEvent[]> {
    const { rows } = await this.pool.query<SecurityEventRow>(
      'SELECT * FROM security_events WHERE account_id = $1 AND at > $2 AND kind = ANY($3) ORDER BY at DESC, id DESC LIMIT $4', [accountId, since, kinds, limit])
    return rows.map(toSecurityEvent)
  }

  async countSecurityEvents (accountId: string, kind: string, since: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM security_events WHERE account_id = $1 AND kind = $2 AND at > $3', [accountId, kind, since])
    return rows[0]!.n
  }

  async deleteAccount (accountId: string): Promise<boolean> {
    // Every other table's rows of the account go with it (ON DELETE CASCADE).
    const { rowCount } = await this.pool.query('DELETE FROM accounts WHERE id = $1', [accountId])
    return rowCount === 1
  }

  async purgeExpired (now: number): Promise<void> {
    // Each table in a statement of its own: one transaction over them all would hold rows of
    // every table at once, against calls that lock them in another order.
    await this.pool.query('DELETE FROM second_factor_challenges WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM second_factors WHERE enrolled_at IS NULL AND pending_expires_at <= $1', [now])
    await this.pool.query('DELETE FROM passkey_challenges WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM fresh_proofs WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM spent_google_tokens WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM refresh_tokens WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM reset_tokens WHERE expires_at <= $1 AND created_at <= $2', [now, now - SPENT_ROW_MEMORY_MS])
    await this.pool.query('DELETE FROM sso_transactions WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM sso_identities WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM saml_assertions WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM oidc_payloads WHERE expires_at <= $1', [now])
    await this.pool.query('DELETE FROM login_throttles WHERE locked_until <= $1 AND updated_at <= $2', [now, now - SPENT_ROW_MEMORY_MS])
    await this.pool.query('DELETE FROM email_links WHERE expires_at <= $1 AND created_at <= $2', [now, now - SPENT_ROW_MEMORY_MS])
    await this.pool.query('DELETE FROM known_browsers WHERE last_seen_at <= $1', [now - BROWSER_MEMORY_MS])
    await this.pool.query('DELETE FROM notice_slots WHERE quiet_until <= $1', [now])
    await this.pool.query('DELETE FROM security_events WHERE at <= $1', [now - SECURITY_EVENT_MEMORY_MS])
    await this.pool.query('DELETE FROM email_codes WHERE expires_at <= $1 AND created_at <= $2', [now, now - EMAIL_CODE_MEMORY_MS])
    await this.pool.query('DELETE FROM email_code_failures WHERE failed_at <= $1', [now - EMAIL_CODE_MEMORY_MS])
  }

  async close (): Promise<void> {
    this.waiting?.abort()
    this.clock.stop()
    await this.connections.end()
  }
}
