
import { useMessages } from '../languages/messages.js'

/** "Don't ask again on this browser for 30 days", where the service offers it (SECOND_FACTOR_REMEMBER_BROWSER). */
export function RememberBrowser ({ checked, onChange }: { checked: boolean, onChange: (checked: boolean) => void }) {
  const { text } = useMessages()
  return (
    <label className='checkbox'>
      <input type='checkbox' name='remember' checked={checked} onChange={(event) => onChange(event.target.checked)} />
      <span>{text('secondFactor.rememberBrowser')}</span>
    </label>
  )
}
