import type { SecondFactorDue } from '../../common/http/accounts-answers.js'
import { useSocialCompletion, type SocialCompletionPage } from '../social/useSocialCompletion.js'
import { useSsoCompletion, type SsoCompletionPage } from '../sso/useSsoCompletion.js'

export interface ReturnCompletionProps {
  readonly page: SsoCompletionPage & SocialCompletionPage
  /** Tells the page while the completion's call runs: the Login button shows the spinner, every button waits. */
  readonly onRunning: (running: boolean) => void
  readonly onSecondFactor: (due: SecondFactorDue) => void
}

/**
 * The completion of a return from single sign-on or a social provider: a
 * chunk of its own that renders nothing, loaded only when the address is
 * such a return (client/SignInPage.tsx), so that the first load carries
 * neither completion.
 */
export default function ReturnCompletion ({ page, onRunning, onSecondFactor }: ReturnCompletionProps) {
  useSsoCompletion(page, onRunning)
  useSocialCompletion(page, onRunning, onSecondFactor)
  return null
}
