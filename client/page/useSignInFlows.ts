import { useState } from 'react'
import type { PageFormState } from '../../common/page/page-render.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import type { PageParams } from './page-params.js'
import { useDomainCheck } from '../domain-check/useDomainCheck.js'
import { useGoogleSignIn } from '../google/useGoogleSignIn.js'
import { useLogin } from '../sign-in/useLogin.js'
import { usePageState } from './usePageState.js'
import { usePasskeys } from '../passkeys/usePasskeys.js'
import { useSecondFactor } from '../second-factor/useSecondFactor.js'
import { useSsoStart } from '../sso/useSsoStart.js'
import { useVerifyEmailRequest } from '../registration/useVerifyEmailRequest.js'
import { useEmailCode } from '../email-codes/useEmailCode.js'

/**
 * Every flow of the page, wired to the page state and, for the logins, to the
 * domain check; and what the flows decide together: whether the page is busy,
 * and which notice shows. Each flow is a hook of its own file.
 */
export function useSignInFlows (params: PageParams, config: RuntimeConfig, formState: PageFormState | null) {
  const page = usePageState(params, config, formState)
  const gate = useDomainCheck(params.domainCheck, config.domainCheckTimeoutMs)
  const sso = useSsoStart(page, gate)
  const secondFactor = useSecondFactor(page, config, formState)
  // After a password login, at most one offer: the passkey one first; the second-factor one only where no passkey offer showed.
  const passkeys = usePasskeys(page, gate, config, params.view, sso.modalOpen || secondFactor.step !== null, secondFactor.offerOrLeave)
  const login = useLogin(page, gate, (answer) => passkeys.afterPasswordLogin(answer) || secondFactor.afterPasswordLogin(answer), secondFactor.begin)
  const google = useGoogleSignIn(page, config, gate, secondFactor.begin)
  // A return's completion runs in a chunk of its own (client/page/ReturnCompletion.tsx), which says while it runs.
  const [completing, setCompleting] = useState(false)
  const verifyEmail = useVerifyEmailRequest(page)
  const emailCode = useEmailCode(formState)

  const busy = page.leaving || login.isMutating ||
    google.isMutating || sso.submitting || completing || verifyEmail.sending || passkeys.running !== null
  return {
    page,
    /** Buttons are disabled while any request runs, or once the page is leaving (docs/page.md, "Choices where the specification is silent"). */
    busy,
    /** The error is hidden while a request is pending (the same section). */
    notice: busy && page.notice?.kind === 'error' ? null : page.notice,
    // Google sign-in and the return from SSO have no spinner of their own: the Login button shows theirs.
    // The upgrade after a password login keeps the Login button's spinner: the login is not over until it ends.
    login: { submit: login.submit, submitting: login.isMutating || google.isMutating || completing || passkeys.running === 'upgrade' },
    google,
    passkeys,
    secondFactor,
    sso,
    emailCode,
    /** The domain check, for the emailed code's request (its steps are a chunk of their own). */
    gate,
    verificationLink: verifyEmail,
    onCompleting: setCompleting
  }
}
