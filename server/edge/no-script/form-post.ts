import type { SignedIn } from '../../../common/http/accounts-answers.js'
import type { LocalAccountsTarget } from '../../../common/sign-in/local-accounts.js'
import type { Messages } from '../../../common/languages/message-catalogue.js'
import type { PageQueryContext, PageView } from '../../../common/page/page-query.js'
import type { SignedInCalls } from '../account/signed-in-calls.js'
import type { AccountsCall } from './accounts-call.js'
import type { DomainGate } from '../domain-check/domain-gate.js'
import type { FormFields } from './form-fields.js'
import type { FormOutcome } from './form-outcome.js'

/** What one form's handler is given: the post, what its address says, and the calls it may make. */
export interface FormPost {
  readonly fields: FormFields
  /** The posted page's language (its address's ui_locales, else Accept-Language): what the edge says is said in it. */
  readonly messages: Messages
  /** The address's query, without `?`. */
  readonly query: string
  /** The view the address asks for (the page's `view`). */
  readonly view: PageView
  /** `redirect` and the login context, read from the address as the page reads them. */
  readonly context: PageQueryContext
  readonly localAccounts: LocalAccountsTarget
  /** The reset token in the address (`token`). */
  readonly resetToken: string | null
  /** Whether the page at the post's address offers the emailed code (EMAIL_CODES and `login_method`: email-code-forms.ts). */
  readonly emailCodeOffered: boolean
  /** SSO_DISCOVERY: the login and register forms posted without a password ask whether the address's domain signs in with SSO. */
  readonly ssoDiscovery: boolean
  /** Whether the code step offers "Don't ask again on this browser" (SECOND_FACTOR_REMEMBER_BROWSER). */
  readonly rememberBrowserOffered: boolean
  readonly callAccounts: AccountsCall
  /** The account's own calls, bearing its token (the account view's forms: server/edge/account/signed-in-calls.ts). */
  readonly account: SignedInCalls
  readonly domainGate: DomainGate
  /** A login's end: the token cookies and a 303 to the validated redirect target. */
  readonly signIn: (tokens: SignedIn) => FormOutcome
  /** A sign-out's end: both token cookies cleared and a 303 to the validated redirect target, or to the login view showing `notice`. */
  readonly signOut: (notice: string) => FormOutcome
  /** The value of the visitor's cookie called `name`, or undefined. */
  readonly cookie: (name: string) => string | undefined
}

/** One form's handler: the `form` field names it. */
export type FormHandler = (post: FormPost) => Promise<FormOutcome>

