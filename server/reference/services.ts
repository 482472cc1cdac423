import type { FastifyBaseLogger } from 'fastify'
import { join } from 'node:path'
import { accountServices, type AccountServices } from './account/account-services.js'
import { AccountClaims } from './account-changes/account-claims.js'
import { AccountOwners } from './account-changes/account-owner.js'
import { AddressChange } from './account-changes/address-change.js'
import { ChangeNotices } from './account-changes/change-notices.js'
import { FreshProofs } from './account-changes/fresh-proofs.js'
import { PasswordChange } from './account-changes/password-change.js'
import { Reauthentication } from './account-changes/reauthentication.js'
import { RecentFactors } from './account-changes/recent-factors.js'
import { UndoChange } from './account-changes/undo-change.js'
import { EMAIL_PSEUDONYM_PURPOSE, EmailPseudonyms } from './audit/email-pseudonyms.js'
import { BreachCheck } from './breached-passwords/breach-check.js'
import { BreachNotices } from './breached-passwords/breach-notices.js'
import type { ReferenceConfig } from './config.js'
import { countingMailer, createMailer } from './emails/mailer.js'
import { createGoogleTokenVerifier } from './google/google-id-token.js'
import { GoogleRegistration } from './google/google-registration.js'
import { GoogleSignIn } from './google/google-sign-in.js'
import { loadOrCreateDerivedSecrets, type DerivedSecrets } from './keys/derived-secrets.js'
import { EMAIL_CODE_PURPOSE } from './email-codes/code-hashing.js'
import { EmailCodes } from './email-codes/email-codes.js'
import { KEY_RELOAD_INTERVAL_MS, SigningKeys } from './keys/signing-keys.js'
import { BROWSER_COOKIE, BrowserCookies } from './known-browsers/browser-cookie.js'
import { BrowserNotices } from './known-browsers/browser-notices.js'
import { ReferenceMetrics } from './metrics/metrics.js'
import { Passkeys } from './passkeys/passkeys.js'
import { ResetCompletion } from './password-reset/reset-completion.js'
import { ResetRequest } from './password-reset/reset-request.js'
import { commonPasswordList } from './passwords/common-passwords.js'
import { defaultHashGateOptions, HashGate, type HashGateOptions } from './passwords/hash-gate.js'
import { NewPasswords } from './passwords/new-passwords.js'
import { PasswordWork } from './passwords/password-work.js'
import { OWASP_SCRYPT_COST, scryptParametersForCost } from './passwords/passwords.js'
import { EmailVerification } from './registration/email-verification.js'
import { Registration } from './registration/registration.js'
import { REMEMBERED_BROWSER_PURPOSE, RememberedBrowserCookies } from './second-factor/remembered-browser-cookie.js'
import { RECOVERY_CODE_PURPOSE, RecoveryCodeHasher, SECOND_FACTOR_ENCRYPTION_PURPOSE, SecretBox } from './second-factor/second-factor-codes.js'
import { ENROLMENT_SECRET_PURPOSE, EnrolmentSecrets } from './second-factor/second-factor-enrolment-secrets.js'
import { SecondFactors, type SecondFactorsOptions } from './second-factor/second-factors.js'
import { EmbeddedProvider, OIDC_COOKIE_PURPOSE } from './oidc/embedded-provider.js'
import { Interactions } from './oidc/interactions.js'
import { oidcAdapterFactory } from './oidc/oidc-adapter.js'
import { openOidcClientRegistry } from './oidc/oidc-clients.js'
import { STEP_UP_PURPOSE, StepUpCookies } from './oidc/step-up-cookie.js'
import { OtherSessions } from './sessions/other-sessions.js'
import { SessionTokens } from './sessions/session-tokens.js'
import { TokenService } from './sessions/tokens.js'
import { AfterFirstFactor } from './sign-in/after-first-factor.js'
import { LoginAttempts } from './sign-in/login-attempts.js'
import { PasswordSignIn } from './sign-in/password-sign-in.js'
import { socialClients } from './social/providers/social-clients.js'
import type { SocialServices } from './social/routes.js'
import { SocialAccount } from './social/social-account.js'
import { SocialCompletion } from './social/social-completion.js'
import { SocialFlows, socialReturnUrls } from './social/social-flows.js'
import type { SsoServices } from './sso/routes.js'
import { SsoCompletion } from './sso/sso-completion.js'
import { SsoFlows } from './sso/sso-flows.js'
import { SsoRequirement } from './sso/sso-requirement.js'
import type { AccountStore } from './store/account-store.js'
import { openAccountStore } from './store/open-store.js'

/** Expired rows are purged this often. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000

export interface ReferenceServices {
  readonly config: ReferenceConfig
  readonly store: AccountStore
  readonly tokens: TokenService
  /** `v2/login` (and local-network mode's `/authenticate`). */
  readonly passwordSignIn: PasswordSignIn
  readonly registration: Registration
  readonly resetRequest: ResetRequest
  readonly resetCompletion: ResetCompletion
  readonly googleSignIn: GoogleSignIn
  readonly googleRegistration: GoogleRegistration
  /** Token refresh and revocation. */
  readonly sessionTokens: SessionTokens
  readonly verification: EmailVerification
  readonly browserNotices: BrowserNotices
  /** "This wasn't me" under a change's email (docs/account-changes.md). */
  readonly undoChange: UndoChange
  /** What a completed reset lists, and its removal. */
  readonly recentFactors: RecentFactors
  /** The bound on concurrent password hashing, shared by every call that hashes. */
  readonly hashGate: HashGate
  readonly sso: SsoServices
  /** Social connections (SOCIAL_CONNECTIONS, docs/social-sign-in.md): their legs, the completion, the account view's calls. */
  readonly social: SocialServices
  /** The passkey ceremonies; null when PASSKEYS is false. */
  readonly passkeys: Passkeys | null
  /** The second factor's calls; null when SECOND_FACTOR is false. */
  readonly secondFactors: SecondFactors | null
  /** Sign-in, sign-up and fresh proofs with emailed codes; null when EMAIL_CODES is false. */
  readonly emailCodes: EmailCodes | null
  /** Proving the account again before a change (docs/account-changes.md). */
  readonly reauthentication: Reauthentication
  /** The owner's "sign out of all other sessions" (docs/account-changes.md). */
  readonly otherSessions: OtherSessions
  /** The signed-in owner's new password (docs/account-changes.md). */
  readonly passwordChange: PasswordChange
  /** The signed-in owner's new address, and its emailed link (docs/account-changes.md). */
  readonly addressChange: AddressChange
  /** The account view's calls and the security events its activity lists (docs/account-changes.md). */
  readonly account: AccountServices
  /** The names of addresses in the audit log. */
  readonly pseudonyms: EmailPseudonyms
  /** The token signing keys, read again every KEY_RELOAD_INTERVAL_MS. */
  readonly signingKeys: SigningKeys
  /** This process's figures (server/reference/metrics/metrics.ts). */
  readonly metrics: ReferenceMetrics
  /** The OpenID Connect provider and its interactions (docs/oidc-provider.md); its paths answer 404 while no client is configured. */
  readonly oidc: { readonly provider: EmbeddedProvider, readonly interactions: Interactions }
  close (): Promise<void>
}

export interface ReferenceServicesOptions {
  /** The clock every part reads (tests move it to expire things); by default the store's (AccountStore.now). */
  readonly now?: () => number
  /** Where the services count; by default figures of their own, without the process's. */
  readonly metrics?: ReferenceMetrics
  /** The hash gate's sizes; by default the machine's (hash-gate.ts: defaultHashGateOptions). */
  readonly hashGate?: HashGateOptions
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
  // The domains that sign in only with single sign-on: every other way in asks it first.
  const ssoRequirement = new SsoRequirement(config.ssoConnections)
  const browserNotices = new BrowserNotices({ ...emailing, cookies: new BrowserCookies(secrets.derive(BROWSER_COOKIE)) })
  const verification = new EmailVerification({ ...emailing, browsers: browserNotices })
  const claims = new AccountClaims(emailing)
  const changeNotices = new ChangeNotices(emailing)
  const recentFactors = new RecentFactors({ store, now })
  const hashGate = new HashGate(options.hashGate ?? { ...defaultHashGateOptions(), answerWithinMs: config.upstreamTimeoutMs }, () => metrics.gateRefused())
  const proofs = new FreshProofs(store, now)
  const owners = new AccountOwners({
    store, tokens, proofs, passkeysEnabled: config.passkeys !== null, secondFactorEnabled: config.secondFactor.enabled
  })
  // The mark an OpenID Connect client's acr_values leave for the page's next sign-in (docs/oidc-provider.md#acr-values).
  const stepUp = new StepUpCookies(secrets.derive(STEP_UP_PURPOSE), config.publicUrl.startsWith('https:'))
  const secondFactor = config.secondFactor.enabled
    ? secondFactors(config, secrets, {
      stepUp,
      store,
      owners,
      changeNotices,
      // The code step ends a sign-in as every flow does; `after` is made just below, and a login reaches this only after.
      completeLogin: async (account, context, method, facts, firstFactor) => await after.completeLogin(account, context, method, facts, firstFactor),
      metrics,
      now
    })
    : null
  const after: AfterFirstFactor = new AfterFirstFactor({
    store, tokens, requireVerifiedEmail: config.requireVerifiedEmail, secondFactor: secondFactor?.gate ?? null, proofs, browserNotices, now
  })
  const undoChange = new UndoChange({ store, publicUrl: config.publicUrl, now })
  const work = new PasswordWork({ hashGate, metrics, parameters: scryptParametersForCost(config.passwordHashCost) })
  const breachCheck = config.breachedPasswords === null ? null : new BreachCheck({ settings: config.breachedPasswords, log, metrics })
  const newPasswords = new NewPasswords({ work, breachCheck, minLength: config.passwordMinLength, productName: config.productName })
  const verifyGoogleToken = createGoogleTokenVerifier({
    clientId: config.googleClientId, jwksUrl: config.googleJwksUrl, requireNonce: config.googleRequireNonce, store, now
  })
  const sessionTokens = new SessionTokens({ tokens, secondFactors: config.secondFactor.enabled })
  // Built now rather than at the first registration, which would wait for it.
  commonPasswordList()
  if (config.passwordHashCost < OWASP_SCRYPT_COST) {
    log.warn({ passwordHashCost: config.passwordHashCost },
      `PASSWORD_HASH_COST is below OWASP's recommendation (${OWASP_SCRYPT_COST}): new password hashes are weaker; use it only for tests`)
  }
  const sso: SsoServices = {
    flows: new SsoFlows({ store, connections: config.ssoConnections, publicUrl: config.publicUrl, now }),
    completion: new SsoCompletion({ store, after, claims, now }),
    requirement: ssoRequirement,
    discovery: config.ssoDiscovery
  }
  const socialFlows = new SocialFlows({
    store,
    connections: config.socialConnections,
    clients: socialClients(config.socialConnections, (id) => socialReturnUrls(config.publicUrl, id), now),
    publicUrl: config.publicUrl,
    now
  })
  const social: SocialServices = {
    flows: socialFlows,
    completion: new SocialCompletion({
      store, flows: socialFlows, after, claims, now, refuseAddress: (email, facts) => ssoRequirement.refusalFor(email, 'social', facts)
    }),
    account: new SocialAccount({
      store, owners, flows: socialFlows, changeNotices, passkeys: config.passkeys !== null, google: config.googleClientId !== null, emailCodes: config.emailCodes.enabled, now
    })
  }
  const passkeys = config.passkeys === null
    ? null
    : new Passkeys({
      store, owners, proofs, after, sessionTokens, changeNotices, settings: config.passkeys, productName: config.productName, metrics, now
    })
  const emailCodes = config.emailCodes.enabled ? new EmailCodes({ ...emailing, key: secrets.derive(EMAIL_CODE_PURPOSE), owners, claims, after, ssoRequirement }) : null
  const reauthentication = new Reauthentication({
    store, owners, proofs, passwords: work, secondFactorCodes: secondFactor?.codes ?? null, emailCodes: emailCodes?.reauthentication ?? null, now
  })
  const otherSessions = new OtherSessions({ store, owners, now })
  const account = accountServices({
    store, owners, mailer, productName: config.productName, passkeys: config.passkeys !== null, secondFactor: config.secondFactor.enabled, social: social.account, now
  })
  const oidcClients = await openOidcClientRegistry(config.oidcClients, store.oidcClients)
  const oidc = {
    provider: new EmbeddedProvider({
      issuer: config.publicUrl,
      clients: oidcClients,
      adapter: oidcAdapterFactory(store, { reuseGraceSeconds: config.sessions.reuseGraceSeconds, now }),
      store,
      tokens,
      cookieKey: secrets.derive(OIDC_COOKIE_PURPOSE),
      sessions: config.sessions,
      signingKeys,
      log,
      now
    }),
    interactions: new Interactions({ store, tokens, clients: oidcClients, stepUp, now })
  }
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
    passwordSignIn: new PasswordSignIn({
      store, tokens, work, attempts: new LoginAttempts({ store, metrics, now }), browserNotices, breachCheck, breachNotices: new BreachNotices(emailing), after,
      ssoRequirement
    }),
    registration: new Registration({ ...emailing, work, newPasswords, requireVerifiedEmail: config.requireVerifiedEmail, verification, browserNotices, ssoRequirement }),
    resetRequest: new ResetRequest(emailing),
    resetCompletion: new ResetCompletion({ store, newPasswords, claims, proofs, browserNotices, undoChange, changeNotices, recentFactors, now }),
    googleSignIn: new GoogleSignIn({ store, verifyGoogleToken, claims, after, ssoRequirement }),
    googleRegistration: new GoogleRegistration({ store, verifyGoogleToken, claims, now, ssoRequirement }),
    sessionTokens,
    verification,
    browserNotices,
    undoChange,
    recentFactors,
    hashGate,
    sso,
    social,
    passkeys,
    secondFactors: secondFactor,
    emailCodes,
    reauthentication,
    otherSessions,
    passwordChange: new PasswordChange({ store, owners, newPasswords, changeNotices, now }),
    addressChange: new AddressChange({ ...emailing, owners, changeNotices, browsers: browserNotices }),
    account,
    pseudonyms,
    signingKeys,
    metrics,
    oidc,
    async close () {
      clearInterval(purge)
      clearInterval(keyReload)
      await store.close()
    }
  }
}

/** The second factor's calls, from the secrets derived for it. */
function secondFactors (
  config: ReferenceConfig,
  secrets: DerivedSecrets,
  parts: Pick<SecondFactorsOptions, 'store' | 'owners' | 'changeNotices' | 'completeLogin' | 'metrics' | 'now' | 'stepUp'>
): SecondFactors {
  return new SecondFactors({
    ...parts,
    settings: config.secondFactor,
    secrets: new SecretBox(secrets.derive(SECOND_FACTOR_ENCRYPTION_PURPOSE)),
    enrolmentSecrets: new EnrolmentSecrets(secrets.derive(ENROLMENT_SECRET_PURPOSE)),
    recoveryCodes: new RecoveryCodeHasher(secrets.derive(RECOVERY_CODE_PURPOSE)),
    rememberedBrowsers: new RememberedBrowserCookies(secrets.derive(REMEMBERED_BROWSER_PURPOSE)),
    productName: config.productName
  })
}
