import { useState } from 'react'
import type { Messages } from '../../common/languages/message-catalogue.js'
import { loginContextFields } from '../../common/page/page-query.js'
import type { PageFormState } from '../../common/page/page-render.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { useMessages } from '../languages/messages.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'
import { useSignInEnding, type SignInEnding } from '../sign-in/useSignInEnding.js'
import type { PageParams } from './page-params.js'
import { usePageNotices, type PageNotices } from './usePageNotices.js'

/** What every flow reads from the page. */
interface PageBasics {
  readonly params: PageParams
  /** The page's texts in its language, for what the flows say. */
  readonly messages: Messages
  /** The context fields every login call carries. */
  readonly context: LoginContextFields
  /** Local-network mode: only the local login; no view switching (docs/page.md, "Parameters"). */
  readonly localMode: boolean
  /** The email, kept across views. */
  readonly email: string
  readonly setEmail: (email: string) => void
}

/**
 * The page as the flows see it: what they read, what the page says
 * (PageNotices) and how a sign-in ends (SignInEnding). Each flow's hook takes
 * a Pick of it that names the members it uses, no more.
 */
export type PageState = PageBasics & PageNotices & SignInEnding

/** The page's state: the email the views share, the notices, and the ending of a sign-in. */
export function usePageState (params: PageParams, config: RuntimeConfig, formState: PageFormState | null): PageState {
  const messages = useMessages()
  // A form post's state (PageFormState), when the page answers one, is where the page starts: it is what the server rendered.
  const [email, setEmail] = useState(() => formState?.email ?? params.ssoReturn?.email ?? params.loginHint ?? '')
  const notices = usePageNotices(params, messages, formState)
  const ending = useSignInEnding(params, config, messages, notices)
  return {
    params,
    messages,
    context: loginContextFields(params),
    localMode: params.localAccounts.kind !== 'off',
    email,
    setEmail,
    ...notices,
    ...ending
  }
}
