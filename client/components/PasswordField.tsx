import { useState, type KeyboardEvent } from 'react'
import { TextField, type TextFieldProps } from './TextField.js'

/**
 * A password field with a show/hide toggle and a Caps Lock warning, the two
 * things that save most mistyped passwords.
 */
export function PasswordField (props: Omit<TextFieldProps, 'type' | 'trailing' | 'onKeyEvent' | 'hint'> & { readonly hint?: string }) {
  const [visible, setVisible] = useState(false)
  const [capsLock, setCapsLock] = useState(false)
  const hint = [capsLock ? 'Caps Lock is on.' : null, props.hint ?? null].filter(Boolean).join(' ')
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
          aria-label={visible ? `Hide ${props.label.toLowerCase()}` : `Show ${props.label.toLowerCase()}`}
          onClick={() => setVisible(!visible)}
        >
          {visible ? 'Hide' : 'Show'}
        </button>
      }
    />
  )
}
