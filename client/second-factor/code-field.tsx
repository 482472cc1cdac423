import { useId } from 'react'
import { withoutSpaces } from '../../common/second-factor/second-factor-codes.js'
import { useValueTypedBeforeHydration } from '../components/useValueTypedBeforeHydration.js'

/**
 * The field for an authenticator code: numeric keyboard, the browser's
 * one-time-code autofill, and spaces dropped as they come (a pasted
 * "123 456" becomes "123456"); no maxLength, which would cut such a paste.
 */
export function CodeField ({ label, value, onChange, invalid, describedBy, autoFocus }: {
  label: string, value: string, onChange: (value: string) => void, invalid: boolean, describedBy?: string, autoFocus?: boolean
}) {
  const id = useId()
  const change = (typed: string) => onChange(withoutSpaces(typed))
  useValueTypedBeforeHydration(id, value, change)
  return (
    <div className='field field--full'>
      <label htmlFor={id}>{label}</label>
      <div className='field__control'>
        <input id={id} name='code' type='text' inputMode='numeric' pattern='[0-9]{6}' autoComplete='one-time-code'
          spellCheck={false} dir='ltr' autoFocus={autoFocus} value={value} aria-invalid={invalid || undefined} aria-describedby={describedBy}
          onChange={(event) => change(event.target.value)} />
      </div>
    </div>
  )
}
