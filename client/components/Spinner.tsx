/**
 * A spinner making one turn per second, hidden from assistive technology:
 * 24 px, or 14 px in a button (`small`). Sized by class, not by a style
 * attribute, which the page's CSP would refuse in server-rendered markup.
 */
export function Spinner ({ small = false, label }: { small?: boolean, label?: string }) {
  return (
    <span
      className={small ? 'spinner spinner--small' : 'spinner'}
      role={label === undefined ? undefined : 'status'}
      aria-label={label}
      aria-hidden={label === undefined ? true : undefined}
    />
  )
}
