import type { AccountSession } from '../../../common/account/account-state.js'
import { isRefusal, type AccountOwners } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { browserNameIn } from '../sessions/request-origin.js'
import { readSavedLogin, type AuthenticationMethod } from '../sessions/tokens.js'
import type { AccountStore, SessionRecord } from '../store/account-store.js'

export interface AccountSessionsOptions {
  readonly store: Pick<AccountStore, 'listSessions' | 'endSession'>
  readonly owners: AccountOwners
  readonly now: () => number
}

/** The first factor of a sign-in, as the account view names it. */
const FIRST_FACTOR: Readonly<Record<AuthenticationMethod, string>> = {
  pwd: 'password',
  'pwd+otp': 'password',
  google: 'google',
  'google+otp': 'google',
  email: 'email-code',
  'email+otp': 'email-code',
  hwk: 'passkey',
  sso: 'sso',
  social: 'social',
  'social+otp': 'social'
}

/** A session id as the list gives it (a refresh family's id); anything else is no session's. */
const SESSION_ID = /^[\w-]{1,100}$/

/**
 * `sessions/list` and `sessions/end`: where the signed-in owner's account is
 * signed in, and the end of one of those sessions (docs/account-changes.md). A
 * live session is enough for both, as for `sessions/end-others`: ending a
 * session takes nothing from the owner.
 */
export class AccountSessions {
  constructor (private readonly options: AccountSessionsOptions) {}

  async list (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'account.read-refused', signedOut: 'account.signedOut' })
    if (isRefusal(owner)) return owner
    const records = await this.options.store.listSessions(owner.account.id, this.options.now())
    const sessions = records.map((record) => this.sessionOf(record, owner.claims.sessionId, facts))
      .sort((a, b) => b.lastUsedAt !== a.lastUsedAt ? b.lastUsedAt - a.lastUsedAt : b.signedInAt - a.signedInAt)
    return { status: 200, body: { sessions } }
  }

  /**
   * Ends one of the account's live sessions at once (its refresh family is
   * revoked). The current one may be ended too: a sign-out. Another account's
   * session answers as an unknown one does.
   */
  async end (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'sessions.end.refused', signedOut: 'session.endSignedOut' })
    if (isRefusal(owner)) return owner
    const { account, claims } = owner
    const id = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).id : undefined
    if (typeof id !== 'string' || !SESSION_ID.test(id)) return error(400, say(facts, 'session.idRequired'))
    if (!await this.options.store.endSession(account.id, id, this.options.now())) {
      logAuthEvent(facts, 'sessions.end.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'unknown' })
      return error(404, say(facts, 'session.notFound'))
    }
    logAuthEvent(facts, 'sessions.ended', { accountId: account.id, clientAddress: facts.clientAddress, current: id === claims.sessionId })
    return successAnswer(say(facts, 'session.endedOne'))
  }

  private sessionOf (record: SessionRecord, currentSessionId: string, facts: RequestFacts): AccountSession {
    const saved = readSavedLogin(record.context)
    // A session from before sign-in times were kept counts from its first refresh.
    const signedInAt = saved.signedInAt ?? record.lastRefreshedAt ?? this.options.now()
    return {
      id: record.familyId,
      current: record.familyId === currentSessionId,
      browser: browserNameIn(facts, saved.origin?.userAgent ?? null),
      signedInAt,
      lastUsedAt: Math.max(signedInAt, record.lastRefreshedAt ?? signedInAt),
      addressRange: saved.origin?.addressRange ?? '',
      method: FIRST_FACTOR[saved.method]
    }
  }
}
