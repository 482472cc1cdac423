import { useState, type KeyboardEvent } from 'react'
import { useMessages } from '../languages/messages.js'
import { TextField, type TextFieldProps } from './TextField.js'

export interface PasswordFieldProps extends Omit<TextFieldProps, 'type' | 'trailing' | 'onKeyEvent' | 'hint'> {
  readonly hint?: string
  /**
   * The toggle's accessible names, naming the field ("Show new password"):
   * whole texts from the catalogue, since no language builds them alike.
   */
  readonly revealLabels: { readonly show: string, readonly hide: string }
}

/**
 * A password field with a show/hide toggle and a Caps Lock warning, the two
 * things that save most mistyped passwords.
 */
export function PasswordField ({ revealLabels, ...props }: PasswordFieldProps) {
  const { text } = useMessages()
  const [visible, setVisible] = useState(false)
  const [capsLock, setCapsLock] = useState(false)
  const hint = [capsLock ? text('field.capsLockOn') : null, props.hint ?? null].filter(Boolean).join(' ')
  return (
    <TextField
      {...props}
      type={visible ? 'text' : 'password'}
      spellCheck={false}
      dir='ltr'
      hint={hint === '' ? undefined : <span aria-live='polite'>{hint}</span>}
      onKeyEvent={(event: KeyboardEvent<HTMLElement>) => setCapsLock(event.getModifierState('CapsLock'))}
      trailing={
        <button
          type='button'
          className='field__toggle'
          aria-pressed={visible}
          aria-label={visible ? revealLabels.hide : revealLabels.show}
          onClick={() => setVisible(!visible)}
        >
          {text(visible ? 'field.hide' : 'field.show')}
        </button>
      }
    />
  )
}
