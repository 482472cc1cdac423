import { resolveLocalAccounts, type LocalAccountsTarget } from '../../common/sign-in/local-accounts.js'
import { domainCheckRequested, listParameter, nonEmpty, pageQueryContext, resetTokenFrom, viewFrom, type PageView } from '../../common/page/page-query.js'
import { noticeKind, noticeMessageKey, PAGE_NOTICE_VIEWS, pageNoticeFrom } from '../../common/page/page-notices.js'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import { plainText } from '../languages/messages.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import type { NoticeContent } from '../components/Notice.js'

export type View = PageView

/** The sign-in methods: local email and password, Google, custom SSO (SAML or OIDC), the emailed code, and each social connection by its id. */
type LoginMethod = 'password' | 'google' | 'sso' | 'email-code' | `social:${string}`

export interface SsoReturn {
  readonly protocol: 'SAML' | 'OIDC'
  readonly email: string
  readonly id: string
  readonly intent: 'login' | 'register'
}

/** The return from a social connection's provider (`?social=<id>&id=<single use>&login=1`, or `register=1`), to complete with `v2/auth/login`. */
interface SocialReturn {
  readonly provider: string
  readonly id: string
  readonly intent: 'login' | 'register'
}

/** Everything the page reads from its query string (docs/page.md, "Parameters"), parsed once per address. */
export interface PageParams {
  readonly view: View
  readonly redirect: string | null
  readonly allowedOrgs: readonly string[]
  readonly resourceType: string | null
  readonly clusterName: string | null
  /** The methods login_method allows; every method when the parameter is absent. */
  readonly loginMethods: ReadonlySet<LoginMethod>
  readonly ssoReturn: SsoReturn | null
  readonly socialReturn: SocialReturn | null
  readonly banner: string | null
  readonly localAccounts: LocalAccountsTarget
  /** The `error` parameter made plain, if anything is left of it: a catalogue key or a text to show as it came (messageForErrorParameter). */
  readonly errorParameter: string | null
  /** What the `notice` parameter says, when its code is known and belongs to this view (shown like the form's own notices). */
  readonly notice: AddressNotice | null
  readonly domainCheck: boolean
  readonly resetToken: string | null
  /** `login_hint`, as an OpenID Connect client asks through the provider: the email the login and register views start with. */
  readonly loginHint: string | null
}

/** A notice from the address: whether it reads as a success or an error, and its text's key (the page says it in its language). */
interface AddressNotice {
  readonly kind: NoticeContent['kind']
  readonly key: MessageKey
}

/** Where to go after a login, and the context a login carries: what single sign-on keeps across its round trip. */
export type PageContext = Pick<PageParams, 'redirect' | 'allowedOrgs' | 'resourceType' | 'clusterName'>

const ALL_METHODS: readonly LoginMethod[] = ['password', 'google', 'sso', 'email-code']
const MAX_BANNER_LENGTH = 200

/** Text to show, or null when nothing is left once control and invisible characters are gone. */
function shownText (value: string | null, toText: (value: string) => string): string | null {
  return nonEmpty(value === null ? null : toText(value))
}

/**
 * The methods `login_method` allows. Unknown values are ignored; when none of
 * the values is known, every method is shown rather than an empty page.
 */
function loginMethodsFrom (params: URLSearchParams, { productName, socialProviders }: RuntimeConfig): ReadonlySet<LoginMethod> {
  const requested = listParameter(params, 'login_method').map((value) => value.toUpperCase())
  // socialLoginMethod (common/social/social-providers.ts) is the id in capitals; the mark is `social:<id>`, as the method used last names it.
  const social = socialProviders.map(({ id }): LoginMethod => `social:${id}`)
  const methods = new Set<LoginMethod>()
  for (const value of requested) {
    const mark: LoginMethod = `social:${value.toLowerCase()}`
    if (social.includes(mark)) methods.add(mark)
    else if (value === 'GOOGLE') methods.add('google')
    else if (value === 'SAML' || value === 'CUSTOM_SSO' || value === 'OIDC') methods.add('sso')
    // EMAIL_CODE_LOGIN_METHOD (common/email-codes/email-code-format.ts) written out: importing it would bring
    // the code's format, which the lazy code step shares, into the first load (test/client/page/page-params.test.ts holds them equal).
    else if (value === 'EMAIL_CODE') methods.add('email-code')
    else if (value === productName.toUpperCase()) methods.add('password')
  }
  return methods.size === 0 ? new Set([...ALL_METHODS, ...social]) : methods
}

/** The returns from single sign-on and from a social provider: each an id and an intent, with the protocol and email, or the provider. */
function returnsFrom (params: URLSearchParams): Pick<PageParams, 'ssoReturn' | 'socialReturn'> {
  const protocol = params.has('saml') ? 'SAML' : params.has('oidc') ? 'OIDC' : null
  const email = nonEmpty(params.get('email'))
  const provider = nonEmpty(params.get('social'))
  const id = nonEmpty(params.get('id'))
  const intent = params.has('register') ? 'register' : params.has('login') ? 'login' : null
  if (id === null || intent === null) return { ssoReturn: null, socialReturn: null }
  return {
    ssoReturn: protocol === null || email === null ? null : { protocol, email, id, intent },
    socialReturn: provider === null ? null : { provider, id, intent }
  }
}

/**
 * The notice for a known code on its own view. Unlike `error`, the value is
 * never shown itself: anyone can write a link, so only the catalogue's texts
 * appear.
 */
function noticeFrom (code: string | null, view: View): AddressNotice | null {
  const notice = pageNoticeFrom(code)
  return notice !== null && PAGE_NOTICE_VIEWS[notice] === view ? { kind: noticeKind(notice), key: noticeMessageKey(notice) } : null
}

export function parsePageParams (search: string, pageHostname: string, config: RuntimeConfig): PageParams {
  const params = new URLSearchParams(search)
  const localAccounts = resolveLocalAccounts(params, pageHostname, config.localAccountsAllowedHosts)
  const view = viewFrom(params.get('view'), config.passwordResetCompletion)
  return {
    view,
    ...pageQueryContext(params),
    loginMethods: localAccounts.kind === 'off' ? loginMethodsFrom(params, config) : new Set(['password']),
    ...returnsFrom(params),
    banner: shownText(params.get('home_page_banner'), (value) => plainText(value, MAX_BANNER_LENGTH)),
    localAccounts,
    errorParameter: shownText(params.get('error'), plainText),
    notice: noticeFrom(params.get('notice'), view),
    domainCheck: domainCheckRequested(params),
    resetToken: resetTokenFrom(params),
    loginHint: nonEmpty(params.get('login_hint'))
  }
}
