import type { View } from '../lib/page-params.js'
import type { AlternativeMethodsProps } from './AlternativeMethods.js'

/** What every form view is given by the page. */
export interface FormViewProps {
  readonly busy: boolean
  /** This view's own request is running (its button shows the spinner). */
  readonly submitting: boolean
  /** The last submission was refused: the fields are marked invalid. */
  readonly invalid: boolean
  /** Id of the error or success text, which describes the form. */
  readonly noticeId: string
  readonly onShowView: (view: View) => void
}

/** The shared email field (kept across views, spec §4). */
export interface EmailFieldProps {
  readonly email: string
  readonly onEmailChange: (email: string) => void
}

/** Login and register: the password form and the other methods, as login_method allows. */
export interface SignInMethodsProps {
  readonly showPasswordForm: boolean
  readonly methods: Omit<AlternativeMethodsProps, 'verb' | 'busy'>
  /** Local-network mode: no view switching and no support link (spec §4). */
  readonly localMode: boolean
}
