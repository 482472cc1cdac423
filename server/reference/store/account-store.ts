/**
 * What the reference accounts service needs from storage. SQLite is the
 * embedded default; any store that keeps these promises can replace it.
 * Every method that must be atomic says so.
 */

import type { OidcClient } from '../oidc/oidc-clients.js'
import type { EmailKeyConflict } from './email-key.js'

/** A browser not seen for this long is forgotten (the cookie that names it lives as long: Chrome's cap). */
export const BROWSER_MEMORY_MS = 400 * 24 * 3600_000

/**
 * Expired reset tokens and emailed links, and idle login throttles, are kept
 * this long before purging: the counts of emails sent to an account read them.
 */
export const SPENT_ROW_MEMORY_MS = 24 * 3600_000

/** Emailed codes and their refused tries are kept this long: the bounds on sends and tries count an hour of them. */
export const EMAIL_CODE_MEMORY_MS = 3600_000

/** Security events are kept this long: `activity/list` shows the last 30 days, and a remembered browser is counted as long as it is spared codes. */
export const SECURITY_EVENT_MEMORY_MS = 30 * 24 * 3600_000

/** How many sessions a revocation ended: the refresh families among the tokens it revoked (a session has a token per refresh). */
export function sessionCount (revoked: ReadonlyArray<{ readonly family_id: string }>): number {
  return new Set(revoked.map((row) => row.family_id)).size
}

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

/** A refresh token presented for rotation, and the successor to store for it (AccountStore.rotateRefreshToken). */
export interface RefreshRotation {
  /** The hash of the token presented. */
  readonly tokenHash: string
  /** The successor: stored in the presented token's account and family. */
  readonly successor: Pick<RefreshTokenRecord, 'tokenHash' | 'expiresAt' | 'context'>
  readonly now: number
  /** How long after its first use the token still gets a successor (REFRESH_REUSE_GRACE_SECONDS), in milliseconds. */
  readonly reuseGraceMs: number
}

/**
 * What a rotation did. `rotated`: the successor is stored, and the token was
 * spent by this call (`first-use`) or by one less than the grace before
 * (`within-grace`). `refused`: nothing stored; `revoked` also when another
 * token of its family is; `reused`: spent longer than the grace before, and
 * its family is now revoked.
 */
export type RefreshRotationResult =
  | { readonly rotated: 'first-use' | 'within-grace' }
  | { readonly refused: 'unknown' | 'revoked' | 'expired' | 'reused' }

export interface SsoTransaction {
  readonly id: string
  /** The hash of the browser binding held in the state cookie. */
  readonly bindingHash: string
  /** The SSO connection's domain; a social connection's id (protocol `social`). */
  readonly connectionDomain: string
  /** `social`: a social sign-in's steps (server/reference/social/social-flows.ts), which share the table. */
  readonly protocol: 'oidc' | 'saml' | 'social'
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

/**
 * What a link emailed to an account's owner does when opened (`change-email`:
 * it confirms the new address its subject names, server/reference/account-changes/address-change.ts); and
 * `review-factors`, the token a completed reset hands the page to remove
 * what was added recently (server/reference/account-changes/recent-factors.ts), kept alike.
 */
export type EmailLinkPurpose = 'verify-email' | 'end-sessions' | 'undo-change' | 'review-factors' | 'change-email'

export interface EmailLink {
  /** The hash of the token in the link; the token itself is only in the email. */
  readonly tokenHash: string
  readonly accountId: string
  readonly purpose: EmailLinkPurpose
  readonly expiresAt: number
  /** What the link is about, where its purpose needs more than the account (the change to undo); absent: nothing. */
  readonly subject?: string | null
}

/** A live link as opened: its account, its subject, and when it was made. */
export interface OpenedEmailLink {
  readonly accountId: string
  readonly subject: string | null
  readonly createdAt: number
}

/**
 * Emails that tell an owner about something (not links they asked for): at
 * most one of a kind per account within an interval, however many requests
 * race for it.
 */
export type NoticeKind = 'new-browser' | 'register-attempt' | 'verification-resent' | 'password-breached' | 'address-taken'

/** What a sign-in from a browser means for the account: its very first browser, a new one, or one seen before. */
export type BrowserSighting = 'first' | 'new' | 'known'

export interface AccountClaim {
  readonly now: number
  /** The Google subject to tie to the account (a Google sign-in), or null (SSO). */
  readonly googleSubject: string | null
}

/** A passkey (WebAuthn discoverable credential) registered to an account. */
export interface PasskeyCredential {
  /** The credential id, base64url. */
  readonly id: string
  readonly accountId: string
  /** The COSE public key, base64url. */
  readonly publicKey: string
  /** The signature counter last seen (0 for authenticators that keep none). */
  readonly counter: number
  /** The transports the browser reported at registration ('internal', 'hybrid', …). */
  readonly transports: readonly string[]
  readonly deviceType: 'singleDevice' | 'multiDevice'
  readonly backedUp: boolean
  /** A name the owner sees in the admin listing (the browser's description at registration), or null. */
  readonly name: string | null
  readonly createdAt: number
  readonly lastUsedAt: number | null
}

/**
 * What a passkey challenge was issued for: a sign-in, a registration, the
 * registration without user presence, or a proof before a change.
 */
export type PasskeyChallengePurpose = 'login' | 'register' | 'register-conditional' | 'reauthenticate'

export interface PasskeyChallenge {
  /** The hash of the binding held in the browser's passkey_challenge cookie. */
  readonly bindingHash: string
  readonly purpose: PasskeyChallengePurpose
  /** The account a registration is for; null for a sign-in. */
  readonly accountId: string | null
  /** The challenge, base64url, as sent in the options. */
  readonly challenge: string
  readonly expiresAt: number
}

/** What a passkey sign-in changes on its credential. */
export interface PasskeyUse {
  readonly counter: number
  readonly backedUp: boolean
  readonly deviceType: 'singleDevice' | 'multiDevice'
  readonly now: number
}

/** What a second-factor challenge lets its holder do next: give a code, or enrol first. */
export type SecondFactorChallengeKind = 'code' | 'enrol'

/** A login whose first factor was right, waiting for its second (docs/second-factor.md). */
export interface SecondFactorChallenge {
  /** The hash of the opaque challenge the page holds. */
  readonly challengeHash: string
  readonly accountId: string
  readonly kind: SecondFactorChallengeKind
  /** JSON of the login's context fields, carried into the tokens. */
  readonly context: string
  /** The first factor's authentication method ('pwd', 'google'). */
  readonly method: string
  readonly expiresAt: number
}

/** An account's authenticator secret: pending until its first code confirms it. */
export interface SecondFactorRecord {
  readonly accountId: string
  /** The TOTP secret, encrypted (SecretBox, server/reference/second-factor/second-factor-codes.ts). */
  readonly encryptedSecret: string
  /** When it was confirmed; null while pending. */
  readonly enrolledAt: number | null
  /** Until when a pending secret may be confirmed. */
  readonly pendingExpiresAt: number
  /** The last TOTP time step accepted; a code of this step or an earlier one is refused. */
  readonly lastStep: number
}

/**
 * How an owner proved the account in a browser (docs/account-changes.md): RFC 8176 values, as in the tokens' `amr`;
 * `email` a code emailed to the account's address (server/reference/email-codes/).
 */
export type ProofMethod = 'pwd' | 'hwk' | 'otp' | 'google' | 'sso' | 'social' | 'email'

/**
 * A proof of an account made in one browser: held there as the hash of the
 * binding in its HttpOnly proof cookie, good until `expiresAt`.
 */
export interface FreshProof {
  readonly bindingHash: string
  readonly accountId: string
  /** The session (refresh family) it was made in: it proves nothing for another. */
  readonly sessionId: string
  readonly method: ProofMethod
  /** Whether the proof was the sign-in itself (a prompt-less passkey registration may use only such a proof, once). */
  readonly atSignIn: boolean
  readonly provenAt: number
  readonly expiresAt: number
  /** Whether a prompt-less passkey registration has spent it. */
  readonly upgradeSpent: boolean
}

/** One live session of an account, as its refresh tokens keep it (AccountStore.listSessions). */
export interface SessionRecord {
  /** The refresh family: the token's `sid`. */
  readonly familyId: string
  /** The context of its newest refresh token (JSON, as RefreshTokenRecord.context keeps it). */
  readonly context: string
  /** When one of its refresh tokens was last exchanged for a new one; null while none was. */
  readonly lastRefreshedAt: number | null
}

/**
 * Something done with an account that its owner sees in `activity/list`
 * (docs/account-changes.md): a sign-in, a failed one, a change of a way in.
 * Where it came from is kept only as the owner is shown it: the browser's
 * User-Agent and the address's range, never the address.
 */
export interface SecurityEvent {
  readonly accountId: string
  readonly at: number
  /** An AccountEventKind (common/account/account-state.ts), or `browser-remembered`, which the overview counts. */
  readonly kind: string
  /** The first factor of a sign-in (`password`, `passkey`, `google`, `sso`); null for a change. */
  readonly method: string | null
  /** The request's User-Agent, cut short; null where it had none. */
  readonly userAgent: string | null
  /** The /24 or /48 the request came from (server/shared/address-range.ts); empty where unknown. */
  readonly addressRange: string
}

/** What an emailed code is for: a sign-in (or sign-up), or a signed-in owner's fresh proof. */
export type EmailCodePurpose = 'sign-in' | 'reauthenticate'

/**
 * A code emailed to an address (server/reference/email-codes/). Nothing in it
 * reads back as the address or the code: the address is kept as an HMAC of its
 * email key, the code as an HMAC under that, the browser's binding as a hash.
 */
export interface EmailCode {
  readonly id: string
  readonly addressHash: string
  readonly codeHash: string
  /** The hash of the binding in the email_code_browser cookie of the browser that asked. */
  readonly bindingHash: string
  readonly purpose: EmailCodePurpose
  /** The signed-in account a `reauthenticate` code proves; null for a sign-in's. */
  readonly accountId: string | null
  /** An HMAC of the address range the request came from (server/shared/address-range.ts): the range's sends are counted by it. */
  readonly rangeHash: string
  readonly createdAt: number
  readonly expiresAt: number
}

/** A code as kept: with its wrong tries. */
export interface EmailCodeRecord extends EmailCode {
  /** Tries counted against it (EmailCodeStore.countTry). */
  readonly tries: number
}

/** How many codes may be sent within a window, per address and per range. */
export interface EmailCodeSendLimits {
  readonly windowMs: number
  readonly perAddress: number
  readonly perRange: number
}

/** What EmailCodeStore.issue did: stored the code, or refused it with the time a send is allowed again. */
type EmailCodeIssue = { readonly issued: true } | { readonly refused: 'address' | 'range', readonly retryAt: number }

/** The codes emailed to addresses, and the wrong tries counted against them (server/reference/email-codes/). */
export interface EmailCodeStore {
  /**
   * Stores the code unless the address or the range has had `limits` codes
   * within the window; voids the live codes of the same address and purpose
   * bound to `replaces` (the hash of the binding the browser held before this
   * send, which a new code replaces: each send binds anew). Atomic: sends
   * racing for the last place take it once.
   */
  issue (code: EmailCode, limits: EmailCodeSendLimits, now: number, replaces: string | null): Promise<EmailCodeIssue>
  /** The address's codes of `purpose` neither used, voided nor expired at `now`, newest first. */
  findLive (addressHash: string, purpose: EmailCodePurpose, now: number): Promise<readonly EmailCodeRecord[]>
  /** Counts one try against the code if it is live and has had fewer than `maxTries`: false (nothing counted) otherwise. Atomic. */
  countTry (id: string, maxTries: number, now: number): Promise<boolean>
  /** Spends the code (single use): false when it was used, voided or expired. Atomic. */
  use (id: string, now: number): Promise<boolean>
  /** Voids the code. */
  voidCode (id: string, now: number): Promise<void>
  /** Voids every live code of the address (any purpose): how many. */
  voidAddress (addressHash: string, now: number): Promise<number>
  /** Records a refused try of a code for the address at `now`. */
  recordFailure (addressHash: string, now: number): Promise<void>
  /** The address's refused tries later than `since`, newest first (their times). */
  failuresSince (addressHash: string, since: number): Promise<readonly number[]>
}

/** An account's link to one social provider's identity (server/reference/social/, docs/social-sign-in.md). */
export interface SocialLink {
  /** The connection's id (SOCIAL_CONNECTIONS). */
  readonly provider: string
  /** The provider's stable identifier of the user (OIDC `sub`, GitHub's numeric id). */
  readonly subject: string
  readonly accountId: string
  /** The verified address the provider named when it was linked. */
  readonly email: string
  readonly linkedAt: number
}

/** What SocialLinkStore.link did: linked, or refused because the identity or the account's place for the provider is taken. */
type SocialLinkResult = 'linked' | 'identity-taken' | 'provider-taken'

/** The accounts' linked social identities: one per (provider, subject), one per (account, provider). */
export interface SocialLinkStore {
  /** Links the identity to the account unless either unique pair is taken. Atomic. */
  link (link: SocialLink): Promise<SocialLinkResult>
  /** The link of the provider's identity, whichever account holds it. */
  find (provider: string, subject: string): Promise<SocialLink | null>
  /** The account's links, oldest first. */
  list (accountId: string): Promise<readonly SocialLink[]>
  /** Removes the account's link to `provider`; false when it had none. */
  unlink (accountId: string, provider: string): Promise<boolean>
}

/** The OpenID Connect clients an operator added with `npm run accounts -- client add` (server/reference/oidc/oidc-clients.ts). */
export interface OidcClientStore {
  /** Keeps a new client; false (nothing changed) when its id is taken. */
  add (client: OidcClient): Promise<boolean>
  /** Every client, by id. */
  list (): Promise<readonly OidcClient[]>
  /** Whether any client was added: asked on each of the provider's requests, so one row is read, not every client. */
  any (): Promise<boolean>
  /**
   * Removes the client and everything the provider keeps for it (its grants,
   * codes, tokens, interactions): false when there is no such client. Atomic.
   */
  remove (clientId: string): Promise<boolean>
  find (clientId: string): Promise<OidcClient | null>
}

/**
 * One thing the OpenID Connect provider keeps (server/reference/oidc/oidc-adapter.ts):
 * a session, a grant, an interaction, a code, a token… of one of its models.
 */
export interface OidcPayloadRecord {
  /** The provider's model: `Session`, `Grant`, `AuthorizationCode`, `RefreshToken`… */
  readonly model: string
  readonly id: string
  /** The provider's payload, as JSON (without its `consumed` mark: `consumedAt` holds it). */
  readonly payload: string
  /** The grant a code or token belongs to (revoked together); null for others. */
  readonly grantId: string | null
  /** A session's uid; null for others. */
  readonly uid: string | null
  /** A device flow's user code; null for others. */
  readonly userCode: string | null
  /** The client it is for, where it is one client's: removing the client removes it. */
  readonly clientId: string | null
  /** Epoch milliseconds after which it is gone; null: kept until destroyed. */
  readonly expiresAt: number | null
  /** When it was first consumed (a code exchanged, a refresh token rotated); null while not. */
  readonly consumedAt: number | null
}

/** The provider's storage: every find treats a row expired at `now` as absent, and purgeExpired deletes it. */
export interface OidcPayloadStore {
  /** Stores the payload, replacing one of the same model and id (its first consumption is kept). */
  upsert (record: Omit<OidcPayloadRecord, 'consumedAt'>): Promise<void>
  find (model: string, id: string, now: number): Promise<OidcPayloadRecord | null>
  findByUid (model: string, uid: string, now: number): Promise<OidcPayloadRecord | null>
  findByUserCode (model: string, userCode: string, now: number): Promise<OidcPayloadRecord | null>
  /** Marks it consumed at `now`, unless it was before (the first time stays). */
  consume (model: string, id: string, now: number): Promise<void>
  destroy (model: string, id: string): Promise<void>
  /** Deletes every code and token of the grant. */
  revokeByGrantId (grantId: string): Promise<void>
}

export type CreateAccountResult = { readonly created: Account } | { readonly conflict: 'email' | 'google-subject' }

/** What an address change did: `taken` when another account has the address (case-insensitively), `unknown` when there is no such account. */
export type EmailChangeResult = 'changed' | 'taken' | 'unknown'

export interface AccountStore {
  /**
   * Accounts the migration to the current email keys (email-key.ts)
   * found reading as another account's address: left for an operator.
   */
  readonly emailKeyConflicts: readonly EmailKeyConflict[]
  /** Creates the account unless its email (case-insensitively) or Google subject is taken; atomic. */
  createAccount (account: NewAccount): Promise<CreateAccountResult>
  findAccountByEmail (email: string): Promise<Account | null>
  findAccountById (id: string): Promise<Account | null>
  findAccountByGoogleSubject (subject: string): Promise<Account | null>
  updatePasswordHash (accountId: string, passwordHash: string): Promise<void>
  /** Records that the address was shown to be the holder's; an earlier time stays. */
  markEmailVerified (accountId: string, now: number): Promise<void>
  /**
   * Moves the account to `email`, verified at `now` (an emailed link has just
   * proved it), unless another account has it; voids every unused reset
   * token and emailed link of the account, which went to the old address.
   * Atomic.
   */
  changeAccountEmail (accountId: string, email: string, now: number): Promise<EmailChangeResult>
  /**
   * Hands an account whose address was never verified to the person who has
   * just proved it (through Google, SSO or an emailed link): removes the
   * password set before, every passkey, the second factor with its recovery
   * codes, the linked social identities, the browsers known or remembered; revokes every refresh token,
   * voids every emailed link (reset and others), marks the address verified
   * and ties `googleSubject` when given.
   * Returns false and changes nothing when the address is verified already.
   * Atomic.
   */
  claimUnverifiedAccount (accountId: string, claim: AccountClaim): Promise<boolean>

  addMembership (accountId: string, organization: string): Promise<void>
  removeMembership (accountId: string, organization: string): Promise<void>
  listMemberships (accountId: string): Promise<readonly string[]>

  readLoginThrottle (key: string): Promise<LoginThrottle>
  /** Adds a failure and sets the lock the policy computes from the new count; atomic. */
  recordLoginFailure (key: string, lockFor: (failures: number) => number, now: number): Promise<LoginThrottle>
  clearLoginFailures (key: string): Promise<void>

  /**
   * Stores a refresh token, unless its family has a revoked token already: a
   * rotation that ran beside a revocation (a reset, a claim, a logout) never
   * stores a successor that outlives it. False when refused. Atomic with the
   * revocations: one of them orders before the other.
   */
  insertRefreshToken (record: Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>): Promise<boolean>
  findRefreshToken (tokenHash: string): Promise<RefreshTokenRecord | null>
  /**
   * Exchanges a refresh token for its successor in one transaction: the token
   * is spent (at `now`, if unused) and the successor stored, or neither is
   * (RefreshRotationResult says which refusal). Of concurrent calls with one
   * unused token, exactly one is `first-use`; the others, within the grace,
   * each store their own successor in the family. A reuse after the grace
   * revokes the family in the same transaction. Atomic with the revocations,
   * as insertRefreshToken is.
   */
  rotateRefreshToken (rotation: RefreshRotation): Promise<RefreshRotationResult>
  revokeRefreshFamily (familyId: string, now: number): Promise<void>
  revokeAccountRefreshTokens (accountId: string, now: number): Promise<void>
  /**
   * Revokes the live refresh tokens of the account's sessions that a sign-in
   * with the passkey `credentialId` started (the `passkeyId` of their login's
   * context, which server/reference/sessions/tokens.ts keeps): how many sessions ended.
   */
  revokeSessionsSignedInWith (accountId: string, credentialId: string, now: number): Promise<number>
  /** Revokes the live refresh tokens of every session of the account but `keptFamilyId` (the caller's): how many sessions ended. */
  revokeOtherSessions (accountId: string, keptFamilyId: string, now: number): Promise<number>
  /** Whether the family has a token neither revoked nor expired at `now` (its session lives). */
  isRefreshFamilyLive (familyId: string, now: number): Promise<boolean>
  /** The account's live sessions at `now` (families with a token neither revoked nor expired), in no order. */
  listSessions (accountId: string, now: number): Promise<readonly SessionRecord[]>
  /**
   * Revokes every refresh token of the session `familyId` if it is one of
   * the account's live sessions at `now`: false, and nothing changed, when it
   * is not (another account's included). Atomic with the revocations.
   */
  endSession (accountId: string, familyId: string, now: number): Promise<boolean>

  /** Keeps a proof, replacing the browser's earlier one (same binding hash). */
  insertFreshProof (proof: Omit<FreshProof, 'upgradeSpent'>): Promise<void>
  /** The browser's proof if it exists and has not expired (reads only). */
  findFreshProof (bindingHash: string, now: number): Promise<FreshProof | null>
  /**
   * Spends the browser's sign-in proof on the one prompt-less passkey
   * registration it allows: false when it is not the session's, not a
   * sign-in's, expired, or spent already. Atomic.
   */
  spendFreshProofOnUpgrade (bindingHash: string, sessionId: string, now: number): Promise<boolean>
  /** Forgets every proof of the account (its sessions have just been ended). */
  voidFreshProofs (accountId: string): Promise<void>

  insertResetToken (tokenHash: string, accountId: string, expiresAt: number): Promise<void>
  /** Uses the token once: returns its account if it was unused and unexpired. Atomic. */
  consumeResetToken (tokenHash: string, now: number): Promise<string | null>
  /** Marks every unused reset token of the account used (its password has just changed). */
  voidResetTokens (accountId: string, now: number): Promise<void>
  /** How many reset emails were sent to the account since `since`. */
  countResetTokensSince (accountId: string, since: number): Promise<number>

  insertEmailLink (link: EmailLink, now: number): Promise<void>
  /** Uses the link once: the link if it was made for `purpose`, unused and unexpired. Atomic. */
  consumeEmailLink (purpose: EmailLinkPurpose, tokenHash: string, now: number): Promise<OpenedEmailLink | null>
  /** The link if it was made for `purpose`, unused and unexpired, without using it (reads only). */
  findEmailLink (purpose: EmailLinkPurpose, tokenHash: string, now: number): Promise<OpenedEmailLink | null>
  /** How many links for `purpose` were sent to the account since `since`. */
  countEmailLinksSince (purpose: EmailLinkPurpose, accountId: string, since: number): Promise<number>

  /**
   * Records a password sign-in from the browser (`browserHash`, the hash of
   * its cookie's id): 'first' when the account had no browser yet, 'new' the
   * first time for this one, 'known' afterwards (and then it is seen again
   * now). Of concurrent calls for one browser, one sees it new. Atomic.
   */
  rememberBrowser (accountId: string, browserHash: string, now: number): Promise<BrowserSighting>
  /**
   * Whether the browser (`browserHash`, as for rememberBrowser) has signed in
   * to the account within `BROWSER_MEMORY_MS` of `now`. Reads only: a failed
   * attempt from the browser does not make it seen.
   */
  isKnownBrowser (accountId: string, browserHash: string, now: number): Promise<boolean>
  /** Takes the account's slot for a notice of `kind` unless one was taken within `intervalMs`. Atomic. */
  takeNoticeSlot (accountId: string, kind: NoticeKind, now: number, intervalMs: number): Promise<boolean>

  insertSsoTransaction (transaction: SsoTransaction): Promise<void>
  /** The transaction if it exists and has not expired, left in place: read before it is taken, so a stranger's request spends nothing. */
  findSsoTransaction (id: string, now: number): Promise<SsoTransaction | null>
  /** Takes the transaction out (single use) if it exists and has not expired. Atomic. */
  takeSsoTransaction (id: string, now: number): Promise<SsoTransaction | null>
  insertSsoIdentity (identity: SsoIdentity): Promise<void>
  /** Takes the identity out (single use) if it exists and has not expired. Atomic. */
  takeSsoIdentity (idHash: string, now: number): Promise<SsoIdentity | null>
  /** Records a SAML assertion id; false if it was seen before (a replay). Atomic. */
  rememberAssertion (assertionId: string, expiresAt: number, now: number): Promise<boolean>
  /**
   * Spends a Google ID token (`tokenKey`: its jti, or a hash of the token)
   * until `expiresAt`; false if it was spent before and has not expired (a
   * replay). Of concurrent calls for one token, exactly one is true. Atomic.
   */
  spendGoogleToken (tokenKey: string, expiresAt: number, now: number): Promise<boolean>

  /**
   * The account's WebAuthn user handle (16 random bytes, base64url), made on
   * first use; the same for every later call, also among concurrent first
   * calls. Null when the account does not exist. Atomic.
   */
  passkeyUserHandle (accountId: string): Promise<string | null>
  /** Stores a new passkey; false (and nothing stored) when its id is registered already. */
  /**
   * Stores a passkey; false when its id is registered already, or when
   * `session` (the registering session's refresh family) has ended meanwhile:
   * a registration under way when every session of the account ended (a
   * claim, a reset) is not kept. Atomic with the revocations.
   */
  insertPasskey (credential: PasskeyCredential, session?: { readonly familyId: string, readonly now: number }): Promise<boolean>
  findPasskey (id: string): Promise<PasskeyCredential | null>
  /** The account's passkeys, oldest first. */
  listPasskeys (accountId: string): Promise<readonly PasskeyCredential[]>
  /**
   * Records a sign-in with the passkey, if its stored counter is still one
   * the new counter may follow (both 0, or the new one greater): false when
   * the passkey is gone or another sign-in got there first. Atomic.
   */
  recordPasskeyUse (id: string, use: PasskeyUse): Promise<boolean>
  /** Removes the account's passkey; false when it has none with this id. */
  removePasskey (accountId: string, id: string): Promise<boolean>
  /** Names the account's passkey `name`; false (nothing changed) when the account has none with this id. */
  renamePasskey (accountId: string, id: string, name: string): Promise<boolean>
  insertPasskeyChallenge (challenge: PasskeyChallenge): Promise<void>
  /** Takes the challenge out (single use) if it exists and has not expired. Atomic. */
  takePasskeyChallenge (bindingHash: string, now: number): Promise<PasskeyChallenge | null>

  /**
   * Keeps a new pending authenticator secret for the account, replacing a
   * pending one; false (and nothing changed) when one is enrolled. Atomic.
   */
  startSecondFactorEnrolment (accountId: string, encryptedSecret: string, pendingExpiresAt: number): Promise<boolean>
  /** The account's authenticator secret, enrolled or pending, or null. */
  findSecondFactor (accountId: string): Promise<SecondFactorRecord | null>
  /**
   * Confirms the pending secret (unexpired) with the step of its first code,
   * and replaces the account's recovery codes with `recoveryCodeHashes`:
   * false (and nothing changed) when there is no pending secret. Atomic.
   */
  confirmSecondFactorEnrolment (accountId: string, step: number, recoveryCodeHashes: readonly string[], now: number): Promise<boolean>
  /** Replaces an enrolled account's recovery codes with `recoveryCodeHashes`; false (nothing changed) when none is enrolled. Atomic. */
  replaceRecoveryCodes (accountId: string, recoveryCodeHashes: readonly string[]): Promise<boolean>
  /** Records an accepted TOTP step if it is later than the last one: false for a replay. Atomic. */
  acceptSecondFactorStep (accountId: string, step: number): Promise<boolean>
  /** Uses one of the account's recovery codes once: false when unknown or used. Atomic. */
  useRecoveryCode (accountId: string, codeHash: string, now: number): Promise<boolean>
  /** How many of the account's recovery codes are unused. */
  countUnusedRecoveryCodes (accountId: string): Promise<number>
  /** Removes the account's authenticator and recovery codes; false when it had none. */
  removeSecondFactor (accountId: string): Promise<boolean>
  insertSecondFactorChallenge (challenge: SecondFactorChallenge): Promise<void>
  /** The challenge if it exists and has not expired (reads only). */
  findSecondFactorChallenge (challengeHash: string, now: number): Promise<SecondFactorChallenge | null>
  /** Deletes every second-factor challenge of the account: a login waiting for its code ends with the sessions. */
  voidSecondFactorChallenges (accountId: string): Promise<void>
  /** Spends the challenge (single successful use): false when gone or expired. Atomic. */
  consumeSecondFactorChallenge (challengeHash: string, now: number): Promise<boolean>
  /** Whether members of `organization` must have a second factor. */
  setOrganizationRequiresSecondFactor (organization: string, required: boolean): Promise<void>
  /** The organisations that require a second factor, in order. */
  listOrganizationsRequiringSecondFactor (): Promise<readonly string[]>
  /** Whether the account belongs to an organisation that requires a second factor. */
  secondFactorRequiredFor (accountId: string): Promise<boolean>
  /** Invalidates every remembered-browser cookie of the account issued before `now`. */
  forgetRememberedBrowsers (accountId: string, now: number): Promise<void>
  /** When the account's remembered browsers were last forgotten (0: never); null when no such account. */
  rememberedBrowsersForgottenAt (accountId: string): Promise<number | null>

  /** Keeps one security event of an account. */
  recordSecurityEvent (event: SecurityEvent): Promise<void>
  /** The account's events of `kinds` later than `since`, newest first, at most `limit`. */
  listSecurityEvents (accountId: string, options: { readonly since: number, readonly kinds: readonly string[], readonly limit: number }): Promise<readonly SecurityEvent[]>
  /** How many of the account's events of `kind` are later than `since`. */
  countSecurityEvents (accountId: string, kind: string, since: number): Promise<number>

  /**
   * Removes the account and every row of it: its tokens (so its sessions
   * end), passkeys, second factor, links, browsers, proofs, memberships and
   * security events. False when there is no such account. Atomic.
   */
  deleteAccount (accountId: string): Promise<boolean>

  /** The codes emailed for a sign-in or a fresh proof (server/reference/email-codes/). */
  readonly emailCodes: EmailCodeStore
  /** The accounts' linked social identities (server/reference/social/). */
  readonly socialLinks: SocialLinkStore
  /** The OpenID Connect clients added with the admin command. */
  readonly oidcClients: OidcClientStore
  /** What the OpenID Connect provider keeps between requests. */
  readonly oidcPayloads: OidcPayloadStore

  /**
   * Deletes expired tokens (spent Google tokens, passkey and second-factor challenges and
   * unconfirmed authenticator secrets included), links,
   * transactions and throttles, browsers unseen for `BROWSER_MEMORY_MS`, emailed
   * codes and their refused tries older than `EMAIL_CODE_MEMORY_MS`, and
   * security events older than `SECURITY_EVENT_MEMORY_MS`, and the OpenID
   * Connect provider's expired payloads.
   */
  purgeExpired (now: number): Promise<void>
  /**
   * Whether calls can reach the store's data now (a database server that is
   * down, or not reached since the start, cannot): the service's readiness.
   * Cheap enough to ask at every probe.
   */
  reachable (): Promise<boolean>
  /**
   * Epoch milliseconds by the clock every instance sharing this store agrees
   * on: lock ends, throttles and expiries are written by one instance and
   * compared by another, so each `now` passed in here comes from this
   * (PostgreSQL: its server's clock, followed by server/shared/shared-clock.ts; SQLite:
   * the one machine's).
   */
  now (): number
  close (): Promise<void>
}
