import type { ButtonHTMLAttributes, ReactNode, Ref } from 'react'
import { Spinner } from './Spinner.js'

export interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'className'> {
  readonly variant?: 'primary' | 'secondary' | 'text'
  /** Shows a 14 px spinner and disables the button while its request runs. */
  readonly busy?: boolean
  readonly children: ReactNode
  /** For a caller that moves focus to the button. */
  readonly ref?: Ref<HTMLButtonElement>
}

/** A button with enabled and disabled looks (disabled at reduced opacity). */
export function Button ({ variant = 'primary', busy = false, disabled = false, type = 'button', children, ...rest }: ButtonProps) {
  return (
    <button {...rest} type={type} className={`button button--${variant}`} disabled={disabled || busy} aria-busy={busy || undefined}>
      {busy && <Spinner small />}
      <span>{children}</span>
    </button>
  )
}
