import type { FastifyBaseLogger } from 'fastify'
import { join } from 'node:path'
import { AccountClaims } from './account-changes/account-claims.js'
import { AccountsService } from './sign-in/accounts-service.js'
import { BROWSER_COOKIE, BrowserCookies } from './known-browsers/browser-cookie.js'
import { BrowserNotices } from './known-browsers/browser-notices.js'
import { ChangeNotices } from './account-changes/change-notices.js'
import { RecentFactors } from './account-changes/recent-factors.js'
import { UndoChange } from './account-changes/undo-change.js'
import { BreachCheck } from './breached-passwords/breach-check.js'
import { commonPasswordList } from './passwords/common-passwords.js'
import { EmailVerification } from './registration/email-verification.js'
import { AccountOwners } from './account-changes/account-owner.js'
import { FreshProofs } from './account-changes/fresh-proofs.js'
import { Reauthentication } from './account-changes/reauthentication.js'
import { OtherSessions } from './sessions/other-sessions.js'
import { Passkeys } from './passkeys/passkeys.js'
import { REMEMBERED_BROWSER_PURPOSE, RememberedBrowserCookies } from './second-factor/remembered-browser-cookie.js'
import { RECOVERY_CODE_PURPOSE, RecoveryCodeHasher, SECOND_FACTOR_ENCRYPTION_PURPOSE, SecretBox } from './second-factor/second-factor-codes.js'
import { ENROLMENT_SECRET_PURPOSE, EnrolmentSecrets } from './second-factor/second-factor-enrolment-secrets.js'
import { SecondFactors } from './second-factor/second-factors.js'
import { OWASP_SCRYPT_COST, scryptParametersForCost } from './passwords/passwords.js'
import type { ReferenceConfig } from './config.js'
import { defaultHashGateOptions, HashGate } from './passwords/hash-gate.js'
import { createGoogleTokenVerifier } from './google/google-id-token.js'
import { countingMailer, createMailer } from './emails/mailer.js'
import { ReferenceMetrics } from './metrics/metrics.js'
import { KEY_RELOAD_INTERVAL_MS, SigningKeys } from './keys/signing-keys.js'
import { loadOrCreateDerivedSecrets } from './keys/derived-secrets.js'
import { EMAIL_PSEUDONYM_PURPOSE, EmailPseudonyms } from './audit/email-pseudonyms.js'
import type { SsoServices } from './sso/routes.js'
import { SsoCompletion } from './sso/sso-completion.js'
import { SsoFlows } from './sso/sso-flows.js'
import type { AccountStore } from './store/account-store.js'
import type { EmailKeyConflict } from './store/email-key.js'
import { PostgresAccountStore } from './store/postgres-store.js'
import { prepareDatabaseFile } from './store/private-files.js'
import { SqliteAccountStore } from './store/sqlite-store.js'
import { describeConnectionFailure, isConnectionFailure, oncePerBurst } from './store/store-unavailable.js'
import { clockOffsetWarning } from '../shared/shared-clock.js'
import { TokenService } from './sessions/tokens.js'

/** Expired rows are purged this often. */
export const PURGE_INTERVAL_MS = 60 * 60 * 1000

export interface ReferenceServices {
  readonly config: ReferenceConfig
  readonly store: AccountStore
  readonly tokens: TokenService
  readonly accounts: AccountsService
  readonly verification: EmailVerification
  readonly browserNotices: BrowserNotices
  /** "This wasn't me" under a change's email (docs/account-changes.md). */
  readonly undoChange: UndoChange
  /** What a completed reset lists, and its removal. */
  readonly recentFactors: RecentFactors
  /** The bound on concurrent password hashing, shared by every call that hashes. */
  readonly hashGate: HashGate
  readonly sso: SsoServices
  /** The passkey ceremonies; null when PASSKEYS is false. */
  readonly passkeys: Passkeys | null
  /** The second factor's calls; null when SECOND_FACTOR is false. */
  readonly secondFactors: SecondFactors | null
  /** Proving the account again before a change (docs/account-changes.md). */
  readonly reauthentication: Reauthentication
  /** The owner's "sign out of all other sessions" (docs/account-changes.md). */
  readonly otherSessions: OtherSessions
  /** The names of addresses in the audit log. */
  readonly pseudonyms: EmailPseudonyms
  /** The token signing keys, read again every KEY_RELOAD_INTERVAL_MS. */
  readonly signingKeys: SigningKeys
  /** This process's figures (server/reference/metrics/metrics.ts). */
  readonly metrics: ReferenceMetrics
  close (): Promise<void>
}

/** The SQLite file inside DATA_DIR. */
export function databaseFile (dataDir: string): string {
  return join(dataDir, 'accounts.sqlite')
}

/**
 * PostgreSQL when DATABASE_URL is set (several instances can share it), else
 * the embedded SQLite file in DATA_DIR (one instance). `waitForDatabase`: a
 * PostgreSQL that cannot be reached yet does not fail the opening; the store
 * keeps trying, and is not `reachable` until it succeeds (the service; the
 * admin command fails at once instead).
 */
export async function openAccountStore (
  config: ReferenceConfig,
  log: FastifyBaseLogger,
  options: { readonly waitForDatabase?: boolean } = {}
): Promise<AccountStore> {
  const logConflicts = (conflicts: readonly EmailKeyConflict[]): void => {
    for (const conflict of conflicts) {
      // Ids only: the addresses are personal data.
      log.warn({ accountId: conflict.id, keptBy: conflict.keptBy },
        'two accounts have addresses that read as one (look-alike characters or an internationalised domain): the account keptBy keeps the address, and this one can no longer sign in with it until an operator decides')
    }
  }
  if (config.databaseUrl === null) {
    prepareDatabaseFile(config.dataDir, databaseFile(config.dataDir), log)
    const store = new SqliteAccountStore(databaseFile(config.dataDir))
    logConflicts(store.emailKeyConflicts)
    return store
  }
  // A restart of PostgreSQL breaks every pooled connection at once: one line says so, not one per connection.
  const onIdleError = oncePerBurst((error: Error) => log.warn({ database: describeConnectionFailure(error) },
    'a PostgreSQL connection broke; calls fail as unavailable until new connections work'))
  const onAttemptFailed = oncePerBurst((error: Error) => {
    if (isConnectionFailure(error)) {
      log.warn({ database: describeConnectionFailure(error) }, 'PostgreSQL cannot be reached (DATABASE_URL): trying again; not ready meanwhile')
    } else {
      log.error({ err: error }, 'the accounts database cannot be migrated: trying again; not ready meanwhile')
    }
  })
  let waiting = false
  const store = await PostgresAccountStore.open({
    connectionString: config.databaseUrl,
    onIdleError,
    onClockSynced: clockOffsetWarning(log, 'the PostgreSQL server\'s (DATABASE_URL)'),
    ...(options.waitForDatabase === true
      ? {
          waitForDatabase: {
            onAttemptFailed: (error: Error) => { waiting = true; onAttemptFailed(error) },
            onOpened: (conflicts: readonly EmailKeyConflict[]) => {
              log.info('PostgreSQL reached and the schema migrated: accounts are stored in PostgreSQL (DATABASE_URL)')
              logConflicts(conflicts)
            }
          }
        }
      : {})
  })
  if (!waiting) {
    log.info('accounts are stored in PostgreSQL (DATABASE_URL)')
    logConflicts(store.emailKeyConflicts)
  }
  return store
}

export interface ReferenceServicesOptions {
  /** The clock every part reads (tests move it to expire things); by default the store's (AccountStore.now). */
  readonly now?: () => number
  /** Where the services count; by default figures of their own, without the process's. */
  readonly metrics?: ReferenceMetrics
}

/** Wires the reference accounts service from its configuration (the composition root). */
export async function createReferenceServices (
  config: ReferenceConfig,
  log: FastifyBaseLogger,
  options: ReferenceServicesOptions = {}
): Promise<ReferenceServices> {
  const store = await openAccountStore(config, log, { waitForDatabase: true })
  const signingKeys = await SigningKeys.open(config.dataDir)
  const secrets = await loadOrCreateDerivedSecrets(config.dataDir, signingKeys.newest.derivationSeed)
  const pseudonyms = new EmailPseudonyms(secrets.derive(EMAIL_PSEUDONYM_PURPOSE))
  // The database's clock, so that a lock or expiry one instance writes means the same to the others.
  const now = options.now ?? (() => store.now())
  const tokens = new TokenService(store, signingKeys, { issuer: `${config.publicUrl}/accounts`, audience: config.publicUrl }, now, config.sessions)
  const metrics = options.metrics ?? new ReferenceMetrics({ processFigures: false })
  const mailer = countingMailer(
    createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: join(config.dataDir, 'outbox') }),
    (kind, outcome) => metrics.email(kind, outcome)
  )
  const emailing = { store, mailer, publicUrl: config.publicUrl, productName: config.productName, now }
  const browserNotices = new BrowserNotices({ ...emailing, cookies: new BrowserCookies(secrets.derive(BROWSER_COOKIE)) })
  const verification = new EmailVerification({ ...emailing, browsers: browserNotices })
  const claims = new AccountClaims(emailing)
  const changeNotices = new ChangeNotices(emailing)
  const recentFactors = new RecentFactors({ store, now })
  const hashGate = new HashGate(defaultHashGateOptions(), () => metrics.gateRefused())
  const proofs = new FreshProofs(store, now)
  const owners = new AccountOwners({
    store, tokens, proofs, passkeysEnabled: config.passkeys !== null, secondFactorEnabled: config.secondFactor.enabled
  })
  const secondFactors = new SecondFactors({
    store,
    owners,
    changeNotices,
    settings: config.secondFactor,
    secrets: new SecretBox(secrets.derive(SECOND_FACTOR_ENCRYPTION_PURPOSE)),
    enrolmentSecrets: new EnrolmentSecrets(secrets.derive(ENROLMENT_SECRET_PURPOSE)),
    recoveryCodes: new RecoveryCodeHasher(secrets.derive(RECOVERY_CODE_PURPOSE)),
    rememberedBrowsers: new RememberedBrowserCookies(secrets.derive(REMEMBERED_BROWSER_PURPOSE)),
    productName: config.productName,
    // The accounts service is made just below; a login reaches this only after.
    completeLogin: async (account, context, method, facts, firstFactor) => await accounts.completeLogin(account, context, method, facts, firstFactor),
    metrics,
    now
  })
  const undoChange = new UndoChange({ store, publicUrl: config.publicUrl, now })
  const accounts: AccountsService = new AccountsService({
    ...emailing,
    tokens,
    verifyGoogleToken: createGoogleTokenVerifier({
      clientId: config.googleClientId, jwksUrl: config.googleJwksUrl, requireNonce: config.googleRequireNonce, store, now
    }),
    passwordParameters: scryptParametersForCost(config.passwordHashCost),
    requireVerifiedEmail: config.requireVerifiedEmail,
    verification,
    browserNotices,
    changeNotices,
    recentFactors,
    undoChange,
    claims,
    hashGate,
    metrics,
    passwordMinLength: config.passwordMinLength,
    breachCheck: config.breachedPasswords === null ? null : new BreachCheck({ settings: config.breachedPasswords, log, metrics }),
    secondFactor: config.secondFactor.enabled ? secondFactors : null,
    proofs
  })
  // Built now rather than at the first registration, which would wait for it.
  commonPasswordList()
  if (config.passwordHashCost < OWASP_SCRYPT_COST) {
    log.warn({ passwordHashCost: config.passwordHashCost },
      `PASSWORD_HASH_COST is below OWASP's recommendation (${OWASP_SCRYPT_COST}): new password hashes are weaker; use it only for tests`)
  }
  const sso: SsoServices = {
    flows: new SsoFlows({ store, connections: config.ssoConnections, publicUrl: config.publicUrl, now }),
    completion: new SsoCompletion({ store, accounts, claims, now })
  }
  const passkeys = config.passkeys === null
    ? null
    : new Passkeys({
      store, owners, proofs, accounts, browserNotices, changeNotices, settings: config.passkeys, productName: config.productName, metrics, now
    })
  const reauthentication = new Reauthentication({
    store, owners, proofs, accounts, secondFactors: config.secondFactor.enabled ? secondFactors : null, now
  })
  const otherSessions = new OtherSessions({ store, owners, now })
  const purge = setInterval(() => {
    store.purgeExpired(now()).catch((error: unknown) => log.error({ err: error }, 'purging expired rows failed'))
  }, PURGE_INTERVAL_MS)
  purge.unref()
  // A rotation (npm run accounts -- rotate-signing-key) is picked up without a restart.
  const keyReload = setInterval(() => {
    signingKeys.reload().catch((error: unknown) => log.error({ err: error }, 'reading DATA_DIR/keys again failed; the keys read before stay in use'))
  }, KEY_RELOAD_INTERVAL_MS)
  keyReload.unref()
  return {
    config,
    store,
    tokens,
    accounts,
    verification,
    browserNotices,
    undoChange,
    recentFactors,
    hashGate,
    sso,
    passkeys,
    secondFactors: config.secondFactor.enabled ? secondFactors : null,
    reauthentication,
    otherSessions,
    pseudonyms,
    signingKeys,
    metrics,
    async close () {
      clearInterval(purge)
      clearInterval(keyReload)
      await store.close()
    }
  }
}
